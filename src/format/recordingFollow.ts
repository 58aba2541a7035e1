/**
 * Follows a recording that is still being written (docs/recording-format.md "Following a recording as it is
 * written"): each poll() reads what was appended since the last one and returns the complete lines' events
 * in order; the bytes of an unfinished last line are kept until its newline arrives (an engine that flushed
 * half a frame is waited for, not reported). Nothing already read is read again. The closing line
 * `{"end": …}` says the writer is done.
 */
import * as fs from 'node:fs';
import { FormatError } from './messages.js';
import { LineSplitter } from './lineSplitter.js';
import { type LineEvent, RecordingLineReader } from './recordingLines.js';
import type { RecordingHeader } from './recording.js';
import type { RecordingEnd } from './recordingEnd.js';

/** Longest line a follower reads (longer ones are reported and skipped); the file reader's own bound. */
export const FOLLOW_MAX_LINE_BYTES = 256 * (1 << 20);
/** Bytes read per poll by default. */
export const FOLLOW_CHUNK_BYTES = 1 << 20;

/** A line event with where its bytes are in the file (frames are read again from there on demand). */
export type FollowEvent =
  | (LineEvent & { readonly offset: number; readonly length: number })
  /** The file is shorter than what was already read: it was rewritten, not appended to. Following stops. */
  | { readonly kind: 'truncated'; readonly message: string; readonly offset: number; readonly length: 0 };

/** Where to start: after the lines a reader already indexed (its header and last valid frame). */
export interface FollowResume {
  readonly offset: number;
  readonly lines: number;
  readonly header: RecordingHeader;
  readonly previous?: { frame: number; time: number };
  readonly frames: number;
}

export class RecordingFollower {
  private fd: number | null;
  private readonly lines: RecordingLineReader;
  private readonly splitter: LineSplitter;
  private readonly buf: Buffer;
  private events: FollowEvent[] = [];
  private stopped = false;

  private constructor(
    readonly file: string,
    fd: number,
    resume: FollowResume | undefined,
    maxLineBytes: number,
    chunkBytes: number,
  ) {
    this.fd = fd;
    this.buf = Buffer.allocUnsafe(chunkBytes);
    this.lines = new RecordingLineReader(file, resume);
    this.splitter = new LineSplitter(
      maxLineBytes,
      {
        line: (bytes, offset, lineNo) => {
          const e = this.lines.read(bytes, lineNo);
          if (e.kind !== 'blank') this.events.push({ ...e, offset, length: bytes.length });
          if (this.lines.droppedInitial) {
            this.events.push({ kind: 'skipped', line: lineNo, message: this.lines.droppedInitial, offset, length: 0 });
            this.lines.droppedInitial = undefined;
          }
        },
        oversize: (offset, lineNo) =>
          this.events.push({
            kind: 'skipped',
            line: lineNo,
            message: `${file}: line ${lineNo}: is longer than ${maxLineBytes} bytes; not read`,
            offset,
            length: 0,
          }),
      },
      resume ? { offset: resume.offset, lines: resume.lines } : undefined,
    );
  }

  /** Opens `file` for following (a regular file only), from its start or from `resume`. */
  static open(file: string, options: { resume?: FollowResume; maxLineBytes?: number; chunkBytes?: number } = {}): RecordingFollower {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new FormatError(file, '(file)', 'is not a regular file; only a .rec.jsonl file on disk can be followed as it grows');
      const head = Buffer.alloc(2);
      if (fs.readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b)
        throw new FormatError(file, '(file)', 'is compressed (gzip); only a plain .rec.jsonl recording can be followed as it grows');
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
    return new RecordingFollower(file, fd, options.resume, options.maxLineBytes ?? FOLLOW_MAX_LINE_BYTES, options.chunkBytes ?? FOLLOW_CHUNK_BYTES);
  }

  get header(): RecordingHeader | null {
    return this.lines.header;
  }
  get end(): RecordingEnd | null {
    return this.lines.end;
  }
  /** Valid frames read so far (with the resumed ones). */
  get frameCount(): number {
    return this.lines.frameCount;
  }
  /** Bytes of an unfinished last line waiting for its newline. */
  get unfinishedBytes(): number {
    return this.splitter.unfinishedBytes;
  }
  /** Lines completed so far; the unfinished one is line `lines + 1`. */
  get lineCount(): number {
    return this.splitter.lines;
  }
  /** File position after the last byte read. */
  get position(): number {
    return this.splitter.position;
  }
  /** The header failed, or the file was rewritten: nothing more will be read. */
  get done(): boolean {
    return this.stopped || this.lines.failed;
  }

  /**
   * Reads at most `maxBytes` appended since the last poll and returns the events of the lines they complete
   * (none when the file did not grow). Synchronous: one or a few positioned reads.
   */
  poll(maxBytes = this.buf.length): FollowEvent[] {
    if (this.fd === null || this.done) return [];
    this.events = [];
    const size = fs.fstatSync(this.fd).size;
    if (size < this.splitter.position) {
      this.stopped = true;
      return [
        {
          kind: 'truncated',
          message: `${this.file}: the file is shorter than the ${this.splitter.position} bytes already read (${size} now): it was rewritten, not appended to; following stops (reopen it)`,
          offset: size,
          length: 0,
        },
      ];
    }
    let budget = Math.min(maxBytes, size - this.splitter.position);
    while (budget > 0) {
      const n = fs.readSync(this.fd, this.buf, 0, Math.min(this.buf.length, budget), this.splitter.position);
      if (n === 0) break;
      this.splitter.push(this.buf.subarray(0, n));
      budget -= n;
    }
    return this.events;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
