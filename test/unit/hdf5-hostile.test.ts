/**
 * Hostile FCLIB HDF5 files: sizes declared by a dataset's shape are checked before anything is read (a 10 KB
 * file declaring 10⁹ entries is one line, not a fatal allocation), and only the file the user named is read
 * (external links, external raw storage and virtual datasets are refused unless the CLI's --allow-external
 * opts in; a named pipe is never opened). Fixtures: test/fixtures/hdf5/ (made by make-hostile.py with
 * Debian's python3-h5py); the external-link files are written here with h5wasm.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readFclibLocal } from '../../src/format/fclib.js';
import { FormatError } from '../../src/format/messages.js';
import { openProblemFile } from '../../src/session/problemFile.js';

const ROOT = resolve(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'hdf5');
const fixture = (name: string): string => join(FIXTURES, name);
/** The external-storage fixture's file name, patched by the tests (make-hostile.py). */
const PLACEHOLDER = `EXTERNAL-${'X'.repeat(191)}`;

/** `contact-lens solve …` in a child process (a hang is a timeout there, not a stuck test run). */
function cli(args: readonly string[]): { status: number | null; stdout: string; stderr: string; timedOut: boolean } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'solve', ...args], {
    encoding: 'utf8',
    timeout: 90_000,
    cwd: ROOT,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, timedOut: r.error !== undefined || r.signal !== null };
}

async function rejects(path: string, field: string, detail: RegExp): Promise<void> {
  await assert.rejects(readFclibLocal(path, path), (e: unknown) => {
    assert.ok(e instanceof FormatError, String(e));
    assert.equal(e.field, field);
    assert.match(e.detail, detail);
    assert.ok(!e.message.includes('\n'), 'one line');
    return true;
  });
}

/** A one-contact FCLIB problem whose /fclib_local/vectors group is an external link to `target`. */
async function writeLinked(path: string, target: string): Promise<void> {
  const h5 = await import('h5wasm/node');
  await h5.ready;
  const f = new h5.File(path, 'w');
  const local = f.create_group('fclib_local');
  const W = local.create_group('W');
  W.create_dataset({ name: 'm', data: Int32Array.of(3) });
  W.create_dataset({ name: 'n', data: Int32Array.of(3) });
  W.create_dataset({ name: 'nz', data: Int32Array.of(-2) });
  W.create_dataset({ name: 'p', data: Int32Array.of(0, 1, 2, 3) });
  W.create_dataset({ name: 'i', data: Int32Array.of(0, 1, 2) });
  W.create_dataset({ name: 'x', data: Float64Array.of(1, 1, 1) });
  local.create_external_link(target, '/vectors', 'vectors');
  f.close();
}

async function writeVectors(path: string): Promise<void> {
  const h5 = await import('h5wasm/node');
  await h5.ready;
  const f = new h5.File(path, 'w');
  const v = f.create_group('vectors');
  v.create_dataset({ name: 'q', data: Float64Array.of(-1, 0, 0) });
  v.create_dataset({ name: 'mu', data: Float64Array.of(0.5) });
  f.close();
}

