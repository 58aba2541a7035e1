/**
 * Recording files on disk (Node): a streaming indexer/reader and an appending writer.
 *
 * RecordingReader reads the file ONCE, in 1 MiB chunks, validates every line and keeps only a frame
 * index (byte offset and length of each frame line) and a small columnar summary per frame (frame,
 * time, contact count, solver status, iterations, final residual, max λn, max depth). `frame(i)` then
 * reads and parses just that line. Bad lines do not abort: they are collected as errors
 * ("file: line N: field: detail") and left out of the index, so one broken frame or a truncated last
 * line (an engine killed while writing) still leaves every valid frame readable.
 */
import * as fs from 'node:fs';
import { isAscii } from 'node:buffer';
import { FormatError } from './oracle.js';
import { BGZF_BLOCK_DATA, BGZF_EOF, bgzfBlock, bgzfBlockSize, inflateBlock, isGzip } from './bgzf.js';
import { emptyScan, FrameLineScanner, type ScannedFrame } from './recordingScan.js';
import { END_LINE, isEndLine, serializeEnd, validateEnd } from './recordingEnd.js';
import { LiveSink } from './liveSink.js';
import type { LiveTarget } from './liveProtocol.js';
import {
  isInitialLine,
  parseFrame,
  parseHeader,
  parseJsonLine,
  serializeFrame,
  serializeHeader,
  serializeInitial,
  validateInitial,
  type RecordedInitialState,
  SOLVER_STATUSES,
  validateFrame,
  validateHeader,
  type RecordedFrame,
  type RecordedSolverStatus,
  type RecordingHeader,
} from './recording.js';

