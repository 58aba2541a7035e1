/**
 * Recording files on disk (Node): a streaming indexer/reader and an appending writer.
 *
 * RecordingReader reads the file ONCE, in 1 MiB chunks, validates every line and keeps only a frame
 * index (byte offset and length of each frame line) and a small columnar summary per frame (frame,
 * time, contact count, solver status, iterations, final residual, max λn, max depth). `frame(i)` then
 * reads and parses just that line. Bad lines do not abort: they are collected as errors
 * ("file: line N: field: detail") and left out of the index, so one broken frame or a truncated last
 * line (an engine killed while writing) still leaves every valid frame readable. The line splitting,
 * validation and index columns are in recordingIndexer.ts; blocked gzip is split in bgzfSplitter.ts.
 */
import * as fs from 'node:fs';
import { FormatError, safePath } from './messages.js';
import { BGZF_BLOCK_DATA, BGZF_EOF, bgzfBlock, inflateBlock, isGzip } from './bgzf.js';
import { BgzfSplitter, type BlockTable, type DamagedBlock } from './bgzfSplitter.js';
import {
  parseFrame,
  serializeFrame,
  serializeHeader,
  serializeInitial,
  validateInitial,
  type RecordedInitialState,
  validateFrame,
  validateHeader,
  type RecordedFrame,
  type RecordingHeader,
} from './recording.js';
import { serializeEnd } from './recordingEnd.js';
import { LiveSink } from './liveSink.js';
import type { LiveTarget } from './liveProtocol.js';
import { type Columns, decodeLine, type FrameSummary, Indexer, type OpenOptions, type RecordingIssue } from './recordingIndexer.js';

export {
  MAX_BLANK_LINES,
  MAX_KEPT_ERRORS,
  MAX_LINE_BYTES,
  StreamIndex,
  type FrameSummary,
  type OpenOptions,
  type RecordingIssue,
} from './recordingIndexer.js';

/** Bytes read per chunk while indexing. */
export const CHUNK_BYTES = 1 << 20;

/** Where the file's bytes go while indexing: straight to the indexer, or through the BGZF splitter. */
interface Feed {
  push(buf: Buffer, n: number): void;
  /** End of file; returns the block table (compressed files) and a warning, if any. */
  end(): { blocks: BlockTable | null; warning: string | null };
}

function feedFor(file: string, ix: Indexer, first: Buffer, n: number): Feed {
  let pos = 0;
  if (!isGzip(first.subarray(0, n)))
    return {
      push: (buf, k) => {
        ix.push(buf, k, pos);
        pos += k;
      },
      end: () => ({ blocks: null, warning: null }),
    };
  const sp = new BgzfSplitter(file);
  const sink = { data: (data: Buffer, k: number, at: number): void => ix.push(data, k, at), damaged: (d: DamagedBlock): void => ix.damaged(d) };
  return {
    push: (buf, k) => sp.push(buf, k, sink),
    end: () => {
      const warning = sp.end();
      return { blocks: sp.table, warning };
    },
  };
}

function readChunk(fd: number, buf: Buffer, pos: number): Promise<number> {
  return new Promise((resolve, reject) => fs.read(fd, buf, 0, buf.length, pos, (err, n) => (err ? reject(err) : resolve(n))));
}

/**
 * Opens a recording for reading, refusing anything that is not a regular file: a FIFO or a device such
 * as /dev/zero would block or never end (O_NONBLOCK so that opening a FIFO does not wait for a writer).
 */
function openRegularFile(file: string): number {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  const st = fs.fstatSync(fd);
  if (!st.isFile()) {
    fs.closeSync(fd);
    throw new FormatError(
      file,
      '(file)',
      `is not a regular file (${st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a named pipe' : 'a device or socket'}); a recording is a .rec.jsonl file`,
    );
  }
  return fd;
}

/** A recording opened for random access. Call close() when done. */
export class RecordingReader {
  private fd: number | null;

  private constructor(
    readonly file: string,
    fd: number,
    /** File size when indexed (bytes). */
    readonly size: number,
    readonly header: RecordingHeader,
    private readonly columns: Columns,
    /** Lines that were skipped (at most MAX_KEPT_ERRORS are kept; see errorCount). */
    readonly errors: readonly RecordingIssue[],
    readonly errorCount: number,
    /** Header warnings and (grouped) frame warnings. */
    readonly warnings: readonly string[],
    /** Time spent indexing (ms). */
    readonly indexMs: number,
  ) {
    this.fd = fd;
  }

