import type { Vec3 } from './vec3.js';

/** 3×3 matrix, row-major, 9 numbers. */
export type Mat3 = readonly [number, number, number, number, number, number, number, number, number];

export const ZERO3: Mat3 = [0, 0, 0, 0, 0, 0, 0, 0, 0];
export const diag3 = (x: number, y: number, z: number): Mat3 => [x, 0, 0, 0, y, 0, 0, 0, z];

export function mul(a: Mat3, b: Mat3): Mat3 {
  const r = new Array<number>(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    }
  }
  return r as unknown as Mat3;
}

export const transpose = (m: Mat3): Mat3 => [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]];

/** R D Rᵀ for a diagonal D — the world inverse inertia I⁻¹_w = R I⁻¹_b Rᵀ (docs/physics.md "Conventions"). */
export function rotateDiagonal(r: Mat3, d: Vec3): Mat3 {
  const rd: Mat3 = [r[0] * d[0], r[1] * d[1], r[2] * d[2], r[3] * d[0], r[4] * d[1], r[5] * d[2], r[6] * d[0], r[7] * d[1], r[8] * d[2]];
  return mul(rd, transpose(r));
}
