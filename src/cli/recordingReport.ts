/**
 * What `report` computes of a recording, in ONE streaming pass (each frame parsed once, as the reader indexes
 * it): contacts, κ(A), iterations, energy, the ledger totals, the diagnosis' findings and the writer checks —
 * and, from the recording's sidecar cache when a previous pass left them there, without reading a frame.
 * `report`, `diagnose` and the many-recordings commands (runsCommand.ts) share it, so one recording has one
 * set of findings and one report everywhere.
 */
import type { RecordingReader } from '../format/recordingFile.js';
import type { RecordedFrame, RecordingHeader } from '../format/recording.js';
import type { CacheOptions } from '../format/sidecarCache.js';
import { Diagnoser, type DiagnosisOptions, type Finding, type FrameDiagnosis } from '../session/diagnose.js';
import { BATCH_DIAGNOSIS } from '../session/diagnosisRun.js';
import { type WriterCheck, WriterChecks } from '../session/writerChecks.js';
import { type KappaMax, type LedgerRow, type ReportRow, ReportRows, reportStretchThread } from './reportRows.js';
import { notRecorded, solverKind } from '../session/solverDeclarations.js';
import { openRecordingForCli, openRecordingForCliAsync } from './openRecording.js';
import { type ParallelOpenOptions, type ParallelOutcome, PARALLEL_THRESHOLDS, ParallelStretch, readsOnTwoThreads } from '../session/stretch/parallelStretch.js';

const quantile = (sorted: number[], q: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))];

/** The recording's energy ledger and injected joules per mechanism, summed frame by frame (Diagnoser.lastFrame). */
class LedgerTotals {
  readonly ledger: {
    normal: number;
    friction: number;
    positionCorrection: number;
    integrator: number;
    unexplained: number;
    manifold?: number;
    external?: number;
  } = { normal: 0, friction: 0, positionCorrection: 0, integrator: 0, unexplained: 0 };
  readonly injected: Record<string, number> = {};
  /** Frames whose recorded energy rises by more than 1 mJ. */
  dataRises = 0;

  add(L: LedgerRow): void {
    const ledger = this.ledger;
    ledger.normal += L.normal;
    ledger.friction += L.friction;
    ledger.positionCorrection += L.positionCorrection;
    ledger.unexplained += L.unexplained;
    // format 1.1 channels, listed only when the file has manifolds or external impulses
    if (L.manifold !== 0) ledger.manifold = (ledger.manifold ?? 0) + L.manifold;
    if (L.external !== 0) ledger.external = (ledger.external ?? 0) + L.external;
    if (Number.isFinite(L.integrator)) ledger.integrator += L.integrator;
    if (L.delta > 1e-3) this.dataRises++;
    for (const [m, j] of L.injected) this.injected[m] = (this.injected[m] ?? 0) + j;
  }
}

/** The diagnosis of a recording as `diagnose` prints it (what the cache keeps of a Diagnoser). */
export interface DiagnosisResult {
  readonly findings: readonly Finding[];
  readonly consistency: Diagnoser['consistency'];
  readonly cost: Diagnoser['cost'];
}

/** `report --json`'s object, without the file name (which the caller adds: the cache does not depend on it). */
export type RecordingReport = ReturnType<ReportBuilder['result']>;

/** Called with every frame of the pass, its diagnosis and its predecessor (the many-recordings export's rows). */
export type FrameHook = (f: RecordedFrame, diagnosis: FrameDiagnosis | undefined, header: RecordingHeader, prev: RecordedFrame | undefined) => void;

/** The report's accumulators, fed one frame at a time in order. */
class ReportBuilder {
  private readonly contacts: number[] = [];
  private readonly iterations: number[] = [];
  private failures = 0;
  private kappaMax: KappaMax | null = null;
  private kappaFrame = -1;
  private kappaRangeMax: number | null = null;
  private kappaRangeFrame = -1;
  private readonly rises: { frame: number; joules: number }[] = [];
  private firstE: number | undefined;
  private lastE: number | undefined;
  private prevE: number | undefined;
  private prev: RecordedFrame | undefined;
  private diag: Diagnoser | null = null;
  private rows: ReportRows | null = null;
  /** The diagnosis over both threads of a two-thread pass (appendStretch). */
  private merged: DiagnosisResult | null = null;
  private checks: WriterChecks | null = null;
  private readonly totals = new LedgerTotals();

