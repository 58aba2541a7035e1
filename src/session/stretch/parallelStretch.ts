/**
 * The open of a large plain recording on two threads (docs/ARCHITECTURE.md "Data path of a recording"): the open's
 * thread reads, indexes and diagnoses the lines before a cut; a thread of its own (./stretchDiagnosis.ts) reads the
 * rest, from a warm-up of TRACK_HISTORY frames before the cut, with the same indexer and diagnosis, and computes of
 * each frame what the open computes (the inspector's timeline, the report's rows).
 *
 * The result is the one-thread open, exactly, or the stretch is not used. The diagnosis of a frame depends on the
 * frames before it only through the previous frame, the contacts' tracks (at most TRACK_HISTORY frames), the
 * contacts seen so far, the tracks' once-only reports and the re-solve budget spent. The warm-up gives the first
 * two; the budget is handed over (./budgetHandoff.ts) or, when the stretch needs it before this thread knows it,
 * taken as spent there, which must then have run out here before the cut; the other two are what the stretch reports
 * it assumed, checked here against this thread's diagnosis (a contact it took as new must not have appeared before,
 * a track it reported must not have reported already). The stretch's warm-up must be the last frames indexed here (frame numbers
 * strictly increase in a valid recording, so the stretch's go on from this thread's), none may have blown up before
 * it, and its lines must be free of errors and warnings (whose line numbers and counts belong to the whole file).
 * When any of this fails, or the thread does, this thread reads on from the cut as if alone.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { isGzip } from '../../format/bgzf.js';
import type { RecordingHeader } from '../../format/recording.js';
import type { Columns } from '../../format/recordingColumns.js';
import type { StretchIndex, StretchReader } from '../../format/stretchReader.js';
import type { Diagnoser, DiagnosisCost, DiagnosisOptions, Finding } from '../diagnose.js';
import type { StretchEvent, StretchRequest, StretchResult, StretchThread } from './stretchDiagnosis.js';
import { BudgetHandoff } from './budgetHandoff.js';

export interface ParallelOpenOptions<P> {
  /** Recordings smaller than this (bytes) are opened on one thread (a thread costs ~0.1–0.3 s to start). */
  readonly minBytes: number;
  /** Share of the file's bytes read on the open's own thread; the stretch's thread reads the rest. */
  readonly share: number;
  /**
   * A recording modified less than this long ago (ms) may still be written: it is opened on one thread, so that
   * its diagnosis can go on as it grows.
   */
  readonly quietMs: number;
  /** Starts the stretch's thread instead of the caller's worker thread (tests: inThisThread()). */
  readonly thread?: () => StretchThread<P>;
  /** StretchRequest.speculateShare (default SPECULATE_SHARE). */
  readonly speculateShare?: number;
}

/**
 * A stretch that needs the re-solve budget before the open knows it takes it as spent once the open has spent this
 * share of the total: likely to run out before the cut (on the pile, `diagnose`'s budget runs out at frame 143 of the
 * open's 177, spent at a near-steady rate), while a recording that spends little waits for the cut instead of
 * reading on after a wrong guess.
 */
export const SPECULATE_SHARE = 0.5;

/** The thresholds of a two-thread open (the thread is the caller's). */
export const PARALLEL_THRESHOLDS = { minBytes: 32 * 2 ** 20, share: 0.5, quietMs: 10_000 } as const;

/** How an open read its recording. */
export type ParallelOutcome =
  | { readonly kind: 'one-thread' }
  /** Frames from `from` on were read and diagnosed on a second thread. */
  | { readonly kind: 'two-threads'; readonly from: number }
  /** The second thread's stretch was not used (why): this thread read on from frame `from`. */
  | { readonly kind: 'read-on'; readonly from: number; readonly why: string };

/**
 * Whether an open reads `file` on two threads: a plain recording of at least options.minBytes that has not changed
 * for options.quietMs, on a machine with two cores (or a thread the options give). Else the open reads it alone — a
 * small, compressed or growing file.
 */
export function readsOnTwoThreads(file: string, options: TwoThreadTest): boolean {
  return twoThreadSize(file, options) !== null;
}

type TwoThreadTest = Omit<ParallelOpenOptions<unknown>, 'thread'> & { readonly thread?: unknown };

