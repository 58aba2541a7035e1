/**
 * Conditioning of a contact matrix A = J M⁻¹ Jᵀ + εI: extreme eigenvalues, κ = λmax/λmin and the
 * numerical rank ("A has 12 rows but rank 6": a box resting on 4 coplanar corner contacts has only
 * 6 independent constraint directions, the other 6 are held up by ε alone).
 *
 *  - n ≤ exactLimit: all eigenvalues by Householder + implicit QL (math/eigen.ts, G&VL §8.3); the
 *    rank is the number of eigenvalues above rankTolerance.
 *  - n > exactLimit: λmax by Lanczos, λmin by shift-and-invert Lanczos on a Cholesky factor
 *    (math/eigen.ts, G&VL §10.1); the rank is that of the diagonally pivoted Cholesky
 *    factorisation of A − εI stopped at rankTolerance − ε (Higham, Accuracy and Stability of
 *    Numerical Algorithms, 2nd ed. §10.3; LAPACK xPSTRF) — see `pivotedCholeskyRank`.
 *
 * Only the symmetric part of A is used. conditioning() never throws; NaN appears only when A has
 * non-finite entries.
 */
import { estimateExtremeEigenvalues, symmetricEigenvalues } from './math/eigen.js';

export interface Conditioning {
  lambdaMin: number;
  lambdaMax: number;
  /** κ = λmax/λmin; Infinity when λmin ≤ 0 (singular or indefinite; includes the zero matrix); 1 for n = 0. */
  kappa: number;
  /** Numerical rank: number of eigenvalues > rankTolerance (estimate path: see `pivotedCholeskyRank`). */
  rank: number;
  /** n − rank: directions supported only by the regularisation ε (or by nothing at all). */
  rankDeficiency: number;
  /** Which path produced the numbers ('exact-jacobi' is reserved; this implementation never returns it). */
  method: 'exact-tridiagonal-ql' | 'exact-jacobi' | 'lanczos+inverse-iteration';
  n: number;
  /** rank threshold used: eigenvalues ≤ this are counted as zero */
  rankTolerance: number;
  /**
   * κ on the range of A: λmax over the smallest eigenvalue above `rangeThreshold` (the null directions of
   * coplanar or duplicated contacts excluded), reported beside the rank as FCLIB's studies report cond(W)
   * and the rank ratio (Acary, Brémond, Huber, "On solving contact problems with Coulomb friction",
   * 2018, §5). Exact when method is exact-tridiagonal-ql; otherwise the pivot ratio of the pivoted
   * Cholesky (an estimate: a lower bound of the true ratio up to the factor n, Higham 2002 §10.3). 1 for
   * n = 0 or rank 0; NaN when A has non-finite entries.
   */
  kappaRange: number;
  /** The smallest eigenvalue (estimate: pivot) counted in the range; 0 when the rank is 0. */
  lambdaMinRange: number;
  /** max(rankTolerance, RANGE_RELATIVE_THRESHOLD·λmax): eigenvalues at or below it are not in the range. */
  rangeThreshold: number;
  /** n / rank, FCLIB's rank ratio (1 = full rank; Infinity for rank 0). */
  rankRatio: number;
}

/** Eigenvalues ≤ this × λmax are outside the range for κ_range (docs/physics.md "Conditioning", κ on the range). */
export const RANGE_RELATIVE_THRESHOLD = 1e-10;

export interface ConditioningOptions {
  /** Largest n analysed exactly (default DEFAULT_EXACT_LIMIT). */
  exactLimit?: number;
  /** Diagonal shift ε already contained in A (default 0); the assembler uses ASSEMBLY_REGULARIZATION (assembly.ts). */
  regularization?: number;
}

/** Default largest n for the exact path (values-only QL on n = 120 takes a few ms). */
export const DEFAULT_EXACT_LIMIT = 120;

/** Unit roundoff u used in the rank tolerance (2⁻⁵² ≈ 2.2e-16). */
export const UNIT_ROUNDOFF = Number.EPSILON;

/**
 * Relative slack on ε: an eigenvalue ≤ ε·(1 + slack) belongs to a direction whose own stiffness in
 * J M⁻¹ Jᵀ is below 0.1 % of the regularisation — physically a null direction.
 */
export const RANK_REGULARIZATION_SLACK = 1e-3;

/**
 * c in the rounding term c·n·u·|λ|max: forming J M⁻¹ Jᵀ and the eigen-solver each perturb
 * eigenvalues by O(u·‖A‖) (G&VL §8.1 Weyl / Wielandt–Hoffman); 10·n leaves a wide margin
 * (MATLAB's rank() uses c = 1).
 */
export const RANK_ROUNDING_FACTOR = 10;

/**
 * The rank rule, for display:
 *   rankTolerance = ε·(1 + RANK_REGULARIZATION_SLACK) + RANK_ROUNDING_FACTOR·n·u·max(|λmin|, |λmax|)
 * and eigenvalues ≤ rankTolerance count as zero. The two terms are added rather than max'ed so that
 * an ε-direction perturbed by rounding noise is still recognised when noise and ε are comparable.
 */
