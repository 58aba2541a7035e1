/**
 * Symmetric eigenvalues of dense row-major n×n Float64Array matrices.
 *
 *  - Exact (all eigenvalues, optionally eigenvectors): Householder tridiagonalisation followed by
 *    the implicit-shift QL iteration — Golub & Van Loan, Matrix Computations (4th ed.) §8.3
 *    (QL is the mirror image of their implicit symmetric QR step); the code follows EISPACK
 *    tred2/tql2 (Bowdler, Martin, Reinsch & Wilkinson 1968) as transcribed in JAMA (public domain).
 *    O(n³): a few ms for n = 120.
 *  - Estimates (extreme eigenvalues only): Lanczos with full reorthogonalisation (G&VL §10.1 and
 *    §10.3) for λmax; shift-and-invert Lanczos on (A + σI)⁻¹ through a Cholesky factor
 *    (Ericsson & Ruhe 1980; G&VL §8.2 inverse iteration) for λmin.
 *
 * Only the symmetric part (A + Aᵀ)/2 is used. Every routine scales its working copy by a power of
 * two (exact) so that max|A_ij| ≈ 1; all relative tolerances below refer to that scale.
 * No routine throws; non-finite input yields NaN eigenvalues.
 */
import { matVec } from './dense.js';
import { choleskySolve, choleskyWithFallback, PIVOT_RELATIVE_TOLERANCE } from './cholesky.js';

/** Machine epsilon 2⁻⁵² used by the QL deflation test |e_i| ≤ EPS·max(|d_l| + |e_l|) (EISPACK tql2). */
const EPS = 2 ** -52;

/**
 * Safety cap on implicit QL sweeps per eigenvalue. QL with Wilkinson-type shifts converges
 * cubically (typically 1–3 sweeps); the cap only guards against NaN/Inf-polluted data.
 */
export const QL_MAX_SWEEPS_PER_EIGENVALUE = 60;

/** Default cap on Lanczos steps (the Krylov dimension is min(n, this)). */
export const LANCZOS_MAX_STEPS = 100;

/**
 * Lanczos stops once the a-posteriori error bound of the wanted (largest) Ritz value,
 * min(β_k|s_k|, (β_k s_k)²/gap) (Parlett, The Symmetric Eigenvalue Problem, ch. 11), falls below
 * this times |θ|.
 */
export const LANCZOS_RELATIVE_TOLERANCE = 1e-12;

/**
 * β_k below this times the operator scale means the Krylov space is invariant (breakdown): the
 * Ritz values are then exact eigenvalues of A restricted to that space and Lanczos stops.
 */
export const LANCZOS_BREAKDOWN_TOLERANCE = 1e-14;

/**
 * First diagonal shift (relative to the scale max(λmax, max A_ii)) tried for the shift-and-invert
 * Cholesky when A itself does not factorise: above the rejection threshold PIVOT_RELATIVE_TOLERANCE
 * plus rounding, small enough that λmin is recovered to ≈ 1e-12·λmax absolute.
 */
export const INVERSE_SHIFT_START_RELATIVE = 1e-12;
/** Largest relative shift tried (×10 per try); failing there proves λmin < 0 (see estimate docs). */
export const INVERSE_SHIFT_MAX_RELATIVE = 1e-6;

/** Deterministic start vectors: Numerical Recipes' 32-bit LCG (a = 1664525, c = 1013904223). */
function lcgFill(x: Float64Array, n: number, seed: number): void {
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    x[i] = s / 2147483648 - 1; // uniform in [−1, 1)
  }
}

/** √(a² + b²) without destructive overflow/underflow (EISPACK pythag). */
function pythag(a: number, b: number): number {
  const aa = Math.abs(a),
    ab = Math.abs(b);
  if (aa > ab) {
    const r = ab / aa;
    return aa * Math.sqrt(1 + r * r);
  }
  if (ab === 0) return 0;
  const r = aa / ab;
  return ab * Math.sqrt(1 + r * r);
}

/** Power of two 2^k nearest max|A_ij| (1 for a zero matrix), NaN when A has non-finite entries. */
function scaleOf(A: Float64Array, n: number): number {
  let m = 0;
  const nn = n * n;
  for (let i = 0; i < nn; i++) {
    const v = Math.abs(A[i]);
    if (!(v <= Number.MAX_VALUE)) return NaN;
    if (v > m) m = v;
  }
  if (m === 0) return 1;
  return 2 ** Math.round(Math.log2(m));
}

