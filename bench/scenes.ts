/**
 * Deterministic physical contact scenes for the solver benchmark (bench/solvers.ts).
 * Every scene is a set of 1 m boxes resting on the static ground (body −1) or on each other, with
 * 4 corner contacts per support (1 contact for the single box), assembled with `assembleProblem`.
 * Randomness comes from a fixed-seed LCG, never Math.random, so every run benchmarks the same A, b.
 */
import type { BodyState, ContactPoint, ContactProblem } from '../src/engine/problem.js';
import { assembleProblem, type AssemblyOptions } from '../src/engine/assembly.js';
import { tangentBasis, type Vec3 } from '../src/engine/math/vec3.js';
import { rotateDiagonal } from '../src/engine/math/mat3.js';
import { quatFromAxisAngle, quatToMat3, rotate, type Quat } from '../src/engine/math/quat.js';

export const BENCH_DT = 1 / 60;
export const GRAVITY = 9.81;
/** Half the edge of the 1 m cube. */
const HALF = 0.5;
const MU = 0.5;
const UP: Vec3 = [0, 0, 1];
/** Largest penetration of a contact (m). */
const MAX_PENETRATION = 0.002;
/**
 * Largest horizontal pre-solve speed per axis (m/s). Friction can remove at most μ·g·Δt ≈ 0.082 m/s
 * per step from a box resting on a fixed support, so at ±0.05 m/s every contact sticks; ±0.1 m/s makes
 * a part of them slide (stack-3 and grid-50; the 12-box tower is loaded enough to stick anyway).
 */
const MAX_SLIDE_SPEED = 0.1;
/** Largest yaw of a box (rad), ≈ 5.7°. */
const MAX_YAW = 0.1;
/** Largest horizontal offset of a box from the one below (m). */
const MAX_OFFSET = 0.02;

export const BENCH_ASSEMBLY: AssemblyOptions = {
  dt: BENCH_DT,
  erp: 0.2,
  slop: 0.005,
  baumgarte: true,
  restVelocityThreshold: 0.5,
  regularization: 1e-10,
};

export interface BenchScene {
  readonly name: string;
  readonly problem: ContactProblem;
}

/** Uniform numbers in [0, 1) from a 32-bit LCG (Numerical Recipes constants). */
export type Rng = () => number;

