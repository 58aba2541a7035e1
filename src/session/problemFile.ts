/**
 * A contact problem file (docs/problem-format.md: our JSON problems, or an FCLIB local problem in HDF5) as
 * one inspectable frame without bodies: A, b, μ, the conditioning of A (κ on its range with the rank
 * ratio, as FCLIB's studies report cond(W); Acary, Brémond & Huber 2018 §5) and every solver side by side
 * with its own merit (KKT residual, or the Coulomb natural-map merit for `coulomb`). The back end of the
 * inspector's problem view (src/extension/model/problemView.ts) and of `contact-lens solve`.
 */
import { resolve } from 'node:path';
import { exactIslandConditioning, type IslandConditioning } from './conditioningEstimate.js';
import { type ContactClass, type ContactProblem, coulombMerit, solve, SOLVER_NAMES, type SolveResult, type SolverName } from '../engine/index.js';
import { isFclibInput, readFclibLocal } from '../format/fclib.js';
import { readRegularFile } from '../format/inputFile.js';
import { parseOracleInstance } from '../format/oracle.js';

export interface OpenedProblem {
  readonly id: string;
  /** The name used in messages. */
  readonly file: string;
  readonly source: 'json' | 'fclib';
  readonly contactCount: number;
  /** 3 × contacts. */
  readonly unknowns: number;
  /** A (W for FCLIB), b (−q), μ. */
  readonly problem: ContactProblem;
  readonly conditioning: IslandConditioning;
  /**
   * How A departs from a symmetric positive semidefinite J M⁻¹ Jᵀ, as real codes write W (FCLIB files are read
   * as given: src/format/fclib.ts): ‖A − Aᵀ‖_F/‖A‖_F (0 for JSON problems, whose format requires symmetry), and
   * λmin/λmax of its symmetric part (below 0: indefinite; NaN when λmax ≤ 0 or not finite).
   */
  readonly asymmetry: number;
  readonly eigenRatio: number;
  /** FCLIB's /fclib_local/info title and description, or the JSON id and ''. */
  readonly title: string;
  readonly description: string;
  /** The file's own reference solution λ (JSON `solution.lambda`, FCLIB `/solution/r`), or null. */
  readonly reference: { readonly label: string; readonly lambda: Float64Array } | null;
}

/** One solver's answer to the problem, for a side-by-side table. */
export interface SolverComparison {
  readonly solver: SolverName;
  readonly status: SolveResult['status']['kind'];
  readonly iterations: number;
  /** The solver's own stopping measure: KKT max_rel of the QP-SOCP, or the Coulomb natural-map merit. */
  readonly merit: SolveResult['merit'];
  readonly timeMs: number;
  readonly lambda: Float64Array;
  /** w_n = (Aλ − b)_n per contact: the normal gap rate after the impulse. */
  readonly wNormal: Float64Array;
  /** ½λᵀAλ − bᵀλ. */
  readonly objective: number;
  /** KKT max_rel of the QP-SOCP and the Coulomb merit of λ, for every solver (each solver stops on one of them). */
  readonly kkt: number;
  readonly coulomb: number;
  readonly contactClass: readonly ContactClass[];
  /** Present when newton or ipm solved the symmetric part of A plus a shift (A as given is asymmetric or indefinite). */
  readonly convexified?: SolveResult['convexified'];
}

/**
 * Opens a problem file: HDF5 (recognised by its signature, or named .hdf5/.h5) through the FCLIB reader,
 * anything else as a JSON problem. Bad input throws one FormatError line naming the file and the field.
 */
export async function openProblemFile(path: string, file: string = path): Promise<OpenedProblem> {
  // a regular file of bounded size only: a named pipe would block the worker for good
  const bytes = readRegularFile(path, file);
  let id: string, problem: ContactProblem, source: OpenedProblem['source'];
  let title: string,
    description = '';
  let reference: OpenedProblem['reference'] = null;
  if (isFclibInput(bytes, file)) {
    const p = await readFclibLocal(resolve(path), file);
    ({ id, matrix: problem, description } = p);
    title = p.title || id;
    source = 'fclib';
    if (p.solution) reference = { label: 'FCLIB /solution', lambda: p.solution.r };
  } else {
    const inst = parseOracleInstance(bytes.toString('utf8'), file);
    ({ id, matrix: problem } = inst);
    title = id;
    source = 'json';
    if (inst.solution) reference = { label: 'the file’s solution', lambda: Float64Array.from(inst.solution.lambda) };
  }
  const conditioning = exactIslandConditioning(problem.A, problem.size, problem.regularization, problem);
  return {
    id,
    file,
    source,
    contactCount: problem.contactCount,
    unknowns: problem.size,
    problem,
    conditioning,
    asymmetry: problem.asGiven?.asymmetry ?? 0,
    eigenRatio: eigenRatio(conditioning),
    title,
    description,
    reference,
  };
}

/** λmin/λmax of A's symmetric part from its conditioning (NaN when λmax ≤ 0 or either is not finite). */
export function eigenRatio(c: IslandConditioning): number {
  return c.lambdaMax > 0 && Number.isFinite(c.lambdaMax) && Number.isFinite(c.lambdaMin) ? c.lambdaMin / c.lambdaMax : Number.NaN;
}

/**
 * Every solver (SOLVER_NAMES) on the problem, in that order, each with its defaults; `onSolved` is told
 * after each one (progress for the inspector).
 */
export function compareSolvers(
  problem: ContactProblem,
  solvers: readonly SolverName[] = SOLVER_NAMES,
  onSolved?: (solver: SolverName, done: number) => void,
): SolverComparison[] {
  return solvers.map((s, k) => {
    const r = solve(problem, { solver: s });
    onSolved?.(s, k + 1);
    const wNormal = new Float64Array(problem.contactCount);
    for (let c = 0; c < problem.contactCount; c++) wNormal[c] = r.w[3 * c];
    return {
      solver: s,
      status: r.status.kind,
      iterations: r.iterations,
      merit: r.merit,
      timeMs: r.timeMs,
      lambda: r.lambda,
      wNormal,
      objective: r.objective,
      kkt: r.kkt.maxRel,
      coulomb: r.merit.problem === 'coulomb' ? r.merit.value : coulombMerit(problem, r.lambda),
      contactClass: r.contactClass,
      ...(r.convexified ? { convexified: r.convexified } : {}),
    };
  });
}
