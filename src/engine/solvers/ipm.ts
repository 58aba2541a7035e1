/**
 * Primal–dual interior-point method for the QP-SOCP (DESIGN.md "QP-SOCP"; oracle FORMAT.md "The problem")
 *
 *   minimise ½λᵀAλ − bᵀλ   subject to  ‖(λt1,i, λt2,i)‖ ≤ μᵢλn,i  for every contact i,
 *
 * written from scratch (no solver library): Nesterov–Todd scaled Newton steps with Mehrotra's
 * predictor–corrector, as in CVXOPT `coneqp` (L. Vandenberghe, "The CVXOPT linear and quadratic cone
 * program solvers", 2010, §§3–4, cited below as [V]) and ECOS (Domahidi, Chu, Boyd, ECC 2013, [ECOS]).
 *
 * Change of variables. λ = κ·D·x with, per contact i, D = dᵢ·diag(1/μᵢ, 1, 1) maps the friction cone
 * K_μ onto the standard Lorentz cone Q³ = {x: ‖(x1, x2)‖ ≤ x0} (seed 003 §4 builds the same
 * (μλn, λt) blocks); the scalar dᵢ makes the largest diagonal entry of the scaled 3×3 block of A
 * equal 1 (per-contact scalar scaling preserves the cone and removes mass-ratio scaling; oracle
 * FORMAT.md "How the oracle was computed" 1.), and κ = ‖D b‖∞ normalises the linear term. μᵢ = 0
 * contacts become the 1-D cone x0 ≥ 0 with their tangential variables pinned to 0 (FORMAT.md: "μ = 0
 * contacts: tangential variables eliminated"). The scaled problem is
 *
 *   minimise ½xᵀPx + qᵀx  s.t. x ∈ K,    P = DAD/1, q = −Db/κ,
 *
 * whose KKT conditions are x ∈ K, z = Px + q ∈ K* = K, xᵀz = 0 ([V] eq. (3) with G = −I, h = 0, s = x).
 * z is the scaled contact velocity: z = D·w/κ, w = Aλ − b.
 *
 * Warm starts are ignored: an interior-point method must start in the interior of the cones and far
 * from their boundary, which a (typically complementary, i.e. boundary) warm start is not.
 * `warmStart` is accepted for interface compatibility only.
 *
 * Engineering: all work arrays are allocated once before the iteration loop; the loop allocates
 * nothing. The Newton matrix (size 3C) is formed densely and factorised by Cholesky every iteration.
 */
import type { ContactProblem } from '../problem.js';
import { KktWorkspace, kktInto } from '../kkt.js';
import { projectCone } from '../cone.js';
import { symmetricEigenvalues } from '../math/eigen.js';
import { choleskyInto, choleskySolve, REGULARIZATION_MAX, REGULARIZATION_START, type CholeskyFactor } from '../math/cholesky.js';
import { HistoryRecorder, objectiveFromAlam } from './history.js';
import type { AlgorithmOutput, IpmOptions, SolveStatus } from './types.js';

/** Default iteration budget (CVXOPT `maxiters` default is 100). */
export const IPM_DEFAULT_MAX_ITERATIONS = 100;
/** Default KKT max_rel tolerance (kkt.ts). */
export const IPM_DEFAULT_TOLERANCE = 1e-10;
/** Fraction of the step to the cone boundary that is taken ([V] §3 "STEP = 0.99"). */
export const IPM_STEP_FRACTION = 0.99;
/** Mehrotra centring σ = (1 − α_aff)^EXPON ([V] §3 "EXPON = 3"; Mehrotra 1992). */
export const IPM_SIGMA_EXPONENT = 3;
/**
 * Stall test: the run stops ("stalled") when the best KKT max_rel has not dropped below
 * IPM_STALL_FACTOR × (its value IPM_STALL_WINDOW iterations earlier).
 */
export const IPM_STALL_WINDOW = Number(process.env.IPM_SW ?? 6);
export const IPM_STALL_FACTOR = 0.5;
/** Step lengths below this (after backtracking into the interior) count as a collapsed step. */
export const IPM_MIN_STEP = 1e-12;
/** Consecutive collapsed steps before the run stops ("stalled"). */
export const IPM_MAX_COLLAPSED_STEPS = 3;
/**
 * Iterative-refinement sweeps applied to a Newton solve whose Cholesky factor needed a diagonal
 * shift (the shift is then only a preconditioner; Wilkinson's refinement against the exact matrix).
 */
export const IPM_REFINEMENT_STEPS = Number(process.env.IPM_RS ?? 3);
/**
 * Switch from the NT to the AHO direction once KKT max_rel ≤ this. NT iterates only satisfy
 * ‖x∘z − τe‖ = O(√τ) (the Jordan frames of x and z stay misaligned by O(√τ)), which shows up as the
 * checker's jordan/natural residuals of sliding contacts; the AHO direction linearises x∘z itself and
 * is locally quadratically convergent at strictly complementary solutions (Alizadeh, Haeberly &
 * Overton 1998), so it polishes those residuals.
 */
