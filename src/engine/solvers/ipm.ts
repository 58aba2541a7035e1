/**
 * Primal–dual interior-point method for the QP-SOCP (docs/physics.md "The QP-SOCP and its KKT conditions")
 *
 *   minimise f(λ) = ½λᵀAλ − bᵀλ   subject to  ‖(λt1,i, λt2,i)‖ ≤ μᵢλn,i  for every contact i,
 *
 * written from scratch (no solver library). References cited below:
 *   [V]    L. Vandenberghe, "The CVXOPT linear and quadratic cone program solvers" (2010): §2 Jordan
 *          algebra of the second-order cone, §3 the coneqp algorithm (starting point, Mehrotra
 *          predictor–corrector, step to the boundary, STEP = 0.99, EXPON = 3), §4 Nesterov–Todd scaling.
 *   [NT]   Y. Nesterov, M. Todd, "Self-scaled barriers and interior-point methods for convex
 *          programming", Math. Oper. Res. 22 (1997).
 *   [AHO]  F. Alizadeh, J.-P. Haeberly, M. Overton, "Primal-dual interior-point methods for
 *          semidefinite programming: convergence rates, stability and numerical results",
 *          SIAM J. Optim. 8 (1998) — the direction that linearises x∘z itself.
 *   [M]    S. Mehrotra, "On the implementation of a primal-dual interior point method",
 *          SIAM J. Optim. 2 (1992).
 *   [ECOS] A. Domahidi, E. Chu, S. Boyd, "ECOS: An SOCP solver for embedded systems", ECC 2013.
 *   [FP]   F. Facchinei, J.-S. Pang, "Finite-Dimensional Variational Inequalities and Complementarity
 *          Problems" (2003) §7.5 — semismooth Newton on the natural map.
 *   [LM]   J. J. Moré, "The Levenberg–Marquardt algorithm: implementation and theory", Lecture Notes
 *          in Mathematics 630 (1978).
 *
 * Change of variables. λ = κ·D·x with, per contact i, D = dᵢ·diag(1/μᵢ, 1, 1) maps the friction cone
 * K_μ onto the standard Lorentz cone Q³ = {x : ‖(x1, x2)‖ ≤ x0} (the (μλn, λt) blocks).
 * The scalar dᵢ makes the largest diagonal entry of the scaled 3×3 block of A equal 1: a per-contact
 * scalar scaling preserves the cone and removes the mass-ratio scaling of A's entries (docs/physics.md
 * "Conditioning"). κ = ‖D b‖∞ normalises the linear term. A μᵢ = 0 contact becomes the 1-D
 * cone x0 ≥ 0 with its tangential variables pinned to 0 (K_i = {λt = 0, λn ≥ 0} when μᵢ = 0).
 * The scaled problem
 *
 *   minimise ½xᵀPx + qᵀx  s.t. x ∈ K,    P = DAD,  q = −Db/κ,
 *
 * has the KKT conditions x ∈ K, z = Px + q ∈ K* = K, x∘z = 0 ([V] eq. (3) with G = −I, h = 0, s = x);
 * z = D·w/κ is the scaled contact velocity w = Aλ − b.
 *
 * Algorithm.
 *  1. Start ([V] §3): x̂ = −(P + δ₀I)⁻¹q, ẑ = −δ₀x̂ (= Px̂ + q), each shifted into int K.
 *  2. NT phase: Mehrotra predictor–corrector on the Nesterov–Todd scaled Newton system
 *     (P + W⁻²)Δx = −r + W⁻¹u ([V] §3 eq. (11)–(14), §4.3).
 *  3. AHO phase (KKT max_rel ≤ IPM_AHO_SWITCH): the same predictor–corrector with the AHO direction
 *     z∘Δx + x∘Δz = r_c. NT iterates only satisfy ‖x∘z − τe‖ = O(√τ) — the Jordan frames of x and z
 *     stay misaligned by O(√τ), visible as the checker's jordan/natural residuals of sliding contacts
 *     — while the AHO direction is locally quadratically convergent at strictly complementary
 *     solutions [AHO].
 *  4. Polish: when the interior-point phase stops above the tolerance (weakly complementary contacts
 *     converge only like √τ; near-duplicate contacts leave the split of the load undetermined to
 *     working precision), a few semismooth Newton / Levenberg–Marquardt steps on the checker's natural
 *     map [FP], each accepted only if it lowers KKT max_rel.
 * Every iterate of phases 2–3 is strictly inside the cones, every polished point is projected onto
 * them, and the best point (smallest KKT max_rel, kkt.ts) is returned, so λ is always primal feasible.
 *
 * Warm starts are ignored by `solveIpm`: an interior-point method must start in the interior of the cones,
 * well away from their boundary, which a (typically complementary, i.e. boundary) warm start is not.
 * `warmStart` is accepted for interface compatibility only. `solveIpmFrom` (the globalisation of newton.ts)
 * does start from a given λ: x = λ/(κD), z = Px + q, each cone's point pushed inside to the smallest
 * eigenvalue IPM_WARM_START_MARGIN (warmInteriorStart) — the shifted warm start of J. Gondzio, "Warm start of
 * the primal-dual method applied in the cutting-plane scheme", Math. Program. 83 (1998), and
 * E. A. Yildirim, S. J. Wright, "Warm-start strategies in interior-point methods for linear programming",
 * SIAM J. Optim. 12 (2002): a start near the solution's contact modes, kept away from the cone boundary.
 *
 * Output: `regularization` is the largest diagonal shift that had to be added to the (block-scaled,
 * unit-diagonal-block) Newton matrix to factorise it, 0 if none; the fixed damping of the polish is
 * not counted. `iterations` counts interior-point iterations plus polishing steps, and the history has
 * one entry per iteration after the starting point.
 *
 * Engineering: all work arrays are allocated before the iteration loop; the loop allocates nothing.
 * The Newton matrix (size 3C) is formed densely, block-Jacobi scaled and factorised every iteration
 * (Cholesky from math/cholesky.ts for NT; a local LU with partial pivoting for the non-symmetric AHO
 * matrix and the polishing Jacobian).
 */
