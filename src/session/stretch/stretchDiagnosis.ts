/**
 * The later stretch of a plain recording, read and diagnosed on a thread of its own while the open reads the lines
 * before it (./parallelStretch.ts; docs/ARCHITECTURE.md "Data path of a recording").
 *
 * It reads the header line, then the file from the first line at or after byte `from`, through the same line
 * indexer and the same diagnosis as the open, and whatever else the open computes of each frame (a
 * StretchConsumer: the inspector's timeline rows, the report's rows). Its first TRACK_HISTORY frames are a warm-up:
 * they give the ledger its previous frame and every contact's track its history (nonPhysical.ts), and the open
 * indexes them too. From the next frame on (where the open stops reading), it returns the index rows, the consumer's
 * results and the findings, with what the diagnosis assumed of the frames before the stretch (contacts it took as
 * new, tracks it reported), by contact key, for the open to check against its own diagnosis of those frames. When
 * it first needs the re-solve budget, it takes what the open spent before it (./budgetHandoff.ts) once the open knows
 * that, or takes the budget as spent once the open has spent `speculateShare` of it (the open then checks that its
 * budget ran out before the cut).
 */
import * as fs from 'node:fs';
import type { RecordedFrame, RecordingHeader } from '../../format/recording.js';
import { Indexer } from '../../format/recordingIndexer.js';
import { CHUNK_BYTES } from '../../format/recordingFile.js';
import { DEFAULT_COUNTERFACTUAL_TOTAL_WORK, Diagnoser, type DiagnosisCost, type DiagnosisOptions, type Finding, type MidwayAssumptions } from '../diagnose.js';
import { TRACK_HISTORY } from '../nonPhysical.js';
import { BudgetHandoff } from './budgetHandoff.js';

export interface StretchRequest {
  readonly file: string;
  /** The recording's header as the open read it (with its initial state, if any). */
  readonly header: RecordingHeader;
  /** Byte offset from which the stretch starts (at the next line). */
  readonly from: number;
  readonly diagnosis: Partial<DiagnosisOptions>;
  /** The budget the open spends before the stretch (BudgetHandoff's buffer). */
  readonly budget: SharedArrayBuffer;
  /**
   * Share of the total re-solve budget the open must have spent before a stretch that needs the budget, and does not
   * know it yet, takes it as spent instead of waiting (0: at once). Speed only: either way the result is exact.
   */
  readonly speculateShare: number;
}

export type StretchBudget = 'unused' | 'taken' | 'assumed-spent';

/**
 * The budget a stretch takes as spent before it when the open does not know its own yet: more than any total, so
 * that nothing is re-solved (attribution.ts: once the total has left an island unsolved, nothing later is re-solved;
 * the frame at which it ran out is the open's).
 */
const ASSUMED_SPENT = { work: Number.MAX_VALUE, exhaustedAt: null } as const;

/** What a stretch computes of each frame besides the index and the findings (the open computes the same). */
export interface StretchConsumer<P> {
  /** Frame f, read in order; its diagnosis runs here (diag.add). `counted`: false for the warm-up's frames. */
  add(f: RecordedFrame, counted: boolean): void;
  /** What the open takes of the frames after the warm-up (`warmUp` frames came before them). */
  result(warmUp: number): P;
}

/** Makes a stretch's consumer from the header and the stretch's diagnosis (its own: the consumer runs it). */
export type StretchConsumerFactory<P> = (header: RecordingHeader, diag: Diagnoser) => StretchConsumer<P>;

/** The recording-consistency check over the stretch's frames after its warm-up (Diagnoser.consistency). */
export interface StretchConsistency {
  /** The stretch's first failing frame and its finding's details (a warm-up frame when one failed: null if none). */
  readonly first: Diagnoser['consistency'];
  /** Frames checked and frames failing after the warm-up. */
  readonly checked: number;
  readonly failed: number;
}

/** The stretch from its first frame after the warm-up: what the open's index, diagnosis and consumer take. */
export interface StretchResult<P> {
  /** Keys ("a|b|feature") of contacts whose overlap the diagnosis took as new. */
  readonly unseen: string[];
  /** Keys of contacts whose track reported, with the kind reported (nonPhysical.ts REPORTED_*). */
  readonly reported: [string, number][];
  /** The frame at which the re-solve budget ran out (null: it did not), the frames before the stretch included. */
  readonly exhaustedAt: number | null;
  /**
   * The re-solves of the frames after the warm-up; once the budget was taken, its work includes what the open spent
   * before the stretch, added before the stretch's own (the one-thread sum, in the same order).
   */
  readonly cost: DiagnosisCost;
  /**
   * The re-solve budget spent before the stretch: not needed ('unused'), taken from the open once it was known
   * ('taken'), or, when the stretch first needed it before the open knew it, assumed spent ('assumed-spent': the
   * stretch re-solves nothing, which is exact when the open's budget ran out before the stretch — the open checks).
   */
  readonly budget: StretchBudget;
  readonly consistency: StretchConsistency;
  /** Why the stretch's index may not be the one-thread index (a bad line, a warning, a cut-short read), or null. */
  readonly unclean: string | null;
  /** Index rows (Columns.arrays()), the warm-up's first. */
  readonly index: Record<string, Float64Array | Uint32Array | Uint8Array>;
  /** Rows of the warm-up in `index`. */
  readonly warmUp: number;
  /** Line number, as this read counted it, of the first row after the warm-up. */
  readonly firstLine: number;
  /** Where reading ended (bytes). */
  readonly size: number;
  /** Findings of the frames after the warm-up. */
  readonly findings: Finding[];
  /** The consumer's results for the frames after the warm-up. */
  readonly payload: P;
}

