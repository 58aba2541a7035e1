/**
 * Projected Gauss–Seidel, written once against the rows of pgsRows.ts (dense A or matrix-free J·Δv), two
 * friction laws (docs/physics.md "PGS"; Erleben 2007, "Velocity-based shock propagation"; Catto GDC 2005):
 *
 * coulomb-disk (sequential impulses, the default of most game engines): per contact, the normal row
 *   λn ← max(0, λn − wₙ/Aₙₙ), then the tangent pair λt ← λt − w_t/λmax(A_tt) (one step for both rows)
 *   clamped to the disk ‖λt‖ ≤ μλn. Fixed point: 0 ≤ λn ⊥ wₙ ≥ 0 and λt on the disk opposing w_t (Coulomb's law with
 *   maximal dissipation in the tangent plane). It is NOT the QP-SOCP optimum when a contact slides: the
 *   QP-SOCP's KKT conditions force wₙ = μ‖w_t‖ > 0 there, PGS keeps wₙ = 0. The solver then reports
 *   "stalled" with the KKT residual, never "converged".
 * cone: projected block Gauss–Seidel λᵢ ← Proj_K(λᵢ − sᵢ wᵢ) with sᵢ ≤ 1/λmax(Aᵢᵢ): block coordinate
 *   descent on f, whose fixed points are exactly the QP-SOCP KKT points (natural map, docs/physics.md "The QP-SOCP and its KKT conditions").
 *
 * Options: warm-start factor, per-contact diagonal scaling (cone mode: sᵢ from the contact's own block
 * instead of one step for all; row-wise Gauss–Seidel in coulomb-disk mode is invariant under diagonal
 * scaling, so there it changes nothing), regularisation A + εI inside the sweep only (the KKT residual
 * is always measured on A). The exact KKT residual is measured at the start and after every sweep
 * (history entry k after k sweeps), or, on the world step's schedule 'doubling', only after sweeps
 * 1, 2, 4, 8, … and the last one (history.iterations says which; docs/physics.md "PGS"): the status is
 * decided on the exact KKT of the returned λ in both.
 */
import type { ContactProblem } from '../problem.js';
import { KktWorkspace, type KktReport } from '../kkt.js';
import { HistoryRecorder } from './history.js';
import { projectAll } from './projectedSteps.js';
import { denseRows, type PgsRows } from './pgsRows.js';
import { type SweepOutcome, type SweepParams, sweepParams } from './pgsSweep.js';
import type { AlgorithmOutput, PgsOptions, SolveStatus } from './types.js';
import { formatCount, formatNumber } from '../numberText.js';

/**
 * After which sweeps the exact KKT residual is measured (and convergence tested): 'every' sweep, or
 * 'doubling': sweeps 1, 2, 4, 8, … and the last one, about log₂(iterations) KKT evaluations instead of one
 * per sweep (each costs about as much as a sweep). The change-based fixed-point test runs every sweep in both.
 */
export type ResidualSweeps = 'every' | 'doubling';

/** Is sweep k (≥ 1) one where the KKT residual is measured? */
function measuredSweep(k: number, schedule: ResidualSweeps): boolean {
  return schedule === 'every' || (k & (k - 1)) === 0;
}

export const PGS_DEFAULTS = {
  maxIterations: 200,
  tolerance: 1e-6,
  warmStartFactor: 1,
  regularization: 0,
  /** ‖Δλ‖∞ ≤ this·‖λ‖∞ means the iteration has reached its own fixed point (change-based stopping test). */
  fixedPointTolerance: 1e-13,
} as const;

/** What the PGS kernel returns: the algorithm output plus the KKT report and w = Aλ − b at the returned λ. */
export interface PgsOutput extends AlgorithmOutput {
  readonly w: Float64Array;
  readonly kkt: KktReport;
}

/** Dense PGS: the kernel on the rows of A. */
export function solvePgs(p: ContactProblem, opts: PgsOptions, warmStart?: Float64Array): AlgorithmOutput {
  return runPgs(denseRows(p), opts, warmStart);
}

/** Cone-mode block steps sᵢ = 1/(max abs row sum of Aᵢᵢ + ε) ≤ 1/λmax: one common step unless diagonal scaling is on. */
function blockSteps(rows: PgsRows, eps: number, perContact: boolean): Float64Array {
  const C = rows.contactCount,
    D = rows.diagonal,
    step = new Float64Array(C);
  let maxBound = 0;
  for (let c = 0; c < C; c++) {
    const d = 9 * c;
    let bound = 0;
    for (let r = 0; r < 3; r++) bound = Math.max(bound, Math.abs(D[d + 3 * r]) + Math.abs(D[d + 3 * r + 1]) + Math.abs(D[d + 3 * r + 2]));
    step[c] = bound + eps;
    maxBound = Math.max(maxBound, step[c]);
  }
  for (let c = 0; c < C; c++) step[c] = 1 / (perContact ? (step[c] > 0 ? step[c] : 1) : maxBound > 0 ? maxBound : 1);
  return step;
}

/**
 * runPgs' working arrays (KKT workspace, per-contact sweep steps) kept between solves by a caller that solves one
 * island at a time (solvePgsMatrixFree): grown, never shrunk; nothing returned by runPgs points into them.
 */
export class PgsScratch {
  private ws = new KktWorkspace(0);
  private normalDiag = new Float64Array(0);
  private tangentMax = new Float64Array(0);

  /** A workspace for at least n rows (its w and Aλ may be longer: only the first n entries are used). */
  workspace(n: number): KktWorkspace {
    if (this.ws.w.length < n) this.ws = new KktWorkspace(Math.max(n, 2 * this.ws.w.length));
    return this.ws;
  }

