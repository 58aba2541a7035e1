/**
 * A fast conditioning estimate for the frame view: exact where it is tight, the exact analysis otherwise.
 * Given the island's problem, an island with fewer body columns than contact rows gets A's exact spectrum
 * from the body-space Gram instead (bodySpaceConditioning.ts); the estimate below serves the others.
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
 * analysis of every island stays available on demand (Session.detail with conditioning 'exact':
 * exactIslandConditioning below).
 */
import {
  conditioning,
  type Conditioning,
  conditioningFrom,
  type ProblemStructure,
  DEFAULT_EXACT_LIMIT,
  DENSE_ISLAND_LIMIT,
  lanczosExtremes,
  pivotedCholesky,
  RANGE_RELATIVE_THRESHOLD,
  rankToleranceFor,
  regularizationOf,
} from '../engine/index.js';
import { bodySpaceConditioning } from './bodySpaceConditioning.js';

/** Islands up to this many rows get the exact analysis (values-only QL is below a millisecond there). */
export const ESTIMATE_MIN_ROWS = 48;
/** Relative accuracy of λmax asked from Lanczos (the displayed κ has 3 significant digits). */
export const LAMBDA_MAX_TOLERANCE = 1e-4;
/** Lanczos steps at most for λmax (its Ritz value converges fast for the extreme of the spectrum). */
export const LAMBDA_MAX_STEPS = 16;

/**
 * Largest island whose eigenvalues are computed from A itself on demand when the body-space Gram does not
 * apply: 3 rows per contact of the dense view's limit (DENSE_ISLAND_LIMIT, 200 contacts). Values-only QL
 * costs ≈ 4n³/3 flops there.
 */
export const EXACT_ON_DEMAND_MAX_ROWS = 3 * DENSE_ISLAND_LIMIT;

export type ConditioningMethod = Conditioning['method'] | 'lanczos+pivoted-cholesky' | 'exact-body-space-gram';

/** Conditioning as the frame view reports it: the engine's analysis or the estimate of this file. */
export type IslandConditioning = Omit<Conditioning, 'method'> & { readonly method: ConditioningMethod };

/**
 * The nonzero entries of A row by row (compressed sparse rows, columns ascending), or null when A has a
 * non-finite entry. An island's A couples two contacts only through a shared body, so most of it is zero
 * (≈ 70 % on the 1000-box pile's islands of 90–180 rows): Lanczos's products then cost the nonzeros, not n².
 */
function nonzeroRows(A: Float64Array, n: number): { start: Int32Array; col: Int32Array; val: Float64Array } | null {
  let nnz = 0;
  for (let i = 0; i < n * n; i++) {
    const a = A[i];
    if (!Number.isFinite(a)) return null;
    if (a !== 0) nnz++;
  }
  const start = new Int32Array(n + 1),
    col = new Int32Array(nnz),
    val = new Float64Array(nnz);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const o = i * n;
    for (let j = 0; j < n; j++) {
      const a = A[o + j];
      if (a !== 0) {
        col[k] = j;
        val[k++] = a;
      }
    }
    start[i + 1] = k;
  }
  return { start, col, val };
}

/** The dense n×n A, or what forms it: called only where the analysis reads A rather than the body-space Gram. */
export type DenseA = Float64Array | (() => Float64Array);

const formed = (dense: DenseA): Float64Array => (typeof dense === 'function' ? dense() : dense);

/**
 * conditioning(A) (regularisation ε already in A) via the estimate above when n > ESTIMATE_MIN_ROWS and A is
 * rank deficient; otherwise the exact analysis of conditioning().
 */
export function conditioningEstimate(dense: DenseA, n: number, regularization: number, problem?: ProblemStructure): IslandConditioning {
  const eps = regularizationOf(regularization);
  if (n > ESTIMATE_MIN_ROWS && eps !== 0) {
    // fewer body columns than contact rows: A's exact spectrum from the smaller body-space Gram
    const gram = problem && problem.size === n ? bodySpaceConditioning(problem, eps) : null;
    if (gram !== null) return gram;
  }
  const A = formed(dense);
  if (n <= ESTIMATE_MIN_ROWS || eps === 0) return conditioning(A, n, { regularization: eps });
  const rows = nonzeroRows(A, n);
  if (rows === null) return conditioning(A, n, { regularization: eps });
  const { start, col, val } = rows;
  // y = A x over the stored entries of each row, in ascending column order: the dense row's sum without its
  // exact zeros (a + 0·x = a), so every y and the λmax it yields equal the dense product's bit for bit
  const sym = (x: Float64Array, y: Float64Array): void => {
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let k = start[i], end = start[i + 1]; k < end; k++) s += val[k] * x[col[k]];
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
  return conditioningFrom({ lambdaMin, lambdaMax, rank: pc.rank, method: 'lanczos+pivoted-cholesky', n, rankTolerance: tol, lambdaMinRange, rangeThreshold });
}

/**
 * An island's exact analysis, on demand (the exported frame, a problem file): conditioning() within its own
 * exact limit; above it, A's spectrum from the body-space Gram when that is smaller than A (exact,
 * bodySpaceConditioning.ts), else A's own eigenvalues up to EXACT_ON_DEMAND_MAX_ROWS. Only beyond that is the
 * result conditioning()'s Lanczos estimate, and its method says so.
 */
export function exactIslandConditioning(dense: DenseA, n: number, regularization: number, problem?: ProblemStructure): IslandConditioning {
  const eps = regularizationOf(regularization);
  if (n <= DEFAULT_EXACT_LIMIT) return conditioning(formed(dense), n, { regularization: eps });
  const gram = problem && problem.size === n ? bodySpaceConditioning(problem, eps) : null;
  if (gram !== null) return gram;
  return conditioning(formed(dense), n, { regularization: eps, exactLimit: EXACT_ON_DEMAND_MAX_ROWS });
}
