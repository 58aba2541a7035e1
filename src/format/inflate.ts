/**
 * A streaming gzip inflater (RFC 1952 members of RFC 1951 DEFLATE data) that knows where it is: the bit
 * position of every deflate block boundary in the compressed stream, the uncompressed offset there and the
 * 32 KiB of output before it (the window a back-reference may reach). Node's zlib does not tell these (no
 * Z_BLOCK stop, no data_type bits, no inflatePrime), so the one sequential pass that builds a plain gzip
 * file's access index runs this decoder; the seeks afterwards resume Node's zlib at a recorded boundary
 * (gzipIndex.ts), as zlib's examples/zran.c does with inflatePrime and inflateSetDictionary.
 *
 * A hot kernel, so one file and two long loops by design: Huffman codes are decoded through one lookup
 * table per code (2^maxLength entries of (symbol << 4 | length), the code bits reversed since DEFLATE packs
 * codes MSB-first into an LSB-first stream: RFC 1951 §3.1.1, §3.2.2), bits are read at an absolute bit
 * position from 3 bytes at a time (fflate's layout), and no allocation happens per symbol. Input comes in
 * chunks: the decoder suspends between symbols when fewer than SAFE_BYTES of input remain (a block header is
 * decoded only with HEADER_BYTES in hand) and goes on when the caller appends more. Each member's CRC-32 and
 * size (RFC 1952 §2.3.1) are checked at its end; damage is an InflateError naming the compressed byte.
 */
import { crc32 } from './bgzf.js';

/** Bytes of history a DEFLATE distance may reach back (RFC 1951 §2.2). */
export const WINDOW_BYTES = 32768;
/** Output handed on in pieces of about this size (and the window slid down behind them). */
const OUT_CHUNK = 1 << 20;
/** Input kept in hand while decoding symbols: the longest symbol with its extra bits is 48 bits. */
const SAFE_BYTES = 16;
/** Input in hand before a dynamic block header is decoded (at most 17 + 57 + 316·7 bits ≈ 290 bytes). */
const HEADER_BYTES = 1024;
/** Zero bytes kept after the input's end, so the 3-byte bit reads never leave the array. */
const PAD = 8;

const LEN_BASE = new Uint16Array([3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]);
const LEN_EXTRA = new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]);
const DIST_BASE = new Uint16Array([
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
]);
const DIST_EXTRA = new Uint8Array([0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]);
/** Order of the code-length code lengths in a dynamic block header (RFC 1951 §3.2.7). */
const CLEN_ORDER = new Uint8Array([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]);

/** Damaged or unsupported compressed data at a compressed byte offset. */
export class InflateError extends Error {
  constructor(
    readonly byte: number,
    readonly reason: string,
    /** The input ended early (an interrupted writer), rather than holding damaged data. */
    readonly truncated = false,
  ) {
    super(`${reason} (compressed byte ${byte})`);
  }
}

/** A lookup table for one canonical Huffman code: entries (symbol << 4) | length, 0 for an unused pattern. */
interface Table {
  readonly t: Int32Array;
  readonly mask: number;
}

const reverse = (c: number, len: number): number => {
  let r = 0;
  for (let k = 0; k < len; k++) {
    r = (r << 1) | (c & 1);
    c >>>= 1;
  }
  return r;
};

/** The table of the canonical code with these lengths (RFC 1951 §3.2.2); null when over-subscribed. */
function buildTable(lengths: Uint8Array, n: number, allowIncomplete: boolean): Table | null {
  let max = 0;
  const count = new Uint16Array(16);
  for (let i = 0; i < n; i++) {
    count[lengths[i]]++;
    if (lengths[i] > max) max = lengths[i];
  }
  count[0] = 0;
  let left = 1;
  for (let len = 1; len <= 15; len++) {
    left = 2 * left - count[len];
    if (left < 0) return null; // over-subscribed
  }
  if (left > 0 && !allowIncomplete && max > 1) return null; // incomplete (one code of length 1 is allowed)
  const next = new Uint16Array(16);
  for (let len = 1, code = 0; len <= 15; len++) {
    code = (code + count[len - 1]) << 1;
    next[len] = code;
  }
  const bits = Math.max(1, max);
  const t = new Int32Array(1 << bits);
  for (let s = 0; s < n; s++) {
    const len = lengths[s];
    if (len === 0) continue;
    const entry = (s << 4) | len;
    for (let r = reverse(next[len]++, len); r < t.length; r += 1 << len) t[r] = entry;
  }
  return { t, mask: t.length - 1 };
}

