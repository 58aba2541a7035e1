#!/usr/bin/env node
// npm run test:e2e — workbench end-to-end flows (test/e2e/*.e2e.mjs) on the PACKAGED extension:
//   vsce package → artifacts/contact-lens.vsix → `code-server --install-extension` into a fresh extensions dir →
//   code-server (no development path) on a temporary copy of examples/ → headless chromium via playwright-core.
// Screenshots go to artifacts/screenshots/; on failure also e2e-failure-<flow>.png and the browser console log.
// The pictures the README shows are written to media/screenshots/ (committed) by the flows' media().
// Env: CONTACT_LENS_E2E_SKIP_PACKAGE=1 reuses an existing artifacts/contact-lens.vsix; CONTACT_LENS_KEEP_RUN=1;
// CONTACT_LENS_E2E_FLOWS=a,b runs only test/e2e/a.e2e.mjs and b.e2e.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  REPO,
  ARTIFACTS,
  SCREENSHOTS,
  LOGS,
  EXTENSION_ID,
  ensureHost,
  makeRun,
  copyWorkspace,
  codeServerCli,
  startCodeServer,
  launchBrowser,
  cleanup,
  removeRun,
  elapsed,
  log,
} from './lib.mjs';

const VSIX = join(ARTIFACTS, 'contact-lens.vsix');
const MEDIA_SCREENSHOTS = join(REPO, 'media/screenshots');

