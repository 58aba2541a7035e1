/**
 * The columnar index of a recording (Columns: ~70 bytes per frame, no per-frame objects) and the frame summary
 * it gives back (FrameSummary); filled by recordingIndexer.ts, kept by recordingIndexCache.ts.
 */
import { frameMaxima, SOLVER_STATUSES, type RecordedFrame, type RecordedSolverStatus } from './recording.js';
import type { ScannedFrame } from './recordingScan.js';

/** A recording's frame as its index holds it (a scenario run's frame is `ScenarioFrameSummary` in src/session/runScenario.ts). */
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

const FLAG_PRE = 4,
  FLAG_MATRIX = 8,
  FLAG_ITER = 16,
  STATUS_MASK = 3;

/** Growable columns: ~70 bytes per frame, no per-frame objects. */
export class Columns {
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
  /** CRC-32 of each frame line's bytes: a frame read later must be the bytes that were indexed (and summarised, and cached). */
  crc = new Uint32Array(256);

  push(offset: number, length: number, line: number, f: RecordedFrame, crc: number): void {
    const s = f.solver;
    const { maxLambdaN, maxDepth } = frameMaxima(f);
    const residual = s.residuals && s.residuals.length > 0 ? s.residuals[s.residuals.length - 1] : NaN;
    this.row(
      offset,
      length,
      line,
      crc,
      f.frame,
      f.time,
      f.contacts.length,
      SOLVER_STATUSES.indexOf(s.status),
      f.pre !== undefined,
      !!(f.A || f.b),
      s.iterations ?? -1,
      residual,
      maxLambdaN,
      maxDepth,
    );
  }

  /** A line the index scanner read (the same columns as push(), from its summary fields). */
  pushScanned(offset: number, length: number, line: number, f: ScannedFrame, crc: number): void {
    this.row(offset, length, line, crc, f.frame, f.time, f.contacts, f.status, f.hasPre, f.hasMatrix, f.iterations, f.finalResidual, f.maxLambdaN, f.maxDepth);
  }

  /** One index row (iterations < 0: not recorded). */
  private row(
    offset: number,
    length: number,
    line: number,
    crc: number,
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
    this.crc[i] = crc;
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

  /**
   * Appends rows `from` … of another index's arrays() (the later stretch of the same file, read by another reader),
   * their line numbers shifted by `lineShift`.
   */
  append(a: Readonly<Record<string, Float64Array | Uint32Array | Uint8Array>>, from: number, lineShift: number): void {
    const other = Columns.fromArrays(a);
    if (!other) throw new Error('the appended index columns are incomplete');
    for (let i = from; i < other.count; i++) {
      const flags = other.flags[i];
      this.row(
        other.offset[i],
        other.length[i],
        other.line[i] + lineShift,
        other.crc[i],
        other.frame[i],
        other.time[i],
        other.contacts[i],
        flags & STATUS_MASK,
        (flags & FLAG_PRE) !== 0,
        (flags & FLAG_MATRIX) !== 0,
        flags & FLAG_ITER ? other.iterations[i] : -1,
        other.residual[i],
        other.maxLambdaN[i],
        other.maxDepth[i],
      );
    }
  }

  /** The columns cut to their rows, by name (the sidecar cache stores them). */
  arrays(): Record<string, Float64Array | Uint32Array | Uint8Array> {
    const n = this.count;
    return {
      offset: this.offset.slice(0, n),
      frame: this.frame.slice(0, n),
      time: this.time.slice(0, n),
      residual: this.residual.slice(0, n),
      maxLambdaN: this.maxLambdaN.slice(0, n),
      maxDepth: this.maxDepth.slice(0, n),
      length: this.length.slice(0, n),
      line: this.line.slice(0, n),
      contacts: this.contacts.slice(0, n),
      iterations: this.iterations.slice(0, n),
      flags: this.flags.slice(0, n),
      crc: this.crc.slice(0, n),
    };
  }

  /** Columns from arrays() (null when one is missing or their lengths differ). */
  static fromArrays(a: Readonly<Record<string, unknown>>): Columns | null {
    const c = new Columns();
    const n = (a.offset as Float64Array | undefined)?.length ?? -1;
    const f64 = ['offset', 'frame', 'time', 'residual', 'maxLambdaN', 'maxDepth'] as const,
      u32 = ['length', 'line', 'contacts', 'iterations', 'crc'] as const;
    for (const k of f64) if (!(a[k] instanceof Float64Array) || (a[k] as Float64Array).length !== n) return null;
    for (const k of u32) if (!(a[k] instanceof Uint32Array) || (a[k] as Uint32Array).length !== n) return null;
    if (!(a.flags instanceof Uint8Array) || a.flags.length !== n) return null;
    for (const k of f64) c[k] = a[k] as Float64Array<ArrayBuffer>;
    for (const k of u32) c[k] = a[k] as Uint32Array<ArrayBuffer>;
    c.flags = a.flags as Uint8Array<ArrayBuffer>;
    c.count = n;
    return c;
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
      this.crc,
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
    this.crc = g(this.crc);
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
