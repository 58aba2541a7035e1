/** solve(problem, options, warmStart?) — one entry point for PGS, projected Newton and interior point. */
import type { ContactProblem } from '../problem.js';
import { objective } from '../problem.js';
import { classifyContacts, kkt } from '../kkt.js';
import type { SolveOptions, SolveResult } from './types.js';
import { solvePgs } from './pgs.js';
import { solveNewton } from './newton.js';
import { solveIpm } from './ipm.js';
import { nowMs as now } from '../clock.js';

export function solve(p: ContactProblem, options: SolveOptions, warmStart?: ArrayLike<number>): SolveResult {
  if (warmStart && warmStart.length !== p.size) {
    throw new RangeError(`warmStart has ${warmStart.length} entries, expected 3·C = ${p.size}`);
  }
  const warm = warmStart ? Float64Array.from(warmStart) : undefined;
  const t0 = now();
  const out = options.solver === 'pgs' ? solvePgs(p, options, warm)
    : options.solver === 'newton' ? solveNewton(p, options, warm)
      : solveIpm(p, options, warm);
  const timeMs = now() - t0;
  const report = kkt(p, out.lambda);
  const w = new Float64Array(p.size);
  for (let i = 0; i < p.size; i++) {
    let s = -p.b[i];
    for (let j = 0; j < p.size; j++) s += p.A[i * p.size + j] * out.lambda[j];
    w[i] = s;
  }
  return {
    solver: options.solver,
    lambda: out.lambda,
    w,
    status: out.status,
    iterations: out.iterations,
    history: out.history,
    regularization: out.regularization,
    timeMs,
    objective: objective(p, out.lambda),
    kkt: report,
    contactClass: classifyContacts(p, out.lambda, w, report.lamRef, report.wRef),
  };
}
