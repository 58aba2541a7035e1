/**
 * Newton solver for the QP-SOCP (docs/physics.md "Solvers"): a local semismooth Newton phase from the best
 * available start, globalised by the interior-point central path when the local phase does not converge.
 *
 *  0. Start. Warm: λ⁰ = Proj_K(λ_prev). Cold: λ¹ = Proj_K(A⁻¹b) with one Cholesky of A (with the Cholesky
 *     ε-fallback) — exact when every cone is inactive or A = αI; kept only if f(λ¹) ≤ f(0) (for singular A,
 *     A⁻¹b is huge). Counts as one iteration.
 *  1. Local phase: semismooth Newton / Levenberg–Marquardt steps on the checker's natural map
 *     F(λ) = λ − Π_K(λ − ρw) (polish.ts; Facchinei & Pang 2003 §7.5, Qi & Sun 1993), each projected onto K
 *     and accepted only when it lowers the KKT max_rel (kkt.ts). Semismooth Newton converges superlinearly
 *     once the contact modes are right (Qi & Sun 1993), so a step that does not at least multiply the
 *     residual by LOCAL_RATE means the start is outside that region: the phase ends there (at most
 *     LOCAL_STEPS steps).
 *  2. Globalisation: the primal–dual interior-point path (ipm.ts, Nesterov–Todd scaling per contact,
 *     Mehrotra predictor–corrector, AHO endgame, the same natural-map polish). Warm: started from the local
 *     phase's end point pushed inside the cones (solveIpmFrom: the contact modes of the previous frame are
 *     mostly right, so the path is short); if that does not converge, the interior point's own start with
 *     the budget left. Cold: its own start (from Proj_K(A⁻¹b) it is slower, docs/physics.md). Its central path
 *     λ∘w = τe is the smoothing path of the smoothed Fischer–Burmeister equation (Hayashi, Yamashita &
 *     Fukushima, SIAM J. Optim. 15 (2005)); following it with per-contact NT scaling is what keeps the
 *     iteration count flat under mass ratios of 1e4 and rank-deficient A, where merit-function line
 *     searches on the unscaled equation crawl (docs/physics.md "Solvers" gives the measurements).
 * The better of the end points (smaller KKT max_rel) is returned. Convergence test: KKT max_rel
 * (kkt.ts) ≤ tolerance, so "converged" means the same for every solver. Iterations: the cold start's
 * Cholesky, each local Newton step, each interior-point iteration and polish step — one per factorised
 * linear system (a warm interior-point start needs none; [V]'s starting point is not counted, ipm.ts).
 */
import type { ContactProblem } from '../problem.js';
import { KktWorkspace, kktInto } from '../kkt.js';
import { choleskySolve, choleskyWithFallback, REGULARIZATION_MAX } from '../math/cholesky.js';
import { matVec } from '../math/dense.js';
import { HistoryRecorder, objectiveFromAlam } from './history.js';
import { projectAll } from './projectedSteps.js';
import { PolishWorkspace, polishNaturalMap } from './polish.js';
import { solveIpm, solveIpmFrom } from './ipm.js';
import type { AlgorithmOutput, NewtonOptions, SolveStatus } from './types.js';
import { formatCount, formatNumber } from '../numberText.js';

export const NEWTON_DEFAULTS = {
  maxIterations: 100, // local phase ≤ 1 + LOCAL_STEPS, the interior-point budget (ipm.ts: 100) for the rest
  tolerance: 1e-10, // relative KKT residual; an absolute 1e-8 on the natural map leaves f off by ~1e-8 on stacks
  armijo: 1e-4, // Nocedal & Wright 2006 §3.1; not used since the local phase accepts on the KKT residual (types.ts)
  maxBacktracks: 10, // step halvings per local Newton direction
} as const;

