/**
 * Projected Gauss–Seidel (seed 000 §7, seed 001 Task 4), two friction laws:
 *
 * coulomb-disk (sequential impulses, the default of most game engines): per contact, the normal row
 *   λn ← max(0, λn − wₙ/Aₙₙ) (seed 000 §7.2 line 11–13), then each tangent row λt ← λt − w_t/A_tt and the
 *   pair is clamped to the disk ‖λt‖ ≤ μλn. Fixed point: 0 ≤ λn ⊥ wₙ ≥ 0 and λt on the disk opposing w_t
 *   (Coulomb's law with maximal dissipation in the tangent plane). It is NOT the QP-SOCP optimum when a
 *   contact slides: the QP-SOCP's KKT conditions force wₙ = μ‖w_t‖ > 0 there, PGS keeps wₙ = 0. The
 *   solver then reports "stalled" with the KKT residual, never "converged".
 * cone: projected block Gauss–Seidel λᵢ ← Proj_K(λᵢ − ρᵢ wᵢ) with ρᵢ ≤ 1/λmax(Aᵢᵢ): block coordinate
 *   descent on f, whose fixed points are exactly the QP-SOCP KKT points (natural map, oracle FORMAT.md).
 *
 * Options: warm-start factor (seed 000 §7.4), per-contact diagonal scaling (§7.3: in cone mode ρᵢ from the
 * contact's own block instead of one ρ for all; row-wise Gauss–Seidel in coulomb-disk mode is invariant
 * under diagonal scaling, so there it changes nothing), regularisation A + εI (§9.5).
 */
import type { ContactProblem } from '../problem.js';
import { clampDisk, projectCone } from '../cone.js';
import { KktWorkspace, kktInto } from '../kkt.js';
import { HistoryRecorder, objectiveFromAlam } from './history.js';
import { blockBound, projectAll } from './blocks.js';
import type { AlgorithmOutput, PgsOptions, SolveStatus } from './types.js';

export const PGS_DEFAULTS = {
  maxIterations: 200,
  tolerance: 1e-6,
  warmStartFactor: 1,
  regularization: 0,
  /** ‖Δλ‖∞ ≤ this·‖λ‖∞ means the iteration has reached its own fixed point (seed 000 §9.3 change-based test). */
  fixedPointTolerance: 1e-13,
} as const;

export function solvePgs(p: ContactProblem, opts: PgsOptions, warmStart?: Float64Array): AlgorithmOutput {
  const { A, b, mu, size: n, contactCount: C } = p;
  const maxIt = opts.maxIterations ?? PGS_DEFAULTS.maxIterations;
  const tol = opts.tolerance ?? PGS_DEFAULTS.tolerance;
  const eps = opts.regularization ?? PGS_DEFAULTS.regularization;
  const fpTol = opts.fixedPointTolerance ?? PGS_DEFAULTS.fixedPointTolerance;
  const law = opts.friction ?? 'coulomb-disk';
  const hist = new HistoryRecorder(maxIt + 1);
  const ws = new KktWorkspace(n);
  const lam = new Float64Array(n);
  const blk = new Float64Array(3);

  if (warmStart) {
    const k = opts.warmStartFactor ?? PGS_DEFAULTS.warmStartFactor;
    for (let i = 0; i < n; i++) lam[i] = k * warmStart[i];
    projectAll(p, lam, lam);
  }
  // Cone-mode block steps ρᵢ = 1/bound(λmax(Aᵢᵢ + εI)); one common ρ unless diagonal scaling is on.
  const rho = new Float64Array(C);
  let maxBound = 0;
  for (let c = 0; c < C; c++) { rho[c] = blockBound(p, c) + eps; maxBound = Math.max(maxBound, rho[c]); }
  for (let c = 0; c < C; c++) rho[c] = 1 / (opts.diagonalScaling ? (rho[c] > 0 ? rho[c] : 1) : (maxBound > 0 ? maxBound : 1));

  /** (A + εI)λ − b for row i with the current λ (Gauss–Seidel uses the freshest values). */
  const rowResidual = (i: number): number => {
    let s = eps * lam[i] - b[i];
    const row = i * n;
    for (let j = 0; j < n; j++) s += A[row + j] * lam[j];
    return s;
  };

  let status: SolveStatus | null = null;
  let iterations = 0;
  for (;;) {
    const r = kktInto(p, lam, ws);
    hist.record(r.maxRel, objectiveFromAlam(lam, ws.Alam, b, n));
    if (r.maxRel <= tol) { status = { kind: 'converged' }; break; }
    if (iterations >= maxIt) { status = { kind: 'max-iterations', reason: `KKT max_rel ${r.maxRel.toExponential(2)} > ${tol} after ${iterations} sweeps (worst contact ${r.worstContact})` }; break; }
    iterations++;
    let change = 0, size = 0;
    for (let c = 0; c < C; c++) {
      const o = 3 * c, m = mu[c];
      const old0 = lam[o], old1 = lam[o + 1], old2 = lam[o + 2];
      if (law === 'cone') {
        blk[0] = lam[o] - rho[c] * rowResidual(o);
        blk[1] = m > 0 ? lam[o + 1] - rho[c] * rowResidual(o + 1) : 0;
        blk[2] = m > 0 ? lam[o + 2] - rho[c] * rowResidual(o + 2) : 0;
        projectCone(blk, 0, m, blk);
        lam[o] = blk[0]; lam[o + 1] = blk[1]; lam[o + 2] = blk[2];
      } else {
        const dn = A[o * n + o] + eps;
        lam[o] = dn > 0 ? Math.max(0, lam[o] - rowResidual(o) / dn) : 0;
        if (m > 0) {
          const d1 = A[(o + 1) * n + o + 1] + eps, d2 = A[(o + 2) * n + o + 2] + eps;
          if (d1 > 0) lam[o + 1] -= rowResidual(o + 1) / d1;
          if (d2 > 0) lam[o + 2] -= rowResidual(o + 2) / d2;
          clampDisk(lam, o + 1, m * lam[o]);
        } else {
          lam[o + 1] = 0; lam[o + 2] = 0;
        }
      }
      change = Math.max(change, Math.abs(lam[o] - old0), Math.abs(lam[o + 1] - old1), Math.abs(lam[o + 2] - old2));
      size = Math.max(size, Math.abs(lam[o]), Math.abs(lam[o + 1]), Math.abs(lam[o + 2]));
    }
    if (change <= fpTol * size) {
      const r2 = kktInto(p, lam, ws);
      hist.record(r2.maxRel, objectiveFromAlam(lam, ws.Alam, b, n));
      if (r2.maxRel <= tol) { status = { kind: 'converged' }; break; }
      const why = law === 'coulomb-disk'
        ? 'the sequential-impulse fixed point (Coulomb disk law) is not a QP-SOCP KKT point'
        : 'the iteration stopped moving before the KKT residual reached the tolerance';
      status = { kind: 'stalled', reason: `${why}: KKT max_rel ${r2.maxRel.toExponential(2)} > ${tol} (worst contact ${r2.worstContact})` };
      break;
    }
  }
  return { lambda: lam, iterations, status, regularization: eps, history: hist.finish() };
}
