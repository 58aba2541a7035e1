#!/usr/bin/env node
// npm run test:vscode — the integration suite (test/suite/*.test.ts, built to dist/test/suite) inside the REAL
// node extension host of a VS Code server (code-server 4.139 on Node 24), offline.
//
// How: code-server runs with `--vscode-option enable-smoke-test-driver`, so the workbench honours the URL
// `payload` [extensionDevelopmentPath, extensionTestsPath]; headless chromium opens that URL (a browser client
// is what makes the server start an extension host), the ext host runs test/suite/index.ts's run(), and the
// workbench reports the exit code through window.codeAutomationExit(code), which we expose with playwright.
//
// Exit 1 if: the exit code ≠ 0, the results JSON is missing, failures > 0, passes == 0, or any test is pending.
// Env: CONTACT_LENS_TEST_GREP (mocha grep), CONTACT_LENS_SUITE_TIMEOUT_MS (default 240000),
//      CONTACT_LENS_EXT_DEV_PATH (default: the repo root), CONTACT_LENS_TESTS_PATH (default dist/test/suite/index.js),
//      CONTACT_LENS_KEEP_RUN=1 keeps the temporary run folder.
import { existsSync, mkdirSync, copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  REPO,
  SCREENSHOTS,
  LOGS,
  ensureHost,
  makeRun,
  copyWorkspace,
  startCodeServer,
  launchBrowser,
  cleanup,
  removeRun,
  elapsed,
  log,
  sleep,
  judgeResults,
} from './lib.mjs';

const extDevPath = resolve(process.env.CONTACT_LENS_EXT_DEV_PATH || REPO);
const testsPath = resolve(process.env.CONTACT_LENS_TESTS_PATH || join(REPO, 'dist/test/suite/index.js'));
const timeoutMs = Number(process.env.CONTACT_LENS_SUITE_TIMEOUT_MS || 240_000);

async function main() {
  const t0 = Date.now();
  const timings = {};
  for (const f of [join(extDevPath, 'dist/extension.js'), testsPath]) {
    if (!existsSync(f)) {
      console.error(`missing ${f}: run \`npm run build\` first (it bundles the extension and test/suite/*.ts to dist/)`);
      return 1;
    }
  }

  const host = ensureHost();
  timings.hostCheck = elapsed(t0);
  const run = makeRun('suite');
  try {
    const workspace = copyWorkspace(run);
    const results = join(run.dir, 'results.json');
    mkdirSync(SCREENSHOTS, { recursive: true });
    mkdirSync(LOGS, { recursive: true });

    let t = Date.now();
    const server = await startCodeServer(host, run, {
      workspace,
      extraArgs: ['--vscode-option', 'enable-smoke-test-driver'],
      // the extension host inherits the server's environment
      env: { CONTACT_LENS_TEST_RESULTS: results, CONTACT_LENS_TEST_GREP: process.env.CONTACT_LENS_TEST_GREP ?? '' },
      logFile: join(LOGS, 'suite-code-server.log'),
    });
    timings.hostStart = elapsed(t);
    log(`code-server up on ${server.url} (pid ${server.pid}) in ${timings.hostStart}; workspace ${workspace}`);

    // Forward the extension host's test output: test/suite/index.ts formats every console line during the run
    // and tags it with MARK (the workbench's own log lines are interleaved in the browser console).
    const MARK = '\u2063CL\u2063 ';
    const browser = await launchBrowser(run, {
      consoleLog: join(LOGS, 'suite-browser-console.log'),
      onConsole: (text) => {
        for (const l of text.split('\n')) {
          const at = l.indexOf(MARK);
          if (at >= 0) console.log(`  | ${l.slice(at + MARK.length).trimEnd()}`);
        }
      },
    });
    const { page } = browser;
    let onExit;
    const exited = new Promise((r) => {
      onExit = r;
    });
    await page.exposeFunction('codeAutomationExit', (code) => onExit(code));

    const remote = (p) => `vscode-remote://${server.authority}${p}`;
    const payload = [
      ['extensionDevelopmentPath', remote(extDevPath)],
      ['extensionTestsPath', remote(testsPath)],
    ];
    const url = `${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    t = Date.now();
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    timings.workbench = elapsed(t);
    log(`workbench loaded in ${timings.workbench}; waiting for the extension host tests (timeout ${timeoutMs / 1000}s)`);

    const code = await Promise.race([exited, sleep(timeoutMs).then(() => 'timeout')]);
    timings.suite = elapsed(t);
    await browser.flushConsole();
    log(`codeAutomationExit -> ${code} after ${timings.suite}`);
    await page.screenshot({ path: join(SCREENSHOTS, 'suite-workbench.png') }).catch((e) => console.error(`screenshot failed: ${e.message}`));

    // Verdict
    const problems = [];
    if (code !== 0) problems.push(code === 'timeout' ? `no codeAutomationExit within ${timeoutMs / 1000}s` : `extension host test run exited with ${code}`);
    if (existsSync(results)) copyFileSync(results, join(LOGS, 'suite-results.json'));
    const judged = judgeResults(results);
    const r = judged.results;
    problems.push(...judged.problems);
    timings.total = elapsed(t0);
    console.log(
      `\ntimings: install check ${timings.hostCheck}, code-server start ${timings.hostStart}, workbench ${timings.workbench}, ` +
        `suite (page load → exit) ${timings.suite}, total ${timings.total}`,
    );
    console.log(`screenshot: ${join(SCREENSHOTS, 'suite-workbench.png')}; logs: ${LOGS}`);
    if (problems.length) {
      console.log(`\nINTEGRATION SUITE FAILED: ${problems.join('; ')}`);
      if (!r) console.log(`(see ${join(LOGS, 'suite-browser-console.log')} and ${join(LOGS, 'suite-code-server.log')})`);
      return 1;
    }
    console.log('\nINTEGRATION SUITE PASSED');
    return 0;
  } finally {
    await cleanup();
    removeRun(run);
  }
}

main().then(
  (code) => process.exit(code),
  async (e) => {
    console.error(`run-suite: ${e.stack || e}`);
    await cleanup();
    process.exit(1);
  },
);
