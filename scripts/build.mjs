// Bundles the CLI (and later the extension and webview) with esbuild.
import { build } from 'esbuild';

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning' };

await Promise.all([
  build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } }),
  build({ ...common, entryPoints: ['bench/solvers.ts'], outfile: 'dist/bench-solvers.js' }).catch((e) => { if (!String(e).includes('bench/solvers.ts')) throw e; }),
  // cannon-es and Rapier stay external (loaded from node_modules at run time, so a missing one is reported, not fatal).
  build({ ...common, entryPoints: ['bench/world.ts'], outfile: 'dist/bench-world.js', external: ['cannon-es', '@dimforge/rapier3d-compat'] }).catch((e) => { if (!String(e).includes('bench/world')) throw e; }),
]);
