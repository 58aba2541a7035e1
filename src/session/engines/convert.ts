/**
 * Conversions from an engine's conventions to ours (docs/recording-format.md "Conventions"): z-up, quaternions
 * [w, x, y, z] body → world, normal from b into a, t1 × t2 = n, λ in N·s per step.
 *   y-up → z-up: (x, y, z) ↦ (x, −z, y); orientation q ↦ r ⊗ q with r = (cos 45°, sin 45°, 0, 0), the
 *   rotation by +90° about x that carries +y onto +z (the format's documented mapping).
 */
import { cross, dot, normalize, tangentBasis, type Vec3 } from '../../engine/index.js';
import { mulQuat, type Quat } from '../../engine/index.js';
import type { RecordedBodyState, RecordedPreState } from '../../format/recording.js';
import type { EngineBody } from './types.js';

const S = Math.SQRT1_2;
/** Rotation carrying y-up world coordinates onto z-up ones (+90° about x). */
const Y_TO_Z: Quat = [S, S, 0, 0];
const Z_TO_Y: Quat = [S, -S, 0, 0];

/** A y-up vector (position, velocity, ω, normal, point, gravity) in z-up coordinates. */
export const yUpToZUp = (v: Vec3): Vec3 => [v[0], -v[2], v[1]];
/** The inverse: our z-up vector in an engine's y-up coordinates. */
export const zUpToYUp = (v: Vec3): Vec3 => [v[0], v[2], -v[1]];
/** A y-up orientation [w, x, y, z] in z-up coordinates (body-frame data do not change). */
export const yUpQuatToZUp = (q: Quat): Quat => mulQuat(Y_TO_Z, q);
export const zUpQuatToYUp = (q: Quat): Quat => mulQuat(Z_TO_Y, q);

/** [x, y, z, w] storage (cannon-es, Jolt, Three.js) → ours [w, x, y, z]. */
export const xyzwToWxyz = (x: number, y: number, z: number, w: number): Quat => [w, x, y, z];

/**
 * Our right-handed contact frame from an engine's normal and first tangent (t1 re-orthogonalised against
 * n; t2 = n × t1 so that t1 × t2 = n). Without a usable tangent: tangentBasis(n), the project's own.
 */
export function contactFrame(n: Vec3, t1Hint?: Vec3): { n: Vec3; t1: Vec3; t2: Vec3 } {
  const nn = normalize(n);
  if (t1Hint) {
    const d = dot(t1Hint, nn);
    const t: Vec3 = [t1Hint[0] - d * nn[0], t1Hint[1] - d * nn[1], t1Hint[2] - d * nn[2]];
    if (Math.hypot(t[0], t[1], t[2]) > 1e-6) {
      const t1 = normalize(t);
      return { n: nn, t1, t2: cross(nn, t1) };
    }
  }
  const [t1, t2] = tangentBasis(nn);
  return { n: nn, t1, t2 };
}

/** The impulse vector Σ λ_k d_k (world, N·s) written in our frame (n, t1, t2) as (λn, λt1, λt2). */
export function impulseInFrame(p: Vec3, f: { n: Vec3; t1: Vec3; t2: Vec3 }): [number, number, number] {
  return [dot(p, f.n), dot(p, f.t1), dot(p, f.t2)];
}

/** A static body's recorded state: where the scene put it, at rest (engines keep planes in their own frames). */
export const staticState = (b: EngineBody): RecordedBodyState => ({ x: b.x, q: b.q, v: [0, 0, 0], w: [0, 0, 0] });

/**
 * The velocities every engine here solves its contacts from: v_prev + Δt·g at the previous pose (they add
 * gravity to v, then solve at the start-of-step pose); static bodies as they are.
 */
export function preFromBefore(before: readonly RecordedBodyState[], bodies: readonly EngineBody[], dt: number, g: Vec3): RecordedPreState[] {
  return before.map((s, i) => (bodies[i].static ? s : { ...s, v: [s.v[0] + dt * g[0], s.v[1] + dt * g[1], s.v[2] + dt * g[2]] }));
}
