/**
 * Compressed recordings: blocked gzip (BGZF, SAM/BAM specification §4.1) written by the writer and by
 * `contact-lens compress`, read frame by frame through the block table, and readable by any gzip tool.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { readFileSync } from 'node:fs';
import { RecordingReader, RecordingWriter } from '../../src/format/recordingFile.js';
import type { RecordedFrame } from '../../src/format/recording.js';
import { BGZF_BLOCK_DATA, BGZF_EOF, BGZF_MAX_BLOCK, bgzfBlock, bgzfBlockSize, crc32, inflateBlock } from '../../src/format/bgzf.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { World } from '../../src/engine/world/world.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { runCliAsync as cli } from '../cliRun.js';

const ROOT = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-gzip-'));
const scene = path.join(ROOT, 'examples', 'box-stack-10.scene.json');
const desc = parseSceneFile(readFileSync(scene, 'utf8'), scene).scenarios[0].desc;

/** 60 frames of the 10-box stack (40 contacts, ~21 KB per line); frame 30 also carries its A (~300 KB: many blocks). */
function frames(): { header: ReturnType<typeof headerFromWorld>; frames: RecordedFrame[] } {
  const world = new World({ ...desc, frames: 60 });
  const header = headerFromWorld(world);
  const out: RecordedFrame[] = [];
  for (let k = 0; k < 60; k++) {
    const f = frameFromWorld(world, world.step());
    const C = f.contacts.length;
    out.push(k === 30 ? { ...f, A: Array.from({ length: 9 * C * C }, (_, i) => Math.sin(i) / 3) } : f);
  }
  return { header, frames: out };
}
function write(file: string, gzip: boolean): RecordedFrame[] {
  const { header, frames: fs0 } = frames();
  const w = RecordingWriter.create(file, header, { gzip, force: true });
  for (const f of fs0) w.writeFrame(f);
  w.close();
  return fs0;
}

