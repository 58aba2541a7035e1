/**
 * Splits a byte stream that arrives in pieces (a file that grows, a socket) into `\n`-terminated lines, with a
 * bound on the line length: a line longer than `maxLineBytes` is reported once, as soon as it passes the bound
 * (not when its newline finally arrives: a 1 GB line is named after its first `maxLineBytes` bytes), its bytes
 * are dropped as they come, and the stream goes on at the next newline. The bytes of an unfinished last line
 * are kept (up to the bound) until the rest arrives; they are never reported as an error here.
 */

export interface LineHandlers {
  /**
   * A complete line without its `\n` (a `\r` before it is kept: callers that need the exact bytes get them).
   * `bytes` is only valid during the call. `offset` is the stream position of its first byte.
   */
  line(bytes: Buffer, offset: number, lineNo: number): void;
  /** Line `lineNo` (starting at `offset`) passed `maxLineBytes`; its bytes are dropped up to its newline. */
  oversize(offset: number, lineNo: number): void;
}

export class LineSplitter {
  private pending: Buffer = Buffer.alloc(0);
  private pendingBytes = 0;
  private dropping = false;
  /** Stream position of the next byte pushed. */
  private pos = 0;
  /** Stream position where the current (unfinished) line starts. */
  private lineStart = 0;
  private lineNo: number;

  constructor(
    private readonly maxLineBytes: number,
    private readonly handlers: LineHandlers,
    /** Stream position of the first byte pushed, and the number of lines before it (a follower resuming mid-file). */
    start: { offset: number; lines: number } = { offset: 0, lines: 0 },
  ) {
    this.pos = start.offset;
    this.lineStart = start.offset;
    this.lineNo = start.lines;
  }

  /** Bytes of the unfinished last line (0: the stream ends on a line boundary). */
  get unfinishedBytes(): number {
    return this.dropping ? this.pos - this.lineStart : this.pendingBytes;
  }
  /** Stream position after the last complete line (where an unfinished line starts). */
  get lineBoundary(): number {
    return this.lineStart;
  }
  /** Lines completed so far (including the ones before `start`). */
  get lines(): number {
    return this.lineNo;
  }
  /** Stream position after the last byte pushed. */
  get position(): number {
    return this.pos;
  }

  push(chunk: Buffer): void {
    let s = 0;
    const n = chunk.length;
    while (s < n) {
      const nl = chunk.indexOf(10, s);
      const end = nl < 0 ? n : nl;
      if (this.dropping) {
        // the oversized line's bytes are not kept
      } else if (this.pendingBytes + (end - s) > this.maxLineBytes) {
        this.dropping = true;
        this.pendingBytes = 0;
        this.pending = Buffer.alloc(0);
        this.handlers.oversize(this.lineStart, this.lineNo + 1);
      } else if (nl >= 0 && this.pendingBytes === 0) {
        this.lineNo++;
        this.handlers.line(chunk.subarray(s, nl), this.lineStart, this.lineNo);
      } else {
        this.keep(chunk, s, end);
        if (nl >= 0) {
          this.lineNo++;
          this.handlers.line(this.pending.subarray(0, this.pendingBytes), this.lineStart, this.lineNo);
        }
      }
      if (nl < 0) {
        this.pos += n - s;
        return;
      }
      if (this.dropping) this.lineNo++;
      this.dropping = false;
      this.pendingBytes = 0;
      this.pos += nl + 1 - s;
      this.lineStart = this.pos;
      s = nl + 1;
    }
  }

  private keep(buf: Buffer, from: number, to: number): void {
    if (to <= from) return;
    const need = this.pendingBytes + (to - from);
    if (need > this.pending.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.maxLineBytes, Math.max(need, 2 * this.pending.length, 4096)));
      this.pending.copy(grown, 0, 0, this.pendingBytes);
      this.pending = grown;
    }
    buf.copy(this.pending, this.pendingBytes, from, to); // copy: the caller's chunk buffer may be reused
    this.pendingBytes = need;
  }

  /** The unfinished last line's bytes (a copy; empty while an oversized line is being dropped). */
  unfinished(): Buffer {
    return Buffer.from(this.pending.subarray(0, this.dropping ? 0 : this.pendingBytes));
  }
}
