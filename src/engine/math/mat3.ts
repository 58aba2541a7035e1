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

/** a·bᵀ: the sums of mul(a, transpose(b)) in the same order, without the transposed copy. */
export function mulTransposed(a: Mat3, b: Mat3): Mat3 {
  const r = new Array<number>(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      r[3 * i + j] = a[3 * i] * b[3 * j] + a[3 * i + 1] * b[3 * j + 1] + a[3 * i + 2] * b[3 * j + 2];
    }
  }
  return r as unknown as Mat3;
}

/** R D Rᵀ for a diagonal D — the world inverse inertia I⁻¹_w = R I⁻¹_b Rᵀ (docs/physics.md "Conventions"). */
/** R D Rᵀ for a diagonal D: the sums of mul(R D, Rᵀ) in the same order, written out (one array instead of four). */
export function rotateDiagonal(r: Mat3, d: Vec3): Mat3 {
  const a0 = r[0] * d[0],
    a1 = r[1] * d[1],
    a2 = r[2] * d[2],
    a3 = r[3] * d[0],
    a4 = r[4] * d[1],
    a5 = r[5] * d[2],
    a6 = r[6] * d[0],
    a7 = r[7] * d[1],
    a8 = r[8] * d[2];
  return [
    a0 * r[0] + a1 * r[1] + a2 * r[2],
    a0 * r[3] + a1 * r[4] + a2 * r[5],
    a0 * r[6] + a1 * r[7] + a2 * r[8],
    a3 * r[0] + a4 * r[1] + a5 * r[2],
    a3 * r[3] + a4 * r[4] + a5 * r[5],
    a3 * r[6] + a4 * r[7] + a5 * r[8],
    a6 * r[0] + a7 * r[1] + a8 * r[2],
    a6 * r[3] + a7 * r[4] + a8 * r[5],
    a6 * r[6] + a7 * r[7] + a8 * r[8],
  ];
}