/** The file's size (bytes) when readsOnTwoThreads, else null. */
function twoThreadSize(file: string, options: TwoThreadTest): number | null {
  // a file that cannot be read is the open's to report (one line naming it)
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st?.isFile() || st.size < options.minBytes || Date.now() - st.mtimeMs < options.quietMs || compressed(file)) return null;
  return options.thread !== undefined || os.availableParallelism() >= 2 ? st.size : null;
}

/** A gzip file (read as one stream: its later stretch cannot be read on its own). */
function compressed(file: string): boolean {
  const head = Buffer.alloc(2);
  const fd = fs.openSync(file, 'r');
  try {
    return fs.readSync(fd, head, 0, 2, 0) === 2 && isGzip(head);
  } finally {
    fs.closeSync(fd);
  }
}

export class ParallelStretch<P> implements StretchReader {
  /** Offset of the stretch's first frame after its warm-up: where this thread stops (null: not known yet). */
  private first: number | null = null;
  private readonly ended: Promise<StretchResult<P> | string>;
  private readonly budget = new BudgetHandoff();
  private closed = false;
  /** The stretch, checked and used (rest() returned its index), and the index row of its first frame here. */
  private usedStretch: { readonly result: StretchResult<P>; readonly from: number } | null = null;
  private outcomeSoFar: ParallelOutcome = { kind: 'one-thread' };
  /** Told where the stretch's reading is (bytes into the file) while the open waits for it at the cut. */
  onProgress: ((bytes: number, size: number) => void) | null = null;
  private waiting = false;

  private constructor(
    private readonly worker: StretchThread<P>,
    /** This thread's diagnosis (of the frames before the cut). */
    private readonly diag: Diagnoser,
    /** The open's: an open cancelled while it waits for the stretch stops waiting. */
    private readonly signal: AbortSignal | undefined,
    /** The file's size when the open began (bytes). */
    private readonly size: number,
  ) {
    this.ended = new Promise((resolve) => {
      worker.on('message', (e: StretchEvent<P>) => {
        if (e.type === 'warmedUp') this.first = e.first;
        else if (e.type === 'progress') {
          if (this.waiting) this.onProgress?.(e.bytes, this.size);
        } else if (e.type === 'end') resolve(e.result);
        else resolve(`the stretch's thread failed: ${e.message}`);
      });
      worker.on('error', (e) => resolve(`the stretch's thread failed: ${e.message}`));
      worker.on('exit', () => resolve("the stretch's thread ended"));
    });
  }

  /** Starts the stretch's thread (`workerThread`, unless options.thread replaces it) when readsOnTwoThreads (else null). */
  static start<P>(
    file: string,
    header: RecordingHeader,
    diagnosis: Partial<DiagnosisOptions>,
    diag: Diagnoser,
    options: ParallelOpenOptions<P>,
    workerThread: () => StretchThread<P>,
    signal?: AbortSignal,
  ): ParallelStretch<P> | null {
    const size = twoThreadSize(file, options);
    if (size === null) return null;
    const p = new ParallelStretch((options.thread ?? workerThread)(), diag, signal, size);
    p.worker.postMessage({
      file,
      header,
      from: Math.floor(size * options.share),
      diagnosis,
      budget: p.budget.buffer,
      speculateShare: options.speculateShare ?? SPECULATE_SHARE,
    } satisfies StretchRequest);
    return p;
  }

  /** After each frame read and diagnosed here. */
  diagnosedHere(): void {
    // a budget that ran out is final (attribution.ts): the stretch need not wait for the cut to know it
    if (this.diag.cost.exhaustedAt !== null) this.budget.publish(this.diag.cost);
    else this.budget.progress(this.diag.cost.work);
  }

  cutAt(): number {
    return this.usedStretch || this.closed || this.first === null ? Number.POSITIVE_INFINITY : this.first;
  }

  async rest(cut: { readonly offset: number; readonly line: number }, indexed: Columns): Promise<StretchIndex | null> {
    const from = indexed.count;
    if (cut.offset !== this.first) return this.readOn(from, 'this thread went past the stretch before its warm-up was done');
    this.budget.publish(this.diag.cost);
    this.waiting = true;
    this.worker.mainDone?.();
    const end = await this.waitForEnd();
    if (typeof end === 'string') return this.readOn(from, end);
    const why = this.mismatch(end, indexed);
    if (why) return this.readOn(from, why);
    this.usedStretch = { result: end, from };
    this.outcomeSoFar = { kind: 'two-threads', from };
    this.close();
    return { columns: end.index, from: end.warmUp, lineShift: cut.line - end.firstLine, size: end.size };
  }

