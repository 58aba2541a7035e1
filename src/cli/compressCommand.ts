/**
 * `contact-lens compress <in.rec.jsonl[.gz]> <out.rec.jsonl.gz> [--force]`: rewrites a recording (plain JSON
 * Lines, blocked gzip, or any gzip of it) as blocked gzip (src/format/bgzf.ts), which the reader seeks in
 * frame by frame. A byte-level copy of the recording's complete lines (the content is not re-serialised).
 *
 * What it promises: the output holds exactly the frames the reader finds in the input, byte for byte —
 * checked after writing (frame numbers and a CRC-32 of every frame line, against those indexed while the
 * input was read), or the command refuses and writes nothing. A damaged compressed stretch of the input
 * costs the lines in it (said on stderr), as the reader skips it. The output is written under a temporary
 * name and renamed when complete (OutputFile): never onto the input (by device and inode), and an existing
 * output is only replaced, with --force, by a complete and verified file.
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { BGZF_BLOCK_DATA, BGZF_EOF, bgzfBlock, bgzfBlockSize, isGzip } from '../format/bgzf.js';
import { BgzfSplitter, type DamagedBlock } from '../format/bgzfSplitter.js';
import { fileKind } from '../format/inputFile.js';
import { FormatError, safePath } from '../format/messages.js';
import { CHUNK_BYTES, MAX_BLANK_LINES, RecordingReader, StreamIndex } from '../format/recordingFile.js';
import { crc32 } from '../format/bgzf.js';
import { parseArgs, UsageError } from './args.js';
import { describeFsError, errnoCode, FileError, OutputFile, withFileErrors, type Output } from './output.js';
import { requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { formatCount, formatNumber } from '../engine/index.js';

export const COMPRESS_HELP: CommandHelp = {
  command: 'compress',
  synopsis: 'compress <in.rec.jsonl | in.rec.jsonl.gz> <out.rec.jsonl.gz> [--force]',
  summary: 'rewrites a recording as blocked gzip (BGZF), which opens and seeks frame by frame',
  description: [
    'Copies a recording (plain JSON Lines or any gzip of it) into blocked gzip (BGZF): about a tenth of the size,',
    'and the inspector still seeks frame by frame (docs/recording-format.md). The content is not changed.',
  ],
  options: [['--force', 'replace an existing output file']],
  example: 'compress examples/foreign-engine.rec.jsonl foreign-engine.rec.jsonl.gz',
};

/** What the input decodes to: uncompressed bytes, or a damaged compressed stretch. */
type Piece = { readonly data: Buffer } | { readonly damaged: DamagedBlock };

async function* plainPieces(fd: number): AsyncGenerator<Piece> {
  for (let pos = 0; ; ) {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    const n = await readAt(fd, buf, pos);
    if (n === 0) return;
    yield { data: buf.subarray(0, n) };
    pos += n;
  }
}

/** Blocked gzip, block by block; a damaged block is skipped (bgzfSplitter.ts). */
async function* bgzfPieces(fd: number, file: string): AsyncGenerator<Piece> {
  const sp = new BgzfSplitter(file);
  const out: Piece[] = [];
  const sink = { data: (d: Buffer, n: number) => out.push({ data: Buffer.from(d.subarray(0, n)) }), damaged: (d: DamagedBlock) => out.push({ damaged: d }) };
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  for (let pos = 0; ; ) {
    const n = await readAt(fd, buf, pos);
    if (n === 0) break;
    sp.push(buf, n, sink);
    pos += n;
    yield* out.splice(0);
  }
  sp.end();
}

/**
 * Plain gzip (members without BGZF's size field), streamed through zlib. Its only checksum is at the end of
 * each member (RFC 1952 §2.3.1: CRC-32 and size), so bytes inflated before a damage is found may already be
 * wrong, and where a member starts is not known without inflating it: a damaged plain gzip file is refused
 * as a whole (nothing is written) — unlike blocked gzip, whose every block is checked before it is used.
 */