export interface StretchSink<P> {
  /** The warm-up is done: the offset of the first frame after it (where the open stops reading). */
  warmedUp(first: number): void;
  /** Bytes of the file read so far (where the stretch's reading is). */
  progress(bytes: number): void;
  end(result: StretchResult<P>): void;
}

/** How often a stretch waiting for the re-solve budget looks at what the open has spent (ms). */
const BUDGET_POLL_MS = 20;

/** Least time between two progress reports (ms). */
const PROGRESS_MS = 250;

/** Offset of the first newline at or after `from` (−1: none), read in chunks into `buf`. */
function newlineFrom(fd: number, buf: Buffer, from: number): number {
  for (let pos = from; ; ) {
    const n = fs.readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) return -1;
    const nl = buf.subarray(0, n).indexOf(10);
    if (nl >= 0) return pos + nl;
    pos += n;
  }
}

/**
 * Reads the stretch's frames through the open's line indexer (the header line first, then the file from the first
 * line at or after `from`), calling onFrame with each, until the file ends or `enough` says so. Returns the indexer
 * and where reading ended.
 */
function readStretch(
  fd: number,
  req: StretchRequest,
  onFrame: (f: RecordedFrame, offset: number) => void,
  enough = (): boolean => false,
  onChunk?: (end: number) => void,
): { ix: Indexer; size: number } {
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  const ix = new Indexer(req.file, (_, f, _header, offset) => onFrame(f, offset));
  // the header line with its newline, then the first line that starts at or after `from`
  const headerEnd = newlineFrom(fd, buf, 0);
  if (headerEnd < 0) throw new Error(`${req.file}: no header line`);
  const head = Buffer.allocUnsafe(headerEnd + 1);
  fs.readSync(fd, head, 0, head.length, 0);
  ix.push(head, head.length, 0);
  const from = Math.max(req.from, head.length);
  const before = newlineFrom(fd, buf, from - 1);
  if (before < 0) return { ix, size: from };
  const start = before + 1;
  ix.resumeAt(start);
  let pos = start;
  for (; !ix.stopped && !enough(); ) {
    const n = fs.readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) {
      ix.end();
      break;
    }
    ix.push(buf, n, pos);
    pos += n;
    onChunk?.(pos);
  }
  return { ix, size: pos };
}

/**
 * Reads and diagnoses the stretch of req.file from byte req.from to its end with the consumer `consume` makes,
 * telling `sink` as it goes (synchronous).
 */
export function diagnoseStretch<P>(req: StretchRequest, sink: StretchSink<P>, consume: StretchConsumerFactory<P>): void {
  const fd = fs.openSync(req.file, 'r');
  try {
    const diag = new Diagnoser(req.header, { ...req.diagnosis, keepFrames: false });
    const consumer = consume(req.header, diag);
    const budget = new BudgetHandoff(req.budget);
    diag.beginMidway();
    let warmUp = 0,
      budgetUse: StretchBudget = 'unused';
    let assumed: MidwayAssumptions | null = null;
    let findingsFrom = 0,
      checkedFrom = 0,
      failedFrom = 0,
      told = performance.now();
    const tell = (bytes: number): void => {
      if (performance.now() - told < PROGRESS_MS) return;
      sink.progress(bytes);
      told = performance.now();
    };
    const { ix, size } = readStretch(
      fd,
      req,
      (f, offset) => {
        if (!assumed && warmUp === TRACK_HISTORY) {
          // the budget as the open spent it once that is known, or taken as spent once the open has spent enough of it
          // that it will likely run out before the cut (the open checks), rather than idling until the cut
          assumed = diag.recordAssumptions(() => {
            const enough = req.speculateShare * (req.diagnosis.counterfactualTotalWork ?? DEFAULT_COUNTERFACTUAL_TOTAL_WORK);
            for (;;) {
              if (budget.published) {
                budgetUse = 'taken';
                return budget.take();
              }
              if (budget.spentSoFar >= enough) {
                budgetUse = 'assumed-spent';
                return ASSUMED_SPENT;
              }
              budget.waitSlice(BUDGET_POLL_MS);
            }
          });
          findingsFrom = diag.findings.length;
          checkedFrom = diag.checkedFrames;
          failedFrom = diag.consistency?.frames ?? 0;
          sink.warmedUp(offset);
        }
        consumer.add(f, assumed !== null);
        if (!assumed) warmUp++;
      },
      undefined,
      tell,
    );
    const a = assumed as MidwayAssumptions | null;
    if (!a) throw new Error('the stretch has no frame after its warm-up');
    const W = warmUp,
      firstLine = ix.columns.line[W];
    sink.end({
      unseen: [...a.unseen].map((id) => diag.keys.text(id)),
      reported: a.reported.map(([id, bit]) => [diag.keys.text(id), bit]),
      exhaustedAt: diag.cost.exhaustedAt,
      cost: { ...diag.cost },
      budget: budgetUse,
      consistency: { first: diag.consistency, checked: diag.checkedFrames - checkedFrom, failed: (diag.consistency?.frames ?? 0) - failedFrom },
      unclean:
        ix.lastErrorLine >= firstLine
          ? `line ${ix.lastErrorLine} of the stretch is not a valid frame`
          : ix.lastWarningLine >= firstLine
            ? `line ${ix.lastWarningLine} of the stretch has a warning`
            : ix.stopped
              ? 'the stretch was not read to its end'
              : null,
      index: ix.columns.arrays(),
      warmUp: W,
      firstLine,
      size,
      findings: diag.findings.slice(findingsFrom),
      payload: consumer.result(W),
    });
  } finally {
    fs.closeSync(fd);
  }
}