import type { ContactProblem } from '../problem.js';
import { KktWorkspace, kktInto } from '../kkt.js';
import { choleskyInto, choleskySolve, REGULARIZATION_MAX, symmetricEnvelope, type CholeskyFactor, type Envelope } from '../math/cholesky.js';
import { HistoryRecorder, objectiveFromAlam } from './history.js';
import { luInto, luSolve } from '../math/lu.js';
import { PolishWorkspace, polishNaturalMap } from './polish.js';
import type { AlgorithmOutput, IpmOptions, SolveStatus } from './types.js';
import { formatNumber } from '../numberText.js';
import { closingStatus, IpmProgress, statusAfterPolish } from './ipmTermination.js';

/** Default iteration budget (CVXOPT's `maxiters` default, [V] §3). */
export const IPM_DEFAULT_MAX_ITERATIONS = 100;
/** Default KKT max_rel tolerance (kkt.ts). */
export const IPM_DEFAULT_TOLERANCE = 1e-10;
/** Fraction of the step to the cone boundary that is taken ([V] §3, STEP = 0.99). */
export const IPM_STEP_FRACTION = 0.99;
/** Mehrotra centring σ = (1 − α_aff)^EXPON ([V] §3, EXPON = 3; [M]). */
export const IPM_SIGMA_EXPONENT = 3;
/**
 * δ₀ of the starting point x̂ = −(P + δ₀I)⁻¹q. CVXOPT uses δ₀ = 1 ([V] §3); a small δ₀ starts near
 * the unconstrained minimiser, which is close to the answer for resting stacks whose solution is
 * large in the scaled units (mass ratios), and saves ~10 iterations there.
 */
export const IPM_START_DAMPING = 1e-4;
/** Switch from the NT to the AHO direction once KKT max_rel ≤ this (see file header, step 3). */
export const IPM_AHO_SWITCH = 1e-6;
// the stall and collapse tests (shared with ipmSparse.ts) live in ipmTermination.ts
export { IPM_MAX_COLLAPSED_STEPS, IPM_MERIT_FLOOR, IPM_MIN_STEP, IPM_STALL_FACTOR, IPM_STALL_WINDOW } from './ipmTermination.js';
/** Halvings of the step tried when rounding pushed an updated iterate out of the open cone. */
export const IPM_MAX_INTERIOR_BACKTRACKS = 30;
/** Iterative-refinement sweeps of each Newton solve against the unshifted scaled matrix (Wilkinson). */
export const IPM_REFINEMENT_STEPS = 3;
/**
 * First diagonal shift of the (block-scaled, unit-diagonal) Newton matrix when it does not factorise;
 * multiplied by 10 up to REGULARIZATION_MAX (math/cholesky.ts). 10× the Cholesky pivot tolerance
 * (PIVOT_RELATIVE_TOLERANCE = 1e-13), the smallest shift that guarantees the factorisation proceeds.
 */
export const IPM_SHIFT_START = 1e-12;
/** Relative pivot tolerance of the 3×3 block Cholesky factors used for the block-Jacobi scaling. */
export const IPM_BLOCK_PIVOT_TOLERANCE = 1e-15;
/** LU pivots (of unit-diagonal-block matrices) at or below this count as singular. */
export const IPM_LU_PIVOT_TOLERANCE = 1e-13;
/**
 * Smallest eigenvalue (x₀ − ‖(x₁, x₂)‖, or x₀ for a 1-D cone) of every cone's x and z at a warm start, in the
 * scaled units (|q|∞ = 1, unit diagonal blocks of P). Measured on the generated stacks (bench/stacks.ts, warm
 * start = the previous frame's λ): Newton's warm median 10 iterations with 0.1; 11 with 0.03 and with 0.3.
 */
export const IPM_WARM_START_MARGIN = 0.1;
/**
 * Maximum polishing steps after the interior-point phase (each counts as an iteration; the polish stops at the
 * tolerance, so converged solves never take more). 4 left bench:solvers' grid-50 at KKT 3.2e-10 one step short
 * of 7.9e-11 (test/unit/bench-scenes-exact.test.ts).
 */
export const IPM_POLISH_STEPS = 8;
/** Cone kinds per contact. */
export const CONE_ORTHANT = 1; // μ = 0: x0 ≥ 0, tangential variables pinned to 0
export const CONE_SOC = 3; // μ > 0: Lorentz cone Q³

