/**
 * Random access into a plain gzip file (what Python's gzip module, `gzip` and most writers produce), after
 * zlib's examples/zran.c and indexed_gzip: the one sequential pass that reads the file (inflate.ts) keeps an
 * access point at a deflate block boundary about every GZIP_SPAN bytes of output and at the last boundary
 * before a line (GzipIndexBuilder) — the compressed bit where the block starts, its uncompressed offset and the
 * 32 KiB of output before it (deflated, ~8 KiB) — and every block boundary's bit. A read of any uncompressed
 * range then inflates from the access point before it to the first block boundary after it. Node's zlib
 * resumes there from the byte that holds the boundary, its bits shifted down by the boundary's bit offset
 * (zran uses inflatePrime), with the window as its dictionary (inflateSetDictionary).
 * A stored block is aligned to the bytes of the original stream, so a span that holds one and starts inside a
 * byte is inflated by inflate.ts from the bit itself (rare: gzip stores only incompressible data).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as zlib from 'node:zlib';
import { GzipInflater, type InflateSink, WINDOW_BYTES } from './inflate.js';

/** Uncompressed bytes between access points (zran's default SPAN: a seek inflates at most this much extra). */
export const GZIP_SPAN = 1 << 20;
/**
 * Fewest uncompressed bytes between an access point kept at a line start and the point before it: a recording of
 * short frames keeps one point per 256 KiB or so (its index ~4 × that of one per span), a recording of
 * megabyte frames one per frame.
 */
export const GZIP_MIN_SPAN = 1 << 18;

/** Grows a Float64Array to hold at least n entries. */
function grown(a: Float64Array<ArrayBuffer>, n: number): Float64Array<ArrayBuffer> {
  if (n <= a.length) return a;
  const b = new Float64Array(Math.max(n, 2 * a.length));
  b.set(a);
  return b;
}

/** The access points of a plain gzip file (and its members' ends). */
export class GzipIndex {
  count = 0;
  /** Per access point: compressed bit of the block boundary, uncompressed offset, member number, flags. */
  bit: Float64Array<ArrayBuffer> = new Float64Array(64);
  out: Float64Array<ArrayBuffer> = new Float64Array(64);
  member: Float64Array<ArrayBuffer> = new Float64Array(64);
  /**
   * Every deflate block boundary of the file (compressed bit, uncompressed offset; 16 bytes per block of ~100–250
   * KiB of text): a read stops at the first one after the bytes it wants, not at the next access point.
   */
  blocks = 0;
  blockBit: Float64Array<ArrayBuffer> = new Float64Array(256);
  blockOut: Float64Array<ArrayBuffer> = new Float64Array(256);
  /** 1: a stored block follows within the span (resume by bit with inflate.ts when the bit is not byte-aligned). */
  storedInSpan: Uint8Array<ArrayBuffer> = new Uint8Array(64);
  /** Deflated windows, back to back; window k is windows[wOff[k], wOff[k + 1]). */
  windows: Buffer = Buffer.alloc(0);
  wOff: Float64Array<ArrayBuffer> = new Float64Array(65);
  /** Per member: the compressed bit where its deflate data ends, and its uncompressed end. */
  members = 0;
  memberEndBit: Float64Array<ArrayBuffer> = new Float64Array(8);
  memberEndOut: Float64Array<ArrayBuffer> = new Float64Array(8);
  /** Uncompressed size of the whole file. */
  totalOut = 0;
  private windowParts: Buffer[] = [];
  private windowBytes = 0;

  add(bit: number, out: number, member: number, window: Uint8Array): void {
    const k = this.count++;
    if (k >= this.bit.length) {
      this.bit = grown(this.bit, k + 1);
      this.out = grown(this.out, k + 1);
      this.member = grown(this.member, k + 1);
      const s = new Uint8Array(this.bit.length);
      s.set(this.storedInSpan);
      this.storedInSpan = s;
    }
    this.bit[k] = bit;
    this.out[k] = out;
    this.member[k] = member;
    this.storedInSpan[k] = 0;
    const w = window.length ? zlib.deflateRawSync(window, { level: 1 }) : Buffer.alloc(0);
    this.wOff = grown(this.wOff, k + 2);
    this.wOff[k] = this.windowBytes;
    this.windowParts.push(w);
    this.windowBytes += w.length;
    this.wOff[k + 1] = this.windowBytes;
  }

