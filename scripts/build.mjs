// Bundles the CLI (and later the extension and webview) with esbuild.
import { build } from 'esbuild';

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning' };

await Promise.all([
  build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } }),
  build({ ...common, entryPoints: ['bench/solvers.ts'], outfile: 'dist/bench-solvers.js' }).catch((e) => { if (!String(e).includes('bench/solvers.ts')) throw e; }),
]);