/** f(λ) from the Aλ that kktInto left in ws.Alam (call kktInto(p, lam, ws) first). */
function objectiveOf(lam: Float64Array, ws: KktWorkspace, b: Float64Array, n: number): number {
  return objectiveFromAlam(lam, ws.Alam, b, n);
}

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
  const xr = Math.hypot(x1, x2),
    zr = Math.hypot(z1, z2);
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
  const vr = Math.hypot(v1, v2);
  const vn = Math.sqrt((v0 - vr) * (v0 + vr));
  if (!(vn > 0)) return 0;
  const a0 = v0 / vn,
    a1 = v1 / vn,
    a2 = v2 / vn;
  const d0 = d[o] / vn,
    d1 = d[o + 1] / vn,
    d2 = d[o + 2] / vn;
  const y0 = a0 * d0 - a1 * d1 - a2 * d2;
  const k = (a1 * d1 + a2 * d2) / (1 + a0) - d0;
  const y1 = d1 + a1 * k,
    y2 = d2 + a2 * k;
  const t = Math.hypot(y1, y2) - y0;
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
  const lr = Math.hypot(l1, l2);
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
  if (kind !== CONE_ORTHANT) return Math.min(maxStepSoc(nt, ex, o), maxStepSoc(nt, ez, o));
  let amax = Infinity;
  if (ex[o] < 0) amax = -nt[o] / ex[o];
  if (ez[o] < 0) amax = Math.min(amax, -nt[o] / ez[o]);
  return amax;
}

/**
 * One contact's diagonal scaling D (λ = κ D x; file header): μ > 0 maps its block to the unit Lorentz cone
 * with the largest scaled diagonal entry 1; μ = 0 scales the normal row, tangential entries 0 (pinned).
 * Writes D[o..o+2]; returns the cone kind. Shared by the dense and sparse solvers.
 */
export function contactScaling(mu: number, ann: number, a11: number, a22: number, D: Float64Array, o: number): number {
  if (mu > 0) {
    const dmax = Math.max(ann / (mu * mu), a11, a22);
    const d = dmax > 0 ? 1 / Math.sqrt(dmax) : 1;
    D[o] = d / mu;
    D[o + 1] = d;
    D[o + 2] = d;
    return CONE_SOC;
  }
  D[o] = ann > 0 ? 1 / Math.sqrt(ann) : 1;
  D[o + 1] = 0;
  D[o + 2] = 0;
  return CONE_ORTHANT;
}

/** κ = max |D b| (1 when that is 0 or not finite): the scale that makes the scaled right-hand side O(1). */
export function rhsScale(D: Float64Array, b: Float64Array): number {
  let kappa = 0;
  for (let i = 0; i < b.length; i++) kappa = Math.max(kappa, Math.abs(D[i] * b[i]));
  return kappa > 0 && Number.isFinite(kappa) ? kappa : 1;
}

/** True when every block of v is strictly inside its cone. */
export function allInterior(v: Float64Array, kind: Int8Array, C: number): boolean {
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    if (kind[c] === CONE_ORTHANT) {
      if (!(v[o] > 0)) return false;
    } else if (!(v[o] > Math.hypot(v[o + 1], v[o + 2]))) return false;
  }
  return true;
}

/**
 * out[oo..oo+2] = Arw(x)⁻¹ r for one Q³ block (x = x[o..o+2] interior), i.e. the solution u of x∘u = r
 * (same formula as jordanDivide, [V] §2.2).
 */
function arwSolve(x: Float64Array, o: number, r0: number, r1: number, r2: number, out: Float64Array, oo: number): void {
  const l0 = x[o],
    l1 = x[o + 1],
    l2 = x[o + 2];
  const lr = Math.hypot(l1, l2);
  const det = (l0 - lr) * (l0 + lr);
  const u0 = (l0 * r0 - l1 * r1 - l2 * r2) / det;
  out[oo] = u0;
  out[oo + 1] = (r1 - u0 * l1) / l0;
  out[oo + 2] = (r2 - u0 * l2) / l0;
}

/**
 * Cholesky factor L (lower, row-major, into bs[bo..bo+8]) of the symmetric 3×3 matrix whose lower
 * triangle is a[a0 + i·ld + j], j ≤ i. Returns false if it is not numerically positive definite.
 */
function blockCholesky(a: Float64Array, ld: number, a0: number, bs: Float64Array, bo: number): boolean {
  const a00 = a[a0],
    a10 = a[a0 + ld],
    a11 = a[a0 + ld + 1];
  const a20 = a[a0 + 2 * ld],
    a21 = a[a0 + 2 * ld + 1],
    a22 = a[a0 + 2 * ld + 2];
  if (!(a00 > 0)) return false;
  const l00 = Math.sqrt(a00),
    l10 = a10 / l00,
    l20 = a20 / l00;
  const d1 = a11 - l10 * l10;
  if (!(d1 > IPM_BLOCK_PIVOT_TOLERANCE * a11)) return false;
  const l11 = Math.sqrt(d1),
    l21 = (a21 - l20 * l10) / l11;
  const d2 = a22 - l20 * l20 - l21 * l21;
  if (!(d2 > IPM_BLOCK_PIVOT_TOLERANCE * a22)) return false;
  bs[bo] = l00;
  bs[bo + 1] = 0;
  bs[bo + 2] = 0;
  bs[bo + 3] = l10;
  bs[bo + 4] = l11;
  bs[bo + 5] = 0;
  bs[bo + 6] = l20;
  bs[bo + 7] = l21;
  bs[bo + 8] = Math.sqrt(d2);
  return Number.isFinite(l21) && Number.isFinite(bs[bo + 8]);
}

/** v[..] ← L⁻¹v for the 3-vector (v[i], v[i+s], v[i+2s]) and lower L at bs[bo..]. */
function blockForward(bs: Float64Array, bo: number, v: Float64Array, i: number, s: number): void {
  const y0 = v[i] / bs[bo];
  const y1 = (v[i + s] - bs[bo + 3] * y0) / bs[bo + 4];
  v[i + 2 * s] = (v[i + 2 * s] - bs[bo + 6] * y0 - bs[bo + 7] * y1) / bs[bo + 8];
  v[i] = y0;
  v[i + s] = y1;
}