describe('hostile FCLIB HDF5 files: sizes from the shape, only the named file is read', function () {
  this.timeout(240_000);
  let tmp: string;
  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'contact-lens-hdf5-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a 9 KB file declaring 2·10⁸ contacts is refused from mu’s shape (was: 5 GB and 20 s before the refusal)', async () => {
    const t0 = performance.now();
    await rejects(fixture('huge-mu.hdf5'), '/fclib_local/vectors/mu', /declares 200000000 entries; .*at most 2000 contacts/);
    console.log(`      refused in ${(performance.now() - t0).toFixed(0)} ms`);
  });

  it('an info string declaring 10⁹ entries is one line (was: Fatal JavaScript invalid size error, the process killed)', async () => {
    await rejects(fixture('huge-title.hdf5'), '/fclib_local/info/title', /declares 1000000000 entries/);
  });

  it('W/x declaring 10⁹ entries for a 3×3 W is refused before it is read', async () => {
    await rejects(fixture('huge-W.hdf5'), '/fclib_local/W/x', /declares 1000000000 entries; W is 3×3: at most 9 stored entries/);
  });

  it('a virtual dataset is refused with one line naming it (was: read, its source file solved)', async () => {
    await rejects(fixture('virtual.hdf5'), '/fclib_local/vectors/q', /is a virtual dataset mapped onto source\.h5:q: refused/);
  });

  it('external raw storage is refused with one line naming the dataset, in the CLI and in the inspector', async () => {
    await rejects(fixture('external-storage.hdf5'), '/fclib_local/vectors/q', /reads another file \(.*EXTERNAL-X+.*\): refused/);
    await assert.rejects(openProblemFile(fixture('external-storage.hdf5')), /\/fclib_local\/vectors\/q: reads another file/);
  });

  it('external raw storage naming a FIFO: refused at once, with or without --allow-external (was: solve hung forever)', () => {
    const fifo = join(tmp, 'q.fifo');
    execFileSync('mkfifo', [fifo]);
    const file = join(tmp, 'external-fifo.hdf5');
    const bytes = readFileSync(fixture('external-storage.hdf5'));
    const at = bytes.indexOf(PLACEHOLDER);
    assert.ok(at > 0, 'the fixture holds the placeholder');
    bytes.write(fifo.padStart(PLACEHOLDER.length, '/'), at, 'latin1'); // "////…/tmp/…/q.fifo": the same length, the same path
    writeFileSync(file, bytes);
    for (const extra of [[], ['--allow-external']]) {
      const r = cli([file, '--solver', 'pgs', ...extra]);
      assert.ok(!r.timedOut, `no hang (${extra.join(' ')})`);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /\/fclib_local\/vectors\/q: reads another file \(.*q\.fifo\): refused/);
    }
  });

  it('--allow-external reads a regular external raw-storage file the user opted in to', () => {
    const data = join(tmp, 'q.bin');
    writeFileSync(data, Buffer.from(Float64Array.of(-2, 0, 0).buffer));
    const file = join(tmp, 'external-regular.hdf5');
    const bytes = readFileSync(fixture('external-storage.hdf5'));
    bytes.write(data.padStart(PLACEHOLDER.length, '/'), bytes.indexOf(PLACEHOLDER), 'latin1');
    writeFileSync(file, bytes);
    assert.equal(cli([file, '--solver', 'pgs']).status, 2);
    const r = cli([file, '--solver', 'pgs', '--json', '--allow-external']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { lambda: number[]; status: string };
    assert.equal(out.status, 'converged');
    assert.ok(Math.abs(out.lambda[0] - 2) < 1e-6, `λn = 2 from q = (−2, 0, 0) read from q.bin (got ${out.lambda[0]})`);
  });

  it('an external link is refused naming the link, never followed; a link to a FIFO does not hang; --allow-external follows it', async () => {
    const dir = mkdtempSync(join(tmp, 'link-'));
    const file = join(dir, 'linked.hdf5');
    await writeVectors(join(dir, 'vectors.h5'));
    await writeLinked(file, 'vectors.h5');
    await rejects(file, '/fclib_local/vectors', /is an external link to vectors\.h5:\/vectors: refused/);
    const r = cli([file, '--solver', 'pgs', '--json', '--allow-external']);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(Math.abs((JSON.parse(r.stdout) as { lambda: number[] }).lambda[0] - 1) < 1e-6);
    const fifoFile = join(dir, 'to-fifo.hdf5');
    execFileSync('mkfifo', [join(dir, 'pipe.h5')]);
    await writeLinked(fifoFile, 'pipe.h5');
    for (const extra of [[], ['--allow-external']]) {
      const s = cli([fifoFile, ...extra]);
      assert.ok(!s.timedOut, `no hang (${extra.join(' ')})`);
      assert.equal(s.status, 2, s.stderr);
      assert.equal(s.stderr.trim().split('\n').length, 1, s.stderr);
    }
  });

  it('a file that makes libhdf5 loop ends the CLI with one line naming the limit (was: solve hung forever)', () => {
    // loops.hdf5: a byte mutation of virtual.hdf5 found by `npm run fuzz` (HDF5 input ~13 500, seed 20261123)
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'solve', fixture('loops.hdf5')], {
      encoding: 'utf8',
      timeout: 90_000,
      cwd: ROOT,
      env: { ...process.env, CONTACT_LENS_HDF5_READ_LIMIT_MS: '5000' },
    });
    assert.equal(r.error, undefined, 'ended by the watchdog, not by the test timeout');
    assert.equal(r.signal, 'SIGKILL');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /loops\.hdf5: reading it as HDF5 did not finish within 5 s/);
  });

  it('the inspector’s problem reader refuses a FIFO named as the problem file (was: readFileSync blocked the worker)', () => {
    const fifo = join(tmp, 'problem.fifo.hdf5');
    execFileSync('mkfifo', [fifo]);
    const script = `require('./src/session/problemFile.ts').openProblemFile(${JSON.stringify(fifo)}).then(() => process.exit(0), (e) => { console.error(e.message); process.exit(3); });`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 60_000, cwd: ROOT });
    assert.equal(r.signal, null, 'no hang');
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /problem\.fifo\.hdf5: \(file\): is a named pipe, not a regular file/);
  });
});
