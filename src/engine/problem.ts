/**
 * The contact problem of one island and one step: minimise ½λᵀAλ − bᵀλ over the product of
 * friction cones (docs/physics.md "The QP-SOCP and its KKT conditions"). λ uses the 3C layout (λn, λt1, λt2) per contact.
 */
import type { Vec3 } from './math/vec3.js';
import type { Mat3 } from './math/mat3.js';
import { allFinite, asymmetry } from './math/dense.js';

/** Body data the assembly needs. Static bodies: invMass = 0 and invInertiaWorld = 0 (docs/physics.md "Conventions"). */
export interface BodyState {
  readonly invMass: number;
  /** World-frame inverse inertia I⁻¹_w = R I⁻¹_b Rᵀ, row-major. */
  readonly invInertiaWorld: Mat3;
  /** Centre of mass (world). */
  readonly x: Vec3;
  readonly v: Vec3;
  readonly omega: Vec3;
}

/** A contact point joining body a and body b (b = −1: static world). n points from b into a. */
export interface ContactPoint {
  readonly bodyA: number;
  readonly bodyB: number;
  readonly point: Vec3;
  readonly normal: Vec3;
  readonly t1: Vec3;
  readonly t2: Vec3;
  readonly mu: number;
  /** Combined restitution coefficient e ∈ [0, 1]. */
  readonly restitution: number;
  /** Penetration depth ≥ 0 (m). */
  readonly penetration: number;
  /**
   * Speculative contact (docs/physics.md "Speculative contacts"): the surfaces are still apart by this
   * distance (m, > 0; penetration is then 0), and the solver lets them approach by at most gap/Δt this
   * step. Absent or 0: touching or overlapping.
   */
  readonly gap?: number;
  /** Optional stable feature id, used to match contacts across frames. */
  readonly featureId?: string;
}

/**
 * b = velocity + restitution + bias + speculative (docs/physics.md "Contact model"):
 *   velocity    = −ġ⁻ on every row (b_t = −ġ_t⁻, and the "1" of −(1+e)ġ_n⁻),
 *   restitution = −e·ġ_n⁻ on normal rows (0 below the rest-velocity threshold and on tangent rows),
 *   bias        = (ERP/Δt)·max(0, depth − slop) on normal rows,
 *   speculative = −gap/Δt on the normal rows of speculative contacts (ġ_n⁺ ≥ −gap/Δt: approach by at
 *                 most the gap; Catto GDC 2013; they get no restitution term), 0 elsewhere.
 */
export interface RhsDecomposition {
  readonly velocity: Float64Array;
  readonly restitution: Float64Array;
  readonly bias: Float64Array;
  readonly speculative: Float64Array;
}

/** Per-contact data carried along with an assembled problem, for diagnostics. */
export interface ContactMeta {
  readonly contact: ContactPoint;
  /** Pre-solve gap rates J v⁻ along (n, t1, t2). */
  readonly gapRate: Vec3;
}

export interface ContactProblem {
  /** Number of contacts C. */
  readonly contactCount: number;
  /** Number of unknowns n = 3C. */
  readonly size: number;
  /**
   * A = J M⁻¹ Jᵀ (+ the regularisation below), n×n row-major, symmetric — unless `asGiven` is present:
   * then A is a file's matrix as its code wrote it (FCLIB's W), possibly slightly asymmetric or indefinite.
   */
  readonly A: Float64Array;
  readonly b: Float64Array;
  /** Friction coefficient per contact, μ ≥ 0. */
  readonly mu: Float64Array;
  /** Diagonal regularisation already contained in A (0 if none). */
  readonly regularization: number;
  /**
   * Present when A was taken as a file gave it (makeProblem with asGiven; FCLIB's W): real simulation codes
   * write W with a relative asymmetry up to ~1e-3 and eigenvalues down to ~−1e-8·λmax. Coulomb and PGS use
   * A as it is; the convex solvers (newton, ipm) solve with its symmetric part plus the smallest shift that
   * makes it positive semidefinite (solvers/convexify.ts) and say so.
   */
  readonly asGiven?: MatrixAsGiven;
  /** Present when assembled from physical data. */
  readonly contacts?: readonly ContactMeta[];
  readonly rhs?: RhsDecomposition;
  /** Jacobian blocks and body data, present when assembled from physical data. */
  readonly physics?: ProblemPhysics;
}

