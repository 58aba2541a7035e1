/**
 * Cholesky factorisation A + εI = L Lᵀ with the usual diagonal-shift fallback (Nocedal & Wright,
 * Numerical Optimization, 2nd ed. 2006, Algorithm 3.3): try ε = 1e-10, multiply by 10 up to 1e-6.
 */

/** First diagonal shift tried by the fallback (docs/physics.md "Regularisation"). */
export const REGULARIZATION_START = 1e-10;
/** Largest diagonal shift the fallback may use before reporting failure. */
export const REGULARIZATION_MAX = 1e-6;
/**
 * A pivot is rejected when it is ≤ this many ulps of the largest diagonal entry: below that the
 * factor is dominated by rounding and solves with it amplify noise by > 1e12.
 */
export const PIVOT_RELATIVE_TOLERANCE = 1e-13;

export interface CholeskyFactor {
  readonly n: number;
  /** Lower-triangular factor, row-major n×n (upper part is zero). */
  readonly L: Float64Array;
  /** Diagonal shift ε actually used (0 when A itself factorised). */
  readonly regularization: number;
}

/**
 * Envelope scratch, grown on demand (no allocation per call): first non-zero column of each row, and per
 * column j the last row whose envelope reaches it (max{i : first[i] ≤ j}, the column envelope).
 */
let envelope = new Int32Array(0);
let columnEnd = new Int32Array(0);

/**
 * Factorises A + shift·I in place into `L`. Returns false on a non-positive or tiny pivot.
 * A is row-major n×n and symmetric; only its lower triangle is read.
 * Envelope (skyline) Cholesky (George & Liu, Computer Solution of Large Sparse Positive Definite Systems,
 * 1981, ch. 4): L keeps A's row envelope, so the products left of a row's first non-zero are skipped —
 * they are exact zeros, so the factor is bit-identical to the dense loop, at a fraction of the cost for
 * contact problems whose A is block-banded (stacks, chains).
 */
export function choleskyInto(a: Float64Array, n: number, shift: number, L: Float64Array): boolean {
  if (envelope.length < n) {
    envelope = new Int32Array(n);
    columnEnd = new Int32Array(n);
  }
  const first = envelope,
    colEnd = columnEnd;
  let maxDiag = 0;
  for (let i = 0; i < n; i++) {
    maxDiag = Math.max(maxDiag, Math.abs(a[i * n + i] + shift));
    const ri = i * n;
    let f = 0;
    while (f < i && a[ri + f] === 0) f++;
    first[i] = f;
    colEnd[i] = i;
  }
  for (let i = 0; i < n; i++) if (colEnd[first[i]] < i) colEnd[first[i]] = i;
  for (let j = 1; j < n; j++) if (colEnd[j] < colEnd[j - 1]) colEnd[j] = colEnd[j - 1];
  const tiny = PIVOT_RELATIVE_TOLERANCE * maxDiag;
  L.fill(0);
  for (let j = 0; j < n; j++) {
    let d = a[j * n + j] + shift;
    const rj = j * n,
      fj = first[j];
    for (let k = fj; k < j; k++) d -= L[rj + k] * L[rj + k];
    if (!(d > tiny)) return false;
    const ljj = Math.sqrt(d);
    L[rj + j] = ljj;
    // rows below colEnd[j] all have first[i] > j: L[i][j] = 0 there
    for (let i = j + 1, hi = colEnd[j]; i <= hi; i++) {
      const fi = first[i];
      if (fi > j) continue; // outside row i's envelope: L[i][j] = 0
      const ri = i * n;
      let s = a[ri + j];
      let k = fi > fj ? fi : fj;
      if (i < hi && first[i + 1] <= j) {
        // rows i and i + 1 together: two independent sums, each in its own order (k ascending), so the
        // same roundings as one row at a time, but the two chains of dependent subtractions overlap
        const ri1 = ri + n,
          fi1 = first[i + 1];
        let s1 = a[ri1 + j];
        let k1 = fi1 > fj ? fi1 : fj;
        for (; k < k1; k++) s -= L[ri + k] * L[rj + k];
        for (; k1 < k; k1++) s1 -= L[ri1 + k1] * L[rj + k1];
        for (; k < j; k++) {
          const l = L[rj + k];
          s -= L[ri + k] * l;
          s1 -= L[ri1 + k] * l;
        }
        L[ri + j] = s / ljj;
        L[ri1 + j] = s1 / ljj;
        i++;
        continue;
      }
      for (; k < j; k++) s -= L[ri + k] * L[rj + k];
      L[ri + j] = s / ljj;
    }
  }
  return true;
}