function packageVsix() {
  // vscode:prepublish runs the production build. --no-rewrite-relative-links: the repository URL is a
  // placeholder, so vsce cannot turn README's relative links into absolute ones.
  const vsce = join(REPO, 'node_modules/@vscode/vsce/vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--no-rewrite-relative-links', '-o', VSIX], {
    cwd: REPO,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.status !== 0) throw new Error(`vsce package failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return statSync(VSIX).size;
}

async function main() {
  const t0 = Date.now();
  const timings = {};
  mkdirSync(SCREENSHOTS, { recursive: true });
  mkdirSync(MEDIA_SCREENSHOTS, { recursive: true });
  mkdirSync(LOGS, { recursive: true });

  let t = Date.now();
  if (process.env.CONTACT_LENS_E2E_SKIP_PACKAGE && existsSync(VSIX)) log(`reusing ${VSIX}`);
  else packageVsix();
  timings.package = elapsed(t);
  log(`VSIX ${VSIX}: ${(statSync(VSIX).size / 1024).toFixed(1)} KiB (packaged in ${timings.package})`);
  if (!existsSync(join(REPO, 'dist/cli.js'))) throw new Error('dist/cli.js missing: the e2e flow computes expected numbers with the CLI (npm run build)');

  const host = ensureHost();
  const run = makeRun('e2e');
  let failed = 0;
  try {
    const workspace = copyWorkspace(run);

    t = Date.now();
    const inst = codeServerCli(host, run, ['--install-extension', VSIX]);
    const instOut = `${inst.stdout}\n${inst.stderr}`;
    if (inst.status !== 0 || !/successfully installed/i.test(instOut)) throw new Error(`--install-extension failed (exit ${inst.status}):\n${instOut.trim()}`);
    const list = codeServerCli(host, run, ['--list-extensions', '--show-versions']);
    const installed = list.stdout
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    if (!installed.some((l) => l.toLowerCase().startsWith(`${EXTENSION_ID}@`)))
      throw new Error(`--list-extensions does not show ${EXTENSION_ID}: ${JSON.stringify(installed)}`);
    timings.install = elapsed(t);
    log(`installed into a fresh extensions dir: ${installed.join(', ')} (${timings.install})`);

    t = Date.now();
    const server = await startCodeServer(host, run, { workspace, logFile: join(LOGS, 'e2e-code-server.log') });
    timings.hostStart = elapsed(t);
    log(`code-server up on ${server.url} in ${timings.hostStart}; workspace ${workspace}`);

    const consoleLog = join(LOGS, 'e2e-browser-console.log');
    const browser = await launchBrowser(run, { consoleLog });
    const { page } = browser;

    const flows = readdirSync(join(REPO, 'test/e2e'))
      .filter((f) => f.endsWith('.e2e.mjs'))
      // CONTACT_LENS_E2E_FLOWS=compare,inspector runs only those flows (the file names without .e2e.mjs)
      .filter((f) => !process.env.CONTACT_LENS_E2E_FLOWS || process.env.CONTACT_LENS_E2E_FLOWS.split(',').includes(f.replace(/\.e2e\.mjs$/, '')))
      // compare last: it leaves box-stack-10 in the workbench's history, where the screenshots flow's Quick Open
      // would find it first
      .sort((a, b) => Number(a.startsWith('compare')) - Number(b.startsWith('compare')) || a.localeCompare(b));
    if (!flows.length) throw new Error('no test/e2e/*.e2e.mjs flows');
    for (const file of flows) {
      const flow = await import(pathToFileURL(join(REPO, 'test/e2e', file)).href);
      const ft = Date.now();
      const step = (s) => console.log(`  ${elapsed(ft).padStart(6)} ${s}`);
      // *.png lossless; *.jpg (quality 80) for pictures that go into the README
      const shot = async (file) => {
        await page.screenshot({ path: join(SCREENSHOTS, file), ...(file.endsWith('.jpg') ? { type: 'jpeg', quality: 80 } : {}) });
        step(`screenshot ${file}`);
      };
      // the committed pictures (README, docs): media/screenshots/<file>, the whole page or one element
      // (a playwright locator); regenerated by every e2e run, so they cannot go stale
      const media = async (file, locator) => {
        const path = join(MEDIA_SCREENSHOTS, file);
        const opts = { path, ...(file.endsWith('.jpg') ? { type: 'jpeg', quality: 78 } : {}) };
        await (locator ? locator.screenshot(opts) : page.screenshot(opts));
        step(`media/screenshots/${file} (${(statSync(path).size / 1024).toFixed(0)} KiB)`);
      };
      console.log(`\n▶ ${file}: ${flow.name ?? ''}`);
      try {
        // every flow starts from a fresh workbench page on the workspace copy
        await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`, { waitUntil: 'domcontentloaded' });
        await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
        step('workbench visible');
        await flow.run({ page, workspace, repo: REPO, shot, media, step, server });
        timings[file] = elapsed(ft);
        console.log(`✓ ${file} (${timings[file]})`);
      } catch (e) {
        failed++;
        timings[file] = elapsed(ft);
        const png = `e2e-failure-${file.replace(/\.e2e\.mjs$/, '')}.png`;
        await page.screenshot({ path: join(SCREENSHOTS, png) }).catch(() => {});
        console.log(`✗ ${file} (${timings[file]}): ${e.stack || e}\n  failure screenshot: ${join(SCREENSHOTS, png)}`);
      }
    }
    await browser.flushConsole();
    if (failed) {
      // the console log sits beside the screenshots for the failure report
      const { copyFileSync } = await import('node:fs');
      copyFileSync(consoleLog, join(SCREENSHOTS, 'e2e-browser-console.log'));
      console.log(`browser console: ${join(SCREENSHOTS, 'e2e-browser-console.log')}; code-server log: ${server.logFile}`);
    }
  } finally {
    await cleanup();
    removeRun(run);
  }
  console.log(
    `\ntimings: package ${timings.package}, install ${timings.install}, code-server start ${timings.hostStart}, ` +
      Object.entries(timings)
        .filter(([k]) => k.endsWith('.mjs'))
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') +
      `, total ${elapsed(t0)}`,
  );
  console.log(`screenshots: ${SCREENSHOTS}`);
  console.log(failed ? `\nE2E FAILED (${failed} flow${failed > 1 ? 's' : ''})` : '\nE2E PASSED');
  return failed ? 1 : 0;
}

main().then(
  (c) => process.exit(c),
  async (e) => {
    console.error(`run-e2e: ${e.stack || e}`);
    await cleanup();
    process.exit(1);
  },
);
