/**
 * A synthetic Kapla tower for bench:fclib's scaling check: layers of two wooden planks (120 × 24 × 8 mm, 16 g),
 * each layer turned 90° and resting across the two planks below; every crossing touches on the four corners of
 * its 24 × 24 mm patch, the first layer on the ground by the four corners of each plank. 36 layers give
 * 8 + 35·16 = 568 contacts (1704 unknowns), the size of the Kapla tower of Siconos's test problems (570 contacts,
 * 1710 × 1710). One step under gravity, assembled by our engine (W = J M⁻¹ Jᵀ: symmetric, rank ≤ 6 per plank, so
 * most contact rows are redundant, as in the real tower). Deterministic.
 */
import { assembleProblem } from '../src/engine/assembly.js';
import { rotateDiagonal } from '../src/engine/math/mat3.js';
import { quatFromAxisAngle, quatToMat3 } from '../src/engine/math/quat.js';
import { tangentBasis, type Vec3 } from '../src/engine/math/vec3.js';
import type { BodyState, ContactPoint, ContactProblem } from '../src/engine/problem.js';
import { BENCH_ASSEMBLY, BENCH_DT, GRAVITY, lcg, uniform } from './scenes.js';

const LENGTH = 0.12,
  WIDTH = 0.024,
  THICK = 0.008,
  MASS = 0.016;
/** The two planks of a layer sit this far from the tower's axis (their centres). */
const OFFSET = 0.04;
const UP: Vec3 = [0, 0, 1];
const MU = 0.6;

/** The tower with `layers` layers (568 contacts for 36), assembled (A, b, μ). */
export function kaplaTower(layers = 36): { readonly id: string; readonly problem: ContactProblem } {
  const { bodies, contacts } = kaplaTowerScene(layers);
  const problem = assembleProblem(bodies, contacts, BENCH_ASSEMBLY);
  return { id: `KaplaTower-synthetic-${problem.contactCount}`, problem };
}

/** The tower's bodies and contact points (for Jacobians: assembleJacobians with BENCH_ASSEMBLY). */
export function kaplaTowerScene(layers = 36): { readonly bodies: BodyState[]; readonly contacts: ContactPoint[] } {
  const rng = lcg(570);
  const [t1, t2] = tangentBasis(UP);
  const bodies: BodyState[] = [];
  const contacts: ContactPoint[] = [];
  const inertia: Vec3 = [(MASS * (WIDTH ** 2 + THICK ** 2)) / 12, (MASS * (LENGTH ** 2 + THICK ** 2)) / 12, (MASS * (LENGTH ** 2 + WIDTH ** 2)) / 12];
  const contact = (a: number, b: number, x: number, y: number, z: number): void => {
    const pen = uniform(rng, 0, 0.0005);
    contacts.push({ bodyA: a, bodyB: b, point: [x, y, z - pen / 2], normal: UP, t1, t2, mu: MU, restitution: 0, penetration: pen });
  };
  for (let k = 0; k < layers; k++) {
    const alongX = k % 2 === 0; // the planks' long axis
    const z = (k + 0.5) * THICK;
    for (let s = -1; s <= 1; s += 2) {
      const i = bodies.length;
      const centre: Vec3 = alongX ? [0, s * OFFSET, z] : [s * OFFSET, 0, z];
      const R = quatToMat3(quatFromAxisAngle(UP, alongX ? 0 : Math.PI / 2));
      bodies.push({
        invMass: 1 / MASS,
        invInertiaWorld: rotateDiagonal(R, [1 / inertia[0], 1 / inertia[1], 1 / inertia[2]]),
        x: centre,
        v: [uniform(rng, -1e-3, 1e-3), uniform(rng, -1e-3, 1e-3), -GRAVITY * BENCH_DT],
        omega: [0, 0, 0],
      });
      const bottom = z - THICK / 2;
      if (k === 0) {
        for (const [dx, dy] of [
          [-1, -1],
          [1, -1],
          [1, 1],
          [-1, 1],
        ])
          contact(i, -1, centre[0] + (dx * LENGTH) / 2, centre[1] + (dy * WIDTH) / 2, bottom);
        continue;
      }
      // across the two planks of the layer below (bodies i − 2 + … : the previous layer's two planks)
      const below = bodies.length - 1 - (s === -1 ? 2 : 3);
      for (let t = 0; t < 2; t++) {
        const other = below + t;
        const o = bodies[other].x;
        const cx = alongX ? o[0] : centre[0],
          cy = alongX ? centre[1] : o[1];
        for (const [dx, dy] of [
          [-1, -1],
          [1, -1],
          [1, 1],
          [-1, 1],
        ])
          contact(i, other, cx + (dx * WIDTH) / 2, cy + (dy * WIDTH) / 2, bottom);
      }
    }
  }
  return { bodies, contacts };
}