  /** The stretch's end, or a rejection with the open's abort reason. */
  private waitForEnd(): Promise<StretchResult<P> | string> {
    const signal = this.signal;
    if (!signal) return this.ended;
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const stop = (): void => reject(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      void this.ended.then((e) => {
        signal.removeEventListener('abort', stop);
        resolve(e);
      });
    });
  }

  private readOn(from: number, why: string): null {
    this.outcomeSoFar = { kind: 'read-on', from, why };
    this.close();
    return null;
  }

  /** Why the stretch is not the one-thread open's (null: it is; see the module comment). */
  private mismatch(r: StretchResult<P>, indexed: Columns): string | null {
    if (r.unclean) return r.unclean;
    // its warm-up must be the last frames indexed here
    const from = indexed.count,
      w = r.warmUp;
    if (w > from) return 'the stretch read other frames than this thread';
    for (let k = 0; k < w; k++) if (indexed.offset[from - w + k] !== r.index.offset[k]) return 'the stretch read other frames than this thread';
    if (this.diag.blewUp) return 'the simulation blew up before the stretch';
    if (r.budget === 'assumed-spent' && this.diag.cost.exhaustedAt === null) return 'the stretch took the re-solve budget as spent before it, and it was not';
    // a consistency failure in the warm-up that this thread did not see (the stretch's first frame has no previous one there)
    const first = r.consistency.first;
    if (first && this.diag.consistency === null && first.firstFrame < r.index.frame[w])
      return "the stretch's warm-up failed the consistency check, and this thread's did not";
    const keys = this.diag.keys;
    for (const key of r.unseen) {
      const id = keys.find(key);
      if (id >= 0 && this.diag.hasSeen(id)) return `contact ${key} was taken as new but appeared before the stretch`;
    }
    for (const [key, bit] of r.reported) {
      const id = keys.find(key);
      if (id >= 0 && this.diag.trackReported(id, bit)) return `contact ${key}'s track had reported before the stretch`;
    }
    return null;
  }

  /** How the open read the recording. */
  get outcome(): ParallelOutcome {
    return this.outcomeSoFar;
  }

  /** The stretch when the open used it (after the open), with the index row of its first frame after the warm-up. */
  get used(): { readonly result: StretchResult<P>; readonly from: number } | null {
    return this.usedStretch;
  }

  /** The findings of the stretch as the one-thread diagnosis has them after this thread's (one consistency finding per recording). */
  stretchFindings(): Finding[] {
    const u = this.usedStretch;
    if (!u) return [];
    const consistencyFound = this.diag.consistency !== null;
    return u.result.findings.filter((x) => !(consistencyFound && x.kind === 'inconsistent'));
  }

  /** The frame at which the re-solve budget ran out (null: it did not), over both threads. */
  get exhaustedAt(): number | null {
    return this.diag.cost.exhaustedAt ?? this.usedStretch?.result.exhaustedAt ?? null;
  }

  /** The diagnosis' cost over both threads, as one thread counts it (work in frame order). */
  cost(): DiagnosisCost {
    const m = this.diag.cost,
      u = this.usedStretch;
    if (!u) return { ...m };
    const s = u.result.cost;
    return {
      frames: m.frames + s.frames,
      islands: m.islands + s.islands,
      ms: m.ms + s.ms,
      // once taken, the stretch's work starts from this thread's (BudgetHandoff): the one-thread sum; not taken (not
      // needed, or taken as spent) the stretch re-solved nothing
      work: u.result.budget === 'taken' ? s.work : m.work,
      exhaustedAt: this.exhaustedAt,
    };
  }

  /** The consistency check over both threads, as one thread reports it (Diagnoser.consistency). */
  consistency(): Diagnoser['consistency'] {
    const m = this.diag.consistency,
      u = this.usedStretch;
    if (!u) return m;
    const s = u.result.consistency;
    if (m) return { ...m, frames: m.frames + s.failed, checked: m.checked + s.checked };
    return s.first ? { ...s.first, frames: s.failed, checked: this.diag.checkedFrames + s.checked } : null;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.worker.terminate();
  }
}
