/**
 * Cone algebra of the interior points (ipm.ts dense, ipmSparse.ts sparse) for the second-order cone Q³ and the
 * 1-D cone of μ = 0 contacts: Nesterov–Todd scaling, Jordan product and division, the step to the cone
 * boundary, the interior tests and the starting-point shifts. References as in ipm.ts's file header: [V] L.
 * Vandenberghe, "The CVXOPT linear and quadratic cone program solvers" (2010) §2–§4; [ECOS] A. Domahidi, E. Chu,
 * S. Boyd, "ECOS: An SOCP solver for embedded systems", ECC 2013. Moved from ipm.ts; its Math.hypot(x, y) are
 * hypot2Exact (math/hypot.ts: the same double, without the builtin's per-call scratch array).
 */
import { IPM_MAX_INTERIOR_BACKTRACKS } from './ipmParameters.js';
import { hypot2Exact } from '../math/hypot.js';

/** Cone kinds per contact. */
export const CONE_ORTHANT = 1; // μ = 0: x0 ≥ 0, tangential variables pinned to 0
export const CONE_SOC = 3; // μ > 0: Lorentz cone Q³

/**
 * Nesterov–Todd scaling of one Q³ block ([V] §4.3 eqs. for "second-order cone"; [ECOS] §IV-C):
 *   x̄ = x/‖x‖_J, z̄ = z/‖z‖_J (‖u‖_J = √(u0² − ‖u1‖²)), γ = √((1 + x̄ᵀz̄)/2),
 *   w̄ = (x̄ + Jz̄)/(2γ) = (a, q), η = √(‖x‖_J/‖z‖_J),
 *   W = η [a qᵀ; q I + qqᵀ/(1+a)],  W⁻¹ = (1/η) [a −qᵀ; −q I + qqᵀ/(1+a)],
 *   λ_NT = Wz = W⁻¹x = √(‖x‖_J‖z‖_J)·(γ, (z̄1(γ + x̄0) + x̄1(γ + z̄0)) / (x̄0 + z̄0 + 2γ)).
 * ‖·‖_J² is evaluated as (u0 − ‖u1‖)(u0 + ‖u1‖) to avoid cancellation near the boundary.
 * Writes W⁻¹ (row-major 3×3) to winv[wo..wo+8] and λ_NT to nt[o..o+2]. Returns false if x or z is not
 * strictly interior.
 */
export function ntScalingSoc(x: Float64Array, z: Float64Array, o: number, winv: Float64Array, wo: number, nt: Float64Array): boolean {
  const x0 = x[o],
    x1 = x[o + 1],
    x2 = x[o + 2];
  const z0 = z[o],
    z1 = z[o + 1],
    z2 = z[o + 2];
  const xr = hypot2Exact(x1, x2),
    zr = hypot2Exact(z1, z2);
  if (!(x0 > xr) || !(z0 > zr)) return false;
  const xn = Math.sqrt((x0 - xr) * (x0 + xr));
  const zn = Math.sqrt((z0 - zr) * (z0 + zr));
  if (!(xn > 0) || !(zn > 0) || !Number.isFinite(xn) || !Number.isFinite(zn)) return false;
  const sb0 = x0 / xn,
    sb1 = x1 / xn,
    sb2 = x2 / xn;
  const zb0 = z0 / zn,
    zb1 = z1 / zn,
    zb2 = z2 / zn;
  const gamma = Math.sqrt(0.5 * (1 + sb0 * zb0 + sb1 * zb1 + sb2 * zb2));
  const inv2g = 1 / (2 * gamma);
  const a = (sb0 + zb0) * inv2g,
    q1 = (sb1 - zb1) * inv2g,
    q2 = (sb2 - zb2) * inv2g;
  const eta = Math.sqrt(xn / zn);
  const ie = 1 / eta,
    c = 1 / (1 + a);
  winv[wo] = ie * a;
  winv[wo + 1] = -ie * q1;
  winv[wo + 2] = -ie * q2;
  winv[wo + 3] = -ie * q1;
  winv[wo + 4] = ie * (1 + c * q1 * q1);
  winv[wo + 5] = ie * c * q1 * q2;
  winv[wo + 6] = -ie * q2;
  winv[wo + 7] = ie * c * q1 * q2;
  winv[wo + 8] = ie * (1 + c * q2 * q2);
  const r = Math.sqrt(xn * zn);
  const den = 1 / (sb0 + zb0 + 2 * gamma);
  nt[o] = r * gamma;
  nt[o + 1] = r * (zb1 * (gamma + sb0) + sb1 * (gamma + zb0)) * den;
  nt[o + 2] = r * (zb2 * (gamma + sb0) + sb2 * (gamma + zb0)) * den;
  return true;
}

