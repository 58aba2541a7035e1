/**
 * A recording that is still being written, as a session's frame source: the frames a file reader indexed when
 * it was opened (if any), then every frame appended since, each kept as its line's place in the file and a
 * small summary (≈ 80 bytes per frame, no frame objects), and read again from the file when it is shown.
 * Used by the inspector for a file that grows and for a live engine's stream, which the editor writes to a
 * recording before reading it back.
 */
import * as fs from 'node:fs';
import { FormatError } from '../format/messages.js';
import { parseFrame, SOLVER_STATUSES, type RecordedFrame, type RecordingHeader } from '../format/recording.js';
import type { RecordingReader } from '../format/recordingFile.js';
import { decodeLine } from '../format/recordingIndexer.js';
import type { AssemblyOptions } from '../engine/index.js';
import { readerSummary } from './frameSource.js';
import { type FrameSource, recordingAssembly, type SessionSummary } from './session.js';

/** Where a frame's line is in the file. */
export interface LinePlace {
  readonly offset: number;
  /** Bytes without the newline. */
  readonly length: number;
  /** 1-based line number. */
  readonly line: number;
}

/**
 * What the index keeps of an appended frame besides its place: a frame appended by another thread, which read and
 * parsed the line, comes as this (a live stream's frame views are computed off the thread that reads the feed).
 */
export interface AppendedFrame {
  readonly at: LinePlace;
  readonly frame: number;
  readonly time: number;
  readonly contacts: number;
  /** Index into SOLVER_STATUSES. */
  readonly status: number;
  readonly maxDepth: number;
  readonly maxLambdaN: number;
  /** NaN: not recorded. */
  readonly iterations: number;
  readonly residual: number;
}

/** The index entry of frame `f`, read from the file at `at`. */
export function appendedFrame(f: RecordedFrame, at: LinePlace): AppendedFrame {
  let depth = 0,
    ln = 0;
  for (const c of f.contacts) depth = Math.max(depth, c.depth);
  for (let k = 0; k < f.solver.lambda.length; k += 3) ln = Math.max(ln, f.solver.lambda[k]);
  const r = f.solver.residuals;
  return {
    at,
    frame: f.frame,
    time: f.time,
    contacts: f.contacts.length,
    status: SOLVER_STATUSES.indexOf(f.solver.status),
    maxDepth: depth,
    maxLambdaN: ln,
    iterations: f.solver.iterations ?? NaN,
    residual: r?.length ? r[r.length - 1] : NaN,
  };
}

class Columns {
  count = 0;
  offset = new Float64Array(64);
  line = new Float64Array(64);
  frame = new Float64Array(64);
  time = new Float64Array(64);
  maxDepth = new Float64Array(64);
  maxLambdaN = new Float64Array(64);
  iterations = new Float64Array(64);
  residual = new Float64Array(64);
  length = new Uint32Array(64);
  contacts = new Uint32Array(64);
  status = new Uint8Array(64);

  push(a: AppendedFrame): void {
    if (this.count === this.frame.length) this.grow();
    const i = this.count++;
    this.offset[i] = a.at.offset;
    this.length[i] = a.at.length;
    this.line[i] = a.at.line;
    this.frame[i] = a.frame;
    this.time[i] = a.time;
    this.contacts[i] = a.contacts;
    this.status[i] = a.status;
    this.maxDepth[i] = a.maxDepth;
    this.maxLambdaN[i] = a.maxLambdaN;
    this.iterations[i] = a.iterations;
    this.residual[i] = a.residual;
  }

  private grow(): void {
    const n = 2 * this.frame.length;
    const g = <T extends Float64Array | Uint32Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.offset = g(this.offset);
    this.line = g(this.line);
    this.frame = g(this.frame);
    this.time = g(this.time);
    this.maxDepth = g(this.maxDepth);
    this.maxLambdaN = g(this.maxLambdaN);
    this.iterations = g(this.iterations);
    this.residual = g(this.residual);
    this.length = g(this.length);
    this.contacts = g(this.contacts);
    this.status = g(this.status);
  }
}

export class GrowingRecording implements FrameSource {
  readonly kind = 'recording' as const;
  readonly exact = true;
  private readonly cols = new Columns();
  private fd: number | null = null;
  private buf: Buffer = Buffer.alloc(0);

  constructor(
    readonly file: string,
    private h: RecordingHeader,
    /** The reader that indexed the file's first frames when it was opened (absent: all frames were appended). */
    readonly reader?: RecordingReader,
  ) {}

  get header(): RecordingHeader {
    return this.h;
  }
  /** Frames the reader indexed at open. */
  get indexed(): number {
    return this.reader?.frameCount ?? 0;
  }
  get frameCount(): number {
    return this.indexed + this.cols.count;
  }
  /** Bytes the appended frames' index holds. */
  get indexBytes(): number {
    const c = this.cols;
    return c.frame.length * (8 * 8 + 4 * 2 + 1);
  }

  /** Adds a frame read from the file at `at` (frames come in file order). */
  append(f: RecordedFrame, at: LinePlace): void {
    this.cols.push(appendedFrame(f, at));
  }

  /** Adds a frame that another thread read from the file (appendedFrame of it), in file order. */
  appendIndexed(a: AppendedFrame): void {
    this.cols.push(a);
  }

  summary(i: number): SessionSummary {
    if (i < this.indexed) return readerSummary(i, this.reader!.summary(i));
    const c = this.cols,
      k = i - this.indexed;
    const extra: { iterations?: number; finalResidual?: number } = {};
    if (!Number.isNaN(c.iterations[k])) extra.iterations = c.iterations[k];
    if (!Number.isNaN(c.residual[k])) extra.finalResidual = c.residual[k];
    return {
      index: i,
      frame: c.frame[k],
      time: c.time[k],
      contacts: c.contacts[k],
      status: SOLVER_STATUSES[c.status[k]],
      maxDepth: c.maxDepth[k],
      maxLambdaN: c.maxLambdaN[k],
      ...extra,
    };
  }

  /** Frame i: from the reader's index, or its line read again from the file. */
  load(i: number): RecordedFrame {
    if (i < this.indexed) return this.reader!.frame(i);
    const c = this.cols,
      k = i - this.indexed;
    const offset = c.offset[k],
      length = c.length[k],
      line = c.line[k];
    this.fd ??= fs.openSync(this.file, 'r');
    if (this.buf.length < length) this.buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = fs.readSync(this.fd, this.buf, got, length - got, offset + got);
      if (n === 0) throw new FormatError(this.file, `line ${line}`, 'the file changed on disk (it is shorter now); reopen the recording');
      got += n;
    }
    const previous =
      k > 0 ? { frame: c.frame[k - 1], time: c.time[k - 1] } : i > 0 ? { frame: this.summary(i - 1).frame, time: this.summary(i - 1).time } : undefined;
    const f = parseFrame(decodeLine(this.buf.subarray(0, length), this.file, line), line, this.file, this.h, { previous });
    if (f.frame !== c.frame[k])
      throw new FormatError(
        this.file,
        `line ${line}`,
        `the file changed on disk (line ${line} now holds frame ${f.frame}, not ${c.frame[k]}); reopen the recording`,
      );
    return f;
  }

  assembly(): { options: AssemblyOptions; notes: string[] } {
    return recordingAssembly(this.h);
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    this.reader?.close();
  }
}