/** The offset of the stretch's first frame after its warm-up (null: it has none). */
function firstAfterWarmUp(req: StretchRequest): number | null {
  const fd = fs.openSync(req.file, 'r');
  try {
    const offsets: number[] = [];
    readStretch(
      fd,
      req,
      (_, offset) => offsets.push(offset),
      () => offsets.length > TRACK_HISTORY,
    );
    return offsets.length > TRACK_HISTORY ? offsets[TRACK_HISTORY] : null;
  } finally {
    fs.closeSync(fd);
  }
}

/** What the open needs of the stretch's thread (a worker_threads Worker, or inThisThread()). */
export interface StretchThread<P> {
  on(event: 'message', listener: (e: StretchEvent<P>) => void): unknown;
  on(event: 'error', listener: (e: Error) => void): unknown;
  on(event: 'exit', listener: () => void): unknown;
  postMessage(request: StretchRequest): void;
  terminate(): unknown;
  /** The open's pass is over (its budget published). */
  mainDone?(): void;
}

/** The sink that posts a stretch's progress and end as its thread's messages. */
function postingSink<P>(post: (e: StretchEvent<P>) => void): StretchSink<P> {
  return {
    warmedUp: (first) => post({ type: 'warmedUp', first }),
    progress: (bytes) => post({ type: 'progress', bytes }),
    end: (result) => post({ type: 'end', result }),
  };
}

/**
 * The stretch diagnosed in the open's own thread, with no second thread and no timing (tests): by default after the
 * open's pass (mainDone(): its budget known), the warm-up's offsets found when the request comes; `before: true`
 * diagnoses it when the request comes, before the open has read a line (its budget not known yet), and tells the
 * end at mainDone().
 */
export function inThisThread<P>(consume: StretchConsumerFactory<P>, options: { readonly before?: boolean } = {}): StretchThread<P> {
  const listeners: ((e: StretchEvent<P>) => void)[] = [];
  let request: StretchRequest | null = null;
  const held: StretchEvent<P>[] = [];
  const emit = (e: StretchEvent<P>): void => {
    for (const l of listeners) l(e);
  };
  const run = (r: StretchRequest, post: (e: StretchEvent<P>) => void): void => {
    try {
      diagnoseStretch(r, postingSink(post), consume);
    } catch (e) {
      post({ type: 'failed', message: (e as Error).message });
    }
  };
  return {
    on(event: string, listener: (e: never) => void) {
      if (event === 'message') listeners.push(listener as (e: StretchEvent<P>) => void);
      return this;
    },
    postMessage(r: StretchRequest) {
      request = r;
      if (options.before) {
        run(r, (e) => (e.type === 'warmedUp' ? emit(e) : held.push(e)));
        return;
      }
      const first = firstAfterWarmUp(r);
      if (first !== null) emit({ type: 'warmedUp', first });
    },
    terminate() {
      request = null;
    },
    mainDone() {
      if (!request) return;
      if (options.before) for (const e of held) emit(e);
      else run(request, (e) => (e.type === 'warmedUp' ? undefined : emit(e)));
    },
  };
}

/** Serves one request in a worker thread (the thread's script calls it with its consumer): messages until `end` or `failed`. */
export function serveStretch<P>(
  port: { once(event: 'message', l: (r: StretchRequest) => void): unknown; postMessage(e: StretchEvent<P>): void },
  consume: StretchConsumerFactory<P>,
): void {
  port.once('message', (r: StretchRequest) => {
    try {
      diagnoseStretch(
        r,
        postingSink<P>((e) => port.postMessage(e)),
        consume,
      );
    } catch (e) {
      port.postMessage({ type: 'failed', message: (e as Error).message });
    }
  });
}

/** Messages from the stretch's thread. */
export type StretchEvent<P> =
  | { readonly type: 'warmedUp'; readonly first: number }
  | { readonly type: 'progress'; readonly bytes: number }
  | { readonly type: 'end'; readonly result: StretchResult<P> }
  | { readonly type: 'failed'; readonly message: string };