/** v[i..i+2] ← L⁻ᵀv for lower L at bs[bo..]. */
function blockBackward(bs: Float64Array, bo: number, v: Float64Array, i: number): void {
  const x2 = v[i + 2] / bs[bo + 8];
  const x1 = (v[i + 1] - bs[bo + 7] * x2) / bs[bo + 4];
  v[i] = (v[i] - bs[bo + 3] * x1 - bs[bo + 6] * x2) / bs[bo];
  v[i + 1] = x1;
  v[i + 2] = x2;
}

export function solveIpm(p: ContactProblem, opts: IpmOptions, warmStart?: Float64Array): AlgorithmOutput {
  void warmStart; // deliberately unused: interior-point iterates start inside the cones (file header)
  return interiorPoint(p, opts, null);
}

/**
 * The interior-point method started from λ⁰ (any λ of size 3C; warmInteriorStart moves it inside the cones)
 * instead of [V]'s starting point: the globalisation phase of newton.ts when it is warm-started.
 */
export function solveIpmFrom(p: ContactProblem, opts: IpmOptions, start: Float64Array, margin: number = IPM_WARM_START_MARGIN): AlgorithmOutput {
  if (start.length !== p.size) throw new RangeError(`interior-point start has ${start.length} entries, expected 3·C = ${p.size}`);
  return interiorPoint(p, opts, start, margin);
}

/**
 * The dense interior point's state (setup phase): the scaled problem (file header), the iterate (x, z), the
 * Newton matrix, its factor and every work array — all allocated here, once, so that the iteration loop
 * allocates nothing. Its methods are the linear algebra of one iteration; the phases are the functions below.
 */
class DenseIpm {
  readonly n: number;
  readonly C: number;
  readonly kind: Int8Array;
  readonly D: Float64Array;
  readonly kappa: number;
  readonly pinned: Uint8Array;
  readonly P: Float64Array;
  readonly q: Float64Array;
  /** P's envelope by whole contacts: the Newton matrix and its factor stay inside it (contacts ordered by body make it a band). */
  readonly env: Envelope;
  readonly x: Float64Array;
  readonly z: Float64Array;
  readonly xSave: Float64Array;
  readonly zSave: Float64Array;
  readonly dx: Float64Array;
  readonly dz: Float64Array;
  /** Predictor directions in the Jordan frame used. */
  readonly dxa: Float64Array;
  readonly dza: Float64Array;
  readonly u: Float64Array;
  readonly rx: Float64Array;
  readonly rhs: Float64Array;
  /** NT-scaled point λ_NT = Wz = W⁻¹x. */
  readonly nt: Float64Array;
  readonly tmp: Float64Array;
  readonly res: Float64Array;
  readonly corr: Float64Array;
  readonly y: Float64Array;
  /** W⁻¹ per cone. */
  readonly winv: Float64Array;
  /** Block-Jacobi scaling factors (3×3 lower Cholesky factors). */
  readonly bs: Float64Array;
  /** One 3×3 block. */
  readonly blk = new Float64Array(9);
  /** Scaled Newton matrix. */
  readonly H: Float64Array;
  /** Its Cholesky or LU factor. */
  readonly L: Float64Array;
  readonly piv: Int32Array;
  readonly best: Float64Array;
  readonly factor: CholeskyFactor;
  readonly pw: PolishWorkspace;
  /** [τ, merit] of dualResidual. */
  readonly measures = new Float64Array(2);
  regularization = 0;
  /** Diagonal shift of the current factorisation (0: the Newton matrix itself). */
  private shift = 0;
  /** The current factor is LU (AHO) rather than Cholesky. */
  useLu = false;

  constructor(
    p: ContactProblem,
    readonly lam: Float64Array,
    /** Refine Newton solves only when their factor is of a shifted matrix (IpmOptions.refinement 'shifted'). */
    private readonly refineShiftedOnly = false,
  ) {
    const n = p.size,
      C = p.contactCount;
    this.n = n;
    this.C = C;
    // ---- change of variables λ = κ D x (file header) ----
    const { kind, D, kappa, pinned, P, q } = scaledProblem(p);
    this.kind = kind;
    this.D = D;
    this.kappa = kappa;
    this.pinned = pinned;
    this.P = P;
    this.q = q;
    this.env = symmetricEnvelope(P, n, 3);
    // ---- work arrays (nothing is allocated inside the iteration loop) ----
    this.x = new Float64Array(n);
    this.z = new Float64Array(n);
    this.xSave = new Float64Array(n);
    this.zSave = new Float64Array(n);
    this.dx = new Float64Array(n);
    this.dz = new Float64Array(n);
    this.dxa = new Float64Array(n);
    this.dza = new Float64Array(n);
    this.u = new Float64Array(n);
    this.rx = new Float64Array(n);
    this.rhs = new Float64Array(n);
    this.nt = new Float64Array(n);
    this.tmp = new Float64Array(n);
    this.res = new Float64Array(n);
    this.corr = new Float64Array(n);
    this.y = new Float64Array(n);
    this.winv = new Float64Array(9 * C);
    this.bs = new Float64Array(9 * C);
    this.H = new Float64Array(n * n);
    this.L = new Float64Array(n * n);
    this.piv = new Int32Array(n);
    this.best = new Float64Array(n);
    this.factor = { n, L: this.L, regularization: 0 };
    this.pw = new PolishWorkspace(n, C);
  }