export const IPM_AHO_SWITCH = Number(process.env.IPM_AHO_SWITCH ?? 1e-6);
/** LU pivots of the equilibrated AHO matrix (unit diagonal) at or below this count as singular. */
export const IPM_LU_PIVOT_TOLERANCE = 1e-13;
/** Scale-free IPM merit max(τ/(‖x‖‖Px‖), ‖r‖/‖Px‖) below which further τ reduction is not progress. */
export const IPM_MERIT_FLOOR = 1e-20;
/** Maximum natural-map Newton polishing steps after the interior-point phase (each counts as an iteration). */
export const IPM_POLISH_STEPS = 4;
/** Diagonal shift of the polishing Jacobian when it is singular to working precision (non-unique λ). */
export const IPM_POLISH_REGULARIZATION = Number(process.env.IPM_DELTA ?? 1e-12);
export const IPM_SHIFT_START = Number(process.env.IPM_SS ?? 1e-12);
export const IPM_START_DAMPING = Number(process.env.IPM_SD ?? 1e-4);
/** Shift of the plain-Newton polishing matrix J + δ′I (keeps LU defined when J is exactly singular). */
export const IPM_POLISH_NEWTON_SHIFT = 1e-14;
/** Step halvings tried per polishing direction. */
export const IPM_POLISH_BACKTRACKS = 8;
/** Halvings of the step tried when rounding pushed an updated iterate out of the open cone. */
export const IPM_MAX_INTERIOR_BACKTRACKS = 30;

/** Cone kinds per contact. */
const CONE_ORTHANT = 1; // μ = 0: x0 ≥ 0, tangential pinned
const CONE_SOC = 3; // μ > 0: Lorentz cone Q³

/** f(λ) via Aλ computed by kktInto (which stores Aλ in ws.Alam). */
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
 * Writes W⁻¹ (row-major 3×3) to winv[9c..] and λ_NT to nt[o..o+2]. Returns false if x or z is not
 * strictly interior.
 */
