/**
 * Plain gzip recordings (what `gzip`, Python's gzip module and most writers produce): the inflater that tells
 * deflate block boundaries (src/format/inflate.ts), the access index that resumes Node's zlib there
 * (src/format/gzipIndex.ts), and the reader: the same frames and findings as the plain file, damaged data
 * refused whole, an early end read up to the cut with a warning.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { GzipInflater } from '../../src/format/inflate.js';
import { GzipIndexBuilder, GzipRangeReader } from '../../src/format/gzipIndex.js';
import { RecordingReader } from '../../src/format/recordingFile.js';
import { FormatError } from '../../src/format/messages.js';
import { main } from '../../src/cli/main.js';

const ROOT = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-gzidx-'));

/** Deterministic incompressible bytes (SHA-256 in counter mode): gzip keeps them in stored blocks. */
function noise(n: number, seed: number): Buffer {
  const parts: Buffer[] = [];
  for (let k = 0; 32 * k < n; k++) parts.push(createHash('sha256').update(`${seed}:${k}`).digest());
  return Buffer.concat(parts).subarray(0, n);
}

/** Text like a recording's numbers (compressible, long back-references). */
function text(n: number, seed: number): Buffer {
  const parts: string[] = [];
  let s = seed,
    len = 0;
  while (len < n) {
    s = (s * 1103515245 + 12345) >>> 0;
    const line = `{"frame":${len},"lambda":[${(s / 2 ** 32).toFixed(6)},0,${((s >>> 7) % 1000) / 7}]}\n`;
    parts.push(line);
    len += line.length;
  }
  return Buffer.from(parts.join('')).subarray(0, n);
}

/** The whole inflater pass over `gz` (pushed in pieces of `chunk` bytes): its output and the access index. */
function inflateAll(gz: Buffer, chunk: number, span = 1 << 16) {
  const out: Buffer[] = [];
  const b = new GzipIndexBuilder((o, from, to) => out.push(Buffer.from(o.subarray(from, to))), span);
  const inf = new GzipInflater(b);
  for (let p = 0; p < gz.length; p += chunk) inf.push(gz.subarray(p, Math.min(gz.length, p + chunk)));
  inf.push(new Uint8Array(0), true);
  b.index.seal();
  return { data: Buffer.concat(out), index: b.index, inflater: inf };
}

/** A gzip member with every optional header field (FEXTRA, FNAME, FCOMMENT, FHCRC: RFC 1952 §2.3.1). */
function fullHeaderMember(data: Buffer): Buffer {
  const raw = zlib.deflateRawSync(data);
  const extra = Buffer.from([0x41, 0x42, 3, 0, 1, 2, 3]);
  const head = Buffer.concat([
    Buffer.from([0x1f, 0x8b, 8, 4 | 8 | 16 | 2, 0, 0, 0, 0, 0, 3, extra.length, 0]),
    extra,
    Buffer.from('frames.rec.jsonl\0comment\0', 'latin1'),
    Buffer.from([0, 0]), // FHCRC (not checked by gzip -d either)
  ]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(zlib.crc32 ? zlib.crc32(data) : 0, 0);
  trailer.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, raw, trailer]);
}