/**
 * An island assembled from physical data, short of its A: sizes, contacts and Jacobian blocks (a ContactProblem or
 * an assembly's ContactJacobians). What the analyses that read J rather than A take (the body-space Gram, the causes
 * of a rank deficiency).
 */
export type ProblemStructure = Pick<ContactProblem, 'contactCount' | 'size' | 'physics' | 'contacts'>;

/** What is needed to map λ back to body velocity changes Δv = M⁻¹ Jᵀ λ. */
export interface ProblemPhysics {
  readonly bodies: readonly BodyState[];
  /**
   * Per contact, the 3×6 Jacobian blocks for body a and body b (rows n, t1, t2; columns v, ω),
   * row-major, 18 numbers each; zero block when the body is static or −1.
   */
  readonly jacobianA: Float64Array;
  readonly jacobianB: Float64Array;
}

/** A problem failed validation; `field` names the offending input (e.g. `A[3][4]`, `mu[2]`). */
export class ProblemError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'ProblemError';
  }
}

/** Relative asymmetry of A tolerated by `makeProblem` (rounding of a JSON round trip is ~1e-16). */
export const SYMMETRY_TOLERANCE = 1e-12;

/**
 * Most contacts of a problem read from a file (JSON or FCLIB): our solvers hold A densely, (3C)² doubles —
 * 2000 contacts are 6000 unknowns, 288 MB — so a larger file is refused with this limit named.
 */
export const MAX_PROBLEM_CONTACTS = 2000;

export interface MatrixProblemInput {
  A: ArrayLike<number>;
  b: ArrayLike<number>;
  mu: ArrayLike<number>;
  regularization?: number;
  /**
   * Take A as given (a file written by another code, FCLIB): no symmetry or sign check; only finite entries
   * and consistent shapes are required, and the problem carries `asGiven`.
   */
  asGiven?: boolean;
}

/** How far a matrix taken as given is from the symmetric A = J M⁻¹ Jᵀ. */
export interface MatrixAsGiven {
  /** ‖A − Aᵀ‖_F / ‖A‖_F (0 for a symmetric A; 0 for the zero matrix). */
  readonly asymmetry: number;
}

/** ‖A − Aᵀ‖_F / ‖A‖_F of a finite n×n row-major A (0 for the zero matrix). */
export function relativeAsymmetry(A: ArrayLike<number>, n: number): number {
  let diff = 0,
    norm = 0;
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    norm += A[ri + i] * A[ri + i];
    for (let j = i + 1; j < n; j++) {
      const a = A[ri + j],
        t = A[j * n + i];
      norm += a * a + t * t;
      diff += 2 * (a - t) * (a - t);
    }
  }
  return norm > 0 ? Math.sqrt(diff / norm) : 0;
}

/** Validates and wraps (A, b, μ). Throws ProblemError naming the field on bad input. */
export function makeProblem(input: MatrixProblemInput): ContactProblem {
  const C = input.mu.length;
  const n = 3 * C;
  if (C === 0) throw new ProblemError('mu', 'at least one contact is required');
  if (input.b.length !== n) throw new ProblemError('b', `has ${input.b.length} entries, expected 3·C = ${n} (C = ${C} from mu)`);
  if (input.A.length !== n * n) throw new ProblemError('A', `has ${input.A.length} entries, expected (3C)² = ${n * n}`);
  checkFinite(input.A, 'A', n);
  checkFinite(input.b, 'b');
  for (let i = 0; i < C; i++) {
    const m = input.mu[i];
    if (!Number.isFinite(m)) throw new ProblemError(`mu[${i}]`, `is ${m}, expected a finite number ≥ 0`);
    if (m < 0) throw new ProblemError(`mu[${i}]`, `is ${m}; friction coefficients must be ≥ 0`);
  }
  const A = Float64Array.from(input.A);
  if (input.asGiven) {
    const asGiven: MatrixAsGiven = { asymmetry: relativeAsymmetry(A, n) };
    return { contactCount: C, size: n, A, b: Float64Array.from(input.b), mu: Float64Array.from(input.mu), regularization: input.regularization ?? 0, asGiven };
  }
  const { maxAsym, maxAbs, at } = asymmetry(A, n);
  if (maxAsym > SYMMETRY_TOLERANCE * Math.max(maxAbs, Number.MIN_VALUE)) {
    const [i, j] = at;
    throw new ProblemError(`A[${i}][${j}]`, `A is not symmetric: A[${i}][${j}] = ${A[i * n + j]} but A[${j}][${i}] = ${A[j * n + i]}`);
  }
  for (let i = 0; i < n; i++) {
    if (!(A[i * n + i] >= 0)) throw new ProblemError(`A[${i}][${i}]`, `diagonal entry ${A[i * n + i]} is negative; A = J M⁻¹ Jᵀ is positive semidefinite`);
  }
  return { contactCount: C, size: n, A, b: Float64Array.from(input.b), mu: Float64Array.from(input.mu), regularization: input.regularization ?? 0 };
}

