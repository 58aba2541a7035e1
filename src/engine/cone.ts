/**
 * Friction cone K_μ = {(s, u) ∈ ℝ×ℝ²: ‖u‖ ≤ μ s} and its dual K*_μ = {(σ, w): μ‖w‖ ≤ σ}
 * (docs/physics.md "The QP-SOCP and its KKT conditions"). All functions work on one contact's 3-block in place.
 * Norms of the hot paths (projection, disk clamp) use hypot2 (math/hypot.ts), not Math.hypot.
 */
import { hypot2, hypot2Exact } from './math/hypot.js';

/**
 * Euclidean projection of p[o..o+2] onto K_μ, written to out[o..o+2] (may alias p).
 * Three cases of the projection onto a second-order cone: interior, polar cone → origin, surface;
 * μ = 0 is the half-line λn ≥ 0 (eq. 34).
 */
export function projectCone(p: Float64Array, o: number, mu: number, out: Float64Array): void {
  const pn = p[o],
    p1 = p[o + 1],
    p2 = p[o + 2];
  if (mu <= 0) {
    out[o] = pn > 0 ? pn : 0;
    out[o + 1] = 0;
    out[o + 2] = 0;
    return;
  }
  const s = hypot2(p1, p2);
  if (s <= mu * pn) {
    // case 1: inside or on the surface
    out[o] = pn;
    out[o + 1] = p1;
    out[o + 2] = p2;
    return;
  }
  if (mu * s <= -pn) {
    // case 2: in the polar cone −K*_μ
    out[o] = 0;
    out[o + 1] = 0;
    out[o + 2] = 0;
    return;
  }
  const ln = (pn + mu * s) / (mu * mu + 1); // eq. 24, > 0 here
  const k = (mu * ln) / s; // s > 0 in the surface case (‖p_t‖ = 0 falls in one of the other two)
  out[o] = ln;
  out[o + 1] = k * p1;
  out[o + 2] = k * p2;
}

/** Disk projection used by sequential-impulse friction: clamp (u1, u2) to radius r ≥ 0. */
export function clampDisk(x: Float64Array, o: number, r: number): void {
  const s = hypot2(x[o], x[o + 1]);
  if (s > r) {
    const k = s > 0 ? r / s : 0;
    x[o] *= k;
    x[o + 1] *= k;
  }
}

/**
 * The Jacobian Π′ (3×3, row-major into out[o..o+8]) of the projection onto the friction cone K_μ at
 * p = (pn, p1, p2): identity inside K, 0 in the polar cone, and on the surface the derivative of
 * ln = (pn + μs)/(1 + μ²), λt = μ·ln·t̂ with s = ‖(p1, p2)‖, t̂ = (p1, p2)/s (Hiriart-Urruty & Lemaréchal;
 * docs/physics.md, the cone projection). μ = 0: the normal ray only. Used by the semismooth Newton steps
 * (polish.ts, coulombNewton.ts).
 */
export function coneProjectionJacobian(pn: number, p1: number, p2: number, mu: number, out: Float64Array, o: number): void {
  out.fill(0, o, o + 9);
  if (mu <= 0) {
    if (pn > 0) out[o] = 1;
    return;
  }
  const s = hypot2Exact(p1, p2);
  if (s <= mu * pn) {
    out[o] = 1;
    out[o + 4] = 1;
    out[o + 8] = 1;
    return;
  }
  if (mu * s <= -pn) return; // polar cone: Π = 0
  const k = 1 / (1 + mu * mu),
    t1 = p1 / s,
    t2 = p2 / s;
  const g = (mu * ((pn + mu * s) * k)) / s;
  out[o] = k;
  out[o + 1] = mu * k * t1;
  out[o + 2] = mu * k * t2;
  out[o + 3] = mu * k * t1;
  out[o + 4] = mu * mu * k * t1 * t1 + g * (1 - t1 * t1);
  out[o + 5] = mu * mu * k * t1 * t2 - g * t1 * t2;
  out[o + 6] = mu * k * t2;
  out[o + 7] = mu * mu * k * t1 * t2 - g * t1 * t2;
  out[o + 8] = mu * mu * k * t2 * t2 + g * (1 - t2 * t2);
}
