// Bundles everything with esbuild: the CLI and benchmarks (Node), the extension host entry (Node, `vscode`
// external), the simulation worker (Node worker thread), the inspector webview (browser IIFE + CSS) and the
// integration-test suite that runs inside the VS Code extension host.
import { build } from 'esbuild';
import { readdirSync, existsSync, rmSync, mkdirSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';

const node = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning' };
// `import('h5wasm/node')` in src/format/fclib.ts becomes `import('./h5wasm.mjs')`, next to dist/cli.js.
const h5wasmApart = {
  name: 'h5wasm-apart',
  setup(b) {
    b.onResolve({ filter: /^h5wasm\/node$/ }, () => ({ path: './h5wasm.mjs', external: true }));
  },
};
const production = process.env.NODE_ENV === 'production' || process.argv.includes('--production');

// the suite runner loads every dist/test/suite/*.test.js: a deleted test must not linger there
rmSync('dist/test/suite', { recursive: true, force: true });
const suiteEntries = existsSync('test/suite')
  ? readdirSync('test/suite')
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `test/suite/${f}`)
  : [];

await Promise.all([
  // h5wasm (FCLIB HDF5 problems, 4 MB with its embedded WebAssembly) is its own ES-module bundle, loaded by the CLI only
  // when it meets an HDF5 file, so that every other command starts as fast as before.
  // the embedded DuckDB (Parquet, `query`) is an optional native package: loaded from node_modules when present
  build({
    ...node,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [h5wasmApart],
    external: ['@duckdb/node-api'],
  }),
  build({
    ...node,
    format: 'esm',
    entryPoints: { h5wasm: 'node_modules/h5wasm/dist/node/hdf5_hl.js' },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    sourcemap: false,
  }),
  build({ ...node, entryPoints: ['bench/solvers.ts'], outfile: 'dist/bench-solvers.js', external: ['@dimforge/rapier3d-compat'] }),
  // the recording writer for JavaScript engines (writers/typescript/README.md): require('…/dist/writer.js')
  build({ ...node, entryPoints: ['writers/typescript/index.ts'], outfile: 'dist/writer.js' }),
  // cannon-es and Rapier stay external (loaded from node_modules at run time, so a missing one is reported, not fatal).
  build({ ...node, entryPoints: ['bench/world.ts'], outfile: 'dist/bench-world.js', external: ['cannon-es', '@dimforge/rapier3d-compat'] }),
  // The extension entry must stay small (activation < 50 ms): the engine lives in the worker bundle.
  build({ ...node, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], minify: production, metafile: true }),
  // the worker opens FCLIB problems for the inspector with the same dist/h5wasm.mjs as the CLI (loaded on first use)
  build({ ...node, entryPoints: ['src/extension/worker/simulationWorker.ts'], outfile: 'dist/worker.js', minify: production, plugins: [h5wasmApart] }),
  // the live listener's sockets and recordings, on a thread of the worker's own (src/extension/live/liveIoThread.ts)
  build({ ...node, entryPoints: ['src/extension/live/liveIoThread.ts'], outfile: 'dist/liveIo.js', minify: production }),
  // a live stream's diagnosis, on a thread of its own (src/extension/live/diagnosisThread.ts)
  build({ ...node, entryPoints: ['src/extension/live/diagnosisThread.ts'], outfile: 'dist/liveDiagnosis.js', minify: production, plugins: [h5wasmApart] }),
  // the later frames of a large recording opened in the inspector, diagnosed on a thread of their own (src/extension/model/parallelOpen.ts)
  build({ ...node, entryPoints: ['src/extension/model/stretchDiagnosisThread.ts'], outfile: 'dist/stretchDiagnosis.js', minify: production }),
  // the same for `report` and `diagnose` of a large recording, beside dist/cli.js (src/cli/reportStretchThread.ts)
  build({ ...node, entryPoints: ['src/cli/reportStretchThread.ts'], outfile: 'dist/reportStretch.js' }),
  // a live stream's frame views, on a thread of their own (src/extension/live/viewThread.ts)
  build({ ...node, entryPoints: ['src/extension/live/viewThread.ts'], outfile: 'dist/liveView.js', minify: production, plugins: [h5wasmApart] }),
  build({
    bundle: true,
    platform: 'browser',
    target: 'chrome120',
    format: 'iife',
    sourcemap: true,
    logLevel: 'warning',
    minify: production,
    entryPoints: { main: 'webview/main.ts', style: 'webview/style.css' },
    outdir: 'dist/webview',
  }),
  // Integration tests run inside the extension host: `vscode` and mocha come from the host / node_modules.
  suiteEntries.length ? build({ ...node, entryPoints: suiteEntries, outdir: 'dist/test/suite', external: ['vscode', 'mocha'] }) : Promise.resolve(),
]);

// The engines of `compare` and `simulate --engine` (optional npm packages; src/session/engines/enginePackages.ts
// ENGINE_PACKAGES lists the same files, and a test keeps the two lists equal): each package's one self-contained
// runtime file is copied to dist/engines/, so the VSIX and a built CLI run them without node_modules. An engine
// whose package is not installed is left out (it is then reported as unavailable when asked for).
const ENGINES = [
  ['cannon-es', 'dist/cannon-es.cjs.js', 'cannon-es.cjs'],
  ['@dimforge/rapier3d-compat', 'dist/rapier.cjs', 'rapier3d-compat.cjs'],
  ['jolt-physics', 'dist/jolt-physics.wasm-compat.js', 'jolt-physics.wasm-compat.mjs'],
  ['mujoco-js', 'dist/mujoco_wasm.js', 'mujoco_wasm.mjs'],
];
rmSync('dist/engines', { recursive: true, force: true });
mkdirSync('dist/engines', { recursive: true });
const versions = {};
for (const [pkg, file, shipped] of ENGINES) {
  const root = `node_modules/${pkg}`;
  if (!existsSync(`${root}/${file}`)) continue;
  copyFileSync(`${root}/${file}`, `dist/engines/${shipped}`);
  versions[pkg] = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')).version;
}
writeFileSync('dist/engines/versions.json', `${JSON.stringify(versions, null, 2)}\n`);
