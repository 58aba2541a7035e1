/**
 * The open of a large plain recording on two threads (docs/ARCHITECTURE.md "Data path of a recording"). The open's
 * thread reads, indexes and diagnoses the lines before a cut; a thread of its own (./stretchDiagnosis.ts) reads the
 * rest, from a warm-up of TRACK_HISTORY frames before the cut, with the same indexer, timeline and diagnosis.
 *
 * The result is the one-thread open, exactly, or the stretch is not used. The diagnosis of a frame depends on the
 * frames before it only through the previous frame, the contacts' tracks (at most TRACK_HISTORY frames), the
 * contacts seen so far, the tracks' once-only reports and the re-solve budget spent. The warm-up gives the first
 * two; the budget is handed over (./budgetHandoff.ts); the other two are what the stretch reports it assumed,
 * checked here against this thread's diagnosis (a contact it took as new must not have appeared before, a track it
 * reported must not have reported already). The stretch's warm-up must be the last frames indexed here (frame numbers
 * strictly increase in a valid recording, so the stretch's go on from this thread's), none may have blown up before
 * it, and its lines must be free of errors and warnings (whose line numbers and counts belong to the whole file). When any of this fails, or the thread does,
 * this thread reads on from the cut as if alone.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { isGzip } from '../../format/bgzf.js';
import type { RecordingHeader } from '../../format/recording.js';
import type { Columns } from '../../format/recordingColumns.js';
import type { StretchIndex, StretchReader } from '../../format/stretchReader.js';
import type { Diagnoser, DiagnosisOptions } from '../../session/diagnose.js';
import type { FindingView } from '../../protocol/inspector.js';
import { startThread } from '../live/threadScript.js';
import type { StretchEvent, StretchRequest, StretchResult, StretchThread } from './stretchDiagnosis.js';
import { type TimelineBuilder, toFindingView } from './timelineBuilder.js';
import { BudgetHandoff } from './budgetHandoff.js';

export interface ParallelOpenOptions {
  /** Recordings smaller than this (bytes) are opened on one thread (a thread costs ~0.1–0.3 s to start). */
  readonly minBytes: number;
  /** Share of the file's bytes read on the open's own thread; the stretch's thread reads the rest. */
  readonly share: number;
  /**
   * A recording modified less than this long ago (ms) may still be written: it is opened on one thread, so that
   * its diagnosis can go on as it grows.
   */
  readonly quietMs: number;
  /** Starts the stretch's thread (default: a worker thread, bundle dist/stretchDiagnosis.js; tests: inThisThread()). */
  readonly thread?: () => StretchThread;
}

export const PARALLEL_OPEN: ParallelOpenOptions = { minBytes: 32 * 2 ** 20, share: 0.5, quietMs: 10_000 };

const workerThread = (): StretchThread => startThread('stretchDiagnosis', '../model/stretchDiagnosisThread') as unknown as StretchThread;

/** How an open read its recording. */
export type ParallelOutcome =
  | { readonly kind: 'one-thread' }
  /** Frames from `from` on were read and diagnosed on a second thread. */
  | { readonly kind: 'two-threads'; readonly from: number }
  /** The second thread's stretch was not used (why): this thread read on from frame `from`. */
  | { readonly kind: 'read-on'; readonly from: number; readonly why: string };

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

export class ParallelDiagnosis implements StretchReader {
  /** Offset of the stretch's first frame after its warm-up: where this thread stops (null: not known yet). */
  private first: number | null = null;
  private readonly ended: Promise<StretchResult | string>;
  private readonly budget = new BudgetHandoff();
  private closed = false;
  /** The stretch, checked and used (rest() returned its index). */
  private used: { readonly result: StretchResult; readonly from: number } | null = null;
  private outcome: ParallelOutcome = { kind: 'one-thread' };
  /** Told where the stretch's reading is (bytes into the file) while the open waits for it at the cut. */
  onProgress: ((bytes: number, size: number) => void) | null = null;
  private waiting = false;

