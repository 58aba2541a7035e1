/**
 * Generated box stacks for the solver convergence benchmark (bench/oracle.ts) and tests: the hard cases of
 * the exact solvers — towers of 1 m boxes up to 60 contacts, masses log-uniform over 4 decades (mass ratio up to
 * 1e4), duplicated corner contacts (A exactly singular), frictionless variants. Each instance comes as two
 * consecutive "frames": the second has slightly different velocities and penetrations, so the first
 * frame's λ is the warm start a world step would use. Deterministic (fixed-seed LCG, bench/scenes.ts).
 */
import type { BodyState, ContactPoint, ContactProblem } from '../src/engine/problem.js';
import { assembleProblem } from '../src/engine/assembly.js';
import { tangentBasis, type Vec3 } from '../src/engine/math/vec3.js';
import { rotateDiagonal } from '../src/engine/math/mat3.js';
import { quatFromAxisAngle, quatToMat3, rotate } from '../src/engine/math/quat.js';
import { BENCH_ASSEMBLY, BENCH_DT, GRAVITY, lcg, uniform, type Rng } from './scenes.js';

const HALF = 0.5;
const UP: Vec3 = [0, 0, 1];
/** Largest number of contacts of a generated stack. */
export const STACK_MAX_CONTACTS = 60;
/** Decades of mass spanned by a stack's boxes: ratio up to 1e4. */
const MASS_DECADES = 4;
/** Velocity and penetration change between the two frames (m/s, m). */
const FRAME_DV = 0.005,
  FRAME_DPEN = 0.0002;

export interface StackInstance {
  readonly id: string;
  /** The previous frame (its λ warm-starts `problem`). */
  readonly previous: ContactProblem;
  readonly problem: ContactProblem;
}

interface Box {
  readonly mass: number;
  readonly x: Vec3;
  readonly yaw: number;
  readonly v: Vec3;
  readonly pens: number[];
}

function bodyOf(b: Box, dv: Vec3): BodyState {
  const q = quatFromAxisAngle(UP, b.yaw);
  const inertia = (b.mass * (2 * HALF) * (2 * HALF) * 2) / 12; // solid cube: m(s² + s²)/12
  return {
    invMass: 1 / b.mass,
    invInertiaWorld: rotateDiagonal(quatToMat3(q), [1 / inertia, 1 / inertia, 1 / inertia]),
    x: b.x,
    v: [b.v[0] + dv[0], b.v[1] + dv[1], b.v[2] + dv[2]],
    omega: [0, 0, 0],
  };
}

/** Assembles one frame; `jitter` (null for the first frame) perturbs velocities and penetrations. */
function frame(boxes: readonly Box[], mu: number, duplicates: number, jitter: Rng | null): ContactProblem {
  const [t1, t2] = tangentBasis(UP);
  const bodies: BodyState[] = [];
  const contacts: ContactPoint[] = [];
  let supportZ = 0;
  boxes.forEach((b, i) => {
    const dv: Vec3 = jitter ? [uniform(jitter, -FRAME_DV, FRAME_DV), uniform(jitter, -FRAME_DV, FRAME_DV), uniform(jitter, -FRAME_DV, FRAME_DV)] : [0, 0, 0];
    bodies.push(bodyOf(b, dv));
    const q = quatFromAxisAngle(UP, b.yaw);
    const corners: Vec3[] = [
      [-HALF, -HALF, -HALF],
      [HALF, -HALF, -HALF],
      [HALF, HALF, -HALF],
      [-HALF, HALF, -HALF],
    ];
    corners.forEach((local, k) => {
      const r = rotate(q, local);
      const pen = Math.max(0, b.pens[k] + (jitter ? uniform(jitter, -FRAME_DPEN, FRAME_DPEN) : 0));
      const c: ContactPoint = {
        bodyA: i,
        bodyB: i - 1,
        point: [b.x[0] + r[0], b.x[1] + r[1], supportZ - pen / 2],
        normal: UP,
        t1,
        t2,
        mu,
        restitution: 0,
        penetration: pen,
      };
      contacts.push(c);
      if (k === 0 && i < duplicates) contacts.push({ ...c }); // the same corner reported twice (two features)
    });
    supportZ = b.x[2] + HALF;
  });
  return assembleProblem(bodies, contacts, BENCH_ASSEMBLY);
}

/**
 * The i-th generated stack: k = 1 + (i mod 15) boxes (C = 4k ≤ 60); every third instance duplicates one
 * corner contact per box (as many as fit under 60 contacts); every fourth is frictionless.
 */
export function generatedStack(i: number): StackInstance {
  const rng = lcg(1000 + i);
  const k = 1 + (i % 15);
  const dupWanted = i % 3 === 1;
  const duplicates = dupWanted ? Math.min(k, STACK_MAX_CONTACTS - 4 * k) : 0;
  const mu = i % 4 === 3 ? 0 : uniform(rng, 0.2, 1);
  const boxes: Box[] = [];
  let supportZ = 0;
  for (let j = 0; j < k; j++) {
    const mass = 10 ** (MASS_DECADES * rng());
    const pens = [0, 1, 2, 3].map(() => uniform(rng, 0, 0.002));
    const depth = pens.reduce((a, d) => a + d, 0) / 4;
    const x: Vec3 = [uniform(rng, -0.02, 0.02), uniform(rng, -0.02, 0.02), supportZ + HALF - depth];
    boxes.push({ mass, x, yaw: uniform(rng, -0.1, 0.1), v: [uniform(rng, -0.1, 0.1), uniform(rng, -0.1, 0.1), -GRAVITY * BENCH_DT], pens });
    supportZ = x[2] + HALF;
  }
  const previous = frame(boxes, mu, duplicates, null);
  const problem = frame(boxes, mu, duplicates, lcg(5000 + i));
  const tags = [`${k} boxes`, duplicates ? `${duplicates} duplicated` : '', mu === 0 ? 'frictionless' : ''].filter(Boolean).join(', ');
  return { id: `stack-${i} (C=${problem.contactCount}: ${tags})`, previous, problem };
}

/** The generated corpus: 60 stacks. */
export function generatedStacks(count = 60): StackInstance[] {
  return Array.from({ length: count }, (_, i) => generatedStack(i));
}