async function* gzipPieces(fd: number, input: string): AsyncGenerator<Piece> {
  const gz = zlib.createGunzip();
  const out: Buffer[] = [];
  let failure: Error | null = null,
    ended = false;
  /** Resolves the write being waited for (zlib may not call a write's callback after an error). */
  let wake: (() => void) | null = null;
  gz.on('data', (d: Buffer) => out.push(d));
  gz.on('error', (e: Error) => {
    failure = e;
    wake?.();
  });
  gz.on('end', () => {
    ended = true;
  });
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let pos = 0;
  for (;;) {
    const n = fs.readSync(fd, buf, 0, CHUNK_BYTES, pos); // synchronous: the descriptor is never read after we return
    if (n === 0) break;
    await new Promise<void>((r) => {
      wake = r;
      gz.write(Buffer.from(buf.subarray(0, n)), () => r());
    });
    wake = null;
    pos += n;
    if (failure) break;
    yield* out.splice(0).map((data) => ({ data }));
  }
  if (!failure) {
    gz.end();
    while (!ended && !failure) await new Promise((r) => setImmediate(r));
  }
  const f = failure as Error | null;
  if (f)
    throw new FileError(
      input,
      `cannot be decompressed (${f.message}): a plain gzip file is checked only at the end of each member, so nothing read from it can be trusted and nothing was written (blocked gzip, as \`contact-lens simulate --gzip\` writes it, loses only a damaged block)`,
    );
  yield* out.splice(0).map((data) => ({ data }));
}

function readAt(fd: number, buf: Buffer, pos: number): Promise<number> {
  return new Promise((resolve, reject) => fs.read(fd, buf, 0, buf.length, pos, (err, n) => (err ? reject(err) : resolve(n))));
}

/**
 * Writes complete lines as BGZF blocks: the bytes after a line's last newline are held back until its
 * newline comes (or dropped, with the line, when a damaged stretch cuts it), so the output holds the lines
 * the reader indexes, and the bytes around a damaged stretch never join into a line that was not written.
 */
class LineBlocks {
  private out: Buffer[] = [];
  private outBytes = 0;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private skipToNewline = false;
  bytesIn = 0;
  constructor(
    private readonly fd: number,
    private readonly path: string,
  ) {}

  data(buf: Buffer): void {
    let s = 0;
    if (this.skipToNewline) {
      const nl = buf.indexOf(10);
      if (nl < 0) return;
      this.skipToNewline = false;
      s = nl + 1;
    }
    const last = buf.lastIndexOf(10);
    if (last < s) {
      this.hold(buf.subarray(s));
      return;
    }
    for (const h of this.held) this.emit(h);
    this.held = [];
    this.heldBytes = 0;
    this.emit(buf.subarray(s, last + 1));
    this.hold(buf.subarray(last + 1));
  }

  damaged(): void {
    this.held = [];
    this.heldBytes = 0;
    this.skipToNewline = true;
  }

  end(): void {
    if (!this.skipToNewline) for (const h of this.held) this.emit(h); // a last line without a newline: kept as it was
    this.held = [];
    this.flush(true);
    this.write(BGZF_EOF);
  }

  private hold(b: Buffer): void {
    if (b.length === 0) return;
    this.held.push(Buffer.from(b)); // copy: the input's buffers are reused
    this.heldBytes += b.length;
  }

  private emit(b: Buffer): void {
    if (b.length === 0) return;
    this.bytesIn += b.length;
    this.out.push(Buffer.from(b));
    this.outBytes += b.length;
    if (this.outBytes >= BGZF_BLOCK_DATA) this.flush(false);
  }

  /** Whole blocks of BGZF_BLOCK_DATA bytes; at the end the rest as a short block. */
  private flush(all: boolean): void {
    if (this.outBytes === 0) return;
    const data = Buffer.concat(this.out, this.outBytes);
    const whole = all ? data.length : data.length - (data.length % BGZF_BLOCK_DATA);
    const blocks: Buffer[] = [];
    for (let p = 0; p < whole; p += BGZF_BLOCK_DATA) blocks.push(bgzfBlock(data.subarray(p, Math.min(whole, p + BGZF_BLOCK_DATA))));
    this.write(Buffer.concat(blocks));
    this.out = whole < data.length ? [data.subarray(whole)] : [];
    this.outBytes = data.length - whole;
  }

  private write(data: Buffer): void {
    withFileErrors(this.path, 'write', () => {
      for (let done = 0; done < data.length; ) done += fs.writeSync(this.fd, data, done, data.length - done);
    });
  }
}

/** The input opened once, as a regular file (a FIFO or device is refused, never read). */
function openInput(input: string): { fd: number; head: Buffer } {
  return withFileErrors(input, 'read', () => {
    const fd = fs.openSync(input, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      fs.closeSync(fd);
      throw new FileError(input, `is ${fileKind(st)}, not a regular file; give the path of a recording`);
    }
    const head = Buffer.alloc(64);
    fs.readSync(fd, head, 0, head.length, 0);
    return { fd, head };
  });
}