function ntScalingSoc(x: Float64Array, z: Float64Array, o: number, winv: Float64Array, wo: number, nt: Float64Array): boolean {
  const x0 = x[o], x1 = x[o + 1], x2 = x[o + 2];
  const z0 = z[o], z1 = z[o + 1], z2 = z[o + 2];
  const xr = Math.hypot(x1, x2), zr = Math.hypot(z1, z2);
  if (!(x0 > xr) || !(z0 > zr)) return false;
  const xn = Math.sqrt((x0 - xr) * (x0 + xr));
  const zn = Math.sqrt((z0 - zr) * (z0 + zr));
  if (!(xn > 0) || !(zn > 0) || !Number.isFinite(xn) || !Number.isFinite(zn)) return false;
  const sb0 = x0 / xn, sb1 = x1 / xn, sb2 = x2 / xn;
  const zb0 = z0 / zn, zb1 = z1 / zn, zb2 = z2 / zn;
  const gamma = Math.sqrt(0.5 * (1 + sb0 * zb0 + sb1 * zb1 + sb2 * zb2));
  const inv2g = 1 / (2 * gamma);
  const a = (sb0 + zb0) * inv2g, q1 = (sb1 - zb1) * inv2g, q2 = (sb2 - zb2) * inv2g;
  const eta = Math.sqrt(xn / zn);
  const ie = 1 / eta, c = 1 / (1 + a);
  winv[wo] = ie * a; winv[wo + 1] = -ie * q1; winv[wo + 2] = -ie * q2;
  winv[wo + 3] = -ie * q1; winv[wo + 4] = ie * (1 + c * q1 * q1); winv[wo + 5] = ie * c * q1 * q2;
  winv[wo + 6] = -ie * q2; winv[wo + 7] = ie * c * q1 * q2; winv[wo + 8] = ie * (1 + c * q2 * q2);
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
function maxStepSoc(v: Float64Array, d: Float64Array, o: number): number {
  const v0 = v[o], v1 = v[o + 1], v2 = v[o + 2];
  const vr = Math.hypot(v1, v2);
  const vn = Math.sqrt((v0 - vr) * (v0 + vr));
  if (!(vn > 0)) return 0;
  const a0 = v0 / vn, a1 = v1 / vn, a2 = v2 / vn;
  const d0 = d[o] / vn, d1 = d[o + 1] / vn, d2 = d[o + 2] / vn;
  const y0 = a0 * d0 - a1 * d1 - a2 * d2;
  const k = (a1 * d1 + a2 * d2) / (1 + a0) - d0;
  const y1 = d1 + a1 * k, y2 = d2 + a2 * k;
  const t = Math.hypot(y1, y2) - y0;
  return t > 0 ? 1 / t : Infinity;
}

/** Jordan product r = a∘b on one block ([V] §2.2: (a∘b)0 = aᵀb, (a∘b)1 = a0 b1 + b0 a1); r may alias nothing. */
function jordanProduct(a: Float64Array, b: Float64Array, o: number, kind: number, r: Float64Array): void {
  if (kind === CONE_ORTHANT) { r[o] = a[o] * b[o]; return; }
  r[o] = a[o] * b[o] + a[o + 1] * b[o + 1] + a[o + 2] * b[o + 2];
  r[o + 1] = a[o] * b[o + 1] + b[o] * a[o + 1];
  r[o + 2] = a[o] * b[o + 2] + b[o] * a[o + 2];
}

/**
 * Jordan division u = λ ⧵ r, i.e. the solution of λ∘u = r ([V] §2.2, inverse of the arrow matrix
 * Arw(λ)): u0 = (λ0 r0 − λ1ᵀr1)/(λ0² − ‖λ1‖²), u1 = (r1 − u0 λ1)/λ0. Writes u over r.
 */
function jordanDivide(lam: Float64Array, r: Float64Array, o: number, kind: number): void {
  if (kind === CONE_ORTHANT) { r[o] /= lam[o]; return; }
  const l0 = lam[o], l1 = lam[o + 1], l2 = lam[o + 2];
  const lr = Math.hypot(l1, l2);
  const det = (l0 - lr) * (l0 + lr);
  const u0 = (l0 * r[o] - l1 * r[o + 1] - l2 * r[o + 2]) / det;
  r[o + 1] = (r[o + 1] - u0 * l1) / l0;
  r[o + 2] = (r[o + 2] - u0 * l2) / l0;
  r[o] = u0;
}

/** out = W⁻¹·v on one block (W⁻¹ symmetric, stored row-major 3×3 at winv[wo..]; orthant: scalar). */
function applyWinv(winv: Float64Array, wo: number, v: Float64Array, o: number, kind: number, out: Float64Array): void {
  if (kind === CONE_ORTHANT) { out[o] = winv[wo] * v[o]; out[o + 1] = 0; out[o + 2] = 0; return; }
  const v0 = v[o], v1 = v[o + 1], v2 = v[o + 2];
  out[o] = winv[wo] * v0 + winv[wo + 1] * v1 + winv[wo + 2] * v2;
  out[o + 1] = winv[wo + 3] * v0 + winv[wo + 4] * v1 + winv[wo + 5] * v2;
  out[o + 2] = winv[wo + 6] * v0 + winv[wo + 7] * v1 + winv[wo + 8] * v2;
}

/** True when every block of v is strictly inside its cone. */
function allInterior(v: Float64Array, kind: Int8Array, C: number): boolean {
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
  const l0 = x[o], l1 = x[o + 1], l2 = x[o + 2];
  const lr = Math.hypot(l1, l2);
  const det = (l0 - lr) * (l0 + lr);
  const u0 = (l0 * r0 - l1 * r1 - l2 * r2) / det;
  out[oo] = u0;
  out[oo + 1] = (r1 - u0 * l1) / l0;
  out[oo + 2] = (r2 - u0 * l2) / l0;
}

/**
 * LU factorisation with partial pivoting of (M + shift·I), M row-major n×n, into LU (Doolittle,
 * Golub & Van Loan "Matrix Computations" Alg. 3.4.1). Returns false on a pivot ≤ tiny (singular to
 * working precision). The AHO polishing system is not symmetric, so Cholesky does not apply.
 */
function luInto(M: Float64Array, n: number, shift: number, LU: Float64Array, piv: Int32Array, tiny: number): boolean {
  LU.set(M);
  if (shift !== 0) for (let i = 0; i < n; i++) LU[i * n + i] += shift;
  for (let k = 0; k < n; k++) {
    let p = k, big = Math.abs(LU[k * n + k]);
    for (let i = k + 1; i < n; i++) {
      const v = Math.abs(LU[i * n + k]);
      if (v > big) { big = v; p = i; }
    }
    if (!(big > tiny)) return false;
    piv[k] = p;
    if (p !== k) {
      const rk = k * n, rp = p * n;
      for (let j = 0; j < n; j++) { const t = LU[rk + j]; LU[rk + j] = LU[rp + j]; LU[rp + j] = t; }
    }
    const rk = k * n, inv = 1 / LU[rk + k];
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
function luSolve(LU: Float64Array, n: number, piv: Int32Array, rhs: Float64Array, y: Float64Array): void {
  y.set(rhs);
  for (let k = 0; k < n; k++) {
    const p = piv[k];
    if (p !== k) { const t = y[k]; y[k] = y[p]; y[p] = t; }
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


/**
 * Work arrays of the final natural-map Newton polish (allocated once, before any iteration).
 */
class PolishWorkspace {
  readonly J: Float64Array;
  readonly G: Float64Array;
  readonly L: Float64Array;
  readonly F: Float64Array;
  readonly dl: Float64Array;
  readonly res: Float64Array;
  readonly factor: CholeskyFactor;
  readonly piv: Int32Array;
  readonly sc: Float64Array;
  readonly bestCand: Float64Array;
  readonly cand: Float64Array;
  readonly pt: Float64Array;
  readonly dPi: Float64Array;
  readonly rho: Float64Array;
  constructor(n: number, C: number) {
    this.J = new Float64Array(n * n);
    this.G = new Float64Array(n * n);
    this.L = new Float64Array(n * n);
    this.F = new Float64Array(n);
    this.dl = new Float64Array(n);
    this.res = new Float64Array(n);
    this.factor = { n, L: this.L, regularization: IPM_POLISH_REGULARIZATION };
    this.piv = new Int32Array(n);
    this.sc = new Float64Array(n);
    this.bestCand = new Float64Array(n);
    this.cand = new Float64Array(n);
    this.pt = new Float64Array(n);
    this.dPi = new Float64Array(9 * C);
    this.rho = new Float64Array(C);
  }
}

/**
 * One semismooth Newton step on the natural map F(λ) = λ − Π_K(λ − ρ(Aλ − b)) (ρᵢ = 1/max diag Aᵢᵢ, the
 * checker's map, kkt.ts), from λ; writes Π_K(λ + Δ) into pw.cand. J = I − Π′(I − ρA) with Π′ the
 * (B-)derivative of the cone projection (seed 002 §M3 cases: identity inside, 0 in the polar cone,
 * on the surface the derivative of eqs. 24–25). Facchinei & Pang, "Finite-Dimensional Variational
 * Inequalities and Complementarity Problems" (2003) §7.5 (semismooth Newton for natural maps); the
 * piece (separating / sticking / sliding) of each contact is chosen by the sign structure of
 * λ − ρw, so weakly complementary contacts need no classification threshold. Returns false if J is
 * singular to working precision.
 */
function naturalMapJacobian(p: ContactProblem, lam: Float64Array, w: Float64Array, pw: PolishWorkspace): boolean {
  const { A, mu, size: n, contactCount: C } = p;
  const { J, F, pt, dPi, rho } = pw;
  for (let c = 0; c < C; c++) {
    const o = 3 * c, m = mu[c], r = rho[c], d = 9 * c;
    for (let k = 0; k < 3; k++) pt[o + k] = lam[o + k] - r * w[o + k];
    const pn = pt[o], p1 = pt[o + 1], p2 = pt[o + 2];
    dPi.fill(0, d, d + 9);
    if (m <= 0) {
      if (pn > 0) dPi[d] = 1;
    } else {
      const s = Math.hypot(p1, p2);
      if (s <= m * pn) { dPi[d] = 1; dPi[d + 4] = 1; dPi[d + 8] = 1; } // interior: Π = identity
      else if (!(m * s <= -pn)) {
        // surface: ln = (pn + μs)/(1 + μ²), λt = μ ln t̂ (seed 002 eqs. 24–25), t̂ = pt/s, s > 0 here
        const k = 1 / (1 + m * m), t1 = p1 / s, t2 = p2 / s;
        const ln = (pn + m * s) * k, g = (m * ln) / s;
        dPi[d] = k; dPi[d + 1] = m * k * t1; dPi[d + 2] = m * k * t2;
        dPi[d + 3] = m * k * t1; dPi[d + 4] = m * m * k * t1 * t1 + g * (1 - t1 * t1); dPi[d + 5] = m * m * k * t1 * t2 - g * t1 * t2;
        dPi[d + 6] = m * k * t2; dPi[d + 7] = m * m * k * t1 * t2 - g * t1 * t2; dPi[d + 8] = m * m * k * t2 * t2 + g * (1 - t2 * t2);
      } // polar cone: Π = 0
    }
    projectCone(pt, o, m, pt);
    for (let k = 0; k < 3; k++) F[o + k] = lam[o + k] - pt[o + k];
    // rows of J = I − Π′ + Π′·ρ·A (block rows of contact c)
    for (let i = 0; i < 3; i++) {
      const row = (o + i) * n;
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let k = 0; k < 3; k++) s += dPi[d + 3 * i + k] * A[(o + k) * n + j];
        J[row + j] = r * s;
      }
      for (let k = 0; k < 3; k++) J[row + o + k] -= dPi[d + 3 * i + k];
      J[row + o + i] += 1;
    }
  }
  return true;
}

/**
 * Polishing direction from J, F built by naturalMapJacobian, into pw.dl:
 * mode 0 — Levenberg–Marquardt (SJᵀJS + δI)y = −SJᵀF, Δ = Sy, S = diag(1/‖J_:,i‖) (Moré 1978): full
 *   Newton along singular directions σ ≫ √δ, (almost) no motion along the near-null space of A
 *   (non-unique λ), where F holds only the ε tie-break of the regularised A;
 * mode 1 — plain semismooth Newton (J + δ′I)Δ = −F by LU: resolves the small-curvature directions
 *   (near-duplicate contacts, the ε tie-break) that mode 0 leaves alone.
 * Returns false if the matrix is singular to working precision.
 */
function polishDirection(n: number, pw: PolishWorkspace, mode: 0 | 1): boolean {
  const { J, F, G, L, dl, res, sc } = pw;
  if (mode === 1) {
    for (let i = 0; i < n; i++) J[i * n + i] += IPM_POLISH_NEWTON_SHIFT;
    const ok = luInto(J, n, 0, G, pw.piv, IPM_LU_PIVOT_TOLERANCE);
    for (let i = 0; i < n; i++) J[i * n + i] -= IPM_POLISH_NEWTON_SHIFT;
    if (!ok) return false;
    for (let i = 0; i < n; i++) res[i] = -F[i];
    luSolve(G, n, pw.piv, res, dl);
    return true;
  }
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += J[k * n + i] * J[k * n + j];
      G[i * n + j] = s; G[j * n + i] = s;
    }
    let s = 0;
    for (let k = 0; k < n; k++) s -= J[k * n + i] * F[k];
    res[i] = s;
  }
  for (let i = 0; i < n; i++) { const g = G[i * n + i]; sc[i] = g > 0 ? 1 / Math.sqrt(g) : 1; }
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let j = 0; j < n; j++) G[row + j] *= sc[i] * sc[j];
    res[i] *= sc[i];
  }
  if (!choleskyInto(G, n, IPM_POLISH_REGULARIZATION, L)) return false;
  choleskySolve(pw.factor, res, dl);
  for (let i = 0; i < n; i++) dl[i] *= sc[i];
  return true;
}