/** out = (A + Aᵀ)/(2·scale), row-major. */
function symmetricScaledCopy(A: Float64Array, n: number, scale: number, out: Float64Array): void {
  const inv = 0.5 / scale;
  for (let i = 0; i < n; i++) {
    out[i * n + i] = A[i * n + i] / scale;
    for (let j = 0; j < i; j++) {
      const v = (A[i * n + j] + A[j * n + i]) * inv;
      out[i * n + j] = v;
      out[j * n + i] = v;
    }
  }
}

/**
 * Householder reduction of the symmetric V (row-major n×n, overwritten) to tridiagonal form
 * (G&VL §8.3; EISPACK tred2, run on the transposed index so that every inner loop is
 * contiguous). On return d = diagonal, e[i] = T[i, i−1] for i ≥ 1, e[0] = 0; with `wantVectors`
 * V holds Qᵀ (row i = column i of Q) where A = Q T Qᵀ.
 */
function tridiagonalize(V: Float64Array, n: number, d: Float64Array, e: Float64Array, wantVectors: boolean): void {
  for (let j = 0; j < n; j++) d[j] = V[j * n + n - 1];
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]);
    if (scale === 0) {
      e[i] = d[i - 1];
      for (let j = 0; j < i; j++) {
        d[j] = V[j * n + i - 1];
        V[j * n + i] = 0;
        V[i * n + j] = 0;
      }
    } else {
      // Householder vector.
      for (let k = 0; k < i; k++) {
        d[k] /= scale;
        h += d[k] * d[k];
      }
      let f = d[i - 1];
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      // Similarity transformation of the remaining columns.
      for (let j = 0; j < i; j++) {
        f = d[j];
        V[i * n + j] = f;
        g = e[j] + V[j * n + j] * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += V[j * n + k] * d[k];
          e[k] += V[j * n + k] * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] /= h;
        f += e[j] * d[j];
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] -= hh * d[j];
      for (let j = 0; j < i; j++) {
        f = d[j];
        g = e[j];
        for (let k = j; k <= i - 1; k++) V[j * n + k] -= f * e[k] + g * d[k];
        d[j] = V[j * n + i - 1];
        V[j * n + i] = 0;
      }
    }
    d[i] = h;
  }
  if (wantVectors) {
    // Accumulate the transformations into Q.
    for (let i = 0; i < n - 1; i++) {
      V[i * n + n - 1] = V[i * n + i];
      V[i * n + i] = 1;
      const h = d[i + 1];
      if (h !== 0) {
        for (let k = 0; k <= i; k++) d[k] = V[(i + 1) * n + k] / h;
        for (let j = 0; j <= i; j++) {
          let g = 0;
          for (let k = 0; k <= i; k++) g += V[(i + 1) * n + k] * V[j * n + k];
          for (let k = 0; k <= i; k++) V[j * n + k] -= g * d[k];
        }
      }
      for (let k = 0; k <= i; k++) V[(i + 1) * n + k] = 0;
    }
    for (let j = 0; j < n; j++) {
      d[j] = V[j * n + n - 1];
      V[j * n + n - 1] = 0;
    }
    V[(n - 1) * n + n - 1] = 1;
  } else {
    for (let j = 0; j < n; j++) d[j] = V[j * n + j];
  }
  e[0] = 0;
}

/**
 * Eigenvalues of the symmetric tridiagonal T (diagonal d, off-diagonal e[i] = T[i, i+1],
 * i < n − 1; e[n−1] is scratch) by implicit-shift QL (G&VL §8.3; EISPACK tql2). On return d holds
 * the eigenvalues in ascending order and e is destroyed. When W (n×m row-major, m = wCols ≥ 1) is
 * given it is replaced by Qᵀ·W where T = Q Λ Qᵀ (Givens rotations act on contiguous rows): pass
 * the Householder Qhᵀ to get the eigenvectors of the full matrix as rows, or W = e_{n−1} (m = 1)
 * to get the last components of T's eigenvectors cheaply. No allocation.
 */
