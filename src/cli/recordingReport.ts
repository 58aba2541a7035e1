/**
 * What `report` computes of a recording, in ONE streaming pass (each frame parsed once, as the reader indexes
 * it): contacts, κ(A), iterations, energy, the ledger totals, the diagnosis' findings and the writer checks —
 * and, from the recording's sidecar cache when a previous pass left them there, without reading a frame.
 * `report`, `diagnose` and the many-recordings commands (runsCommand.ts) share it, so one recording has one
 * set of findings and one report everywhere.
 */
import type { RecordingReader } from '../format/recordingFile.js';
import { preSolveBodyStates, toContactPoint, type RecordedFrame, type RecordingHeader } from '../format/recording.js';
import type { CacheOptions } from '../format/sidecarCache.js';
import { ASSEMBLY_REGULARIZATION, assembleProblem } from '../engine/index.js';
import { buildIslands } from '../engine/index.js';
import { conditioningCauses } from '../engine/index.js';
import type { ContactProblem } from '../engine/index.js';
import { Diagnoser, type Finding, type FrameDiagnosis } from '../session/diagnose.js';
import { BATCH_DIAGNOSIS } from '../session/diagnosisRun.js';
import { exactIslandConditioning, type IslandConditioning } from '../session/conditioningEstimate.js';
import { type WriterCheck, WriterChecks } from '../session/writerChecks.js';
import { notRecorded, solverKind } from '../session/solverDeclarations.js';
import { openRecordingForCli } from './openRecording.js';

/** Islands larger than this many unknowns are not analysed for κ(A) by the report (cost ~n³). */
export const REPORT_KAPPA_MAX_UNKNOWNS = 300;

const quantile = (sorted: number[], q: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))];

/** The frame's worst island by κ(A), and the largest κ on the range of A over its islands (engine/conditioning.ts). */
interface FrameConditioning {
  /** The island with the largest κ(A): its problem and conditioning. */
  readonly problem: ContactProblem;
  readonly cond: IslandConditioning;
  /** Largest κ on the range of A over the frame's islands (the null directions of redundant contacts excluded). */
  readonly kappaRange: number;
}

/** κ(A), κ on the range and the rank of the frame's islands, re-assembled from the recorded contacts and pre-solve state. */
function frameConditioning(header: RecordingHeader, f: RecordedFrame, prev: RecordedFrame | undefined): FrameConditioning | null {
  if (f.contacts.length === 0) return null;
  const pre = preSolveBodyStates(header, f, prev);
  if (!pre.ok) return null;
  const contacts = f.contacts.map(toContactPoint);
  const isStatic = header.bodies.map((b) => b.static);
  let worst: { problem: ContactProblem; cond: IslandConditioning } | null = null;
  let kappaRange = -Infinity;
  for (const isl of buildIslands(
    isStatic.length,
    contacts.map((c) => [c.bodyA, c.bodyB] as const),
    isStatic,
  )) {
    if (3 * isl.contacts.length > REPORT_KAPPA_MAX_UNKNOWNS) continue;
    const problem = assembleProblem(
      pre.bodies,
      isl.contacts.map((i) => contacts[i]),
      { regularization: ASSEMBLY_REGULARIZATION, dt: header.dt },
    );
    const cond = exactIslandConditioning(problem.A, problem.size, ASSEMBLY_REGULARIZATION, problem);
    if (worst === null || cond.kappa > worst.cond.kappa) worst = { problem, cond };
    if (cond.kappaRange > kappaRange) kappaRange = cond.kappaRange;
  }
  return worst === null ? null : { ...worst, kappaRange };
}

/** The island with the recording's largest κ(A): its rows, rank deficiency and the first cause conditioningCauses names. */
export interface KappaMax {
  readonly kappa: number;
  readonly rows: number;
  readonly rankDeficiency: number;
  readonly cause: string | null;
}

