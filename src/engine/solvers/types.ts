/** One interface for every contact solver: solve(problem, options, warmStart?) → SolveResult. */
import type { ContactClass, KktReport } from '../kkt.js';
import type { ConvexifiedMatrix } from './convexify.js';

/**
 * The solver names: the one source of truth. The protocol's copy (plain types), the scene parser,
 * package.json's `contactLens.solver.default` enum and schemas/scene.schema.json are checked against it
 * by test/unit/solver-names.test.ts.
 */
export const SOLVER_NAMES = ['pgs', 'newton', 'ipm', 'coulomb'] as const;
export type SolverName = (typeof SOLVER_NAMES)[number];

/**
 * converged: the solver's merit (SolveMerit) ≤ tolerance — KKT max_rel of the QP-SOCP for pgs, newton and
 * ipm (the same test for each, so "converged" never lies), the Coulomb natural-map merit for coulomb;
 * max-iterations: the budget ran out first; stalled: the iteration reached its own fixed point or
 * cannot make progress, but that point is not a KKT point to tolerance; failed: numerical breakdown.
 */
export type SolveStatus =
  | { readonly kind: 'converged' }
  | { readonly kind: 'max-iterations'; readonly reason: string }
  | { readonly kind: 'stalled'; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string };

export interface CommonSolveOptions {
  /** Iteration budget (solver-specific default). */
  readonly maxIterations?: number;
  /** Stop when the KKT max_rel (kkt.ts) is at or below this value. */
  readonly tolerance?: number;
}

export type PgsFrictionLaw = 'coulomb-disk' | 'cone';

export interface PgsOptions extends CommonSolveOptions {
  readonly solver: 'pgs';
  /**
   * coulomb-disk (default): sequential impulses — normal row, then the tangent pair clamped to the
   * disk ‖λt‖ ≤ μλn. Its fixed point is Coulomb friction without the QP-SOCP's spurious normal
   * velocity, so sliding contacts are generally NOT KKT points of the QP-SOCP (status "stalled").
   * cone: projected block Gauss–Seidel λᵢ ← Proj_K(λᵢ − ρᵢwᵢ); its fixed points are exactly the KKT points.
   */
  readonly friction?: PgsFrictionLaw;
  /** λ⁰ = factor · warm start (Catto 2005; typical 0.9). Default 1. */
  readonly warmStartFactor?: number;
  /** Per-contact diagonal (Jacobi) scaling, applied per contact so the cones are preserved. */
  readonly diagonalScaling?: boolean;
  /** Extra diagonal regularisation ε added to A inside PGS (docs/physics.md "Regularisation"). Default 0. */
  readonly regularization?: number;
  /** Stop early once ‖λᵏ⁺¹ − λᵏ‖∞ ≤ this · ‖λ‖∞ (the PGS fixed point is reached). */
  readonly fixedPointTolerance?: number;
}

export interface NewtonOptions extends CommonSolveOptions {
  readonly solver: 'newton';
  /**
   * Armijo sufficient-decrease constant c₁ (Nocedal & Wright 2006 §3.1: 1e-4). Accepted so that scene files
   * that set it stay valid; not used: the local Newton phase keeps a step only when it lowers the KKT
   * max_rel (newton.ts), and the interior-point phase has its own step rule (ipm.ts).
   */
  readonly armijo?: number;
  /** Step halvings per local Newton direction (default 10). */
  readonly maxBacktracks?: number;
}

export interface IpmOptions extends CommonSolveOptions {
  readonly solver: 'ipm';
  /**
   * Iterative refinement of the dense interior point's Newton solves (ipm.ts newtonSolve): 'always' (default), or
   * 'shifted' — only when the Newton matrix needed a diagonal shift to factorise, the bias the refinement exists to
   * remove; against the unshifted matrix it was factorised from it polishes round-off only. Set by callers whose
   * tolerance is far above round-off (the diagnosis' exact re-solves); not a scene-file option.
   */
  readonly refinement?: 'always' | 'shifted';
}

