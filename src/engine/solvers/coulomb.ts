/**
 * Exact Coulomb friction (docs/physics.md "Coulomb's law and the De Saxcé fixed point"): find λ with
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
 * A warm start, projected onto K, gives s⁰ (interior-point solves ignore warm starts themselves); without
 * one s⁰ = 0.
 */
import type { ContactProblem } from '../problem.js';
import { projectCone } from '../cone.js';
import { CoulombMeritWorkspace, coulombLawResidual, coulombMerit } from '../coulombMerit.js';
import { HistoryRecorder } from './history.js';
import { solveIpm } from './ipm.js';
import { coulombNewton } from './coulombNewton.js';
import { PolishWorkspace } from './polish.js';
import type { AlgorithmOutput, CoulombOptions, SolveStatus } from './types.js';
import { formatCount, formatNumber } from '../numberText.js';

/** Default fixed-point budget (each iteration is one interior-point solve). */
export const COULOMB_DEFAULT_MAX_ITERATIONS = 100;
/** Default tolerance on the Coulomb merit (FCLIB's natural-map residual, relative to 1 + ‖q‖). */
export const COULOMB_DEFAULT_TOLERANCE = 1e-9;
/**
 * The fixed point converges linearly at best (Acary et al. 2011 prove existence, not a rate): after
 * COULOMB_STALL_WINDOW iterations that do not lower the best merit by the factor COULOMB_PROGRESS,
 * Newton (coulombNewton.ts) takes over from the best iterate; when Newton stops above the tolerance (it
 * converges locally only), the fixed point goes on from its own last iterate, and so on within the budget.
 */
export const COULOMB_STALL_WINDOW = 3;
export const COULOMB_PROGRESS = 0.5;
/** Fixed-point iterations without any new best merit (Newton included) before "stalled". */
export const COULOMB_GIVE_UP = 30;
/** Newton steps on the Coulomb natural map after the fixed point (coulombNewton.ts). */
export const COULOMB_NEWTON_STEPS = 50;
/**
 * Largest scale-free residual of Coulomb's law per contact (coulombLawResidual) that "converged" accepts,
 * beside the merit's tolerance: the merit alone said "converged" for λ = 0 on A = I, b = (1, 1, 0), μ = 1e9
 * (a contact left approaching at 1 m/s) and on problems with ‖b‖ ≈ 1e-9 (the merit is absolute there).
 */
export const COULOMB_LAW_TOLERANCE = 1e-6;

