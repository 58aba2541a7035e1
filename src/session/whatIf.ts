/**
 * "What if": re-solve a recorded frame's islands with another solver or options and compare with what
 * was recorded — per-contact λ difference, post-solve contact velocities, KKT residual of the convex model and
 * merit of Coulomb's law (docs/physics.md), and the kinetic
 * energy change the contact impulses cause, ΔKE = λᵀJv⁻ + ½λᵀAλ (docs/physics.md "Energy ledger").
 */
import type { Session } from './session.js';
import {
  type ContactJacobians,
  type ContactProblem,
  coulombMerit,
  coulombMeritFromU,
  gapRatesAfter,
  impulseEnergyChange,
  kkt,
  kktRows,
  KktWorkspace,
  matrixFreeRows,
  type MatrixFreeRows,
  solve,
  solveMatrixFree,
  type SolveOptions,
  type SolveResult,
} from '../engine/index.js';

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

/** The same figures for an island beyond the dense limit, from its Jacobians without forming A (u = Aλ − b from M⁻¹Jᵀλ). */
function evaluateMatrixFree(k: ContactJacobians, rows: MatrixFreeRows, ws: KktWorkspace, lambda: Float64Array): Alternative {
  const kktMaxRel = kktRows(rows, lambda, ws).maxRel;
  const u = ws.w;
  const gapAfter = gapRatesAfter(k, lambda, u, 0);
  return { lambda, kktMaxRel, coulombMerit: coulombMeritFromU(k.mu, k.b, lambda, u), kineticEnergyChange: impulseEnergyChange(k, lambda, gapAfter), gapAfter };
}

/** Re-solves frame `index` with `options`; cold start unless `warmFromRecorded`. Islands beyond the dense limit are re-solved without A. */
export function whatIf(session: Session, index: number, options: SolveOptions, warmFromRecorded = false): FrameWhatIf {
  const detail = session.detail(index);
  const islands: IslandWhatIf[] = [];
  const skipped: { contacts: readonly number[]; reason: string }[] = [];
  for (const isl of detail.islands) {
    let recorded: Alternative, result: SolveResult, alt: Alternative;
    if (isl.problem) {
      recorded = evaluate(isl.problem, isl.lambda);
      result = solve(isl.problem, options, warmFromRecorded ? isl.lambda : undefined);
      alt = evaluate(isl.problem, result.lambda);
    } else if (isl.jacobians) {
      const k = isl.jacobians;
      result = solveMatrixFree(k, options, 0, warmFromRecorded ? isl.lambda : undefined, new Float64Array(6 * k.physics.bodies.length));
      const rows = matrixFreeRows(k);
      const ws = new KktWorkspace(k.size);
      recorded = evaluateMatrixFree(k, rows, ws, isl.lambda);
      alt = evaluateMatrixFree(k, rows, ws, result.lambda);
    } else {
      skipped.push({ contacts: isl.contacts, reason: isl.reason ?? 'no problem' });
      continue;
    }
    const diff = new Float64Array(isl.contacts.length);
    for (let c = 0; c < diff.length; c++) for (let r = 0; r < 3; r++) diff[c] = Math.max(diff[c], Math.abs(result.lambda[3 * c + r] - isl.lambda[3 * c + r]));
    islands.push({ contacts: isl.contacts, recorded, alternative: { ...alt, result }, lambdaDifference: diff });
  }
  return { frame: detail.frame, islands, skipped };
}