  /** A block boundary (in file order). */
  addBlock(bit: number, out: number): void {
    const b = this.blocks++;
    this.blockBit = grown(this.blockBit, b + 1);
    this.blockOut = grown(this.blockOut, b + 1);
    this.blockBit[b] = bit;
    this.blockOut[b] = out;
  }

  memberEnded(bit: number, out: number): void {
    const m = this.members++;
    this.memberEndBit = grown(this.memberEndBit, m + 1);
    this.memberEndOut = grown(this.memberEndOut, m + 1);
    this.memberEndBit[m] = bit;
    this.memberEndOut[m] = out;
    this.totalOut = out;
  }

  /** Joins the windows into one buffer (after the pass). */
  seal(): void {
    this.windows = Buffer.concat([this.windows, ...this.windowParts]);
    this.windowParts = [];
  }

  /** Bytes of memory the index holds. */
  get bytes(): number {
    return (
      this.bit.byteLength * 3 +
      this.blockBit.byteLength * 2 +
      this.storedInSpan.byteLength +
      this.wOff.byteLength +
      this.wOff[this.count] +
      this.memberEndBit.byteLength * 2
    );
  }

  /** The access point at or before uncompressed offset `offset` (binary search). */
  find(offset: number): number {
    let lo = 0,
      hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.out[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  window(k: number): Buffer {
    const w = this.windows.subarray(this.wOff[k], this.wOff[k + 1]);
    return w.length ? zlib.inflateRawSync(w, { maxOutputLength: WINDOW_BYTES, chunkSize: WINDOW_BYTES + 1 }) : Buffer.alloc(0);
  }

  /** Where the span of access points k…j ends: the next access point of the same member, or the member's end. */
  spanEndBit(j: number): number {
    const m = this.member[j];
    return j + 1 < this.count && this.member[j + 1] === m ? this.bit[j + 1] : this.memberEndBit[m];
  }

  /**
   * Where a read of the bytes before uncompressed offset `end` from access points k…j stops: the first block
   * boundary at or after `end` within j's span (its compressed bit, and its uncompressed offset: the read's end).
   */
  readEnd(j: number, end: number): { bit: number; out: number } {
    const spanEnd = this.spanEndBit(j);
    let lo = 0,
      hi = this.blocks;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.blockOut[mid] < end) lo = mid + 1;
      else hi = mid;
    }
    if (lo < this.blocks && this.blockBit[lo] > this.bit[j] && this.blockBit[lo] < spanEnd) return { bit: this.blockBit[lo], out: this.blockOut[lo] };
    // past the span's end (the next member's boundaries included): the span's end
    const m = this.member[j];
    return { bit: spanEnd, out: j + 1 < this.count && this.member[j + 1] === m ? this.out[j + 1] : this.memberEndOut[m] };
  }
}

/** A block boundary told by the inflater whose access point is not decided yet (its block's lines not seen). */
interface PendingBoundary {
  readonly bit: number;
  readonly at: number;
  /** Bytes of window before it (32 KiB, or the member's output so far). */
  readonly wlen: number;
  stored: boolean;
  /** Its window, copied when the inflater's output buffer may slide before the decision. */
  window: Uint8Array | null;
}

/**
 * The sink of the sequential pass: hands the uncompressed bytes on and keeps an access point at a member's
 * start, at the last block boundary before a line starts (a recording's frame: a seek then inflates from at
 * most one deflate block before its line) when the last point is at least `minSpan` bytes back, and at the
 * first block boundary `span` bytes after the last point. The inflater tells a boundary before it hands on the
 * bytes that follow it, so a boundary waits for them (its window stays in the inflater's output buffer until
 * the bytes after it are handed on; the one still waiting then is copied).
 */
export class GzipIndexBuilder implements InflateSink {
  readonly index = new GzipIndex();
  private lastAt = -Infinity;
  /** The last point was kept for the spacing, not for a line. */
  private lastBySpan = false;
  private pending: PendingBoundary[] = [];
  constructor(
    private readonly onData: (out: Uint8Array, from: number, to: number, at: number) => void,
    private readonly span = GZIP_SPAN,
    private readonly minSpan = GZIP_MIN_SPAN,
  ) {}

  data(out: Uint8Array, from: number, to: number, at: number): void {
    if (this.pending.length > 0) this.decide(out, from, to, at);
    this.onData(out, from, to, at);
  }

