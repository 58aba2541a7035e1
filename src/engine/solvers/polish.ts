/**
 * Semismooth Newton / Levenberg–Marquardt polish on the checker's natural map F(λ) = λ − Π_K(λ − ρw)
 * ([FP] F. Facchinei, J.-S. Pang, "Finite-Dimensional Variational Inequalities and Complementarity
 * Problems" (2003) §7.5; [LM] J. J. Moré, "The Levenberg–Marquardt algorithm: implementation and theory",
 * LNM 630 (1978)). Used by the interior-point method and by projected Newton to finish when their main
 * phase stops above the tolerance: each step is kept only if it lowers the KKT max_rel (kkt.ts), and
 * every candidate is projected onto K, so the result stays primal feasible.
 */
import type { ContactProblem } from '../problem.js';
import { type KktWorkspace, kktInto } from '../kkt.js';
import { coneProjectionJacobian, projectCone } from '../cone.js';
import { choleskyInto, choleskySolve, type CholeskyFactor } from '../math/cholesky.js';
import { luInto, luSolve } from '../math/lu.js';
import { objectiveFromAlam } from './history.js';
import { hypot2Exact } from '../math/hypot.js';

/**
 * Levenberg–Marquardt damping δ of the polish, relative to the squared column norms of J: singular
 * directions with σ ≫ √δ = 1e-6 get a full Newton step, those with σ ≪ 1e-6 (the ε·I tie-break of a
 * singular A) hardly move.
 */
export const POLISH_REGULARIZATION = 1e-12;
/** Shift of the plain-Newton polishing matrix J + δ′I (keeps LU defined when J is exactly singular). */
export const POLISH_NEWTON_SHIFT = 1e-14;
/** Step halvings tried per polishing direction. */
/**
 * One semismooth Newton step's line search (the directions in pw.J/pw.F are already formed): for the
 * regularised and then the least-squares direction (polishDirection modes 0, 1), halve t from 1 until
 * Π_K(best + t·dl) lowers `merit` below `bestValue` (`backtracks` halvings at most, default POLISH_BACKTRACKS; candidates are
 * projected onto the cones, so they stay primal feasible). Leaves the lowest candidate in pw.bestCand and
 * returns its merit (Infinity if no direction could be formed). Shared by polish.ts and coulombNewton.ts.
 */
export function projectedLineSearch(
  n: number,
  C: number,
  mu: Float64Array,
  best: Float64Array,
  bestValue: number,
  pw: PolishWorkspace,
  merit: (cand: Float64Array) => number,
  backtracks: number = POLISH_BACKTRACKS,
): number {
  let candValue = Infinity;
  for (let mode = 0; mode < 2; mode++) {
    if (!polishDirection(n, pw, mode === 0 ? 0 : 1)) continue;
    let t = 1;
    for (let bt = 0; bt <= backtracks; bt++, t *= 0.5) {
      for (let i = 0; i < n; i++) pw.cand[i] = best[i] + t * pw.dl[i];
      for (let c = 0; c < C; c++) projectCone(pw.cand, 3 * c, mu[c], pw.cand);
      const m = merit(pw.cand);
      if (m < candValue) {
        candValue = m;
        pw.bestCand.set(pw.cand);
      }
      if (m < bestValue) break;
    }
  }
  return candValue;
}

export const POLISH_BACKTRACKS = 8;

/** LU pivots at or below this count as singular. */
export const POLISH_LU_PIVOT_TOLERANCE = 1e-13;

/** Work arrays of the final polish (allocated once, before any iteration). */
export class PolishWorkspace {
  readonly J: Float64Array;
  readonly G: Float64Array;
  readonly L: Float64Array;
  readonly F: Float64Array;
  readonly dl: Float64Array;
  readonly res: Float64Array;
  readonly factor: CholeskyFactor;
  readonly piv: Int32Array;
  readonly sc: Float64Array;
  readonly bestCand: Float64Array;
  readonly cand: Float64Array;
  readonly pt: Float64Array;
  readonly dPi: Float64Array;
  readonly rho: Float64Array;
  constructor(n: number, C: number) {
    this.J = new Float64Array(n * n);
    this.G = new Float64Array(n * n);
    this.L = new Float64Array(n * n);
    this.F = new Float64Array(n);
    this.dl = new Float64Array(n);
    this.res = new Float64Array(n);
    this.factor = { n, L: this.L, regularization: POLISH_REGULARIZATION };
    this.piv = new Int32Array(n);
    this.sc = new Float64Array(n);
    this.bestCand = new Float64Array(n);
    this.cand = new Float64Array(n);
    this.pt = new Float64Array(n);
    this.dPi = new Float64Array(9 * C);
    this.rho = new Float64Array(C);
  }
}