  /** Factorises H + shift·I, shift = 0 first, then IPM_SHIFT_START·10ᵏ up to REGULARIZATION_MAX. */
  factorise(lu: boolean): boolean {
    const { H, n, L, piv } = this;
    this.useLu = lu;
    for (let shift = 0; shift <= REGULARIZATION_MAX * (1 + 1e-12); shift = shift === 0 ? IPM_SHIFT_START : shift * 10) {
      const ok = lu ? luInto(H, n, shift, L, piv, IPM_LU_PIVOT_TOLERANCE) : choleskyInto(H, n, shift, L);
      if (ok) {
        this.shift = shift;
        if (shift > this.regularization) this.regularization = shift;
        return true;
      }
    }
    return false;
  }

  private factorSolve(r: Float64Array, out: Float64Array): void {
    if (this.useLu) luSolve(this.L, this.n, this.piv, r, out);
    else choleskySolve(this.factor, r, out, this.env);
  }

  /**
   * dx = (Newton matrix)⁻¹ rhs via the scaled matrix H = L⁻¹(·)L⁻ᵀ: dx = L⁻ᵀ H⁻¹ L⁻¹ rhs, with
   * iterative refinement against the unshifted H (removes the bias of a shift; [V] §3 refines too) — with
   * the option refinement: 'shifted', only when the factor is of a shifted H.
   */
  newtonSolve(): void {
    const { tmp, rhs, bs, y, res, corr, H, n, C, env, dx } = this;
    tmp.set(rhs);
    for (let c = 0; c < C; c++) blockForward(bs, 9 * c, tmp, 3 * c, 1);
    this.factorSolve(tmp, y);
    const steps = this.refineShiftedOnly && this.shift === 0 ? 0 : IPM_REFINEMENT_STEPS;
    for (let it = 0; it < steps; it++) {
      for (let i = 0; i < n; i++) {
        let s = tmp[i];
        const row = i * n;
        for (let j = env.first[i], hi = env.last[i]; j <= hi; j++) s -= H[row + j] * y[j];
        res[i] = s;
      }
      this.factorSolve(res, corr);
      for (let i = 0; i < n; i++) y[i] += corr[i];
    }
    dx.set(y);
    for (let c = 0; c < C; c++) blockBackward(bs, 9 * c, dx, 3 * c);
  }

  /**
   * Newton matrix P + (block diagonal): δ₀I (mode 0, starting point), W⁻² (mode 1, NT: [V] eq. (11)
   * with G = −I) or Arw(x)⁻¹Arw(z) (mode 2, AHO); pinned rows/columns are identity. Then block-Jacobi
   * scaled, H = L⁻¹(·)L⁻ᵀ with L the Cholesky factors of the (symmetric parts of the) 3×3 diagonal
   * blocks, so that every diagonal block becomes (close to) the identity. Per-coordinate scaling is not
   * enough: the diagonal of a sliding contact's block is dominated by the huge barrier curvature
   * normal to the cone, which hides the O(1) curvature along the cone surface and makes the matrix
   * look singular (e.g. near-duplicate contacts). `jacobi` selects per-coordinate scaling instead
   * (fallback when the block-scaled matrix does not factorise). Returns false if a diagonal block is
   * singular.
   */
  buildNewtonMatrix(mode: 0 | 1 | 2, jacobi = false): boolean {
    const { H, P, n, C, kind, winv, x, z, blk, bs, env } = this;
    H.set(P);
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        wo = 9 * c;
      if (kind[c] === CONE_ORTHANT) {
        H[o * n + o] += mode === 0 ? IPM_START_DAMPING : mode === 1 ? winv[wo] * winv[wo] : z[o] / x[o];
        H[(o + 1) * n + o + 1] = 1;
        H[(o + 2) * n + o + 2] = 1;
      } else if (mode === 2) {
        // columns of Arw(x)⁻¹Arw(z); Arw(z) has columns (z0, z1, z2), (z1, z0, 0), (z2, 0, z0) ([V] §2.2)
        arwSolve(x, o, z[o], z[o + 1], z[o + 2], blk, 0);
        arwSolve(x, o, z[o + 1], z[o], 0, blk, 3);
        arwSolve(x, o, z[o + 2], 0, z[o], blk, 6);
        for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) H[(o + i) * n + o + j] += blk[3 * j + i];
      } else {
        for (let i = 0; i < 3; i++) {
          for (let j = 0; j < 3; j++) {
            let s = 0;
            if (mode === 0) s = i === j ? IPM_START_DAMPING : 0;
            else for (let k = 0; k < 3; k++) s += winv[wo + 3 * i + k] * winv[wo + 3 * k + j];
            H[(o + i) * n + o + j] += s;
          }
        }
      }
    }
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      if (jacobi) {
        // fallback: per-coordinate (Jacobi) scaling, L = diag(√|H_ii|)
        bs.fill(0, 9 * c, 9 * c + 9);
        for (let i = 0; i < 3; i++) {
          const d = Math.abs(H[(o + i) * n + o + i]);
          bs[9 * c + 4 * i] = d > 0 && Number.isFinite(d) ? Math.sqrt(d) : 1;
        }
      } else if (mode === 2) {
        for (let i = 0; i < 3; i++) for (let j = 0; j <= i; j++) blk[3 * i + j] = 0.5 * (H[(o + i) * n + o + j] + H[(o + j) * n + o + i]);
        if (!blockCholesky(blk, 3, 0, bs, 9 * c)) return false;
      } else if (!blockCholesky(H, n, o * n + o, bs, 9 * c)) return false;
    }
    // only inside H's envelope: outside it the entries are exact zeros and stay zero
    for (let c = 0; c < C; c++) for (let j = env.first[3 * c], hi = env.last[3 * c]; j <= hi; j++) blockForward(bs, 9 * c, H, 3 * c * n + j, n); // L⁻¹H
    for (let i = 0; i < n; i++) for (let c = env.first[i] / 3, hi = env.last[i] / 3; c <= hi; c++) blockForward(bs, 9 * c, H, i * n + 3 * c, 1); // (L⁻¹H)L⁻ᵀ
    return true;
  }

  /** λ = κ D x (0 on pinned rows). */
  toLambda(src: Float64Array): void {
    const { lam, pinned, kappa, D, n } = this;
    for (let i = 0; i < n; i++) lam[i] = pinned[i] ? 0 : kappa * D[i] * src[i];
  }

  /**
   * The iteration's Newton matrix, factorised: AHO if in that phase and it factorises, else NT. Returns
   * 'aho' or 'nt', or the failed status when neither can be formed.
   */
  newtonMatrixFor(aho: boolean, iterations: number): 'aho' | 'nt' | SolveStatus {
    if (aho && this.buildNewtonMatrix(2) && this.factorise(true)) return 'aho';
    if (!ntScaleAll(this.x, this.z, this.kind, this.C, this.winv, this.nt))
      return { kind: 'failed', reason: `iterate left the cone interior at iteration ${iterations}` };
    if (!(this.buildNewtonMatrix(1) && this.factorise(false)) && !(this.buildNewtonMatrix(1, true) && this.factorise(false)))
      return { kind: 'failed', reason: `Newton matrix not factorisable even with shift ${REGULARIZATION_MAX} at iteration ${iterations}` };
    return 'nt';
  }
}

