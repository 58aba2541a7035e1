/**
 * Energy bookkeeping of one step (docs/physics.md "Energy ledger").
 *
 * E = kinetic (½m|v|² + ½ωᵀI_wω) + potential (−m g·x). For a contact impulse λ with v⁺ = v⁻ + M⁻¹Jᵀλ the
 * kinetic energy change is exactly Σᵢ λᵢ·½(ġᵢ⁻ + ġᵢ⁺) (ġ = Jv per row; Stewart & Trinkle 1996, docs/physics.md "Energy ledger"), which
 * splits per row into normal and friction work. The bias velocity (ERP/Δt)·depth (Baumgarte 1972; Catto, GDC 2005) in b adds
 * ½·b_Bᵀ A_FF⁻¹ b_B to the kinetic energy when the active normal rows F hold (λ = A_FF⁻¹(b₀ + b_B); the
 * cross terms cancel because A is symmetric): that is the bias part; the rest of the normal-row work is
 * the work of the normal impulse proper. Exact for frictionless and sticking contacts; with sliding
 * contacts the active set is taken from the normal rows only (an approximation, stated in reports). Gravity's work −ΔPE is exchanged with the potential energy and does not
 * change E; whatever ΔE the contact work does not explain is the integrator residual (semi-implicit Euler
 * loses ½mg²Δt² per step in free fall; orientation changes alter ½ωᵀI_wω).
 */
import type { ContactProblem } from '../problem.js';
import type { ContactJacobians } from '../assembly.js';
import { choleskySolve, choleskyWithFallback } from '../math/cholesky.js';

export interface EnergyLedger {
  /** Energies at the end of the frame (J). */
  readonly kineticLinear: number;
  readonly kineticRotational: number;
  readonly potential: number;
  readonly total: number;
  /** Change of total energy over the frame (J). */
  readonly delta: number;
  /** Work done by gravity along the frame's displacement, = −ΔPE (J); informational. */
  readonly gravityWork: number;
  /** Work of the normal impulses without their bias part (J). */
  readonly normalWork: number;
  /** Work of the friction impulses (J); ≤ 0 for a maximally dissipative solution (maximal dissipation; docs/physics.md "Energy ledger"). */
  readonly frictionWork: number;
  /** Work done by the ERP/Baumgarte bias part of the normal impulses (J). */
  readonly biasWork: number;
  /** delta − (normalWork + frictionWork + biasWork): energy created or lost by time integration (J). */
  readonly integratorResidual: number;
}

/**
 * ġ⁺ = ġ⁻ + J M⁻¹ Jᵀ λ from a solve's w = Aλ − b, where A carries the assembly's ε on every row and the
 * softening γ on normal rows: (w + b) − (ε + γ)·λ − velocity part of b (ε and γ are solver devices, not physics).
 */
export function gapRatesAfter(
  k: ContactJacobians,
  lambda: ArrayLike<number>,
  w: ArrayLike<number>,
  softening: number,
  out: Float64Array = new Float64Array(k.size),
): Float64Array {
  const velocity = k.rhs.velocity;
  for (let i = 0; i < k.size; i++) {
    const shift = k.regularization + (i % 3 === 0 ? softening : 0);
    out[i] = w[i] + k.b[i] - shift * lambda[i] - velocity[i];
  }
  return out;
}

/**
 * Σᵢ λᵢ·(½(ġᵢ⁻ + ġᵢ⁺) + pᵢ) with ġ⁻ = −velocity part of b: the kinetic energy the impulses change (contactWork's
 * total, docs/physics.md "Energy ledger") plus, given p (potential energy per unit impulse), their potential-energy effect.
 */
export function impulseEnergyChange(k: ContactJacobians, lambda: ArrayLike<number>, gapAfter: ArrayLike<number>, potential?: ArrayLike<number>): number {
  const velocity = k.rhs.velocity;
  let e = 0;
  for (let i = 0; i < k.size; i++) e += lambda[i] * (0.5 * (gapAfter[i] - velocity[i]) + (potential ? potential[i] : 0));
  return e;
}

/** Contact work of one solved island: per row λᵢ·½(ġᵢ⁻ + ġᵢ⁺), split into normal, bias and friction. */
export function contactWork(
  p: ContactProblem,
  lambda: ArrayLike<number>,
  gapBefore: ArrayLike<number>,
  gapAfter: ArrayLike<number>,
): { normal: number; friction: number; bias: number } {
  let normalRows = 0,
    friction = 0;
  for (let i = 0; i < lambda.length; i++) {
    const work = lambda[i] * 0.5 * (gapBefore[i] + gapAfter[i]);
    if (i % 3 === 0) normalRows += work;
    else friction += work;
  }
  const bias = biasEnergy(p, lambda);
  return { normal: normalRows - bias, friction, bias };
}

/** ½·b_Bᵀ A_FF⁻¹ b_B over the active normal rows F (λn > 0) with a non-zero bias. */
export function biasEnergy(p: ContactProblem, lambda: ArrayLike<number>): number {
  const bias = p.rhs?.bias;
  if (!bias) return 0;
  const rows: number[] = [];
  for (let c = 0; c < p.contactCount; c++) if (lambda[3 * c] > 0) rows.push(3 * c);
  if (!rows.some((r) => bias[r] !== 0)) return 0;
  const m = rows.length,
    n = p.size;
  const A = new Float64Array(m * m),
    rhs = new Float64Array(m),
    x = new Float64Array(m);
  rows.forEach((r, i) => {
    rhs[i] = bias[r];
    rows.forEach((s, j) => {
      A[i * m + j] = p.A[r * n + s];
    });
  });
  const f = choleskyWithFallback(A, m, { tryUnshifted: true });
  if (!f) return 0;
  choleskySolve(f, rhs, x);
  let e = 0;
  for (let i = 0; i < m; i++) e += 0.5 * rhs[i] * x[i];
  return e;
}

/**
 * Contact work for a matrix-free island (no A): exact per-row work; the bias part uses the diagonal of
 * A_FF only, ½·Σ b_B,i² / A_ii over active normal rows (an approximation for coupled contacts).
 */
export function contactWorkDiagonal(
  k: ContactJacobians,
  lambda: ArrayLike<number>,
  gapBefore: ArrayLike<number>,
  gapAfter: ArrayLike<number>,
): { normal: number; friction: number; bias: number } {
  let normalRows = 0,
    friction = 0,
    bias = 0;
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  for (let i = 0; i < lambda.length; i++) {
    const work = lambda[i] * 0.5 * (gapBefore[i] + gapAfter[i]);
    if (i % 3 === 0) normalRows += work;
    else friction += work;
  }
  for (let c = 0; c < k.contactCount; c++) {
    const bb = k.rhs.bias[3 * c];
    if (!(lambda[3 * c] > 0) || bb === 0) continue;
    let d = 0;
    if (!k.staticA[c]) for (let q = 0; q < 6; q++) d += JA[18 * c + q] * k.invMassJA[18 * c + q];
    if (!k.staticB[c]) for (let q = 0; q < 6; q++) d += JB[18 * c + q] * k.invMassJB[18 * c + q];
    if (d > 0) bias += (0.5 * bb * bb) / d;
  }
  return { normal: normalRows - bias, friction, bias };
}
