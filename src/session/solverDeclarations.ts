/**
 * What a recording's header `solver` declares about the data (docs/recording-format.md "What the diagnosis
 * reads from header solver"):
 *   kind          so that a frame's `status` is read for what it is: a fixed-iteration solver (Box2D, Rapier,
 *                 Jolt, Bullet's defaults) has no convergence test, and its "converged" is a label;
 *   lambdaSource  where each component of λ comes from (format 1.1 λ availability): the engine's solver, fitted
 *                 by the writer to the engine's velocity change (a binding that hides impulses), or unavailable
 *                 (written as 0, "not recorded": nothing is concluded from it).
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

export type LambdaOrigin = 'solver' | 'fitted' | 'unavailable';
export interface LambdaSource {
  readonly normal: LambdaOrigin;
  readonly tangent: LambdaOrigin;
}

/**
 * header solver.lambdaSource {normal, tangent}; without it, the free-text x-lambda-source the real-engine
 * recorders wrote before ("fitted: …" = both fitted, "… tangential: fitted …" = tangent fitted); else the solver's.
 */
export function lambdaSource(header: RecordingHeader): LambdaSource {
  const d = header.solver?.lambdaSource as { normal?: unknown; tangent?: unknown } | undefined;
  if (d && typeof d === 'object') {
    const normal = d.normal === 'fitted' || d.normal === 'unavailable' ? d.normal : 'solver';
    const tangent = d.tangent === 'fitted' || d.tangent === 'unavailable' ? d.tangent : 'solver';
    return { normal, tangent };
  }
  const text = typeof header.solver?.['x-lambda-source'] === 'string' ? (header.solver['x-lambda-source'] as string) : '';
  if (/^fitted/i.test(text)) return { normal: 'fitted', tangent: 'fitted' };
  if (/tangential: fitted/i.test(text)) return { normal: 'solver', tangent: 'fitted' };
  return { normal: 'solver', tangent: 'solver' };
}

/**
 * What the file does not record, in words for the inspector's header line and `report` ("not recorded"), or
 * null when every λ component is there: components declared "unavailable" are written as 0 and mean nothing.
 */
export function notRecorded(header: RecordingHeader): string | null {
  const s = lambdaSource(header);
  const missing = [s.normal === 'unavailable' ? 'normal' : '', s.tangent === 'unavailable' ? 'friction' : ''].filter(Boolean);
  return missing.length ? `${missing.join(' and ')} impulses not recorded (the file's zeros there are not data)` : null;
}

/** A header lambdaSource that is written but malformed, in words (for `report --check`), or null. */
export function lambdaSourceProblem(header: RecordingHeader): string | null {
  const d = header.solver?.lambdaSource;
  if (d === undefined) return null;
  if (!d || typeof d !== 'object')
    return `header solver.lambdaSource is ${JSON.stringify(d)}; expected {"normal": "solver" | "fitted" | "unavailable", "tangent": "solver" | "fitted" | "unavailable"}`;
  const o = d as { normal?: unknown; tangent?: unknown };
  if (o.normal !== 'solver' && o.normal !== 'fitted' && o.normal !== 'unavailable')
    return `header solver.lambdaSource.normal is ${JSON.stringify(o.normal)}; expected "solver" or "fitted" (or "unavailable" when the engine does not expose it)`;
  if (o.tangent !== 'solver' && o.tangent !== 'fitted' && o.tangent !== 'unavailable')
    return `header solver.lambdaSource.tangent is ${JSON.stringify(o.tangent)}; expected "solver", "fitted" or "unavailable"`;
  return null;
}
