/**
 * The inspector's view of a contact problem file (docs/problem-format.md: our JSON problems or an FCLIB
 * local problem in HDF5): one frame without bodies — its sizes, A as a heat map with κ on the range and
 * the rank ratio, the per-contact data (μ, b) and every solver side by side. Plain types only; numbers
 * that are not finite travel as null (JSON and the validators never see NaN).
 */
import type { IslandView, SolverName, SolverStatus } from './inspector.js';

export interface ProblemContactView {
  readonly index: number;
  readonly mu: number;
  /** b_n (= −q_n for FCLIB): the normal velocity the impulse must remove (m/s). */
  readonly bN: number;
  /** ‖(b_t1, b_t2)‖. */
  readonly bT: number;
  /** The file's reference solution at this contact, when the file has one. */
  readonly reference: { readonly lambdaN: number | null; readonly lambdaT: number | null; readonly wN: number | null } | null;
}

export interface ProblemSolverView {
  readonly solver: SolverName;
  readonly status: SolverStatus;
  readonly iterations: number;
  /** What `status` was decided on: the QP-SOCP's KKT max_rel, or the Coulomb merit for `coulomb`. */
  readonly meritKind: 'kkt' | 'coulomb';
  /** KKT max_rel of the convex QP-SOCP (docs/physics.md), for every solver. */
  readonly kkt: number | null;
  /** FCLIB's natural-map merit of Coulomb's law (src/engine/coulombMerit.ts), for every solver. */
  readonly coulomb: number | null;
  /** ½λᵀAλ − bᵀλ. */
  readonly objective: number | null;
  readonly timeMs: number;
  /** Contacts per class (docs/physics.md): separating, sticking, sliding. */
  readonly classes: { readonly separating: number; readonly sticking: number; readonly sliding: number };
  /** Per contact: λn, ‖λt‖ (N·s) and w_n = (Aλ − b)_n (m/s; > 0 separating). */
  readonly lambdaN: readonly (number | null)[];
  readonly lambdaT: readonly (number | null)[];
  readonly wN: readonly (number | null)[];
  /**
   * Present when the solver (newton, ipm) was given the symmetric part of A plus a shift instead of A, which the
   * file wrote asymmetric or indefinite: one line saying so (its KKT max_rel refers to that matrix).
   */
  readonly matrixNote?: string;
}

export interface ProblemView {
  readonly id: string;
  /** The file name shown (and named by messages). */
  readonly file: string;
  readonly format: 'json' | 'fclib';
  /** FCLIB's /fclib_local/info/title (or the JSON id) and description ('' when absent). */
  readonly title: string;
  readonly description: string;
  readonly contacts: number;
  /** 3 × contacts. */
  readonly unknowns: number;
  readonly rank: number;
  /** unknowns / rank (FCLIB's rank ratio; null for rank 0). */
  readonly rankRatio: number | null;
  /**
   * A as the file wrote it (FCLIB's W is read as given): ‖A − Aᵀ‖_F/‖A‖_F (0 for JSON problems, symmetric by
   * the format) and λmin/λmax of its symmetric part (negative: indefinite; null when not computed).
   */
  readonly asymmetry: number | null;
  readonly eigenRatio: number | null;
  /** A (W for FCLIB) as the heat map and its conditioning, with the causes found. */
  readonly matrix: IslandView;
  readonly table: readonly ProblemContactView[];
  /** The file's reference solution checked against the problem, or null when it has none. */
  readonly reference: { readonly label: string; readonly kkt: number | null; readonly coulomb: number | null } | null;
  readonly solvers: readonly ProblemSolverView[];
  readonly notes: readonly string[];
}
