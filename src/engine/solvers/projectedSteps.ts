/** Per-contact helper shared by the solvers: the projection onto the friction cones. */
import { projectCone } from '../cone.js';

/** out = Proj_K(x) contact by contact (out may alias x). */
export function projectAll(p: { readonly contactCount: number; readonly mu: Float64Array }, x: ArrayLike<number>, out: Float64Array): void {
  if (x !== out) for (let i = 0; i < 3 * p.contactCount; i++) out[i] = x[i];
  for (let c = 0; c < p.contactCount; c++) projectCone(out, 3 * c, p.mu[c], out);
}