export interface CholeskyOptions {
  /** Try the unshifted matrix first (default false: the first try is ε = 1e-10). */
  tryUnshifted?: boolean;
  start?: number;
  max?: number;
}

/** Factorises with the ε-fallback. Returns null when even ε = max fails (A is not PSD). */
export function choleskyWithFallback(a: Float64Array, n: number, opts: CholeskyOptions = {}): CholeskyFactor | null {
  const L = new Float64Array(n * n);
  if (opts.tryUnshifted && choleskyInto(a, n, 0, L)) return { n, L, regularization: 0 };
  const max = opts.max ?? REGULARIZATION_MAX;
  for (let eps = opts.start ?? REGULARIZATION_START; eps <= max * (1 + 1e-12); eps *= 10) {
    if (choleskyInto(a, n, eps, L)) return { n, L, regularization: eps };
  }
  return null;
}

/** Solves L Lᵀ x = rhs; `x` may alias `rhs`. No allocation. */
export function choleskySolve(f: CholeskyFactor, rhs: Float64Array, x: Float64Array, env?: Envelope): void {
  choleskySolveRaw(f.L, f.n, rhs, x, env);
}

/**
 * Same as choleskySolve for a factor stored in L (row-major, leading dimension n). With `env` (an envelope
 * of the factorised matrix, see symmetricEnvelope) the loops skip the exact zeros outside it: same result
 * for finite data, O(envelope) instead of O(n²).
 */
export function choleskySolveRaw(L: Float64Array, n: number, rhs: Float64Array, x: Float64Array, env?: Envelope): void {
  for (let i = 0; i < n; i++) {
    let s = rhs[i];
    const ri = i * n;
    for (let k = env ? env.first[i] : 0; k < i; k++) s -= L[ri + k] * x[k];
    x[i] = s / L[ri + i];
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i];
    const hi = env ? env.last[i] : n - 1;
    for (let k = i + 1; k <= hi; k++) s -= L[k * n + i] * x[k];
    x[i] = s / L[i * n + i];
  }
}

/**
 * Row envelope of a symmetric matrix (George & Liu 1981, ch. 4): row i's non-zeros lie in columns
 * first[i] … last[i]. The Cholesky factor keeps the lower envelope, so first/last bound L's rows and columns.
 */
export interface Envelope {
  readonly first: Int32Array;
  readonly last: Int32Array;
}

/**
 * The envelope of the symmetric n×n matrix `a`, widened to whole `block`×`block` diagonal blocks (a contact's
 * 3×3 block can fill in later, e.g. the interior-point barrier term): every entry outside it is an exact 0.
 */
export function symmetricEnvelope(a: Float64Array, n: number, block = 1): Envelope {
  const first = new Int32Array(n),
    last = new Int32Array(n);
  for (let b0 = 0; b0 < n; b0 += block) {
    const b1 = Math.min(n, b0 + block);
    let f = b0;
    for (let i = b0; i < b1; i++) {
      const ri = i * n;
      let j = 0;
      while (j < f && a[ri + j] === 0) j++;
      if (j < f) f = j - (j % block);
    }
    for (let i = b0; i < b1; i++) {
      first[i] = f;
      last[i] = b1 - 1;
    }
  }
  // symmetry: column i is non-zero in every row k with first[k] ≤ i
  for (let k = 0; k < n; k++) for (let i = first[k]; i < k; i++) if (last[i] < k) last[i] = k;
  return { first, last };
}
