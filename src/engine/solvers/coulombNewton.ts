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
import { naturalMapNewton, type PolishWorkspace } from './polish.js';

/**
 * Up to maxSteps Newton steps from `best` (whose `merit` is bestMerit: the Coulomb merit, or coulomb.ts's
 * score, which adds the per-contact law), in place; each step keeps the candidate (projected onto K) with
 * the smallest merit and stops when a step cannot lower it or the merit reaches tol.
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
  merit: (cand: Float64Array) => number,
  record: (merit: number) => void,
): { bestMerit: number; steps: number } {
  const velocity = (lam: Float64Array): Float64Array => {
    coulombMerit(p, lam, ws); // ws.u = Aλ − b
    return ws.u;
  };
  const r = naturalMapNewton(p, best, bestMerit, tol, maxSteps, pw, true, velocity, merit, record);
  coulombMerit(p, best, ws);
  return r;
}
