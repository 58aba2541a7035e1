/**
 * The frame store of a recording's cache (src/format/frameStore.ts): after the first open, frame reads decode the
 * store instead of parsing the line, and give the frames the line gives (plain and plain gzip); short lines get no
 * record; a damaged,
 * truncated, missing or foreign store is never believed (the line is parsed, the frame is the same); someone
 * else's file at the store's name is left alone; a read-only folder sends the store to the cache folder; a
 * failed open leaves no file behind.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { RecordingReader } from '../../src/format/recordingFile.js';
import { STORE_MAGIC, STORE_MIN_LINE_BYTES } from '../../src/format/frameStore.js';
import { type CacheOptions, folderCachePath, sidecarPath } from '../../src/format/sidecarCache.js';
import { recordBoxStack, recordExample } from '../exampleRecording.js';
import { reportRecording } from '../../src/cli/recordingReport.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';

const storeBeside = (file: string): string => sidecarPath(file).replace(/\.clcache$/, '.clframes');

describe('frame store of a recording', function () {
  this.timeout(120_000);
  let dir: string, cacheDir: string, source: string;
  const always = (): CacheOptions => ({ mode: 'always', dir: cacheDir, frameStore: true });
  before(() => {
    // the 20-base pyramid: frame lines of 0.4–0.8 MB, above STORE_MIN_LINE_BYTES
    source = recordExample(fs.mkdtempSync(path.join(os.tmpdir(), 'cl-store-src-')), 'pyramid-20', 'pgs', 6);
  });
  after(() => fs.rmSync(path.dirname(source), { recursive: true, force: true }));
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-store-'));
    cacheDir = path.join(dir, 'user-cache');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const copy = (name: string, bytes: Buffer = fs.readFileSync(source)): string => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, bytes);
    return f;
  };
  /**
   * Every frame of `file` read with the cache `options` once the store is built after the open (as the inspector
   * does: the cache saved, then buildFrameStore; `build` false: without it), how many came from the store, and whether
   * a store was built.
   */
  const frames = async (file: string, options: CacheOptions, build = true) => {
    const r = RecordingReader.openSync(file, { cache: options });
    if (!r.fromCache) r.cache.save();
    try {
      const built = build && (await r.buildFrameStore());
      const all = Array.from({ length: r.frameCount }, (_, i) => r.frame(i));
      return { all, fromStore: r.framesFromStore, fromCache: r.fromCache, built };
    } finally {
      r.close();
    }
  };
  const truth = async () => (await frames(source, { mode: 'off' })).all;

  it('frames read after the first open and after a second one come from the store and are the frames the lines give (plain and gzip)', async () => {
    for (const [name, bytes] of [
      ['run.rec.jsonl', fs.readFileSync(source)],
      ['run.rec.jsonl.gz', zlib.gzipSync(fs.readFileSync(source))],
    ] as const) {
      const file = copy(name, bytes);
      const expected = await truth();
      const first = await frames(file, always());
      assert.equal(first.fromCache, false);
      assert.deepEqual(first.all, expected, `${name}: after the first open`);
      assert.equal(first.fromStore, expected.length, `${name}: every read decoded the store`);
      assert.ok(fs.readFileSync(storeBeside(file)).subarray(0, 8).equals(STORE_MAGIC), 'the store sits beside the recording');
      const second = await frames(file, always());
      assert.equal(second.fromCache, true);
      assert.deepEqual(second.all, expected, `${name}: after a second open`);
      assert.equal(second.fromStore, expected.length);
      assert.deepEqual(
        fs.readdirSync(dir).filter((n) => n.endsWith('.tmp')),
        [],
        'no temporary file is left',
      );
    }
  });

  it('a damaged, truncated, missing or foreign store is not believed: the lines are parsed and the frames are the same', async () => {
    const file = copy('run.rec.jsonl');
    const expected = await truth();
    await frames(file, always());
    const store = storeBeside(file);
    const good = fs.readFileSync(store);
    const other = copy('other.rec.jsonl');
    await frames(other, always());
    const foreign = fs.readFileSync(storeBeside(other)); // another open's store: another token
    const flipped = Buffer.from(good);
    for (let k = 1; k <= 20; k++) flipped[Math.floor((k * flipped.length) / 21)] ^= 0x5a; // a byte in many records
    for (const [what, bytes, reads] of [
      ['a byte changed in many records', flipped, (n: number) => n < expected.length],
      ['cut short', good.subarray(0, good.length >> 1), (n: number) => n === 0],
      ['another recording’s store', foreign, (n: number) => n === 0],
      ['removed', null, (n: number) => n === 0],
    ] as const) {
      if (bytes === null) fs.rmSync(store);
      else fs.writeFileSync(store, bytes);
      const again = await frames(file, always(), false); // read before any new store is built
      assert.equal(again.fromCache, true, what);
      assert.deepEqual(again.all, expected, `${what}: the same frames`);
      assert.ok(reads(again.fromStore), `${what}: ${again.fromStore} reads from the store`);
    }
    // the next inspector open builds the store again
    const rebuilt = await frames(file, always());
    assert.equal(rebuilt.built, true);
    assert.deepEqual(rebuilt.all, expected);
    assert.equal(rebuilt.fromStore, expected.length);
  });

  it("someone else's file at the store's name is left alone and the store goes to the cache folder; without a cache folder, no store and the same frames", async () => {
    const file = copy('theirs.rec.jsonl');
    fs.writeFileSync(storeBeside(file), 'my notes\n');
    const expected = await truth();
    const first = await frames(file, always());
    assert.equal(fs.readFileSync(storeBeside(file), 'utf8'), 'my notes\n');
    assert.deepEqual(first.all, expected);
    assert.equal(first.fromStore, expected.length, 'the store in the cache folder serves the reads');
    assert.ok(fs.existsSync(folderCachePath(cacheDir, file).replace(/\.clcache$/, '.clframes')));
    // without a cache folder: no store, every read parses its line
    const file2 = copy('theirs2.rec.jsonl');
    fs.writeFileSync(storeBeside(file2), 'mine too\n');
    const none = await frames(file2, { mode: 'always', dir: null, frameStore: true });
    assert.deepEqual(none.all, expected);
    assert.equal(none.fromStore, 0);
    assert.equal(fs.readFileSync(storeBeside(file2), 'utf8'), 'mine too\n');
  });

  it("the inspector's views of frames read through the store are those of a model without a cache", async () => {
    const file = copy('insp.rec.jsonl');
    const plain = await InspectorModel.fromRecording(source);
    const first = await InspectorModel.fromRecording(file, {}, undefined, undefined, always());
    assert.equal(await first.frameStoreReady, true, 'the store is built after the first open');
    const second = await InspectorModel.fromRecording(file, {}, undefined, undefined, always());
    assert.equal(await second.frameStoreReady, false, 'and found, not built again, by the second');
    try {
      assert.equal(second.session.reader!.fromCache, true);
      for (const m of [first, second])
        for (let i = 0; i < plain.info.frameCount; i++) {
          assert.deepEqual(m.frameView(i), plain.frameView(i), `frame ${i}`);
        }
      assert.equal(second.session.reader!.framesFromStore, plain.info.frameCount, 'every view read its frame from the store');
    } finally {
      plain.close();
      first.close();
      second.close();
    }
  });

  it('report and diagnose, which read each frame once, keep the cache without a frame store', async () => {
    const file = copy('report.rec.jsonl');
    const r = reportRecording(file, { cache: { mode: 'always', dir: cacheDir } });
    r.reader.close();
    assert.ok(fs.existsSync(sidecarPath(file)), 'the cache is written');
    assert.equal(fs.existsSync(storeBeside(file)), false, 'no store');
    assert.equal((await frames(file, always(), false)).fromStore, 0, 'nor does a later reader find one (until it builds one)');
    // a store of an earlier inspector open goes when report rebuilds the cache of the changed recording
    const file2 = copy('changed.rec.jsonl');
    await frames(file2, always());
    assert.ok(fs.existsSync(storeBeside(file2)));
    fs.appendFileSync(file2, '\n');
    reportRecording(file2, { cache: { mode: 'always', dir: cacheDir } }).reader.close();
    assert.equal(fs.existsSync(storeBeside(file2)), false, 'the stale store is removed');
    // while a report over an unchanged recording keeps the inspector's store, which serves the next reader
    const file3 = copy('kept.rec.jsonl');
    await frames(file3, always());
    reportRecording(file3, { cache: { mode: 'always', dir: cacheDir } }).reader.close();
    const after = await frames(file3, always());
    assert.equal(after.fromStore, after.all.length, 'the store still serves every read');
  });

  it('frames of short lines get no record: their reads parse the line', async () => {
    const small = recordBoxStack(dir, 'newton', 20);
    assert.ok(
      fs
        .readFileSync(small, 'utf8')
        .split('\n')
        .every((l) => Buffer.byteLength(l) < STORE_MIN_LINE_BYTES),
    );
    const expected = (await frames(small, { mode: 'off' })).all;
    const first = await frames(small, always());
    assert.deepEqual(first.all, expected);
    assert.equal(first.fromStore, 0);
  });

  it('the open writes no store: it is built after it, while frames are read from their lines; a build that is cancelled or whose reader closes leaves no file', async () => {
    const file = copy('cut.rec.jsonl');
    const stores = (): string[] =>
      [...fs.readdirSync(dir), ...(fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [])].filter((n) => n.includes('.clframes'));
    const r = RecordingReader.openSync(file, { cache: always() });
    r.cache.save();
    assert.deepEqual(stores(), [], 'no store after the open');
    const expected = await truth();
    assert.deepEqual(r.frame(2), expected[2]);
    assert.equal(r.framesFromStore, 0, 'a read before the build parses its line');
    const controller = new AbortController();
    const build = r.buildFrameStore({ signal: controller.signal });
    for (let k = 0; k < 3; k++) await new Promise((resolve) => setImmediate(resolve));
    const writing = stores();
    assert.deepEqual(r.frame(4), expected[4], 'a read during the build');
    controller.abort();
    assert.equal(await build, false);
    assert.equal(writing.length, 1, `a store was being written when the build was cancelled: ${writing.join(', ')}`);
    assert.deepEqual(stores(), [], 'the cancelled build leaves no file');
    // a reader closed while its store is being built
    const closing = r.buildFrameStore();
    await new Promise((resolve) => setImmediate(resolve));
    r.close();
    assert.equal(await closing, false);
    assert.deepEqual(stores(), []);
    // an open that fails writes nothing either
    const broken = copy('broken.rec.jsonl', Buffer.from('{"not": "a header"}\n'));
    assert.throws(() => RecordingReader.openSync(broken, { cache: always() }));
    assert.deepEqual(stores(), []);
  });
});