/**
 * Start phase: x and z strictly inside the cones — from λ⁰ (warm start, file header: x = λ⁰/(κD),
 * z = Px + q, each cone pushed inside) or [V] §3's point (x̂ = −(P + δ₀I)⁻¹q, ẑ = Px̂ + q = −δ₀x̂, each
 * shifted into int K). Returns false if P + δ₀I cannot be factorised.
 */
function startingPoint(s: DenseIpm, start: Float64Array | null, margin: number): boolean {
  const { x, z, n, pinned, kappa, D, P, q, kind, C, rhs, dx } = s;
  if (start) {
    for (let i = 0; i < n; i++) x[i] = pinned[i] ? 0 : start[i] / (kappa * D[i]);
    for (let i = 0; i < n; i++) {
      let v = q[i];
      const row = i * n;
      for (let j = 0; j < n; j++) v += P[row + j] * x[j];
      z[i] = v;
    }
    warmInteriorStart(x, kind, C, margin);
    warmInteriorStart(z, kind, C, margin);
  } else {
    if (!(s.buildNewtonMatrix(0) && s.factorise(false)) && !(s.buildNewtonMatrix(0, true) && s.factorise(false))) return false;
    for (let i = 0; i < n; i++) rhs[i] = -q[i];
    s.newtonSolve();
    for (let i = 0; i < n; i++) {
      x[i] = dx[i];
      z[i] = -IPM_START_DAMPING * dx[i];
    }
    shiftIntoCones(x, kind, C);
    shiftIntoCones(z, kind, C);
  }
  for (let i = 0; i < n; i++)
    if (pinned[i]) {
      x[i] = 0;
      z[i] = 0;
    }
  return true;
}

/**
 * Predictor (σ = 0), then Mehrotra corrector with σ = (1 − α_aff)³ ([V] §3 eqs. (12)–(14); [M]), each
 * followed by the step to the boundary; leaves (dx, dz) and returns the step length α.
 *   NT:  λ∘(W⁻¹Δx + WΔz) = r_c, u = λ⧵r_c:  (P + W⁻²)Δx = −r + W⁻¹u,  Δz = W⁻¹(u − W⁻¹Δx);
 *   AHO: z∘Δx + x∘Δz = r_c,    u = x⧵r_c:  (P + Arw(x)⁻¹Arw(z))Δx = −r + u,  Δz = u − x⧵(z∘Δx);
 *   r_c = στe − v∘v − (Δa∘Δb)_predictor, with v∘v = λ∘λ (NT) or x∘z (AHO).
 */
function predictorCorrector(s: DenseIpm, useAho: boolean, tau: number): number {
  const { C, kind, x, z, nt, dxa, dza, tmp, u, corr, rhs, rx, winv, dz } = s;
  let alphaAff = 0,
    alpha = 0;
  for (let pass = 0; pass < 2; pass++) {
    const sigmaTau = pass === 0 ? 0 : Math.pow(1 - alphaAff, IPM_SIGMA_EXPONENT) * tau;
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        k = kind[c];
      if (useAho) complementarityTarget(x, z, x, o, k, sigmaTau, pass === 1 ? dxa : null, dza, tmp, u);
      else complementarityTarget(nt, nt, nt, o, k, sigmaTau, pass === 1 ? dxa : null, dza, tmp, u);
      if (useAho) {
        corr[o] = u[o];
        corr[o + 1] = u[o + 1];
        corr[o + 2] = u[o + 2];
      } else applyWinv(winv, 9 * c, u, o, k, corr);
      rhs[o] = -rx[o] + corr[o];
      rhs[o + 1] = k === CONE_ORTHANT ? 0 : -rx[o + 1] + corr[o + 1];
      rhs[o + 2] = k === CONE_ORTHANT ? 0 : -rx[o + 2] + corr[o + 2];
    }
    s.newtonSolve();
    const amax = stepToBoundary(s, useAho, pass === 0 ? dxa : tmp, pass === 0 ? dza : corr);
    if (pass === 0) alphaAff = Math.min(1, amax);
    else alpha = Math.min(1, IPM_STEP_FRACTION * amax);
  }
  // Δz in the original coordinates (corr holds Δz for AHO, WΔz for NT)
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    if (useAho) {
      dz[o] = corr[o];
      dz[o + 1] = corr[o + 1];
      dz[o + 2] = corr[o + 2];
    } else applyWinv(winv, 9 * c, corr, o, kind[c], dz);
  }
  return alpha;
}

