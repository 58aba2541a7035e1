/**
 * The island solver boundary: one island's contacts in, impulses, gap rates, contact work and body
 * velocity changes out. Small islands are assembled densely (A formed) and solved by the scenario's
 * solver; large ones never form A (solveMatrixFree.ts: matrix-free PGS, sparse Newton, sparse interior point).
 * All paths share one assembly (assemblyOptions), one fault-injection point and one gap-rate formula.
 */
import { assembleJacobians, bodyVelocityChanges, DEFAULT_ASSEMBLY, denseProblem, type AssemblyOptions, type ContactJacobians } from '../assembly.js';
import type { BodyState, ContactPoint, ContactProblem } from '../problem.js';
import { solveMatrixFree } from './solveMatrixFree.js';
import { solve } from '../solvers/solve.js';
import type { SolveResult } from '../solvers/types.js';
import { contactWork, contactWorkDiagonal, gapRatesAfter } from '../world/energy.js';
import type { StepConfig } from '../world/types.js';
import type { Vec3 } from '../math/vec3.js';

/** Islands with more contacts than this are solved matrix-free (dense A would cost O(C²) memory, O(C³) time). */
export const DENSE_ISLAND_LIMIT = 200;
/** PGS islands with more contacts than this use the matrix-free PGS (same iterates, O(C) per sweep). */
export const PGS_MATRIX_FREE_FROM = 32;
/**
 * Interior-point islands with more contacts than this go to the sparse interior point (solveMatrixFree.ts): measured
 * per island by bench/island-limit.ts on box-pile-1000's small islands (docs/benchmarks.md "Exact solvers: their own
 * dense limit"), the sparse path costs about what the dense one does at 9–16 contacts and 2–5× less from 17 up; below
 * 9 the dense one is cheaper. Newton keeps DENSE_ISLAND_LIMIT: its sparse path ends in the sparse interior point from
 * that solver's own start whenever its local phase fails, i.e. with the ipm's answer, where the dense Newton's
 * interior point starts from the local phase's end (two different solves for a side-by-side comparison of runs).
 */
export const EXACT_DENSE_ISLAND_LIMIT = 16;
/** One island's solve: dense (problem with A) or matrix-free (Jacobians only, large islands). */
export type IslandSolve =
  | {
      readonly contacts: readonly number[];
      readonly problem: ContactProblem;
      readonly jacobians: null;
      readonly result: SolveResult;
      readonly matrixFree: false;
    }
  | { readonly contacts: readonly number[]; readonly jacobians: ContactJacobians; readonly result: SolveResult; readonly matrixFree: true };

/** What a solved island contributes to the frame. */
export interface IslandOutcome {
  readonly solve: IslandSolve;
  readonly lambda: Float64Array;
  /** ġ before and after the impulse, 3C layout. */
  readonly gapBefore: Float64Array;
  readonly gapAfter: Float64Array;
  /** Work of the contact impulses (docs/physics.md "Energy ledger"). */
  readonly work: { readonly normal: number; readonly friction: number; readonly bias: number };
}

/**
 * The assembly options of a scenario's step: the one place the world and the session derive them from
 * (so the inspector's re-assembled A and b are the ones solved).
 */
export function assemblyOptions(cfg: StepConfig): AssemblyOptions {
  return {
    dt: cfg.dt,
    erp: cfg.erp,
    slop: cfg.slop,
    baumgarte: !cfg.splitImpulse,
    restVelocityThreshold: cfg.restVelocityThreshold,
    regularization: DEFAULT_ASSEMBLY.regularization,
  };
}

/** Does an island of this many contacts skip the dense A? */
export function useMatrixFree(cfg: StepConfig, contacts: number): boolean {
  const solver = cfg.solver.solver;
  if (solver === 'pgs') return contacts > PGS_MATRIX_FREE_FROM;
  if (solver === 'ipm') return contacts > EXACT_DENSE_ISLAND_LIMIT;
  return contacts > DENSE_ISLAND_LIMIT;
}

/**
 * Solves one island; `contacts` are the frame indices of `cs`. The body velocity changes M⁻¹Jᵀλ are
 * added to `dvTotal` (6 per body; islands share no dynamic body).
 */
