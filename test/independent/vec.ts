// Small 3-vector, quaternion and 3×3 helpers for the independent stepper (plain arrays: the runs are
// tiny, clarity beats speed here). Quaternions are [w, x, y, z], rotating body → world.

export type Vec3 = [number, number, number];
export type Quat = [number, number, number, number];
/** 3×3 matrix, row-major. */
export type Mat3 = [number, number, number, number, number, number, number, number, number];

export const vec = (x: number, y: number, z: number): Vec3 => [x, y, z];
export const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const scale = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
export const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
export const norm = (a: Vec3): number => Math.sqrt(dot(a, a));
export const normalize = (a: Vec3): Vec3 => scale(a, 1 / norm(a));
export const neg = (a: Vec3): Vec3 => [-a[0], -a[1], -a[2]];
export const copy3 = (a: Vec3): Vec3 => [a[0], a[1], a[2]];
export const copy4 = (q: Quat): Quat => [q[0], q[1], q[2], q[3]];

/** Hamilton product p ⊗ q. */
export function quatMul(p: Quat, q: Quat): Quat {
  return [
    p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
    p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
    p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
    p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0],
  ];
}

export const quatConj = (q: Quat): Quat => [q[0], -q[1], -q[2], -q[3]];

export function quatNormalize(q: Quat): Quat {
  const n = Math.hypot(q[0], q[1], q[2], q[3]);
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}

/** Rotation matrix R(q) (body → world). */
export function quatToMat(q: Quat): Mat3 {
  const [w, x, y, z] = q;
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

export const matVec = (m: Mat3, v: Vec3): Vec3 => [
  m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
  m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
  m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
];

export const matTVec = (m: Mat3, v: Vec3): Vec3 => [
  m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
  m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
  m[2] * v[0] + m[5] * v[1] + m[8] * v[2],
];

export const rotate = (q: Quat, v: Vec3): Vec3 => matVec(quatToMat(q), v);

/** R · diag(d) · Rᵀ (the world-frame form of a body-frame diagonal tensor). */
export function rotateDiagonal(q: Quat, d: Vec3): Mat3 {
  const r = quatToMat(q);
  const out = [0, 0, 0, 0, 0, 0, 0, 0, 0] as Mat3;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += r[3 * i + k] * d[k] * r[3 * j + k];
      out[3 * i + j] = s;
    }
  }
  return out;
}

/** Semi-implicit orientation update q ← normalise(q + ½h·[0, ω] ⊗ q), ω in world coordinates. */
export function integrateQuat(q: Quat, w: Vec3, h: number): Quat {
  const dq = quatMul([0, w[0], w[1], w[2]], q);
  return quatNormalize([q[0] + 0.5 * h * dq[0], q[1] + 0.5 * h * dq[1], q[2] + 0.5 * h * dq[2], q[3] + 0.5 * h * dq[3]]);
}

/** Unit tangents (t1, t2) of a unit normal n with t1 × t2 = n (t2 = n × t1). */
export function tangents(n: Vec3): [Vec3, Vec3] {
  const axis: Vec3 = Math.abs(n[0]) < 0.57 ? [1, 0, 0] : Math.abs(n[1]) < 0.57 ? [0, 1, 0] : [0, 0, 1];
  // t1 = the axis with its n-component removed
  const t1 = normalize(sub(axis, scale(n, dot(axis, n))));
  return [t1, cross(n, t1)];
}