export function solveCoulomb(p: ContactProblem, opts: CoulombOptions, warmStart?: Float64Array): AlgorithmOutput {
  const maxIt = Math.max(0, Math.floor(opts.maxIterations ?? COULOMB_DEFAULT_MAX_ITERATIONS));
  const tol = opts.tolerance ?? COULOMB_DEFAULT_TOLERANCE;
  const { A, b, size: n, contactCount: C, mu } = p;
  const history = new HistoryRecorder(maxIt);
  let pw: PolishWorkspace | undefined; // Newton's work arrays, allocated on its first use
  const ws = new CoulombMeritWorkspace(n);
  const shifted = Float64Array.from(b);
  // The convex subproblem: the same A and μ, b_n lowered by the frozen De Saxcé shift.
  const sub: ContactProblem = { contactCount: C, size: n, A, b: shifted, mu, regularization: p.regularization };
  const best = new Float64Array(n);
  if (warmStart) for (let c = 0; c < C; c++) projectCone(warmStart, 3 * c, mu[c], best);

  // An iterate's score: ≤ 1 exactly when the merit meets the tolerance AND every contact meets Coulomb's law
  // in scale-free terms (COULOMB_LAW_TOLERANCE); the best iterate is the one with the smallest score.
  const score = (lam: Float64Array): number => {
    const m = coulombMerit(p, lam, ws); // also ws.u = Aλ − b
    return Math.max(m / tol, coulombLawResidual(p, lam, ws.u).value / COULOMB_LAW_TOLERANCE);
  };
  let bestScore = score(best);
  history.record(coulombMerit(p, best, ws), objective(best, ws.u, b));
  let iterations = 0,
    innerIterations = 0,
    sinceBest = 0,
    regularization = 0;
  const finish = (status: SolveStatus): AlgorithmOutput => ({
    lambda: best,
    iterations,
    status,
    regularization,
    history: history.finish(),
    merit: { problem: 'coulomb', value: coulombMerit(p, best, ws) },
  });
  if (bestScore <= 1) return finish({ kind: 'converged' });

  let newtonSteps = 0,
    sinceNewBest = 0; // fixed-point iterations since the last new best score
  coulombMerit(p, best, ws);
  // u = Aλ − b of the fixed point's own last iterate. Without a warm start the first shift is s⁰ = 0: the
  // first iterate is the QP-SOCP solution, which is a Coulomb solution when no contact slides (from λ⁰ = 0,
  // s⁰ = μ‖b_t‖ can pin the fixed point at λ = 0 for a large μ).
  const fpU = warmStart ? Float64Array.from(ws.u) : new Float64Array(n);
  while (iterations < maxIt) {
    // s = μ‖u_t‖ of the fixed point's last iterate.
    for (let c = 0; c < C; c++) shifted[3 * c] = b[3 * c] - mu[c] * Math.hypot(fpU[3 * c + 1], fpU[3 * c + 2]);
    const out = solveIpm(sub, { solver: 'ipm' });
    iterations++;
    innerIterations += out.iterations;
    if (out.regularization > regularization) regularization = out.regularization;
    if (out.status.kind === 'failed') {
      return finish({ kind: 'failed', reason: `the interior-point solve of fixed-point iteration ${iterations} failed: ${out.status.reason}` });
    }
    const sc = score(out.lambda);
    const m = coulombMerit(p, out.lambda, ws);
    fpU.set(ws.u);
    history.record(m, objective(out.lambda, ws.u, b));
    if (!Number.isFinite(m)) return finish({ kind: 'failed', reason: `the Coulomb merit is not finite after fixed-point iteration ${iterations}` });
    if (sc < COULOMB_PROGRESS * bestScore) sinceBest = 0;
    else sinceBest++;
    if (sc < bestScore) {
      bestScore = sc;
      best.set(out.lambda);
      sinceNewBest = 0;
    } else sinceNewBest++;
    if (bestScore <= 1) return finish({ kind: 'converged' });
    if (sinceBest < COULOMB_STALL_WINDOW) continue;
    // Slow: Newton from the best iterate (coulombNewton.ts) on the same score, fast once close; the fixed
    // point goes on from its own iterate if Newton stops above the tolerance.
    sinceBest = 0;
    pw ??= new PolishWorkspace(n, C);
    const newton = coulombNewton(p, best, bestScore, 1, Math.min(COULOMB_NEWTON_STEPS, maxIt - iterations), ws, pw, score, () =>
      history.record(coulombMerit(p, best, ws), objective(best, ws.u, b)),
    );
    iterations += newton.steps;
    newtonSteps += newton.steps;
    if (newton.bestMerit < bestScore) sinceNewBest = 0;
    bestScore = newton.bestMerit;
    if (bestScore <= 1) return finish({ kind: 'converged' });
    if (sinceNewBest >= COULOMB_GIVE_UP) {
      return finish({
        kind: 'stalled',
        reason: `${summary()}: no new best in ${formatCount(sinceNewBest, 'fixed-point iteration')} and Newton does not lower it`,
      });
    }
  }
  return finish({ kind: 'max-iterations', reason: `${summary()} after the budget of ${formatCount(maxIt, 'iteration')}` });

  function summary(): string {
    const merit = coulombMerit(p, best, ws);
    const law = coulombLawResidual(p, best, ws.u);
    const what =
      merit > tol
        ? `Coulomb merit ${formatNumber(merit)} > tolerance ${formatNumber(tol)}`
        : `Coulomb merit ${formatNumber(merit)} meets the tolerance but contact ${law.contact} breaks Coulomb's law (relative residual ${formatNumber(law.value)} > ${formatNumber(COULOMB_LAW_TOLERANCE)})`;
    return `${what} (${formatCount(iterations - newtonSteps, 'fixed-point iteration')} with ${formatCount(innerIterations, 'interior-point iteration')}, ${formatCount(newtonSteps, 'Newton step')})`;
  }
}

/** f(λ) = ½λᵀAλ − bᵀλ from u = Aλ − b: Σ λᵢ(uᵢ − bᵢ)/2. */
function objective(lambda: Float64Array, u: Float64Array, b: Float64Array): number {
  let f = 0;
  for (let i = 0; i < lambda.length; i++) f += 0.5 * lambda[i] * (u[i] - b[i]);
  return f;
}
