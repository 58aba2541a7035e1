/**
 * Eigendecomposition of a symmetric 3×3 matrix by the cyclic Jacobi method (Golub & Van Loan, Matrix
 * Computations, 4th ed., §8.5.2–8.5.3: rotation angles by Algorithm 8.5.1, the stable tan θ formula of
 * Rutishauser). Orthogonal to working precision whatever the eigenvalue gaps, which a closed-form
 * (trigonometric) 3×3 solution is not; nothing allocated.
 */

/** Sweeps of the cyclic Jacobi method (quadratic convergence: 3×3 needs 4–6). */
export const JACOBI3_MAX_SWEEPS = 12;

/**
 * a: symmetric 3×3 row-major at a[ao..] (not modified). Writes the eigenvalues to vals[vo..vo+2] and the
 * orthonormal eigenvectors as the COLUMNS of the row-major 3×3 U at vecs[uo..] (a = U diag(vals) Uᵀ).
 */
export function symmetricEigen3(a: Float64Array, ao: number, vals: Float64Array, vo: number, vecs: Float64Array, uo: number): void {
  const m = SCRATCH;
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) m[3 * i + j] = 0.5 * (a[ao + 3 * i + j] + a[ao + 3 * j + i]);
  for (let i = 0; i < 9; i++) vecs[uo + i] = i % 4 === 0 ? 1 : 0;
  for (let sweep = 0; sweep < JACOBI3_MAX_SWEEPS; sweep++) {
    const off = m[1] * m[1] + m[2] * m[2] + m[5] * m[5];
    const diag = m[0] * m[0] + m[4] * m[4] + m[8] * m[8];
    if (off === 0 || off <= 1e-32 * diag) break;
    for (let pq = 0; pq < 3; pq++) {
      const p = pq === 2 ? 1 : 0,
        q = pq === 0 ? 1 : 2,
        r = 3 - p - q;
      const apq = m[3 * p + q];
      if (apq === 0) continue;
      const app = m[4 * p],
        aqq = m[4 * q];
      // Rutishauser: τ = (a_qq − a_pp)/(2 a_pq), t = sign(τ)/(|τ| + √(1 + τ²)), c = 1/√(1 + t²), s = t c
      const tau = (aqq - app) / (2 * apq);
      const t = (tau >= 0 ? 1 : -1) / (Math.abs(tau) + Math.sqrt(1 + tau * tau));
      const c = 1 / Math.sqrt(1 + t * t),
        s = t * c;
      // A ← Jᵀ A J, J the rotation [[c, s], [−s, c]] in the (p, q) plane
      const arp = m[3 * r + p],
        arq = m[3 * r + q];
      const nrp = c * arp - s * arq,
        nrq = s * arp + c * arq;
      m[4 * p] = app - t * apq;
      m[4 * q] = aqq + t * apq;
      m[3 * p + q] = m[3 * q + p] = 0;
      m[3 * r + p] = m[3 * p + r] = nrp;
      m[3 * r + q] = m[3 * q + r] = nrq;
      // U ← U J
      for (let i = 0; i < 3; i++) {
        const up = vecs[uo + 3 * i + p],
          uq = vecs[uo + 3 * i + q];
        vecs[uo + 3 * i + p] = c * up - s * uq;
        vecs[uo + 3 * i + q] = s * up + c * uq;
      }
    }
  }
  vals[vo] = m[0];
  vals[vo + 1] = m[4];
  vals[vo + 2] = m[8];
}

const SCRATCH = new Float64Array(9);