/**
 * Largest α with v + α·d ∈ Q³ for v ∈ int Q³ (∞ if none). Maps v̄ = v/‖v‖_J to e = (1,0,0) with the
 * cone automorphism B = [v̄0 −v̄1ᵀ; −v̄1 I + v̄1v̄1ᵀ/(1+v̄0)] (the inverse NT/hyperbolic scaling of v̄,
 * [V] §4.3), then e + α·y ∈ Q³ ⇔ α(‖y1‖ − y0) ≤ 1 with y = B d/‖v‖_J ([V] §3, step to the boundary).
 */
export function maxStepSoc(v: Float64Array, d: Float64Array, o: number): number {
  const v0 = v[o],
    v1 = v[o + 1],
    v2 = v[o + 2];
  const vr = hypot2Exact(v1, v2);
  const vn = Math.sqrt((v0 - vr) * (v0 + vr));
  if (!(vn > 0)) return 0;
  return stepScaled(v0 / vn, v1 / vn, v2 / vn, vn, d, o);
}

/**
 * min(maxStepSoc(v, d, o), maxStepSoc(v, e, o)): v's norm and scaled entries formed once for both directions (the same
 * operations as two maxStepSoc calls, so the same step bit for bit); the NT step to the boundary's pair (ex, ez).
 */
export function maxStepSocPair(v: Float64Array, d: Float64Array, e: Float64Array, o: number): number {
  const v0 = v[o],
    v1 = v[o + 1],
    v2 = v[o + 2];
  const vr = hypot2Exact(v1, v2);
  const vn = Math.sqrt((v0 - vr) * (v0 + vr));
  if (!(vn > 0)) return 0;
  const a0 = v0 / vn,
    a1 = v1 / vn,
    a2 = v2 / vn;
  return Math.min(stepScaled(a0, a1, a2, vn, d, o), stepScaled(a0, a1, a2, vn, e, o));
}

/** maxStepSoc's step for v = vn·(a0, a1, a2) and direction d[o..o+2]. */
function stepScaled(a0: number, a1: number, a2: number, vn: number, d: Float64Array, o: number): number {
  const d0 = d[o] / vn,
    d1 = d[o + 1] / vn,
    d2 = d[o + 2] / vn;
  const y0 = a0 * d0 - a1 * d1 - a2 * d2;
  const k = (a1 * d1 + a2 * d2) / (1 + a0) - d0;
  const y1 = d1 + a1 * k,
    y2 = d2 + a2 * k;
  const t = hypot2Exact(y1, y2) - y0;
  return t > 0 ? 1 / t : Infinity;
}

/** Jordan product r = a∘b on one block ([V] §2.2: (a∘b)0 = aᵀb, (a∘b)1 = a0 b1 + b0 a1); r may alias nothing. */
export function jordanProduct(a: Float64Array, b: Float64Array, o: number, kind: number, r: Float64Array): void {
  if (kind === CONE_ORTHANT) {
    r[o] = a[o] * b[o];
    return;
  }
  r[o] = a[o] * b[o] + a[o + 1] * b[o + 1] + a[o + 2] * b[o + 2];
  r[o + 1] = a[o] * b[o + 1] + b[o] * a[o + 1];
  r[o + 2] = a[o] * b[o + 2] + b[o] * a[o + 2];
}

