/** Small builders shared by the unit tests. */
import { makeProblem, type BodyState, type ContactPoint, type ContactProblem } from '../../src/engine/problem.js';
import { diag3, ZERO3 } from '../../src/engine/math/mat3.js';
import { tangentBasis, type Vec3 } from '../../src/engine/math/vec3.js';

export function body(mass: number, inertiaDiag: number, x: Vec3, v: Vec3 = [0, 0, 0], omega: Vec3 = [0, 0, 0]): BodyState {
  return { invMass: 1 / mass, invInertiaWorld: diag3(1 / inertiaDiag, 1 / inertiaDiag, 1 / inertiaDiag), x, v, omega };
}

export function staticBody(x: Vec3 = [0, 0, 0]): BodyState {
  return { invMass: 0, invInertiaWorld: ZERO3, x, v: [0, 0, 0], omega: [0, 0, 0] };
}

export function contact(bodyA: number, bodyB: number, point: Vec3, normal: Vec3, mu = 0, restitution = 0, penetration = 0): ContactPoint {
  const [t1, t2] = tangentBasis(normal);
  return { bodyA, bodyB, point, normal, t1, t2, mu, restitution, penetration };
}

/** A = a·I₃ per contact (+ optional coupling), the friction-cone examples' "contact at CoM" matrices (seeds.test.ts). */
export function diagonalProblem(a: number, b: number[], mu: number[], eps = 1e-10): ContactProblem {
  const n = b.length;
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) A[i * n + i] = a + eps;
  return makeProblem({ A, b, mu, regularization: eps });
}

export function close(actual: number, expected: number, tol: number, what = ''): void {
  if (!(Math.abs(actual - expected) <= tol)) {
    throw new Error(`${what} expected ${expected} ± ${tol}, got ${actual} (off by ${Math.abs(actual - expected).toExponential(3)})`);
  }
}

export function allFiniteArr(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}

/** A stack of `levels` boxes on the ground, four corner contacts per face, offsets and overlaps varied per level. */
export function cornerStack(levels: number, mu = 0.5): { bodies: BodyState[]; contacts: ContactPoint[] } {
  const bodies = [staticBody()];
  const contacts: ContactPoint[] = [];
  for (let k = 0; k < levels; k++) {
    bodies.push(body(1 + k, (1 + k) / 6, [0.01 * k, 0, 0.5 + k], [0.05 * (k % 2), 0, -0.2]));
    for (const [x, y] of [
      [-0.5, -0.5],
      [0.5, -0.5],
      [0.5, 0.5],
      [-0.5, 0.5],
    ])
      contacts.push(contact(k + 1, k, [x + 0.01 * k, y, k], [0, 0, 1], mu, 0, 0.001 * (k % 3)));
  }
  return { bodies, contacts };
}