describe('compressed recordings (blocked gzip)', () => {
  const plain = path.join(dir, 'stack.rec.jsonl'),
    gz = path.join(dir, 'stack.rec.jsonl.gz');
  before(() => {
    write(plain, false);
    write(gz, true);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a block is an ordinary gzip member with its size in the header; CRC-32 as RFC 1952', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926); // the standard check value
    const data = Buffer.from('{"frame":1}\n'.repeat(1000));
    const block = bgzfBlock(data);
    assert.equal(bgzfBlockSize(block, 0), block.length);
    assert.deepEqual(zlib.gunzipSync(block), data);
    assert.equal(bgzfBlockSize(BGZF_EOF, 0), BGZF_EOF.length);
    assert.match(String(bgzfBlockSize(zlib.gzipSync(data), 0)), /plain gzip/);
    assert.equal(bgzfBlockSize(block.subarray(0, 10), 0), null, 'needs more bytes');
  });
  it('a block inflates whole up to 64 KiB; a block that inflates to more is refused', () => {
    const full = Buffer.from('0123456789abcdef'.repeat(BGZF_MAX_BLOCK / 16));
    for (const data of [full, full.subarray(0, 1), full.subarray(0, 40_000), Buffer.alloc(0)]) {
      const got = inflateBlock(zlib.gzipSync(data));
      assert.ok(got.equals(data), `${data.length} bytes`);
    }
    // a damaged or hostile block (a BGZF block holds at most 64 KiB): zlib stops at the bound and throws
    assert.throws(() => inflateBlock(zlib.gzipSync(Buffer.concat([full, Buffer.from('x')]))), /larger than 65536 bytes/);
  });
  it('the writer produces blocked gzip whose content is the plain file byte for byte (zcat reads it)', () => {
    const bytes = fs.readFileSync(gz);
    assert.deepEqual(bytes.subarray(bytes.length - BGZF_EOF.length), BGZF_EOF);
    assert.deepEqual(zlib.gunzipSync(bytes), fs.readFileSync(plain));
    assert.ok(bytes.length < fs.statSync(plain).size / 3, `${bytes.length} bytes vs ${fs.statSync(plain).size}`);
  });
  it('every frame reads back equal to the plain file, including a line spread over several blocks', () => {
    const a = RecordingReader.openSync(plain),
      b = RecordingReader.openSync(gz);
    try {
      assert.equal(b.compressed, true);
      assert.equal(a.compressed, false);
      assert.equal(b.frameCount, 60);
      assert.ok(b.summary(30).length > 4 * BGZF_BLOCK_DATA, `frame 30's line is ${b.summary(30).length} bytes`);
      assert.deepEqual(b.warnings, a.warnings);
      for (const i of [59, 0, 30, 31, 29, 7, 45]) {
        assert.deepEqual(b.summary(i), a.summary(i));
        assert.deepEqual(b.frame(i), a.frame(i));
      }
    } finally {
      a.close();
      b.close();
    }
  });
  it('report and diagnose read it like the plain file', async () => {
    const d1 = await cli(['diagnose', plain, '--json']),
      d2 = await cli(['diagnose', gz, '--json']);
    assert.equal(d2.code, d1.code);
    const strip = (ls: string[]): string[] =>
      ls.map((l) =>
        l
          .replace(/"timeMs":[0-9.e-]+/g, '')
          .replace(plain, 'F')
          .replace(gz, 'F'),
      );
    assert.deepEqual(strip(d2.out), strip(d1.out));
    const r = await cli(['report', gz]);
    assert.equal(r.code, 0);
    assert.match(r.out[0], /60 frames/);
  });
  it('a truncated file keeps the frames before the cut and says so; a damaged block is one clear line', () => {
    const bytes = fs.readFileSync(gz);
    const cut = path.join(dir, 'cut.rec.jsonl.gz');
    fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const r = RecordingReader.openSync(cut);
    try {
      assert.ok(r.frameCount > 20 && r.frameCount < 60, `${r.frameCount} frames`);
      assert.ok(r.warnings.some((w) => /ends inside a compressed block.*truncated/.test(w)));
      const whole = RecordingReader.openSync(gz);
      assert.deepEqual(r.frame(5), whole.frame(5));
      whole.close();
    } finally {
      r.close();
    }
    const bad = Buffer.from(bytes);
    let fifth = 0;
    for (let k = 0; k < 4; k++) fifth += bgzfBlockSize(bad, fifth) as number;
    bad[fifth + 40] ^= 0xff; // a byte inside the fifth block's deflate data
    const damaged = path.join(dir, 'damaged.rec.jsonl.gz');
    fs.writeFileSync(damaged, bad);
    const first = Buffer.from(bytes);
    first[40] ^= 0xff; // the header's own block: nothing can be read, and the error says why
    const headless = path.join(dir, 'headless.rec.jsonl.gz');
    fs.writeFileSync(headless, first);
    assert.throws(() => RecordingReader.openSync(headless), /headless\.rec\.jsonl\.gz: \(compressed block at byte 0\): .*the header line is in it/);
    // a damaged block costs the frames in it, like a damaged line (was: the whole recording, the error naming byte 0)
    const d = RecordingReader.openSync(damaged);
    try {
      assert.ok(d.frameCount >= 55 && d.frameCount < 60, `${d.frameCount} frames of 60`);
      assert.equal(d.errorCount, 1);
      assert.match(
        d.errors[0].message,
        new RegExp(
          `damaged\\.rec\\.jsonl\\.gz: \\(compressed block at byte ${fifth}\\): cannot be decompressed.*the frames after frame \\d+ and before frame \\d+ are lost`,
        ),
      );
      assert.ok(!d.errors[0].message.includes('\n'));
      const whole = RecordingReader.openSync(gz);
      try {
        for (let i = 0; i < d.frameCount; i++) assert.deepEqual(d.frame(i), whole.frame(whole.indexOfFrame(d.summary(i).frame)), `frame ${d.summary(i).frame}`);
      } finally {
        whole.close();
      }
    } finally {
      d.close();
    }
  });
  it('plain gzip opens through its access index (test/unit/gzip-index.test.ts); compress turns plain or gzip input into blocked gzip, never over an existing file', async () => {
    const plainGz = path.join(dir, 'hand.rec.jsonl.gz');
    fs.writeFileSync(plainGz, zlib.gzipSync(fs.readFileSync(plain)));
    const opened = RecordingReader.openSync(plainGz);
    assert.equal(opened.compression, 'gzip');
    assert.equal(opened.frameCount, 60);
    opened.close();
    const fixed = path.join(dir, 'fixed.rec.jsonl.gz');
    const c = await cli(['compress', plainGz, fixed]);
    assert.equal(c.code, 0, c.err.join('\n'));
    assert.match(c.err[0], /60 frames/);
    const fromPlain = path.join(dir, 'fromplain.rec.jsonl.gz');
    assert.equal((await cli(['compress', plain, fromPlain])).code, 0);
    const x = RecordingReader.openSync(fixed),
      y = RecordingReader.openSync(fromPlain),
      z = RecordingReader.openSync(plain);
    try {
      assert.deepEqual(x.frame(30), z.frame(30));
      assert.deepEqual(y.frame(59), z.frame(59));
    } finally {
      x.close();
      y.close();
      z.close();
    }
    const again = await cli(['compress', plain, fixed]);
    assert.equal(again.code, 2);
    assert.match(again.err[0], /already exists; refusing to overwrite/);
    const self = await cli(['compress', plain, plain]);
    assert.equal(self.code, 2);
    const notRec = path.join(dir, 'notes.txt');
    fs.writeFileSync(notRec, 'hello\n');
    const out = path.join(dir, 'notes.rec.jsonl.gz');
    const n = await cli(['compress', notRec, out]);
    assert.equal(n.code, 2);
    assert.equal(fs.existsSync(out), false, 'no output left behind for input that is not a recording');
  });
  it('simulate writes blocked gzip for --gzip or a .gz name', async () => {
    const out = path.join(dir, 'sim.rec.jsonl.gz');
    const s = await cli(['simulate', scene, '--frames', '5', '--out', out]);
    assert.equal(s.code, 0, s.err.join('\n'));
    const r = RecordingReader.openSync(out);
    try {
      assert.equal(r.compressed, true);
      assert.equal(r.frameCount, 5);
    } finally {
      r.close();
    }
  });
});