export function tridiagonalQL(d: Float64Array, e: Float64Array, n: number, W: Float64Array | null = null, wCols = 0): void {
  if (n <= 0) return;
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  for (let l = 0; l < n; l++) {
    // Find a negligible off-diagonal element.
    tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
    let m = l;
    while (m < n - 1 && !(Math.abs(e[m]) <= EPS * tst1)) m++;
    if (m > l) {
      let sweeps = 0;
      do {
        if (++sweeps > QL_MAX_SWEEPS_PER_EIGENVALUE) break;
        // Implicit shift from the leading 2×2 block.
        let g = d[l];
        let p = (d[l + 1] - g) / (2 * e[l]);
        let r = pythag(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        const dl1 = d[l + 1];
        let h = g - d[l];
        for (let i = l + 2; i < n; i++) d[i] -= h;
        f += h;
        // Implicit QL sweep (Givens rotations from the bottom of the unreduced block).
        p = d[m];
        let c = 1,
          c2 = 1,
          c3 = 1;
        const el1 = e[l + 1];
        let s = 0,
          s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * p;
          r = pythag(p, e[i]);
          e[i + 1] = s * r;
          if (r === 0) {
            c = 1;
            s = 0;
          } else {
            s = e[i] / r;
            c = p / r;
          }
          p = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          if (W) {
            const o0 = i * wCols,
              o1 = o0 + wCols;
            for (let k = 0; k < wCols; k++) {
              const wh = W[o1 + k];
              W[o1 + k] = s * W[o0 + k] + c * wh;
              W[o0 + k] = c * W[o0 + k] - s * wh;
            }
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]) > EPS * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
  // Selection sort, ascending (n ≤ a few hundred: O(n²) is negligible next to the O(n³) above).
  for (let i = 0; i < n - 1; i++) {
    let k = i;
    let p = d[i];
    for (let j = i + 1; j < n; j++)
      if (d[j] < p) {
        k = j;
        p = d[j];
      }
    if (k !== i) {
      d[k] = d[i];
      d[i] = p;
      if (W) {
        const oi = i * wCols,
          ok = k * wCols;
        for (let r = 0; r < wCols; r++) {
          const t = W[oi + r];
          W[oi + r] = W[ok + r];
          W[ok + r] = t;
        }
      }
    }
  }
}

/** `overwrite`: A itself is the work matrix (the caller gives it up), else a copy is made. */
function symmetricEigenImpl(A: Float64Array, n: number, wantVectors: boolean, overwrite = false): { values: Float64Array; vectors: Float64Array | null } {
  const values = new Float64Array(Math.max(n, 0));
  if (n <= 0) return { values, vectors: wantVectors ? new Float64Array(0) : null };
  const scale = scaleOf(A, n);
  // symmetricScaledCopy may write into A: each pair (i, j), (j, i) is read before it is written
  const V = overwrite ? A : new Float64Array(n * n);
  if (Number.isNaN(scale)) {
    values.fill(NaN);
    if (wantVectors) V.fill(NaN);
    return { values, vectors: wantVectors ? V : null };
  }
  symmetricScaledCopy(A, n, scale, V);
  const e = new Float64Array(n);
  tridiagonalize(V, n, values, e, wantVectors);
  for (let i = 1; i < n; i++) e[i - 1] = e[i]; // tred2 stores T[i, i−1] in e[i]; QL wants T[i, i+1] in e[i]
  tridiagonalQL(values, e, n, wantVectors ? V : null, wantVectors ? n : 0);
  for (let i = 0; i < n; i++) values[i] *= scale;
  if (wantVectors) {
    // V holds the eigenvectors as rows; transpose in place so that column j is eigenvector j.
    for (let i = 0; i < n; i++)
      for (let j = 0; j < i; j++) {
        const t = V[i * n + j];
        V[i * n + j] = V[j * n + i];
        V[j * n + i] = t;
      }
  }
  return { values, vectors: wantVectors ? V : null };
}

/**
 * All eigenvalues of the symmetric part of A (row-major n×n), ascending. Exact up to backward
 * error O(u·‖A‖): Householder tridiagonalisation + implicit QL (G&VL §8.3). Intended for
 * n ≲ a few hundred (O(n³) time, O(n²) memory).
 */
export function symmetricEigenvalues(A: Float64Array, n: number): Float64Array {
  return symmetricEigenImpl(A, n, false).values;
}

/** symmetricEigenvalues of an A its caller no longer needs: A (n×n) is overwritten, and no n×n copy is made. */
export function symmetricEigenvaluesOverwriting(A: Float64Array, n: number): Float64Array {
  return symmetricEigenImpl(A, n, false, true).values;
}

export interface SymmetricEigen {
  /** Eigenvalues, ascending. */
  values: Float64Array;
  /** Orthonormal eigenvectors, row-major n×n: column j (entries vectors[i·n + j]) belongs to values[j]. */
  vectors: Float64Array;
}

/** Eigenvalues and eigenvectors of the symmetric part of A (about 3× the cost of the values alone). */
export function symmetricEigen(A: Float64Array, n: number): SymmetricEigen {
  const r = symmetricEigenImpl(A, n, true);
  return { values: r.values, vectors: r.vectors as Float64Array };
}

// ───────────────────────────────────────────── Lanczos ─────────────────────────────────────────────

export interface LanczosOptions {
  /** Krylov dimension cap (default min(n, LANCZOS_MAX_STEPS)). */
  maxSteps?: number;
  /** Relative stopping tolerance on the largest Ritz value (default LANCZOS_RELATIVE_TOLERANCE). */
  tolerance?: number;
  /** LCG seed of the start vector (default 1). */
  seed?: number;
}

export interface LanczosResult {
  /** Largest Ritz value θmax ≤ λmax of the operator. */
  max: number;
  /**
   * A-posteriori error estimate for θmax: residual β_k|s_k|, sharpened by the Ritz gap. It bounds
   * the distance to the nearest eigenvalue; that this is λmax relies on the random start vector
   * (standard Lanczos caveat).
   */
  maxErrorBound: number;
  /** Smallest Ritz value θmin ≥ λmin of the operator (only a rough estimate unless it converged). */
  min: number;
  /** Same estimate for θmin. */
  minErrorBound: number;
  /** Lanczos steps taken (= operator applications). */
  steps: number;
  /** True when the stopping test on θmax was met (or the Krylov space became invariant). */
  converged: boolean;
}

/**
 * Error bound of a Ritz value with residual r: r itself, or r²/gap once r < gap/2 (gap to the
 * neighbouring Ritz value standing in for the unknown gap to the rest of the spectrum).
 */
function gapBound(r: number, gap: number): number {
  return r < 0.5 * gap ? Math.min(r, (r * r) / gap) : r;
}

/**
 * Symmetric Lanczos with full reorthogonalisation (two classical Gram–Schmidt passes, "twice is
 * enough", Giraud et al. 2005) on the symmetric operator y = op(x) of dimension n; G&VL §10.1,
 * §10.3. Ritz values and the last components of their vectors come from tridiagonalQL on T_k each
 * step (O(k²)). All workspace is allocated once up front.
 */
export function lanczosExtremes(op: (x: Float64Array, y: Float64Array) => void, n: number, opts: LanczosOptions = {}): LanczosResult {
  const maxSteps = Math.max(1, Math.min(n, opts.maxSteps ?? LANCZOS_MAX_STEPS));
  const tol = opts.tolerance ?? LANCZOS_RELATIVE_TOLERANCE;
  const Q = new Float64Array(maxSteps * n);
  const w = new Float64Array(n);
  const y = new Float64Array(n);
  const qj = new Float64Array(n); // copy of q_j handed to op (no per-step subarray views)
  const alpha = new Float64Array(maxSteps);
  const beta = new Float64Array(maxSteps);
  const td = new Float64Array(maxSteps);
  const te = new Float64Array(maxSteps);
  const tz = new Float64Array(maxSteps);

  const result: LanczosResult = { max: 0, maxErrorBound: Infinity, min: 0, minErrorBound: Infinity, steps: 0, converged: false };
  if (n <= 0) {
    result.maxErrorBound = 0;
    result.minErrorBound = 0;
    result.converged = true;
    return result;
  }

  lcgFill(w, n, opts.seed ?? 1);
  let nrm = 0;
  for (let i = 0; i < n; i++) nrm += w[i] * w[i];
  nrm = 1 / Math.sqrt(nrm);
  for (let i = 0; i < n; i++) Q[i] = w[i] * nrm;

  let opScale = 0;
  for (let j = 0; j < maxSteps; j++) {
    const qo = j * n;
    for (let i = 0; i < n; i++) qj[i] = Q[qo + i];
    op(qj, y);
    let a = 0;
    for (let i = 0; i < n; i++) a += qj[i] * y[i];
    const bPrev = j > 0 ? beta[j - 1] : 0;
    for (let i = 0; i < n; i++) w[i] = y[i] - a * qj[i] - (j > 0 ? bPrev * Q[qo - n + i] : 0);
    // Full reorthogonalisation against q_0..q_j, twice.
    for (let pass = 0; pass < 2; pass++) {
      for (let k = 0; k <= j; k++) {
        const ko = k * n;
        let c = 0;
        for (let i = 0; i < n; i++) c += Q[ko + i] * w[i];
        for (let i = 0; i < n; i++) w[i] -= c * Q[ko + i];
        if (k === j) a += c;
      }
    }
    alpha[j] = a;
    let b = 0;
    for (let i = 0; i < n; i++) b += w[i] * w[i];
    b = Math.sqrt(b);
    beta[j] = b;
    const k = j + 1;
    opScale = Math.max(opScale, Math.abs(a) + b + bPrev);

    // Ritz values of T_k and last components of their vectors.
    for (let i = 0; i < k; i++) {
      td[i] = alpha[i];
      te[i] = beta[i];
      tz[i] = 0;
    }
    tz[k - 1] = 1;
    tridiagonalQL(td, te, k, tz, 1);
    const breakdown = !(b > LANCZOS_BREAKDOWN_TOLERANCE * opScale) || k === n;
    const rMax = b * Math.abs(tz[k - 1]);
    const rMin = b * Math.abs(tz[0]);
    result.max = td[k - 1];
    result.maxErrorBound = k > 1 ? gapBound(rMax, td[k - 1] - td[k - 2]) : rMax;
    result.min = td[0];
    result.minErrorBound = k > 1 ? gapBound(rMin, td[1] - td[0]) : rMin;
    result.steps = k;
    if (breakdown || result.maxErrorBound <= tol * Math.abs(result.max)) {
      result.converged = true;
      break;
    }
    if (k === maxSteps) break;
    nrm = 1 / b;
    const no = k * n;
    for (let i = 0; i < n; i++) Q[no + i] = w[i] * nrm;
  }
  return result;
}

// ───────────────────────────────────── extreme-eigenvalue estimates ─────────────────────────────────────

export interface ExtremeEigenvalueEstimate {
  lambdaMin: number;
  lambdaMax: number;
  /** A-posteriori estimate of λmax − lambdaMax ≥ 0 (Lanczos underestimates λmax); see LanczosResult. */
  lambdaMaxErrorBound: number;
  /**
   * Estimate of |lambdaMin − λmin| from the inverse-Lanczos residual, not counting the O(u·λmax)
   * rounding floor of the factorisation (Infinity when the Cholesky fallback failed: lambdaMin is
   * then only an upper bound that proves A is indefinite).
   */
  lambdaMinErrorBound: number;
  /** Shift σ of the Cholesky factor of A + σI used for λmin (NaN when no factor was found). */
  inverseShift: number;
  /** True when A + σI factorised with σ ≤ INVERSE_SHIFT_MAX_RELATIVE·scale (A is PSD up to that shift). */
  factorised: boolean;
  lanczosSteps: number;
  inverseLanczosSteps: number;
  /** max|A_ij| rounded to a power of two: the unit of the relative tolerances. */
  scale: number;
}

export interface ExtremeEigenvalueOptions {
  maxSteps?: number;
  tolerance?: number;
}

/**
 * λmax by Lanczos on A and λmin by shift-and-invert Lanczos on (A + σI)⁻¹ = (LLᵀ)⁻¹ with the factor
 * from choleskyWithFallback (σ = 0 first, then INVERSE_SHIFT_START_RELATIVE·scale ×10 up to
 * INVERSE_SHIFT_MAX_RELATIVE·scale); λmin = 1/μmax − σ. Cost: one O(n³/3) factorisation plus
 * ≤ 2·maxSteps O(n²) operator applications. Guards: λmax ≥ max A_ii and λmin ≤ min A_ii (Rayleigh
 * quotients of unit vectors), λmin ≤ θmin (Ritz values lie inside the spectrum). If no shift up to
 * the maximum factorises, a pivot ≤ PIVOT_RELATIVE_TOLERANCE·max A_ii proves λmin ≤ −σmax + that
 * tolerance, and that value (or θmin if smaller) is returned as an upper bound.
 */
export function estimateExtremeEigenvalues(A: Float64Array, n: number, opts: ExtremeEigenvalueOptions = {}): ExtremeEigenvalueEstimate {
  const out: ExtremeEigenvalueEstimate = {
    lambdaMin: 0,
    lambdaMax: 0,
    lambdaMaxErrorBound: 0,
    lambdaMinErrorBound: 0,
    inverseShift: 0,
    factorised: true,
    lanczosSteps: 0,
    inverseLanczosSteps: 0,
    scale: 1,
  };
  if (n <= 0) return out;
  const scale = scaleOf(A, n);
  if (Number.isNaN(scale)) {
    out.lambdaMin = out.lambdaMax = out.lambdaMaxErrorBound = out.lambdaMinErrorBound = out.inverseShift = NaN;
    out.factorised = false;
    out.scale = NaN;
    return out;
  }
  out.scale = scale;
  if (n === 1) {
    out.lambdaMin = out.lambdaMax = A[0];
    return out;
  }
  const S = new Float64Array(n * n);
  symmetricScaledCopy(A, n, scale, S);
  let maxDiag = -Infinity,
    minDiag = Infinity,
    anyNonZero = false;
  for (let i = 0; i < n; i++) {
    const v = S[i * n + i];
    if (v > maxDiag) maxDiag = v;
    if (v < minDiag) minDiag = v;
  }
  for (let i = 0; i < n * n && !anyNonZero; i++) anyNonZero = S[i] !== 0;
  if (!anyNonZero) return out; // zero matrix: every eigenvalue is 0

  const lanczosOpts: LanczosOptions = { seed: 1 };
  if (opts.maxSteps !== undefined) lanczosOpts.maxSteps = opts.maxSteps;
  if (opts.tolerance !== undefined) lanczosOpts.tolerance = opts.tolerance;
  const fwd = lanczosExtremes((x, y) => matVec(S, n, x, y), n, lanczosOpts);
  const lmax = Math.max(fwd.max, maxDiag);
  out.lambdaMax = lmax * scale;
  out.lambdaMaxErrorBound = fwd.maxErrorBound * scale;
  out.lanczosSteps = fwd.steps;

  // Spectral radius ≥ max|S_ij| ≥ 2^-0.5 after scaling, so the 0.5 floor only guards rounding.
  const ref = Math.max(lmax, Math.abs(fwd.min), maxDiag, 0.5);
  const factor = choleskyWithFallback(S, n, {
    tryUnshifted: true,
    start: INVERSE_SHIFT_START_RELATIVE * ref,
    max: INVERSE_SHIFT_MAX_RELATIVE * ref,
  });
  let lmin: number;
  if (factor) {
    const sigma = factor.regularization;
    const inv = lanczosExtremes((x, y) => choleskySolve(factor, x, y), n, { ...lanczosOpts, seed: 2 });
    out.inverseLanczosSteps = inv.steps;
    out.inverseShift = sigma * scale;
    const mu = inv.max;
    if (mu > 0 && Number.isFinite(mu)) {
      lmin = 1 / mu - sigma;
      // d(1/μ) = dμ/μ²; μmax is underestimated, so 1/μ overestimates λmin + σ.
      out.lambdaMinErrorBound = (inv.maxErrorBound / (mu * mu)) * scale;
    } else {
      lmin = fwd.min;
      out.lambdaMinErrorBound = fwd.minErrorBound * scale;
    }
  } else {
    const sigmaMax = INVERSE_SHIFT_MAX_RELATIVE * ref;
    lmin = -sigmaMax + PIVOT_RELATIVE_TOLERANCE * (maxDiag + sigmaMax);
    out.factorised = false;
    out.inverseShift = NaN;
    out.lambdaMinErrorBound = Infinity;
  }
  lmin = Math.min(lmin, fwd.min, minDiag);
  out.lambdaMin = Math.min(lmin, lmax) * scale;
  return out;
}