export async function runCompress(argv: readonly string[], io: Output): Promise<number> {
  const { positionals, options } = parseArgs(argv, [], ['force']);
  if (positionals.length !== 2) throw new UsageError(`expected an input and an output recording\nusage: contact-lens ${COMPRESS_HELP.synopsis}`);
  const [input, out] = positionals;
  requireKind(input, 'compress', ['recording']);
  // before anything is opened for writing: not the input (device and inode), a regular file, --force to replace
  const target = new OutputFile(out, options.get('force') === true, [input]);
  const t0 = performance.now();
  let opened: ReturnType<typeof openInput>;
  try {
    opened = openInput(input);
  } catch (e) {
    target.abandon(); // releases its Ctrl-C handler; nothing was written
    throw e;
  }
  const { fd, head } = opened;
  const lost: DamagedBlock[] = [];
  let outFd: number | null = null;
  try {
    const pieces = !isGzip(head) ? plainPieces(fd) : typeof bgzfBlockSize(head, 0) === 'number' ? bgzfPieces(fd, input) : gzipPieces(fd, input);
    outFd = withFileErrors(out, 'write', () => fs.openSync(target.tempPath, 'wx'));
    const blocks = new LineBlocks(outFd, out);
    const read = new StreamIndex(input); // the frames read: what the output must hold
    let pos = 0;
    for await (const p of pieces) {
      if ('damaged' in p) {
        lost.push(p.damaged);
        read.damaged(p.damaged);
        blocks.damaged();
        continue;
      }
      read.push(p.data, p.data.length, pos);
      pos += p.data.length;
      if (read.stopped) throw new FileError(input, `has more than ${MAX_BLANK_LINES} blank lines; not a recording to compress`);
      blocks.data(p.data);
    }
    const { errorCount } = read.end();
    blocks.end();
    withFileErrors(out, 'write', () => fs.fsyncSync(outFd!));
    fs.closeSync(outFd);
    outFd = null;
    const written = verify(target.tempPath, out, read);
    target.commit();
    const outSize = fs.statSync(out).size;
    io.err(
      `wrote ${safePath(out)}: ${formatNumber(blocks.bytesIn / 2 ** 20)} MiB of JSON Lines → ${formatNumber(outSize / 2 ** 20)} MiB blocked gzip (${formatNumber((100 * outSize) / Math.max(1, blocks.bytesIn))} %), ${formatCount(written, 'frame')} (checked against the input)${errorCount ? `, ${formatCount(errorCount, 'unreadable line')} kept as they were` : ''}, in ${formatNumber((performance.now() - t0) / 1000)} s`,
    );
    for (const d of lost)
      io.err(
        `warning: ${safePath(input)}: (compressed bytes at ${d.offset}): ${d.reason}; the lines there are lost and not in the output (the other frames are)`,
      );
    return 0;
  } catch (e) {
    if (outFd !== null) fs.closeSync(outFd);
    target.abandon(); // nothing is left behind; an existing output stays as it was
    if (e instanceof FileError || e instanceof FormatError || e instanceof UsageError || !errnoCode(e)) throw e;
    throw new FileError(input, describeFsError('read', e));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The frames of the written file against the frames read: the same count, and per frame the same frame
 * number and line bytes (CRC-32). Returns the frame count; throws (nothing is kept) on any difference.
 */
function verify(tempPath: string, out: string, read: StreamIndex): number {
  let r: RecordingReader;
  try {
    r = RecordingReader.openSync(tempPath);
  } catch (e) {
    if (e instanceof FormatError) throw new FileError(out, `the file written does not read back (${e.detail}); nothing was kept`);
    throw e;
  }
  try {
    const differ = (why: string): never => {
      throw new FileError(out, `the file written does not hold the frames read (${why}); nothing was kept`);
    };
    if (r.frameCount !== read.frames.length) differ(`${r.frameCount} frames written, ${read.frames.length} read`);
    for (let i = 0; i < r.frameCount; i++) {
      const frame = r.summary(i).frame;
      if (frame !== read.frames[i] || crc32(r.rawLine(i)) !== read.digests[i]) differ(`frame ${frame} differs`);
    }
    return r.frameCount;
  } finally {
    r.close();
  }
}
