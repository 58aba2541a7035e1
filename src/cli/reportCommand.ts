/** `contact-lens report <rec.jsonl> [--json]`: one streaming pass over a recording, then a summary. */
import { safePath } from '../format/messages.js';
import type { RecordingReader } from '../format/recordingFile.js';
import { preSolveBodyStates, toContactPoint, type RecordedFrame } from '../format/recording.js';
import {
  assembleProblem,
  ASSEMBLY_REGULARIZATION,
  buildIslands,
  conditioningCauses,
  type ContactProblem,
  formatCount,
  formatNumber,
  formatSigned,
} from '../engine/index.js';
import { parseArgs, UsageError } from './args.js';
import { requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { openRecordingForCli } from './openRecording.js';
import type { Output } from './solveCommand.js';
import { printRecordingIssues } from './recordingIssues.js';
import { Diagnoser, type FrameDiagnosis } from '../session/diagnose.js';
import { BATCH_DIAGNOSIS } from '../session/diagnosisRun.js';
import { exactIslandConditioning, type IslandConditioning } from '../session/conditioningEstimate.js';
import { WriterChecks } from '../session/writerChecks.js';
import { notRecorded, solverKind } from '../session/solverDeclarations.js';

export const REPORT_HELP: CommandHelp = {
  command: 'report',
  synopsis: 'report <rec.jsonl | rec.jsonl.gz> [--check] [--json]',
  summary: "summarises a recording (ours or another engine's) in one streaming pass",
  description: [
    "Reads a recording (docs/recording-format.md), ours or another engine's, in one pass: contacts per frame,",
    'κ(A), solver iterations and failures, energy drift, the energy ledger by channel and the findings',
    '(from the ledger alone: `diagnose` confirms them with exact re-solves).',
  ],
  options: [
    ['--check', 'also run the writer checks for engine authors (docs/engine-authors.md); exit 1 if one fails'],
    ['--json', 'the summary as one JSON object'],
  ],
  example: 'report examples/foreign-engine.rec.jsonl --check',
};

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
function frameConditioning(reader: RecordingReader, f: RecordedFrame, prev: RecordedFrame | undefined): FrameConditioning | null {
  if (f.contacts.length === 0) return null;
  const pre = preSolveBodyStates(reader.header, f, prev);
  if (!pre.ok) return null;
  const contacts = f.contacts.map(toContactPoint);
  const isStatic = reader.header.bodies.map((b) => b.static);
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
      { regularization: ASSEMBLY_REGULARIZATION, dt: reader.header.dt },
    );
    const cond = exactIslandConditioning(problem.A, problem.size, ASSEMBLY_REGULARIZATION, problem);
    if (worst === null || cond.kappa > worst.cond.kappa) worst = { problem, cond };
    if (cond.kappaRange > kappaRange) kappaRange = cond.kappaRange;
  }
  return worst === null ? null : { ...worst, kappaRange };
}

