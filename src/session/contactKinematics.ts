/**
 * Per-contact velocities before and after the recorded impulse, and the effective normal mass, from the
 * pre-solve state and λ (docs/physics.md "Contact model"): ġ⁻ = J v⁻, ġ⁺ = ġ⁻ + J M⁻¹Jᵀλ, m_eff = 1/A_nn with A_nn = J_n M⁻¹ J_nᵀ.
 * The diagnosis computes them for a whole frame; the inspector's frame detail from each island's Jacobians,
 * which it assembles anyway.
 */
import { assembleJacobians, jacobianVelocityChanges, type ContactJacobians } from '../engine/assembly.js';
import type { ContactPoint } from '../engine/problem.js';
import { toContactPoint, type RecordedFrame, type RecordingHeader } from '../format/recording.js';
import { solveTimeBodies } from './preSolve.js';

/** Normal/tangent contact velocities before (ġ⁻ = J v⁻) and after (ġ⁺ = ġ⁻ + J M⁻¹Jᵀλ) the impulse (docs/physics.md "Contact model"). */
export interface ContactKinematics {
  readonly gBefore: readonly [number, number, number];
  readonly gAfter: readonly [number, number, number];
  /** 1/A_nn: the contact's effective mass along its normal (0 between two static bodies). */
  readonly mEff: number;
}

/** A contact between two static bodies: no Jacobian, no velocity, no effective mass. */
export const STATIC_CONTACT_KINEMATICS: ContactKinematics = { gBefore: [0, 0, 0], gAfter: [0, 0, 0], mEff: 0 };

/**
 * Kinematics of the contacts `k` was assembled from (any AssemblyOptions: only J, M⁻¹Jᵀ and the velocity
 * part of b are used); lambda holds 3 numbers per contact in the same order, bodyCount the length of the
 * body list. `scratch` (6 per body, zero on these contacts' bodies) saves the Δv array: the islands of a
 * frame can share one (jacobianVelocityChanges).
 */
export function jacobianKinematics(
  k: ContactJacobians,
  contacts: readonly ContactPoint[],
  lambda: ArrayLike<number>,
  bodyCount: number,
  scratch?: Float64Array,
): ContactKinematics[] {
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const dv = jacobianVelocityChanges(k, contacts, lambda, bodyCount, scratch);
  const v = k.rhs.velocity;
  const out: ContactKinematics[] = new Array(k.contactCount);
  const row = (c: number, r: number): number => {
    let s = -v[3 * c + r];
    if (!k.staticA[c]) {
      const o = 6 * contacts[c].bodyA,
        j = 18 * c + 6 * r;
      for (let q = 0; q < 6; q++) s += JA[j + q] * dv[o + q];
    }
    if (!k.staticB[c]) {
      const o = 6 * contacts[c].bodyB,
        j = 18 * c + 6 * r;
      for (let q = 0; q < 6; q++) s += JB[j + q] * dv[o + q];
    }
    return s;
  };
  for (let c = 0; c < k.contactCount; c++) {
    let ann = 0;
    if (!k.staticA[c]) for (let q = 0; q < 6; q++) ann += JA[18 * c + q] * k.invMassJA[18 * c + q];
    if (!k.staticB[c]) for (let q = 0; q < 6; q++) ann += JB[18 * c + q] * k.invMassJB[18 * c + q];
    out[c] = {
      gBefore: [-v[3 * c], -v[3 * c + 1], -v[3 * c + 2]],
      gAfter: [row(c, 0), row(c, 1), row(c, 2)],
      mEff: ann > 0 ? 1 / ann : 0,
    };
  }
  return out;
}

/** Per contact of frame f, from the recorded pre-solve state and λ; null when the frame has no pre-solve state. */
export function contactKinematics(header: RecordingHeader, f: RecordedFrame, prev?: RecordedFrame): ContactKinematics[] | null {
  const pre = solveTimeBodies(header, f, prev);
  if (!pre.ok) return null;
  if (f.contacts.length === 0) return [];
  const contacts = f.contacts.map(toContactPoint);
  const k = assembleJacobians(pre.bodies, contacts, { regularization: 0, baumgarte: false, restVelocityThreshold: Infinity, dt: header.dt });
  return jacobianKinematics(k, contacts, f.solver.lambda, pre.bodies.length);
}
