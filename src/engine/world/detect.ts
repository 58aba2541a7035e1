/** Contact detection for the world: broad phase (sweep and prune + planes), then the narrow phase. */
import { collide } from '../collision/narrowphase.js';
import { candidatePairs, SweepAndPrune } from '../collision/broadphase.js';
import type { Collider } from '../collision/shapes.js';
import type { Vec3 } from '../math/vec3.js';
import type { Quat } from '../math/quat.js';
import type { ShapeDesc } from './types.js';

export interface DetectedContact {
  readonly bodyA: number;
  readonly bodyB: number;
  readonly point: Vec3;
  /** From body b into body a. */
  readonly normal: Vec3;
  readonly penetration: number;
  readonly featureId: string;
}

export interface DetectableBody {
  readonly desc: { readonly shape: ShapeDesc };
  readonly isStatic: boolean;
  readonly x: Vec3;
  readonly q: Quat;
}

/**
 * A contact whose surfaces are apart by at most this (m) counts as touching: rounding leaves ~1e-13 m gaps
 * on a body placed exactly on a surface, and dropping those would lose contacts at random (a box placed
 * on an incline then rests on 2 of its 4 corners and tips).
 */
export const TOUCH_TOLERANCE = 1e-6;

/**
 * Touching or overlapping contacts (separation ≤ TOUCH_TOLERANCE) of all candidate pairs. Speculative
 * contacts farther apart, within the narrow phase's margin, are not passed to the solver: the
 * velocity-level model has no term for a positive gap, so they would stop bodies before they touch.
 */
export function detectContacts(bodies: readonly DetectableBody[], sap: SweepAndPrune = new SweepAndPrune()): DetectedContact[] {
  const colliders: Collider[] = bodies.map((b) => ({ shape: b.desc.shape, position: b.x, orientation: b.q, isStatic: b.isStatic }));
  const out: DetectedContact[] = [];
  for (const [i, j] of candidatePairs(colliders, sap)) {
    if (bodies[i].isStatic && bodies[j].isStatic) continue;
    for (const c of collide(colliders[i], colliders[j])) {
      if (c.separation > TOUCH_TOLERANCE) continue;
      out.push({ bodyA: i, bodyB: j, point: c.point, normal: c.normal, penetration: c.penetration, featureId: c.featureId });
    }
  }
  return out;
}