const FIXED_LIT = (() => {
  const l = new Uint8Array(288);
  l.fill(8, 0, 144);
  l.fill(9, 144, 256);
  l.fill(7, 256, 280);
  l.fill(8, 280, 288);
  return buildTable(l, 288, false)!;
})();
const FIXED_DIST = buildTable(new Uint8Array(30).fill(5), 30, true)!;

/** What the inflater tells its owner. */
export interface InflateSink {
  /** Uncompressed bytes out[from, to) at uncompressed offset `at` (copy what is kept: the buffer is reused). */
  data(out: Uint8Array, from: number, to: number, at: number): void;
  /**
   * A deflate block starts at compressed bit `bit`, uncompressed offset `at`; `window` is the output before it
   * within its member (at most 32 KiB; empty at a member's start).
   */
  boundary(bit: number, at: number, window: Uint8Array, memberStart: boolean): void;
  /** A stored block starts at the boundary just told (a span holding one resumes by bit, not by byte: gzipIndex.ts). */
  stored?(): void;
  /** A member ended: its deflate data ends at compressed bit `bit`, the member (trailer included) at byte `end`. */
  memberEnd(bit: number, end: number, at: number): void;
}

enum Mode {
  MemberHeader,
  BlockStart,
  Codes,
  Stored,
  Trailer,
  AfterMember,
  /** A raw span (resume) reached its end. */
  Done,
  /** Bytes after the last member that are not gzip: counted, not read. */
  Ignore,
}

/** A gzip stream decoded chunk by chunk (push), with its block boundaries told to the sink. */
export class GzipInflater {
  private buf = new Uint8Array(2 * OUT_CHUNK + PAD);
  /** Valid input bytes in buf; buf[0] is compressed byte `base`. */
  private len = 0;
  private base = 0;
  /** Bit position in buf. */
  private pos = 0;
  private mode = Mode.MemberHeader;
  private last = false;
  private lit: Table = FIXED_LIT;
  private dist: Table = FIXED_DIST;
  private storedLeft = 0;
  private readonly out = new Uint8Array(WINDOW_BYTES + OUT_CHUNK + 65536 + 258);
  private op = 0;
  private emitFrom = 0;
  /** Uncompressed bytes handed on so far, and this member's output so far (a distance may not reach before it). */
  private emitted = 0;
  private memberOut = 0;
  private crc = 0;
  /** Members decoded. */
  members = 0;
  /** Bytes after the last member that are not gzip (ignored). */
  trailing = 0;
  private readonly lengths = new Uint8Array(320);

  constructor(private readonly sink: InflateSink) {}

  /** Bit (of the input pushed next) where a raw span stops: the block boundary of the next checkpoint. */
  private stopBit = -1;

  /**
   * Resumes raw DEFLATE data at a block boundary: the first `skipBits` bits of the first pushed byte are not
   * this stream's, `window` is the output before it, and decoding stops at the block boundary at bit
   * `stopBit` of the pushed input (or at the final block). What gzipIndex.ts uses when Node's zlib cannot
   * resume there (a stored block in a span that starts inside a byte).
   */
  resumeRaw(window: Uint8Array, skipBits: number, stopBit: number): void {
    this.out.set(window, 0);
    this.op = this.emitFrom = window.length;
    this.memberOut = window.length;
    this.pos = skipBits;
    this.stopBit = stopBit;
    this.mode = Mode.BlockStart;
  }

  /** Uncompressed offset of the next byte to be decoded. */
  get offset(): number {
    return this.emitted + (this.op - this.emitFrom);
  }

  /** Appends compressed bytes and decodes as far as they go (`final`: no more will come). */
  push(chunk: Uint8Array, final = false): void {
    const keep = this.len - (this.pos >>> 3);
    if (keep + chunk.length + PAD > this.buf.length) {
      const b = new Uint8Array(Math.max(2 * this.buf.length, keep + chunk.length + PAD));
      b.set(this.buf.subarray(this.pos >>> 3, this.len));
      this.buf = b;
    } else this.buf.copyWithin(0, this.pos >>> 3, this.len);
    this.base += this.pos >>> 3;
    this.pos &= 7;
    this.buf.set(chunk, keep);
    this.len = keep + chunk.length;
    this.buf.fill(0, this.len, this.len + PAD);
    this.run(final);
  }