export const RANK_TOLERANCE_RULE = 'eigenvalue ≤ ε·(1 + 1e-3) + 10·n·2.2e-16·max|λ| counts as zero (ε = regularisation already in A)';

/** rankTolerance per RANK_TOLERANCE_RULE (spectralRadius = max(|λmin|, |λmax|)). */
export function rankToleranceFor(n: number, spectralRadius: number, regularization: number): number {
  const eps = Math.max(regularization, 0);
  return eps * (1 + RANK_REGULARIZATION_SLACK) + RANK_ROUNDING_FACTOR * n * UNIT_ROUNDOFF * Math.abs(spectralRadius);
}

/** Rank, range threshold and λmin on the range of an exact spectrum (ascending `values`), by the rules above. */
export function spectrumRank(
  values: Float64Array,
  n: number,
  lambdaMin: number,
  lambdaMax: number,
  eps: number,
): { tol: number; rangeThreshold: number; rank: number; lambdaMinRange: number } {
  const tol = rankToleranceFor(n, Math.max(Math.abs(lambdaMin), Math.abs(lambdaMax)), eps);
  const rangeThreshold = Math.max(tol, RANGE_RELATIVE_THRESHOLD * lambdaMax);
  let rank = 0,
    lambdaMinRange = 0;
  for (let i = 0; i < n; i++) if (values[i] > tol) rank++;
  for (let i = 0; i < n; i++) {
    if (values[i] > rangeThreshold) {
      lambdaMinRange = values[i];
      break;
    }
  }
  return { tol, rangeThreshold, rank, lambdaMinRange };
}

/** κ rule: λmax/λmin when λmin > 0, otherwise Infinity (never NaN for finite input). */
export function kappaOf(lambdaMin: number, lambdaMax: number): number {
  if (Number.isNaN(lambdaMin) || Number.isNaN(lambdaMax)) return NaN;
  return lambdaMin > 0 ? lambdaMax / lambdaMin : Infinity;
}

/** ε as every analysis reads it: the regularisation if finite, clamped at 0; 0 otherwise. */
export function regularizationOf(regularization: number | undefined): number {
  return Number.isFinite(regularization) ? Math.max(regularization as number, 0) : 0;
}

/** What an analysis measures; conditioningFrom derives the rest of a Conditioning from it. */
export interface ConditioningMeasures<M extends string> {
  readonly lambdaMin: number;
  readonly lambdaMax: number;
  readonly rank: number;
  readonly method: M;
  readonly n: number;
  readonly rankTolerance: number;
  /** Smallest eigenvalue (or pivot) above rangeThreshold, 0 when there is none. */
  readonly lambdaMinRange: number;
  readonly rangeThreshold: number;
}

/**
 * A Conditioning from its measures: κ by kappaOf, the rank deficiency n − rank, κ on the range
 * λmax/λmin⁺ (1 without a range eigenvalue; never below 1) and FCLIB's rank ratio n/rank.
 */
export function conditioningFrom<M extends string>(m: ConditioningMeasures<M>): Omit<Conditioning, 'method'> & { readonly method: M } {
  const { lambdaMin, lambdaMax, rank, n, lambdaMinRange } = m;
  return {
    lambdaMin,
    lambdaMax,
    kappa: kappaOf(lambdaMin, lambdaMax),
    rank,
    rankDeficiency: n - rank,
    method: m.method,
    n,
    rankTolerance: m.rankTolerance,
    kappaRange: lambdaMinRange > 0 ? Math.max(1, lambdaMax / lambdaMinRange) : 1,
    lambdaMinRange,
    rangeThreshold: m.rangeThreshold,
    rankRatio: rank > 0 ? n / rank : Infinity,
  };
}

/**
 * Rank of the PSD matrix B = sym(A) − shift·I by Cholesky with diagonal (complete) pivoting,
 * stopped when the largest remaining Schur-complement diagonal is ≤ tolerance (Higham 2002 §10.3;
 * LAPACK xPSTRF's stopping rule). Left-looking, ≤ n²·rank/2 flops, O(n²) memory, no allocation in
 * the loop.
 *
 * Meaning: after r steps the remaining Schur complement S has diag(S) ≤ tolerance, so by interlacing
 * at least n − r eigenvalues of B are ≤ (n − r)·tolerance; and the r pivoted rows are linearly
 * independent with pivots > tolerance. For exactly rank-deficient structures (coplanar contacts,
 * duplicated rows) it reproduces the eigenvalue count; it can differ from it only when eigenvalues
 * lie within a factor ≈ n of the tolerance.
 */
export function pivotedCholeskyRank(A: Float64Array, n: number, shift: number, tolerance: number): number {
  return pivotedCholesky(A, n, shift, tolerance).rank;
}

