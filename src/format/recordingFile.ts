/**
 * Recording files on disk (Node): a streaming indexer/reader and an appending writer.
 *
 * RecordingReader reads the file ONCE, in 1 MiB chunks, validates every line and keeps only a frame
 * index (byte offset and length of each frame line) and a small columnar summary per frame (frame,
 * time, contact count, solver status, iterations, final residual, max λn, max depth). `frame(i)` then
 * reads and parses just that line. Bad lines do not abort: they are collected as errors
 * ("file: line N: field: detail") and left out of the index, so one broken frame or a truncated last
 * line (an engine killed while writing) still leaves every valid frame readable. The line splitting,
 * validation and index columns are in recordingIndexer.ts; compressed files (blocked gzip, plain gzip with
 * its access index) are read through compressedInput.ts.
 */
import * as fs from 'node:fs';
import { FormatError, safePath } from './messages.js';
import { BGZF_BLOCK_DATA, BGZF_EOF, bgzfBlock, crc32 } from './bgzf.js';
import { type Feed, feedFor, type RangeSource, readExactly } from './compressedInput.js';
import { fromIndexSection, INDEX_SECTION, indexSection } from './recordingIndexCache.js';
import { type CacheOptions, RecordingCache } from './sidecarCache.js';
import { FrameStore, FrameStoreWriter, STORE_MIN_LINE_BYTES } from './frameStore.js';
import { parseJsonLine } from './recordingJson.js';
import {
  frameFromValue,
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

/** Where a reader finds and keeps the recording's sidecar cache (sidecarCache.ts); default: no cache. */
export interface ReaderCacheOptions {
  readonly cache?: CacheOptions;
  /** With onFrame: false when the cache already holds what the frames were wanted for (no pass then). */
  readonly needsFrames?: (cache: RecordingCache) => boolean;
}

/** The open asked for a frame store beside its cache. */
const wantsStore = (options: ReaderCacheOptions): boolean => options.cache?.frameStore === true;

/** The validation an index was built with: every line whenever every frame is parsed for onFrame. */
const effectiveValidation = (o: Pick<OpenOptions, 'validate' | 'onFrame'>): NonNullable<OpenOptions['validate']> =>
  o.onFrame ? 'every-line' : (o.validate ?? 'every-line');

/** Bytes read per chunk while indexing. */
export const CHUNK_BYTES = 1 << 20;

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

const indexer = (file: string, o: Pick<OpenOptions, 'validate' | 'onFrame' | 'stretch'>): Indexer =>
  new Indexer(file, o.onFrame, o.validate, undefined, o.stretch ? () => o.stretch!.cutAt() : undefined);

/**
 * Reads `fd` from `pos` in chunks into `buf`, each given to `push`, until the end of the file or until the indexer
 * stops or reaches its cut; returns where reading ended.
 */
async function readOn(
  fd: number,
  buf: Buffer,
  pos: number,
  size: number,
  ix: Indexer,
  options: Pick<OpenOptions, 'signal' | 'onProgress'>,
  push: (n: number, at: number) => void,
): Promise<number> {
  for (;;) {
    options.signal?.throwIfAborted();
    const n = await readChunk(fd, buf, pos);
    if (n === 0) return pos;
    push(n, pos);
    pos += n;
    options.onProgress?.(pos, Math.max(size, pos));
    if (ix.stopped || ix.cut) return pos;
  }
}

/** Lets the event loop run between two frames of a background pass (a frame view asked meanwhile goes first). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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

  /** Indexes a recording in one streaming pass without blocking the event loop for long (or reads its index from a valid cache). */
  static async open(file: string, options: OpenOptions & ReaderCacheOptions = {}): Promise<RecordingReader> {
    const t0 = performance.now();
    const fd = openRegularFile(file);
    try {
      const cached = RecordingReader.fromCache(file, fd, options, t0);
      if (cached.reader) return cached.reader;
      const size = fs.fstatSync(fd).size;
      const ix = indexer(file, options);
      const fdOf = (): number => fd;
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      let feed: Feed | null = null;
      const read = (from: number, push: (n: number, at: number) => void): Promise<number> => readOn(fd, buf, from, size, ix, options, push);
      let pos = await read(0, (n) => {
        feed ??= feedFor(file, ix, buf, n, fdOf);
        feed.push(buf, n);
      });
      const rest = ix.cut && options.stretch ? await options.stretch.rest(ix.cut, ix.columns) : null;
      if (rest) {
        ix.columns.append(rest.columns, rest.from, rest.lineShift);
        pos = rest.size;
      } else if (ix.cut) {
        // read on from the cut alone (a plain file: its bytes go to the indexer as they are)
        const from = ix.cut.offset;
        ix.readOnFromCut();
        pos = await read(from, (n, at) => ix.push(buf, n, at));
      }
      return RecordingReader.finish(file, fd, pos, ix, feed, t0, cached.cache, options);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  /** The same as open(), synchronously (CLI and tests). */
  static openSync(file: string, options: Pick<OpenOptions, 'validate' | 'onFrame'> & ReaderCacheOptions = {}): RecordingReader {
    const t0 = performance.now();
    const fd = openRegularFile(file);
    try {
      const cached = RecordingReader.fromCache(file, fd, options, t0);
      if (cached.reader) return cached.reader;
      const ix = indexer(file, options);
      const fdOf = (): number => fd;
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      let pos = 0,
        feed: Feed | null = null;
      for (;;) {
        const n = fs.readSync(fd, buf, 0, buf.length, pos);
        if (n === 0) break;
        feed ??= feedFor(file, ix, buf, n, fdOf);
        feed.push(buf, n);
        pos += n;
        if (ix.stopped) break;
      }
      return RecordingReader.finish(file, fd, pos, ix, feed, t0, cached.cache, options);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  /**
   * The reader from the recording's cache when it holds a valid index that serves these options (a cache of an
   * 'on-read' index does not serve 'every-line'; a caller that wants every frame (onFrame) gets them unless its
   * needsFrames says the cache holds what it would compute from them).
   */
  private static fromCache(
    file: string,
    fd: number,
    options: Pick<OpenOptions, 'validate' | 'onFrame'> & ReaderCacheOptions,
    t0: number,
  ): { reader: RecordingReader | null; cache: RecordingCache } {
    const cache = RecordingCache.open(file, fd, options.cache ?? { mode: 'off' });
    const section = cache.get(INDEX_SECTION);
    if (!section || (options.onFrame && (options.needsFrames?.(cache) ?? true))) return { reader: null, cache };
    const s = fromIndexSection(section, () => fd);
    if (!s || (s.validate !== 'every-line' && s.validate !== effectiveValidation(options))) return { reader: null, cache };
    const r = new RecordingReader(file, fd, s.size, s.header, s.columns, s.errors, s.errorCount, s.warnings, performance.now() - t0);
    r.ranges = s.ranges;
    r.cache = cache;
    r.fromCache = true;
    r.store = FrameStore.open(cache, s.columns.count);
    r.wantsStore = wantsStore(options);
    return { reader: r, cache };
  }

  private static finish(
    file: string,
    fd: number,
    size: number,
    ix: Indexer,
    feed: Feed | null,
    t0: number,
    cache: RecordingCache,
    options: Pick<OpenOptions, 'validate' | 'onFrame'> & ReaderCacheOptions,
  ): RecordingReader {
    const validate = effectiveValidation(options);
    const { ranges, warning } = feed ? feed.end() : { ranges: null, warning: null };
    ix.end();
    const warnings = ix.warnings();
    if (warning && !ix.stopped) warnings.push(`${safePath(file)}: ${warning}`); // stopped: the rest was not read, on purpose
    const r = new RecordingReader(file, fd, size, ix.header!, ix.columns, ix.errors, ix.errorCount, warnings, performance.now() - t0);
    r.ranges = ranges;
    r.scannedLines = ix.scannedLines;
    r.parsedLines = ix.parsedLines;
    r.cache = cache;
    cache.set(
      INDEX_SECTION,
      indexSection({ header: r.header, columns: ix.columns, errors: r.errors, errorCount: r.errorCount, warnings, size, validate, ranges }),
    );
    // the store of a cache that was not valid for this data goes (a valid cache's store still holds these frames);
    // a new one is built after the open, by buildFrameStore
    if (cache.status !== 'fresh') FrameStoreWriter.removeStale(cache);
    r.store = FrameStore.open(cache, ix.columns.count);
    r.wantsStore = wantsStore(options);
    return r;
  }

  /** The open asked for a frame store (CacheOptions.frameStore): buildFrameStore builds one if there is none. */
  private wantsStore = false;

  /**
   * Builds the recording's frame store after the open (frameStore.ts), when the open asked for one, the cache is
   * on and has none: each frame line of STORE_MIN_LINE_BYTES or more read (its CRC-32 checked against the index),
   * parsed and encoded, one frame per turn of the event loop, so that frame reads asked meanwhile are served
   * between two (they parse their lines until the store is in place). The store is then named in the cache, which
   * is saved. Resolves true when a store was built; false when none was wanted or possible, or when `signal`
   * aborted or the reader closed first (nothing is left on disk then). Built after the open rather than during it,
   * the store costs the open nothing (on the 558 MiB pile it took 4–6 s of a 20 s first open in its thread).
   */
  async buildFrameStore(options: { readonly signal?: AbortSignal } = {}): Promise<boolean> {
    if (!this.wantsStore || this.store !== null || !this.cache.enabled || this.fd === null) return false;
    const w = FrameStoreWriter.create(this.cache);
    if (!w) return false;
    const c = this.columns,
      count = c.count;
    const stopped = (): boolean => options.signal?.aborted === true || this.fd === null;
    try {
      for (let i = 0; i < count && !stopped(); i++) {
        if (c.length[i] < STORE_MIN_LINE_BYTES) continue; // no record (FrameStoreWriter.add): not read
        await nextTurn();
        if (!stopped()) w.add(i, this.lineValue(i), c.length[i]);
      }
      if (stopped()) {
        w.discard();
        return false;
      }
      w.finish(this.cache, count);
      this.cache.save();
      this.store = FrameStore.open(this.cache, count);
      return this.store !== null;
    } catch {
      // the file changed under the pass (frame reads report it), or the store could not be written: no store, and
      // no rejection that nobody awaits
      w.discard();
      return false;
    }
  }

  /** Frame i's line parsed (not validated: frame(i) validates what the store gives), its bytes checked against the index. */
  private lineValue(i: number): unknown {
    const line = this.columns.line[i];
    return parseJsonLine(decodeLine(this.checkedLine(i), this.file, line), this.file, `line ${line}: `);
  }

  /**
   * Frame i's line as indexed: one positioned read (or a span's inflate), refused with a message naming the line
   * when the file is shorter or the bytes are not the ones indexed (their CRC-32). A view of a reused buffer.
   */
  private checkedLine(i: number): Uint8Array {
    if (this.fd === null) throw new Error(`${this.file}: the recording is closed`);
    const c = this.columns,
      offset = c.offset[i],
      length = c.length[i];
    const changed = this.changed(i);
    if (fs.fstatSync(this.fd).size < this.size) changed('it is shorter now');
    const buf = this.ranges ? this.ranges.read(offset, length, changed) : readExactly(this.fd, offset, length, changed, this.lineBuffer(length));
    // the bytes indexed (and summarised, and perhaps cached), or the file changed: never a frame the index does not describe
    if (crc32(buf) !== c.crc[i]) changed(`line ${c.line[i]} no longer holds the bytes that were indexed`);
    return buf;
  }

  /** Throws the error of frame i's line found changed on disk since the open (`why`). */
  private changed(i: number): (why: string) => never {
    const line = this.columns.line[i];
    return (why) => {
      throw new FormatError(this.file, `line ${line}`, `the file changed on disk since it was opened (${why}); reopen the recording`);
    };
  }

  /** The recording's frame store (frameStore.ts): frame reads decode from it instead of parsing the line; null: none. */
  private store: FrameStore | null = null;
  /** Frame reads whose value came from the frame store (the others parsed their line; benchmarks and tests). */
  framesFromStore = 0;

  /** The recording's sidecar cache (sections of what was computed from it; save() writes them). */
  cache!: RecordingCache;
  /** True when the index was read from the cache (no pass over the data). */
  fromCache = false;

  /** The block table or access index of a compressed recording (null: plain JSON Lines). */
  private ranges: RangeSource | null = null;
  /** Frames indexed by the byte scanner without building objects ('on-read' validation) / by the validating parser. */
  scannedLines = 0;
  parsedLines = 0;

  /** True when the file is compressed (blocked gzip read through its block table, plain gzip through its access index). */
  get compressed(): boolean {
    return this.ranges !== null;
  }

  /** 'bgzf', 'gzip' (plain, with an access index) or null (plain JSON Lines). */
  get compression(): 'bgzf' | 'gzip' | null {
    return this.ranges?.kind ?? null;
  }

  /** Number of valid frames. */
  get frameCount(): number {
    return this.columns.count;
  }

  /** Bytes of memory the index holds (its columns, and the block table or access index of a compressed file). */
  get indexBytes(): number {
    return this.columns.bytes + (this.ranges ? this.ranges.bytes : 0);
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

  /** The bytes of frame i's line as stored (uncompressed, without its newline), not parsed; read-only. */
  rawLine(i: number): Buffer {
    this.checkIndex(i);
    if (this.fd === null) throw new Error(`${this.file}: the recording is closed`);
    const c = this.columns,
      changed = this.changed(i);
    return this.ranges ? this.ranges.read(c.offset[i], c.length[i], changed) : readExactly(this.fd, c.offset[i], c.length[i], changed);
  }

  /** Reads and parses frame i (one positioned read of its line). */
  frame(i: number): RecordedFrame {
    this.checkIndex(i);
    const c = this.columns,
      line = c.line[i];
    const buf = this.checkedLine(i);
    const previous = i > 0 ? { frame: c.frame[i - 1], time: c.time[i - 1] } : undefined;
    const stored = this.store?.read(i);
    if (stored !== undefined) this.framesFromStore++;
    const f =
      stored !== undefined
        ? frameFromValue(stored, line, this.file, this.header, { previous })
        : parseFrame(decodeLine(buf, this.file, line), line, this.file, this.header, { previous });
    if (f.frame !== c.frame[i]) this.changed(i)(`line ${line} now holds frame ${f.frame}, not ${c.frame[i]}`);
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

  close(): void {
    this.lineBytes = null;
    this.store?.close();
    this.store = null;
    this.ranges?.forget();
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