function kappaMaxOf({ problem, cond }: FrameConditioning): KappaMax {
  const causes = cond.rankDeficiency > 0 ? conditioningCauses(problem, cond) : [];
  const cause = causes.find((c) => c.kind === 'redundant-contacts') ?? causes[0];
  return { kappa: cond.kappa, rows: problem.size, rankDeficiency: cond.rankDeficiency, cause: cause?.label ?? null };
}

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

  add(fd: FrameDiagnosis): void {
    const L = fd.ledger,
      ledger = this.ledger;
    ledger.normal += L.normal;
    ledger.friction += L.friction;
    ledger.positionCorrection += L.positionCorrection;
    ledger.unexplained += L.unexplained;
    // format 1.1 channels, listed only when the file has manifolds or external impulses
    if (L.manifold !== 0) ledger.manifold = (ledger.manifold ?? 0) + L.manifold;
    if (L.external !== 0) ledger.external = (ledger.external ?? 0) + L.external;
    if (Number.isFinite(L.integrator)) ledger.integrator += L.integrator;
    if (L.delta > 1e-3) this.dataRises++;
    for (const [m, j] of fd.injected) this.injected[m] = (this.injected[m] ?? 0) + j;
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
  private checks: WriterChecks | null = null;
  private readonly totals = new LedgerTotals();

  constructor(
    private readonly check: boolean,
    private readonly hook?: FrameHook,
  ) {}

  /** The diagnosis (created at the first frame with the header as the reader has it then: its initial state included). */
  diagnoser(header: RecordingHeader): Diagnoser {
    // the same diagnosis as `diagnose` (batch budget, exact re-solves): one number per mechanism in both; keepFrames:
    // false — each frame's ledger and injected joules are added to the totals as they come (memory flat in the frames)
    this.diag ??= new Diagnoser(header, { ...BATCH_DIAGNOSIS, keepFrames: false });
    if (this.check) this.checks ??= new WriterChecks(header);
    return this.diag;
  }

  add(f: RecordedFrame, header: RecordingHeader): void {
    const diag = this.diagnoser(header);
    const C = f.contacts.length;
    this.contacts.push(C);
    const iters = f.solver.iterations;
    if (iters !== undefined && iters >= 0 && C > 0) this.iterations.push(Math.min(iters, 0xffffffff)); // frames with contacts only
    if (f.solver.status === 'failed') this.failures++;
    const e = f.energy?.total;
    if (e !== undefined) {
      this.firstE ??= e;
      if (this.prevE !== undefined && e > this.prevE + 1e-9 * Math.max(1, Math.abs(this.prevE))) this.rises.push({ frame: f.frame, joules: e - this.prevE });
      this.prevE = e;
      this.lastE = e;
    }
    diag.add(f);
    if (diag.lastFrame) this.totals.add(diag.lastFrame);
    this.checks?.add(f);
    const k = frameConditioning(header, f, this.prev);
    // the causes only for a new maximum, not for every frame
    if (k !== null && (this.kappaMax === null || k.cond.kappa > this.kappaMax.kappa)) {
      this.kappaMax = kappaMaxOf(k);
      this.kappaFrame = f.frame;
    }
    if (k !== null && Number.isFinite(k.kappaRange) && (this.kappaRangeMax === null || k.kappaRange > this.kappaRangeMax)) {
      this.kappaRangeMax = k.kappaRange;
      this.kappaRangeFrame = f.frame;
    }
    this.hook?.(f, diag.lastFrame, header, this.prev);
    this.prev = f;
  }

  diagnosis(reader: RecordingReader): DiagnosisResult {
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
    for (const f of diag.findings) findingCounts[f.mechanism] = (findingCounts[f.mechanism] ?? 0) + 1;
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
      consistency: diag.consistency,
      ...(checks ? { checks } : {}),
    };
  }
}

/** Cache sections: the diagnosis (shared by report and diagnose) and the report (with and without the writer checks). */
const DIAGNOSIS_SECTION = 'diagnosis:batch';
const reportSection = (check: boolean): string => `report:${check ? 'checks' : 'plain'}`;

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
}

/**
 * The report and the diagnosis of a recording in one pass, or from its cache; a pass stores both in the cache
 * (written when the cache is enabled: see sidecarCache.ts).
 */
export function reportRecording(file: string, options: ReportOptions = {}): ReportRun {
  const check = options.check === true;
  const wanted = (c: { get(name: string): unknown }): boolean =>
    options.hook !== undefined || !c.get(DIAGNOSIS_SECTION) || (!options.diagnosisOnly && !c.get(reportSection(check)));
  const builder = new ReportBuilder(check, options.hook);
  const reader = openRecordingForCli(file, { cache: options.cache, needsFrames: wanted, onFrame: (_, f, header) => builder.add(f, header) });
  if (reader.fromCache) {
    const d = reader.cache.get(DIAGNOSIS_SECTION)!.json as DiagnosisResult;
    const r = reader.cache.get(reportSection(check))?.json as RecordingReport | undefined;
    return { reader, report: r ?? ({} as RecordingReport), diagnosis: d, cached: true };
  }
  const report = builder.result(reader);
  const diagnosis = builder.diagnosis(reader);
  if (reader.cache.enabled) {
    reader.cache.set(DIAGNOSIS_SECTION, { json: diagnosis, arrays: {} });
    reader.cache.set(reportSection(check), { json: report, arrays: {} });
    reader.cache.save();
  }
  return { reader, report, diagnosis, cached: false };
}