  boundary(bit: number, at: number, window: Uint8Array, memberStart: boolean): void {
    this.index.addBlock(bit, at);
    if (memberStart) {
      // the previous member's boundaries were settled at its end
      this.index.add(bit, at, this.index.members, window);
      this.lastAt = at;
      this.lastBySpan = false;
    } else this.pending.push({ bit, at, wlen: window.length, stored: false, window: null });
  }

  stored(): void {
    const p = this.pending.at(-1);
    if (p) p.stored = true;
    else if (this.index.count > 0) this.index.storedInSpan[this.index.count - 1] = 1;
  }

  memberEnd(bit: number, _end: number, at: number): void {
    // the bytes after the member's last waiting boundary were all handed on: no point there would serve a read
    if (this.pending.some((p) => p.stored) && this.index.count > 0) this.index.storedInSpan[this.index.count - 1] = 1;
    this.pending = [];
    this.index.memberEnded(bit, at);
  }

  /**
   * Decides the waiting boundaries from the bytes [at, at + to − from) just inflated (out[from, to)): all but
   * the last, whose block may run on, are settled; the last waits (with a copy of its window) unless a line
   * starts after it here.
   */
  private decide(out: Uint8Array, from: number, to: number, at: number): void {
    const end = at + (to - from),
      pending = this.pending;
    let nl = out.indexOf(0x0a, from);
    let n = 0;
    for (let q = 0; q < pending.length; q++) {
      const p = pending[q],
        next = q + 1 < pending.length ? pending[q + 1].at : Infinity;
      // the first line start (the byte after a newline) at or after the boundary
      while (nl >= 0 && nl < to && at + (nl - from) + 1 < p.at) nl = out.indexOf(0x0a, nl + 1);
      const lineStart = nl >= 0 && nl < to ? at + (nl - from) + 1 : Infinity;
      const lineHere = lineStart < next && lineStart <= end;
      if (next === Infinity && !lineHere && p.at - this.lastAt < this.span) {
        // the last boundary's block runs on past these bytes: it waits; its window leaves the buffer when it slides
        if (!p.window) p.window = out.slice(from + (p.at - at) - p.wlen, from + (p.at - at));
        break;
      }
      n = q + 1;
      const far = p.at - this.lastAt;
      // a line just after a point the spacing kept still gets its own (else that point would stand for it, a block or more early)
      if (far >= this.span || (lineHere && (far >= this.minSpan || this.lastBySpan)))
        this.keep(p, p.window ?? out.subarray(from + (p.at - at) - p.wlen, from + (p.at - at)), !lineHere);
      if (p.stored && this.index.count > 0) this.index.storedInSpan[this.index.count - 1] = 1;
    }
    if (n > 0) this.pending = pending.slice(n);
  }

  private keep(p: PendingBoundary, window: Uint8Array, bySpan: boolean): void {
    this.index.add(p.bit, p.at, this.index.members, window);
    this.lastAt = p.at;
    this.lastBySpan = bySpan;
  }
}

const LITTLE_ENDIAN = os.endianness() === 'LE';
/** zlib's output buffer for a small span: Node's default chunk (zlib.constants.Z_DEFAULT_CHUNK). */
const MIN_CHUNK_BYTES = 16 * 1024;

/** Bits [bit, endBit) of `raw` (which starts at byte floor(bit / 8)) as a byte-aligned stream, the bits past endBit zero. */
function alignedSpan(raw: Buffer, bit: number, endBit: number): Buffer {
  const s = bit % 8,
    nbits = endBit - bit;
  const n = Math.ceil(nbits / 8);
  const out = Buffer.allocUnsafe(n);
  let i = 0;
  if (s === 0) i = raw.copy(out, 0, 0, n);
  else if (LITTLE_ENDIAN && raw.byteOffset % 4 === 0 && out.byteOffset % 4 === 0 && raw.length >= 4 * ((n >>> 2) + 1)) {
    // four bytes a step (the stream's bits run from each byte's low end: on a little-endian machine a 32-bit
    // word shifts as its four bytes do); the byte loop below does the rest
    const words = n >>> 2;
    const r = new Uint32Array(raw.buffer, raw.byteOffset, words + 1),
      o = new Uint32Array(out.buffer, out.byteOffset, words);
    for (let w = 0; w < words; w++) o[w] = (r[w] >>> s) | (r[w + 1] << (32 - s));
    i = 4 * words;
  }
  for (; i < n; i++) out[i] = ((raw[i] >>> s) | (raw[i + 1] << (8 - s))) & 0xff;
  const tail = nbits % 8;
  // zero bits after the span's end read as an unfinished stored block header: zlib stops there without error
  if (tail) out[n - 1] &= (1 << tail) - 1;
  return out;
}

