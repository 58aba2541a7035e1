/**
 * Newton solver for islands of any size (docs/physics.md "Solvers"): the phases of newton.ts without the
 * dense A — every product with A = J M⁻¹ Jᵀ + S is matrix-free and every Newton system is solved in body
 * space (naturalMapSparse.ts).
 *
 *  0. Start. Warm: λ⁰ = Proj_K(λ_prev). Cold: λ¹ = Proj_K(A⁻¹b) (naturalMapSparse.ts coldStart), kept only if
 *     f(λ¹) ≤ f(0); counts as one iteration.
 *  1. Local phase, from a start of KKT max_rel ≤ LOCAL_START_MAX_REL (newton.ts): sparse semismooth Newton steps
 *     on the checker's natural map (Facchinei & Pang 2003 §7.5, Qi & Sun 1993), each projected onto K and kept
 *     only when it lowers the KKT max_rel; the phase ends at the first step that does not multiply the residual
 *     by LOCAL_RATE (newton.ts), after LOCAL_STEPS at most.
 *  2. Globalisation: the sparse interior point (ipmSparse.ts, which ends with the same sparse natural-map
 *     polish) with the budget left, from the warm λ shifted into the cones when there is one (its own start
 *     where that does not converge), else from its own start; the better end point (smaller KKT max_rel) is
 *     kept. From the local phase's end instead it was slower (docs/benchmarks.md).
 * Iterations: the cold start's solve, each local Newton step, each interior-point iteration and polish step —
 * one per factorised linear system. Status: the checker's ("converged" only at KKT max_rel ≤ tolerance on
 * finite data).
 */
import type { ContactJacobians } from '../assembly.js';
import { classifyContacts } from '../kkt.js';
import { nowMs } from '../clock.js';
import { projectCone } from '../cone.js';
import { HistoryRecorder, objectiveFromAlam } from './history.js';
import { solveIpmSparse } from './ipmSparse.js';
import { SparseNaturalMap, polishNaturalMapSparse } from './naturalMapSparse.js';
import { LOCAL_BACKTRACKS, LOCAL_RATE, LOCAL_START_MAX_REL, LOCAL_STEPS, NEWTON_DEFAULTS } from './newton.js';
import type { NewtonOptions, SolveResult, SolveStatus } from './types.js';
import { formatCount, formatNumber } from '../numberText.js';

/** A SolveResult of the QP-SOCP (merit added by the caller) with the sparse Newton's own figures. */
export interface SparseNewtonOutput extends Omit<SolveResult, 'merit' | 'solver'> {
  readonly solver: 'newton';
  /** Δv = M⁻¹Jᵀλ, 6 per body of the Jacobians' body list. */
  readonly dv: Float64Array;
  /** Local semismooth Newton steps, and the interior-point phase's iterations (−1: not run). */
  readonly localSteps: number;
  readonly ipmIterations: number;
  /** Bytes of the typed arrays of the local phase (the interior point's own are not added). */
  readonly memoryBytes: number;
}

/**
 * Solves the QP-SOCP of the island given by its Jacobians with the sparse Newton method (file header);
 * `softening` γ is added to the normal rows as in the matrix-free PGS; `warm` is the previous frame's λ.
 */
