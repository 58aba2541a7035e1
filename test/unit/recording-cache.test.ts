/**
 * The sidecar cache of a recording (src/format/sidecarCache.ts): a second open reads no frame and gives the same
 * report, findings and inspector views; a stale, damaged or truncated cache is rebuilt, never believed; a folder
 * that cannot be written, or a file of someone else's at the cache's name, sends the cache to the cache folder and
 * leaves the file alone; a frame whose bytes changed behind the cache's back is refused, not shown.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { RecordingReader } from '../../src/format/recordingFile.js';
import { CACHE_MAGIC, type CacheOptions, folderCachePath, sidecarPath } from '../../src/format/sidecarCache.js';
import { reportRecording } from '../../src/cli/recordingReport.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';

const ROOT = path.resolve(__dirname, '..', '..');
const EXAMPLE = path.join(ROOT, 'examples', 'foreign-engine.rec.jsonl');

describe('sidecar cache of a recording', function () {
  this.timeout(120_000);
  let dir: string, cacheDir: string;
  const always = (): CacheOptions => ({ mode: 'always', dir: cacheDir });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-cache-'));
    cacheDir = path.join(dir, 'user-cache');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const copy = (name: string, bytes: Buffer = fs.readFileSync(EXAMPLE)): string => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, bytes);
    return f;
  };
  /** The example's frames over and over (renumbered): a recording longer than the fingerprint's two 64 KiB ends. */
  const long = (): Buffer => {
    const [header, ...frames] = fs.readFileSync(EXAMPLE, 'utf8').trimEnd().split('\n');
    const out = [header];
    for (let k = 0, t = 0; k < 60; k++)
      for (const l of frames) {
        const f = JSON.parse(l) as { frame: number; time: number };
        out.push(JSON.stringify({ ...f, frame: t, time: (t + 1) / 60 }));
        t++;
      }
    return Buffer.from(out.join('\n') + '\n');
  };
  const run = (file: string, options: CacheOptions) => {
    const r = reportRecording(file, { cache: options });
    // the re-solves' timings (timeMs) differ from one computation to the next; nothing else may
    const findings = JSON.stringify(r.diagnosis.findings).replace(/"timeMs":[-\d.e+]+/g, '');
    const out = { report: JSON.stringify(r.report), findings, cached: r.cached, frames: r.reader.frameCount, where: r.reader.cache.where };
    r.reader.close();
    return out;
  };

  it('a second open reads no frame and gives the same report and findings (plain and plain gzip); the cache sits beside the recording', () => {
    for (const [name, bytes] of [
      ['run.rec.jsonl', fs.readFileSync(EXAMPLE)],
      ['run.rec.jsonl.gz', zlib.gzipSync(fs.readFileSync(EXAMPLE))],
    ] as const) {
      const file = copy(name, bytes);
      const first = run(file, always());
      assert.equal(first.cached, false);
      assert.equal(first.where, sidecarPath(file));
      assert.ok(fs.readFileSync(sidecarPath(file)).subarray(0, CACHE_MAGIC.length).equals(CACHE_MAGIC));
      const second = run(file, always());
      assert.equal(second.cached, true, `${name}: the second open is served by the cache`);
      assert.equal(second.report, first.report);
      assert.equal(second.findings, first.findings);
      const r = RecordingReader.openSync(file, { cache: always() });
      assert.equal(r.fromCache, true);
      assert.equal(r.compression, name.endsWith('.gz') ? 'gzip' : null);
      const plain = RecordingReader.openSync(EXAMPLE);
      for (let i = 0; i < r.frameCount; i++) assert.deepEqual(r.frame(i), plain.frame(i), `${name}: frame ${i} through the cached index`);
      r.close();
      plain.close();
    }
  });

  it("the inspector's second open is served by the cache with the same timeline, findings, series and views", async () => {
    const file = copy('insp.rec.jsonl');
    const a = await InspectorModel.fromRecording(file, {}, undefined, undefined, always());
    const b = await InspectorModel.fromRecording(file, {}, undefined, undefined, always());
    try {
      assert.equal(a.session.reader!.fromCache, false);
      assert.equal(b.session.reader!.fromCache, true);
      assert.deepEqual(b.timeline, a.timeline);
      assert.deepEqual(b.findings, a.findings);
      assert.deepEqual(b.skipped, a.skipped);
      const keys = a.frameView(3).contacts.map((c) => c.key);
      assert.deepEqual(b.series(keys), a.series(keys));
      for (const i of [0, 3, a.info.frameCount - 1]) assert.deepEqual(b.frameView(i).contacts, a.frameView(i).contacts, `frame ${i}`);
      // other diagnosis settings are another section: computed, not taken from the first
      const c = await InspectorModel.fromRecording(file, { energyTolerance: 0.5 }, undefined, undefined, always());
      assert.equal(c.session.reader!.fromCache, false);
      c.close();
    } finally {
      a.close();
      b.close();
    }
  });

  it('a stale cache (the recording changed: size, time or either end) is rebuilt, and the answers are those of the new data', () => {
    const file = copy('stale.rec.jsonl');
    run(file, always());
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    fs.writeFileSync(file, lines.slice(0, -2).join('\n') + '\n'); // two frames fewer
    const fresh = run(file, always());
    assert.equal(fresh.cached, false, 'a stale cache is not used');
    assert.equal(fresh.frames, lines.length - 3);
    assert.equal(run(file, always()).cached, true, 'and the rebuilt one is');
    // the same size and the same ends, only the time differs: stale too
    const t = new Date(Date.now() - 3_600_000);
    fs.utimesSync(file, t, t);
    assert.equal(run(file, always()).cached, false);
  });

  it('a damaged or truncated cache is ignored and rebuilt, never believed', () => {
    const file = copy('damaged.rec.jsonl');
    const first = run(file, always());
    const side = sidecarPath(file);
    const good = fs.readFileSync(side);
    for (const bad of [
      Buffer.concat([good.subarray(0, good.length >> 1)]), // truncated
      (() => {
        const b = Buffer.from(good);
        b[b.length - 100] ^= 0xff; // a flipped byte in the arrays
        return b;
      })(),
      Buffer.from('CLCACHE\nnot a directory'),
    ]) {
      fs.writeFileSync(side, bad);
      const again = run(file, always());
      assert.equal(again.cached, false);
      assert.equal(again.report, first.report);
      assert.equal(again.findings, first.findings);
      assert.equal(run(file, always()).cached, true, 'the rebuilt cache serves the next open');
    }
  });

  it('a file of someone else at the cache name is never written over: the cache goes to the cache folder', () => {
    const file = copy('theirs.rec.jsonl');
    const side = sidecarPath(file);
    fs.writeFileSync(side, 'my notes, not a cache\n');
    const first = run(file, always());
    assert.equal(fs.readFileSync(side, 'utf8'), 'my notes, not a cache\n');
    assert.equal(first.where, folderCachePath(cacheDir, file));
    assert.equal(run(file, always()).cached, true);
    // a directory at the sidecar name: the same
    const file2 = copy('dir.rec.jsonl');
    fs.mkdirSync(sidecarPath(file2));
    assert.equal(run(file2, always()).where, folderCachePath(cacheDir, file2));
    assert.equal(run(file2, always()).cached, true);
  });

  it('a folder that cannot be written: the cache goes to the cache folder; without one, every open still works', function () {
    // a read-only folder: a read-only file system when running as root (root writes through permissions), else a 0555 folder
    const ro = path.join(dir, 'ro');
    fs.mkdirSync(ro);
    let mounted = false;
    const root = process.getuid?.() === 0;
    if (root) {
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', ro], { stdio: 'ignore' });
        mounted = true;
      } catch {
        this.skip(); // no way to make a folder root cannot write
      }
    }
    try {
      const file = path.join(ro, 'ro.rec.jsonl');
      fs.copyFileSync(EXAMPLE, file);
      if (mounted) execFileSync('mount', ['-o', 'remount,ro', ro], { stdio: 'ignore' });
      else fs.chmodSync(ro, 0o555);
      assert.throws(() => fs.writeFileSync(path.join(ro, 'probe'), ''), 'the folder is read-only');
      const first = run(file, always());
      assert.equal(first.where, folderCachePath(cacheDir, file));
      assert.equal(fs.existsSync(sidecarPath(file)), false);
      assert.equal(run(file, always()).cached, true, 'served from the cache folder');
      const none = run(file, { mode: 'always', dir: null });
      assert.equal(none.cached, false);
      assert.equal(none.report, first.report);
    } finally {
      if (mounted) execFileSync('umount', [ro], { stdio: 'ignore' });
      else fs.chmodSync(ro, 0o755);
    }
  });

  it('a frame whose bytes changed behind the cache (same size, time and ends) is refused in one line, not shown', () => {
    const file = copy('forged.rec.jsonl', long());
    assert.ok(fs.statSync(file).size > 3 * 65536);
    run(file, always());
    const st = fs.statSync(file);
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n');
    // one digit of frame 3's λ changed, the length and both ends unchanged, the modification time put back
    const k = 180;
    const i = lines[k].search(/[1-8]/);
    lines[k] = lines[k].slice(0, i) + String(Number(lines[k][i]) + 1) + lines[k].slice(i + 1);
    fs.writeFileSync(file, lines.join('\n'));
    fs.utimesSync(file, st.atime, st.mtime);
    const r = RecordingReader.openSync(file, { cache: always() });
    try {
      assert.equal(r.fromCache, true, `the fingerprint cannot see a change in the middle (${r.cache.status})`);
      assert.throws(() => r.frame(k - 1), /changed on disk since it was opened \(line 181 no longer holds the bytes that were indexed\)/);
      assert.doesNotThrow(() => r.frame(0));
    } finally {
      r.close();
    }
  });

  it("'auto' leaves small recordings without a cache; 'off' never reads or writes one", () => {
    const file = copy('small.rec.jsonl');
    const a = run(file, { mode: 'auto', dir: cacheDir });
    assert.equal(a.where, null);
    assert.equal(fs.existsSync(sidecarPath(file)), false);
    run(file, always());
    assert.equal(run(file, { mode: 'off' }).cached, false);
  });
});
