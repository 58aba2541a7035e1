/**
 * Where a recording's uncompressed bytes come from, while it is indexed (a Feed: plain JSON Lines, blocked
 * gzip through bgzfSplitter.ts, plain gzip through inflate.ts building its access index) and afterwards (a
 * RangeSource: any uncompressed byte range, read through the BGZF block table or the gzip access index).
 */
import * as fs from 'node:fs';
import { BGZF_MAX_BLOCK, bgzfBlockSize, inflateBlock, isGzip } from './bgzf.js';
import { BgzfSplitter, type BlockTable, type DamagedBlock } from './bgzfSplitter.js';
import { GZIP_SPAN, type GzipIndex, GzipIndexBuilder, GzipRangeReader } from './gzipIndex.js';
import { GzipInflater, InflateError } from './inflate.js';
import { FormatError } from './messages.js';
import type { Indexer } from './recordingIndexer.js';

/** Uncompressed byte ranges of a compressed recording. */
export interface RangeSource {
  readonly kind: 'bgzf' | 'gzip';
  /** Bytes [offset, offset + length), read-only (perhaps a view of data the source keeps); `changed` is called when the file no longer holds them. */
  read(offset: number, length: number, changed: (why: string) => never): Buffer;
  /** Memory the table or index holds (bytes). */
  readonly bytes: number;
  /** Drops the data kept from the last read. */
  forget(): void;
}

/** A blocked-gzip file read through its block table: just the blocks that hold a range are inflated. */
export class BgzfRanges implements RangeSource {
  readonly kind = 'bgzf' as const;
  /** The block inflated last (index in the block table, uncompressed bytes): consecutive frames share blocks. */
  private lastBlock: { readonly index: number; readonly data: Buffer } | null = null;
  constructor(
    private readonly fd: () => number,
    readonly table: BlockTable,
  ) {}
  get bytes(): number {
    return this.table.c.byteLength + this.table.u.byteLength;
  }
  forget(): void {
    this.lastBlock = null;
  }
  read(offset: number, length: number, changed: (why: string) => never): Buffer {
    const t = this.table;
    const b0 = t.find(offset),
      b1 = t.find(offset + Math.max(0, length - 1));
    const cached = this.lastBlock !== null && this.lastBlock.index === b0 && b0 === b1 ? this.lastBlock.data : null;
    const raw = cached ? null : readExactly(this.fd(), t.c[b0], t.c[b1 + 1] - t.c[b0], changed);
    const out = Buffer.allocUnsafe(length);
    let written = 0;
    for (let b = b0; b <= b1; b++) {
      let data: Buffer;
      try {
        data = cached ?? inflateBlock(raw!.subarray(t.c[b] - t.c[b0], t.c[b + 1] - t.c[b0]), BGZF_MAX_BLOCK);
      } catch {
        return changed(`the compressed block at byte ${t.c[b]} no longer decompresses`);
      }
      if (b === b1) this.lastBlock = { index: b, data };
      const from = Math.max(0, offset - t.u[b]),
        to = Math.min(data.length, offset + length - t.u[b]);
      if (to > from) written += data.copy(out, written, from, to);
    }
    if (written !== length) changed('a compressed block holds fewer bytes than when it was indexed');
    return out;
  }
}

/** A plain gzip file read through its access index (gzipIndex.ts). */
export class GzipRanges implements RangeSource {
  readonly kind = 'gzip' as const;
  private readonly reader: GzipRangeReader;
  constructor(
    fd: () => number,
    readonly index: GzipIndex,
  ) {
    this.reader = new GzipRangeReader(fd, index);
  }
  get bytes(): number {
    return this.index.bytes;
  }
  forget(): void {
    this.reader.forget();
  }
  read(offset: number, length: number, changed: (why: string) => never): Buffer {
    return this.reader.read(offset, length, changed);
  }
}

/** `length` bytes of the file at `position` (positioned reads until done). */
export function readExactly(fd: number, position: number, length: number, changed: (why: string) => never, into?: Buffer): Buffer {
  const buf = into ?? Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, position + got);
    if (n === 0) changed('unexpected end of file');
    got += n;
  }
  return buf;
}