  constructor(
    private readonly check: boolean,
    private readonly settings: Partial<DiagnosisOptions>,
    private readonly hook?: FrameHook,
  ) {}

  /** A frame was added (the diagnosis exists). */
  get started(): boolean {
    return this.diag !== null;
  }

  /** The findings of the frames added here (not those of a stretch appended after them). */
  get ownFindings(): readonly Finding[] {
    return this.diag?.findings ?? [];
  }

  /** The diagnosis (created at the first frame with the header as the reader has it then: its initial state included). */
  diagnoser(header: RecordingHeader): Diagnoser {
    // the same diagnosis as `diagnose` (batch budget, exact re-solves): one number per mechanism in both; keepFrames:
    // false — each frame's ledger and injected joules are added to the totals as they come (memory flat in the frames)
    this.diag ??= new Diagnoser(header, { ...this.settings, keepFrames: false });
    this.rows ??= new ReportRows(header, this.diag);
    if (this.check) this.checks ??= new WriterChecks(header);
    return this.diag;
  }

  add(f: RecordedFrame, header: RecordingHeader): void {
    const diag = this.diagnoser(header);
    this.fold(this.rows!.row(f));
    this.checks?.add(f);
    this.hook?.(f, diag.lastFrame, header, this.prev);
    this.prev = f;
  }

  /** The next frame's row (this pass's, or a later stretch's read on another thread: appendStretch). */
  private fold(r: ReportRow): void {
    this.contacts.push(r.contacts);
    if (r.iterations !== null) this.iterations.push(r.iterations); // frames with contacts only
    if (r.failed) this.failures++;
    const e = r.energy;
    if (e !== null) {
      this.firstE ??= e;
      if (this.prevE !== undefined && e > this.prevE + 1e-9 * Math.max(1, Math.abs(this.prevE))) this.rises.push({ frame: r.frame, joules: e - this.prevE });
      this.prevE = e;
      this.lastE = e;
    }
    if (r.ledger) this.totals.add(r.ledger);
    // the causes only for a new maximum, not for every frame (ReportRows gives them wherever one may be)
    if (r.kappa !== null && (this.kappaMax === null || r.kappa > this.kappaMax.kappa)) {
      if (!r.kappaMax) throw new Error(`the report's row of frame ${r.frame} raises the largest κ(A) without its analysis`);
      this.kappaMax = r.kappaMax;
      this.kappaFrame = r.frame;
    }
    if (r.kappaRange !== null && Number.isFinite(r.kappaRange) && (this.kappaRangeMax === null || r.kappaRange > this.kappaRangeMax)) {
      this.kappaRangeMax = r.kappaRange;
      this.kappaRangeFrame = r.frame;
    }
  }

  /** The rows of the frames after this pass's, read on another thread, and the diagnosis over both (findings in frame order). */
  appendStretch(rows: readonly ReportRow[], diagnosis: DiagnosisResult): void {
    for (const r of rows) this.fold(r);
    this.merged = diagnosis;
  }

  diagnosis(reader: RecordingReader): DiagnosisResult {
    if (this.merged) return this.merged;
    const d = this.diagnoser(reader.header);
    return { findings: d.findings, consistency: d.consistency, cost: d.cost };
  }

