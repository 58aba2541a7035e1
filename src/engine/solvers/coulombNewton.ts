/**
 * Semismooth Newton / Levenberg–Marquardt finish for the exact Coulomb problem (coulomb.ts) on its natural
 * map (Alart & Curnier 1991 write the same law as a semismooth equation; Acary, Brémond & Huber 2018 compare
 * these Newton methods on FCLIB):
 *
 *   F(λ) = λ − Π_K(λ − ρ ũ(λ)),   ũᵢ = uᵢ + μᵢ‖u_t,ᵢ‖e_n,   u = Aλ − b,   ρᵢ = 1/max diag Aᵢᵢ,
 *   J    = I − Π′ (I − ρ ∂ũ/∂λ),   ∂ũᵢ/∂λ = A_i + μᵢ e_n t̂ᵢᵀ A_t,ᵢ   (t̂ = u_t/‖u_t‖; 0 when u_t = 0),
 *
 * with Π′ the derivative of the cone projection (the same three pieces as polish.ts). Directions come from
 * polish.ts (scaled LM, then plain Newton); each is backtracked and kept only if it lowers the Coulomb
 * merit (coulombMerit.ts). Used when the De Saxcé fixed point stalls above the tolerance.
 */
import type { ContactProblem } from '../problem.js';
import { type CoulombMeritWorkspace, coulombMerit } from '../coulombMerit.js';
import { naturalMapJacobian, type PolishWorkspace, projectedLineSearch } from './polish.js';

/**
 * Up to maxSteps Newton steps from `best` (Coulomb merit bestMerit), in place; each step keeps the
 * candidate (projected onto K) with the smallest merit and stops when a step cannot lower it.
 * `record` is called once per step with the merit reached.
 */
export function coulombNewton(
  p: ContactProblem,
  best: Float64Array,
  bestMerit: number,
  tol: number,
  maxSteps: number,
  ws: CoulombMeritWorkspace,
  pw: PolishWorkspace,
  record: (merit: number) => void,
): { bestMerit: number; steps: number } {
  const { A, mu, size: n, contactCount: C } = p;
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    const dmax = Math.max(A[o * n + o], A[(o + 1) * n + o + 1], A[(o + 2) * n + o + 2]);
    pw.rho[c] = dmax > 0 ? 1 / dmax : 1;
  }
  let steps = 0;
  const meritOf = (cand: Float64Array): number => coulombMerit(p, cand, ws); // once, not per step
  while (steps < maxSteps && bestMerit > tol) {
    coulombMerit(p, best, ws); // ws.u = Aλ − b at the current point
    naturalMapJacobian(p, best, ws.u, pw, true); // De Saxcé-modified map
    steps++;
    const candMerit = projectedLineSearch(n, C, mu, best, bestMerit, pw, meritOf);
    const improved = candMerit < bestMerit;
    if (improved) {
      bestMerit = candMerit;
      best.set(pw.bestCand);
    }
    record(bestMerit);
    if (!improved) break;
  }
  coulombMerit(p, best, ws);
  return { bestMerit, steps };
}