/** Where the file's bytes go while indexing: straight to the indexer, or through a decompressor. */
export interface Feed {
  push(buf: Buffer, n: number): void;
  /** End of file; the range source of a compressed file and a warning, if any. */
  end(): { ranges: RangeSource | null; warning: string | null };
}

/** A Zstandard frame's magic number (RFC 8878 §3.1.1), little-endian on disk. */
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd] as const;

/**
 * The feed for a file whose first n bytes are in `first`. A Zstandard file is refused in one line: a seek into
 * a zstd frame needs the decoder's whole state (a window of 2–8 MiB at zstd's levels 3–19, its entropy tables and repeat offsets),
 * which no maintained npm decoder exposes, so it would re-decode from the file's start (docs/recording-format.md).
 */
export function feedFor(file: string, ix: Indexer, first: Buffer, n: number, fd: () => number): Feed {
  let pos = 0;
  const head = first.subarray(0, n);
  if (n >= 4 && ZSTD_MAGIC.every((b, k) => head[k] === b))
    throw new FormatError(
      file,
      '(compression)',
      'is Zstandard-compressed, which recordings are not read as: decompress it (`zstd -d`) or compress the recording with gzip (`gzip`, or `contact-lens compress` for blocked gzip) — see the recording format',
    );
  if (!isGzip(head))
    return {
      push: (buf, k) => {
        ix.push(buf, k, pos);
        pos += k;
      },
      end: () => ({ ranges: null, warning: null }),
    };
  const size = bgzfBlockSize(head, 0);
  if (typeof size === 'string' && /plain gzip/.test(size)) return plainGzipFeed(file, ix, fd);
  const sp = new BgzfSplitter(file);
  const sink = { data: (data: Buffer, k: number, at: number): void => ix.push(data, k, at), damaged: (d: DamagedBlock): void => ix.damaged(d) };
  return {
    push: (buf, k) => sp.push(buf, k, sink),
    end: () => {
      const warning = sp.end();
      return { ranges: new BgzfRanges(fd, sp.table), warning };
    },
  };
}

/**
 * Plain gzip: inflated by inflate.ts, which keeps the access index. Its only checksum is at the end of each
 * member (RFC 1952 §2.3.1), so damaged data is refused whole — the bytes inflated before the damage was found
 * cannot be trusted; a file that just ends early (an interrupted writer) keeps the frames before its end, with
 * a warning that they were not checked.
 */
function plainGzipFeed(file: string, ix: Indexer, fd: () => number): Feed {
  const builder = new GzipIndexBuilder((out, from, to, at) => {
    const b = Buffer.from(out.buffer, out.byteOffset + from, to - from);
    ix.push(b, b.length, at);
  }, GZIP_SPAN);
  const inflater = new GzipInflater(builder);
  let compressed = 0,
    truncated: InflateError | null = null;
  const refuse = (e: InflateError): never => {
    throw new FormatError(
      file,
      '(compression)',
      `${e.reason} at compressed byte ${e.byte}: a plain gzip file is checked only at the end of each member, so nothing read from it can be trusted and the file is not read (blocked gzip, as \`contact-lens simulate --gzip\` or \`contact-lens compress\` write it, loses only a damaged block)`,
    );
  };
  const guarded = (f: () => void): void => {
    if (truncated) return;
    try {
      f();
    } catch (e) {
      if (!(e instanceof InflateError)) throw e;
      if (!e.truncated) refuse(e);
      truncated = e;
      inflater.drain();
    }
  };
  return {
    push: (buf, k) => {
      compressed += k;
      guarded(() => inflater.push(buf.subarray(0, k)));
    },
    end: () => {
      guarded(() => inflater.push(new Uint8Array(0), true));
      const index = builder.index;
      let warning: string | null = null;
      if (truncated) {
        if (index.count === 0) refuse(truncated);
        // the unfinished member's data runs to the end of the file
        index.memberEnded(compressed * 8, inflater.offset);
        warning = `the file ends inside its gzip data at compressed byte ${(truncated as InflateError).byte} (it was truncated: the writer may have been interrupted); the frames before the end are read, not checked by the gzip CRC-32 that a complete file ends with`;
      }
      if (inflater.trailing > 0) warning = `${inflater.trailing} bytes after the last gzip member are not gzip data; they are ignored (as gzip -d does)`;
      index.seal();
      return { ranges: new GzipRanges(fd, index), warning };
    },
  };
}
