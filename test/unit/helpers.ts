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

/** A = a·I₃ per contact (+ optional coupling), the seed 002 M8 examples' "contact at CoM" matrices. */
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