/** The island with the recording's largest κ(A): its rows, rank deficiency and the first cause conditioningCauses names. */
interface KappaMax {
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

/** Why the largest κ(A) is what it is, when that island is rank deficient. */
function kappaRankNote(k: KappaMax): string {
  if (k.rankDeficiency === 0) return '';
  return ` (rank ${k.rows - k.rankDeficiency} of ${formatCount(k.rows, 'row')}${k.cause ? ` — ${k.cause}` : ''}: κ(A) there is set by the regularisation ε)`;
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

export function runReport(argv: readonly string[], io: Output): number {
  const { positionals, options } = parseArgs(argv, [], ['json', 'check']);
  if (positionals.length !== 1) throw new UsageError(`expected one recording\nusage: contact-lens ${REPORT_HELP.synopsis}`);
  const file = positionals[0];
  requireKind(file, 'report', ['recording']);
  const reader = openRecordingForCli(file);
  try {
    const pass = readAllFrames(reader, options.get('check') === true);
    const report = reportOf(file, reader, pass);
    const checksFailed = report.checks?.some((c) => c.outcome === 'failed') ?? false;
    printRecordingIssues(reader, io);
    if (options.get('json')) io.out(JSON.stringify(report));
    else printReport(io, file, reader, report, pass);
    return checksFailed ? 1 : 0;
  } finally {
    reader.close();
  }
}

/** What one pass over every frame of a recording gathers for the report. */
interface ReportPass {
  readonly contacts: number[];
  readonly iterations: number[];
  readonly failures: number;
  readonly kappaMax: KappaMax | null;
  readonly kappaFrame: number;
  readonly kappaRangeMax: number | null;
  readonly kappaRangeFrame: number;
  readonly rises: { frame: number; joules: number }[];
  readonly firstE: number | undefined;
  readonly lastE: number | undefined;
  readonly diag: Diagnoser;
  readonly totals: LedgerTotals;
  readonly writerChecks: WriterChecks | null;
}

/** One streaming pass: summaries, energies, the diagnosis, conditioning maxima and (with --check) the writer checks. */
function readAllFrames(reader: RecordingReader, check: boolean): ReportPass {
  const n = reader.frameCount;
  const contacts: number[] = [],
    iterations: number[] = [];
  let failures = 0,
    kappaMax: KappaMax | null = null,
    kappaFrame = -1,
    kappaRangeMax: number | null = null,
    kappaRangeFrame = -1;
  const rises: { frame: number; joules: number }[] = [];
  let firstE: number | undefined, lastE: number | undefined, prevE: number | undefined, prev: RecordedFrame | undefined;
  // the same diagnosis as `diagnose` (batch budget, exact re-solves): one number per mechanism in both; keepFrames:
  // false — each frame's ledger and injected joules are added to the totals as they come (memory flat in the frames)
  const diag = new Diagnoser(reader.header, { ...BATCH_DIAGNOSIS, keepFrames: false });
  const totals = new LedgerTotals();
  const writerChecks = check ? new WriterChecks(reader.header) : null;
  for (let i = 0; i < n; i++) {
    const s = reader.summary(i);
    contacts.push(s.contacts);
    if (s.iterations !== undefined && s.contacts > 0) iterations.push(s.iterations); // frames with contacts only
    if (s.status === 'failed') failures++;
    const f = reader.frame(i);
    const e = f.energy?.total;
    if (e !== undefined) {
      firstE ??= e;
      if (prevE !== undefined && e > prevE + 1e-9 * Math.max(1, Math.abs(prevE))) rises.push({ frame: f.frame, joules: e - prevE });
      prevE = e;
      lastE = e;
    }
    diag.add(f);
    if (diag.lastFrame) totals.add(diag.lastFrame);
    writerChecks?.add(f);
    const k = frameConditioning(reader, f, prev);
    // the causes only for a new maximum, not for every frame
    if (k !== null && (kappaMax === null || k.cond.kappa > kappaMax.kappa)) {
      kappaMax = kappaMaxOf(k);
      kappaFrame = f.frame;
    }
    if (k !== null && Number.isFinite(k.kappaRange) && (kappaRangeMax === null || k.kappaRange > kappaRangeMax)) {
      kappaRangeMax = k.kappaRange;
      kappaRangeFrame = f.frame;
    }
    prev = f;
  }
  return { contacts, iterations, failures, kappaMax, kappaFrame, kappaRangeMax, kappaRangeFrame, rises, firstE, lastE, diag, totals, writerChecks };
}

/** The report's fields (`--json` prints them as they are; the text form reads them). */
function reportOf(file: string, reader: RecordingReader, pass: ReportPass) {
  const { contacts, iterations, failures, kappaMax, kappaFrame, kappaRangeMax, kappaRangeFrame, rises, firstE, lastE, diag, totals, writerChecks } = pass;
  const n = reader.frameCount;
  const cs = [...contacts].sort((a, b) => a - b),
    it = [...iterations].sort((a, b) => a - b);
  const { ledger, injected, dataRises } = totals;
  const findingCounts: Record<string, number> = {};
  for (const f of diag.findings) findingCounts[f.mechanism] = (findingCounts[f.mechanism] ?? 0) + 1;
  return {
    file,
    producer: reader.header.producer,
    solverKind: solverKind(reader.header),
    ...(reader.header.converted?.length ? { converted: reader.header.converted } : {}),
    ...(notRecorded(reader.header) ? { notRecorded: notRecorded(reader.header) } : {}),
    ...(reader.header.initial ? { initialState: true } : {}),
    frames: n,
    bodies: reader.header.bodies.length,
    contactsPerFrame: { max: cs.at(-1) ?? 0, median: quantile(cs, 0.5) },
    kappaMax: kappaMax?.kappa ?? null,
    kappaMaxFrame: kappaFrame >= 0 ? kappaFrame : null,
    ...(kappaMax ? { kappaMaxRank: { rows: kappaMax.rows, rankDeficiency: kappaMax.rankDeficiency, cause: kappaMax.cause } } : {}),
    kappaRangeMax,
    kappaRangeMaxFrame: kappaRangeFrame >= 0 ? kappaRangeFrame : null,
    iterations: { p50: quantile(it, 0.5), p95: quantile(it, 0.95), max: it.at(-1) ?? 0 },
    solverFailures: failures,
    energyDrift: firstE !== undefined && lastE !== undefined ? lastE - firstE : null,
    energyRises: { count: rises.length, frames: rises.slice(0, 20) },
    skippedLines: reader.errorCount,
    errors: reader.errors.slice(0, 20).map((x) => x.message),
    warnings: reader.warnings,
    ledger,
    injected,
    framesGainingOver1mJ: dataRises,
    findings: findingCounts,
    consistency: diag.consistency,
    ...(writerChecks ? { checks: writerChecks.results(reader.errorCount, n, diag) } : {}),
  };
}

type Report = ReturnType<typeof reportOf>;

/** The report as text lines. */
function printReport(io: Output, file: string, reader: RecordingReader, report: Report, pass: ReportPass): void {
  const { failures, kappaMax, kappaFrame, kappaRangeMax, kappaRangeFrame, rises, diag } = pass;
  const { ledger, injected, findings: findingCounts } = report;
  const n = reader.frameCount;
  io.out(
    `${safePath(file)}: ${formatCount(n, 'frame')}, ${formatCount(report.bodies, 'body', 'bodies')}, written by ${reader.header.producer.name}${reader.header.producer.version ? ' ' + reader.header.producer.version : ''}`,
  );
  if (reader.header.converted?.length) io.out(`conventions converted on read: ${reader.header.converted.join('; ')}`);
  const missing = notRecorded(reader.header);
  if (missing) io.out(`λ: ${missing}`);
  if (reader.header.initial) io.out('initial state: recorded (the first frame is diagnosed like any other)');
  io.out(`contacts per frame: max ${report.contactsPerFrame.max}, median ${report.contactsPerFrame.median}`);
  io.out(
    `κ(A) max: ${kappaMax === null ? 'n/a (no re-assemblable frame)' : `${formatNumber(kappaMax.kappa)} at frame ${kappaFrame}${kappaRankNote(kappaMax)}`}`,
  );
  if (kappaRangeMax !== null)
    io.out(
      `κ on the range of A max: ${formatNumber(kappaRangeMax)} at frame ${kappaRangeFrame} (null directions of redundant contacts excluded; docs/physics.md "Conditioning")`,
    );
  const kind = solverKind(reader.header);
  if (kind)
    io.out(
      `solver kind: ${kind}${kind === 'iterative-fixed' ? " (a fixed iteration count: the frames' statuses are labels, not convergence tests; the diagnosis judges the data)" : ''}`,
    );
  io.out(`solver iterations: p50 ${report.iterations.p50}, p95 ${report.iterations.p95}, max ${report.iterations.max}; failures: ${failures}`);
  io.out(`energy drift: ${report.energyDrift === null ? 'n/a (no energy recorded)' : `${formatSigned(report.energyDrift)} J`}`);
  io.out(
    `frames where total energy rose: ${rises.length}${
      rises.length
        ? ' (' +
          rises
            .slice(0, 8)
            .map((r) => `${r.frame}: ${formatSigned(r.joules)} J`)
            .join(', ') +
          (rises.length > 8 ? ', …' : '') +
          ')'
        : ''
    }`,
  );
  const J = (x: number): string => `${formatSigned(x)} J`;
  io.out(
    `energy ledger (Σ over frames, from the recorded states and λ): contact normal work ${J(ledger.normal)}, friction ${J(ledger.friction)}, position correction ${J(ledger.positionCorrection)}, integrator ${J(ledger.integrator)}, unexplained by λ ${J(ledger.unexplained)}${ledger.manifold !== undefined ? `, manifold friction and twist ${J(ledger.manifold)}` : ''}${ledger.external !== undefined ? `, external impulses ${J(ledger.external)}` : ''}`,
  );
  const inj = Object.entries(injected).sort((a, b) => b[1] - a[1]);
  io.out(
    `injected energy by mechanism (the joules of the findings \`diagnose\` prints): ${inj.length ? inj.map(([m, j]) => `${m} ${J(j)}`).join(', ') : 'none'}`,
  );
  io.out(
    `findings: ${
      Object.keys(findingCounts).length
        ? Object.entries(findingCounts)
            .map(([m, c]) => `${m} ×${c}`)
            .join(', ')
        : 'none'
    }`,
  );
  if (diag.consistency)
    io.out(
      `inconsistent recording: ${diag.consistency.frames} of ${formatCount(diag.consistency.checked, 'checked frame')}, first at frame ${diag.consistency.firstFrame}: ${diag.consistency.text}`,
    );
  if (reader.errorCount > 0) io.out(`skipped ${formatCount(reader.errorCount, 'bad line')} (listed on stderr)`);
  if (report.checks) {
    io.out('writer checks (docs/engine-authors.md):');
    for (const c of report.checks) io.out(`  ${c.outcome === 'ok' ? 'ok    ' : c.outcome === 'failed' ? 'FAILED' : 'n/a   '} ${c.name}: ${c.detail}`);
  }
}
