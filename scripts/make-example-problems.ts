/**
 * Writes the bundled example problems in examples/problems/ (run: npx tsx scripts/make-example-problems.ts).
 * Each is assembled by our engine from physical data, so `--from physical` rebuilds exactly the stored A, b.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { assembleProblem } from '../src/engine/assembly.js';
import { writeOracleInstance } from '../src/format/oracle.js';
import { rotateDiagonal } from '../src/engine/math/mat3.js';
import { quatFromAxisAngle, quatToMat3, rotate } from '../src/engine/math/quat.js';
import { tangentBasis, add, type Vec3 } from '../src/engine/math/vec3.js';
import type { BodyState, ContactPoint } from '../src/engine/problem.js';

const dt = 1 / 60,
  g = 9.81;
const ground: Vec3 = [0, 0, 1];

function box(
  mass: number,
  half: Vec3,
  x: Vec3,
  yaw: number,
  v: Vec3,
  omega: Vec3 = [0, 0, 0],
): BodyState & { q: ReturnType<typeof quatFromAxisAngle>; half: Vec3 } {
  const q = quatFromAxisAngle([0, 0, 1], yaw);
  const I: Vec3 = [(mass / 3) * (half[1] ** 2 + half[2] ** 2), (mass / 3) * (half[0] ** 2 + half[2] ** 2), (mass / 3) * (half[0] ** 2 + half[1] ** 2)];
  return { invMass: 1 / mass, invInertiaWorld: rotateDiagonal(quatToMat3(q), [1 / I[0], 1 / I[1], 1 / I[2]]), x, v, omega, q, half };
}

function bottomCorners(b: ReturnType<typeof box>): Vec3[] {
  const [hx, hy, hz] = b.half;
  const local: Vec3[] = [
    [-hx, -hy, -hz],
    [hx, -hy, -hz],
    [hx, hy, -hz],
    [-hx, hy, -hz],
  ];
  return local.map((c) => add(b.x, rotate(b.q, c)));
}

function contactsOn(a: number, bIndex: number, corners: Vec3[], mu: number, e: number, depth: number): ContactPoint[] {
  const [t1, t2] = tangentBasis(ground);
  return corners.map((point, k) => ({
    bodyA: a,
    bodyB: bIndex,
    point,
    normal: ground,
    t1,
    t2,
    mu,
    restitution: e,
    penetration: depth * (k % 2),
    featureId: `corner-${k}`,
  }));
}

mkdirSync('examples/problems', { recursive: true });

// A 2 kg box sliding on the ground (4 corners), with a 20 kg box resting on it: sliding, sticking and coupling.
const lower = box(2, [0.5, 0.5, 0.25], [0, 0, 0.25], 0.1, [0.8, 0.1, -g * dt], [0, 0, 0.2]);
const upper = box(20, [0.4, 0.4, 0.4], [0.05, 0, 0.9], 0.3, [0.75, 0.1, -2 * g * dt]);
const bodies = [lower, upper];
const contacts = [...contactsOn(0, -1, bottomCorners(lower), 0.3, 0, 0.002), ...contactsOn(1, 0, bottomCorners(upper), 0.6, 0, 0.001)];
const opts = { dt, erp: 0.2, baumgarte: true };
const p = assembleProblem(bodies, contacts, { ...opts, slop: 0, restVelocityThreshold: -Infinity, regularization: 1e-10 });
writeFileSync('examples/problems/two-box-stack.json', writeOracleInstance('two-box-stack', p, opts));
console.log(`wrote examples/problems/two-box-stack.json (${p.contactCount} contacts)`);
