/**
 * The merit of Coulomb's friction law (docs/physics.md "Coulomb's law and the De Saxcé fixed point"):
 * the FCLIB natural-map residual of the frictional contact problem (Acary et al. 2014, "FCLIB: a collection
 * of discrete 3D frictional contact problems", §3; the error of Acary, Brémond & Huber 2018, "On solving
 * contact problems with Coulomb friction: formulations and numerical comparisons"):
 *
 *   merit(λ) = ‖λ − Π_K(λ − ũ)‖₂ / (1 + ‖q‖₂),  u = Aλ − b,  ũᵢ = uᵢ + μᵢ‖u_t,ᵢ‖ e_n,  q = −b.
 *
 * Zero exactly when λ ∈ K, ũ ∈ K* and λ ⊥ ũ (De Saxcé & Feng 1991): a sticking, sliding (u_n = 0,
 * λ_t opposite u_t on the cone surface) or separating contact.
 */
import type { ContactProblem } from './problem.js';
import { projectCone } from './cone.js';
import { hypot2 } from './math/hypot.js';

/** Scratch space so that an iteration can evaluate the merit without allocating. */
export class CoulombMeritWorkspace {
  readonly u: Float64Array;
  readonly tmp = new Float64Array(3);
  constructor(n: number) {
    this.u = new Float64Array(n);
  }
}

/** merit(λ) as above; +∞ when λ, A or b give a non-finite value (no tolerance is met by non-finite data). */
export function coulombMerit(p: ContactProblem, lambda: Float64Array, ws = new CoulombMeritWorkspace(p.size)): number {
  const { A, b, size: n } = p;
  const { u } = ws;
  for (let i = 0; i < n; i++) {
    let s = -b[i];
    const row = i * n;
    for (let j = 0; j < n; j++) s += A[row + j] * lambda[j];
    u[i] = s;
  }
  return coulombMeritFromU(p.mu, b, lambda, u, ws.tmp);
}

/** coulombMeritFromU's default scratch (the function does not call back into itself: sharing it is safe, and a solve of one contact no longer allocates per merit). */
const MERIT_TMP = new Float64Array(3);

/** merit(λ) from u = Aλ − b computed by the caller (e.g. matrix-free from body velocity changes); `tmp` holds 3 numbers. */
export function coulombMeritFromU(mu: Float64Array, b: Float64Array, lambda: Float64Array, u: Float64Array, tmp: Float64Array = MERIT_TMP): number {
  const C = mu.length;
  let qq = 0;
  for (let i = 0; i < 3 * C; i++) qq += b[i] * b[i];
  let sum = 0;
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    const ut = hypot2(u[o + 1], u[o + 2]);
    tmp[0] = lambda[o] - (u[o] + mu[c] * ut);
    tmp[1] = lambda[o + 1] - u[o + 1];
    tmp[2] = lambda[o + 2] - u[o + 2];
    projectCone(tmp, 0, mu[c], tmp);
    for (let k = 0; k < 3; k++) {
      const d = lambda[o + k] - tmp[k];
      sum += d * d;
    }
  }
  const m = Math.sqrt(sum) / (1 + Math.sqrt(qq));
  return Number.isFinite(m) ? m : Number.POSITIVE_INFINITY;
}

/**
 * Coulomb's law checked contact by contact in scale-free terms, beside the merit (whose 1 + ‖q‖ scaling
 * makes it absolute when ‖b‖ ≪ 1, and whose modified velocity ũ_n = u_n + μ‖u_t‖ hides a violated law when
 * μ is huge): a contact is either open — λ = 0 and u_n ≥ 0 — or closed — u_n = 0 with λ in the cone and
 * either sticking (u_t = 0) or sliding on the cone's edge against its slip, λ_t = −μλ_n u_t/‖u_t‖
 * (docs/physics.md "Coulomb's law and the De Saxcé fixed point"). Each contact's residual is the smaller
 * of the two readings (a closed contact's friction reading: its slip times how far friction is from opposing
 * it), impulses relative to λref = max(‖λ‖∞, ‖b‖∞ / max diag A) and velocities to
 * wref = max(‖b‖∞, ‖Aλ‖∞) (the scales of the KKT report, kkt.ts). Zero exactly at a solution of the law.
 * `u` = Aλ − b. Returns the largest residual and its contact (+∞ on non-finite data).
 */
export function coulombLawResidual(p: ContactProblem, lambda: Float64Array, u: Float64Array): { value: number; contact: number } {
  const { A, size: n } = p;
  let diagMax = 0;
  for (let i = 0; i < n; i++) diagMax = Math.max(diagMax, A[i * n + i]);
  return coulombLawResidualFrom(p.mu, p.b, diagMax, lambda, u);
}

/** coulombLawResidual from the problem's μ, b and largest diagonal entry of A (any storage of A). */
export function coulombLawResidualFrom(
  mu: ArrayLike<number>,
  b: ArrayLike<number>,
  diagMax: number,
  lambda: ArrayLike<number>,
  u: ArrayLike<number>,
): { value: number; contact: number } {
  const n = b.length,
    C = mu.length;
  let bMax = 0,
    lamMax = 0,
    aLamMax = 0;
  for (let i = 0; i < n; i++) {
    bMax = Math.max(bMax, Math.abs(b[i]));
    lamMax = Math.max(lamMax, Math.abs(lambda[i]));
    aLamMax = Math.max(aLamMax, Math.abs(u[i] + b[i]));
  }
  const lr = Math.max(lamMax, diagMax > 0 ? bMax / diagMax : bMax) || 1;
  const wr = Math.max(bMax, aLamMax) || 1;
  let worst = 0,
    contact = -1;
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      m = mu[c];
    const ln = lambda[o],
      l1 = lambda[o + 1],
      l2 = lambda[o + 2];
    const un = u[o],
      u1 = u[o + 1],
      u2 = u[o + 2];
    const lt = hypot2(l1, l2),
      ut = hypot2(u1, u2);
    // open: λ = 0, not approaching
    const open = Math.max(Math.abs(ln) / lr, lt / lr, Math.max(0, -un) / wr);
    // closed: in the cone, no normal motion, and sticking or sliding on the cone's edge against the slip
    const inCone = Math.max(0, -ln, lt - m * ln) / lr;
    const stick = ut / wr;
    const slide = ut > 0 ? hypot2(l1 + (m * ln * u1) / ut, l2 + (m * ln * u2) / ut) / lr : Number.POSITIVE_INFINITY;
    // the friction part: the slip, times how far friction is from opposing it (at most 1) — a slow slip's direction
    // is known only to the velocities' accuracy, and the natural map weighs a friction impulse θ off the slip as
    // ρ‖u_t‖θ too (λ − P_K(λ − ρũ) on the cone's edge); the smaller of the two readings let a 1e-5 m/s slip
    // hold "converged" back at a merit of 1e-9
    const closed = Math.max(inCone, Math.abs(un) / wr, stick * Math.min(1, slide));
    const r = Math.min(open, closed);
    if (!(r <= worst)) {
      worst = Number.isNaN(r) ? Number.POSITIVE_INFINITY : r;
      contact = c;
      if (worst === Number.POSITIVE_INFINITY) break;
    }
  }
  return { value: worst, contact };
}