export function solveNewtonSparse(k: ContactJacobians, opts: NewtonOptions, softening = 0, warm?: Float64Array): SparseNewtonOutput {
  const t0 = nowMs();
  const maxIt = Math.max(0, Math.floor(opts.maxIterations ?? NEWTON_DEFAULTS.maxIterations));
  const tol = opts.tolerance ?? NEWTON_DEFAULTS.tolerance;
  const backtracks = opts.maxBacktracks ?? NEWTON_DEFAULTS.maxBacktracks;
  const n = k.size,
    C = k.contactCount;
  const nm = new SparseNaturalMap(k, softening);
  const hist = new HistoryRecorder(maxIt + 2);
  const record = (rel: number, f: number): void => hist.record(rel, f);
  const lam = new Float64Array(n);
  let iterations = 0,
    localSteps = 0,
    ipmIterations = -1,
    regularization = 0;

  const finish = (status: SolveStatus): SparseNewtonOutput => {
    const report = { ...kktReport() };
    const w = Float64Array.from(nm.ws.w);
    const f = objectiveFromAlam(lam, nm.ws.Alam, k.b, n);
    let st = status;
    if (st.kind === 'converged' && !(report.maxRel <= tol))
      st = { kind: 'stalled', reason: `KKT max_rel ${formatNumber(report.maxRel)} > ${formatNumber(tol)}` };
    if (st.kind !== 'failed' && !Number.isFinite(report.maxRel)) st = { kind: 'failed', reason: 'λ or w is not finite' };
    return {
      solver: 'newton',
      lambda: Float64Array.from(lam),
      w,
      dv: Float64Array.from(nm.rows.dv),
      status: st,
      iterations,
      history: hist.finish(),
      regularization,
      timeMs: nowMs() - t0,
      objective: f,
      kkt: report,
      contactClass: classifyContacts(k, lam, w, report.lamRef, report.wRef),
      localSteps,
      ipmIterations,
      memoryBytes: nm.bytes,
    };
  };
  const kktReport = (): typeof nm.ws.report => {
    nm.merit(lam);
    return nm.ws.report;
  };

  // 0. start
  const start = warm && warm.length === n ? warm : undefined;
  if (start) {
    lam.set(start);
    for (let c = 0; c < C; c++) projectCone(lam, 3 * c, k.mu[c], lam); // feasibility restoration
  } else {
    record(nm.merit(lam), 0);
    if (maxIt > 0) {
      nm.coldStart(lam);
      iterations = 1;
    }
  }
  let r = nm.merit(lam);
  record(r, objectiveFromAlam(lam, nm.ws.Alam, k.b, n));
  if (r <= tol) return finish({ kind: 'converged' });

  // 1. local semismooth Newton (LOCAL_RATE rule, newton.ts), only the step lengths that can meet it (LOCAL_BACKTRACKS),
  // only from a start within LOCAL_START_MAX_REL: the interior point below does not start from the local phase's
  // end, which is kept only if it ends lower
  if (r <= LOCAL_START_MAX_REL) {
    const local = polishNaturalMapSparse(
      nm,
      lam,
      r,
      tol,
      Math.min(LOCAL_STEPS, maxIt - iterations),
      record,
      Math.min(backtracks, LOCAL_BACKTRACKS),
      LOCAL_RATE,
    );
    localSteps = local.steps;
    iterations += local.steps;
    r = local.bestRel;
    if (r <= tol) return finish({ kind: 'converged' });
  }

  // 2. globalisation by the sparse interior point (with its sparse polish), the budget left
  const budget = maxIt - iterations;
  if (budget <= 0) {
    return finish({
      kind: 'max-iterations',
      reason: `KKT max_rel ${formatNumber(r)} > ${formatNumber(tol)} after ${formatCount(iterations, 'iteration')} (local phase only)`,
    });
  }
  const g = solveIpmSparse(k, { solver: 'ipm', tolerance: tol, maxIterations: budget }, softening, 'krylov', nm, start);
  ipmIterations = g.iterations;
  iterations += g.iterations;
  for (let i = 0; i < g.history.residual.length; i++) record(g.history.residual[i], g.history.objective[i]);
  if (g.regularization > regularization) regularization = g.regularization;
  const rg = g.kkt.maxRel;
  if (rg <= r || !Number.isFinite(r)) {
    lam.set(g.lambda);
    r = rg;
  }
  if (r <= tol) return finish({ kind: 'converged' });
  const phase = g.status.kind === 'converged' ? 'converged by its own test' : g.status.reason;
  const reason = `KKT max_rel ${formatNumber(r)} > ${formatNumber(tol)} after ${formatCount(iterations, 'iteration')} (${formatCount(localSteps, 'local Newton step')}; interior-point phase: ${phase})`;
  return finish(g.status.kind === 'max-iterations' || g.status.kind === 'failed' ? { kind: g.status.kind, reason } : { kind: 'stalled', reason });
}