/**
 * Step-length phase: the directions in the frame of v∘v — (W⁻¹Δx, WΔz) for NT, (Δx, Δz) for AHO — written
 * to (ex, ez), and the largest step that keeps both in the cones ([V] §3).
 */
function stepToBoundary(s: DenseIpm, useAho: boolean, ex: Float64Array, ez: Float64Array): number {
  const { C, kind, x, z, dx, u, nt, winv } = s;
  let amax = Infinity;
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      k = kind[c];
    if (useAho) {
      jordanProduct(z, dx, o, k, ez);
      ez[o] = -ez[o];
      if (k === CONE_SOC) {
        ez[o + 1] = -ez[o + 1];
        ez[o + 2] = -ez[o + 2];
      } else {
        ez[o + 1] = 0;
        ez[o + 2] = 0;
      }
      jordanDivide(x, ez, o, k);
      ez[o] += u[o];
      ez[o + 1] += u[o + 1];
      ez[o + 2] += u[o + 2];
      ex[o] = dx[o];
      ex[o + 1] = dx[o + 1];
      ex[o + 2] = dx[o + 2];
      if (k === CONE_ORTHANT) {
        if (ex[o] < 0) amax = Math.min(amax, -x[o] / ex[o]);
        if (ez[o] < 0) amax = Math.min(amax, -z[o] / ez[o]);
      } else amax = Math.min(amax, maxStepSoc(x, ex, o), maxStepSoc(z, ez, o));
    } else amax = Math.min(amax, ntStepToBoundary(winv, c, k, dx, u, nt, ex, ez));
  }
  return amax;
}

/** The interior-point method (file header, steps 1–4): setup, start, NT/AHO predictor–corrector iterations, polish. */
function interiorPoint(p: ContactProblem, opts: IpmOptions, start: Float64Array | null, margin = IPM_WARM_START_MARGIN): AlgorithmOutput {
  const maxIt = Math.max(0, Math.floor(opts.maxIterations ?? IPM_DEFAULT_MAX_ITERATIONS));
  const tol = opts.tolerance ?? IPM_DEFAULT_TOLERANCE;
  const { b, size: n, contactCount: C } = p;
  const history = new HistoryRecorder(maxIt);
  const ws = new KktWorkspace(n);
  const lam = new Float64Array(n);

  // λ = 0 is optimal iff −b ∈ K* (every contact separating, or b = 0). The checker's residuals are
  // relative to ‖λ‖∞, so an interior iterate tending to 0 would never pass them: test λ = 0 exactly.
  const r0 = kktInto(p, lam, ws);
  if (r0.maxRel <= tol) {
    history.record(r0.maxRel, 0);
    return { lambda: lam, iterations: 0, status: { kind: 'converged' }, regularization: 0, history: history.finish() };
  }

  const s = new DenseIpm(p, lam, opts.refinement === 'shifted');
  const { x, z, xSave, zSave, dx, dz, pinned, kind, P, q, rx, measures, env, best, pw } = s;
  const failedAtStart = (reason: string): AlgorithmOutput => {
    history.record(r0.maxRel, 0);
    return { lambda: lam, iterations: 0, status: { kind: 'failed', reason }, regularization: s.regularization, history: history.finish() };
  };
  if (!startingPoint(s, start, margin)) return failedAtStart('starting point: P + δ₀I could not be factorised');
  s.toLambda(x);
  let rep = kktInto(p, lam, ws);
  if (!Number.isFinite(rep.maxRel) || !allInterior(x, kind, C) || !allInterior(z, kind, C)) {
    lam.fill(0);
    return failedAtStart('starting point is not finite / not interior');
  }
  history.record(rep.maxRel, objectiveOf(lam, ws, b, n));
  let bestRel = rep.maxRel;
  best.set(lam);
  let status: SolveStatus | null = bestRel <= tol ? { kind: 'converged' } : null;
  let iterations = 0;
  let aho = false; // phase: false = NT direction, true = AHO direction (file header, step 3)
  const progress = new IpmProgress();

  while (status === null && iterations < maxIt) {
    dualResidual(P, q, x, z, pinned, C, rx, measures, env);
    const tau = measures[0],
      merit = measures[1];
    const matrix = s.newtonMatrixFor(aho, iterations);
    if (typeof matrix !== 'string') {
      status = matrix;
      break;
    }
    const alpha = predictorCorrector(s, matrix === 'aho', tau);

    // update; if rounding puts an iterate on or outside a cone boundary, halve the step
    iterations++;
    if (!stepInside(x, z, xSave, zSave, dx, dz, alpha, pinned, kind, C))
      status = { kind: 'stalled', reason: `no step keeps the iterate inside the cones at iteration ${iterations}` };
    s.toLambda(x);
    rep = kktInto(p, lam, ws);
    if (!Number.isFinite(rep.maxRel)) {
      status = { kind: 'failed', reason: `non-finite iterate at iteration ${iterations}` };
      kktInto(p, best, ws);
      history.record(bestRel, objectiveOf(best, ws, b, n));
      break;
    }
    history.record(rep.maxRel, objectiveOf(lam, ws, b, n));
    if (rep.maxRel < bestRel) {
      bestRel = rep.maxRel;
      best.set(lam);
    }
    if (status !== null) break;
    if (bestRel <= tol) {
      status = { kind: 'converged' };
      break;
    }
    if (!aho && rep.maxRel <= IPM_AHO_SWITCH) aho = true;
    status = progress.check(iterations, alpha, bestRel, merit, tau, aho);
  }

  // ---- polish (file header, step 4): semismooth Newton / LM on the checker's natural map ----
  if (bestRel > tol && iterations < maxIt) {
    const before = bestRel;
    const polished = polishNaturalMap(p, best, bestRel, tol, Math.min(IPM_POLISH_STEPS, maxIt - iterations), ws, pw, (rel, f) => history.record(rel, f));
    bestRel = polished.bestRel;
    iterations += polished.steps;
    status = statusAfterPolish(status, bestRel, tol, bestRel < before ? `polish reached KKT max_rel ${formatNumber(bestRel)}` : null);
  }
  status = closingStatus(status, bestRel, tol, iterations, maxIt);
  return { lambda: best, iterations, status, regularization: s.regularization, history: history.finish() };
}

