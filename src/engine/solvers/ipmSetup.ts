/**
 * Setup phase of the interior points (ipm.ts file header, "Change of variables"): per contact the diagonal
 * scaling D and cone kind, the right-hand-side scale κ, the dense scaled problem (P = D A D, q = −D b / κ),
 * and the dual residual and duality measure of an iterate (dense P here; the sparse solver passes its own Px
 * to residualMeasures). References: [V] L. Vandenberghe, "The CVXOPT linear and quadratic cone program
 * solvers" (2010) §3. Moved from ipm.ts unchanged.
 */
import type { ContactProblem } from '../problem.js';
import type { Envelope } from '../math/cholesky.js';
import { CONE_ORTHANT, CONE_SOC } from './ipmCones.js';

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