export function lcg(seed: number): Rng {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

export const uniform = (rng: Rng, lo: number, hi: number): number => lo + (hi - lo) * rng();

/** Bodies and contacts of a scene under construction. */
interface SceneBuilder {
  readonly bodies: BodyState[];
  readonly contacts: ContactPoint[];
  readonly rng: Rng;
}

const newBuilder = (seed: number): SceneBuilder => ({ bodies: [], contacts: [], rng: lcg(seed) });

/** A box of the given mass (solid 1 m cube: I = m·(s² + s²)/12 on every axis). */
function boxBody(mass: number, x: Vec3, q: Quat, v: Vec3): BodyState {
  const inertia = (mass * (2 * HALF) * (2 * HALF) * 2) / 12;
  const invInertiaWorld = rotateDiagonal(quatToMat3(q), [1 / inertia, 1 / inertia, 1 / inertia]);
  return { invMass: 1 / mass, invInertiaWorld, x, v, omega: [0, 0, 0] };
}

/** Contact with normal +z from b (below) into a (above). */
function upContact(a: number, b: number, point: Vec3, penetration: number): ContactPoint {
  const [t1, t2] = tangentBasis(UP);
  return { bodyA: a, bodyB: b, point, normal: UP, t1, t2, mu: MU, restitution: 0, penetration };
}

/** Body-frame offsets of the 4 bottom corners. */
const cornerOffsets = (): Vec3[] => [
  [-HALF, -HALF, -HALF],
  [HALF, -HALF, -HALF],
  [HALF, HALF, -HALF],
  [-HALF, HALF, -HALF],
];

/** Pre-solve velocity: gravity over one step plus a small random horizontal slide. */
function fallingVelocity(rng: Rng): Vec3 {
  return [uniform(rng, -MAX_SLIDE_SPEED, MAX_SLIDE_SPEED), uniform(rng, -MAX_SLIDE_SPEED, MAX_SLIDE_SPEED), -GRAVITY * BENCH_DT];
}

/**
 * Puts a slightly yawed, slightly offset box on top of `below` (−1: the ground), whose supporting
 * plane is at height `supportZ` and centred at `centre`, with 4 contacts at the new box's bottom
 * corners. Returns the new body's index and its top height.
 */
function placeBox(s: SceneBuilder, below: number, centre: readonly [number, number], supportZ: number): { index: number; topZ: number } {
  const { rng } = s;
  const mass = uniform(rng, 1, 10);
  const q = quatFromAxisAngle(UP, uniform(rng, -MAX_YAW, MAX_YAW));
  const pens = [0, 1, 2, 3].map(() => uniform(rng, 0, MAX_PENETRATION));
  const depth = pens.reduce((acc, d) => acc + d, 0) / pens.length;
  const x: Vec3 = [centre[0] + uniform(rng, -MAX_OFFSET, MAX_OFFSET), centre[1] + uniform(rng, -MAX_OFFSET, MAX_OFFSET), supportZ + HALF - depth];
  const index = s.bodies.length;
  s.bodies.push(boxBody(mass, x, q, fallingVelocity(rng)));
  cornerOffsets().forEach((local, k) => {
    const r = rotate(q, local);
    // The corner in the middle of the overlap of the two surfaces.
    const point: Vec3 = [x[0] + r[0], x[1] + r[1], supportZ - pens[k] / 2];
    s.contacts.push(upContact(index, below, point, pens[k]));
  });
  return { index, topZ: x[2] + HALF };
}

/** Tower of k boxes, the lowest one on the ground: C = 4k. */
function stackScene(k: number, seed: number): SceneBuilder {
  const s = newBuilder(seed);
  let below = -1,
    supportZ = 0;
  for (let i = 0; i < k; i++) {
    const placed = placeBox(s, below, [0, 0], supportZ);
    below = placed.index;
    supportZ = placed.topZ;
  }
  return s;
}

/**
 * `cols × rows` boxes on the ground 2 m apart; every `stackEvery`-th one carries a second box.
 * 8 × 5 with stackEvery = 4: 40 boxes on the ground + 10 on top = 50 boxes, C = 200.
 */
function gridScene(cols: number, rows: number, stackEvery: number, seed: number): SceneBuilder {
  const s = newBuilder(seed);
  for (let i = 0; i < cols * rows; i++) {
    const centre: [number, number] = [2 * (i % cols), 2 * Math.floor(i / cols)];
    const ground = placeBox(s, -1, centre, 0);
    if (i % stackEvery === 0) placeBox(s, ground.index, centre, ground.topZ);
  }
  return s;
}

/** One box resting on the ground, one contact at the bottom centre, falling at −gΔt. */
function boxOnGroundScene(): SceneBuilder {
  const s = newBuilder(1);
  const penetration = 0.001;
  s.bodies.push(boxBody(1, [0, 0, HALF - penetration], [1, 0, 0, 0], [0, 0, -GRAVITY * BENCH_DT]));
  s.contacts.push(upContact(0, -1, [0, 0, -penetration / 2], penetration));
  return s;
}

function toScene(base: string, s: SceneBuilder): BenchScene {
  const problem = assembleProblem(s.bodies, s.contacts, BENCH_ASSEMBLY);
  return { name: `${base} (C=${problem.contactCount})`, problem };
}

/** The benchmark's scenes, C = 1, 12, 48, 200. */
export function benchScenes(): BenchScene[] {
  return [
    toScene('box-on-ground', boxOnGroundScene()),
    toScene('stack-3', stackScene(3, 3)),
    toScene('stack-12', stackScene(12, 12)),
    toScene('grid-50', gridScene(8, 5, 4, 50)),
  ];
}
