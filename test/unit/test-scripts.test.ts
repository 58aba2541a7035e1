/**
 * The test commands a new user runs: npm test installs what the webview tests need, and npm run test:editor
 * runs and reports both real-editor suites even when the first fails (scripts/run-each.mjs).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const RUN_EACH = join(ROOT, 'scripts/run-each.mjs');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

describe('test commands', () => {
  it('npm test and npm run test:webview make sure Chromium is there before the webview suite', () => {
    assert.match(scripts.test, /^bash scripts\/ensure-chromium\.sh && /);
    assert.match(scripts['test:webview'], /^bash scripts\/ensure-chromium\.sh && mocha /);
  });

  it('ensure-chromium accepts an executable CHROMIUM_BIN and names a missing one in one line', () => {
    const ok = spawnSync('bash', [join(ROOT, 'scripts/ensure-chromium.sh')], { env: { ...process.env, CHROMIUM_BIN: process.execPath }, encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    const bad = spawnSync('bash', [join(ROOT, 'scripts/ensure-chromium.sh')], {
      env: { ...process.env, CHROMIUM_BIN: '/nonexistent/chromium' },
      encoding: 'utf8',
    });
    assert.equal(bad.status, 1);
    assert.equal(bad.stderr.trim(), '[contact-lens] CHROMIUM_BIN=/nonexistent/chromium is not an executable file');
  });

  it('test:editor runs the VS Code suite and the end-to-end suite with run-each (not &&)', () => {
    assert.match(scripts['test:editor'], /node scripts\/run-each\.mjs test:vscode test:e2e$/);
  });

  describe('run-each', () => {
    let dir = '';
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'cl-run-each-'));
      const touch = (name: string) => `node -e "require('fs').writeFileSync('${name}', '')"`;
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'x', private: true, scripts: { fails: `${touch('ran-fails')} && exit 3`, passes: touch('ran-passes') } }),
      );
    });
    after(() => rmSync(dir, { recursive: true, force: true }));
    const run = (...names: string[]) => spawnSync(process.execPath, [RUN_EACH, ...names], { cwd: dir, encoding: 'utf8' });

    it('runs the second script after the first fails, reports both and exits 1', () => {
      const r = run('fails', 'passes');
      assert.equal(r.status, 1);
      assert.ok(readFileSync(join(dir, 'ran-passes'), 'utf8') === '', 'the second script ran');
      assert.match(r.stdout, /FAILED {2}npm run fails {2}\(exit 3, \d+ s\)/);
      assert.match(r.stdout, /passed {2}npm run passes {2}\(exit 0, \d+ s\)/);
    });

    it('exits 0 when every script passes', () => {
      assert.equal(run('passes', 'passes').status, 0);
    });
  });
});
