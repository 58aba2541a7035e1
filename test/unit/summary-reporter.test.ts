/** CI's reporter: a skipped test fails the run when CONTACT_LENS_FAIL_ON_SKIP=1 (.ci/run sets it). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

function runMocha(env: Record<string, string>): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cl-reporter-'));
  writeFileSync(join(dir, 'x.test.cjs'), "it('runs', () => {}); it.skip('is skipped', () => {});\n");
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--no-config', '--reporter', join(ROOT, 'test', 'summary-reporter.cjs'), join(dir, 'x.test.cjs')],
    { env: { ...process.env, CONTACT_LENS_FAIL_ON_SKIP: '', ...env }, encoding: 'utf8' },
  );
  rmSync(dir, { recursive: true, force: true });
  return { status: r.status, out: r.stdout };
}

describe('summary reporter', () => {
  it('prints "N passed, N failed, N skipped"; a skip passes locally and fails under CONTACT_LENS_FAIL_ON_SKIP=1', function () {
    this.timeout(30_000);
    const local = runMocha({});
    assert.match(local.out, /1 passed, 0 failed, 1 skipped/);
    assert.equal(local.status, 0);
    const ci = runMocha({ CONTACT_LENS_FAIL_ON_SKIP: '1' });
    assert.match(ci.out, /FAILED: 1 test\(s\) skipped/);
    assert.equal(ci.status, 1);
  });
});