/**
 * Jordan division u = λ ⧵ r, i.e. the solution of λ∘u = r ([V] §2.2, inverse of the arrow matrix
 * Arw(λ)): u0 = (λ0 r0 − λ1ᵀr1)/(λ0² − ‖λ1‖²), u1 = (r1 − u0 λ1)/λ0. Writes u over r.
 */
export function jordanDivide(lam: Float64Array, r: Float64Array, o: number, kind: number): void {
  if (kind === CONE_ORTHANT) {
    r[o] /= lam[o];
    return;
  }
  const l0 = lam[o],
    l1 = lam[o + 1],
    l2 = lam[o + 2];
  const lr = hypot2Exact(l1, l2);
  const det = (l0 - lr) * (l0 + lr);
  const u0 = (l0 * r[o] - l1 * r[o + 1] - l2 * r[o + 2]) / det;
  r[o + 1] = (r[o + 1] - u0 * l1) / l0;
  r[o + 2] = (r[o + 2] - u0 * l2) / l0;
  r[o] = u0;
}

/** out = W⁻¹·v on one block (W⁻¹ symmetric, stored row-major 3×3 at winv[wo..]; orthant: scalar). */
export function applyWinv(winv: Float64Array, wo: number, v: Float64Array, o: number, kind: number, out: Float64Array): void {
  if (kind === CONE_ORTHANT) {
    out[o] = winv[wo] * v[o];
    out[o + 1] = 0;
    out[o + 2] = 0;
    return;
  }
  const v0 = v[o],
    v1 = v[o + 1],
    v2 = v[o + 2];
  out[o] = winv[wo] * v0 + winv[wo + 1] * v1 + winv[wo + 2] * v2;
  out[o + 1] = winv[wo + 3] * v0 + winv[wo + 4] * v1 + winv[wo + 5] * v2;
  out[o + 2] = winv[wo + 6] * v0 + winv[wo + 7] * v1 + winv[wo + 8] * v2;
}

/**
 * The update (x, z) ← (x, z) + α(dx, dz) from the saved iterate, halving α while rounding puts a block on or
 * outside its cone (at most IPM_MAX_INTERIOR_BACKTRACKS times); pinned entries stay. False: no step stays
 * inside, and (x, z) are restored. Shared by the dense and the sparse interior point.
 */
export function stepInside(
  x: Float64Array,
  z: Float64Array,
  xSave: Float64Array,
  zSave: Float64Array,
  dx: Float64Array,
  dz: Float64Array,
  alpha: number,
  pinned: Uint8Array,
  kind: Int8Array,
  C: number,
): boolean {
  xSave.set(x);
  zSave.set(z);
  const n = x.length;
  for (let bt = 0; bt <= IPM_MAX_INTERIOR_BACKTRACKS; bt++) {
    for (let i = 0; i < n; i++) {
      if (pinned[i]) continue;
      x[i] = xSave[i] + alpha * dx[i];
      z[i] = zSave[i] + alpha * dz[i];
    }
    if (allInterior(x, kind, C) && allInterior(z, kind, C)) return true;
    alpha *= 0.5;
  }
  x.set(xSave);
  z.set(zSave);
  return false;
}

/**
 * Complementarity target of one block: u = l ⧵ r_c with r_c = στe − a∘b − (Δa∘Δb of the predictor, when
 * given), orthant blocks' tangential entries 0 ([V] §3 eqs. (12)–(14), Mehrotra's second-order correction).
 * NT: a = b = l = λ_NT; AHO: a = x, b = z, l = x. `tmp` is scratch. Shared by the dense and sparse solvers.
 */