describe('plain gzip: inflater, access index, reader', () => {
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('inflates what zlib inflates: levels 1 and 9, stored blocks, several members, every header field, any chunking', () => {
    const a = text(400_000, 1),
      r = noise(150_000, 2),
      c = text(300_000, 3);
    const cases: [string, Buffer, Buffer][] = [
      ['level 9', zlib.gzipSync(a, { level: 9 }), a],
      ['level 1', zlib.gzipSync(a, { level: 1 }), a],
      ['stored (incompressible)', zlib.gzipSync(r), r],
      ['three members', Buffer.concat([zlib.gzipSync(a), zlib.gzipSync(r), zlib.gzipSync(c, { level: 9 })]), Buffer.concat([a, r, c])],
      ['all header fields', fullHeaderMember(c), c],
      ['empty member', zlib.gzipSync(Buffer.alloc(0)), Buffer.alloc(0)],
    ];
    for (const [name, gz, want] of cases)
      for (const chunk of [1, 7, 4096, 1 << 20]) {
        if (chunk < 4096 && gz.length > 200_000) continue; // byte-by-byte pushes on the small inputs only
        const got = inflateAll(gz, chunk);
        assert.ok(got.data.equals(want), `${name}, chunks of ${chunk}: the output differs from zlib's`);
        assert.ok(got.inflater.complete, `${name}: the stream ends complete`);
      }
  });

  it('any range reads back from its access point, including stored blocks inside a byte and ranges across members', () => {
    const want = Buffer.concat([text(700_000, 4), noise(400_000, 5), text(500_000, 6)]);
    const gz = Buffer.concat([zlib.gzipSync(want.subarray(0, 800_000), { level: 6 }), zlib.gzipSync(want.subarray(800_000), { level: 1 })]);
    const file = path.join(dir, 'ranges.gz');
    fs.writeFileSync(file, gz);
    const { index } = inflateAll(gz, 65536, 50_000);
    assert.ok(index.count >= 10, `${index.count} access points`);
    assert.ok(
      index.storedInSpan.subarray(0, index.count).some((x) => x === 1),
      'some span holds a stored block',
    );
    assert.ok(
      [...index.bit.subarray(0, index.count)].some((b) => b % 8 !== 0),
      'some access point starts inside a byte',
    );
    const fd = fs.openSync(file, 'r');
    try {
      const reader = new GzipRangeReader(() => fd, index);
      let s = 9;
      for (let k = 0; k < 150; k++) {
        s = (s * 1103515245 + 12345) >>> 0;
        const off = s % want.length;
        const len = Math.min(want.length - off, 1 + ((s >>> 3) % 300_000));
        if (k % 3 === 0) reader.forget();
        const got = reader.read(off, len, (why) => assert.fail(why));
        assert.ok(got.equals(want.subarray(off, off + len)), `range ${off} + ${len}`);
      }
    } finally {
      fs.closeSync(fd);
    }
  });

  it('a span read inflates exactly the bytes the index says its span holds (zlib gets an output buffer of that size), and a range inside one span is read without a copy', () => {
    const want = Buffer.concat([text(900_000, 7), noise(200_000, 8), text(600_000, 9)]);
    const gz = zlib.gzipSync(want, { level: 6 });
    const file = path.join(dir, 'spans.gz');
    fs.writeFileSync(file, gz);
    const { index } = inflateAll(gz, 65536, 60_000);
    const fd = fs.openSync(file, 'r');
    try {
      const reader = new GzipRangeReader(() => fd, index);
      let s = 5,
        checked = 0;
      for (let k = 0; k < 120; k++) {
        s = (s * 1103515245 + 12345) >>> 0;
        const off = s % want.length;
        const len = Math.min(want.length - off, 1 + ((s >>> 5) % 150_000));
        const first = index.find(off);
        let last = first;
        while (last + 1 < index.count && index.out[last + 1] < off + len) last++;
        const stop = index.readEnd(last, off + len);
        reader.forget();
        const before = reader.inflatedBytes;
        const got = reader.read(off, len, (why) => assert.fail(why));
        assert.ok(got.equals(want.subarray(off, off + len)), `range ${off} + ${len}`);
        if (stop.out >= off + len) {
          // one inflate serves the range: it gives what the index said, and the range is a view of it
          assert.equal(reader.inflatedBytes - before, stop.out - index.out[first], `range ${off} + ${len}: inflated bytes`);
          const again = reader.read(off, len, (why) => assert.fail(why));
          assert.ok(got.buffer === again.buffer && got.byteOffset === again.byteOffset, 'the same span, not a copy');
          checked++;
        }
      }
      assert.ok(checked > 50, `${checked} ranges served by one span`);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('keeps an access point at the last block boundary before each line that starts ≥ 256 KiB after the last point, so a frame read inflates at most one block before and one after its line', () => {
    // lines of 400–800 KB (a busy recording's frames), compressed as gzip -6 does
    const lines: Buffer[] = [];
    for (let k = 0; k < 12; k++) {
      const body = Buffer.from(text(400_000 + 37_000 * k - 1, 20 + k)).map((c) => (c === 0x0a ? 0x20 : c));
      lines.push(Buffer.concat([body, Buffer.from('\n')]));
    }
    const want = Buffer.concat(lines);
    const gz = zlib.gzipSync(want, { level: 6 });
    // every block boundary, from a pass that keeps them all
    const boundaries: number[] = [];
    const all = new GzipInflater({ data: () => undefined, boundary: (_b, at) => void boundaries.push(at), memberEnd: () => undefined });
    all.push(gz, true);
    const file = path.join(dir, 'lines.gz');
    fs.writeFileSync(file, gz);
    for (const chunk of [4096, 1 << 20]) {
      const { index, data } = inflateAll(gz, chunk, 1 << 20);
      assert.ok(data.equals(want));
      const points = [...index.out.subarray(0, index.count)];
      let start = 0;
      for (const line of lines.slice(0, -1)) {
        start += line.length;
        const before = boundaries.filter((b) => b <= start).at(-1)!;
        assert.ok(points.includes(before), `chunks of ${chunk}: the line at ${start} has the access point at ${before} (points ${points.join(', ')})`);
      }
      assert.ok(index.count <= lines.length + Math.ceil(want.length / (1 << 20)) + 1, `${index.count} access points`);
      const fd = fs.openSync(file, 'r');
      try {
        const reader = new GzipRangeReader(() => fd, index);
        const longestBlock = Math.max(...boundaries.slice(1).map((b, i) => b - boundaries[i]), want.length - boundaries.at(-1)!);
        let off = 0;
        for (const line of lines) {
          reader.forget();
          const before = reader.inflatedBytes;
          assert.ok(reader.read(off, line.length, (why) => assert.fail(why)).equals(line));
          const extra = reader.inflatedBytes - before - line.length;
          assert.ok(extra <= 2 * longestBlock, `the line at ${off}: ${extra} bytes inflated besides it (blocks of up to ${longestBlock})`);
          off += line.length;
        }
      } finally {
        fs.closeSync(fd);
      }
    }
  });

  describe('recordings', () => {
    const plain = path.join(ROOT, 'examples', 'foreign-engine.rec.jsonl');
    const bytes = fs.readFileSync(plain);
    const frames = (file: string): string[] => {
      const r = RecordingReader.openSync(file);
      try {
        return Array.from({ length: r.frameCount }, (_, i) => JSON.stringify(r.frame(i)));
      } finally {
        r.close();
      }
    };
    const cli = async (args: string[]) => {
      const out: string[] = [],
        err: string[] = [];
      const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
      return { code, out, err };
    };
    // the file's name and the re-solves' timings differ; everything else is the same
    const strip = (s: string): string => s.replace(/"(file|source)":"[^"]*",?/, '').replace(/"timeMs":[-\d.e+]+/g, '');

    it('`gzip -c rec.jsonl > rec.jsonl.gz` opens in report and diagnose with the same frames and findings as the plain file', async () => {
      const gz = path.join(dir, 'foreign.rec.jsonl.gz');
      let made = false;
      try {
        fs.writeFileSync(gz, execFileSync('gzip', ['-c', plain]));
        made = true;
      } catch {
        fs.writeFileSync(gz, zlib.gzipSync(bytes)); // no gzip on this machine: Node's zlib writes the same format
      }
      assert.ok(made || fs.existsSync(gz));
      const r = RecordingReader.openSync(gz);
      assert.equal(r.compression, 'gzip');
      r.close();
      assert.deepEqual(frames(gz), frames(plain));
      const a = await cli(['report', plain, '--json']),
        b = await cli(['report', gz, '--json']);
      assert.equal(b.code, 0, b.err.join('\n'));
      assert.equal(strip(b.out[0]), strip(a.out[0]));
      const da = await cli(['diagnose', plain, '--json']),
        db = await cli(['diagnose', gz, '--json']);
      assert.ok(db.out.map(strip).join('\n') === da.out.map(strip).join('\n'), 'diagnose --json prints the same findings for the gzip file');
      assert.ok(da.out.length > 0, 'the example has findings to compare');
    });

    it('a damaged plain gzip is refused whole in one line naming the file (its data is checked only at the end of a member); nothing wrong is read', () => {
      const gz = zlib.gzipSync(bytes);
      for (const at of [gz.length >> 3, gz.length >> 1, gz.length - 12, gz.length - 6]) {
        const bad = Buffer.from(gz);
        bad[at] ^= 0x5a;
        const file = path.join(dir, `damaged-${at}.rec.jsonl.gz`);
        fs.writeFileSync(file, bad);
        let e: unknown = null;
        try {
          RecordingReader.openSync(file).close();
        } catch (x) {
          e = x;
        }
        assert.ok(e instanceof FormatError, `byte ${at}: refused (${e})`);
        assert.ok(!e.message.includes('\n'));
        assert.match(e.message, /damaged-\d+\.rec\.jsonl\.gz: \(compression\): .*(CRC-32|length check|invalid|distance|code|block)/);
        assert.match(e.message, /plain gzip file is checked only at the end of each member/);
      }
    });

    it('a truncated plain gzip keeps the frames before the cut, each equal to the plain file’s, and says so', () => {
      const gz = zlib.gzipSync(bytes);
      const all = frames(plain);
      const file = path.join(dir, 'cut.rec.jsonl.gz');
      fs.writeFileSync(file, gz.subarray(0, Math.floor(gz.length * 0.7)));
      const r = RecordingReader.openSync(file);
      try {
        assert.ok(r.frameCount > 0 && r.frameCount < all.length, `${r.frameCount} of ${all.length} frames`);
        for (let i = 0; i < r.frameCount; i++) assert.equal(JSON.stringify(r.frame(i)), all[i]);
        assert.ok(
          r.warnings.some((w) => /ends inside its gzip data .*truncated.*not checked by the gzip CRC-32/.test(w)),
          r.warnings.join('\n'),
        );
      } finally {
        r.close();
      }
    });

    it('a Zstandard file is refused in one line naming the file and what to do, not read as text', () => {
      const file = path.join(dir, 'frames.rec.jsonl.zst');
      // a zstd frame header (magic, descriptor) before arbitrary bytes: the refusal comes from the magic number alone
      fs.writeFileSync(file, Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x00]), noise(4096, 7)]));
      assert.throws(
        () => RecordingReader.openSync(file),
        (e: unknown) =>
          e instanceof FormatError &&
          !e.message.includes('\n') &&
          /frames\.rec\.jsonl\.zst: \(compression\): is Zstandard-compressed.*zstd -d.*gzip/.test(e.message),
      );
    });

    it('bytes after the last member that are not gzip are ignored with a warning (as gzip -d does)', () => {
      const file = path.join(dir, 'padded.rec.jsonl.gz');
      fs.writeFileSync(file, Buffer.concat([zlib.gzipSync(bytes), Buffer.alloc(512)]));
      const r = RecordingReader.openSync(file);
      try {
        assert.equal(r.frameCount, frames(plain).length);
        assert.ok(r.warnings.some((w) => /512 bytes after the last gzip member are not gzip data/.test(w)));
      } finally {
        r.close();
      }
    });
  });
});
