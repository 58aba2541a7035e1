/** solve(problem, options, warmStart?) — one entry point for PGS, projected Newton, interior point and exact Coulomb. */
import type { ContactProblem } from '../problem.js';
import { objective } from '../problem.js';
import { classifyContacts, kkt, kktFromW, KktWorkspace, type KktReport } from '../kkt.js';
import type { SolveOptions, SolveResult, SolveStatus } from './types.js';
import { solveDense } from './registry.js';
import { nowMs as now } from '../clock.js';
import { maxIterationsProblem } from './limits.js';
import { convexified } from './convexify.js';

/**
 * The one finite check every solver result passes: a status never overstates (docs/physics.md "The QP-SOCP and its KKT conditions", Status), so a λ, w,
 * objective or KKT residual holding NaN or ±∞ (overflow, e.g. b ≈ 1e300, or an unbounded problem) is "failed",
 * whatever the algorithm reported. An already failed status keeps its own reason.
 */
export function finiteStatus(status: SolveStatus, lambda: Float64Array, w: Float64Array, f: number, residual = 0): SolveStatus {
  if (status.kind === 'failed') return status;
  const il = firstNonFinite(lambda),
    iw = firstNonFinite(w);
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

/** Index of the first NaN or ±∞ in a, or −1 (a module function: a closure per call cost a solve of one contact ~5%). */
function firstNonFinite(a: Float64Array): number {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return i;
  return -1;
}

/** w = Aλ − b, dense. */
function denseVelocity(p: ContactProblem, lambda: Float64Array): Float64Array {
  const { A, b, size: n } = p;
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = -b[i];
    for (let j = 0; j < n; j++) s += A[i * n + j] * lambda[j];
    w[i] = s;
  }
  return w;
}

/** kktFromW's scratch (ρ and a few numbers; not the workspace's w and Aλ), shared: solve() is not re-entered while it runs. */
const kktScratch = new KktWorkspace(0);

/** The KKT report of λ from its w = Aλ − b (kkt.ts kktFromW, with the checker's ρᵢ = 1/max diag Aᵢᵢ). */
function kktOfW(p: ContactProblem, lambda: Float64Array, w: Float64Array): KktReport {
  const { A, size: n, contactCount: C } = p;
  const ws = kktScratch;
  const rho = ws.rho(C);
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    const dmax = Math.max(A[o * n + o], A[(o + 1) * n + o + 1], A[(o + 2) * n + o + 2]);
    rho[c] = dmax > 0 ? 1 / dmax : 1;
  }
  return { ...kktFromW(p.mu, lambda, w, p.b, rho, ws) };
}

/** f(λ) = ½λᵀAλ − bᵀλ = ½λ·(w − b) from w = Aλ − b. */
function objectiveOfW(lambda: Float64Array, w: Float64Array, b: Float64Array): number {
  let f = 0;
  for (let i = 0; i < lambda.length; i++) f += 0.5 * lambda[i] * (w[i] - b[i]);
  return f;
}

export function solve(p: ContactProblem, options: SolveOptions, warmStart?: ArrayLike<number>): SolveResult {
  if (warmStart && warmStart.length !== p.size) {
    throw new RangeError(`warmStart has ${warmStart.length} entries, expected 3·C = ${p.size}`);
  }
  const badBudget = options.maxIterations === undefined ? undefined : maxIterationsProblem(options.maxIterations);
  if (badBudget) throw new RangeError(`maxIterations ${badBudget} (got ${options.maxIterations})`);
  if (options.solver === 'newton' || options.solver === 'ipm') {
    // the QP-SOCP needs a symmetric positive semidefinite matrix: W as real codes write it is not always one
    const tc = now();
    const cv = convexified(p);
    if (cv) return { ...solve(cv.problem, options, warmStart), timeMs: now() - tc, convexified: cv.matrix };
  }
  const warm = warmStart ? Float64Array.from(warmStart) : undefined;
  const t0 = now();
  const out = solveDense(p, options, warm);
  const timeMs = now() - t0;
  const w = out.w ?? denseVelocity(p, out.lambda);
  const report = out.w ? kktOfW(p, out.lambda, out.w) : kkt(p, out.lambda);
  const f = out.w ? objectiveOfW(out.lambda, out.w, p.b) : objective(p, out.lambda);
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
