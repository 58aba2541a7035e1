/**
 * Declared conventions, converted on read (docs/recording-format.md, "Conventions"). A header may declare
 * the conventions its engine uses; the reader converts every header and frame to ours exactly, once, and
 * the header lists what it converted (the inspector and `report` print it). Ours: z up, quaternions
 * [w, x, y, z], normal from b into a, λ the impulse of the step, ω in world coordinates.
 *   up y         (x, y, z) ↦ (x, −z, y) for points, velocities, ω, normals, tangents, gravity, plane normals;
 *                q ↦ r ⊗ q with r = (cos 45°, sin 45°, 0, 0) (a rotation of +90° about x);
 *   xyzw         q = [x, y, z, w] ↦ [w, x, y, z];
 *   a-to-b       n points from a into b and pushes b along +n (Box2D): n ↦ −n, t1 ↦ −t1, λt2 ↦ −λt2, and the
 *                t2 row and column of A and entry of b negated (t1 × t2 = n still holds);
 *   force        λ ↦ λ·Δt (A and b describe the engine's own force solve and are not kept);
 *   ω body       ω_world = R(q) ω_body.
 * Format 1.1 fields follow the same rules: manifold rows as contacts (λtwist unchanged under a-to-b: the
 * engine's impulse on b about +n is ours on a about our +n), external impulses as vectors (× Δt for forces).
 */
import type { RecordedBodyState, RecordedExternalImpulse, RecordedFrame, RecordedManifold, RecordedPreState, RecordingHeader } from './recordingTypes.js';
import type { Quat, Vec3 } from '../engine/index.js';

export interface DeclaredConventions {
  readonly up: 'z' | 'y';
  readonly quaternion: 'wxyz' | 'xyzw';
  readonly normal: 'b-to-a' | 'a-to-b';
  readonly impulse: 'per-step' | 'force';
  readonly angularVelocity: 'world' | 'body';
}

/** Accepted values per key, ours first. */
export const CONVENTION_VALUES = {
  up: ['z', 'y'],
  quaternion: ['wxyz', 'xyzw'],
  normal: ['b-to-a', 'a-to-b'],
  impulse: ['per-step', 'force'],
  angularVelocity: ['world', 'body'],
} as const satisfies { readonly [K in keyof DeclaredConventions]: readonly DeclaredConventions[K][] };

/** What each non-native value means, as the header line and `report` say it. */
const CONVERSION_TEXT: { readonly [K in keyof DeclaredConventions]: string } = {
  up: 'y-up → z-up',
  quaternion: 'quaternions [x, y, z, w] → [w, x, y, z]',
  normal: 'normals from a into b → from b into a (n, t1, λt2 negated)',
  impulse: 'λ as forces → impulses per step (λ·Δt)',
  angularVelocity: 'ω in body coordinates → world',
};

/** The conversions a declaration implies, in words (empty: the file is in our conventions). */
export function conversions(d: DeclaredConventions): string[] {
  return (Object.keys(CONVERSION_TEXT) as (keyof DeclaredConventions)[]).filter((k) => d[k] !== CONVENTION_VALUES[k][0]).map((k) => CONVERSION_TEXT[k]);
}

const H = Math.SQRT1_2;
/** y-up → z-up for a vector: (x, y, z) ↦ (x, −z, y). */
const upVec = (v: readonly number[]): Vec3 => [v[0], -v[2], v[1]];
/** r ⊗ q with r = (cos 45°, sin 45°, 0, 0): the same rotation of the frame applied to an orientation. */
const upQuat = (q: readonly number[]): Quat => [H * (q[0] - q[1]), H * (q[1] + q[0]), H * (q[2] - q[3]), H * (q[3] + q[2])];
const wxyz = (q: readonly number[]): Quat => [q[3], q[0], q[1], q[2]];
/** R(q)·v for a unit quaternion [w, x, y, z]. */
function rotate(q: readonly number[], v: readonly number[]): Vec3 {
  const [w, x, y, z] = q;
  // v + 2w(u × v) + 2u × (u × v), u = (x, y, z)
  const cx = y * v[2] - z * v[1],
    cy = z * v[0] - x * v[2],
    cz = x * v[1] - y * v[0];
  return [v[0] + 2 * (w * cx + y * cz - z * cy), v[1] + 2 * (w * cy + z * cx - x * cz), v[2] + 2 * (w * cz + x * cy - y * cx)];
}
const neg = (v: readonly number[]): Vec3 => [-v[0], -v[1], -v[2]];

/** The header in our conventions (gravity and plane normals; body-frame shapes and inertias do not change). */
export function convertHeader(h: RecordingHeader, d: DeclaredConventions): RecordingHeader {
  if (d.up === 'z') return h;
  return {
    ...h,
    gravity: upVec(h.gravity),
    bodies: h.bodies.map((b) => ('plane' in b.shape ? { ...b, shape: { plane: { normal: upVec(b.shape.plane.normal), offset: b.shape.plane.offset } } } : b)),
  };
}

