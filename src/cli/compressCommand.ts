/**
 * `contact-lens compress <in.rec.jsonl[.gz]> <out.rec.jsonl.gz> [--force]`: rewrites a recording (plain JSON
 * Lines, or any gzip of it) as blocked gzip (src/format/bgzf.ts), which the reader seeks in frame by frame.
 * A byte-level copy (the content is not re-serialised); the result is then opened and its frames counted.
 */
import * as fs from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import { BGZF_BLOCK_DATA, BGZF_EOF, bgzfBlock, isGzip } from '../format/bgzf.js';
import { RecordingReader } from '../format/recordingFile.js';
import { parseArgs, UsageError } from './args.js';
import { checkOutputTarget, describeFsError, errnoCode, FileError, type Output } from './output.js';
import { requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { formatCount, formatNumber } from '../engine/numberText.js';

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

/** Cuts the byte stream into BGZF blocks (full blocks of BGZF_BLOCK_DATA bytes, the rest at the end) and the EOF block. */
class BgzfBlocks extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  bytesIn = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytesIn += chunk.length;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= BGZF_BLOCK_DATA) {
      const all = Buffer.concat(this.pending, this.pendingBytes);
      const whole = all.length - (all.length % BGZF_BLOCK_DATA);
      for (let p = 0; p < whole; p += BGZF_BLOCK_DATA) this.push(bgzfBlock(all.subarray(p, p + BGZF_BLOCK_DATA)));
      this.pending = whole < all.length ? [all.subarray(whole)] : [];
      this.pendingBytes = all.length - whole;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.pendingBytes > 0) this.push(bgzfBlock(Buffer.concat(this.pending, this.pendingBytes)));
    this.push(BGZF_EOF);
    done();
  }
}

export async function runCompress(argv: readonly string[], io: Output): Promise<number> {
  const { positionals, options } = parseArgs(argv, [], ['force']);
  if (positionals.length !== 2) throw new UsageError(`expected an input and an output recording\nusage: contact-lens ${COMPRESS_HELP.synopsis}`);
  const [input, out] = positionals;
  requireKind(input, 'compress', ['recording']);
  if (fs.existsSync(out) && fs.realpathSync(out) === fs.realpathSync(input)) throw new UsageError(`${out}: is the input file; write to another path`);
  checkOutputTarget(out);
  if (fs.existsSync(out) && !options.get('force')) throw new UsageError(`${out}: already exists; refusing to overwrite it (use --force to replace it)`);
  let head: Buffer;
  try {
    const fd = fs.openSync(input, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    try {
      if (!fs.fstatSync(fd).isFile()) throw new FileError(input, 'is not a regular file; give the path of a recording');
      head = Buffer.alloc(2);
      fs.readSync(fd, head, 0, 2, 0);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if (e instanceof FileError || !errnoCode(e)) throw e;
    throw new FileError(input, describeFsError('read', e));
  }
  const t0 = performance.now();
  const blocks = new BgzfBlocks();
  const sink = (): fs.WriteStream => fs.createWriteStream(out, { flags: options.get('force') ? 'w' : 'wx' });
  try {
    if (isGzip(head)) await pipeline(fs.createReadStream(input), zlib.createGunzip(), blocks, sink());
    else await pipeline(fs.createReadStream(input), blocks, sink());
  } catch (e) {
    if (!errnoCode(e)) {
      fs.rmSync(out, { force: true }); // a corrupt gzip input leaves no half-written output
      throw new FileError(input, `cannot be decompressed (${(e as Error).message})`);
    }
    const path = (e as NodeJS.ErrnoException).path === input ? input : out;
    throw new FileError(path, describeFsError(path === input ? 'read' : 'write', e));
  }
  let reader: RecordingReader;
  try {
    reader = RecordingReader.openSync(out);
  } catch (e) {
    fs.rmSync(out, { force: true }); // not a recording: leave nothing behind
    throw e;
  }
  try {
    const size = fs.statSync(out).size;
    io.err(
      `wrote ${out}: ${formatNumber(blocks.bytesIn / 2 ** 20)} MiB of JSON Lines → ${formatNumber(size / 2 ** 20)} MiB blocked gzip (${formatNumber((100 * size) / Math.max(1, blocks.bytesIn))} %), ${formatCount(reader.frameCount, 'frame')}${reader.errorCount ? `, ${formatCount(reader.errorCount, 'unreadable line')} kept as they were` : ''}, in ${formatNumber((performance.now() - t0) / 1000)} s`,
    );
  } finally {
    reader.close();
  }
  return 0;
}