export function complementarityTarget(
  a: Float64Array,
  b: Float64Array,
  l: Float64Array,
  o: number,
  kind: number,
  sigmaTau: number,
  predA: Float64Array | null,
  predB: Float64Array,
  tmp: Float64Array,
  u: Float64Array,
): void {
  jordanProduct(a, b, o, kind, u);
  u[o] = sigmaTau - u[o];
  if (kind === CONE_SOC) {
    u[o + 1] = -u[o + 1];
    u[o + 2] = -u[o + 2];
  }
  if (predA) {
    jordanProduct(predA, predB, o, kind, tmp);
    u[o] -= tmp[o];
    if (kind === CONE_SOC) {
      u[o + 1] -= tmp[o + 1];
      u[o + 2] -= tmp[o + 2];
    }
  }
  if (kind === CONE_ORTHANT) {
    u[o + 1] = 0;
    u[o + 2] = 0;
  }
  jordanDivide(l, u, o, kind);
}

/**
 * NT directions of block c in the frame of λ_NT, ex = W⁻¹Δx and ez = u − W⁻¹Δx (= WΔz), and the largest step
 * keeping λ_NT + α·ex and λ_NT + α·ez in the cone ([V] §3, step to the boundary).
 */
export function ntStepToBoundary(
  winv: Float64Array,
  c: number,
  kind: number,
  dx: Float64Array,
  u: Float64Array,
  nt: Float64Array,
  ex: Float64Array,
  ez: Float64Array,
): number {
  const o = 3 * c;
  applyWinv(winv, 9 * c, dx, o, kind, ex);
  ez[o] = u[o] - ex[o];
  ez[o + 1] = kind === CONE_ORTHANT ? 0 : u[o + 1] - ex[o + 1];
  ez[o + 2] = kind === CONE_ORTHANT ? 0 : u[o + 2] - ex[o + 2];
  if (kind !== CONE_ORTHANT) return maxStepSocPair(nt, ex, ez, o);
  let amax = Infinity;
  if (ex[o] < 0) amax = -nt[o] / ex[o];
  if (ez[o] < 0) amax = Math.min(amax, -nt[o] / ez[o]);
  return amax;
}

/**
 * min over all C blocks of ntStepToBoundary, in one call (the same operations, so the same step bit for bit): a
 * double returned per block from a call V8 does not inline is boxed, ~25 MB of garbage per box-pile-1000 step.
 */
export function ntStepToBoundaryAll(
  winv: Float64Array,
  kind: Int8Array,
  C: number,
  dx: Float64Array,
  u: Float64Array,
  nt: Float64Array,
  ex: Float64Array,
  ez: Float64Array,
): number {
  let amax = Infinity;
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      k = kind[c];
    applyWinv(winv, 9 * c, dx, o, k, ex);
    ez[o] = u[o] - ex[o];
    ez[o + 1] = k === CONE_ORTHANT ? 0 : u[o + 1] - ex[o + 1];
    ez[o + 2] = k === CONE_ORTHANT ? 0 : u[o + 2] - ex[o + 2];
    if (k === CONE_ORTHANT) {
      let a = Infinity;
      if (ex[o] < 0) a = -nt[o] / ex[o];
      if (ez[o] < 0) a = Math.min(a, -nt[o] / ez[o]);
      amax = Math.min(amax, a);
      continue;
    }
    const v0 = nt[o],
      v1 = nt[o + 1],
      v2 = nt[o + 2];
    const vr = hypot2Exact(v1, v2);
    const vn = Math.sqrt((v0 - vr) * (v0 + vr));
    if (!(vn > 0)) {
      amax = Math.min(amax, 0);
      continue;
    }
    const a0 = v0 / vn,
      a1 = v1 / vn,
      a2 = v2 / vn;
    amax = Math.min(amax, Math.min(stepScaled(a0, a1, a2, vn, ex, o), stepScaled(a0, a1, a2, vn, ez, o)));
  }
  return amax;
}

