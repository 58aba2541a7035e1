/**
 * A fast conditioning estimate for the frame view: exact where it is tight, the exact analysis otherwise.
 *
 * A re-assembled island matrix is A = J M⁻¹ Jᵀ + εI (engine/assembly.ts) with J M⁻¹ Jᵀ positive
 * semidefinite, so every eigenvalue of A is ≥ ε. When A is rank deficient (a box on four coplanar corners:
 * docs/physics.md "Conditioning"), its smallest eigenvalue lies within the rank tolerance of ε
 * (conditioning.ts RANK_TOLERANCE_RULE), so κ = λmax/λmin needs only λmax and the rank:
 *  - λmax: Lanczos with full reorthogonalisation (G&VL §10.1), a handful of matrix-vector products;
 *  - the rank: the diagonally pivoted Cholesky factorisation of A − εI stopped at the rank tolerance
 *    (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed. §10.3; LAPACK xPSTRF) — n³/3 flops
 *    against the ≈ 4n³/3 + QL of the exact eigenvalues;
 *  - κ on the range: the pivot ratio, as on the engine's estimate path (conditioning.ts).
 * A full-rank island has no such bound on λmin: it gets the exact analysis (conditioning()). The exact
 * analysis of every island stays available on demand (Session.detail with conditioning 'exact').
 */
import { conditioning, kappaOf, pivotedCholesky, RANGE_RELATIVE_THRESHOLD, rankToleranceFor, type Conditioning } from '../engine/conditioning.js';
import { lanczosExtremes } from '../engine/math/eigen.js';

/** Islands up to this many rows get the exact analysis (values-only QL is below a millisecond there). */
export const ESTIMATE_MIN_ROWS = 48;
/** Relative accuracy of λmax asked from Lanczos (the displayed κ has 3 significant digits). */
export const LAMBDA_MAX_TOLERANCE = 1e-4;
/** Lanczos steps at most for λmax (its Ritz value converges fast for the extreme of the spectrum). */
export const LAMBDA_MAX_STEPS = 16;

export type ConditioningMethod = Conditioning['method'] | 'lanczos+pivoted-cholesky';

/** Conditioning as the frame view reports it: the engine's analysis or the estimate of this file. */
export type IslandConditioning = Omit<Conditioning, 'method'> & { readonly method: ConditioningMethod };

/**
 * conditioning(A) (regularisation ε already in A) via the estimate above when n > ESTIMATE_MIN_ROWS and A is
 * rank deficient; otherwise the exact analysis of conditioning().
 */
export function conditioningEstimate(A: Float64Array, n: number, regularization: number): IslandConditioning {
  const eps = Number.isFinite(regularization) ? Math.max(regularization, 0) : 0;
  if (n <= ESTIMATE_MIN_ROWS || eps === 0) return conditioning(A, n, { regularization: eps });
  for (let i = 0; i < n * n; i++) if (!Number.isFinite(A[i])) return conditioning(A, n, { regularization: eps });
  const sym = (x: Float64Array, y: Float64Array): void => {
    for (let i = 0; i < n; i++) {
      let s = 0;
      const o = i * n;
      for (let j = 0; j < n; j++) s += A[o + j] * x[j];
      y[i] = s;
    }
  };
  const lz = lanczosExtremes(sym, n, { maxSteps: LAMBDA_MAX_STEPS, tolerance: LAMBDA_MAX_TOLERANCE });
  // the Ritz value is ≤ λmax; it is used only once it meets the tolerance
  if (!lz.converged) return conditioning(A, n, { regularization: eps });
  const lambdaMax = lz.max;
  const tol = rankToleranceFor(n, lambdaMax, eps);
  if (!(lambdaMax > tol)) return conditioning(A, n, { regularization: eps });
  const pc = pivotedCholesky(A, n, eps, tol - eps);
  if (pc.rank >= n) return conditioning(A, n, { regularization: eps });
  const lambdaMin = eps; // ≥ ε for A − εI ⪰ 0, and within the rank tolerance of it with a null direction
  const rangeThreshold = Math.max(tol, RANGE_RELATIVE_THRESHOLD * lambdaMax);
  const lambdaMinRange = pc.lastPivot + eps;
  return {
    lambdaMin,
    lambdaMax,
    kappa: kappaOf(lambdaMin, lambdaMax),
    rank: pc.rank,
    rankDeficiency: n - pc.rank,
    method: 'lanczos+pivoted-cholesky',
    n,
    rankTolerance: tol,
    kappaRange: lambdaMinRange > 0 ? Math.max(1, lambdaMax / lambdaMinRange) : 1,
    lambdaMinRange,
    rangeThreshold,
    rankRatio: pc.rank > 0 ? n / pc.rank : Infinity,
  };
}