/** Most semismooth Newton steps of the local phase. */
export const LOCAL_STEPS = 8;
/** A local step must multiply the KKT max_rel by at most this (superlinear region), else the phase ends. */
export const LOCAL_RATE = 0.5;
/**
 * The sparse local phase starts only from a KKT max_rel at most this: a start further off is outside the region
 * where a semismooth Newton step contracts (Qi & Sun 1993), and its first step would end the phase after a
 * factorisation of the whole island. The sparse interior point that follows does not start from the phase's end
 * (newtonSparse.ts), so skipping the phase changes only the iteration count, not the λ returned when the interior
 * point converges.
 */
export const LOCAL_START_MAX_REL = 0.1;
/**
 * Step halvings per direction in the sparse local phase: near the solution a semismooth Newton step scales the
 * natural-map residual as ‖F(λ + t·dλ)‖ ≈ (1 − t)‖F(λ)‖ (Qi & Sun 1993), so no t < 1 − LOCAL_RATE can meet
 * LOCAL_RATE; t = 1 and ½ are tried. (On box-pile-1000 and pyramid-20 every warm-started local phase failed, its
 * merit flat over t = 1 … 2⁻¹⁰: a λ at the cone boundary moved by any t changes its contact's relative KKT residual by
 * O(1).) The dense local phase keeps NEWTON_DEFAULTS.maxBacktracks: its end point starts the dense interior point.
 */
export const LOCAL_BACKTRACKS = Math.floor(Math.log2(1 / (1 - LOCAL_RATE)));

/** What the local phase did: steps taken and the KKT max_rel it ended with (λ updated in place). */
export interface LocalPhase {
  readonly steps: number;
  readonly residual: number;
}

/**
 * Phase 1: up to maxSteps semismooth Newton steps on the natural map from λ (KKT max_rel r0), in place;
 * stops at the tolerance, or after the first step that does not reach LOCAL_RATE·(previous residual) — that
 * step is kept if it lowered the residual at all (polish.ts only keeps improving steps).
 */
export function localNewton(
  p: ContactProblem,
  lam: Float64Array,
  r0: number,
  tol: number,
  maxSteps: number,
  ws: KktWorkspace,
  pw: PolishWorkspace,
  record: (rel: number, f: number) => void,
  backtracks: number = NEWTON_DEFAULTS.maxBacktracks,
): LocalPhase {
  let r = r0,
    steps = 0;
  while (steps < maxSteps && r > tol) {
    const out = polishNaturalMap(p, lam, r, tol, 1, ws, pw, record, backtracks);
    steps += out.steps;
    const fast = out.bestRel <= LOCAL_RATE * r;
    r = out.bestRel;
    if (!fast || out.steps === 0) break;
  }
  return { steps, residual: r };
}

/**
 * Phase 0 of a cold start: λ = Proj_K(A⁻¹b), or 0 when f(Proj_K(A⁻¹b)) > f(0) = 0; returns the Cholesky
 * ε used, or −1 when A does not factorise even with the largest ε (not PSD).
 */
export function coldStart(p: ContactProblem, lam: Float64Array, Ab: Float64Array): number {
  const { A, b, size: n } = p;
  const f = choleskyWithFallback(A, n, { tryUnshifted: true });
  if (!f) return -1;
  choleskySolve(f, b, lam); // λ_unc = A⁻¹ b
  projectAll(p, lam, lam);
  // For singular A, A⁻¹b is huge and its projection can be far worse than λ = 0 (f(0) = 0): keep the better.
  matVec(A, n, lam, Ab);
  if (objectiveFromAlam(lam, Ab, b, n) > 0) lam.fill(0);
  return f.regularization;
}