/** pivotedCholeskyRank with the first and the last accepted pivot (Schur-complement diagonals). */
export function pivotedCholesky(A: Float64Array, n: number, shift: number, tolerance: number): { rank: number; firstPivot: number; lastPivot: number } {
  let firstPivot = 0,
    lastPivot = 0;
  const rank = pivotedCholeskyLoop(A, n, shift, tolerance, (k, pivot) => {
    if (k === 0) firstPivot = pivot;
    lastPivot = pivot;
  });
  return { rank, firstPivot, lastPivot };
}

function pivotedCholeskyLoop(A: Float64Array, n: number, shift: number, tolerance: number, onPivot: (k: number, pivot: number) => void): number {
  if (n <= 0) return 0;
  const L = new Float64Array(n * n); // row = original index, column = elimination step
  const d = new Float64Array(n); // remaining Schur-complement diagonal
  const done = new Uint8Array(n);
  for (let i = 0; i < n; i++) d[i] = A[i * n + i] - shift;
  for (let k = 0; k < n; k++) {
    let p = -1;
    let best = -Infinity;
    for (let i = 0; i < n; i++)
      if (!done[i] && d[i] > best) {
        best = d[i];
        p = i;
      }
    if (p < 0 || !(best > tolerance)) return k;
    done[p] = 1;
    onPivot(k, best);
    const lkk = Math.sqrt(best);
    const po = p * n;
    L[po + k] = lkk;
    for (let i = 0; i < n; i++) {
      if (done[i]) continue;
      const io = i * n;
      let s = 0.5 * (A[po + i] + A[io + p]);
      for (let j = 0; j < k; j++) s -= L[io + j] * L[po + j];
      const lik = s / lkk;
      L[io + k] = lik;
      d[i] -= lik * lik;
    }
  }
  return n;
}

function hasNonFinite(A: Float64Array, n: number): boolean {
  const nn = n * n;
  for (let i = 0; i < nn; i++) if (!Number.isFinite(A[i])) return true;
  return false;
}

/**
 * Extreme eigenvalues, κ and numerical rank of the symmetric (PSD) matrix A (row-major n×n).
 * Rules: κ per `kappaOf` (zero matrix and singular A → Infinity; n = 0 → 1); rank per
 * RANK_TOLERANCE_RULE (negative eigenvalues of an indefinite A count as zero directions too).
 */
export function conditioning(A: Float64Array, n: number, opts: ConditioningOptions = {}): Conditioning {
  const exactLimit = opts.exactLimit ?? DEFAULT_EXACT_LIMIT;
  const eps = regularizationOf(opts.regularization);
  const exact = n <= exactLimit;
  const method: Conditioning['method'] = exact ? 'exact-tridiagonal-ql' : 'lanczos+inverse-iteration';
  if (n <= 0) {
    const rankTolerance = rankToleranceFor(0, 0, eps);
    return {
      lambdaMin: 0,
      lambdaMax: 0,
      kappa: 1,
      rank: 0,
      rankDeficiency: 0,
      method,
      n: 0,
      rankTolerance,
      kappaRange: 1,
      lambdaMinRange: 0,
      rangeThreshold: rankTolerance,
      rankRatio: 1,
    };
  }
  if (hasNonFinite(A, n)) {
    return {
      lambdaMin: NaN,
      lambdaMax: NaN,
      kappa: NaN,
      rank: 0,
      rankDeficiency: n,
      method,
      n,
      rankTolerance: NaN,
      kappaRange: NaN,
      lambdaMinRange: NaN,
      rangeThreshold: NaN,
      rankRatio: NaN,
    };
  }

  let lambdaMin: number, lambdaMax: number, rank: number, tol: number, rangeThreshold: number;
  let lambdaMinRange = 0;
  if (exact) {
    const values = symmetricEigenvalues(A, n); // ascending
    lambdaMin = values[0];
    lambdaMax = values[n - 1];
    ({ tol, rangeThreshold, rank, lambdaMinRange } = spectrumRank(values, n, lambdaMin, lambdaMax, eps));
  } else {
    const est = estimateExtremeEigenvalues(A, n);
    lambdaMin = est.lambdaMin;
    lambdaMax = est.lambdaMax;
    tol = rankToleranceFor(n, Math.max(Math.abs(lambdaMin), Math.abs(lambdaMax)), eps);
    rangeThreshold = Math.max(tol, RANGE_RELATIVE_THRESHOLD * lambdaMax);
    rank = 0;
    if (lambdaMax > tol) {
      const pc = pivotedCholesky(A, n, eps, tol - eps);
      rank = pc.rank;
      // Pivot ratio of the shifted matrix A − εI (range eigenvalues shifted back by ε).
      lambdaMinRange = pc.lastPivot + eps;
    }
  }
  return conditioningFrom({ lambdaMin, lambdaMax, rank, method, n, rankTolerance: tol, lambdaMinRange, rangeThreshold });
}
