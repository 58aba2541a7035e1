/**
 * Energy bookkeeping of one step (issue "energy bookkeeping"; seed 002 §M7, seed 000 Appendix C).
 *
 * E = kinetic (½m|v|² + ½ωᵀI_wω) + potential (−m g·x). For a contact impulse λ with v⁺ = v⁻ + M⁻¹Jᵀλ the
 * kinetic energy change is exactly Σᵢ λᵢ·½(ġᵢ⁻ + ġᵢ⁺) (ġ = Jv per row; seed 000 Appendix C), which
 * splits per row into normal and friction work. On a normal row ġ⁺ contains the bias velocity
 * (ERP/Δt)·depth (seed 001 P1); the bias part of the normal work is λn·½·bias, the rest is the work of
 * the normal impulse proper. Gravity's work −ΔPE is exchanged with the potential energy and does not
 * change E; whatever ΔE the contact work does not explain is the integrator residual (semi-implicit Euler
 * loses ½mg²Δt² per step in free fall; orientation changes alter ½ωᵀI_wω).
 */
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
  /** Work of the friction impulses (J); ≤ 0 for a maximally dissipative solution (seed 002 eq. 49). */
  readonly frictionWork: number;
  /** Work done by the ERP/Baumgarte bias part of the normal impulses (J). */
  readonly biasWork: number;
  /** delta − (normalWork + frictionWork + biasWork): energy created or lost by time integration (J). */
  readonly integratorResidual: number;
}

/** Contact work of one solved island: per row λᵢ·½(ġᵢ⁻ + ġᵢ⁺), split into normal, bias and friction. */
export function contactWork(lambda: ArrayLike<number>, gapBefore: ArrayLike<number>, gapAfter: ArrayLike<number>, bias: ArrayLike<number>): { normal: number; friction: number; bias: number } {
  let normal = 0, friction = 0, biasW = 0;
  for (let i = 0; i < lambda.length; i++) {
    const work = lambda[i] * 0.5 * (gapBefore[i] + gapAfter[i]);
    if (i % 3 === 0) {
      const fromBias = lambda[i] * 0.5 * bias[i];
      biasW += fromBias;
      normal += work - fromBias;
    } else {
      friction += work;
    }
  }
  return { normal, friction, bias: biasW };
}
