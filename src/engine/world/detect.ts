/**
 * Contact detection for the world: broad phase (sweep and prune + planes), then the narrow phase, with
 * speculative contacts (Catto, "Continuous Collision", GDC 2013; Box2D v3's speculative margin): a pair
 * whose surfaces are still apart but close within this step at the current velocities is passed to the
 * solver with its gap, so the solver lets it approach by at most the gap and stops it at touch instead of
 * letting it tunnel in by up to |v|·Δt.
 */
import { collide } from '../collision/narrowphase.js';
import { candidatePairs, SweepAndPrune } from '../collision/broadphase.js';
import { CONTACT_MARGIN, type Collider } from '../collision/shapes.js';
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
  /** Surface distance (m) of a speculative contact (> 0: apart); 0 for touching or overlapping ones. */
  readonly gap: number;
  readonly featureId: string;
}

export interface DetectableBody {
  readonly desc: { readonly shape: ShapeDesc };
  readonly isStatic: boolean;
  readonly x: Vec3;
  readonly q: Quat;
  /** Linear and angular velocity (world) the step's contact problem is built from; needed for speculative contacts. */
  readonly v?: Vec3;
  readonly w?: Vec3;
}

/**
 * A contact whose surfaces are apart by at most this (m) counts as touching: rounding leaves ~1e-13 m gaps
 * on a body placed exactly on a surface, and dropping those would lose contacts at random (a box placed
 * on an incline then rests on 2 of its 4 corners and tips).
 */
export const TOUCH_TOLERANCE = 1e-6;

/**
 * Touching or overlapping contacts (separation ≤ TOUCH_TOLERANCE) of all candidate pairs and, when `dt` is
 * given, speculative ones: apart by a gap s > TOUCH_TOLERANCE that the two surfaces could close within the
 * step, s ≤ r_a + r_b with each body's reach r = Δt·(|v| + |ω|ρ) (ρ: farthest surface point from the
 * centre). The reach uses each body's own speed, not the pair's relative speed: a body that the solver
 * stops in this very step (the box below, landing on the pile) no longer moves with the body above it,
 * which then closes the gap at its own speed. The broad phase grows each AABB by CONTACT_MARGIN + r
 * (Catto 2013: AABBs grown by a step's motion), the narrow phase gets CONTACT_MARGIN + r_a + r_b. Resting
 * bodies reach only Δt²·g, so they add few rows.
 */
export function detectContacts(bodies: readonly DetectableBody[], sap: SweepAndPrune = new SweepAndPrune(), dt = 0): DetectedContact[] {
  const colliders: Collider[] = bodies.map((b) => ({ shape: b.desc.shape, position: b.x, orientation: b.q, isStatic: b.isStatic }));
  const N = bodies.length;
  const speculative = dt > 0;
  const reach = new Float64Array(N),
    margins = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const b = bodies[i];
    if (speculative && !b.isStatic && b.v && b.w)
      reach[i] = dt * (Math.hypot(b.v[0], b.v[1], b.v[2]) + Math.hypot(b.w[0], b.w[1], b.w[2]) * boundingRadius(b.desc.shape));
    margins[i] = CONTACT_MARGIN + reach[i];
  }
  const out: DetectedContact[] = [];
  for (const [i, j] of candidatePairs(colliders, sap, speculative ? margins : CONTACT_MARGIN)) {
    if (bodies[i].isStatic && bodies[j].isStatic) continue;
    const pairReach = reach[i] + reach[j];
    for (const c of collide(colliders[i], colliders[j], CONTACT_MARGIN + pairReach)) {
      const gap = c.separation > TOUCH_TOLERANCE ? c.separation : 0;
      if (gap > pairReach) continue;
      out.push({ bodyA: i, bodyB: j, point: c.point, normal: c.normal, penetration: c.penetration, gap, featureId: c.featureId });
    }
  }
  return out;
}

/** Farthest surface point from the centre (m); 0 for planes (static, they do not move). */
function boundingRadius(s: ShapeDesc): number {
  if (s.kind === 'sphere') return s.radius;
  if (s.kind === 'box') return Math.hypot(s.halfExtents[0], s.halfExtents[1], s.halfExtents[2]);
  return 0;
}

/**
 * Approach speed −ġ_n = −n·((v_a + ω_a × r_a) − (v_b + ω_b × r_b)) at point p, r = p − x (DESIGN.md gap
 * rate; > 0: approaching). Static bodies do not move.
 */
export function approachSpeed(a: DetectableBody, b: DetectableBody, p: Vec3, n: Vec3): number {
  return pointVelocityAlong(b, p, n) - pointVelocityAlong(a, p, n);
}

function pointVelocityAlong(body: DetectableBody, p: Vec3, n: Vec3): number {
  if (body.isStatic || !body.v || !body.w) return 0;
  const v = body.v,
    w = body.w;
  const rx = p[0] - body.x[0],
    ry = p[1] - body.x[1],
    rz = p[2] - body.x[2];
  return (v[0] + w[1] * rz - w[2] * ry) * n[0] + (v[1] + w[2] * rx - w[0] * rz) * n[1] + (v[2] + w[0] * ry - w[1] * rx) * n[2];
}
