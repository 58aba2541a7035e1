/**
 * Contact detection for the world: broad phase (sweep and prune + planes), then the narrow phase, with
 * speculative contacts (Catto, "Continuous Collision", GDC 2013; Box2D v3's speculative margin): a pair
 * whose surfaces are still apart but close within this step at the current velocities is passed to the
 * solver with its gap, so the solver lets it approach by at most the gap and stops it at touch instead of
 * letting it tunnel in by up to |v|·Δt.
 */
import { collide } from '../collision/narrowphase.js';
import { candidatePairKeys, SweepAndPrune } from '../collision/broadphase.js';
import { boxFrameOf, CONTACT_MARGIN, worldPlane, type BoxFrame, type Collider, type WorldPlane } from '../collision/shapes.js';
import type { Vec3 } from '../math/vec3.js';
import type { Quat } from '../math/quat.js';
import type { ShapeDesc } from './types.js';
import { hypot3 } from '../math/hypot.js';

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
 * A speculative row between two dynamic bodies reaches at most ρ_a + ρ_b (m, their bounding radii): a pair
 * farther apart meets within the step only if it closes more than the two bodies' size, which speculative
 * margins do not handle without ghost rows (Catto, "Continuous Collision", GDC 2013: speculative contacts for
 * moderate speeds, time of impact for bullets; Box2D v3 caps its speculative distance likewise). A static
 * body (a half-space cannot be passed through, and its rows are one per point) leaves the reach uncapped.
 */
export function speculativeCap(radiusA: number, radiusB: number, staticPair: boolean): number {
  return staticPair ? Infinity : radiusA + radiusB;
}

/**
 * Touching or overlapping contacts (separation ≤ TOUCH_TOLERANCE) of all candidate pairs and, when `dt` is
 * given, speculative ones: apart by a gap s > TOUCH_TOLERANCE that the pair could close within the step
 * (docs/physics.md "Speculative contacts"; Catto GDC 2013, Box2D v3's speculative margin). The reach of a
 * pair along its normal n (from b into a) comes from the pair's relative motion, not each body's speed:
 *   Δt·max(0, (v_b − v_a)·n)  +  Δt·(δ_a + δ_b)  +  Δt·ρ_a|n × ω_a| + Δt·ρ_b|n × ω_b|,  capped (speculativeCap),
 * - the relative normal velocity: bodies moving together (falling side by side, a pile sliding as one)
 *   cannot meet;
 * - δ_k, the fastest approach of body k's touching or closing contacts (at their points, ≥ 0): the solver
 *   may change body k's velocity within the step by about that much (a box landing on the pile stops while
 *   the box above it does not; a box hit at 15 m/s is pushed on), so its reach grows by Δt·δ_k in any direction;
 * - the turn: a point at r from the centre moves by Δt·(ω × r)·n ≤ Δt·ρ|n × ω| along n (ρ: the farthest
 *   surface point from the centre), so a spin about n adds nothing.
 * The broad phase grows each AABB by CONTACT_MARGIN + Δt(|v| + |ω|ρ) (Catto GDC 2013: AABBs grown by a
 * step's motion); the narrow phase gets the pair's sum of those, which also bounds the reach above.
 */
