/**
 * What `report` takes of each frame (a ReportRow), computed where the frame is read: by the report's own pass, or by
 * the thread that reads a large recording's later stretch (reportStretch.ts, session/stretch/); recordingReport.ts
 * folds the rows in frame order, so that both give the same report to the last digit.
 */
import { ASSEMBLY_REGULARIZATION, assembleProblem, buildIslands, type ContactProblem, conditioningCauses } from '../engine/index.js';
import { preSolveBodyStates, type RecordedFrame, type RecordingHeader, toContactPoint } from '../format/recording.js';
import { exactIslandConditioning, type IslandConditioning } from '../session/conditioningEstimate.js';
import type { Diagnoser } from '../session/diagnose.js';
import type { StretchConsumerFactory, StretchThread } from '../session/stretch/stretchDiagnosis.js';
import { startThread } from '../session/threadScript.js';

/** Islands larger than this many unknowns are not analysed for κ(A) by the report (cost ~n³). */
export const REPORT_KAPPA_MAX_UNKNOWNS = 300;

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

/** A frame's energy ledger by channel and injected joules per mechanism, as the diagnosis left them (Diagnoser.lastFrame). */
export interface LedgerRow {
  readonly normal: number;
  readonly friction: number;
  readonly positionCorrection: number;
  readonly unexplained: number;
  readonly manifold: number;
  readonly external: number;
  readonly integrator: number;
  readonly delta: number;
  /** In the diagnosis' order. */
  readonly injected: [string, number][];
}

/** What the report takes of one frame. */
export interface ReportRow {
  readonly frame: number;
  readonly contacts: number;
  /** The solver's iterations of a frame with contacts (null: none recorded, or no contacts). */
  readonly iterations: number | null;
  readonly failed: boolean;
  /** The recorded total energy (null: none recorded). */
  readonly energy: number | null;
  /** The diagnosis' ledger after this frame (null: none yet). */
  readonly ledger: LedgerRow | null;
  /** κ(A) of the frame's worst island and the largest κ on the range (null: no island analysed). */
  readonly kappa: number | null;
  readonly kappaRange: number | null;
  /**
   * The worst island's κ, size, rank and cause, wherever this frame may hold the recording's largest κ: the first
   * frame with a κ and every frame whose κ exceeds each κ (not NaN) before it in the same pass (the causes cost a
   * conditioning analysis: not computed for every frame).
   */
  readonly kappaMax: KappaMax | null;
}

/** Makes the report's rows of a pass's frames, in order, with the pass's diagnosis (run here: diag.add). */
export class ReportRows {
  private prev: RecordedFrame | undefined;
  /** Largest κ (not NaN) of this pass so far, and whether any frame had a κ. */
  private kappaSeen = Number.NEGATIVE_INFINITY;
  private anyKappa = false;

  constructor(
    private readonly header: RecordingHeader,
    private readonly diag: Diagnoser,
  ) {}

  row(f: RecordedFrame): ReportRow {
    const C = f.contacts.length;
    const iters = f.solver.iterations;
    const e = f.energy?.total;
    this.diag.add(f);
    const fd = this.diag.lastFrame;
    const k = frameConditioning(this.header, f, this.prev);
    let kappaMax: KappaMax | null = null;
    if (k !== null) {
      const kappa = k.cond.kappa;
      if (!this.anyKappa || kappa > this.kappaSeen) kappaMax = kappaMaxOf(k);
      this.anyKappa = true;
      if (kappa > this.kappaSeen) this.kappaSeen = kappa;
    }
    this.prev = f;
    return {
      frame: f.frame,
      contacts: C,
      iterations: iters !== undefined && iters >= 0 && C > 0 ? Math.min(iters, 0xffffffff) : null,
      failed: f.solver.status === 'failed',
      energy: e === undefined ? null : e,
      ledger: fd ? ledgerRow(fd.ledger, fd.injected) : null,
      kappa: k === null ? null : k.cond.kappa,
      kappaRange: k === null ? null : k.kappaRange,
      kappaMax,
    };
  }
}

function ledgerRow(
  L: {
    normal: number;
    friction: number;
    positionCorrection: number;
    unexplained: number;
    manifold: number;
    external: number;
    integrator: number;
    delta: number;
  },
  injected: ReadonlyMap<string, number>,
): LedgerRow {
  return {
    normal: L.normal,
    friction: L.friction,
    positionCorrection: L.positionCorrection,
    unexplained: L.unexplained,
    manifold: L.manifold,
    external: L.external,
    integrator: L.integrator,
    delta: L.delta,
    injected: [...injected],
  };
}

/** A stretch's part for `report` and `diagnose` (session/stretch/): the rows of its frames after the warm-up. */
export const reportStretch: StretchConsumerFactory<ReportRow[]> = (header, diag) => {
  const rows = new ReportRows(header, diag);
  const out: ReportRow[] = [];
  return {
    add(f, counted) {
      const r = rows.row(f);
      if (counted) out.push(r);
    },
    result: () => out,
  };
};

/** The stretch's worker thread (bundle dist/reportStretch.js). */
export const reportStretchThread = (): StretchThread<ReportRow[]> =>
  startThread('reportStretch', '../cli/reportStretchThread') as unknown as StretchThread<ReportRow[]>;