export function solveNewton(p: ContactProblem, opts: NewtonOptions, warmStart?: Float64Array): AlgorithmOutput {
  const { b, size: n, contactCount: C } = p;
  const maxIt = opts.maxIterations ?? NEWTON_DEFAULTS.maxIterations;
  const tol = opts.tolerance ?? NEWTON_DEFAULTS.tolerance;
  const hist = new HistoryRecorder(maxIt + 1);
  const ws = new KktWorkspace(n);
  const pw = new PolishWorkspace(n, C);
  const lam = new Float64Array(n);
  const record = (rel: number, f: number): void => hist.record(rel, f);

  let regularization = 0;
  let iterations = 0;
  if (warmStart) {
    projectAll(p, warmStart, lam); // feasibility restoration
  } else {
    record(kktInto(p, lam, ws).maxRel, 0);
    const eps = coldStart(p, lam, pw.res);
    if (eps < 0) {
      return {
        lambda: lam.fill(0),
        iterations: 0,
        regularization: REGULARIZATION_MAX,
        history: hist.finish(),
        status: { kind: 'failed', reason: `A is not positive semidefinite: Cholesky failed even with ε = ${REGULARIZATION_MAX}` },
      };
    }
    regularization = eps;
    iterations = 1;
  }
  let r = kktInto(p, lam, ws).maxRel;
  record(r, objectiveFromAlam(lam, ws.Alam, b, n));
  if (r <= tol) return { lambda: lam, iterations, regularization, history: hist.finish(), status: { kind: 'converged' } };

  // 1. local semismooth Newton
  const backtracks = opts.maxBacktracks ?? NEWTON_DEFAULTS.maxBacktracks;
  const local = localNewton(p, lam, r, tol, Math.min(LOCAL_STEPS, maxIt - iterations), ws, pw, record, backtracks);
  iterations += local.steps;
  r = local.residual;
  if (r <= tol) return { lambda: lam, iterations, regularization, history: hist.finish(), status: { kind: 'converged' } };

  // 2. globalisation by the interior-point path (its own start inside the cones)
  const budget = maxIt - iterations;
  if (budget <= 0) {
    const reason = `KKT max_rel ${formatNumber(r)} > ${formatNumber(tol)} after ${formatCount(iterations, 'iteration')} (local phase only)`;
    return { lambda: lam, iterations, regularization, history: hist.finish(), status: { kind: 'max-iterations', reason } };
  }
  const ipmOpts = { solver: 'ipm', tolerance: tol, maxIterations: budget } as const;
  /** Counts an interior-point run's iterations, history and regularisation into this solve; its KKT max_rel. */
  const absorb = (run: AlgorithmOutput): number => {
    iterations += run.iterations;
    for (let k = 0; k < run.history.residual.length; k++) record(run.history.residual[k], run.history.objective[k]);
    if (run.regularization > regularization) regularization = run.regularization;
    return kktInto(p, run.lambda, ws).maxRel;
  };
  let g = warmStart ? solveIpmFrom(p, ipmOpts, lam) : solveIpm(p, ipmOpts);
  let rg = absorb(g);
  if (warmStart && !(rg <= tol) && maxIt - iterations > 0) {
    // the warm interior path did not get there: the interior point's own start, with the budget left
    const h = solveIpm(p, { ...ipmOpts, maxIterations: maxIt - iterations });
    const rh = absorb(h);
    if (rh <= rg || !Number.isFinite(rg)) {
      g = h;
      rg = rh;
    }
  }
  const useGlobal = rg <= r || !Number.isFinite(r);
  if (useGlobal) lam.set(g.lambda);
  const rBest = useGlobal ? rg : r;
  let status: SolveStatus;
  if (rBest <= tol) status = { kind: 'converged' };
  else {
    const phase = g.status.kind === 'converged' ? 'converged by its own test' : g.status.reason;
    const reason = `KKT max_rel ${formatNumber(rBest)} > ${formatNumber(tol)} after ${formatCount(iterations, 'iteration')} (${formatCount(local.steps, 'local Newton step')}; interior-point phase: ${phase})`;
    status = g.status.kind === 'max-iterations' || g.status.kind === 'failed' ? { kind: g.status.kind, reason } : { kind: 'stalled', reason };
  }
  return { lambda: lam, iterations, regularization, history: hist.finish(), status };
}
