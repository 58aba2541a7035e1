/**
 * The exact Coulomb solver's last resort (coulomb.ts) for a symmetric positive semidefinite A, where the
 * hybrid of Gauss–Seidel and proximal Newton stalls (strongly redundant stacks with mass ratios ~1e4): find λ with
 *
 *   λ ∈ K,  ũ = u + μ‖u_t‖e_n ∈ K*,  λ ⊥ ũ,   u = Aλ − b            (De Saxcé & Feng 1991)
 *
 * — a sliding contact keeps u_n = 0, where the convex QP-SOCP lifts it to u_n = μ‖u_t‖ (docs/physics.md
 * "The lift"). The problem is not convex. Acary, Cadoux, Lemaréchal & Malick 2011 ("A formulation of the
 * linear discrete Coulomb friction problem via convex optimization", ZAMM 91) write it as a fixed point
 * of convex problems: with s = μ‖u_t‖ per contact frozen, ũ = Aλ − (b − s·e_n) and the conditions above
 * are exactly the KKT conditions of the QP-SOCP with b_n shifted to b_n − s. So:
 *
 *   s⁰ from u(λ⁰);  repeat: λᵏ⁺¹ = argmin QP-SOCP(A, b − sᵏe_n) (interior point, ipm.ts);  sᵏ⁺¹ = μ‖u_t(λᵏ⁺¹)‖
 *
 * until the Coulomb merit (coulombMerit.ts, the FCLIB natural-map residual) meets the tolerance. The
 * status is decided on that merit only: "converged" when it is ≤ tolerance; "stalled" when the fixed
 * point stops improving (Acary et al. 2011 prove existence, not convergence, of this iteration);
 * "max-iterations" when the budget runs out; "failed" when an inner solve fails. λ is the iterate with the
 * smallest merit. `iterations` counts fixed-point iterations (each one a full interior-point solve) plus
 * Newton steps; the history has the merit after each.
 * A warm start, projected onto K, gives s⁰; the first interior-point solve starts from its own point, each later one
 * from the previous one's λ.
 */
import type { ContactProblem } from '../problem.js';
import { projectCone } from '../cone.js';
import { CoulombMeritWorkspace, coulombMerit } from '../coulombMerit.js';
import { formatCount } from '../numberText.js';
import { HistoryRecorder } from './history.js';
import { solveIpm } from './ipm.js';
import { coulombNewton } from './coulombNewton.js';
import { PolishWorkspace } from './polish.js';
import type { AlgorithmOutput, SolveStatus } from './types.js';
import { hypot2Exact } from '../math/hypot.js';

/** Fixed-point budget given by coulomb.ts (each iteration is one interior-point solve). */
export const FIXED_POINT_MAX_ITERATIONS = 100;
/**
 * The fixed point converges linearly at best (Acary et al. 2011 prove existence, not a rate): after
 * FIXED_POINT_STALL_WINDOW iterations that do not lower the best merit by the factor FIXED_POINT_PROGRESS,
 * Newton (coulombNewton.ts) takes over from the best iterate; when Newton stops above the tolerance (it
 * converges locally only), the fixed point goes on from its own last iterate, and so on within the budget.
 */
export const FIXED_POINT_STALL_WINDOW = 3;
export const FIXED_POINT_PROGRESS = 0.5;
/** Fixed-point iterations without any new best merit (Newton included) before "stalled". */
export const FIXED_POINT_GIVE_UP = 30;
/** Newton steps on the Coulomb natural map after the fixed point (coulombNewton.ts). */
export const FIXED_POINT_NEWTON_STEPS = 50;

/** The fixed point's output, with its interior-point solves (one per fixed-point iteration) and their iterations. */
export interface FixedPointOutput extends AlgorithmOutput {
  readonly interiorPointSolves: number;
  readonly interiorPointIterations: number;
}

