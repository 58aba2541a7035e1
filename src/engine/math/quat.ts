import type { Mat3 } from './mat3.js';
import type { Vec3 } from './vec3.js';
import { hypot4 } from './hypot.js';

/** Unit quaternion `[w, x, y, z]`, mapping body → world (docs/physics.md "Conventions"). */
export type Quat = readonly [number, number, number, number];

export const IDENTITY_QUAT: Quat = [1, 0, 0, 0];

export function normalizeQuat(q: Quat): Quat {
  return normalizedQuat(q[0], q[1], q[2], q[3]);
}

/** (w, x, y, z) / ‖(w, x, y, z)‖, the identity for a zero or non-finite norm (hypot4: Math.hypot's double, no scratch array). */
export function normalizedQuat(w: number, x: number, y: number, z: number): Quat {
  const l = hypot4(w, x, y, z);
  if (!(l > 0)) return IDENTITY_QUAT;
  return [w / l, x / l, y / l, z / l];
}

export function mulQuat(a: Quat, b: Quat): Quat {
  return [
    a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
    a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
    a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
  ];
}

/** Rotation matrix of a unit quaternion (row-major). */
export function quatToMat3(q: Quat): Mat3 {
  return quatComponentsToMat3(q[0], q[1], q[2], q[3]); // indexed: called per body per step
}

/** quatToMat3 of the quaternion (w, x, y, z) given as numbers (no quaternion array to build first). */
export function quatComponentsToMat3(w: number, x: number, y: number, z: number): Mat3 {
  return [
    1 - 2 * (y * y + z * z),
    2 * (x * y - w * z),
    2 * (x * z + w * y),
    2 * (x * y + w * z),
    1 - 2 * (x * x + z * z),
    2 * (y * z - w * x),
    2 * (x * z - w * y),
    2 * (y * z + w * x),
    1 - 2 * (x * x + y * y),
  ];
}

export function rotate(q: Quat, v: Vec3): Vec3 {
  const m = quatToMat3(q);
  return [m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2], m[6] * v[0] + m[7] * v[1] + m[8] * v[2]];
}

/** Quaternion from axis (any length > 0) and angle in radians. */
export function quatFromAxisAngle(axis: Vec3, angle: number): Quat {
  const l = Math.hypot(axis[0], axis[1], axis[2]);
  const s = Math.sin(angle / 2) / l;
  return [Math.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s];
}
