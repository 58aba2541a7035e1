/**
 * "What if": re-solve a recorded frame's islands with another solver or options and compare with what
 * was recorded — per-contact λ difference, post-solve contact velocities, KKT residual of the convex model and
 * merit of Coulomb's law (docs/physics.md), and the kinetic
 * energy change the contact impulses cause, ΔKE = λᵀJv⁻ + ½λᵀAλ (docs/physics.md "Energy ledger").
 */
import type { Session } from './session.js';
import type { ContactProblem } from '../engine/problem.js';
import { kkt } from '../engine/kkt.js';
import { coulombMerit } from '../engine/coulombMerit.js';
import { solve } from '../engine/solvers/solve.js';
import type { SolveOptions, SolveResult } from '../engine/solvers/types.js';

export interface Alternative {
  readonly lambda: Float64Array;
  readonly kktMaxRel: number;
  /** The Coulomb merit of λ (coulombMerit.ts): how far λ is from Coulomb's law, as kktMaxRel is from the QP-SOCP. */
  readonly coulombMerit: number;
  /** ΔKE of the island caused by λ (J); ε·I of A excluded. */
  readonly kineticEnergyChange: number;
  /** ġ⁺ = ġ⁻ + Aλ per row. */
  readonly gapAfter: Float64Array;
}

export interface IslandWhatIf {
  readonly contacts: readonly number[];
  readonly recorded: Alternative;
  readonly alternative: Alternative & { readonly result: SolveResult };
  /** max |λ_alt − λ_recorded| per contact (N·s). */
  readonly lambdaDifference: Float64Array;
}

export interface FrameWhatIf {
  readonly frame: number;
  readonly islands: readonly IslandWhatIf[];
  /** Islands that could not be re-solved (no pre-solve state, too large for a dense A, …). */
  readonly skipped: readonly { readonly contacts: readonly number[]; readonly reason: string }[];
}

function evaluate(p: ContactProblem, lambda: Float64Array): Alternative {
  const n = p.size,
    A = p.A,
    gBefore = p.rhs!.velocity;
  const gapAfter = new Float64Array(n);
  let dke = 0;
  for (let i = 0; i < n; i++) {
    let s = -p.regularization * lambda[i];
    for (let j = 0; j < n; j++) s += A[i * n + j] * lambda[j];
    gapAfter[i] = -gBefore[i] + s;
    dke += lambda[i] * (-gBefore[i] + 0.5 * s);
  }
  return { lambda, kktMaxRel: kkt(p, lambda).maxRel, coulombMerit: coulombMerit(p, lambda), kineticEnergyChange: dke, gapAfter };
}

/** Re-solves frame `index` with `options`; cold start unless `warmFromRecorded`. */
export function whatIf(session: Session, index: number, options: SolveOptions, warmFromRecorded = false): FrameWhatIf {
  const detail = session.detail(index);
  const islands: IslandWhatIf[] = [];
  const skipped: { contacts: readonly number[]; reason: string }[] = [];
  for (const isl of detail.islands) {
    if (!isl.problem) {
      skipped.push({ contacts: isl.contacts, reason: isl.reason ?? 'no problem' });
      continue;
    }
    const recorded = evaluate(isl.problem, isl.lambda);
    const result = solve(isl.problem, options, warmFromRecorded ? isl.lambda : undefined);
    const alt = evaluate(isl.problem, result.lambda);
    const diff = new Float64Array(isl.contacts.length);
    for (let c = 0; c < diff.length; c++) for (let r = 0; r < 3; r++) diff[c] = Math.max(diff[c], Math.abs(result.lambda[3 * c + r] - isl.lambda[3 * c + r]));
    islands.push({ contacts: isl.contacts, recorded, alternative: { ...alt, result }, lambdaDifference: diff });
  }
  return { frame: detail.frame, islands, skipped };
}
