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
 *   descent on f, whose fixed points are exactly the QP-SOCP KKT points (natural map, oracle FORMAT.md).
 *
 * Options: warm-start factor, per-contact diagonal scaling (cone mode: sᵢ from the contact's own block
 * instead of one step for all; row-wise Gauss–Seidel in coulomb-disk mode is invariant under diagonal
 * scaling, so there it changes nothing), regularisation A + εI inside the sweep only (the KKT residual
 * is always measured on A). Every sweep's KKT residual is recorded: history[k] after k sweeps.
 */
import type { ContactProblem } from '../problem.js';
import { clampDisk, projectCone } from '../cone.js';
import { KktWorkspace, type KktReport } from '../kkt.js';
import { HistoryRecorder, objectiveFromAlam } from './history.js';
import { projectAll } from './projectedSteps.js';
import { denseRows, type PgsRows } from './pgsRows.js';
import type { AlgorithmOutput, PgsOptions, SolveStatus } from './types.js';

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

/** The PGS iteration on any row storage; `label` is appended to non-converged reasons (e.g. "matrix-free"). */
export function runPgs(rows: PgsRows, opts: PgsOptions, warmStart?: Float64Array, label = ''): PgsOutput {
  const { b, mu, size: n, contactCount: C, diagonal: D } = rows;
  const maxIt = opts.maxIterations ?? PGS_DEFAULTS.maxIterations;
  const tol = opts.tolerance ?? PGS_DEFAULTS.tolerance;
  const eps = opts.regularization ?? PGS_DEFAULTS.regularization;
  const fpTol = opts.fixedPointTolerance ?? PGS_DEFAULTS.fixedPointTolerance;
  const law = opts.friction ?? 'coulomb-disk';
  const suffix = label ? `; ${label}` : '';
  const hist = new HistoryRecorder(maxIt + 1);
  const ws = new KktWorkspace(n);
  const lam = new Float64Array(n);
  const blk = new Float64Array(3);

  if (warmStart) {
    const k = opts.warmStartFactor ?? PGS_DEFAULTS.warmStartFactor;
    for (let i = 0; i < n; i++) lam[i] = k * warmStart[i];
    projectAll(rows, lam, lam);
    for (let c = 0; c < C; c++) rows.changed(c, lam[3 * c], lam[3 * c + 1], lam[3 * c + 2]);
  }
  const step = law === 'cone' ? blockSteps(rows, eps, opts.diagonalScaling === true) : null;
  /** (A + εI)λ − b for row i with the current λ. */
  const rowW = (i: number): number => rows.rowTimes(i, lam) - b[i] + eps * lam[i];
  const measure = (): KktReport => {
    const r = rows.kkt(lam, ws);
    hist.record(r.maxRel, objectiveFromAlam(lam, ws.Alam, b, n));
    return r;
  };

  let status: SolveStatus | null = null;
  let iterations = 0;
  for (;;) {
    const r = measure();
    if (r.maxRel <= tol) {
      status = { kind: 'converged' };
      break;
    }
    if (iterations >= maxIt) {
      status = {
        kind: 'max-iterations',
        reason: `KKT max_rel ${r.maxRel.toExponential(2)} > ${tol} after ${iterations} sweeps (worst contact ${r.worstContact}${suffix})`,
      };
      break;
    }
    iterations++;
    let change = 0,
      size = 0;
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        m = mu[c],
        d = 9 * c;
      const old0 = lam[o],
        old1 = lam[o + 1],
        old2 = lam[o + 2];
      if (step) {
        const s = step[c];
        blk[0] = lam[o] - s * rowW(o);
        blk[1] = m > 0 ? lam[o + 1] - s * rowW(o + 1) : 0;
        blk[2] = m > 0 ? lam[o + 2] - s * rowW(o + 2) : 0;
        projectCone(blk, 0, m, blk);
        lam[o] = blk[0];
        lam[o + 1] = blk[1];
        lam[o + 2] = blk[2];
        rows.changed(c, lam[o] - old0, lam[o + 1] - old1, lam[o + 2] - old2);
      } else {
        // A row with a zero diagonal moves nothing (both bodies static): its impulse is set to zero.
        const dn = D[d] + eps;
        lam[o] = dn > 0 ? Math.max(0, lam[o] - rowW(o) / dn) : 0;
        rows.changed(c, lam[o] - old0, 0, 0);
        if (m > 0) {
          // One step length for both tangent rows, s = 1/λmax of the 2×2 tangent block: then the fixed point
          // λt = clamp(λt − s·w_t) puts a sliding contact's λt exactly opposite w_t (maximal dissipation).
          // Separate steps 1/A_t1t1, 1/A_t2t2 skew it whenever A_t1t1 ≠ A_t2t2 (a box's corner contacts: the
          // friction came out 6 % weak along the slide, docs/physics.md "PGS").
          const a = D[d + 4] + eps,
            bb = D[d + 5],
            cc = D[d + 8] + eps;
          const lmax = 0.5 * (a + cc) + Math.hypot(0.5 * (a - cc), bb);
          if (lmax > 0) {
            const t1 = lam[o + 1],
              t2 = lam[o + 2];
            const w1 = rowW(o + 1),
              w2 = rowW(o + 2);
            lam[o + 1] = t1 - w1 / lmax;
            lam[o + 2] = t2 - w2 / lmax;
            clampDisk(lam, o + 1, m * lam[o]);
            rows.changed(c, 0, lam[o + 1] - t1, lam[o + 2] - t2);
          }
        } else if (lam[o + 1] !== 0 || lam[o + 2] !== 0) {
          rows.changed(c, 0, -lam[o + 1], -lam[o + 2]);
          lam[o + 1] = 0;
          lam[o + 2] = 0;
        }
      }
      change = Math.max(change, Math.abs(lam[o] - old0), Math.abs(lam[o + 1] - old1), Math.abs(lam[o + 2] - old2));
      size = Math.max(size, Math.abs(lam[o]), Math.abs(lam[o + 1]), Math.abs(lam[o + 2]));
    }
    if (change <= fpTol * size) {
      const r2 = measure();
      if (r2.maxRel <= tol) {
        status = { kind: 'converged' };
        break;
      }
      const why =
        law === 'coulomb-disk'
          ? 'the sequential-impulse fixed point (Coulomb disk law) is not a QP-SOCP KKT point'
          : 'the iteration stopped moving before the KKT residual reached the tolerance';
      status = { kind: 'stalled', reason: `${why}: KKT max_rel ${r2.maxRel.toExponential(2)} > ${tol} (worst contact ${r2.worstContact}${suffix})` };
      break;
    }
  }
  return { lambda: lam, iterations, status, regularization: eps, history: hist.finish(), w: Float64Array.from(ws.w), kkt: { ...ws.report } };
}