  result(reader: RecordingReader) {
    const header = reader.header,
      n = reader.frameCount;
    const diag = this.diagnoser(header);
    const cs = [...this.contacts].sort((a, b) => a - b),
      it = [...this.iterations].sort((a, b) => a - b);
    const { ledger, injected, dataRises } = this.totals;
    const findingCounts: Record<string, number> = {};
    const d = this.diagnosis(reader);
    for (const f of d.findings) findingCounts[f.mechanism] = (findingCounts[f.mechanism] ?? 0) + 1;
    const kappaMax = this.kappaMax;
    const checks: WriterCheck[] | null = this.checks ? this.checks.results(reader.errorCount, n, diag) : null;
    return {
      producer: header.producer,
      solverKind: solverKind(header),
      ...(header.converted?.length ? { converted: header.converted } : {}),
      ...(notRecorded(header) ? { notRecorded: notRecorded(header) } : {}),
      ...(header.initial ? { initialState: true } : {}),
      frames: n,
      bodies: header.bodies.length,
      contactsPerFrame: { max: cs.at(-1) ?? 0, median: quantile(cs, 0.5) },
      kappaMax: kappaMax?.kappa ?? null,
      kappaMaxFrame: this.kappaFrame >= 0 ? this.kappaFrame : null,
      ...(kappaMax ? { kappaMaxRank: { rows: kappaMax.rows, rankDeficiency: kappaMax.rankDeficiency, cause: kappaMax.cause } } : {}),
      kappaRangeMax: this.kappaRangeMax,
      kappaRangeMaxFrame: this.kappaRangeFrame >= 0 ? this.kappaRangeFrame : null,
      iterations: { p50: quantile(it, 0.5), p95: quantile(it, 0.95), max: it.at(-1) ?? 0 },
      solverFailures: this.failures,
      energyDrift: this.firstE !== undefined && this.lastE !== undefined ? this.lastE - this.firstE : null,
      energyRises: { count: this.rises.length, frames: this.rises.slice(0, 20) },
      skippedLines: reader.errorCount,
      errors: reader.errors.slice(0, 20).map((x) => x.message),
      warnings: reader.warnings,
      ledger,
      injected,
      framesGainingOver1mJ: dataRises,
      findings: findingCounts,
      consistency: d.consistency,
      ...(checks ? { checks } : {}),
    };
  }
}

/** Cache sections: the diagnosis (shared by report and diagnose) and the report (with and without the writer checks). */
const settingsKey = (d: Partial<DiagnosisOptions>): string =>
  d === BATCH_DIAGNOSIS ? 'batch' : JSON.stringify(Object.entries(d).sort(([a], [b]) => a.localeCompare(b)));
const diagnosisSection = (d: Partial<DiagnosisOptions>): string => `diagnosis:${settingsKey(d)}`;
const reportSection = (check: boolean, d: Partial<DiagnosisOptions>): string =>
  `report:${check ? 'checks' : 'plain'}${d === BATCH_DIAGNOSIS ? '' : `:${settingsKey(d)}`}`;

/** A recording's report and diagnosis, and its reader (open: the caller closes it). */
export interface ReportRun {
  readonly reader: RecordingReader;
  readonly report: RecordingReport;
  readonly diagnosis: DiagnosisResult;
  /** True when both came from the sidecar cache (no frame was read). */
  readonly cached: boolean;
}

export interface ReportOptions {
  /** Also run the writer checks. */
  readonly check?: boolean;
  readonly cache?: CacheOptions;
  /** Called with every frame of the pass: the pass always runs (the cache does not hold what the hook sees). */
  readonly hook?: FrameHook;
  /** Only the diagnosis is wanted: a cached diagnosis serves without a cached report. */
  readonly diagnosisOnly?: boolean;
  /** The diagnosis' settings (default BATCH_DIAGNOSIS, what `report` and `diagnose` use; tests set a smaller budget). */
  readonly diagnosis?: Partial<DiagnosisOptions>;
}

/** What serves a pass: the cache's sections unless a hook must see every frame. */
function framesWanted(options: ReportOptions, check: boolean): (c: { get(name: string): unknown }) => boolean {
  const d = options.diagnosis ?? BATCH_DIAGNOSIS;
  return (c) => options.hook !== undefined || !c.get(diagnosisSection(d)) || (!options.diagnosisOnly && !c.get(reportSection(check, d)));
}

/** The run from a reader that served the sections from its cache, or from a pass's builder (stored in the cache). */
function finishRun(reader: RecordingReader, builder: ReportBuilder, check: boolean, settings: Partial<DiagnosisOptions>): ReportRun {
  if (reader.fromCache) {
    const d = reader.cache.get(diagnosisSection(settings))!.json as DiagnosisResult;
    const r = reader.cache.get(reportSection(check, settings))?.json as RecordingReport | undefined;
    return { reader, report: r ?? ({} as RecordingReport), diagnosis: d, cached: true };
  }
  const report = builder.result(reader);
  const diagnosis = builder.diagnosis(reader);
  if (reader.cache.enabled) {
    reader.cache.set(diagnosisSection(settings), { json: diagnosis, arrays: {} });
    reader.cache.set(reportSection(check, settings), { json: report, arrays: {} });
    reader.cache.save();
  }
  return { reader, report, diagnosis, cached: false };
}

