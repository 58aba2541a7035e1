/**
 * Reads the lines of a recording one at a time, in order, as they arrive (a file that is still being written,
 * a live stream): the header, the format 1.1 initial-state line, frames, and the closing line. The same rules
 * as the file reader (docs/recording-format.md "How files are read"): a bad frame line is skipped with one
 * "file: line N: field: detail" message and the next one is read; frame and time order are checked against
 * the previous valid frame; blank lines are ignored; a header that cannot be read stops the reading (nothing
 * can be interpreted without it).
 */
import { FormatError } from './messages.js';
import { decodeLine } from './recordingIndexer.js';
import { isInitialLine, parseFrame, parseHeader, parseJsonLine, validateInitial, type RecordedFrame, type RecordingHeader } from './recording.js';
import { END_LINE, isEndLine, validateEnd, type RecordingEnd } from './recordingEnd.js';

/** A line that may be the initial-state line: its first key is "initial". */
const INITIAL_LINE = /^\s*\{\s*"initial"/;

export type LineEvent =
  | { readonly kind: 'header'; readonly header: RecordingHeader; readonly warnings: readonly string[] }
  | { readonly kind: 'initial'; readonly line: number }
  | { readonly kind: 'frame'; readonly frame: RecordedFrame; readonly line: number }
  | { readonly kind: 'end'; readonly end: RecordingEnd; readonly line: number }
  /** A line that was not used: the message names the file, the line and the field. */
  | { readonly kind: 'skipped'; readonly line: number; readonly message: string }
  /** The header could not be read: no later line can be interpreted. */
  | { readonly kind: 'fatal'; readonly line: number; readonly message: string }
  | { readonly kind: 'blank' };

const isBlank = (s: string): boolean => /^\s*$/.test(s);

export class RecordingLineReader {
  private h: RecordingHeader | null = null;
  private fatal = false;
  private prev: { frame: number; time: number } | undefined;
  private frames = 0;
  private initialLine = 0;
  private endSeen: RecordingEnd | null = null;

  constructor(
    readonly file: string,
    /** Resuming after lines already read elsewhere (the file reader): their header and last valid frame. */
    resume?: { readonly header: RecordingHeader; readonly previous?: { frame: number; time: number }; readonly frames: number },
  ) {
    if (resume) {
      this.h = resume.header;
      this.prev = resume.previous;
      this.frames = resume.frames;
    }
  }

  get header(): RecordingHeader | null {
    return this.h;
  }
  /** Valid frames read so far. */
  get frameCount(): number {
    return this.frames;
  }
  /** The closing line, once read. */
  get end(): RecordingEnd | null {
    return this.endSeen;
  }
  get failed(): boolean {
    return this.fatal;
  }
  get previous(): { frame: number; time: number } | undefined {
    return this.prev;
  }

  /** Interprets line `lineNo` (1-based; its bytes without the newline). Never throws for bad input. */
  read(bytes: Uint8Array, lineNo: number): LineEvent {
    if (this.fatal) return { kind: 'skipped', line: lineNo, message: `${this.file}: line ${lineNo}: not read: the header could not be read` };
    try {
      if (!this.h) {
        const b = lineNo === 1 && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes; // UTF-8 BOM
        const text = decodeLine(b, this.file, lineNo);
        if (isBlank(text)) throw new FormatError(this.file, `line ${lineNo}`, 'is empty; the first line of a recording must be its header');
        const { header, warnings } = parseHeader(text, this.file);
        this.h = header;
        return { kind: 'header', header, warnings };
      }
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      this.fatal = true;
      return { kind: 'fatal', line: lineNo, message: e.message };
    }
    try {
      return this.body(decodeLine(bytes, this.file, lineNo), lineNo, this.h);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      return { kind: 'skipped', line: lineNo, message: e.message };
    }
  }

  private body(text: string, lineNo: number, header: RecordingHeader): LineEvent {
    if (isBlank(text)) return { kind: 'blank' };
    if (this.frames === 0 && !header.initial && INITIAL_LINE.test(text)) {
      const raw = parseJsonLine(text, this.file, `line ${lineNo}: `);
      if (isInitialLine(raw)) {
        this.h = { ...header, initial: validateInitial(raw, lineNo, this.file, header) };
        this.initialLine = lineNo;
        return { kind: 'initial', line: lineNo };
      }
    }
    if (END_LINE.test(text)) {
      const raw = parseJsonLine(text, this.file, `line ${lineNo}: `);
      if (isEndLine(raw)) {
        this.endSeen = validateEnd(raw, lineNo, this.file);
        return { kind: 'end', end: this.endSeen, line: lineNo };
      }
    }
    const f = parseFrame(text, lineNo, this.file, header, { previous: this.prev });
    // format 1.1: an initial state without a time is one step before the first frame; one at or after the
    // first frame's time is not an initial state (reported on its line and dropped), as the file reader does
    const init = this.frames === 0 ? header.initial : undefined;
    let dropped: string | undefined;
    if (init && init.time === undefined) this.h = { ...header, initial: { ...init, time: f.time - header.dt } };
    else if (init && init.time !== undefined && !(init.time < f.time)) {
      const { initial: _dropped, ...rest } = header;
      this.h = rest;
      dropped = `${this.file}: line ${this.initialLine}: initial.time: is ${init.time} s, not before the first frame's time ${f.time} s (line ${lineNo})`;
    }
    this.frames++;
    this.prev = { frame: f.frame, time: f.time };
    if (dropped) this.droppedInitial = dropped;
    return { kind: 'frame', frame: f, line: lineNo };
  }

  /** Set when the initial-state line turned out not to precede the first frame (its message; reported once). */
  droppedInitial: string | undefined;
}
