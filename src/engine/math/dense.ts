/**
 * Dense vectors and square matrices on Float64Array. Matrices are row-major, n×n.
 * These are the hot-loop primitives: they never allocate.
 */

/** out = M x (M n×n row-major). `out` must not alias `x`. */
export function matVec(m: Float64Array, n: number, x: Float64Array, out: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let s = 0;
    const row = i * n;
    for (let j = 0; j < n; j++) s += m[row + j] * x[j];
    out[i] = s;
  }
}

/** Largest absolute asymmetry |M_ij − M_ji| and the largest |M_ij|. */
export function asymmetry(m: Float64Array, n: number): { maxAsym: number; maxAbs: number; at: [number, number] } {
  let maxAsym = 0,
    maxAbs = 0;
  let at: [number, number] = [0, 0];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const v = Math.abs(m[i * n + j]);
      if (v > maxAbs) maxAbs = v;
      if (j > i) {
        const d = Math.abs(m[i * n + j] - m[j * n + i]);
        if (d > maxAsym) {
          maxAsym = d;
          at = [i, j];
        }
      }
    }
  }
  return { maxAsym, maxAbs, at };
}

export function allFinite(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}