/**
 * Natural map F(λ) = λ − Π_K(λ − ρ(Aλ − b)) (ρᵢ = 1/max diag Aᵢᵢ, the checker's map, kkt.ts) and its
 * generalised Jacobian J = I − Π′(I − ρA) at λ, into pw.F and pw.J (w = Aλ − b given) [FP] §7.5. Π′
 * is the (B-)derivative of the cone projection (the three cases of the cone projection: identity inside, 0 in the polar
 * cone, on the surface the derivative of eqs. 24–25). The piece (separating / sticking / sliding) of
 * each contact is chosen by where λ − ρw lies, so weakly complementary contacts need no
 * classification threshold. With deSaxce, the same for the Coulomb problem's modified map (coulombNewton.ts).
 */
export function naturalMapJacobian(p: ContactProblem, lam: Float64Array, w: Float64Array, pw: PolishWorkspace, deSaxce = false): void {
  const { A, mu, size: n, contactCount: C } = p;
  const { J, F, pt, dPi, rho } = pw;
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      m = mu[c],
      r = rho[c],
      d = 9 * c;
    // De Saxcé's modified velocity w̃ = w + μ‖w_t‖e_n (coulombNewton.ts), or w itself for the convex problem
    const wt = deSaxce ? hypot2Exact(w[o + 1], w[o + 2]) : 0;
    pt[o] = lam[o] - r * (w[o] + m * wt);
    pt[o + 1] = lam[o + 1] - r * w[o + 1];
    pt[o + 2] = lam[o + 2] - r * w[o + 2];
    coneProjectionJacobian(pt[o], pt[o + 1], pt[o + 2], m, dPi, d);
    projectCone(pt, o, m, pt);
    for (let k = 0; k < 3; k++) F[o + k] = lam[o + k] - pt[o + k];
    const e1 = wt > 0 ? (m * w[o + 1]) / wt : 0,
      e2 = wt > 0 ? (m * w[o + 2]) / wt : 0;
    // rows of J = I − Π′ + Π′·ρ·∂w̃/∂λ, ∂w̃/∂λ = A + e_n (μ t̂ᵀ A_t) (block rows of contact c)
    for (let i = 0; i < 3; i++) {
      const row = (o + i) * n;
      const a0 = dPi[d + 3 * i],
        a1 = dPi[d + 3 * i + 1],
        a2 = dPi[d + 3 * i + 2];
      const rn = o * n,
        r1 = (o + 1) * n,
        r2 = (o + 2) * n;
      for (let j = 0; j < n; j++) {
        const dn = deSaxce ? A[rn + j] + e1 * A[r1 + j] + e2 * A[r2 + j] : A[rn + j];
        J[row + j] = r * (a0 * dn + a1 * A[r1 + j] + a2 * A[r2 + j]);
      }
      for (let k = 0; k < 3; k++) J[row + o + k] -= dPi[d + 3 * i + k];
      J[row + o + i] += 1;
    }
  }
}

/**
 * Polishing direction from J, F built by naturalMapJacobian, into pw.dl:
 * mode 0 — Levenberg–Marquardt (SJᵀJS + δI)y = −SJᵀF, Δ = Sy, S = diag(1/‖J_:,i‖) [LM]: full
 *   Newton along singular directions σ ≫ √δ, (almost) no motion along the near-null space of A
 *   (non-unique λ), where F holds only the ε tie-break of the regularised A;
 * mode 1 — plain semismooth Newton (J + δ′I)Δ = −F by LU: resolves the small-curvature directions
 *   (near-duplicate contacts, the ε tie-break) that mode 0 leaves alone.
 * Returns false if the matrix is singular to working precision.
 */