export function solveIpm(p: ContactProblem, opts: IpmOptions, warmStart?: Float64Array): AlgorithmOutput {
  void warmStart; // deliberately unused: IPM iterates start in the cone interior (see file header)
  const maxIt = Math.max(0, Math.floor(opts.maxIterations ?? IPM_DEFAULT_MAX_ITERATIONS));
  const tol = opts.tolerance ?? IPM_DEFAULT_TOLERANCE;
  const { A, b, mu, size: n, contactCount: C } = p;
  const history = new HistoryRecorder(maxIt);
  const ws = new KktWorkspace(n);
  const lam = new Float64Array(n);

  // λ = 0 is optimal iff −b ∈ K* (every contact separating, or b = 0). Relative KKT measures are
  // scale-free, so an interior iterate approaching 0 would never pass them: test λ = 0 exactly first.
  const r0 = kktInto(p, lam, ws);
  if (r0.maxRel <= tol) {
    history.record(r0.maxRel, 0);
    return { lambda: lam, iterations: 0, status: { kind: 'converged' }, regularization: 0, history: history.finish() };
  }

  // ---- change of variables λ = κ D x (file header) ----
  const kind = new Int8Array(C);
  const D = new Float64Array(n);
  for (let c = 0; c < C; c++) {
    const o = 3 * c, m = mu[c];
    const ann = A[o * n + o], a11 = A[(o + 1) * n + o + 1], a22 = A[(o + 2) * n + o + 2];
    if (m > 0) {
      kind[c] = CONE_SOC;
      const dmax = Math.max(ann / (m * m), a11, a22);
      const d = dmax > 0 ? 1 / Math.sqrt(dmax) : 1;
      D[o] = d / m; D[o + 1] = d; D[o + 2] = d;
    } else {
      kind[c] = CONE_ORTHANT;
      D[o] = ann > 0 ? 1 / Math.sqrt(ann) : 1; D[o + 1] = 0; D[o + 2] = 0;
    }
  }
  let kappa = 0;
  for (let i = 0; i < n; i++) kappa = Math.max(kappa, Math.abs(D[i] * b[i]));
  if (!(kappa > 0) || !Number.isFinite(kappa)) kappa = 1;
  // pinned[i] = 1 for the tangential rows of μ = 0 contacts (kept at 0, identity rows in H).
  const pinned = new Uint8Array(n);
  for (let c = 0; c < C; c++) if (kind[c] === CONE_ORTHANT) { pinned[3 * c + 1] = 1; pinned[3 * c + 2] = 1; }
  const P = new Float64Array(n * n);
  const q = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    q[i] = pinned[i] ? 0 : -D[i] * b[i] / kappa;
    for (let j = 0; j < n; j++) P[i * n + j] = pinned[i] || pinned[j] ? 0 : D[i] * A[i * n + j] * D[j];
  }

  // ---- work arrays (nothing is allocated inside the iteration loop) ----
  const x = new Float64Array(n), z = new Float64Array(n);
  const xSave = new Float64Array(n), zSave = new Float64Array(n);
  const dx = new Float64Array(n), dz = new Float64Array(n);
  const dxa = new Float64Array(n), dza = new Float64Array(n); // predictor directions (Mehrotra)
  const u = new Float64Array(n), rx = new Float64Array(n), rhs = new Float64Array(n);
  const nt = new Float64Array(n); // NT-scaled point λ_NT = Wz = W⁻¹x
  const Px = new Float64Array(n);
  const tmp = new Float64Array(n), res = new Float64Array(n), corr = new Float64Array(n), y = new Float64Array(n);
  const winv = new Float64Array(9 * C);
  const blk = new Float64Array(9); // one 3×3 block (columns) of Arw(x)⁻¹Arw(z)
  const H = new Float64Array(n * n); // equilibrated Newton matrix S(P + W⁻²)S, or S(P + Arw(x)⁻¹Arw(z))S
  const L = new Float64Array(n * n); // Cholesky or LU factor
  const piv = new Int32Array(n);
  const sd = new Float64Array(n); // S = diag(1/√|H_ii|)
  const best = new Float64Array(n);
  const factor: CholeskyFactor = { n, L, regularization: 0 };
  let regularization = 0;
  let shift = 0;
  const pw = new PolishWorkspace(n, C);
  let aho = false; // false: NT direction; true: AHO direction (final phase, see IPM_AHO_SWITCH)

  /** Factorises H + shift·I (Cholesky for NT, LU for AHO) with the cholesky.ts shift ladder. */
  const factorise = (): boolean => {
    const ok0 = aho ? luInto(H, n, 0, L, piv, IPM_LU_PIVOT_TOLERANCE) : choleskyInto(H, n, 0, L);
    if (ok0) { shift = 0; return true; }
    for (let eps = IPM_SHIFT_START; eps <= REGULARIZATION_MAX * (1 + 1e-12); eps *= 10) {
      const ok = aho ? luInto(H, n, eps, L, piv, IPM_LU_PIVOT_TOLERANCE) : choleskyInto(H, n, eps, L);
      if (ok) { shift = eps; if (eps > regularization) regularization = eps; return true; }
    }
    return false;
  };
  const factorSolve = (r: Float64Array, out: Float64Array): void => {
    if (aho) luSolve(L, n, piv, r, out);
    else choleskySolve(factor, r, out);
  };
  /**
   * Solves (Newton matrix) dx = rhs via the equilibrated factor: dx = S (SHS)⁻¹ S rhs, followed by
   * iterative refinement against the unshifted SHS (removes the bias of a regularisation shift and
   * the rounding of the ill-conditioned late-stage systems; CVXOPT coneqp refines likewise, [V] §3).
   */
  const newtonSolve = (): void => {
    for (let i = 0; i < n; i++) tmp[i] = sd[i] * rhs[i];
    factorSolve(tmp, y);
    for (let it = 0; it < IPM_REFINEMENT_STEPS; it++) {
      for (let i = 0; i < n; i++) {
        let s = tmp[i];
        const row = i * n;
        for (let j = 0; j < n; j++) s -= H[row + j] * y[j];
        res[i] = s;
      }
      factorSolve(res, corr);
      for (let i = 0; i < n; i++) y[i] += corr[i];
    }
    for (let i = 0; i < n; i++) dx[i] = sd[i] * y[i];
  };
  /**
   * Newton matrix P + (block diagonal): identity (starting point), W⁻² (NT, [V] eq. (11) with G = −I),
   * or Arw(x)⁻¹Arw(z) (AHO), then Jacobi-equilibrated S·S. Pinned rows/columns are identity.
   */
  const buildNewtonMatrix = (mode: 0 | 1 | 2): void => {
    H.set(P);
    for (let c = 0; c < C; c++) {
      const o = 3 * c, wo = 9 * c;
      if (kind[c] === CONE_ORTHANT) {
        H[o * n + o] += mode === 0 ? IPM_START_DAMPING : mode === 1 ? winv[wo] * winv[wo] : z[o] / x[o];
        H[(o + 1) * n + o + 1] = 1; H[(o + 2) * n + o + 2] = 1;
      } else if (mode === 2) {
        // columns of Arw(x)⁻¹Arw(z): Arw(z) columns are (z0, z1, z2), (z1, z0, 0), (z2, 0, z0)
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
    for (let i = 0; i < n; i++) {
      const d = Math.abs(H[i * n + i]);
      sd[i] = d > 0 && Number.isFinite(d) ? 1 / Math.sqrt(d) : 1;
    }
    for (let i = 0; i < n; i++) {
      const row = i * n, si = sd[i];
      for (let j = 0; j < n; j++) H[row + j] *= si * sd[j];
    }
  };
  const toLambda = (src: Float64Array): void => {
    for (let i = 0; i < n; i++) lam[i] = pinned[i] ? 0 : kappa * D[i] * src[i];
  };

  // ---- starting point ([V] §3 "Starting point": x̂ = −(P + I)⁻¹q, shifted into int K) ----
  buildNewtonMatrix(0);
  if (!factorise()) {
    history.record(r0.maxRel, 0);
    return { lambda: lam, iterations: 0, status: { kind: 'failed', reason: 'IPM start: P + I could not be factorised' }, regularization, history: history.finish() };
  }
  for (let i = 0; i < n; i++) rhs[i] = -q[i];
  newtonSolve();
  for (let i = 0; i < n; i++) { x[i] = dx[i]; z[i] = -IPM_START_DAMPING * dx[i]; }
  // shift each block by (1 + t)e where t = −(smallest eigenvalue) if that is ≥ −1e-8·max(‖v‖, 1) ([V] §3)
  for (let pass = 0; pass < 2; pass++) {
    const v = pass === 0 ? x : z;
    let tmax = -Infinity, nrm = 0;
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      const ev = kind[c] === CONE_ORTHANT ? v[o] : v[o] - Math.hypot(v[o + 1], v[o + 2]);
      tmax = Math.max(tmax, -ev);
      nrm = Math.max(nrm, Math.abs(v[o]) + Math.hypot(v[o + 1], v[o + 2]));
    }
    if (tmax >= -1e-8 * Math.max(nrm, 1)) for (let c = 0; c < C; c++) v[3 * c] += 1 + tmax;
  }
  for (let i = 0; i < n; i++) if (pinned[i]) { x[i] = 0; z[i] = 0; }

  toLambda(x);
  let rep = kktInto(p, lam, ws);
  history.record(rep.maxRel, objectiveOf(lam, ws, b, n));
  let bestRel = rep.maxRel;
  best.set(lam);
  let status: SolveStatus | null = rep.maxRel <= tol ? { kind: 'converged' } : null;
  let iterations = 0;
  let collapsed = 0;
  // ring buffers of the best KKT residual and of the IPM merit max(τ_rel, r_rel) for the stall test
  const W = IPM_STALL_WINDOW + 1;
  const bestTrail = new Float64Array(W).fill(Infinity);
  const meritTrail = new Float64Array(W).fill(Infinity);
  bestTrail[0] = bestRel;

  while (status === null && iterations < maxIt) {
    // dual residual r = Px + q − z ([V] eq. (9), G = −I); duality measure τ = xᵀz / (number of cones).
    let gap = 0, rn = 0, pxn = 1, xn = 0;
    for (let i = 0; i < n; i++) {
      if (pinned[i]) { rx[i] = 0; Px[i] = 0; continue; }
      let s = 0;
      const row = i * n;
      for (let j = 0; j < n; j++) s += P[row + j] * x[j];
      Px[i] = s;
      rx[i] = s + q[i] - z[i];
      gap += x[i] * z[i];
      rn = Math.max(rn, Math.abs(rx[i]));
      pxn = Math.max(pxn, Math.abs(s));
      xn = Math.max(xn, Math.abs(x[i]));
    }
    const tau = gap / C;
    // scale-free progress measure (like the KKT checker's lam_ref·w_ref normalisation)
    const merit = Math.max(tau / (Math.max(xn, 1e-300) * pxn), rn / pxn);

    if (!aho) {
      // NT scaling ([V] §4.3) and the scaled point λ_NT.
      let scaled = true;
      for (let c = 0; c < C && scaled; c++) {
        const o = 3 * c;
        if (kind[c] === CONE_ORTHANT) {
          if (!(x[o] > 0) || !(z[o] > 0)) { scaled = false; break; }
          winv[9 * c] = Math.sqrt(z[o] / x[o]); // LP scaling W = diag(√(x/z)) ([V] §4.1)
          nt[o] = Math.sqrt(x[o] * z[o]);
          nt[o + 1] = 0; nt[o + 2] = 0;
        } else scaled = ntScalingSoc(x, z, o, winv, 9 * c, nt);
      }
      if (!scaled) { status = { kind: 'failed', reason: `iterate left the cone interior at iteration ${iterations}` }; break; }
    }
    buildNewtonMatrix(aho ? 2 : 1);
    if (process.env.IPM_DEBUG === '3') console.log('H', Array.from(H).map(v => v.toExponential(3)).join(' '), 'x', Array.from(x).join(' '), 'z', Array.from(z).join(' '));
    if (process.env.IPM_EIG) { const ev = symmetricEigenvalues(H, n); console.log(`   eig min ${ev[0].toExponential(2)} ${ev[1].toExponential(2)} ${ev[2].toExponential(2)} max ${ev[n-1].toExponential(2)}`); }
    if (!factorise()) {
      status = { kind: 'failed', reason: `Newton matrix not factorisable even with shift ${REGULARIZATION_MAX} at iteration ${iterations}` };
      break;
    }

    // Predictor (σ = 0) then Mehrotra corrector ([V] §3 eqs. (12)–(14); Mehrotra 1992).
    // NT:  λ∘(W⁻¹Δx + WΔz) = r_c, u = λ⧵r_c:  (P + W⁻²)Δx = −r + W⁻¹u,  Δz = W⁻¹(u − W⁻¹Δx).
    // AHO: z∘Δx + x∘Δz = r_c, u = x⧵r_c:     (P + Arw(x)⁻¹Arw(z))Δx = −r + u,  Δz = x⧵(r_c − z∘Δx)
    //      (Alizadeh, Haeberly & Overton, SIAM J. Optim. 8 (1998); linearises x∘z itself).
    let alphaAff = 0, alpha = 0;
    for (let pass = 0; pass < 2; pass++) {
      const sigmaTau = pass === 0 ? 0 : Math.pow(1 - alphaAff, IPM_SIGMA_EXPONENT) * tau;
      for (let c = 0; c < C; c++) {
        const o = 3 * c, k = kind[c];
        // r_c = σ τ e − v∘v − (Δa∘Δb)  with v∘v = λ∘λ (NT) or x∘z (AHO)
        if (aho) jordanProduct(x, z, o, k, u); else jordanProduct(nt, nt, o, k, u);
        u[o] = sigmaTau - u[o];
        if (k === CONE_SOC) { u[o + 1] = -u[o + 1]; u[o + 2] = -u[o + 2]; }
        if (pass === 1) {
          jordanProduct(dxa, dza, o, k, tmp); // second-order (Mehrotra) correction
          u[o] -= tmp[o];
          if (k === CONE_SOC) { u[o + 1] -= tmp[o + 1]; u[o + 2] -= tmp[o + 2]; }
        }
        if (k === CONE_ORTHANT) { u[o + 1] = 0; u[o + 2] = 0; }
        res[o] = u[o]; res[o + 1] = u[o + 1]; res[o + 2] = u[o + 2]; // keep r_c (AHO needs it for Δz)
        jordanDivide(aho ? x : nt, u, o, k);
        if (aho) { corr[o] = u[o]; corr[o + 1] = u[o + 1]; corr[o + 2] = u[o + 2]; }
        else applyWinv(winv, 9 * c, u, o, k, corr);
        rhs[o] = -rx[o] + corr[o];
        rhs[o + 1] = k === CONE_ORTHANT ? 0 : -rx[o + 1] + corr[o + 1];
        rhs[o + 2] = k === CONE_ORTHANT ? 0 : -rx[o + 2] + corr[o + 2];
        // stash r_c in dz temporarily (newtonSolve overwrites res)
        dz[o] = res[o]; dz[o + 1] = res[o + 1]; dz[o + 2] = res[o + 2];
      }
      newtonSolve();
      let amax = Infinity;
      const ex = pass === 0 ? dxa : tmp, ez = pass === 0 ? dza : corr; // directions in the Jordan frame used
      for (let c = 0; c < C; c++) {
        const o = 3 * c, k = kind[c], wo = 9 * c;
        if (aho) {
          // Δz = x⧵(r_c − z∘Δx)
          jordanProduct(z, dx, o, k, ez);
          ez[o] = dz[o] - ez[o];
          if (k === CONE_SOC) { ez[o + 1] = dz[o + 1] - ez[o + 1]; ez[o + 2] = dz[o + 2] - ez[o + 2]; } else { ez[o + 1] = 0; ez[o + 2] = 0; }
          jordanDivide(x, ez, o, k);
          ex[o] = dx[o]; ex[o + 1] = dx[o + 1]; ex[o + 2] = dx[o + 2];
          if (k === CONE_ORTHANT) {
            if (ex[o] < 0) amax = Math.min(amax, -x[o] / ex[o]);
            if (ez[o] < 0) amax = Math.min(amax, -z[o] / ez[o]);
          } else amax = Math.min(amax, maxStepSoc(x, ex, o), maxStepSoc(z, ez, o));
        } else {
          // scaled directions W⁻¹Δx and WΔz = u − W⁻¹Δx; step to the boundary in the scaled space ([V] §3)
          applyWinv(winv, wo, dx, o, k, ex);
          ez[o] = u[o] - ex[o];
          ez[o + 1] = k === CONE_ORTHANT ? 0 : u[o + 1] - ex[o + 1];
          ez[o + 2] = k === CONE_ORTHANT ? 0 : u[o + 2] - ex[o + 2];
          if (k === CONE_ORTHANT) {
            if (ex[o] < 0) amax = Math.min(amax, -nt[o] / ex[o]);
            if (ez[o] < 0) amax = Math.min(amax, -nt[o] / ez[o]);
          } else amax = Math.min(amax, maxStepSoc(nt, ex, o), maxStepSoc(nt, ez, o));
        }
      }
      if (pass === 0) alphaAff = Math.min(1, amax);
      else alpha = Math.min(1, IPM_STEP_FRACTION * amax);
    }
    // Δz in the original coordinates: AHO computed it directly (corr), NT holds WΔz (corr) → Δz = W⁻¹(WΔz).
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      if (aho) { dz[o] = corr[o]; dz[o + 1] = corr[o + 1]; dz[o + 2] = corr[o + 2]; }
      else applyWinv(winv, 9 * c, corr, o, kind[c], dz);
    }

    // Update; if rounding puts an iterate on/outside the boundary, halve the step.
    xSave.set(x); zSave.set(z);
    let ok = false;
    for (let bt = 0; bt <= IPM_MAX_INTERIOR_BACKTRACKS; bt++) {
      for (let i = 0; i < n; i++) {
        if (pinned[i]) continue;
        x[i] = xSave[i] + alpha * dx[i];
        z[i] = zSave[i] + alpha * dz[i];
      }
      if (allInterior(x, kind, C) && allInterior(z, kind, C)) { ok = true; break; }
      alpha *= 0.5;
    }
    iterations++;
    if (!ok) {
      x.set(xSave); z.set(zSave);
      status = { kind: 'stalled', reason: `no step keeps the iterate inside the cones at iteration ${iterations}` };
    }

    toLambda(x);
    rep = kktInto(p, lam, ws);
    if (!Number.isFinite(rep.maxRel)) {
      status = { kind: 'failed', reason: `non-finite iterate at iteration ${iterations}` };
      history.record(bestRel, objectiveOf(best, ws, b, n));
      break;
    }
    history.record(rep.maxRel, objectiveOf(lam, ws, b, n));
    if (process.env.IPM_DEBUG) console.log(`it ${iterations} ${aho ? 'AHO' : 'NT '} tau ${tau.toExponential(2)} merit ${merit.toExponential(2)} aff ${alphaAff.toExponential(2)} a ${alpha.toExponential(2)} shift ${shift} kkt ${rep.maxRel.toExponential(2)} p ${rep.primalRel.toExponential(1)} d ${rep.dualRel.toExponential(1)} c ${rep.compRel.toExponential(1)} j ${rep.jordanRel.toExponential(1)} nat ${rep.naturalRel.toExponential(1)} worst ${rep.worstContact}`);
    if (rep.maxRel < bestRel) { bestRel = rep.maxRel; best.set(lam); }
    if (status !== null) break;
    if (bestRel <= tol) { status = { kind: 'converged' }; break; }
    if (!aho && rep.maxRel <= IPM_AHO_SWITCH) aho = true;

    collapsed = alpha < IPM_MIN_STEP ? collapsed + 1 : 0;
    if (collapsed >= IPM_MAX_COLLAPSED_STEPS) {
      status = { kind: 'stalled', reason: `step length collapsed (α = ${alpha.toExponential(2)}) for ${collapsed} iterations; KKT max_rel ${bestRel.toExponential(2)}` };
      break;
    }
    const slot = iterations % W, old = (iterations + 1) % W; // old: IPM_STALL_WINDOW iterations ago
    const bestOld = bestTrail[old], meritOld = meritTrail[old];
    bestTrail[slot] = bestRel; meritTrail[slot] = merit;
    if (aho && iterations >= IPM_STALL_WINDOW && !(bestRel < IPM_STALL_FACTOR * bestOld)
      && (merit <= IPM_MERIT_FLOOR || !(merit < IPM_STALL_FACTOR * meritOld))) {
      status = { kind: 'stalled', reason: `KKT max_rel stopped decreasing (${bestRel.toExponential(2)} after ${iterations} iterations, τ = ${tau.toExponential(2)})` };
      break;
    }
  }

  // ---- final polish: semismooth Newton on the natural map from the best interior iterate ----
  // Accepted only while it lowers KKT max_rel, so it can never make the answer worse.
  if (bestRel > tol && (status === null || status.kind !== 'converged')) {
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      const dmax = Math.max(A[o * n + o], A[(o + 1) * n + o + 1], A[(o + 2) * n + o + 2]);
      pw.rho[c] = dmax > 0 ? 1 / dmax : 1; // the checker's ρ (kkt.ts)
    }
    let polished = 0;
    for (let k = 0; k < IPM_POLISH_STEPS && iterations < maxIt; k++) {
      const r = kktInto(p, best, ws);
      if (process.env.IPM_RHOBAR) { const rb = r.wRef > 0 && r.lamRef > 0 ? r.lamRef / r.wRef : 1; for (let c = 0; c < C; c++) pw.rho[c] = rb; }
      if (!naturalMapJacobian(p, best, ws.w, pw)) break;
      iterations++;
      // Two directions (LM, Newton), each with backtracking t = 1, ½, ¼, …; keep the candidate with the
      // smallest KKT max_rel (Armijo-free: the checker's residual itself is the merit).
      let candRel = Infinity;
      for (let mode = 0 as 0 | 1; mode <= 1; mode++) {
        if (!polishDirection(n, pw, mode)) { if (process.env.IPM_DEBUG === '4') console.log(`  mode ${mode} failed`); continue; }
        let t = 1;
        for (let bt = 0; bt <= IPM_POLISH_BACKTRACKS; bt++, t *= 0.5) {
          for (let i = 0; i < n; i++) pw.cand[i] = best[i] + t * pw.dl[i];
          for (let c = 0; c < C; c++) projectCone(pw.cand, 3 * c, mu[c], pw.cand);
          const rr = kktInto(p, pw.cand, ws).maxRel;
          if (process.env.IPM_DEBUG === '4') { let dn = 0; for (let i = 0; i < n; i++) dn = Math.max(dn, Math.abs(pw.dl[i])); console.log(`  mode ${mode} t ${t} |dl| ${dn.toExponential(2)} kkt ${rr.toExponential(2)} worst ${ws.report.worstContact} d ${ws.report.dualRel.toExponential(1)} nat ${ws.report.naturalRel.toExponential(1)}`); }
          if (rr < candRel) { candRel = rr; pw.bestCand.set(pw.cand); }
          if (rr < bestRel) break;
        }
      }
      if (process.env.IPM_DEBUG) console.log(`polish ${k} kkt ${candRel.toExponential(2)}`);
      if (!(candRel < bestRel)) { history.record(bestRel, objectiveOf(best, ws, b, n)); break; }
      bestRel = candRel;
      best.set(pw.bestCand);
      kktInto(p, best, ws);
      history.record(bestRel, objectiveOf(best, ws, b, n));
      polished++;
      if (bestRel <= tol) break;
    }
    if (bestRel <= tol) status = { kind: 'converged' };
    else if (status !== null && polished > 0) status = { kind: status.kind === 'failed' ? 'failed' : 'stalled', reason: `${status.reason}; natural-map polish reached ${bestRel.toExponential(2)}` } as SolveStatus;
  }
  if (status === null) status = { kind: 'max-iterations', reason: `${maxIt} iterations, KKT max_rel ${bestRel.toExponential(2)} > ${tol}` };
  if (status.kind === 'converged' && !(bestRel <= tol)) status = { kind: 'stalled', reason: `KKT max_rel ${bestRel.toExponential(2)}` };
  return { lambda: best, iterations, status, regularization, history: history.finish() };
}