/** The IPM's scaled problem: λ = κ D x, minimise ½xᵀPx + qᵀx over the cones of `kind` (file header). */
export interface ScaledProblem {
  /** Per contact: CONE_SOC (μ > 0, the (μλn, λt) block is a Lorentz cone) or CONE_ORTHANT (μ = 0). */
  readonly kind: Int8Array;
  readonly D: Float64Array;
  readonly kappa: number;
  /** 1 for the tangential rows of μ = 0 contacts (held at 0; identity rows in the Newton matrix). */
  readonly pinned: Uint8Array;
  readonly P: Float64Array;
  readonly q: Float64Array;
}

/**
 * Change of variables (phase 1): per cone a diagonal D that maps K_μ onto the standard cone and brings the
 * diagonal of A to ≤ 1, and κ = max |D b| so that q = −D b / κ has unit size: P = D A D, q = −D b / κ.
 */
export function scaledProblem(p: ContactProblem): ScaledProblem {
  const { A, b, mu, size: n, contactCount: C } = p;
  const kind = new Int8Array(C);
  const D = new Float64Array(n);
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      m = mu[c];
    kind[c] = contactScaling(m, A[o * n + o], A[(o + 1) * n + o + 1], A[(o + 2) * n + o + 2], D, o);
  }
  const kappa = rhsScale(D, b);
  const pinned = new Uint8Array(n);
  for (let c = 0; c < C; c++)
    if (kind[c] === CONE_ORTHANT) {
      pinned[3 * c + 1] = 1;
      pinned[3 * c + 2] = 1;
    }
  const P = new Float64Array(n * n);
  const q = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    q[i] = pinned[i] ? 0 : (-D[i] * b[i]) / kappa;
    for (let j = 0; j < n; j++) P[i * n + j] = pinned[i] || pinned[j] ? 0 : D[i] * A[i * n + j] * D[j];
  }
  return { kind, D, kappa, pinned, P, q };
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
    const ev = kind[c] === CONE_ORTHANT ? v[o] : v[o] - Math.hypot(v[o + 1], v[o + 2]);
    tmax = Math.max(tmax, -ev);
    nrm = Math.max(nrm, Math.abs(v[o]) + Math.hypot(v[o + 1], v[o + 2]));
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
    const ev = kind[c] === CONE_ORTHANT ? v[o] : v[o] - Math.hypot(v[o + 1], v[o + 2]);
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

/**
 * Dual residual r = Px + q − z into rx ([V] eq. (9) with G = −I; pinned rows 0) and the duality measure
 * τ = xᵀz / (number of cones), with the scale-free progress measure max(τ/(‖x‖∞‖Px‖∞), ‖r‖∞/‖Px‖∞)
 * (normalised like the KKT checker's λ_ref·w_ref) used by the stall test; out = [τ, merit] (no allocation).
 * Dense P (inside its envelope when given); the sparse solver calls residualMeasures with its own Px.
 */
export function dualResidual(
  P: Float64Array,
  q: Float64Array,
  x: Float64Array,
  z: Float64Array,
  pinned: Uint8Array,
  C: number,
  rx: Float64Array,
  out: Float64Array,
  env?: Envelope,
): void {
  const n = q.length;
  for (let i = 0; i < n; i++) {
    if (pinned[i]) continue;
    let s = 0;
    const row = i * n;
    for (let j = env ? env.first[i] : 0, hi = env ? env.last[i] : n - 1; j <= hi; j++) s += P[row + j] * x[j];
    rx[i] = s;
  }
  residualMeasures(rx, q, x, z, pinned, C, rx, out);
}

/** dualResidual's measures from a given px = Px (px may be rx itself: each entry is read before it is overwritten). */
export function residualMeasures(
  px: Float64Array,
  q: Float64Array,
  x: Float64Array,
  z: Float64Array,
  pinned: Uint8Array,
  C: number,
  rx: Float64Array,
  out: Float64Array,
): void {
  const n = q.length;
  let gap = 0,
    rn = 0,
    pxn = 1,
    xn = 0;
  for (let i = 0; i < n; i++) {
    if (pinned[i]) {
      rx[i] = 0;
      continue;
    }
    const s = px[i];
    rx[i] = s + q[i] - z[i];
    gap += x[i] * z[i];
    rn = Math.max(rn, Math.abs(rx[i]));
    pxn = Math.max(pxn, Math.abs(s));
    xn = Math.max(xn, Math.abs(x[i]));
  }
  const tau = gap / C;
  out[0] = tau;
  out[1] = Math.max(tau / (Math.max(xn, Number.MIN_VALUE) * pxn), rn / pxn);
}