  /** Views of C entries for sweepParams' steps. */
  steps(C: number): { normalDiag: Float64Array; tangentMax: Float64Array } {
    if (this.normalDiag.length < C) {
      const cap = Math.max(C, 2 * this.normalDiag.length);
      this.normalDiag = new Float64Array(cap);
      this.tangentMax = new Float64Array(cap);
    }
    return { normalDiag: this.normalDiag.subarray(0, C), tangentMax: this.tangentMax.subarray(0, C) };
  }
}

/** The PGS iteration on any row storage; `label` is appended to non-converged reasons (e.g. "matrix-free"). */
export function runPgs(
  rows: PgsRows,
  opts: PgsOptions,
  warmStart?: Float64Array,
  label = '',
  schedule: ResidualSweeps = 'every',
  scratch?: PgsScratch,
): PgsOutput {
  const { size: n, contactCount: C } = rows;
  const maxIt = opts.maxIterations ?? PGS_DEFAULTS.maxIterations;
  const tol = opts.tolerance ?? PGS_DEFAULTS.tolerance;
  const eps = opts.regularization ?? PGS_DEFAULTS.regularization;
  const fpTol = opts.fixedPointTolerance ?? PGS_DEFAULTS.fixedPointTolerance;
  const law = opts.friction ?? 'coulomb-disk';
  const suffix = label ? `; ${label}` : '';
  const hist = new HistoryRecorder(maxIt + 1);
  const ws = scratch ? scratch.workspace(n) : new KktWorkspace(n);
  const lam = new Float64Array(n);

  if (warmStart) {
    const k = opts.warmStartFactor ?? PGS_DEFAULTS.warmStartFactor;
    for (let i = 0; i < n; i++) lam[i] = k * warmStart[i];
    projectAll(rows, lam, lam);
    for (let c = 0; c < C; c++) rows.changed(c, lam[3 * c], lam[3 * c + 1], lam[3 * c + 2]);
  }
  const step = law === 'cone' ? blockSteps(rows, eps, opts.diagonalScaling === true) : null;
  const params = sweepParams(rows, eps, step, scratch?.steps(C));
  const moved: SweepOutcome = new Float64Array(2);
  const objective = new Float64Array(1);
  const measure = (): KktReport => {
    const r = rows.kkt(lam, ws, objective);
    hist.record(r.maxRel, objective[0], iterations);
    return r;
  };

  let status: SolveStatus | null = null;
  let iterations = 0;
  for (;;) {
    // The exact KKT residual: at the start, after the scheduled sweeps and after the last one.
    if (iterations === 0 || iterations >= maxIt || measuredSweep(iterations, schedule)) {
      const r = measure();
      if (r.maxRel <= tol) {
        status = { kind: 'converged' };
        break;
      }
      if (iterations >= maxIt) {
        status = {
          kind: 'max-iterations',
          reason: `KKT max_rel ${formatNumber(r.maxRel)} > ${formatNumber(tol)} after ${formatCount(iterations, 'sweep')} (worst contact ${r.worstContact}${suffix})`,
        };
        break;
      }
    }
    iterations++;
    rows.sweep(lam, params, moved);
    if (moved[0] <= fpTol * moved[1]) {
      const r2 = measure();
      if (r2.maxRel <= tol) {
        status = { kind: 'converged' };
        break;
      }
      status = stalledStatus(law, r2, tol, suffix);
      break;
    }
  }
  return {
    lambda: lam,
    iterations,
    status,
    regularization: eps,
    history: hist.finish(schedule === 'doubling'),
    w: ws.w.slice(0, n),
    kkt: { ...ws.report },
  };
}

/**
 * The same Gauss–Seidel iteration continued from a given λ (e.g. a recorded one), without stopping tests or KKT
 * evaluations: λ is projected onto the cones once, then `sweep(n)` runs n more sweeps in place. The diagnosis
 * uses it to ask whether more iterations of the engine's own kind remove an energy injection (docs/physics.md
 * "Which law the impulses obey"). No allocation per sweep.
 */
export class GaussSeidelContinuation {
  readonly lambda: Float64Array;
  private readonly params: SweepParams;
  private readonly moved: SweepOutcome = new Float64Array(2);
  /** Sweeps run so far. */
  sweeps = 0;

  constructor(
    private readonly rows: PgsRows,
    start: ArrayLike<number>,
    law: PgsOptions['friction'] = 'coulomb-disk',
  ) {
    const C = rows.contactCount;
    this.lambda = new Float64Array(rows.size);
    projectAll(rows, start, this.lambda);
    for (let c = 0; c < C; c++) rows.changed(c, this.lambda[3 * c], this.lambda[3 * c + 1], this.lambda[3 * c + 2]);
    this.params = sweepParams(rows, 0, law === 'cone' ? blockSteps(rows, 0, false) : null);
  }

  /** Runs n more sweeps; returns the largest |Δλ| of the last one relative to the largest |λ| (0 at a fixed point). */
  sweep(n: number): number {
    for (let k = 0; k < n; k++) this.rows.sweep(this.lambda, this.params, this.moved);
    this.sweeps += n;
    return this.moved[1] > 0 ? this.moved[0] / this.moved[1] : 0;
  }
}

function stalledStatus(law: string, r: KktReport, tol: number, suffix: string): SolveStatus {
  const why =
    law === 'coulomb-disk'
      ? 'the sequential-impulse fixed point (Coulomb disk law) is not a QP-SOCP KKT point'
      : 'the iteration stopped moving before the KKT residual reached the tolerance';
  return { kind: 'stalled', reason: `${why}: KKT max_rel ${formatNumber(r.maxRel)} > ${formatNumber(tol)} (worst contact ${r.worstContact}${suffix})` };
}
