/**
 * Per-contact velocities before and after the recorded impulse, and the effective normal mass, from the
 * pre-solve state and λ (docs/physics.md "Contact model"): ġ⁻ = J v⁻, ġ⁺ = ġ⁻ + J M⁻¹Jᵀλ, m_eff = 1/A_nn with A_nn = J_n M⁻¹ J_nᵀ.
 * The diagnosis computes them for a whole frame; the inspector's frame detail from each island's Jacobians,
 * which it assembles anyway.
 */
import { assembleJacobians, type ContactJacobians, type ContactPoint, jacobianVelocityChanges } from '../engine/index.js';
import { toContactPoint, type RecordedFrame, type RecordingHeader } from '../format/recording.js';
import { solveTimeBodies } from './preSolve.js';

/** Normal/tangent contact velocities before (ġ⁻ = J v⁻) and after (ġ⁺ = ġ⁻ + J M⁻¹Jᵀλ) the impulse (docs/physics.md "Contact model"). */
export interface ContactKinematics {
  readonly gBefore: readonly [number, number, number];
  readonly gAfter: readonly [number, number, number];
  /** 1/A_nn: the contact's effective mass along its normal (0 between two static bodies). */
  readonly mEff: number;
}

/**
 * The same per contact as typed columns (no per-contact objects): gBefore/gAfter 3 per contact (n, t1, t2),
 * mEff 1 per contact, in the contacts' order. What the frame view reads for thousands of contacts.
 */
export interface KinematicsColumns {
  readonly gBefore: Float64Array;
  readonly gAfter: Float64Array;
  readonly mEff: Float64Array;
}

/**
 * Kinematics of the contacts `k` was assembled from (any AssemblyOptions: only J, M⁻¹Jᵀ and the velocity
 * part of b are used) as columns; lambda holds 3 numbers per contact in the same order, bodyCount the length
 * of the body list. `scratch` (6 per body, zero on these contacts' bodies) saves the Δv array: the islands of
 * a frame can share one (jacobianVelocityChanges).
 */
export function jacobianKinematicsColumns(
  k: ContactJacobians,
  contacts: readonly ContactPoint[],
  lambda: ArrayLike<number>,
  bodyCount: number,
  scratch?: Float64Array,
): KinematicsColumns {
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const dv = jacobianVelocityChanges(k, contacts, lambda, bodyCount, scratch);
  const v = k.rhs.velocity;
  const C = k.contactCount;
  const gBefore = new Float64Array(3 * C),
    gAfter = new Float64Array(3 * C),
    mEff = new Float64Array(C);
  for (let c = 0; c < C; c++) {
    const sa = !k.staticA[c],
      sb = !k.staticB[c];
    const oa = 6 * contacts[c].bodyA,
      ob = 6 * contacts[c].bodyB;
    for (let r = 0; r < 3; r++) {
      // ġ⁺ = ġ⁻ + J Δv with ġ⁻ = −(velocity part of b)
      let s = -v[3 * c + r];
      const j = 18 * c + 6 * r;
      if (sa) for (let q = 0; q < 6; q++) s += JA[j + q] * dv[oa + q];
      if (sb) for (let q = 0; q < 6; q++) s += JB[j + q] * dv[ob + q];
      gBefore[3 * c + r] = -v[3 * c + r];
      gAfter[3 * c + r] = s;
    }
    let ann = 0;
    if (sa) for (let q = 0; q < 6; q++) ann += JA[18 * c + q] * k.invMassJA[18 * c + q];
    if (sb) for (let q = 0; q < 6; q++) ann += JB[18 * c + q] * k.invMassJB[18 * c + q];
    mEff[c] = ann > 0 ? 1 / ann : 0;
  }
  return { gBefore, gAfter, mEff };
}

/** jacobianKinematicsColumns as one object per contact (the diagnosis's whole-frame form). */
export function jacobianKinematics(
  k: ContactJacobians,
  contacts: readonly ContactPoint[],
  lambda: ArrayLike<number>,
  bodyCount: number,
  scratch?: Float64Array,
): ContactKinematics[] {
  const { gBefore, gAfter, mEff } = jacobianKinematicsColumns(k, contacts, lambda, bodyCount, scratch);
  const out: ContactKinematics[] = new Array(k.contactCount);
  for (let c = 0; c < k.contactCount; c++)
    out[c] = {
      gBefore: [gBefore[3 * c], gBefore[3 * c + 1], gBefore[3 * c + 2]],
      gAfter: [gAfter[3 * c], gAfter[3 * c + 1], gAfter[3 * c + 2]],
      mEff: mEff[c],
    };
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
