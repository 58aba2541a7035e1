/**
 * Reading a blocked-gzip (BGZF) file chunk by chunk: the splitter cuts the compressed bytes into blocks,
 * inflates each, hands the uncompressed bytes on with their position in the uncompressed stream and keeps
 * the block table. A damaged block (it does not inflate, its CRC-32 or size does not match, its header is
 * broken) costs only its own bytes, as a damaged line costs one line: the splitter reports a gap and reads
 * on from the next block header it finds (a BGZF header is 18 fixed-layout bytes, SAM/BAM specification
 * §4.1), so the frames in the other blocks stay readable.
 */
import { BGZF_MAX_BLOCK, bgzfBlockSize, inflateBlock } from './bgzf.js';
import { FormatError } from './messages.js';

/**
 * Block table of a blocked-gzip recording: where each block starts on disk (`c`) and in the uncompressed
 * stream (`u`), with a sentinel after the last block. 16 bytes per 64 KiB block. A damaged stretch has an
 * entry of its own with the `u` of the block after it, so no uncompressed offset maps into it.
 */
export class BlockTable {
  count = 0;
  c = new Float64Array(64);
  u = new Float64Array(64);
  add(c: number, u: number): void {
    if (this.count + 1 >= this.c.length) {
      const c2 = new Float64Array(2 * this.c.length),
        u2 = new Float64Array(2 * this.u.length);
      c2.set(this.c);
      u2.set(this.u);
      this.c = c2;
      this.u = u2;
    }
    this.c[this.count] = c;
    this.u[this.count] = u;
    this.count++;
  }
  /** The block holding uncompressed byte `offset`: the last block starting at or before it (binary search). */
  find(offset: number): number {
    let lo = 0,
      hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.u[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** A stretch of compressed bytes that could not be read: where it starts on disk, and why. */
export interface DamagedBlock {
  readonly offset: number;
  readonly reason: string;
}

/** Where the splitter's output goes: uncompressed bytes at their position, and damaged stretches. */
export interface SplitterSink {
  data(buf: Buffer, n: number, pos: number): void;
  /** A damaged stretch starts here: the line in progress is incomplete, the next one starts after a newline. */
  damaged(d: DamagedBlock): void;
}

/** Bytes of a BGZF block header that never change: ID1 ID2 CM FLG (FEXTRA) … XLEN = 6, "BC", SLEN = 2. */
const isBgzfHeaderAt = (b: Uint8Array, p: number): boolean =>
  b[p] === 0x1f &&
  b[p + 1] === 0x8b &&
  b[p + 2] === 8 &&
  b[p + 3] === 4 &&
  b[p + 10] === 6 &&
  b[p + 11] === 0 &&
  b[p + 12] === 0x42 &&
  b[p + 13] === 0x43 &&
  b[p + 14] === 2 &&
  b[p + 15] === 0;
const HEADER_PROBE = 16;
/** Smallest block: 18 header bytes, an empty deflate stream (2), 8 trailer bytes. */
const MIN_BLOCK = 28;

export class BgzfSplitter {
  readonly table = new BlockTable();
  private rest: Buffer = Buffer.alloc(0);
  /** File offset of rest[0], uncompressed bytes so far, and whether the last block was the empty EOF block. */
  private cPos = 0;
  uPos = 0;
  sawEof = false;
  /** Set while skipping a damaged stretch (looking for the next block header). */
  private skipping = false;
  /** Damaged stretches (all of them counted; compressed offsets of the first ones kept for messages). */
  damagedCount = 0;

  constructor(private readonly file: string) {}

  push(chunk: Buffer, n: number, sink: SplitterSink): void {
    const buf = this.rest.length ? Buffer.concat([this.rest, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    let p = 0;
    for (;;) {
      if (this.skipping) {
        const q = this.nextHeader(buf, p);
        if (q < 0) {
          p = Math.max(p, buf.length - HEADER_PROBE); // a header may start in the last bytes: look again with more
          break;
        }
        p = q;
        this.skipping = false;
      }
      const size = bgzfBlockSize(buf, p);
      if (typeof size === 'string') {
        if (this.cPos + p === 0) throw this.notBgzf(size); // the file itself is not blocked gzip
        this.damage(sink, p, `the block header is damaged (${size})`);
        p++;
        continue;
      }
      if (size === null || buf.length - p < size) break;
      if (size < MIN_BLOCK) {
        this.damage(sink, p, `the block size field says ${size} bytes`);
        p++;
        continue;
      }
      let data: Buffer;
      try {
        data = inflateBlock(buf.subarray(p, p + size), BGZF_MAX_BLOCK);
      } catch (e) {
        this.damage(sink, p, `cannot be decompressed (${(e as Error).message})`);
        p++;
        continue;
      }
      this.table.add(this.cPos + p, this.uPos);
      this.sawEof = data.length === 0;
      if (data.length) sink.data(data, data.length, this.uPos);
      this.uPos += data.length;
      p += size;
    }
    this.cPos += p;
    this.rest = Buffer.from(buf.subarray(p)); // copy: the chunk buffer is reused
  }

  /** End of file: a partial block is a truncated file (its frames are lost, earlier ones are kept). */
  end(): string | null {
    this.table.add(this.cPos, this.uPos); // sentinel
    if (this.skipping) return null; // the damaged stretch ran to the end of the file (reported as damage)
    if (this.rest.length > 0) return `the file ends inside a compressed block (${this.rest.length} bytes): it was truncated; the frames before it are read`;
    if (!this.sawEof) return 'has no blocked-gzip end-of-file block: the writer may have been interrupted';
    return null;
  }

  private damage(sink: SplitterSink, p: number, reason: string): void {
    this.table.add(this.cPos + p, this.uPos); // the damaged stretch: no uncompressed offset maps into it
    this.skipping = true;
    this.sawEof = false;
    this.damagedCount++;
    sink.damaged({ offset: this.cPos + p, reason });
  }

  /** Position of the next BGZF block header at or after p, or −1. */
  private nextHeader(buf: Buffer, p: number): number {
    for (let q = buf.indexOf(0x1f, p); q >= 0 && q + HEADER_PROBE <= buf.length; q = buf.indexOf(0x1f, q + 1)) {
      if (isBgzfHeaderAt(buf, q)) return q;
    }
    return -1;
  }

  private notBgzf(why: string): FormatError {
    return new FormatError(
      this.file,
      '(compression)',
      `${why}; compressed recordings must be blocked gzip so frames can be read without decompressing the whole file — write them with \`contact-lens simulate --gzip\`, or recompress with \`contact-lens compress <in> <out.rec.jsonl.gz>\` or htslib's \`bgzip\``,
    );
  }
}
