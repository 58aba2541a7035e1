/** Symmetric test matrices of a chosen spectrum (eigen and conditioning tests). */

/** Deterministic uniform numbers in [−1, 1) (32-bit LCG). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2147483648 - 1;
  };
}

/** Q·diag(lambda)·Qᵀ with Q a product of n random Householder reflectors (applied two-sided, O(n³)). */
export function spectrumMatrix(lambda: ArrayLike<number>, seed = 7): Float64Array {
  const n = lambda.length;
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) A[i * n + i] = lambda[i];
  const rnd = lcg(seed);
  const v = new Float64Array(n),
    p = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    let nv = 0;
    for (let i = 0; i < n; i++) {
      v[i] = rnd();
      nv += v[i] * v[i];
    }
    nv = 1 / Math.sqrt(nv);
    for (let i = 0; i < n; i++) v[i] *= nv;
    let c = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += A[i * n + j] * v[j];
      p[i] = s;
      c += v[i] * s;
    }
    // H A H = A − 2 v pᵀ − 2 p vᵀ + 4 c v vᵀ with H = I − 2 v vᵀ.
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        A[i * n + j] += -2 * v[i] * p[j] - 2 * p[i] * v[j] + 4 * c * v[i] * v[j];
      }
    }
  }
  // Exact symmetry (rounding in the updates above is not symmetric).
  for (let i = 0; i < n; i++)
    for (let j = 0; j < i; j++) {
      const m = 0.5 * (A[i * n + j] + A[j * n + i]);
      A[i * n + j] = m;
      A[j * n + i] = m;
    }
  return A;
}
