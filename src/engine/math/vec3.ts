/** Small fixed-size vector helpers. Vectors are plain `[x, y, z]` tuples outside hot loops. */
import { hypot3 } from './hypot.js';
export type Vec3 = readonly [number, number, number];

export const vec3 = (x: number, y: number, z: number): Vec3 => [x, y, z];
export const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const scale = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
export const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
export const norm = (a: Vec3): number => hypot3(a[0], a[1], a[2]);
export const normalize = (a: Vec3): Vec3 => {
  const l = norm(a);
  return l > 0 ? scale(a, 1 / l) : [0, 0, 0];
};

/**
 * Right-handed orthonormal tangent basis (t1, t2) for a unit normal n with t1 × t2 = n
 * (docs/physics.md "Conventions"). t1 is built from the world axis least aligned with n.
 */
export function tangentBasis(n: Vec3): [Vec3, Vec3] {
  const ax = Math.abs(n[0]),
    ay = Math.abs(n[1]),
    az = Math.abs(n[2]);
  // helper h (a world axis), t1 = normalize(h − (h·n) n), written out with the operations of dot, scale,
  // sub and normalize in their order (same doubles, 2 arrays per call instead of 7: once per contact per step)
  const h0 = ax <= ay && ax <= az ? 1 : 0,
    h1 = h0 === 0 && ay <= az ? 1 : 0,
    h2 = h0 === 0 && h1 === 0 ? 1 : 0;
  const d = h0 * n[0] + h1 * n[1] + h2 * n[2];
  const u0 = h0 - n[0] * d,
    u1 = h1 - n[1] * d,
    u2 = h2 - n[2] * d;
  const l = hypot3(u0, u1, u2);
  const s = 1 / l;
  const t1: Vec3 = l > 0 ? [u0 * s, u1 * s, u2 * s] : [0, 0, 0];
  const t2 = cross(n, t1); // n × t1 = t2  ⇔  t1 × t2 = n for an orthonormal right-handed frame
  return [t1, t2];
}
