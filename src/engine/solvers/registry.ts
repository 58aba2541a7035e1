/**
 * The solver registry: per solver name (SOLVER_NAMES), what it solves in one line and its dense algorithm.
 * solve() dispatches through it and the CLI's help lists it; its type has exactly one entry per name, so a
 * solver added to SOLVER_NAMES without an entry here does not compile. Islands without a dense A
 * (island/solveMatrixFree.ts) dispatch on the same names to the matrix-free and sparse variants.
 */
import type { ContactProblem } from '../problem.js';
import { solveCoulomb } from './coulomb.js';
import { solveIpm } from './ipm.js';
import { solveNewton } from './newton.js';
import { solvePgs } from './pgs.js';
import type { AlgorithmOutput, SolveOptions, SolverName } from './types.js';

export interface SolverEntry<K extends SolverName> {
  /** What the solver computes, in one line (CLI help; docs/physics.md "Solvers" has the mathematics). */
  readonly summary: string;
  /** The dense algorithm (A formed); solve() adds timing, the KKT report and the status check. */
  readonly dense: (p: ContactProblem, options: Extract<SolveOptions, { readonly solver: K }>, warm?: Float64Array) => AlgorithmOutput;
}

export const SOLVER_REGISTRY: { readonly [K in SolverName]: SolverEntry<K> } = {
  pgs: { summary: 'projected Gauss–Seidel (sequential impulses; Coulomb disk by default, or the cone)', dense: solvePgs },
  newton: { summary: 'semismooth Newton on the natural map of the convex QP-SOCP, globalised by the interior point', dense: solveNewton },
  ipm: { summary: 'primal–dual interior point (Nesterov–Todd scaling, Mehrotra predictor–corrector) for the convex QP-SOCP', dense: solveIpm },
  coulomb: { summary: "exact Coulomb friction (De Saxcé's fixed point): block Gauss–Seidel, then proximal semismooth Newton", dense: solveCoulomb },
};

/** The dense algorithm of `options.solver`. */
export function solveDense(p: ContactProblem, options: SolveOptions, warm?: Float64Array): AlgorithmOutput {
  const dense = SOLVER_REGISTRY[options.solver].dense as (p: ContactProblem, options: SolveOptions, warm?: Float64Array) => AlgorithmOutput;
  return dense(p, options, warm);
}