/** A line that may be the initial-state line: its first key is "initial" (checked before parsing it fully). */
const INITIAL_LINE = /^\s*\{\s*"initial"/;

/** Bytes read per chunk while indexing. */
export const CHUNK_BYTES = 1 << 20;
/** Longest accepted line (a frame with ~1000 contacts and A written is ~200 MB). */
export const MAX_LINE_BYTES = 256 * (1 << 20);
/** At most this many errors are kept (all are counted). */
export const MAX_KEPT_ERRORS = 1000;

export interface FrameSummary {
  /** Position in the index (0 … frameCount − 1). */
  readonly index: number;
  readonly frame: number;
  readonly time: number;
  /** 1-based line number in the file. */
  readonly line: number;
  /** Byte offset of the line and its length in bytes (without the newline). */
  readonly offset: number;
  readonly length: number;
  readonly contacts: number;
  readonly status: RecordedSolverStatus;
  readonly iterations?: number;
  /** Last entry of solver.residuals, if written. */
  readonly finalResidual?: number;
  /** Largest λn of the frame (0 without contacts). */
  readonly maxLambdaN: number;
  /** Largest penetration depth of the frame (0 without contacts). */
  readonly maxDepth: number;
  readonly hasPre: boolean;
  readonly hasMatrix: boolean;
}

/** A line that could not be used: it is not in the index. */
export interface RecordingIssue {
  readonly line: number;
  /** "file: line N: field: detail". */
  readonly message: string;
}

export interface OpenOptions {
  /** Called after every chunk with the bytes indexed so far and the file size. */
  readonly onProgress?: (bytesRead: number, totalBytes: number) => void;
  /** Cancels indexing (the promise rejects with the signal's reason). */
  readonly signal?: AbortSignal;
  /**
   * Called with every valid frame as it is indexed (index = its position in the reader), so a caller that
   * needs each frame once (timeline, diagnosis) does not parse the file a second time.
   */
  readonly onFrame?: (index: number, frame: RecordedFrame, header: RecordingHeader) => void;
  /**
   * When frame lines are validated. 'every-line' (default): every line is parsed and validated while
   * indexing, so `errors` lists every bad line at open. 'on-read': the header and the first frame are
   * validated at open; the other lines only have their JSON syntax and summary fields checked by the
   * byte scanner (recordingScan.ts), and the rest of the validation happens when a frame is read (frame(i)
   * throws the same "file: line N: field: detail" error). Ignored with onFrame (every frame is parsed for
   * it) and for recordings that declare other conventions (converted on read).
   */
  readonly validate?: 'every-line' | 'on-read';
}

const FLAG_PRE = 4,
  FLAG_MATRIX = 8,
  FLAG_ITER = 16,
  STATUS_MASK = 3;

/** Growable columns: ~70 bytes per frame, no per-frame objects. */
class Columns {
  count = 0;
  offset = new Float64Array(256);
  frame = new Float64Array(256);
  time = new Float64Array(256);
  residual = new Float64Array(256);
  maxLambdaN = new Float64Array(256);
  maxDepth = new Float64Array(256);
  length = new Uint32Array(256);
  line = new Uint32Array(256);
  contacts = new Uint32Array(256);
  iterations = new Uint32Array(256);
  flags = new Uint8Array(256);

  push(offset: number, length: number, line: number, f: RecordedFrame): void {
    const s = f.solver;
    let ml = 0,
      md = 0;
    for (let k = 0; k < f.contacts.length; k++) {
      ml = Math.max(ml, s.lambda[3 * k]);
      md = Math.max(md, f.contacts[k].depth);
    }
    const residual = s.residuals && s.residuals.length > 0 ? s.residuals[s.residuals.length - 1] : NaN;
    this.row(
      offset,
      length,
      line,
      f.frame,
      f.time,
      f.contacts.length,
      SOLVER_STATUSES.indexOf(s.status),
      f.pre !== undefined,
      !!(f.A || f.b),
      s.iterations ?? -1,
      residual,
      ml,
      md,
    );
  }

  /** A line the index scanner read (the same columns as push(), from its summary fields). */
  pushScanned(offset: number, length: number, line: number, f: ScannedFrame): void {
    this.row(offset, length, line, f.frame, f.time, f.contacts, f.status, f.hasPre, f.hasMatrix, f.iterations, f.finalResidual, f.maxLambdaN, f.maxDepth);
  }

  /** One index row (iterations < 0: not recorded). */
  private row(
    offset: number,
    length: number,
    line: number,
    frame: number,
    time: number,
    contacts: number,
    status: number,
    hasPre: boolean,
    hasMatrix: boolean,
    iterations: number,
    residual: number,
    maxLambdaN: number,
    maxDepth: number,
  ): void {
    if (this.count === this.offset.length) this.grow();
    const i = this.count++;
    this.offset[i] = offset;
    this.length[i] = length;
    this.line[i] = line;
    this.frame[i] = frame;
    this.time[i] = time;
    this.contacts[i] = contacts;
    let flags = status;
    if (hasPre) flags |= FLAG_PRE;
    if (hasMatrix) flags |= FLAG_MATRIX;
    if (iterations >= 0) {
      flags |= FLAG_ITER;
      this.iterations[i] = Math.min(iterations, 0xffffffff);
    }
    this.flags[i] = flags;
    this.residual[i] = residual;
    this.maxLambdaN[i] = maxLambdaN;
    this.maxDepth[i] = maxDepth;
  }

  /** Bytes held by the columns (their capacity): what the index costs in memory. */
  get bytes(): number {
    return [
      this.offset,
      this.frame,
      this.time,
      this.residual,
      this.maxLambdaN,
      this.maxDepth,
      this.length,
      this.line,
      this.contacts,
      this.iterations,
      this.flags,
    ].reduce((sum, a) => sum + a.byteLength, 0);
  }

  private grow(): void {
    const n = this.offset.length * 2;
    const g = <T extends Float64Array | Uint32Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.offset = g(this.offset);
    this.frame = g(this.frame);
    this.time = g(this.time);
    this.residual = g(this.residual);
    this.maxLambdaN = g(this.maxLambdaN);
    this.maxDepth = g(this.maxDepth);
    this.length = g(this.length);
    this.line = g(this.line);
    this.contacts = g(this.contacts);
    this.iterations = g(this.iterations);
    this.flags = g(this.flags);
  }

  summary(i: number): FrameSummary {
    const flags = this.flags[i];
    const s: FrameSummary = {
      index: i,
      frame: this.frame[i],
      time: this.time[i],
      line: this.line[i],
      offset: this.offset[i],
      length: this.length[i],
      contacts: this.contacts[i],
      status: SOLVER_STATUSES[flags & STATUS_MASK],
      maxLambdaN: this.maxLambdaN[i],
      maxDepth: this.maxDepth[i],
      hasPre: (flags & FLAG_PRE) !== 0,
      hasMatrix: (flags & FLAG_MATRIX) !== 0,
    };
    const extra: { iterations?: number; finalResidual?: number } = {};
    if (flags & FLAG_ITER) extra.iterations = this.iterations[i];
    if (!Number.isNaN(this.residual[i])) extra.finalResidual = this.residual[i];
    return { ...s, ...extra };
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Line text from its bytes: UTF-8 (invalid bytes are an error), trailing \r removed. A line of ASCII bytes
 * only (what writers of numbers write) is the same text read as Latin-1, which skips the UTF-8 decoder's
 * validation: 2.5 ms instead of 3.5 ms on the pile's 3 MB frame line (isAscii is one SIMD pass).
 */
function decodeLine(bytes: Uint8Array, file: string, line: number): string {
  let text: string;
  try {
    text = isAscii(bytes) ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1') : utf8.decode(bytes);
  } catch {
    throw new FormatError(file, `line ${line}: (encoding)`, 'is not valid UTF-8; recordings are UTF-8 text');
  }
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}

const isBlank = (s: string): boolean => /^\s*$/.test(s);

/** Incremental line splitter + validator shared by the async and sync open. */
class Indexer {
  header: RecordingHeader | null = null;
  headerWarnings: string[] = [];
  readonly columns = new Columns();
  readonly errors: RecordingIssue[] = [];
  errorCount = 0;
  private readonly frameWarnings = new Map<string, { line: number; count: number; message: string }>();
  private lineNo = 0;
  private lineStart = 0;
  /**
   * The bytes of a line that spans chunks, copied into one buffer kept for the whole open (grown by doubling
   * up to MAX_LINE_BYTES): a per-line copy and concatenation allocated ~2 line lengths of external memory per
   * line, which the collector returned late (peak RSS +100 MiB on a recording of 3 MB lines).
   */
  private pending: Buffer = Buffer.alloc(0);
  private pendingBytes = 0;
  private oversize = false;
  private prev: { frame: number; time: number } | undefined;
  /** Line of the format 1.1 initial-state line (0: none). */
  private initialLine = 0;

  /** Set in 'on-read' mode: frame lines after the first go through it (see OpenOptions.validate). */
  private readonly scanner: FrameLineScanner | null;
  private readonly scanned: ScannedFrame = emptyScan();
  /** Lines indexed by the scanner / by the validating parser (benchmarks and tests). */
  scannedLines = 0;
  parsedLines = 0;

  constructor(
    readonly file: string,
    private readonly onFrame?: OpenOptions['onFrame'],
    validate: OpenOptions['validate'] = 'every-line',
  ) {
    this.scanner = validate === 'on-read' && !onFrame ? new FrameLineScanner() : null;
  }

  /** Processes buf[0..n), which starts at file offset `pos`. */
  push(buf: Buffer, n: number, pos: number): void {
    let s = 0;
    if (pos === 0 && n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
      s = 3;
      this.lineStart = 3;
    } // UTF-8 BOM
    for (;;) {
      const nl = buf.indexOf(10, s);
      if (nl < 0 || nl >= n) {
        this.keep(buf, s, n);
        return;
      }
      let bytes: Buffer;
      if (this.pendingBytes > 0 || this.oversize) {
        this.keep(buf, s, nl);
        bytes = this.oversize ? Buffer.alloc(0) : this.pending.subarray(0, this.pendingBytes);
      } else {
        bytes = buf.subarray(s, nl);
      }
      const length = pos + nl - this.lineStart;
      this.line(bytes, this.lineStart, length, true);
      this.pendingBytes = 0;
      this.oversize = false;
      this.lineStart = pos + nl + 1;
      s = nl + 1;
    }
  }

  /** End of file: a last line without a newline. */
  end(): void {
    if (this.pendingBytes > 0 || this.oversize) {
      const bytes = this.oversize ? Buffer.alloc(0) : this.pending.subarray(0, this.pendingBytes);
      this.line(bytes, this.lineStart, this.pendingBytes, false);
      this.pendingBytes = 0;
    }
    if (!this.header) throw new FormatError(this.file, 'line 1', 'the file is empty; a recording starts with its header line (docs/recording-format.md)');
  }

  private keep(buf: Buffer, from: number, to: number): void {
    if (to <= from || this.oversize) return;
    if (this.pendingBytes + (to - from) > MAX_LINE_BYTES) {
      this.oversize = true;
      this.pending = Buffer.alloc(0); // the line is not read: its bytes are not kept
      return;
    }
    const need = this.pendingBytes + (to - from);
    if (need > this.pending.length) {
      const grown = Buffer.allocUnsafeSlow(Math.min(MAX_LINE_BYTES, Math.max(need, 2 * this.pending.length)));
      this.pending.copy(grown, 0, 0, this.pendingBytes);
      this.pending = grown;
    }
    buf.copy(this.pending, this.pendingBytes, from, to); // copy: the chunk buffer is reused
    this.pendingBytes = need;
  }

  private line(bytes: Uint8Array, offset: number, length: number, terminated: boolean): void {
    const lineNo = ++this.lineNo;
    if (this.oversize) {
      if (!this.header) throw new FormatError(this.file, `line ${lineNo}`, `the header line is longer than ${MAX_LINE_BYTES} bytes; not read`);
      this.issue(new FormatError(this.file, `line ${lineNo}`, `is longer than ${MAX_LINE_BYTES} bytes; not read`), lineNo);
      return;
    }
    if (!this.header) {
      // The header: any problem here is fatal (frames cannot be interpreted without it).
      const text = decodeLine(bytes, this.file, lineNo);
      if (isBlank(text)) throw new FormatError(this.file, `line ${lineNo}`, 'is empty; the first line of a recording must be its header');
      const { header, warnings } = parseHeader(text, this.file);
      this.header = header;
      this.headerWarnings = warnings;
      return;
    }
    if (this.scanner && this.columns.count > 0 && !this.header.declared) {
      const r = this.scanner.scan(bytes, 0, bytes.length, this.scanned, this.prev);
      if (r === 'blank') return;
      if (r) {
        const s = this.scanned;
        this.columns.pushScanned(offset, length, lineNo, s);
        this.prev = { frame: s.frame, time: s.time };
        this.scannedLines++;
        return;
      }
    }
    try {
      const text = decodeLine(bytes, this.file, lineNo);
      if (isBlank(text)) return;
      // format 1.1: an initial-state line may come before the first frame; the header carries it from here on
      if (this.columns.count === 0 && !this.header.initial && INITIAL_LINE.test(text)) {
        const raw = parseJsonLine(text, this.file, `line ${lineNo}: `);
        if (isInitialLine(raw)) {
          this.header = { ...this.header, initial: validateInitial(raw, lineNo, this.file, this.header, (field, detail) => this.warn(lineNo, field, detail)) };
          this.initialLine = lineNo;
          return;
        }
      }
      // the optional closing line (docs/recording-format.md "Closing line"): not a frame
      if (END_LINE.test(text)) {
        const raw = parseJsonLine(text, this.file, `line ${lineNo}: `);
        if (isEndLine(raw)) return void validateEnd(raw, lineNo, this.file);
      }
      const f = parseFrame(text, lineNo, this.file, this.header, { previous: this.prev, onWarning: (field, detail) => this.warn(lineNo, field, detail) });
      // format 1.1: an initial state without a time is the state one step before the first frame; one at or
      // after the first frame's time is not an initial state (reported on its line, dropped)
      const init = this.columns.count === 0 ? this.header.initial : undefined;
      if (init && init.time === undefined) this.header = { ...this.header, initial: { ...init, time: f.time - this.header.dt } };
      else if (init && init.time !== undefined && !(init.time < f.time)) {
        const { initial: _dropped, ...rest } = this.header;
        this.header = rest;
        this.issue(
          new FormatError(
            this.file,
            `line ${this.initialLine}: initial.time`,
            `is ${init.time} s, not before the first frame's time ${f.time} s (line ${lineNo})`,
          ),
          this.initialLine,
        );
      }
      this.columns.push(offset, length, lineNo, f);
      this.parsedLines++;
      this.prev = { frame: f.frame, time: f.time };
      this.onFrame?.(this.columns.count - 1, f, this.header);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      if (!terminated) {
        const detail = e.message.slice(e.file.length + 2 + e.field.length + 2);
        this.issue(
          new FormatError(
            this.file,
            e.field,
            `the last line is incomplete (no newline at the end of the file: the writer was probably interrupted), so this frame is skipped: ${detail}`,
          ),
          lineNo,
        );
      } else {
        this.issue(e, lineNo);
      }
    }
  }

  private issue(e: FormatError, line: number): void {
    this.errorCount++;
    if (this.errors.length < MAX_KEPT_ERRORS) this.errors.push({ line, message: e.message });
  }

  /** Frame warnings are grouped by field pattern (indices → *), so a warning repeated on every line is reported once. */
  private warn(line: number, field: string, detail: string): void {
    const key = field.replace(/\[\d+\]/g, '[*]') + '\u0000' + detail.replace(/-?\d+(\.\d+)?(e[-+]?\d+)?/gi, '#');
    const w = this.frameWarnings.get(key);
    if (w) w.count++;
    else this.frameWarnings.set(key, { line, count: 1, message: `${this.file}: line ${line}: ${field}: ${detail}` });
  }

  warnings(): string[] {
    const out = [...this.headerWarnings];
    for (const w of this.frameWarnings.values()) out.push(w.count > 1 ? `${w.message} (and on ${w.count - 1} more line${w.count > 2 ? 's' : ''})` : w.message);
    return out;
  }
}

/**
 * Block table of a blocked-gzip (BGZF) recording: where each block starts on disk (`c`) and in the
 * uncompressed stream (`u`), with a sentinel after the last block. 16 bytes per 64 KiB block.
 */
class BlockTable {
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
  /** The block holding uncompressed byte `offset` (binary search). */
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

/**
 * Splits the compressed bytes of a BGZF file, chunk by chunk, into blocks, inflates each and hands the
 * uncompressed bytes on with their position in the uncompressed stream; records the block table.
 */
class BgzfSplitter {
  readonly table = new BlockTable();
  private rest: Buffer = Buffer.alloc(0);
  /** File offset of rest[0], uncompressed bytes so far, and whether the last block was the empty EOF block. */
  private cPos = 0;
  uPos = 0;
  sawEof = false;

  constructor(private readonly file: string) {}

  push(chunk: Buffer, n: number, out: (data: Buffer, n: number, pos: number) => void): void {
    const buf = this.rest.length ? Buffer.concat([this.rest, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    let p = 0;
    for (;;) {
      const size = bgzfBlockSize(buf, p);
      if (typeof size === 'string') throw this.notBgzf(size);
      if (size === null || buf.length - p < size) break;
      const data = this.inflate(buf.subarray(p, p + size));
      this.table.add(this.cPos + p, this.uPos);
      this.sawEof = data.length === 0;
      if (data.length) out(data, data.length, this.uPos);
      this.uPos += data.length;
      p += size;
    }
    this.cPos += p;
    this.rest = Buffer.from(buf.subarray(p)); // copy: the chunk buffer is reused
  }

  /** End of file: a partial block is a truncated file (its frames are lost, earlier ones are kept). */
  end(): string | null {
    this.table.add(this.cPos, this.uPos); // sentinel
    if (this.rest.length > 0) return `the file ends inside a compressed block (${this.rest.length} bytes): it was truncated; the frames before it are read`;
    if (!this.sawEof) return 'has no blocked-gzip end-of-file block: the writer may have been interrupted';
    return null;
  }

  private inflate(block: Buffer): Buffer {
    try {
      return inflateBlock(block);
    } catch (e) {
      throw new FormatError(this.file, `(compressed block at byte ${this.cPos})`, `cannot be decompressed (${(e as Error).message}); the file is damaged`);
    }
  }

  private notBgzf(why: string): FormatError {
    return new FormatError(
      this.file,
      '(compression)',
      `${why}; compressed recordings must be blocked gzip so frames can be read without decompressing the whole file — write them with \`contact-lens simulate --gzip\`, or recompress with \`contact-lens compress <in> <out.rec.jsonl.gz>\` or htslib's \`bgzip\``,
    );
  }
}

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
  const out = (data: Buffer, k: number, at: number): void => ix.push(data, k, at);
  return {
    push: (buf, k) => sp.push(buf, k, out),
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
    if (warning) warnings.push(`${file}: ${warning}`);
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
    const raw = this.readRaw(this.fd!, t.c[b0], t.c[b1 + 1] - t.c[b0], changed);
    const out = Buffer.allocUnsafe(length);
    let written = 0;
    for (let b = b0; b <= b1; b++) {
      let data: Buffer;
      try {
        data = inflateBlock(raw.subarray(t.c[b] - t.c[b0], t.c[b + 1] - t.c[b0]));
      } catch {
        return changed(`the compressed block at byte ${t.c[b]} no longer decompresses`);
      }
      const from = Math.max(0, offset - t.u[b]),
        to = Math.min(data.length, offset + length - t.u[b]);
      if (to > from) written += data.copy(out, written, from, to);
    }
    if (written !== length) changed('a compressed block holds fewer bytes than when it was indexed');
    return out;
  }

  close(): void {
    this.lineBytes = null;
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

  static create(file: string, header: RecordingHeader, options: WriterOptions = {}): RecordingWriter {
    const { header: checked, warnings } = validateHeader(header, file);
    // the editor's connection first: an explicit target that refuses throws before any file is touched
    const live = options.live ?? 'environment';
    const sink = live === 'environment' ? LiveSink.fromEnvironment() : live ? LiveSink.connect(live) : null;
    let fd: number;
    try {
      fd = fs.openSync(file, options.force ? 'w' : 'wx');
    } catch (e) {
      sink?.close();
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new Error(`${file}: already exists; refusing to overwrite it (choose another name, or pass { force: true } to replace it)`);
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