/**
 * The report and the diagnosis of a recording in one pass, or from its cache; a pass stores both in the cache
 * (written when the cache is enabled: see sidecarCache.ts).
 */
export function reportRecording(file: string, options: ReportOptions = {}): ReportRun {
  const check = options.check === true;
  const settings = options.diagnosis ?? BATCH_DIAGNOSIS;
  const builder = new ReportBuilder(check, settings, options.hook);
  const reader = openRecordingForCli(file, {
    cache: options.cache,
    needsFrames: framesWanted(options, check),
    onFrame: (_, f, header) => builder.add(f, header),
  });
  return finishRun(reader, builder, check, settings);
}

export type ReportParallelOptions = ParallelOpenOptions<ReportRow[]>;

/** A large plain recording's later stretch on a thread of its own (session/stretch/parallelStretch.ts). */
export const REPORT_PARALLEL: ReportParallelOptions = PARALLEL_THRESHOLDS;

/** Nothing needs every frame in this thread: neither the writer checks nor a hook. */
const mayUseTwoThreads = (options: ReportOptions): boolean => options.check !== true && !options.hook;

/**
 * `report` and `diagnose`: a large plain recording's pass on two threads (a promise), any other's in this call
 * (reportRecording).
 */
export function reportRecordingCli(file: string, options: ReportOptions): ReportRun | Promise<ReportRun> {
  return mayUseTwoThreads(options) && readsOnTwoThreads(file, REPORT_PARALLEL) ? twoThreadPass(file, options, REPORT_PARALLEL) : reportRecording(file, options);
}

/**
 * reportRecording, with a large plain recording's later stretch read on a second thread (`parallel`; null: one
 * thread) when nothing needs every frame here (the writer checks, a hook): the same report and diagnosis exactly
 * (the stretch's rows folded in frame order, its findings after this thread's, the re-solve budget handed over),
 * or the pass reads on alone (session/stretch/parallelStretch.ts).
 */
export async function reportRecordingParallel(
  file: string,
  options: ReportOptions = {},
  parallel: ReportParallelOptions | null = REPORT_PARALLEL,
): Promise<ReportRun & { readonly outcome: ParallelOutcome }> {
  if (!parallel || !mayUseTwoThreads(options)) return { ...reportRecording(file, options), outcome: { kind: 'one-thread' } };
  return twoThreadPass(file, options, parallel);
}

/** The pass with its later stretch on another thread when the file is one for it (ParallelStretch.start), else alone. */
async function twoThreadPass(
  file: string,
  options: ReportOptions,
  parallel: ReportParallelOptions,
): Promise<ReportRun & { readonly outcome: ParallelOutcome }> {
  const settings = options.diagnosis ?? BATCH_DIAGNOSIS;
  const builder = new ReportBuilder(false, settings);
  let split: ParallelStretch<ReportRow[]> | null = null;
  const part = (): ParallelStretch<ReportRow[]> | null => split;
  let reader: RecordingReader;
  try {
    reader = await openRecordingForCliAsync(file, {
      cache: options.cache,
      needsFrames: framesWanted(options, false), // no writer checks here (mayUseTwoThreads)
      onFrame: (_, f, header) => {
        if (!builder.started) split = ParallelStretch.start(file, header, settings, builder.diagnoser(header), parallel, reportStretchThread);
        builder.add(f, header);
        part()?.diagnosedHere();
      },
      stretch: {
        cutAt: () => part()?.cutAt() ?? Number.POSITIVE_INFINITY,
        rest: (cut, indexed) => part()?.rest(cut, indexed) ?? Promise.resolve(null),
      },
    });
  } finally {
    part()?.close();
  }
  const p = part();
  const used = p?.used;
  if (p && used)
    builder.appendStretch(used.result.payload, { findings: [...builder.ownFindings, ...p.stretchFindings()], consistency: p.consistency(), cost: p.cost() });
  return { ...finishRun(reader, builder, false, settings), outcome: p?.outcome ?? { kind: 'one-thread' } };
}