/**
 * Inflates access points k…j's span up to endBit (raw bytes from floor(bit[k] / 8)) from k's window; `bytes`, what
 * the index says it holds, sizes zlib's output buffer, so that the span comes out in one buffer (zlib's default 16
 * KiB chunks meant ~130 buffers and their concatenation for a 2 MiB frame line). A span that holds more still comes
 * out whole, in further chunks.
 */
function inflateSpan(ix: GzipIndex, k: number, j: number, endBit: number, raw: Buffer, bytes: number): Buffer {
  const bit = ix.bit[k];
  const window = ix.window(k);
  let stored = false;
  for (let q = k; q <= j; q++) stored ||= ix.storedInSpan[q] === 1;
  if (!stored || bit % 8 === 0) {
    const span = alignedSpan(raw, bit, endBit);
    return zlib.inflateRawSync(span, {
      ...(window.length ? { dictionary: window } : {}),
      finishFlush: zlib.constants.Z_SYNC_FLUSH,
      // one byte over: a full buffer makes zlib allocate a further one before it finds the stream done
      chunkSize: Math.max(MIN_CHUNK_BYTES, bytes + 1),
    });
  }
  const parts: Buffer[] = [];
  const inf = new GzipInflater({
    data: (out, from, to) => parts.push(Buffer.from(out.subarray(from, to))),
    boundary: () => undefined,
    memberEnd: () => undefined,
  });
  const base = Math.floor(bit / 8) * 8;
  inf.resumeRaw(window, bit - base, endBit - base);
  inf.push(raw, true);
  return Buffer.concat(parts);
}

/**
 * Uncompressed bytes [offset, offset + length) of a plain gzip file through its index: the compressed bytes of
 * the spans that hold them are read and inflated (the last span inflated is kept, since neighbouring frames share
 * it). `changed` is called when the file no longer holds what the index says.
 */
export class GzipRangeReader {
  private last: { k: number; data: Buffer } | null = null;
  /** Uncompressed bytes inflated by the reads so far (benchmarks, tests). */
  inflatedBytes = 0;
  constructor(
    private readonly fd: () => number,
    readonly index: GzipIndex,
  ) {}

  /** The bytes, read-only: a view of the span inflated last when one span holds them all (no copy), else a new buffer. */
  read(offset: number, length: number, changed: (why: string) => never): Buffer {
    const ix = this.index,
      end = offset + length;
    let out: Buffer | null = null;
    let got = 0;
    while (got < length) {
      const cur = offset + got,
        k = ix.find(cur),
        m = ix.member[k];
      let j = k;
      while (j + 1 < ix.count && ix.member[j + 1] === m && ix.out[j + 1] < end) j++;
      let data: Buffer;
      if (this.last && this.last.k === k && ix.out[k] + this.last.data.length >= end) data = this.last.data;
      else {
        const stop = ix.readEnd(j, end),
          endBit = stop.bit;
        const b0 = Math.floor(ix.bit[k] / 8),
          b1 = Math.ceil(endBit / 8);
        // with room for alignedSpan's last four-byte step, zeroed (the rest is read over)
        const raw = Buffer.allocUnsafe(b1 - b0 + 4).fill(0, b1 - b0);
        let n = 0;
        while (n < b1 - b0) {
          const r = fs.readSync(this.fd(), raw, n, b1 - b0 - n, b0 + n);
          if (r === 0) changed('unexpected end of file');
          n += r;
        }
        try {
          data = inflateSpan(ix, k, j, endBit, raw, stop.out - ix.out[k]);
        } catch {
          return changed(`the compressed data at byte ${b0} no longer decompresses`);
        }
        this.inflatedBytes += data.length;
        this.last = { k, data };
      }
      const from = cur - ix.out[k];
      const take = Math.min(length - got, data.length - from);
      if (take <= 0) changed('a compressed span holds fewer bytes than when it was indexed');
      if (take === length) return data.subarray(from, from + take);
      out ??= Buffer.allocUnsafe(length);
      data.copy(out, got, from, from + take);
      got += take;
    }
    return out ?? Buffer.alloc(0);
  }

  forget(): void {
    this.last = null;
  }
}
