/** solve(problem, options, warmStart?) — one entry point for PGS, projected Newton, interior point and exact Coulomb. */
import type { ContactProblem } from '../problem.js';
import { objective } from '../problem.js';
import { classifyContacts, kkt } from '../kkt.js';
import type { SolveOptions, SolveResult, SolveStatus } from './types.js';
import { solvePgs } from './pgs.js';
import { solveNewton } from './newton.js';
import { solveIpm } from './ipm.js';
import { solveCoulomb } from './coulomb.js';
import { nowMs as now } from '../clock.js';
import { maxIterationsProblem } from './limits.js';

/**
 * The one finite check every solver result passes: a status never overstates (DESIGN.md), so a λ, w,
 * objective or KKT residual holding NaN or ±∞ (overflow, e.g. b ≈ 1e300, or an unbounded problem) is "failed",
 * whatever the algorithm reported. An already failed status keeps its own reason.
 */
export function finiteStatus(status: SolveStatus, lambda: Float64Array, w: Float64Array, f: number, residual = 0): SolveStatus {
  if (status.kind === 'failed') return status;
  const bad = (a: Float64Array): number => {
    for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return i;
    return -1;
  };
  const il = bad(lambda),
    iw = bad(w);
  const what =
    il >= 0
      ? `λ[${il}] = ${lambda[il]}`
      : iw >= 0
        ? `w[${iw}] = ${w[iw]}`
        : !Number.isFinite(f)
          ? `the objective (${f})`
          : !Number.isFinite(residual)
            ? `the merit (${residual})`
            : null;
  if (what === null) return status;
  return {
    kind: 'failed',
    reason: `${what} is not finite after ${status.kind === 'converged' ? 'a reported convergence' : status.kind}: the data overflow double precision or the problem is unbounded`,
  };
}

export function solve(p: ContactProblem, options: SolveOptions, warmStart?: ArrayLike<number>): SolveResult {
  if (warmStart && warmStart.length !== p.size) {
    throw new RangeError(`warmStart has ${warmStart.length} entries, expected 3·C = ${p.size}`);
  }
  const badBudget = options.maxIterations === undefined ? undefined : maxIterationsProblem(options.maxIterations);
  if (badBudget) throw new RangeError(`maxIterations ${badBudget} (got ${options.maxIterations})`);
  const warm = warmStart ? Float64Array.from(warmStart) : undefined;
  const t0 = now();
  const out =
    options.solver === 'pgs'
      ? solvePgs(p, options, warm)
      : options.solver === 'newton'
        ? solveNewton(p, options, warm)
        : options.solver === 'ipm'
          ? solveIpm(p, options, warm)
          : solveCoulomb(p, options, warm);
  const timeMs = now() - t0;
  const report = kkt(p, out.lambda);
  const w = new Float64Array(p.size);
  for (let i = 0; i < p.size; i++) {
    let s = -p.b[i];
    for (let j = 0; j < p.size; j++) s += p.A[i * p.size + j] * out.lambda[j];
    w[i] = s;
  }
  const f = objective(p, out.lambda);
  const merit = out.merit ?? { problem: 'qp-socp', value: report.maxRel };
  return {
    solver: options.solver,
    lambda: out.lambda,
    w,
    status: finiteStatus(out.status, out.lambda, w, f, merit.value),
    iterations: out.iterations,
    history: out.history,
    regularization: out.regularization,
    timeMs,
    objective: f,
    merit,
    kkt: report,
    contactClass: classifyContacts(p, out.lambda, w, report.lamRef, report.wRef),
  };
}
