/** Per-contact helpers shared by the solvers: projected-gradient step sizes and the projection onto the friction cones. */
import type { ContactProblem } from '../problem.js';
import { projectCone } from '../cone.js';

/**
 * Per-contact step ρᵢ = 1 / (Gershgorin bound of block row i): Dᵢ = Σⱼ max-row-abs-sum of A's block row.
 * Then D = diag(Dᵢ I₃) ⪰ A, so the projected-gradient step λ ← Proj_K(λ − D⁻¹ w) never increases f
 * (majorisation; Beck & Teboulle 2009, Lemma 2.3, with the metric D).
 */
export function gershgorinSteps(p: ContactProblem, out: Float64Array): void {
  const { A, size: n, contactCount: C } = p;
  for (let c = 0; c < C; c++) {
    let bound = 0;
    for (let r = 0; r < 3; r++) {
      const row = (3 * c + r) * n;
      let s = 0;
      for (let j = 0; j < n; j++) s += Math.abs(A[row + j]);
      if (s > bound) bound = s;
    }
    out[c] = bound > 0 ? 1 / bound : 0;
  }
}

/** out = Proj_K(x) contact by contact (out may alias x). */
export function projectAll(p: { readonly contactCount: number; readonly mu: Float64Array }, x: ArrayLike<number>, out: Float64Array): void {
  if (x !== out) for (let i = 0; i < 3 * p.contactCount; i++) out[i] = x[i];
  for (let c = 0; c < p.contactCount; c++) projectCone(out, 3 * c, p.mu[c], out);
}