export function solveCoulombFixedPoint(p: ContactProblem, maxIt: number, tol: number, warmStart?: Float64Array): FixedPointOutput {
  const { A, b, size: n, contactCount: C, mu } = p;
  const history = new HistoryRecorder(maxIt);
  let pw: PolishWorkspace | undefined; // Newton's work arrays, allocated on its first use
  const ws = new CoulombMeritWorkspace(n);
  const shifted = Float64Array.from(b);
  // The convex subproblem: the same A and μ, b_n lowered by the frozen De Saxcé shift.
  const sub: ContactProblem = { contactCount: C, size: n, A, b: shifted, mu, regularization: p.regularization };
  const best = new Float64Array(n);
  if (warmStart) for (let c = 0; c < C; c++) projectCone(warmStart, 3 * c, mu[c], best);

  let bestMerit = coulombMerit(p, best, ws);
  history.record(bestMerit, objective(best, ws.u, b));
  let iterations = 0,
    innerIterations = 0,
    newtonSteps = 0,
    sinceBest = 0,
    regularization = 0;
  const finish = (status: SolveStatus): FixedPointOutput => ({
    lambda: best,
    iterations,
    status,
    regularization,
    history: history.finish(),
    merit: { problem: 'coulomb', value: bestMerit },
    interiorPointSolves: iterations - newtonSteps,
    interiorPointIterations: innerIterations,
  });
  if (bestMerit <= tol) return finish({ kind: 'converged' });

  let sinceNewBest = 0; // fixed-point iterations since the last new best merit
  const fpU = Float64Array.from(ws.u); // u = Aλ − b of the fixed point's own last iterate
  let lastLambda: Float64Array | null = null; // the fixed point's own last iterate
  while (iterations < maxIt) {
    // s = μ‖u_t‖ of the fixed point's last iterate.
    for (let c = 0; c < C; c++) shifted[3 * c] = b[3 * c] - mu[c] * hypot2Exact(fpU[3 * c + 1], fpU[3 * c + 2]);
    // after the first, each convex subproblem starts from the last one's λ (the interior point's shifted warm
    // start, ipm.ts), as the diagnosis' De Saxcé steps do (session/diagnosis/continuation.ts): the shift moves
    // b_n by μ·Δslip, so the last λ is near the next solution; the first starts from the interior point's own point
    const out = solveIpm(sub, { solver: 'ipm' }, lastLambda ?? undefined);
    lastLambda = out.lambda;
    iterations++;
    innerIterations += out.iterations;
    if (out.regularization > regularization) regularization = out.regularization;
    if (out.status.kind === 'failed') {
      return finish({ kind: 'failed', reason: `the interior-point solve of fixed-point iteration ${iterations} failed: ${out.status.reason}` });
    }
    const m = coulombMerit(p, out.lambda, ws);
    fpU.set(ws.u);
    history.record(m, objective(out.lambda, ws.u, b));
    if (!Number.isFinite(m)) return finish({ kind: 'failed', reason: `the Coulomb merit is not finite after fixed-point iteration ${iterations}` });
    if (m < FIXED_POINT_PROGRESS * bestMerit) sinceBest = 0;
    else sinceBest++;
    if (m < bestMerit) {
      bestMerit = m;
      best.set(out.lambda);
      sinceNewBest = 0;
    } else sinceNewBest++;
    if (bestMerit <= tol) return finish({ kind: 'converged' });
    if (sinceBest < FIXED_POINT_STALL_WINDOW) continue;
    // Slow: Newton from the best iterate (coulombNewton.ts), fast once close; the fixed point goes on
    // from its own iterate if Newton stops above the tolerance.
    sinceBest = 0;
    pw ??= new PolishWorkspace(n, C);
    const newton = coulombNewton(
      p,
      best,
      bestMerit,
      tol,
      Math.min(FIXED_POINT_NEWTON_STEPS, maxIt - iterations),
      ws,
      pw,
      (cand) => coulombMerit(p, cand, ws),
      (mm) => history.record(mm, objective(best, ws.u, b)),
    );
    iterations += newton.steps;
    newtonSteps += newton.steps;
    if (newton.bestMerit < bestMerit) sinceNewBest = 0;
    bestMerit = newton.bestMerit;
    if (bestMerit <= tol) return finish({ kind: 'converged' });
    if (sinceNewBest >= FIXED_POINT_GIVE_UP) {
      return finish({ kind: 'stalled', reason: `${summary()}: no new best in ${sinceNewBest} fixed-point iterations and Newton does not lower it` });
    }
  }
  return finish({ kind: 'max-iterations', reason: `${summary()} after the budget of ${formatCount(maxIt, 'iteration')}` });

  function summary(): string {
    return `Coulomb merit ${bestMerit.toExponential(2)} > tolerance ${tol} (${iterations - newtonSteps} fixed-point iterations with ${innerIterations} interior-point iterations, ${newtonSteps} Newton steps)`;
  }
}

/** f(λ) = ½λᵀAλ − bᵀλ from u = Aλ − b: Σ λᵢ(uᵢ − bᵢ)/2. */
function objective(lambda: Float64Array, u: Float64Array, b: Float64Array): number {
  let f = 0;
  for (let i = 0; i < lambda.length; i++) f += 0.5 * lambda[i] * (u[i] - b[i]);
  return f;
}