  /** Hands on the output decoded so far (after an early end of the input: what was read before it). */
  drain(): void {
    if (this.op < this.emitFrom) return;
    this.flushOut(false);
  }

  /** True when the input so far ends exactly after a complete member (nothing pending). */
  get complete(): boolean {
    return this.mode === Mode.AfterMember && this.len - (this.pos >>> 3) === 0;
  }

  private fail(reason: string): never {
    // a code read from the zero padding after the input's end is an early end, not damage
    const early = /\bends\b/.test(reason) || this.pos > this.len * 8;
    throw new InflateError(
      this.base + Math.min(this.pos >>> 3, this.len),
      early && !/\bends\b/.test(reason) ? 'the file ends inside the compressed data (truncated)' : reason,
      early,
    );
  }

  private bits(n: number): number {
    const p = this.pos,
      i = p >>> 3,
      b = this.buf;
    const v = ((b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> (p & 7)) & ((1 << n) - 1);
    this.pos = p + n;
    return v;
  }

  private run(final: boolean): void {
    for (;;) {
      const have = this.len - (this.pos >>> 3);
      switch (this.mode) {
        case Mode.Done:
          return;
        case Mode.Ignore:
          this.trailing += have;
          this.pos = this.len * 8;
          return;
        case Mode.AfterMember:
          if (have === 0) return;
          this.mode = Mode.MemberHeader;
          break;
        case Mode.MemberHeader:
          if (!this.memberHeader(final)) return;
          break;
        case Mode.BlockStart:
          if (have < HEADER_BYTES && !final) return;
          this.blockHeader();
          break;
        case Mode.Codes:
          if (!this.codes(final)) return;
          break;
        case Mode.Stored:
          if (!this.stored(final)) return;
          break;
        case Mode.Trailer:
          if (!this.trailer(final)) return;
          break;
      }
    }
  }

  /** The gzip member header (RFC 1952 §2.3); false when more input is needed. */
  private memberHeader(final: boolean): boolean {
    const b = this.buf,
      s = this.pos >>> 3,
      end = this.len;
    const need = (n: number): boolean => {
      if (s + n <= end) return true;
      if (final) this.fail('the file ends inside a gzip member header');
      return false;
    };
    if (this.members > 0 && (b[s] !== 0x1f || (s + 1 < end && b[s + 1] !== 0x8b))) {
      // bytes after the last member that are no member (zero padding, a tool's trailer): ignored, as gzip -d does
      this.trailing = end - s;
      this.pos = end * 8;
      this.mode = Mode.Ignore;
      return true;
    }
    if (!need(10)) return false;
    if (b[s] !== 0x1f || b[s + 1] !== 0x8b) this.fail('is not gzip');
    if (b[s + 2] !== 8) this.fail('uses a compression method other than deflate');
    const flg = b[s + 3];
    if (flg & 0xe0) this.fail('has reserved gzip header flags set');
    let p = s + 10;
    if (flg & 4) {
      if (!need(p - s + 2)) return false;
      p += 2 + (b[p] | (b[p + 1] << 8));
      if (!need(p - s)) return false;
    }
    for (const bit of [8, 16]) {
      if (!(flg & bit)) continue;
      const z = b.indexOf(0, p);
      if (z < 0 || z >= end) {
        if (end - s > HEADER_BYTES * 64) this.fail('a gzip header name or comment is longer than 64 KiB');
        return need(end - s + 1);
      }
      p = z + 1;
    }
    if (flg & 2) p += 2;
    if (!need(p - s)) return false;
    this.pos = p * 8;
    this.mode = Mode.BlockStart;
    this.memberOut = 0;
    this.crc = 0;
    this.last = false;
    return true;
  }

  private blockHeader(): void {
    if (this.stopBit >= 0 && this.base * 8 + this.pos >= this.stopBit) {
      this.flushOut(false);
      this.mode = Mode.Done;
      return;
    }
    if (this.pos >>> 3 >= this.len) this.fail('the file ends inside the compressed data (truncated)');
    const at = this.offset;
    const wlen = Math.min(this.memberOut, WINDOW_BYTES);
    this.sink.boundary(this.base * 8 + this.pos, at, this.out.subarray(this.op - wlen, this.op), this.memberOut === 0);
    this.last = this.bits(1) === 1;
    const type = this.bits(2);
    if (type === 0) {
      this.pos = (this.pos + 7) & ~7;
      const i = this.pos >>> 3,
        b = this.buf;
      if (i + 4 > this.len) this.fail('the file ends inside a stored block header (truncated)');
      const n = b[i] | (b[i + 1] << 8),
        nn = b[i + 2] | (b[i + 3] << 8);
      if ((n ^ 0xffff) !== nn) this.fail('a stored block length does not match its complement');
      this.pos += 32;
      this.storedLeft = n;
      this.sink.stored?.();
      this.mode = Mode.Stored;
    } else if (type === 1) {
      this.lit = FIXED_LIT;
      this.dist = FIXED_DIST;
      this.mode = Mode.Codes;
    } else if (type === 2) {
      this.dynamicTables();
      this.mode = Mode.Codes;
    } else this.fail('invalid deflate block type 3');
  }

  /** A dynamic block's code lengths and its two codes (RFC 1951 §3.2.7). */
  private dynamicTables(): void {
    const nlen = this.bits(5) + 257,
      ndist = this.bits(5) + 1,
      ncode = this.bits(4) + 4;
    if (nlen > 286 || ndist > 30) this.fail('too many length or distance codes in a dynamic block');
    const cl = new Uint8Array(19);
    for (let k = 0; k < ncode; k++) cl[CLEN_ORDER[k]] = this.bits(3);
    const ct = buildTable(cl, 19, false);
    if (!ct) this.fail('invalid code-length code in a dynamic block');
    const L = this.lengths;
    L.fill(0);
    for (let k = 0; k < nlen + ndist; ) {
      const e = ct.t[this.peek(ct.mask)];
      if ((e & 15) === 0) this.fail('invalid code-length code');
      this.pos += e & 15;
      const sym = e >>> 4;
      if (sym < 16) L[k++] = sym;
      else {
        let rep: number,
          v = 0;
        if (sym === 16) {
          if (k === 0) this.fail('a repeat with no previous length');
          v = L[k - 1];
          rep = 3 + this.bits(2);
        } else if (sym === 17) rep = 3 + this.bits(3);
        else rep = 11 + this.bits(7);
        if (k + rep > nlen + ndist) this.fail('code lengths run past the codes of a dynamic block');
        L.fill(v, k, k + rep);
        k += rep;
      }
    }
    if (L[256] === 0) this.fail('a dynamic block without an end-of-block code');
    const lit = buildTable(L.subarray(0, nlen), nlen, false);
    const dist = buildTable(L.slice(nlen, nlen + ndist), ndist, true);
    if (!lit || !dist) this.fail('invalid Huffman code lengths in a dynamic block');
    this.lit = lit;
    this.dist = dist;
  }

  private peek(mask: number): number {
    const p = this.pos,
      i = p >>> 3,
      b = this.buf;
    return ((b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)) >>> (p & 7)) & mask;
  }

