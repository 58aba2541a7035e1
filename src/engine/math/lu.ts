/** Dense LU with partial pivoting for the non-symmetric systems (AHO direction, natural-map Jacobian). */
/**
 * LU factorisation with partial pivoting of (M + shift·I), M row-major n×n, into LU (Doolittle,
 * Golub & Van Loan "Matrix Computations" Alg. 3.4.1). Returns false on a pivot ≤ tiny (singular to
 * working precision). The AHO Newton matrix and the polishing Jacobian are not symmetric, so
 * Cholesky does not apply to them.
 */
export function luInto(M: Float64Array, n: number, shift: number, LU: Float64Array, piv: Int32Array, tiny: number): boolean {
  LU.set(M);
  if (shift !== 0) for (let i = 0; i < n; i++) LU[i * n + i] += shift;
  for (let k = 0; k < n; k++) {
    let p = k,
      big = Math.abs(LU[k * n + k]);
    for (let i = k + 1; i < n; i++) {
      const v = Math.abs(LU[i * n + k]);
      if (v > big) {
        big = v;
        p = i;
      }
    }
    if (!(big > tiny)) return false;
    piv[k] = p;
    if (p !== k) {
      const rk = k * n,
        rp = p * n;
      for (let j = 0; j < n; j++) {
        const t = LU[rk + j];
        LU[rk + j] = LU[rp + j];
        LU[rp + j] = t;
      }
    }
    const rk = k * n,
      inv = 1 / LU[rk + k];
    for (let i = k + 1; i < n; i++) {
      const ri = i * n;
      const f = LU[ri + k] * inv;
      LU[ri + k] = f;
      if (f !== 0) for (let j = k + 1; j < n; j++) LU[ri + j] -= f * LU[rk + j];
    }
  }
  return true;
}

/** Solves (LU) y = rhs with the row interchanges piv; y must not alias rhs. */
export function luSolve(LU: Float64Array, n: number, piv: Int32Array, rhs: Float64Array, y: Float64Array): void {
  y.set(rhs);
  for (let k = 0; k < n; k++) {
    const p = piv[k];
    if (p !== k) {
      const t = y[k];
      y[k] = y[p];
      y[p] = t;
    }
  }
  for (let i = 0; i < n; i++) {
    let s = y[i];
    const ri = i * n;
    for (let k = 0; k < i; k++) s -= LU[ri + k] * y[k];
    y[i] = s;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i];
    const ri = i * n;
    for (let k = i + 1; k < n; k++) s -= LU[ri + k] * y[k];
    y[i] = s / LU[ri + i];
  }
}