export function solveIsland(
  states: readonly BodyState[],
  cs: readonly ContactPoint[],
  contacts: readonly number[],
  cfg: StepConfig,
  warm: Float64Array | undefined,
  dvTotal: Float64Array,
): IslandOutcome {
  const jacobians = assembleJacobians(states, cs, assemblyOptions(cfg));
  if (cfg.faults.restitutionAsTarget) applyRestitutionTargetFault(jacobians);
  let solved: IslandSolve, work: IslandOutcome['work'];
  if (useMatrixFree(cfg, cs.length)) {
    // Δv goes straight into dvTotal: islands share no dynamic body, so this island's entries are still zero.
    const result = solveMatrixFree(jacobians, cfg.solver, cfg.softening, warm, dvTotal);
    solved = { contacts, jacobians, result, matrixFree: true };
  } else {
    const problem = denseProblem(jacobians, jacobians.regularization);
    soften(problem, cfg.softening);
    const result = solve(problem, cfg.solver, warm);
    bodyVelocityChanges(problem, result.lambda, dvTotal);
    solved = { contacts, problem, jacobians: null, result, matrixFree: false };
  }
  const { lambda, w } = solved.result;
  const velocity = jacobians.rhs.velocity;
  const gapBefore = new Float64Array(jacobians.size);
  for (let i = 0; i < jacobians.size; i++) gapBefore[i] = -velocity[i];
  const gapAfter = gapRatesAfter(jacobians, lambda, w, cfg.softening);
  work = solved.matrixFree ? contactWorkDiagonal(jacobians, lambda, gapBefore, gapAfter) : contactWork(solved.problem, lambda, gapBefore, gapAfter);
  return { solve: solved, lambda, gapBefore, gapAfter, work };
}

/** The body states at rest (zero velocities) that positionCorrection assembles with: built once per step, not per island. */
export function stillStates(states: readonly BodyState[]): BodyState[] {
  const zero: Vec3 = [0, 0, 0];
  return states.map((s) => ({ ...s, v: zero, omega: zero }));
}

/**
 * Split impulse (Catto GDC 2006; docs/physics.md "Split impulse"): a second, frictionless problem on the
 * same contacts with only the bias as right-hand side and zero velocities (`still`: stillStates of the
 * step's states); its impulses become pseudo velocities that correct positions without adding kinetic
 * energy. Accumulated into dvPseudo.
 */
export function positionCorrection(still: readonly BodyState[], cs: readonly ContactPoint[], cfg: StepConfig, dvPseudo: Float64Array): void {
  const jacobians = assembleJacobians(
    still,
    cs.map((c) => ({ ...c, mu: 0, restitution: 0 })),
    { ...assemblyOptions(cfg), baumgarte: true, restVelocityThreshold: Infinity },
  );
  if (jacobians.b.every((x) => x === 0)) return;
  const p = denseProblem(jacobians, jacobians.regularization);
  const r = solve(p, cfg.solver);
  const dv = bodyVelocityChanges(p, r.lambda);
  for (let i = 0; i < dv.length; i++) dvPseudo[i] += dv[i];
}

/** Constraint softening (docs/physics.md "Softening"): 0 ≤ ġ + γλ ⊥ λ ≥ 0, i.e. γ added to A's normal-row diagonal; b unchanged. */
function soften(p: ContactProblem, gamma: number): void {
  if (!(gamma > 0)) return;
  const A = p.A as Float64Array;
  for (let c = 0; c < p.contactCount; c++) A[3 * c * p.size + 3 * c] += gamma;
}

/**
 * FAULT INJECTION (scenario `faultInjection.restitutionAsTarget`; docs/physics.md "Restitution as a
 * target"): uses −(1+e)·ġ⁻ as the target velocity, i.e. b_n = −(1+e)·ġ⁻ − ġ⁻ = −(2+e)·ġ⁻ instead of
 * −(1+e)·ġ⁻, so ġ⁺ = −(1+e)·ġ⁻ and the kinetic energy of a bounce is multiplied by (1+e)² instead of e².
 * Never an ordinary option.
 */
function applyRestitutionTargetFault(k: ContactJacobians): void {
  const rhs = k.rhs;
  const b = k.b,
    rest = rhs.restitution as Float64Array;
  for (let c = 0; c < k.contactCount; c++) {
    const o = 3 * c;
    const extra = rhs.velocity[o]; // −ġ⁻ once more: b_n = −(2+e)ġ⁻ ⇒ ġ⁺ = −(1+e)ġ⁻
    rest[o] += extra;
    b[o] += extra;
  }
}
