/**
 * Live sessions between the extension host and the inspector webview (plain types and one pure helper): a
 * recording that grows while it is shown — a file still being written, or a live engine streaming through a
 * writer library (docs/live-protocol.md). The host sends `live` messages with the new timeline rows, the
 * new findings and the session's state; the webview sends `live` actions (pause, step, continue, break
 * conditions).
 */
import type { FindingView, Timeline } from './inspector.js';

export type BreakSeverity = 'off' | 'error' | 'warning' | 'info';

/** When the engine is stopped: at the next finding of this severity or worse and/or this mechanism, at a frame. */
export interface BreakSettings {
  readonly severity: BreakSeverity;
  /** null: any mechanism (with severity 'off' and a mechanism: any severity of that mechanism). */
  readonly mechanism: string | null;
  /** Stop when this frame number (or a later one) arrives; null: no frame break. */
  readonly frame: number | null;
}

export const NO_BREAK: BreakSettings = { severity: 'off', mechanism: null, frame: null };

export interface LiveState {
  /** 'listening': the editor listens for writers; 'following': a file on disk is read as it grows. */
  readonly mode: 'listening' | 'following';
  /**
   * waiting: no writer yet (or between runs); streaming: frames arriving; paused: the engine waits at a break;
   * ended: the writer closed (or disconnected); growing / still: a followed file grows / has not grown lately.
   */
  readonly stream: 'waiting' | 'streaming' | 'paused' | 'ended' | 'growing' | 'still';
  /** How to connect (listening only): the environment variable's value, and where recordings are written. */
  readonly connect?: { readonly variable: string; readonly value: string; readonly folder: string };
  /** The recording being shown (a live stream is written here as it arrives). */
  readonly recording?: string;
  /** Frames read so far, and how many per second lately. */
  readonly frames: number;
  /** Of those, the ones diagnosed (a stream's diagnosis runs on a thread of its own and may lag; absent: all). */
  readonly diagnosed?: number;
  readonly rate: number;
  /** Where the engine waits (paused); null while it runs. */
  readonly paused: { readonly index: number; readonly frame: number; readonly reason: string } | null;
  /** The back-channel exists (a live writer): pause, step, continue and break conditions work. */
  readonly canBreak: boolean;
  readonly breakOn: BreakSettings;
  /** A pause was asked for and the engine has not reached a frame where it waits yet. */
  readonly pausePending: boolean;
  /** Writers connected besides the one shown (their streams are recorded, not shown). */
  readonly others: number;
  /** Bytes of an unfinished last line (waited for). */
  readonly unfinishedBytes: number;
  /** Lines that could not be read so far (each was reported once). */
  readonly errorCount: number;
}

/** The timeline rows of session positions from … from + frame.length − 1 (the columns of Timeline). */
export interface TimelineRows {
  readonly from: number;
  readonly frame: readonly number[];
  readonly time: readonly number[];
  readonly contacts: readonly number[];
  readonly status: Timeline['status'];
  readonly iterations: Timeline['iterations'];
  readonly residual: Timeline['residual'];
  readonly kinetic: readonly number[];
  readonly potential: readonly number[];
  readonly total: readonly number[];
  readonly ledger: { readonly [part: string]: readonly (number | null)[] };
  readonly injection: { readonly [mechanism: string]: readonly number[] };
  readonly kappa: Timeline['kappa'];
  readonly kappaRange: readonly (number | null)[];
  readonly maxDepth: readonly number[];
}

export interface LiveUpdate {
  readonly type: 'live';
  /** New rows (absent: none). */
  readonly rows?: TimelineRows;
  readonly findings: readonly FindingView[];
  readonly state: LiveState;
  /** New problems, one line each (a line that could not be read, a writer that disconnected mid-line, …). */
  readonly errors: readonly string[];
  /** The mechanisms a break can name (sent once). */
  readonly mechanisms?: readonly string[];
  /**
   * The analysis of rows sent before it was done (a live stream is shown as it comes and diagnosed on a thread of
   * its own): their injection and κ columns from session position `from` on.
   */
  readonly diagnosed?: DiagnosisPatch;
}

/** Injected joules by mechanism and κ of the rows from … from + kappa.length − 1 (every column that length). */
export interface DiagnosisPatch {
  readonly from: number;
  readonly injection: { readonly [mechanism: string]: readonly number[] };
  readonly kappa: Timeline['kappa'];
  readonly kappaRange: readonly (number | null)[];
}