/**
 * A = J M⁻¹ Jᵀ is positive semidefinite; A is accepted as such when the Cholesky factorisation of
 * A + δI succeeds with δ = PSD_RELATIVE_TOLERANCE · max diag A (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., §10.1: Cholesky runs to completion on a PSD matrix shifted by δ ≫ n·u·‖A‖).
 */
export const PSD_RELATIVE_TOLERANCE = 1e-9;

/**
 * Throws ProblemError(field) when A (n×n, symmetric, finite) has a negative eigenvalue below
 * −PSD_RELATIVE_TOLERANCE · max diag A: an indefinite A is bad input, not a solver failure. O(n³/3).
 */
export function checkPositiveSemidefinite(A: ArrayLike<number>, n: number, field = 'A'): void {
  let maxDiag = 0;
  for (let i = 0; i < n; i++) maxDiag = Math.max(maxDiag, A[i * n + i]);
  if (!(maxDiag > 0)) {
    for (let i = 0; i < n * n; i++)
      if (A[i] !== 0) throw new ProblemError(field, 'is not positive semidefinite: its diagonal is zero but an off-diagonal entry is not');
    return;
  }
  const shift = PSD_RELATIVE_TOLERANCE * maxDiag;
  const L = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    const rj = j * n;
    let d = A[rj + j] + shift;
    for (let k = 0; k < j; k++) d -= L[rj + k] * L[rj + k];
    if (!(d > 0)) {
      throw new ProblemError(
        field,
        `is not positive semidefinite (Cholesky of A + ${shift.toExponential(1)}·I breaks down at row ${j}); A = J M⁻¹ Jᵀ never is: check the masses and inverse inertias it was built from`,
      );
    }
    const ljj = Math.sqrt(d);
    L[rj + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      const ri = i * n;
      let s = A[ri + j];
      for (let k = 0; k < j; k++) s -= L[ri + k] * L[rj + k];
      L[ri + j] = s / ljj;
    }
  }
}

/** Throws ProblemError when an assembled problem's A or b holds a NaN or ±∞ (the physical path's finite check). */
export function checkProblemFinite(p: ContactProblem): void {
  checkFinite(p.A, 'A', p.size);
  checkFinite(p.b, 'b');
}

function checkFinite(a: ArrayLike<number>, name: string, rowLen = 0): void {
  if (allFinite(a)) return;
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i])) {
      const field = rowLen > 0 ? `${name}[${Math.floor(i / rowLen)}][${i % rowLen}]` : `${name}[${i}]`;
      throw new ProblemError(field, `is ${a[i]}, expected a finite number`);
    }
  }
}

/** f(λ) = ½λᵀAλ − bᵀλ (docs/physics.md "The QP-SOCP"). */
export function objective(p: ContactProblem, lambda: Float64Array): number {
  const { A, b, size: n } = p;
  let f = 0;
  for (let i = 0; i < n; i++) {
    let s = 0;
    const row = i * n;
    for (let j = 0; j < n; j++) s += A[row + j] * lambda[j];
    f += lambda[i] * (0.5 * s - b[i]);
  }
  return f;
}