export function polishDirection(n: number, pw: PolishWorkspace, mode: 0 | 1): boolean {
  const { J, F, G, L, dl, res, sc } = pw;
  if (mode === 1) {
    for (let i = 0; i < n; i++) J[i * n + i] += POLISH_NEWTON_SHIFT;
    const ok = luInto(J, n, 0, G, pw.piv, POLISH_LU_PIVOT_TOLERANCE);
    for (let i = 0; i < n; i++) J[i * n + i] -= POLISH_NEWTON_SHIFT;
    if (!ok) return false;
    for (let i = 0; i < n; i++) res[i] = -F[i];
    luSolve(G, n, pw.piv, res, dl);
    return true;
  }
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += J[k * n + i] * J[k * n + j];
      G[i * n + j] = s;
      G[j * n + i] = s;
    }
    let s = 0;
    for (let k = 0; k < n; k++) s -= J[k * n + i] * F[k];
    res[i] = s;
  }
  for (let i = 0; i < n; i++) {
    const g = G[i * n + i];
    sc[i] = g > 0 ? 1 / Math.sqrt(g) : 1;
  }
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let j = 0; j < n; j++) G[row + j] *= sc[i] * sc[j];
    res[i] *= sc[i];
  }
  if (!choleskyInto(G, n, POLISH_REGULARIZATION, L)) return false;
  choleskySolve(pw.factor, res, dl);
  for (let i = 0; i < n; i++) dl[i] *= sc[i];
  return true;
}

/**
 * Up to maxSteps polishing steps from `best` (KKT max_rel bestRel), in place. Two directions per step
 * (LM, then plain Newton), each backtracked t = 1, ½, ¼, … (`backtracks` halvings); the candidate with the smallest KKT max_rel
 * wins (the checker's residual is the merit function). `record` is called once per step.
 */
export function polishNaturalMap(
  p: ContactProblem,
  best: Float64Array,
  bestRel: number,
  tol: number,
  maxSteps: number,
  ws: KktWorkspace,
  pw: PolishWorkspace,
  record: (rel: number, f: number) => void,
  backtracks: number = POLISH_BACKTRACKS,
): { bestRel: number; steps: number } {
  const { b, size: n } = p;
  const r = naturalMapNewton(
    p,
    best,
    bestRel,
    tol,
    maxSteps,
    pw,
    false,
    (lam) => {
      kktInto(p, lam, ws);
      return ws.w;
    },
    (cand) => kktInto(p, cand, ws).maxRel,
    (rel) => {
      kktInto(p, best, ws);
      record(rel, objectiveFromAlam(best, ws.Alam, b, n));
    },
    backtracks,
  );
  return { bestRel: r.bestMerit, steps: r.steps };
}

/**
 * The semismooth Newton loop on the natural map shared by polishNaturalMap (convex problem, KKT merit) and
 * coulombNewton (De Saxcé-modified map, Coulomb merit): ρᵢ = 1/max diag Aᵢᵢ (the checker's ρ, kkt.ts), then
 * per step the Jacobian at `best` (velocity(best) = Aλ − b), projectedLineSearch, keep the candidate only if
 * it lowers `merit`; `record` once per step with the merit reached; stops when a step cannot lower it.
 */
export function naturalMapNewton(
  p: ContactProblem,
  best: Float64Array,
  bestMerit: number,
  tol: number,
  maxSteps: number,
  pw: PolishWorkspace,
  deSaxce: boolean,
  velocity: (lam: Float64Array) => Float64Array,
  merit: (cand: Float64Array) => number,
  record: (merit: number) => void,
  backtracks: number = POLISH_BACKTRACKS,
): { bestMerit: number; steps: number } {
  const { A, mu, size: n, contactCount: C } = p;
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    const dmax = Math.max(A[o * n + o], A[(o + 1) * n + o + 1], A[(o + 2) * n + o + 2]);
    pw.rho[c] = dmax > 0 ? 1 / dmax : 1;
  }
  let steps = 0;
  while (steps < maxSteps && bestMerit > tol) {
    naturalMapJacobian(p, best, velocity(best), pw, deSaxce);
    steps++;
    const candMerit = projectedLineSearch(n, C, mu, best, bestMerit, pw, merit, backtracks);
    const improved = candMerit < bestMerit;
    if (improved) {
      bestMerit = candMerit;
      best.set(pw.bestCand);
    }
    record(bestMerit);
    if (!improved) break;
  }
  return { bestMerit, steps };
}
