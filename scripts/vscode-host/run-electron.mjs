#!/usr/bin/env node
// npm run test:electron — the same integration suite (dist/test/suite/index.js) in a DESKTOP VS Code through
// @vscode/test-electron, for machines that have one. Not used in CI here (no desktop build offline: see
// ../../../shared/vscode-testing/REPORT.md, goal 4); `npm run test:vscode` runs the same suite in code-server.
//
// VSCODE_EXECUTABLE=/path/to/code  uses that build (no download); otherwise test-electron downloads stable
// into .vscode-test/. Same verdict as run-suite.mjs (failures, no passes, or pending tests → exit 1).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, LOGS, makeRun, copyWorkspace, removeRun, judgeResults, elapsed } from './lib.mjs';

const NO_DESKTOP = 'no desktop VS Code: set VSCODE_EXECUTABLE or run npm run test:vscode';

async function main() {
  const t0 = Date.now();
  const testsPath = join(REPO, 'dist/test/suite/index.js');
  for (const f of [join(REPO, 'dist/extension.js'), testsPath]) {
    if (!existsSync(f)) {
      console.error(`missing ${f}: run \`npm run build\` first`);
      return 1;
    }
  }
  const { runTests, downloadAndUnzipVSCode } = await import('@vscode/test-electron');

  let vscodeExecutablePath = process.env.VSCODE_EXECUTABLE;
  if (vscodeExecutablePath && !existsSync(vscodeExecutablePath)) {
    console.error(`VSCODE_EXECUTABLE=${vscodeExecutablePath} does not exist`);
    return 1;
  }
  if (!vscodeExecutablePath) {
    try {
      vscodeExecutablePath = await downloadAndUnzipVSCode({ cachePath: join(REPO, '.vscode-test') });
    } catch (e) {
      console.error(`${NO_DESKTOP} (download failed: ${String(e?.message ?? e).split('\n')[0]})`);
      return 1;
    }
  }

  const run = makeRun('electron');
  try {
    const workspace = copyWorkspace(run);
    const results = join(run.dir, 'results.json');
    mkdirSync(LOGS, { recursive: true });
    let code = 0;
    try {
      code = await runTests({
        vscodeExecutablePath,
        extensionDevelopmentPath: REPO,
        extensionTestsPath: testsPath,
        launchArgs: [
          workspace,
          '--disable-extensions',
          '--disable-workspace-trust',
          '--skip-welcome',
          '--skip-release-notes',
          '--user-data-dir',
          run.userData,
          '--extensions-dir',
          run.extensions,
        ],
        extensionTestsEnv: { CONTACT_LENS_TEST_RESULTS: results, CONTACT_LENS_TEST_GREP: process.env.CONTACT_LENS_TEST_GREP ?? '' },
      });
    } catch (e) {
      // runTests rejects with "Failed" on a non-zero exit; the results file says which tests failed.
      console.error(`VS Code exited with an error: ${String(e?.message ?? e).split('\n')[0]}`);
      code = 1;
    }
    const { problems } = judgeResults(results);
    if (code !== 0) problems.unshift(`VS Code test run exited with ${code}`);
    console.log(`\ntotal ${elapsed(t0)}`);
    if (problems.length) {
      console.log(`\nINTEGRATION SUITE (electron) FAILED: ${problems.join('; ')}`);
      return 1;
    }
    console.log('\nINTEGRATION SUITE (electron) PASSED');
    return 0;
  } finally {
    removeRun(run);
  }
}

main().then(
  (c) => process.exit(c),
  (e) => {
    console.error(`run-electron: ${e.stack || e}`);
    process.exit(1);
  },
);