  /** Indexes a recording in one streaming pass without blocking the event loop for long. */
  static async open(file: string, options: OpenOptions = {}): Promise<RecordingReader> {
    const t0 = performance.now();
    const fd = openRegularFile(file);
    try {
      const size = fs.fstatSync(fd).size;
      const ix = new Indexer(file, options.onFrame, options.validate);
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      let pos = 0,
        feed: Feed | null = null;
      for (;;) {
        options.signal?.throwIfAborted();
        const n = await readChunk(fd, buf, pos);
        if (n === 0) break;
        feed ??= feedFor(file, ix, buf, n);
        feed.push(buf, n);
        pos += n;
        options.onProgress?.(pos, Math.max(size, pos));
        if (ix.stopped) break;
      }
      return RecordingReader.finish(file, fd, pos, ix, feed, t0);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  /** The same as open(), synchronously (CLI and tests). */
  static openSync(file: string, options: Pick<OpenOptions, 'validate'> = {}): RecordingReader {
    const t0 = performance.now();
    const fd = openRegularFile(file);
    try {
      const ix = new Indexer(file, undefined, options.validate);
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      let pos = 0,
        feed: Feed | null = null;
      for (;;) {
        const n = fs.readSync(fd, buf, 0, buf.length, pos);
        if (n === 0) break;
        feed ??= feedFor(file, ix, buf, n);
        feed.push(buf, n);
        pos += n;
        if (ix.stopped) break;
      }
      return RecordingReader.finish(file, fd, pos, ix, feed, t0);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  private static finish(file: string, fd: number, size: number, ix: Indexer, feed: Feed | null, t0: number): RecordingReader {
    const { blocks, warning } = feed ? feed.end() : { blocks: null, warning: null };
    ix.end();
    const warnings = ix.warnings();
    if (warning && !ix.stopped) warnings.push(`${safePath(file)}: ${warning}`); // stopped: the rest was not read, on purpose
    const r = new RecordingReader(file, fd, size, ix.header!, ix.columns, ix.errors, ix.errorCount, warnings, performance.now() - t0);
    r.blocks = blocks;
    r.scannedLines = ix.scannedLines;
    r.parsedLines = ix.parsedLines;
    return r;
  }

  /** Block table of a blocked-gzip recording (null: plain JSON Lines). */
  private blocks: BlockTable | null = null;
  /** Frames indexed by the byte scanner without building objects ('on-read' validation) / by the validating parser. */
  scannedLines = 0;
  parsedLines = 0;

  /** True when the file is blocked gzip (read through its block table). */
  get compressed(): boolean {
    return this.blocks !== null;
  }

  /** Number of valid frames. */
  get frameCount(): number {
    return this.columns.count;
  }

  /** Bytes of memory the index holds (its columns, and the block table of a compressed file). */
  get indexBytes(): number {
    return this.columns.bytes + (this.blocks ? this.blocks.c.byteLength + this.blocks.u.byteLength : 0);
  }

  summary(i: number): FrameSummary {
    this.checkIndex(i);
    return this.columns.summary(i);
  }

  *summaries(): IterableIterator<FrameSummary> {
    for (let i = 0; i < this.columns.count; i++) yield this.columns.summary(i);
  }

  /** Index of the frame with this frame number, or −1 (binary search: frame numbers increase). */
  indexOfFrame(frameNumber: number): number {
    const fr = this.columns.frame;
    let lo = 0,
      hi = this.columns.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (fr[mid] === frameNumber) return mid;
      if (fr[mid] < frameNumber) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** The bytes of frame i's line as stored (uncompressed, without its newline), not parsed. */
  rawLine(i: number): Buffer {
    this.checkIndex(i);
    if (this.fd === null) throw new Error(`${this.file}: the recording is closed`);
    const c = this.columns;
    const changed = (why: string): never => {
      throw new FormatError(this.file, `line ${c.line[i]}`, `the file changed on disk since it was opened (${why}); reopen the recording`);
    };
    return this.blocks ? this.readInflated(this.blocks, c.offset[i], c.length[i], changed) : this.readRaw(this.fd, c.offset[i], c.length[i], changed);
  }

  /** Reads and parses frame i (one positioned read of its line). */
  frame(i: number): RecordedFrame {
    this.checkIndex(i);
    if (this.fd === null) throw new Error(`${this.file}: the recording is closed`);
    const c = this.columns;
    const offset = c.offset[i],
      length = c.length[i],
      line = c.line[i];
    const changed = (why: string): never => {
      throw new FormatError(this.file, `line ${line}`, `the file changed on disk since it was opened (${why}); reopen the recording`);
    };
    if (fs.fstatSync(this.fd).size < this.size) changed('it is shorter now');
    const buf = this.blocks ? this.readInflated(this.blocks, offset, length, changed) : this.readRaw(this.fd, offset, length, changed, this.lineBuffer(length));
    const previous = i > 0 ? { frame: c.frame[i - 1], time: c.time[i - 1] } : undefined;
    const f = parseFrame(decodeLine(buf, this.file, line), line, this.file, this.header, { previous });
    if (f.frame !== c.frame[i]) changed(`line ${line} now holds frame ${f.frame}, not ${c.frame[i]}`);
    return f;
  }

  /**
   * A buffer of `length` bytes for one frame line, reused by every frame(i): decodeLine copies the text out of
   * it, so a seek allocates no new multi-megabyte buffer (the reader keeps one, as long as its longest line).
   */
  private lineBuffer(length: number): Buffer {
    if (this.lineBytes === null || this.lineBytes.length < length) this.lineBytes = Buffer.allocUnsafe(length);
    return this.lineBytes.subarray(0, length);
  }
  private lineBytes: Buffer | null = null;

  private readRaw(fd: number, offset: number, length: number, changed: (why: string) => never, into?: Buffer): Buffer {
    const buf = into ?? Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = fs.readSync(fd, buf, got, length - got, offset + got);
      if (n === 0) changed('unexpected end of file');
      got += n;
    }
    return buf;
  }

  /** Uncompressed bytes [offset, offset + length): reads and inflates just the blocks that hold them. */
  private readInflated(t: BlockTable, offset: number, length: number, changed: (why: string) => never): Buffer {
    const b0 = t.find(offset),
      b1 = t.find(offset + Math.max(0, length - 1));
    // the last block inflated is kept: consecutive frames (playback, compress's check) share blocks
    const cached = this.lastBlock !== null && this.lastBlock.index === b0 && b0 === b1 ? this.lastBlock.data : null;
    const raw = cached ? null : this.readRaw(this.fd!, t.c[b0], t.c[b1 + 1] - t.c[b0], changed);
    const out = Buffer.allocUnsafe(length);
    let written = 0;
    for (let b = b0; b <= b1; b++) {
      let data: Buffer;
      try {
        data = cached ?? inflateBlock(raw!.subarray(t.c[b] - t.c[b0], t.c[b + 1] - t.c[b0]));
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

  /** The block readInflated inflated last (index in the block table, uncompressed bytes). */
  private lastBlock: { readonly index: number; readonly data: Buffer } | null = null;

  close(): void {
    this.lineBytes = null;
    this.lastBlock = null;
    if (this.fd !== null) {
      fs.closeSync(this.fd);
      this.fd = null;
    }
  }

  private checkIndex(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.columns.count)
      throw new RangeError(`${this.file}: frame index ${i} out of range 0…${this.columns.count - 1}`);
  }
}

export interface WriterOptions {
  /** Replace an existing file (default: refuse). */
  readonly force?: boolean;
  /** Validate every frame before writing it (default true). */
  readonly validate?: boolean;
  /** Write blocked gzip (BGZF: seekable, readable by gzip -d); default: plain JSON Lines. */
  readonly gzip?: boolean;
  /** The name messages give the file (default: its path): the final name of one written under a temporary name. */
  readonly name?: string;
  /**
   * Stream the same lines to the editor (docs/live-protocol.md): 'environment' (default) when the
   * CONTACT_LENS_LIVE variable is set, a target, or false.
   */
  readonly live?: 'environment' | LiveTarget | false;
  /** Write the closing line {"end": {"frames": N}} on close() (default true; docs/recording-format.md "Closing line"). */
  readonly end?: boolean;
}

/**
 * Writes a recording: the header when created, then frames in order. Buffered (flushed at 1 MiB, on
 * flush() and close()); every frame is validated first (unless validate: false), so what this writes
 * the reader accepts. Never overwrites an existing file unless { force: true }.
 */
export class RecordingWriter {
  private fd: number | null;
  private buffer: string[] = [];
  private bufferedChars = 0;
  private lineNo = 1;
  private prev: { frame: number; time: number } | undefined;
  private framesWritten = 0;

  private constructor(
    readonly file: string,
    fd: number,
    readonly header: RecordingHeader,
    readonly warnings: readonly string[],
    private readonly validate: boolean,
    private readonly gzip: boolean,
  ) {
    this.fd = fd;
  }

  static create(path: string, header: RecordingHeader, options: WriterOptions = {}): RecordingWriter {
    const file = options.name ?? path;
    const { header: checked, warnings } = validateHeader(header, file);
    // the editor's connection first: an explicit target that refuses throws before any file is touched
    const live = options.live ?? 'environment';
    const sink = live === 'environment' ? LiveSink.fromEnvironment() : live ? LiveSink.connect(live) : null;
    let fd: number;
    try {
      fd = fs.openSync(path, options.force ? 'w' : 'wx');
    } catch (e) {
      sink?.close();
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new Error(`${safePath(file)}: already exists; refusing to overwrite it (choose another name, or pass { force: true } to replace it)`);
      }
      throw e;
    }
    const w = new RecordingWriter(file, fd, checked, warnings, options.validate ?? true, options.gzip ?? false);
    w.end = options.end ?? true;
    w.live = sink;
    w.append(serializeHeader(header));
    w.flush();
    return w;
  }

  /** Number of frames written so far. */
  get frameCount(): number {
    return this.framesWritten;
  }

  /**
   * Writes the format 1.1 initial-state line (the bodies' state before the first step): once, before the
   * first frame, in our conventions (validated like a frame's `bodies`).
   */
  writeInitial(s: RecordedInitialState): void {
    if (this.fd === null) throw new Error(`${this.file}: the recording writer is closed`);
    const line = this.lineNo + 1;
    if (this.framesWritten > 0 || this.initialWritten)
      throw new FormatError(this.file, `line ${line}: initial`, 'the initial state is written once, before the first frame (line 2)');
    let text: string;
    try {
      text = serializeInitial(s);
    } catch (e) {
      throw new FormatError(this.file, `line ${line}`, (e as Error).message); // a non-finite number, named by its path
    }
    if (this.validate) validateInitial(JSON.parse(text), line, this.file, this.header);
    this.append(text);
    this.lineNo = line;
    this.initialWritten = true;
  }
  private initialWritten = false;

  writeFrame(f: RecordedFrame): void {
    if (this.fd === null) throw new Error(`${this.file}: the recording writer is closed`);
    const line = this.lineNo + 1;
    if (this.validate) validateFrame(f, line, this.file, this.header, { previous: this.prev });
    else if (this.prev && !(f.frame > this.prev.frame))
      throw new FormatError(this.file, `line ${line}: frame`, `is ${f.frame} after frame ${this.prev.frame}; frame numbers must strictly increase`);
    let text: string;
    try {
      text = serializeFrame(f);
    } catch (e) {
      throw new FormatError(this.file, `line ${line}`, (e as Error).message);
    }
    this.append(text);
    this.lineNo = line;
    this.prev = { frame: f.frame, time: f.time };
    this.framesWritten++;
    if (this.bufferedChars >= CHUNK_BYTES) this.flush();
    this.live?.frameWritten(f.frame); // returns when the editor releases the frame, while a break is armed
  }
  /** The editor's live connection (null: none). */
  private live: LiveSink | null = null;
  private end = true;

  /** True while the lines are also streamed to the editor (docs/live-protocol.md). */
  get streaming(): boolean {
    return this.live?.connected ?? false;
  }

  /** Hands buffered lines to the operating system. */
  flush(): void {
    if (this.fd === null || this.buffer.length === 0) return;
    const text = Buffer.from(this.buffer.join(''), 'utf8');
    this.buffer = [];
    this.bufferedChars = 0;
    if (!this.gzip) return this.write(text);
    // whole blocks of at most BGZF_BLOCK_DATA bytes; a flush may end with a short one (BGZF allows any size)
    const blocks: Buffer[] = [];
    for (let p = 0; p < text.length; p += BGZF_BLOCK_DATA) blocks.push(bgzfBlock(text.subarray(p, Math.min(text.length, p + BGZF_BLOCK_DATA))));
    this.write(Buffer.concat(blocks));
  }

  private write(data: Buffer): void {
    let done = 0;
    while (done < data.length) done += fs.writeSync(this.fd!, data, done, data.length - done);
  }

  close(): void {
    if (this.fd === null) return;
    try {
      if (this.end) this.append(serializeEnd(this.framesWritten));
      this.flush();
      if (this.gzip) this.write(BGZF_EOF);
    } finally {
      fs.closeSync(this.fd);
      this.fd = null;
      this.live?.close();
      this.live = null;
    }
  }

  private append(line: string): void {
    this.buffer.push(line, '\n');
    this.bufferedChars += line.length + 1;
    this.live?.send(line);
  }
}
