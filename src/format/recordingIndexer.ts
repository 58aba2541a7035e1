/**
 * Indexing a recording's bytes (the first half of recordingFile.ts's job, split out by size): the incremental
 * line splitter and validator (Indexer), the columnar index it builds (Columns, recordingColumns.ts), the
 * line decoder, and StreamIndex (compress's record of the frames it read). Bad lines, damaged compressed
 * stretches and runs of blank lines are handled here; recordingFile.ts opens files and reads frames back.
 */
import { isAscii } from 'node:buffer';
import { crc32 } from './bgzf.js';
import type { DamagedBlock } from './bgzfSplitter.js';
import { FormatError } from './messages.js';
import { emptyScan, FrameLineScanner, type ScannedFrame } from './recordingScan.js';
import { END_LINE, isEndLine, validateEnd } from './recordingEnd.js';
import { frameFromValue, isInitialLine, parseHeader, parseJsonLine, validateInitial, type RecordedFrame, type RecordingHeader } from './recording.js';

import { Columns } from './recordingColumns.js';
export { Columns, type FrameSummary } from './recordingColumns.js';
import type { StretchReader } from './stretchReader.js';

/** A line that may be the initial-state line: its first key is "initial" (checked before parsing it fully). */
const INITIAL_LINE = /^\s*\{\s*"initial"/;

/** Longest accepted line (a frame with ~1000 contacts and A written is ~200 MB). */
export const MAX_LINE_BYTES = 256 * (1 << 20);
/** At most this many errors are kept (all are counted). */
export const MAX_KEPT_ERRORS = 1000;
/**
 * Most blank lines read in one recording: a writer leaves a few; past this the rest of the file is not read
 * (1 MB of gzipped newlines is ~10⁹ lines, which no reader should spend a second on).
 */
export const MAX_BLANK_LINES = 1 << 20;
/** 4 KiB of newlines: a run of empty lines is skipped by comparing whole stretches (memcmp), not byte by byte. */
const NEWLINES = Buffer.alloc(4096, 10);

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
   * Called with every valid frame as it is indexed (index = its position in the reader, offset = its line's
   * byte offset), so a caller that needs each frame once (timeline, diagnosis) does not parse the file a second time.
   */
  readonly onFrame?: (index: number, frame: RecordedFrame, header: RecordingHeader, offset: number) => void;
  /**
   * When frame lines are validated. 'every-line' (default): every line is parsed and validated while
   * indexing, so `errors` lists every bad line at open. 'on-read': the header and the first frame are
   * validated at open; the other lines only have their JSON syntax and summary fields checked by the
   * byte scanner (recordingScan.ts), and the rest of the validation happens when a frame is read (frame(i)
   * throws the same "file: line N: field: detail" error). Ignored with onFrame (every frame is parsed for
   * it) and for recordings that declare other conventions (converted on read).
   */
  readonly validate?: 'every-line' | 'on-read';
  /** Another reader that takes over the later stretch of a plain recording (stretchReader.ts; RecordingReader.open). */
  readonly stretch?: StretchReader;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Line text from its bytes: UTF-8 (invalid bytes are an error), trailing \r removed. A line of ASCII bytes
 * only (what writers of numbers write) is the same text read as Latin-1, which skips the UTF-8 decoder's
 * validation: 2.5 ms instead of 3.5 ms on the pile's 3 MB frame line (isAscii is one SIMD pass).
 */
export function decodeLine(bytes: Uint8Array, file: string, line: number): string {
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
export class Indexer {
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
    /** Told the bytes of every line indexed as a frame (StreamIndex: compress checks its output against them). */
    private readonly onIndexedLine?: (bytes: Uint8Array, frame: number) => void,
    /** The offset from which another reader takes over (Infinity: none); asked before each line (see `cut`). */
    private readonly cutAt: () => number = () => Number.POSITIVE_INFINITY,
  ) {
    this.scanner = validate === 'on-read' && !onFrame ? new FrameLineScanner() : null;
  }

  /** Set when the rest of the file is not to be read (MAX_BLANK_LINES): the caller stops feeding bytes. */
  stopped = false;
  /** The line at cutAt() and its number, once reached: it and the lines after it are left to another reader. */
  cut: { readonly offset: number; readonly line: number } | null = null;
  private blankLines = 0;
  /** A damaged compressed stretch: the line after it starts after the next newline; reported at the next frame. */
  private skipToNewline = false;
  private gap: { readonly d: DamagedBlock; readonly line: number; readonly after: number | undefined } | null = null;

  /** Processes buf[0..n), which starts at file offset `pos`. */
  push(buf: Buffer, n: number, pos: number): void {
    let s = 0;
    if (this.stopped) return;
    if (pos === 0 && n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
      s = 3;
      this.lineStart = 3;
    } // UTF-8 BOM
    if (this.skipToNewline) {
      const nl = buf.indexOf(10, s);
      if (nl < 0 || nl >= n) return; // the broken line goes on
      this.skipToNewline = false;
      this.lineNo++; // the broken line (its start was lost)
      this.lineStart = pos + nl + 1;
      s = nl + 1;
    }
    for (;;) {
      const nl = buf.indexOf(10, s);
      if (nl < 0 || nl >= n) {
        this.keep(buf, s, n);
        return;
      }
      if (nl === s && this.pendingBytes === 0 && !this.oversize && this.header) {
        // a run of empty lines: skipped in stretches of 4 KiB (memcmp), counted, capped
        let e = nl + 1;
        while (e + NEWLINES.length <= n && buf.compare(NEWLINES, 0, NEWLINES.length, e, e + NEWLINES.length) === 0) e += NEWLINES.length;
        while (e < n && buf[e] === 10) e++;
        this.lineNo += e - s;
        this.lineStart = pos + e;
        s = e;
        if (this.blank(e - nl)) return;
        continue;
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
      if (this.cut) return;
      this.pendingBytes = 0;
      this.oversize = false;
      this.lineStart = pos + nl + 1;
      s = nl + 1;
    }
  }

  /**
   * The bytes pushed next start a line at file offset `offset`, the lines before it unread (a later stretch of a
   * plain recording read on its own: the header line is pushed first, then the stretch). Line numbers go on
   * from the lines pushed, not the file's.
   */
  resumeAt(offset: number): void {
    this.pendingBytes = 0;
    this.oversize = false;
    this.lineStart = offset;
  }

  /** The other reader does not take over after all: the cut line is read next (bytes pushed from cut.offset on). */
  readOnFromCut(): void {
    const c = this.cut;
    if (!c) return;
    this.cut = null;
    this.lineNo = c.line - 1;
    this.resumeAt(c.offset);
  }

  /** End of file: a last line without a newline. */
  end(): void {
    if (!this.cut && (this.pendingBytes > 0 || this.oversize)) {
      const bytes = this.oversize ? Buffer.alloc(0) : this.pending.subarray(0, this.pendingBytes);
      this.line(bytes, this.lineStart, this.pendingBytes, false);
      this.pendingBytes = 0;
    }
    if (!this.header) throw new FormatError(this.file, 'line 1', 'the file is empty; a recording starts with its header line (docs/recording-format.md)');
    this.reportGap(undefined);
  }

  /**
   * A damaged compressed stretch starts (BgzfSplitter): the line in progress lost its end, the line that
   * ends after the stretch lost its start; both are skipped like a damaged line, and reading goes on.
   */
  damaged(d: DamagedBlock): void {
    if (this.stopped) return;
    this.reportGap(undefined); // an earlier stretch with no frame read since
    this.pendingBytes = 0;
    this.oversize = false;
    this.skipToNewline = true;
    this.gap = { d, line: this.lineNo + 1, after: this.prev?.frame };
  }

  /** The issue for the last damaged stretch, once the next frame (or the end) is known. */
  private reportGap(before: number | undefined): void {
    const g = this.gap;
    if (g === null) return;
    this.gap = null;
    const which =
      g.after === undefined
        ? before === undefined
          ? 'every frame in it is lost'
          : `the frames before frame ${before} are lost`
        : before === undefined
          ? `the frames after frame ${g.after} are lost (to the end of the file)`
          : `the frames after frame ${g.after} and before frame ${before} are lost`;
    this.issue(
      new FormatError(
        this.file,
        `(compressed block at byte ${g.d.offset})`,
        `${g.d.reason}; the file is damaged there: ${which}, the lines around it skipped like damaged lines and reading goes on at the next block (line numbers after line ${g.line} count the lines read)`,
      ),
      g.line,
    );
  }

  /** Counts blank lines; true (and the rest of the file is not read) past MAX_BLANK_LINES. */
  private blank(count: number): boolean {
    this.blankLines += count;
    if (this.blankLines <= MAX_BLANK_LINES) return false;
    this.stopped = true;
    this.issue(
      new FormatError(this.file, `line ${this.lineNo}`, `more than ${MAX_BLANK_LINES} blank lines: the rest of the file is not read (the frames before are)`),
      this.lineNo,
    );
    return true;
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
    if (this.header && offset >= this.cutAt()) {
      this.cut = { offset, line: lineNo };
      return;
    }
    if (this.oversize) {
      if (!this.header) throw new FormatError(this.file, `line ${lineNo}`, `the header line is longer than ${MAX_LINE_BYTES} bytes; not read`);
      this.issue(new FormatError(this.file, `line ${lineNo}`, `is longer than ${MAX_LINE_BYTES} bytes; not read`), lineNo);
      return;
    }
    if (!this.header) {
      // The header: any problem here is fatal (frames cannot be interpreted without it).
      if (this.gap)
        throw new FormatError(
          this.file,
          `(compressed block at byte ${this.gap.d.offset})`,
          `${this.gap.d.reason}; the header line is in it, and without the header no frame can be read`,
        );
      const text = decodeLine(bytes, this.file, lineNo);
      if (isBlank(text)) throw new FormatError(this.file, `line ${lineNo}`, 'is empty; the first line of a recording must be its header');
      const { header, warnings } = parseHeader(text, this.file);
      this.header = header;
      this.headerWarnings = warnings;
      return;
    }
    if (this.scanner && this.columns.count > 0 && !this.header.declared) {
      const r = this.scanner.scan(bytes, 0, bytes.length, this.scanned, this.prev);
      if (r === 'blank') {
        this.blank(1);
        return;
      }
      if (r) {
        const s = this.scanned;
        this.reportGap(s.frame);
        this.onIndexedLine?.(bytes, s.frame);
        this.columns.pushScanned(offset, length, lineNo, s, crc32(bytes));
        this.prev = { frame: s.frame, time: s.time };
        this.scannedLines++;
        return;
      }
    }
    try {
      const text = decodeLine(bytes, this.file, lineNo);
      if (isBlank(text)) {
        this.blank(1);
        return;
      }
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
      const raw = parseJsonLine(text, this.file, `line ${lineNo}: `);
      const f = frameFromValue(raw, lineNo, this.file, this.header, { previous: this.prev, onWarning: (field, detail) => this.warn(lineNo, field, detail) });
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
      this.reportGap(f.frame);
      this.onIndexedLine?.(bytes, f.frame);
      this.columns.push(offset, length, lineNo, f, crc32(bytes));
      this.parsedLines++;
      this.prev = { frame: f.frame, time: f.time };
      this.onFrame?.(this.columns.count - 1, f, this.header, offset);
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

  /** The last line that had an error, and the last with a warning (0: none): a stretch read on its own is clean after them. */
  lastErrorLine = 0;
  lastWarningLine = 0;

  private issue(e: FormatError, line: number): void {
    this.errorCount++;
    this.lastErrorLine = Math.max(this.lastErrorLine, line);
    if (this.errors.length < MAX_KEPT_ERRORS) this.errors.push({ line, message: e.message });
  }

  /** Frame warnings are grouped by field pattern (indices → *), so a warning repeated on every line is reported once. */
  private warn(line: number, field: string, detail: string): void {
    this.lastWarningLine = Math.max(this.lastWarningLine, line);
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
 * A recording's uncompressed bytes indexed as they stream past, with a CRC-32 (RFC 1952) of every frame
 * line: what `contact-lens compress` read, to check the file it wrote against (the same frames, byte for
 * byte). Bad lines and damaged compressed stretches are skipped as by RecordingReader.
 */
export class StreamIndex {
  private readonly ix: Indexer;
  /** Frame number and CRC-32 of each frame line, in order. */
  readonly frames: number[] = [];
  readonly digests: number[] = [];
  constructor(file: string) {
    this.ix = new Indexer(file, undefined, 'every-line', (bytes, frame) => {
      this.frames.push(frame);
      this.digests.push(crc32(bytes));
    });
  }
  push(buf: Buffer, n: number, pos: number): void {
    this.ix.push(buf, n, pos);
  }
  damaged(d: DamagedBlock): void {
    this.ix.damaged(d);
  }
  /** Set when the rest of the input is not to be read (MAX_BLANK_LINES). */
  get stopped(): boolean {
    return this.ix.stopped;
  }
  /** End of input; throws the reader's error for an input that is no recording (no header). */
  end(): { errorCount: number; errors: readonly RecordingIssue[] } {
    this.ix.end();
    return { errorCount: this.ix.errorCount, errors: this.ix.errors };
  }
}