/** True when every block of v is strictly inside its cone. */
export function allInterior(v: Float64Array, kind: Int8Array, C: number): boolean {
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    if (kind[c] === CONE_ORTHANT) {
      if (!(v[o] > 0)) return false;
    } else if (!(v[o] > hypot2Exact(v[o + 1], v[o + 2]))) return false;
  }
  return true;
}

/**
 * out[oo..oo+2] = Arw(x)⁻¹ r for one Q³ block (x = x[o..o+2] interior), i.e. the solution u of x∘u = r
 * (same formula as jordanDivide, [V] §2.2).
 */
export function arwSolve(x: Float64Array, o: number, r0: number, r1: number, r2: number, out: Float64Array, oo: number): void {
  const l0 = x[o],
    l1 = x[o + 1],
    l2 = x[o + 2];
  const lr = hypot2Exact(l1, l2);
  const det = (l0 - lr) * (l0 + lr);
  const u0 = (l0 * r0 - l1 * r1 - l2 * r2) / det;
  out[oo] = u0;
  out[oo + 1] = (r1 - u0 * l1) / l0;
  out[oo + 2] = (r2 - u0 * l2) / l0;
}

/**
 * Starting-point shift (phase 2, [V] §3): v ← v + (1 + t)e with t = −(smallest eigenvalue x0 − ‖x1‖ over
 * the cones), applied when t ≥ −1e-8·max(‖v‖, 1), so that v lies strictly inside every cone.
 */
export function shiftIntoCones(v: Float64Array, kind: Int8Array, C: number): void {
  let tmax = -Infinity,
    nrm = 0;
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    const ev = kind[c] === CONE_ORTHANT ? v[o] : v[o] - hypot2Exact(v[o + 1], v[o + 2]);
    tmax = Math.max(tmax, -ev);
    nrm = Math.max(nrm, Math.abs(v[o]) + hypot2Exact(v[o + 1], v[o + 2]));
  }
  if (tmax >= -1e-8 * Math.max(nrm, 1)) for (let c = 0; c < C; c++) v[3 * c] += 1 + tmax;
}

/**
 * Warm-start shift (solveIpmFrom): each cone's point v_c whose smallest eigenvalue (v₀ − ‖(v₁, v₂)‖, or v₀
 * for a 1-D cone) is below `margin` is moved along the cone's identity e by the difference, so that it is
 * exactly `margin`; points already that far inside are left alone (per cone, unlike shiftIntoCones, so the
 * contacts whose mode the warm start has right keep their values). Non-finite entries are left to the
 * caller's interior test.
 */
export function warmInteriorStart(v: Float64Array, kind: Int8Array, C: number, margin: number): void {
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    const ev = kind[c] === CONE_ORTHANT ? v[o] : v[o] - hypot2Exact(v[o + 1], v[o + 2]);
    if (ev < margin) v[o] += margin - ev;
  }
}

/**
 * Nesterov–Todd scaling of every cone (phase "NT scaling", [V] §4.1 for the 1-D cones, §4.3 for Q³):
 * W⁻¹ per cone into winv (9 per contact; orthant: winv[9c] = √(z/x)) and the scaled point
 * λ_NT = W z = W⁻¹ x into nt. False if x or z is not strictly interior.
 */
export function ntScaleAll(x: Float64Array, z: Float64Array, kind: Int8Array, C: number, winv: Float64Array, nt: Float64Array): boolean {
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    if (kind[c] === CONE_ORTHANT) {
      if (!(x[o] > 0) || !(z[o] > 0)) return false;
      winv[9 * c] = Math.sqrt(z[o] / x[o]); // W = √(x/z)
      nt[o] = Math.sqrt(x[o] * z[o]);
      nt[o + 1] = 0;
      nt[o + 2] = 0;
    } else if (!ntScalingSoc(x, z, o, winv, 9 * c, nt)) return false;
  }
  return true;
}