  private constructor(
    private readonly worker: StretchThread,
    /** This thread's diagnosis (of the frames before the cut). */
    private readonly diag: Diagnoser,
    /** The open's: an open cancelled while it waits for the stretch stops waiting. */
    private readonly signal: AbortSignal | undefined,
    /** The file's size when the open began (bytes). */
    private readonly size: number,
  ) {
    this.ended = new Promise((resolve) => {
      worker.on('message', (e: StretchEvent) => {
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

  /**
   * Starts the stretch's thread on a plain recording of at least options.minBytes that has not changed for
   * options.quietMs (null: the open reads it alone — a small, compressed or growing file, or one core).
   */
  static start(
    file: string,
    header: RecordingHeader,
    diagnosis: Partial<DiagnosisOptions>,
    diag: Diagnoser,
    options: ParallelOpenOptions = PARALLEL_OPEN,
    signal?: AbortSignal,
  ): ParallelDiagnosis | null {
    const st = fs.statSync(file);
    if (st.size < options.minBytes || Date.now() - st.mtimeMs < options.quietMs || compressed(file)) return null;
    if (!options.thread && os.availableParallelism() < 2) return null;
    const p = new ParallelDiagnosis((options.thread ?? workerThread)(), diag, signal, st.size);
    p.worker.postMessage({ file, header, from: Math.floor(st.size * options.share), diagnosis, budget: p.budget.buffer } satisfies StretchRequest);
    return p;
  }

  /** After each frame read and diagnosed here. */
  diagnosedHere(): void {
    // a budget that ran out is final (attribution.ts): the stretch need not wait for the cut to know it
    if (this.diag.cost.exhaustedAt !== null) this.budget.publish(this.diag.cost);
  }

  cutAt(): number {
    return this.used || this.closed || this.first === null ? Number.POSITIVE_INFINITY : this.first;
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
    this.used = { result: end, from };
    this.outcome = { kind: 'two-threads', from };
    this.close();
    return { columns: end.index, from: end.warmUp, lineShift: cut.line - end.firstLine, size: end.size };
  }

  /** The stretch's end, or a rejection with the open's abort reason. */
  private waitForEnd(): Promise<StretchResult | string> {
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
    this.outcome = { kind: 'read-on', from, why };
    this.close();
    return null;
  }

  /** Why the stretch is not the one-thread open's (null: it is; see the module comment). */
  private mismatch(r: StretchResult, indexed: Columns): string | null {
    if (r.unclean) return r.unclean;
    // its warm-up must be the last frames indexed here
    const from = indexed.count,
      w = r.warmUp;
    if (w > from) return 'the stretch read other frames than this thread';
    for (let k = 0; k < w; k++) if (indexed.offset[from - w + k] !== r.index.offset[k]) return 'the stretch read other frames than this thread';
    if (this.diag.blewUp) return 'the simulation blew up before the stretch';
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

  /**
   * After the open: the stretch's timeline rows, columns and findings appended to `builder` (the open's, which
   * diagnosed the frames before the cut) when it was used. Returns how the open read the recording and the frame
   * at which the re-solve budget ran out.
   */
  finish(builder: TimelineBuilder): { readonly outcome: ParallelOutcome; readonly resolveBudgetFrame: number | null } {
    this.close();
    const u = this.used;
    if (!u) return { outcome: this.outcome, resolveBudgetFrame: builder.resolveBudgetFrame };
    builder.appendRows(u.result.rows);
    // one consistency finding per recording: the first failing frame's, here if this thread found one
    const consistencyFound = this.diag.consistency !== null;
    const position = new Map(u.result.rows.t.frame.map((f, j) => [f, u.from + j]));
    const views: FindingView[] = [];
    for (const x of u.result.findings) if (!(consistencyFound && x.kind === 'inconsistent')) views.push(toFindingView(x, position.get(x.frame) ?? 0));
    builder.appendFindings(views);
    return { outcome: this.outcome, resolveBudgetFrame: this.diag.cost.exhaustedAt ?? u.result.exhaustedAt };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.budget.cancel();
    void this.worker.terminate();
  }
}