  /** Hands on the output not yet handed on, and slides the window down when the buffer is full. */
  private flushOut(slide: boolean): void {
    if (this.op > this.emitFrom) {
      this.crc = crc32(this.out.subarray(this.emitFrom, this.op), this.crc);
      this.sink.data(this.out, this.emitFrom, this.op, this.emitted);
      this.emitted += this.op - this.emitFrom;
      this.emitFrom = this.op;
    }
    if (slide && this.op > WINDOW_BYTES) {
      this.out.copyWithin(0, this.op - WINDOW_BYTES, this.op);
      this.op = this.emitFrom = WINDOW_BYTES;
    }
  }

  /**
   * The symbols of a Huffman-coded block until its end-of-block code; false when the input in hand runs
   * short (suspended between two symbols). The decode loop is inlined (bit reads, table lookups, copies).
   */
  private codes(final: boolean): boolean {
    const b = this.buf,
      out = this.out,
      lt = this.lit.t,
      lm = this.lit.mask,
      dt = this.dist.t,
      dm = this.dist.mask;
    const stopBit = final ? this.len * 8 + 1 : (this.len - SAFE_BYTES) * 8;
    const outLimit = WINDOW_BYTES + OUT_CHUNK;
    let p = this.pos,
      op = this.op,
      memberOut = this.memberOut,
      before = op;
    for (;;) {
      if (p >= stopBit) {
        this.pos = p;
        this.memberOut = memberOut;
        // at the input's end, the symbol that ran past it was decoded from padding: its output is dropped
        this.op = final ? before : op;
        if (final) this.fail('the file ends inside the compressed data (truncated)');
        return false;
      }
      before = op;
      if (op >= outLimit) {
        this.op = op;
        this.memberOut = memberOut;
        this.pos = p;
        this.flushOut(true);
        op = this.op;
      }
      let i = p >>> 3;
      const e = lt[((b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)) >>> (p & 7)) & lm];
      const n = e & 15;
      if (n === 0) {
        this.pos = p;
        this.fail('invalid literal/length code');
      }
      p += n;
      const sym = e >>> 4;
      if (sym < 256) {
        out[op++] = sym;
        memberOut++;
        continue;
      }
      if (sym === 256) break;
      const li = sym - 257;
      if (li >= 29) {
        this.pos = p;
        this.fail('invalid length code');
      }
      let length = LEN_BASE[li];
      const le = LEN_EXTRA[li];
      if (le) {
        i = p >>> 3;
        length += ((b[i] | (b[i + 1] << 8)) >>> (p & 7)) & ((1 << le) - 1);
        p += le;
      }
      i = p >>> 3;
      const de = dt[((b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)) >>> (p & 7)) & dm];
      const dn = de & 15;
      const ds = de >>> 4;
      if (dn === 0 || ds >= 30) {
        this.pos = p;
        this.fail('invalid distance code');
      }
      p += dn;
      let dist = DIST_BASE[ds];
      const xe = DIST_EXTRA[ds];
      if (xe) {
        i = p >>> 3;
        dist += ((b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)) >>> (p & 7)) & ((1 << xe) - 1);
        p += xe;
      }
      if (dist > memberOut) {
        this.pos = p;
        this.fail('a distance reaches back before the start of the member');
      }
      let from = op - dist;
      const end = op + length;
      // short copies byte by byte (a call to copyWithin costs more than ~32 byte moves); overlapping ones must be
      if (length > 32 && dist >= length) {
        out.copyWithin(op, from, from + length);
        op = end;
      } else while (op < end) out[op++] = out[from++];
      memberOut += length;
    }
    this.pos = p;
    this.op = op;
    this.memberOut = memberOut;
    this.endOfBlock();
    return true;
  }

  private stored(final: boolean): boolean {
    while (this.storedLeft > 0) {
      const i = this.pos >>> 3,
        avail = this.len - i;
      if (avail === 0) {
        if (final) this.fail('the file ends inside a stored block (truncated)');
        return false;
      }
      const room = WINDOW_BYTES + OUT_CHUNK - this.op;
      if (room <= 0) {
        this.flushOut(true);
        continue;
      }
      const n = Math.min(this.storedLeft, avail, room);
      this.out.set(this.buf.subarray(i, i + n), this.op);
      this.op += n;
      this.memberOut += n;
      this.pos += 8 * n;
      this.storedLeft -= n;
    }
    this.endOfBlock();
    return true;
  }

  private endOfBlock(): void {
    if (!this.last) {
      this.mode = Mode.BlockStart;
      return;
    }
    this.flushOut(false);
    if (this.stopBit >= 0) {
      this.mode = Mode.Done;
      return;
    }
    this.pos = (this.pos + 7) & ~7;
    this.mode = Mode.Trailer;
  }

  /** CRC-32 and ISIZE of the member (RFC 1952 §2.3.1). */
  private trailer(final: boolean): boolean {
    const i = this.pos >>> 3,
      b = this.buf;
    if (i + 8 > this.len) {
      if (final) this.fail('the file ends before the gzip trailer (truncated)');
      return false;
    }
    const crc = (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
    const size = (b[i + 4] | (b[i + 5] << 8) | (b[i + 6] << 16) | (b[i + 7] << 24)) >>> 0;
    if (crc !== this.crc >>> 0) this.fail('the data fails its gzip CRC-32 check (the file is damaged)');
    if (size !== this.memberOut % 2 ** 32) this.fail('the data fails its gzip length check (the file is damaged)');
    this.sink.memberEnd(this.base * 8 + this.pos, this.base + i + 8, this.offset);
    this.pos += 64;
    this.members++;
    this.mode = Mode.AfterMember;
    // the window does not reach into the next member
    this.op = this.emitFrom = 0;
    return true;
  }
}