/**
 * The exact (non-convex) Coulomb friction problem by the De Saxcé fixed point over the interior-point
 * solver (coulomb.ts). `tolerance` applies to the Coulomb merit (coulombMerit.ts), `maxIterations` to the
 * fixed-point iterations (each one a full interior-point solve) and Newton steps together.
 */
export interface CoulombOptions extends CommonSolveOptions {
  readonly solver: 'coulomb';
}

export type SolveOptions = PgsOptions | NewtonOptions | IpmOptions | CoulombOptions;

/**
 * The number a solver's status is decided on, and the problem it measures: pgs, newton and ipm solve the
 * convex QP-SOCP (merit = KKT max_rel, kkt.ts); coulomb solves Coulomb's law, whose solutions are not KKT
 * points of the QP-SOCP where a contact slides (merit = the FCLIB natural-map residual, coulombMerit.ts).
 */
export type SolveMerit = { readonly problem: 'qp-socp'; readonly value: number } | { readonly problem: 'coulomb'; readonly value: number };

/**
 * The problem a solver's λ answers: Coulomb's law for coulomb and for PGS with its default Coulomb-disk
 * sweeps (whose fixed point is a Coulomb solution, docs/physics.md "Coulomb's law and the De Saxcé fixed
 * point"), the QP-SOCP for newton, ipm and PGS in cone mode. (PGS's status is still decided on the QP-SOCP
 * KKT residual, pgs.ts.)
 */
export function problemSolvedBy(options: { readonly solver: SolverName; readonly friction?: PgsFrictionLaw }): SolveMerit['problem'] {
  if (options.solver === 'coulomb') return 'coulomb';
  if (options.solver === 'pgs') return (options.friction ?? 'coulomb-disk') === 'coulomb-disk' ? 'coulomb' : 'qp-socp';
  return 'qp-socp';
}

export interface SolveHistory {
  /** The solver's merit (SolveMerit: KKT max_rel, or the Coulomb merit for coulomb) after k iterations, k = 0 … iterations. */
  readonly residual: Float64Array;
  /** Objective f(λᵏ), k = 0 … iterations. */
  readonly objective: Float64Array;
  /**
   * Present when only some iterations were measured (the world step's PGS, docs/physics.md "PGS"): entry j
   * of residual/objective is after iterations[j] iterations (increasing, from 0, the last = iterations).
   * Absent: entry k is after k iterations.
   */
  readonly iterations?: Int32Array;
}

export interface SolveResult {
  readonly solver: SolverName;
  /** λ in the 3C layout. */
  readonly lambda: Float64Array;
  /** w = Aλ − b: post-impulse contact velocities (minus the restitution/bias targets). */
  readonly w: Float64Array;
  readonly status: SolveStatus;
  readonly iterations: number;
  readonly history: SolveHistory;
  /** Diagonal regularisation the solver used internally (0 if none). */
  readonly regularization: number;
  readonly timeMs: number;
  readonly objective: number;
  /** What the status was decided on (for coulomb: the Coulomb merit, not `kkt`). */
  readonly merit: SolveMerit;
  /** The QP-SOCP's KKT residuals of λ (for coulomb: how far λ is from the convex model's solution). */
  readonly kkt: KktReport;
  readonly contactClass: readonly ContactClass[];
  /**
   * Present when a convex solver (newton, ipm) was given the symmetric part of A plus a shift instead of A, which
   * was taken as given and is asymmetric or indefinite (convexify.ts): λ, w, the KKT report and the status refer to
   * that matrix.
   */
  readonly convexified?: ConvexifiedMatrix;
}

/** What an individual algorithm returns; `solve` adds timing, KKT and classification. */
export interface AlgorithmOutput {
  readonly lambda: Float64Array;
  readonly iterations: number;
  readonly status: SolveStatus;
  readonly regularization: number;
  readonly history: SolveHistory;
  /** Set by solvers of another problem than the QP-SOCP (coulomb); absent: the merit is KKT max_rel. */
  readonly merit?: SolveMerit;
  /**
   * w = Aλ − b of `lambda` when the solver has it, bit-identical to the dense product (coulomb: block-sparse
   * rows summed in column order); solve() then takes w, the KKT report and the objective from it instead of
   * three O(n²) passes over A.
   */
  readonly w?: Float64Array;
}
