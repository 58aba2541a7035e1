/**
 * One island's solve without the dense A (islands beyond the dense limit, and PGS islands beyond
 * PGS_MATRIX_FREE_FROM): PGS runs its kernel matrix-free (pgsRows.ts), Newton the sparse Newton
 * (newtonSparse.ts), IPM the sparse interior point (ipmSparse.ts), and Coulomb the exact Coulomb solver on W's
 * block rows built from the Jacobians (coulombMatrixFree.ts). The one dispatch shared by the world step
 * (solveIsland.ts) and the inspector's what-if (session/whatIf.ts), so both solve large islands alike.
 */
import type { ContactJacobians } from '../assembly.js';
import { solvePgsMatrixFree } from '../solvers/matrixFree.js';
import type { ResidualSweeps } from '../solvers/pgs.js';
import { solveIpmSparse } from '../solvers/ipmSparse.js';
import { solveNewtonSparse } from '../solvers/newtonSparse.js';
import { solveCoulombMatrixFree } from '../solvers/coulombMatrixFree.js';
import type { SolveOptions, SolveResult } from '../solvers/types.js';

/**
 * The matrix-free PGS measures the exact KKT residual after sweeps 1, 2, 4, 8, … and the last (pgs.ts
 * ResidualSweeps): each measurement costs about a sweep; the status is decided on the final exact KKT.
 */
export const WORLD_RESIDUAL_SWEEPS: ResidualSweeps = 'doubling';
/**
 * What an IPM solve uses without the dense A: the sparse interior point (ipmSparse.ts) with the options' iteration
 * budget and tolerance (IPM defaults when unset).
 */
export const MATRIX_FREE_FALLBACK = { solver: 'ipm' } as const;

/**
 * Solves the island of `jacobians` with `options`' solver, never forming A; `softening` γ on the normal rows,
 * `warm` the previous λ (every solver starts from it; the interior point shifted into the cones, ipm.ts). The body
 * velocity changes M⁻¹Jᵀλ are added to `dvTotal` (6 per body of the Jacobians' body list; the island's own entries
 * must be zero on entry).
 */
export function solveMatrixFree(
  jacobians: ContactJacobians,
  options: SolveOptions,
  softening: number,
  warm: Float64Array | undefined,
  dvTotal: Float64Array,
): SolveResult {
  if (options.solver === 'pgs') {
    // Δv goes straight into dvTotal (its entries of this island are zero)
    const out = solvePgsMatrixFree(jacobians, options, warm, softening, dvTotal, WORLD_RESIDUAL_SWEEPS);
    return {
      solver: 'pgs',
      lambda: out.lambda,
      w: out.w,
      status: out.status,
      iterations: out.iterations,
      history: out.history,
      regularization: out.regularization,
      timeMs: out.timeMs,
      objective: out.history.objective[out.history.objective.length - 1] ?? 0,
      merit: { problem: 'qp-socp', value: out.kkt.maxRel },
      kkt: out.kkt,
      contactClass: out.contactClass,
    };
  }
  if (options.solver === 'coulomb') return solveCoulombMatrixFree(jacobians, options, softening, warm, dvTotal);
  const { maxIterations, tolerance } = options;
  const budget = { ...(maxIterations !== undefined ? { maxIterations } : {}), ...(tolerance !== undefined ? { tolerance } : {}) };
  const out =
    options.solver === 'newton'
      ? solveNewtonSparse(jacobians, { ...options, ...budget }, softening, warm)
      : solveIpmSparse(jacobians, { ...MATRIX_FREE_FALLBACK, ...budget }, softening, 'krylov', undefined, warm);
  const status = out.status;
  for (let i = 0; i < out.dv.length; i++) dvTotal[i] += out.dv[i];
  return {
    solver: out.solver,
    lambda: out.lambda,
    w: out.w,
    status,
    iterations: out.iterations,
    history: out.history,
    regularization: out.regularization,
    timeMs: out.timeMs,
    objective: out.objective,
    merit: { problem: 'qp-socp', value: out.kkt.maxRel },
    kkt: out.kkt,
    contactClass: out.contactClass,
  };
}
