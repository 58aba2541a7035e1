/**
 * What kind of solver wrote a recording (header `solver.kind`, docs/recording-format.md "What the diagnosis
 * reads from header solver"), so that a frame's `status` is read for what it is: a fixed-iteration solver
 * (Box2D, Rapier, Jolt, Bullet's defaults) has no convergence test, and its "converged" is a label.
 */
import type { RecordingHeader } from '../format/recording.js';

export const SOLVER_KINDS = ['iterative-fixed', 'iterative-tolerance', 'direct'] as const;
export type SolverKind = (typeof SOLVER_KINDS)[number];

/** The declared kind, or null when the header does not say (or says something else: `report --check` flags it). */
export function solverKind(header: RecordingHeader): SolverKind | null {
  const k = header.solver?.kind;
  return typeof k === 'string' && (SOLVER_KINDS as readonly string[]).includes(k) ? (k as SolverKind) : null;
}

/** How a frame's status reads under the declared kind (for findings, frame notes and `report`). */
export function statusMeaning(kind: SolverKind | null, status: string): string {
  if (kind === 'iterative-fixed')
    return `the file's solver status is "${status}", but the header declares a fixed iteration count (solver.kind "iterative-fixed"): the label is not a convergence test`;
  if (kind === 'direct') return `the file's solver status is "${status}" from a direct solver (solver.kind "direct")`;
  return `the file's solver status is "${status}"`;
}