function pose(d: DeclaredConventions, q: readonly number[]): Quat {
  const q1 = d.quaternion === 'xyzw' ? wxyz(q) : (q as Quat);
  return d.up === 'y' ? upQuat(q1) : q1;
}
/** ω in our frame: to world coordinates first (with the engine's own orientation), then y-up → z-up. */
function omega(d: DeclaredConventions, w: readonly number[], q: readonly number[] | undefined): Vec3 {
  const ww = d.angularVelocity === 'body' && q ? rotate(d.quaternion === 'xyzw' ? wxyz(q) : q, w) : (w as Vec3);
  return d.up === 'y' ? upVec(ww) : ww;
}
const vec = (d: DeclaredConventions, v: readonly number[]): Vec3 => (d.up === 'y' ? upVec(v) : (v as Vec3));

/** Post-step body states (or the initial-state line's) in our conventions. */
export function convertStates(states: readonly RecordedBodyState[], d: DeclaredConventions): RecordedBodyState[] {
  return states.map((s) => ({ x: vec(d, s.x), q: pose(d, s.q), v: vec(d, s.v), w: omega(d, s.w, s.q) }));
}

/**
 * A frame (validated in the declared conventions) in ours. ω in body coordinates needs the orientation: the
 * post-step state's own q, and for `pre` its q when written — else the post-step q, which differs from the
 * solve-time pose by one step's rotation (write pre[i].q with body-frame ω; docs/recording-format.md).
 */
export function convertFrame(f: RecordedFrame, d: DeclaredConventions, dt: number): RecordedFrame {
  const bodies = convertStates(f.bodies, d);
  const pre = f.pre?.map((p, i): RecordedPreState => {
    const q = p.q ?? f.bodies[i].q;
    const v = vec(d, p.v),
      w = omega(d, p.w, q);
    if (p.x !== undefined && p.q !== undefined) return { v, w, x: vec(d, p.x), q: pose(d, p.q) };
    if (p.x !== undefined) return { v, w, x: vec(d, p.x) };
    if (p.q !== undefined) return { v, w, q: pose(d, p.q) };
    return { v, w };
  });
  const flip = d.normal === 'a-to-b';
  const contacts = f.contacts.map((c) => {
    const n = vec(d, c.normal),
      t1 = vec(d, c.t1);
    const base = {
      a: c.a,
      b: c.b,
      point: vec(d, c.point),
      normal: flip ? neg(n) : n,
      t1: flip ? neg(t1) : t1,
      t2: vec(d, c.t2),
      depth: c.depth,
      ...(c.gap !== undefined ? { gap: c.gap } : {}),
      mu: c.mu,
      e: c.e,
    };
    const withFeature = c.feature === undefined ? base : { ...base, feature: c.feature };
    return c.soft === undefined ? withFeature : { ...withFeature, soft: c.soft };
  });
  const scale = d.impulse === 'force' ? dt : 1;
  const lambda = f.solver.lambda.map((x, i) => (flip && i % 3 === 2 ? -x : x) * scale);
  const manifolds = f.manifolds?.map(
    (m): RecordedManifold => ({
      a: m.a,
      b: m.b,
      contacts: m.contacts,
      point: vec(d, m.point),
      normal: flip ? neg(vec(d, m.normal)) : vec(d, m.normal),
      t1: flip ? neg(vec(d, m.t1)) : vec(d, m.t1),
      t2: vec(d, m.t2),
      lambda: [m.lambda[0] * scale, (flip ? -m.lambda[1] : m.lambda[1]) * scale, m.lambda[2] * scale],
    }),
  );
  const sv = (v: readonly number[]): Vec3 => {
    const u = vec(d, v);
    return [u[0] * scale, u[1] * scale, u[2] * scale];
  };
  const external = f.external?.map(
    (x): RecordedExternalImpulse =>
      x.angular === undefined
        ? { body: x.body, impulse: sv(x.impulse), stage: x.stage }
        : { body: x.body, impulse: sv(x.impulse), angular: sv(x.angular), stage: x.stage },
  );
  const out: RecordedFrame = {
    frame: f.frame,
    time: f.time,
    bodies,
    ...(pre ? { pre } : {}),
    contacts,
    solver: { ...f.solver, lambda },
    ...(f.energy ? { energy: f.energy } : {}),
    ...(manifolds ? { manifolds } : {}),
    ...(external ? { external } : {}),
  };
  if (d.impulse === 'force' || (!f.A && !f.b)) return out;
  // a-to-b: A ↦ DAD, b ↦ Db with D = diag(1, 1, −1) per contact
  const sign = (i: number): number => (flip && i % 3 === 2 ? -1 : 1);
  const n3 = 3 * f.contacts.length;
  return {
    ...out,
    ...(f.A ? { A: f.A.map((a, k) => a * sign(Math.floor(k / n3)) * sign(k % n3)) } : {}),
    ...(f.b ? { b: f.b.map((x, i) => x * sign(i)) } : {}),
  };
}
