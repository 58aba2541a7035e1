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
import { coneProjectionJacobian, projectCone } from '../cone.js';
import { type CoulombMeritWorkspace, coulombMerit } from '../coulombMerit.js';
import { type PolishWorkspace, projectedLineSearch } from './polish.js';

/** F and J of the Coulomb natural map at λ into pw.F, pw.J (u = Aλ − b given). */
function coulombJacobian(p: ContactProblem, lam: Float64Array, u: Float64Array, pw: PolishWorkspace): void {
  const { A, mu, size: n, contactCount: C } = p;
  const { J, F, pt, dPi, rho } = pw;
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      m = mu[c],
      r = rho[c],
      d = 9 * c;
    const ut = Math.hypot(u[o + 1], u[o + 2]);
    pt[o] = lam[o] - r * (u[o] + m * ut);
    pt[o + 1] = lam[o + 1] - r * u[o + 1];
    pt[o + 2] = lam[o + 2] - r * u[o + 2];
    coneProjectionJacobian(pt[o], pt[o + 1], pt[o + 2], m, dPi, d);
    projectCone(pt, o, m, pt);
    for (let k = 0; k < 3; k++) F[o + k] = lam[o + k] - pt[o + k];
    const e1 = ut > 0 ? (m * u[o + 1]) / ut : 0,
      e2 = ut > 0 ? (m * u[o + 2]) / ut : 0;
    // rows of J = I − Π′ + Π′·ρ·∂ũ/∂λ (block rows of contact c)
    for (let i = 0; i < 3; i++) {
      const row = (o + i) * n;
      const a0 = dPi[d + 3 * i],
        a1 = dPi[d + 3 * i + 1],
        a2 = dPi[d + 3 * i + 2];
      const rn = o * n,
        r1 = (o + 1) * n,
        r2 = (o + 2) * n;
      for (let j = 0; j < n; j++) {
        const dn = A[rn + j] + e1 * A[r1 + j] + e2 * A[r2 + j];
        J[row + j] = r * (a0 * dn + a1 * A[r1 + j] + a2 * A[r2 + j]);
      }
      for (let k = 0; k < 3; k++) J[row + o + k] -= dPi[d + 3 * i + k];
      J[row + o + i] += 1;
    }
  }
}

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
    coulombJacobian(p, best, ws.u, pw);
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
