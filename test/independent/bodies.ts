// Rigid bodies of the independent stepper: shapes, mass properties, world inverse inertia, energies.
// Solid-body inertias are the textbook ones (sphere 2/5·m·r², box m/3·(b² + c²) for half extents).

import { copy3, copy4, dot, type Mat3, matVec, type Quat, rotateDiagonal, type Vec3 } from './vec.js';

export type Shape =
  | { kind: 'sphere'; radius: number }
  | { kind: 'box'; half: Vec3 }
  /** The static half-space {x : n·x ≤ offset}. */
  | { kind: 'plane'; normal: Vec3; offset: number };

export interface Material {
  mu: number;
  e: number;
}

export interface Body {
  name: string;
  shape: Shape;
  /** null for the static ground. */
  mass: number | null;
  /** body-frame principal moments, null when static */
  inertia: Vec3 | null;
  material: Material;
  x: Vec3;
  q: Quat;
  v: Vec3;
  w: Vec3;
}

export interface BodyState {
  x: Vec3;
  q: Quat;
  v: Vec3;
  w: Vec3;
}

export const IDENTITY: Quat = [1, 0, 0, 0];
const ZERO: Vec3 = [0, 0, 0];

export function ground(material: Material): Body {
  return {
    name: 'ground',
    shape: { kind: 'plane', normal: [0, 0, 1], offset: 0 },
    mass: null,
    inertia: null,
    material,
    x: copy3(ZERO),
    q: copy4(IDENTITY),
    v: copy3(ZERO),
    w: copy3(ZERO),
  };
}

export function sphere(name: string, radius: number, mass: number, x: Vec3, material: Material, v: Vec3 = [0, 0, 0]): Body {
  const i = 0.4 * mass * radius * radius;
  return { name, shape: { kind: 'sphere', radius }, mass, inertia: [i, i, i], material, x: copy3(x), q: copy4(IDENTITY), v: copy3(v), w: copy3(ZERO) };
}

export function box(name: string, half: Vec3, mass: number, x: Vec3, material: Material, v: Vec3 = [0, 0, 0]): Body {
  const [a, b, c] = half;
  const inertia: Vec3 = [(mass / 3) * (b * b + c * c), (mass / 3) * (a * a + c * c), (mass / 3) * (a * a + b * b)];
  return { name, shape: { kind: 'box', half: copy3(half) }, mass, inertia, material, x: copy3(x), q: copy4(IDENTITY), v: copy3(v), w: copy3(ZERO) };
}

export const invMass = (b: Body): number => (b.mass === null ? 0 : 1 / b.mass);

/** I⁻¹_w = R I⁻¹_b Rᵀ (zero for the static body). */
export function invInertiaWorld(b: Body, q: Quat = b.q): Mat3 {
  if (b.inertia === null) return [0, 0, 0, 0, 0, 0, 0, 0, 0];
  return rotateDiagonal(q, [1 / b.inertia[0], 1 / b.inertia[1], 1 / b.inertia[2]]);
}

export function inertiaWorld(b: Body): Mat3 {
  if (b.inertia === null) return [0, 0, 0, 0, 0, 0, 0, 0, 0];
  return rotateDiagonal(b.q, b.inertia);
}

export function kineticEnergy(b: Body): number {
  if (b.mass === null) return 0;
  return 0.5 * b.mass * dot(b.v, b.v) + 0.5 * dot(b.w, matVec(inertiaWorld(b), b.w));
}

/** Potential energy −m g·x (zero at the origin). */
export function potentialEnergy(b: Body, g: Vec3): number {
  return b.mass === null ? 0 : -b.mass * dot(g, b.x);
}

export function totalEnergy(bodies: readonly Body[], g: Vec3): { kinetic: number; potential: number; total: number } {
  let kinetic = 0;
  let potential = 0;
  for (const b of bodies) {
    kinetic += kineticEnergy(b);
    potential += potentialEnergy(b, g);
  }
  return { kinetic, potential, total: kinetic + potential };
}

export function stateOf(b: Body): BodyState {
  return { x: copy3(b.x), q: copy4(b.q), v: copy3(b.v), w: copy3(b.w) };
}

export function cloneBody(b: Body): Body {
  return {
    ...b,
    shape: b.shape,
    inertia: b.inertia ? copy3(b.inertia) : null,
    material: { ...b.material },
    x: copy3(b.x),
    q: copy4(b.q),
    v: copy3(b.v),
    w: copy3(b.w),
  };
}