export type LiveAction =
  | { readonly action: 'pause' }
  | { readonly action: 'step' }
  | { readonly action: 'continue' }
  | { readonly action: 'breakOn'; readonly breakOn: BreakSettings };

/** Largest number of rows one update carries (a flood is sent in pieces). */
export const MAX_LIVE_ROWS = 100_000;

type Column = (number | string | null)[];

/**
 * Appends `rows` to a timeline (host and webview keep their copy in step). Rows must start at its end; a ledger
 * or injection column that appears now is filled with null / 0 for the earlier frames.
 */
export function appendRows(t: Timeline, rows: TimelineRows): void {
  const n = t.frame.length;
  if (rows.from !== n) throw new RangeError(`live rows start at ${rows.from}, the timeline has ${n}`);
  const m = rows.frame.length;
  const push = (to: readonly unknown[], from: readonly unknown[]): void => {
    for (let i = 0; i < from.length; i++) (to as Column).push(from[i] as number);
  };
  for (const k of ['frame', 'time', 'contacts', 'status', 'iterations', 'residual', 'kinetic', 'potential', 'total', 'kappa', 'maxDepth'] as const)
    push(t[k], rows[k]);
  const tt = t as { kappaRange?: (number | null)[]; injection?: Record<string, number[]> };
  if (tt.kappaRange) push(tt.kappaRange, rows.kappaRange);
  const merge = <T>(cols: Record<string, T[]>, add: { readonly [k: string]: readonly T[] }, fill: T): void => {
    for (const [k, v] of Object.entries(add)) {
      if (!Object.hasOwn(cols, k)) cols[k] = new Array<T>(n).fill(fill); // own keys only: a ledger part may be named "constructor"
      push(cols[k], v);
    }
    for (const col of Object.values(cols)) while (col.length < n + m) col.push(fill);
  };
  merge(t.ledger as Record<string, (number | null)[]>, rows.ledger, null);
  merge((tt.injection ??= Object.create(null) as Record<string, number[]>), rows.injection, 0);
}

/** The part of `rows` from session position `n` on (rows that overlap what a timeline already has are dropped). */
export function rowsFrom(rows: TimelineRows, n: number): TimelineRows | null {
  const skip = n - rows.from;
  if (skip < 0) return null; // rows missing before these: the caller needs the whole timeline again
  if (skip === 0) return rows;
  if (skip >= rows.frame.length) return null;
  const cut = <T>(a: readonly T[]): T[] => a.slice(skip);
  const cols = <T>(o: { readonly [k: string]: readonly T[] }): Record<string, T[]> => {
    const out: Record<string, T[]> = {};
    for (const [k, v] of Object.entries(o)) out[k] = v.slice(skip);
    return out;
  };
  return {
    from: n,
    frame: cut(rows.frame),
    time: cut(rows.time),
    contacts: cut(rows.contacts),
    status: cut(rows.status),
    iterations: cut(rows.iterations),
    residual: cut(rows.residual),
    kinetic: cut(rows.kinetic),
    potential: cut(rows.potential),
    total: cut(rows.total),
    ledger: cols(rows.ledger),
    injection: cols(rows.injection),
    kappa: cut(rows.kappa),
    kappaRange: cut(rows.kappaRange),
    maxDepth: cut(rows.maxDepth),
  };
}

/** Writes a diagnosis patch into a timeline's injection and κ columns (rows it names that are not there are left). */
export function applyDiagnosisPatch(t: Timeline, p: DiagnosisPatch): void {
  const n = t.frame.length;
  const tt = t as unknown as { kappa: (number | null)[]; kappaRange?: (number | null)[] };
  for (let i = 0; i < p.kappa.length && p.from + i < n; i++) {
    tt.kappa[p.from + i] = p.kappa[i];
    if (tt.kappaRange) tt.kappaRange[p.from + i] = p.kappaRange[i];
  }
  const inj = ((t as { injection?: Record<string, number[]> }).injection ??= Object.create(null) as Record<string, number[]>);
  for (const [k, v] of Object.entries(p.injection)) {
    if (!Object.hasOwn(inj, k)) inj[k] = new Array<number>(n).fill(0);
    const col = inj[k];
    for (let i = 0; i < v.length && p.from + i < n; i++) col[p.from + i] = v[i];
  }
}
