/**
 * Recording format, conversion for consumers: recorded shapes ↔ the engine's ShapeDesc, recorded contacts
 * → ContactPoint, body-frame inverse inertia, and the body states the contact problem was built from.
 */
import { type BodyState, type ContactPoint, hypot4, type Mat3, mul, mulTransposed, quatComponentsToMat3, type ShapeDesc, ZERO3 } from '../engine/index.js';
import type { RecordedBody, RecordedContact, RecordedFrame, RecordedShape, RecordingHeader } from './recordingTypes.js';

// ─── helpers for consumers ─────────────────────────────────────────────────────────────────────────

/** The engine's shape description of a recorded shape, or null for an `other` shape. */
export function toShapeDesc(s: RecordedShape): ShapeDesc | null {
  if ('sphere' in s) return { kind: 'sphere', radius: s.sphere.radius };
  if ('box' in s) return { kind: 'box', halfExtents: s.box.halfExtents };
  if ('plane' in s) return { kind: 'plane', normal: s.plane.normal, offset: s.plane.offset };
  return null;
}

export function fromShapeDesc(s: ShapeDesc): RecordedShape {
  switch (s.kind) {
    case 'sphere':
      return { sphere: { radius: s.radius } };
    case 'box':
      return { box: { halfExtents: s.halfExtents } };
    case 'plane':
      return { plane: { normal: s.normal, offset: s.offset } };
  }
}

/** A recorded contact as the engine's ContactPoint. */
export function toContactPoint(c: RecordedContact): ContactPoint {
  if (c.gap !== undefined && c.gap > 0)
    return {
      bodyA: c.a,
      bodyB: c.b,
      point: c.point,
      normal: c.normal,
      t1: c.t1,
      t2: c.t2,
      mu: c.mu,
      restitution: c.e,
      penetration: c.depth,
      gap: c.gap,
      featureId: c.feature,
    };
  // two literals instead of a spread: this runs for every contact of every frame in a diagnosis pass
  return c.feature === undefined
    ? { bodyA: c.a, bodyB: c.b, point: c.point, normal: c.normal, t1: c.t1, t2: c.t2, mu: c.mu, restitution: c.e, penetration: c.depth }
    : { bodyA: c.a, bodyB: c.b, point: c.point, normal: c.normal, t1: c.t1, t2: c.t2, mu: c.mu, restitution: c.e, penetration: c.depth, featureId: c.feature };
}

/** World inverse inertia I⁻¹_w = R I⁻¹_b Rᵀ of a body with rotation matrix R (docs/physics.md "Conventions"). */
export function worldInverseInertia(R: Mat3, b: RecordedBody): Mat3 {
  return mulTransposed(mul(R, inverseInertiaBody(b)), R);
}

/** inverseInertiaBody of each header body seen, computed once (the diagnosis asks for it per body and frame). */
const bodyInverseInertia = new WeakMap<RecordedBody, Mat3>();

/** Body-frame inverse inertia tensor (row-major) of a dynamic body; zero for static bodies. Shared: not to be written. */
export function inverseInertiaBody(b: RecordedBody): Mat3 {
  if (b.static || b.inertia === null) return ZERO3;
  let inv = bodyInverseInertia.get(b);
  if (inv === undefined) bodyInverseInertia.set(b, (inv = inverseOfInertia(b.inertia)));
  return inv;
}

function inverseOfInertia(I: NonNullable<RecordedBody['inertia']>): Mat3 {
  if (I.length === 3) return [1 / I[0], 0, 0, 0, 1 / I[1], 0, 0, 0, 1 / I[2]];
  const d = det3(I);
  return [
    (I[4] * I[8] - I[5] * I[7]) / d,
    (I[2] * I[7] - I[1] * I[8]) / d,
    (I[1] * I[5] - I[2] * I[4]) / d,
    (I[5] * I[6] - I[3] * I[8]) / d,
    (I[0] * I[8] - I[2] * I[6]) / d,
    (I[2] * I[3] - I[0] * I[5]) / d,
    (I[3] * I[7] - I[4] * I[6]) / d,
    (I[1] * I[6] - I[0] * I[7]) / d,
    (I[0] * I[4] - I[1] * I[3]) / d,
  ];
}

/**
 * The body states the frame's contact problem was built from, for re-assembling A and b:
 * velocities from `pre`; pose from `pre[i].x/q` when written, else from the previous frame's post-step
 * pose when that frame is frame − 1. Returns the reason when the frame cannot be re-assembled.
 */
export function preSolveBodyStates(
  header: RecordingHeader,
  frame: RecordedFrame,
  previous?: RecordedFrame,
): { readonly ok: true; readonly bodies: BodyState[] } | { readonly ok: false; readonly reason: string } {
  const pre = frame.pre;
  if (!pre)
    return {
      ok: false,
      reason: `frame ${frame.frame} has no "pre" velocities: the contact problem cannot be rebuilt (only the recorded A/b, if any, can be re-solved)`,
    };
  const prevOk = previous !== undefined && previous.frame === frame.frame - 1;
  const bodies: BodyState[] = [];
  for (let i = 0; i < header.bodies.length; i++) {
    const p = pre[i];
    let x = p.x,
      q = p.q;
    if (x === undefined || q === undefined) {
      if (!prevOk) return { ok: false, reason: `frame ${frame.frame}: pre[${i}] has no pose (x, q) and frame ${frame.frame - 1} is not in the recording` };
      x ??= previous.bodies[i].x;
      q ??= previous.bodies[i].q;
    }
    const hb = header.bodies[i];
    if (hb.static) {
      bodies.push({ invMass: 0, invInertiaWorld: ZERO3, x, v: p.v, omega: p.w });
      continue;
    }
    const l = hypot4(q[0], q[1], q[2], q[3]);
    const R = quatComponentsToMat3(q[0] / l, q[1] / l, q[2] / l, q[3] / l);
    bodies.push({ invMass: 1 / (hb.mass as number), invInertiaWorld: worldInverseInertia(R, hb), x, v: p.v, omega: p.w });
  }
  return { ok: true, bodies };
}

/** Determinant of a row-major 3×3 matrix (cofactor expansion along the first row). */
export function det3(m: readonly number[]): number {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/** A frame's largest λn and largest penetration depth (0 without contacts): the index's and the run tables' per-frame maxima. */
export function frameMaxima(f: RecordedFrame): { maxLambdaN: number; maxDepth: number } {
  let maxLambdaN = 0;
  let maxDepth = 0;
  for (let k = 0; k < f.contacts.length; k++) {
    maxLambdaN = Math.max(maxLambdaN, f.solver.lambda[3 * k]);
    maxDepth = Math.max(maxDepth, f.contacts[k].depth);
  }
  return { maxLambdaN, maxDepth };
}