export function detectContacts(bodies: readonly DetectableBody[], sap: SweepAndPrune = new SweepAndPrune(), dt = 0): DetectedContact[] {
  const colliders: Collider[] = bodies.map(colliderOf);
  const N = bodies.length;
  const speculative = dt > 0;
  /** Per body: Δt·ρ (turn per unit |n × ω|), ρ, the isotropic bound Δt(|v| + |ω|ρ) for the broad phase, δ. */
  const turnArm = new Float64Array(N),
    radius = new Float64Array(N),
    reach = new Float64Array(N),
    margins = new Float64Array(N),
    deflect = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const b = bodies[i];
    radius[i] = boundingRadius(b.desc.shape);
    if (speculative && !b.isStatic && b.v && b.w) {
      turnArm[i] = dt * radius[i];
      reach[i] = dt * hypot3(b.v[0], b.v[1], b.v[2]) + turnArm[i] * hypot3(b.w[0], b.w[1], b.w[2]);
    }
    margins[i] = CONTACT_MARGIN + reach[i];
  }
  const found: DetectedContact[] = [];
  /** Per found speculative contact: its reach from the relative motion alone (−1: touching or closing). */
  const relReach: number[] = [];
  // Indexed loops, not for…of with destructuring: no iterator objects per pair and per contact.
  const keys = candidatePairKeys(colliders, sap, speculative ? margins : CONTACT_MARGIN);
  for (let p = 0; p < keys.length; p++) {
    const key = keys[p],
      i = Math.floor(key / N),
      j = key - i * N;
    const a = bodies[i],
      b = bodies[j];
    if (a.isStatic && b.isStatic) continue;
    const bound = reach[i] + reach[j];
    const manifold = collide(colliders[i], colliders[j], CONTACT_MARGIN + bound);
    for (let m = 0; m < manifold.length; m++) {
      const c = manifold[m];
      const gap = c.separation > TOUCH_TOLERANCE ? c.separation : 0;
      if (gap > bound) continue;
      const n = c.normal;
      const rel = gap === 0 ? 0 : dt * Math.max(0, alongNormal(b.v, b, n) - alongNormal(a.v, a, n)) + turn(i, a, n) + turn(j, b, n);
      const closing = gap === 0 || gap <= rel;
      if (closing) {
        const u = approachSpeed(a, b, c.point, n);
        if (u > 0) {
          if (!a.isStatic && u > deflect[i]) deflect[i] = u;
          if (!b.isStatic && u > deflect[j]) deflect[j] = u;
        }
      }
      relReach.push(closing ? -1 : rel);
      found.push({ bodyA: i, bodyB: j, point: c.point, normal: c.normal, penetration: c.penetration, gap, featureId: c.featureId });
    }
  }
  // the contacts kept are moved to the front of `found` (no second list per step)
  let kept = 0;
  for (let k = 0; k < found.length; k++) {
    const d = found[k];
    if (d.gap > 0) {
      const i = d.bodyA,
        j = d.bodyB;
      const cap = speculativeCap(radius[i], radius[j], bodies[i].isStatic || bodies[j].isStatic);
      if (d.gap > cap) continue;
      if (relReach[k] >= 0 && d.gap > relReach[k] + dt * (deflect[i] + deflect[j])) continue;
    }
    found[kept++] = d;
  }
  found.length = kept;
  return found;

  /** Δt·ρ|n × ω|: how far body k's turn can move a surface point along n in the step. */
  function turn(k: number, body: DetectableBody, n: Vec3): number {
    const w = body.w;
    if (!(turnArm[k] > 0) || !w) return 0;
    const x = n[1] * w[2] - n[2] * w[1],
      y = n[2] * w[0] - n[0] * w[2],
      z = n[0] * w[1] - n[1] * w[0];
    return turnArm[k] * Math.sqrt(x * x + y * y + z * z); // not Math.hypot: ~100 ns and an allocation per call in V8 (docs/benchmarks.md, bench:world)
  }
}

/** A body's collider with its box frame or plane surface built once for the step (not once per pair). */
function colliderOf(b: DetectableBody): Collider {
  const shape = b.desc.shape;
  const c = {
    shape,
    position: b.x,
    orientation: b.q,
    isStatic: b.isStatic,
    frame: undefined as BoxFrame | undefined,
    surface: undefined as WorldPlane | undefined,
  };
  // One object layout for every collider (the broad and narrow phases read them all in the same loops).
  if (shape.kind === 'box') c.frame = boxFrameOf(c);
  // A degenerate plane keeps failing where it did before: in the narrow phase, when a body reaches it.
  else if (shape.kind === 'plane' && hypot3(shape.normal[0], shape.normal[1], shape.normal[2]) > 0) c.surface = worldPlane(c);
  return c;
}

/** v·n, 0 for a static body or one without velocity. */
function alongNormal(v: Vec3 | undefined, body: DetectableBody, n: Vec3): number {
  return body.isStatic || !v ? 0 : v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
}

/** Farthest surface point from the centre (m); 0 for planes (static, they do not move). */
function boundingRadius(s: ShapeDesc): number {
  if (s.kind === 'sphere') return s.radius;
  if (s.kind === 'box') return hypot3(s.halfExtents[0], s.halfExtents[1], s.halfExtents[2]);
  return 0;
}

/**
 * Approach speed −ġ_n = −n·((v_a + ω_a × r_a) − (v_b + ω_b × r_b)) at point p, r = p − x (docs/physics.md "Contact model": gap
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
