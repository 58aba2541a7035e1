/**
 * Primal–dual interior-point method for the QP-SOCP (docs/physics.md "The QP-SOCP and its KKT conditions")
 *
 *   minimise f(λ) = ½λᵀAλ − bᵀλ   subject to  ‖(λt1,i, λt2,i)‖ ≤ μᵢλn,i  for every contact i,
 *
 * written from scratch (no solver library). References cited below:
 *   [V]    L. Vandenberghe, "The CVXOPT linear and quadratic cone program solvers" (2010): §2 Jordan
 *          algebra of the second-order cone, §3 the coneqp algorithm (starting point, Mehrotra
 *          predictor–corrector, step to the boundary, STEP = 0.99, EXPON = 3), §4 Nesterov–Todd scaling.
 *   [NT]   Y. Nesterov, M. Todd, "Self-scaled barriers and interior-point methods for convex
 *          programming", Math. Oper. Res. 22 (1997).
 *   [AHO]  F. Alizadeh, J.-P. Haeberly, M. Overton, "Primal-dual interior-point methods for
 *          semidefinite programming: convergence rates, stability and numerical results",
 *          SIAM J. Optim. 8 (1998) — the direction that linearises x∘z itself.
 *   [M]    S. Mehrotra, "On the implementation of a primal-dual interior point method",
 *          SIAM J. Optim. 2 (1992).
 *   [ECOS] A. Domahidi, E. Chu, S. Boyd, "ECOS: An SOCP solver for embedded systems", ECC 2013.
 *   [FP]   F. Facchinei, J.-S. Pang, "Finite-Dimensional Variational Inequalities and Complementarity
 *          Problems" (2003) §7.5 — semismooth Newton on the natural map.
 *   [LM]   J. J. Moré, "The Levenberg–Marquardt algorithm: implementation and theory", Lecture Notes
 *          in Mathematics 630 (1978).
 *
 * Change of variables. λ = κ·D·x with, per contact i, D = dᵢ·diag(1/μᵢ, 1, 1) maps the friction cone
 * K_μ onto the standard Lorentz cone Q³ = {x : ‖(x1, x2)‖ ≤ x0} (the (μλn, λt) blocks).
 * The scalar dᵢ makes the largest diagonal entry of the scaled 3×3 block of A equal 1: a per-contact
 * scalar scaling preserves the cone and removes the mass-ratio scaling of A's entries (docs/physics.md
 * "Conditioning"). κ = ‖D b‖∞ normalises the linear term. A μᵢ = 0 contact becomes the 1-D
 * cone x0 ≥ 0 with its tangential variables pinned to 0 (K_i = {λt = 0, λn ≥ 0} when μᵢ = 0).
 * The scaled problem
 *
 *   minimise ½xᵀPx + qᵀx  s.t. x ∈ K,    P = DAD,  q = −Db/κ,
 *
 * has the KKT conditions x ∈ K, z = Px + q ∈ K* = K, x∘z = 0 ([V] eq. (3) with G = −I, h = 0, s = x);
 * z = D·w/κ is the scaled contact velocity w = Aλ − b.
 *
 * Algorithm.
 *  1. Start ([V] §3): x̂ = −(P + δ₀I)⁻¹q, ẑ = −δ₀x̂ (= Px̂ + q), each shifted into int K.
 *  2. NT phase: Mehrotra predictor–corrector on the Nesterov–Todd scaled Newton system
 *     (P + W⁻²)Δx = −r + W⁻¹u ([V] §3 eq. (11)–(14), §4.3).
 *  3. AHO phase (KKT max_rel ≤ IPM_AHO_SWITCH): the same predictor–corrector with the AHO direction
 *     z∘Δx + x∘Δz = r_c. NT iterates only satisfy ‖x∘z − τe‖ = O(√τ) — the Jordan frames of x and z
 *     stay misaligned by O(√τ), visible as the checker's jordan/natural residuals of sliding contacts
 *     — while the AHO direction is locally quadratically convergent at strictly complementary
 *     solutions [AHO].
 *  4. Polish: when the interior-point phase stops above the tolerance (weakly complementary contacts
 *     converge only like √τ; near-duplicate contacts leave the split of the load undetermined to
 *     working precision), a few semismooth Newton / Levenberg–Marquardt steps on the checker's natural
 *     map [FP], each accepted only if it lowers KKT max_rel.
 * Every iterate of phases 2–3 is strictly inside the cones, every polished point is projected onto
 * them, and the best point (smallest KKT max_rel, kkt.ts) is returned, so λ is always primal feasible.
 *
 * Warm starts (`solveIpm` or `solveIpmFrom` given a λ⁰: the world step's previous λ, a De Saxcé step's, the
 * what-if's recorded λ when asked): an interior-point method must start in the interior of the cones, away from
 * their boundary, which a (typically complementary, i.e. boundary) warm start is not; so x = λ⁰/(κD), z = Px + q,
 * each cone's point pushed inside to the smallest eigenvalue IPM_WARM_START_MARGIN (warmInteriorStart) — the
 * shifted warm start of J. Gondzio, "Warm start of the primal-dual method applied in the cutting-plane scheme",
 * Math. Program. 83 (1998), and E. A. Yildirim, S. J. Wright, "Warm-start strategies in interior-point methods
 * for linear programming", SIAM J. Optim. 12 (2002): a start near the solution's contact modes, kept away from
 * the cone boundary. Where the warm path does not converge, `solveIpm` runs [V]'s start with the budget left (as
 * newton.ts does).
 *
 * Output: `regularization` is the largest diagonal shift that had to be added to the (block-scaled,
 * unit-diagonal-block) Newton matrix to factorise it, 0 if none; the fixed damping of the polish is
 * not counted. `iterations` counts interior-point iterations plus polishing steps, and the history has
 * one entry per iteration after the starting point.
 *
 * Engineering: all work arrays are allocated before the iteration loop; the loop allocates nothing.
 * The Newton matrix (size 3C) is formed densely, block-Jacobi scaled and factorised every iteration
 * (Cholesky from math/cholesky.ts for NT; a local LU with partial pivoting for the non-symmetric AHO
 * matrix and the polishing Jacobian).
 */
import type { ContactProblem } from '../problem.js';
import { KktWorkspace, kktInto, rowBand } from '../kkt.js';
import { HistoryRecorder, joinedHistory, objectiveFromAlam } from './history.js';
import { polishNaturalMap } from './polish.js';
import type { AlgorithmOutput, IpmOptions, SolveStatus } from './types.js';
import { formatNumber } from '../numberText.js';
import { closingStatus, IpmProgress, statusAfterPolish } from './ipmTermination.js';
import { DenseIpm } from './ipmDenseNewton.js';
import {
  allInterior,
  applyWinv,
  CONE_ORTHANT,
  CONE_SOC,
  complementarityTarget,
  jordanDivide,
  jordanProduct,
  maxStepSoc,
  ntStepToBoundary,
  shiftIntoCones,
  stepInside,
  warmInteriorStart,
} from './ipmCones.js';
import { dualResidual } from './ipmSetup.js';
import {
  IPM_AHO_SWITCH,
  ipmIterationBudget,
  IPM_DEFAULT_TOLERANCE,
  IPM_POLISH_STEPS,
  IPM_SIGMA_EXPONENT,
  IPM_START_DAMPING,
  IPM_STEP_FRACTION,
  IPM_WARM_START_MARGIN,
} from './ipmParameters.js';

// the phases live in their own modules (parameters, cone algebra, setup, the dense Newton systems, termination);
// their names stay importable from here
export * from './ipmParameters.js';
export * from './ipmCones.js';
export * from './ipmSetup.js';
// the stall and collapse tests (shared with ipmSparse.ts) live in ipmTermination.ts
export { IPM_MAX_COLLAPSED_STEPS, IPM_MERIT_FLOOR, IPM_MIN_STEP, IPM_STALL_FACTOR, IPM_STALL_WINDOW } from './ipmTermination.js';

/** f(λ) from the Aλ that kktInto left in ws.Alam (call kktInto(p, lam, ws) first). */
function objectiveOf(lam: Float64Array, ws: KktWorkspace, b: Float64Array, n: number): number {
  return objectiveFromAlam(lam, ws.Alam, b, n);
}

export function solveIpm(p: ContactProblem, opts: IpmOptions, warmStart?: Float64Array): AlgorithmOutput {
  if (!warmStart) return interiorPoint(p, opts, null);
  const warm = interiorPoint(p, opts, warmStart);
  const maxIt = ipmIterationBudget(opts);
  if (warm.status.kind === 'converged' || warm.iterations >= maxIt) return warm;
  // the warm path did not get there: the interior point's own start with the budget left, its iterations counted too
  const cold = interiorPoint(p, { ...opts, maxIterations: maxIt - warm.iterations }, null);
  return {
    ...cold,
    iterations: warm.iterations + cold.iterations,
    regularization: Math.max(warm.regularization, cold.regularization),
    history: joinedHistory(warm.history, cold.history),
  };
}

/**
 * The interior-point method started from λ⁰ (any λ of size 3C; warmInteriorStart moves it inside the cones)
 * instead of [V]'s starting point: the globalisation phase of newton.ts when it is warm-started.
 */
export function solveIpmFrom(p: ContactProblem, opts: IpmOptions, start: Float64Array, margin: number = IPM_WARM_START_MARGIN): AlgorithmOutput {
  if (start.length !== p.size) throw new RangeError(`interior-point start has ${start.length} entries, expected 3·C = ${p.size}`);
  return interiorPoint(p, opts, start, margin);
}

/**
 * Start phase: x and z strictly inside the cones — from λ⁰ (warm start, file header: x = λ⁰/(κD),
 * z = Px + q, each cone pushed inside) or [V] §3's point (x̂ = −(P + δ₀I)⁻¹q, ẑ = Px̂ + q = −δ₀x̂, each
 * shifted into int K). Returns false if P + δ₀I cannot be factorised.
 */
function startingPoint(s: DenseIpm, start: Float64Array | null, margin: number): boolean {
  const { x, z, n, pinned, kappa, D, P, q, kind, C, rhs, dx } = s;
  if (start) {
    for (let i = 0; i < n; i++) x[i] = pinned[i] ? 0 : start[i] / (kappa * D[i]);
    for (let i = 0; i < n; i++) {
      let v = q[i];
      const row = i * n;
      for (let j = 0; j < n; j++) v += P[row + j] * x[j];
      z[i] = v;
    }
    warmInteriorStart(x, kind, C, margin);
    warmInteriorStart(z, kind, C, margin);
  } else {
    if (!(s.buildNewtonMatrix(0) && s.factorise(false)) && !(s.buildNewtonMatrix(0, true) && s.factorise(false))) return false;
    for (let i = 0; i < n; i++) rhs[i] = -q[i];
    s.newtonSolve();
    for (let i = 0; i < n; i++) {
      x[i] = dx[i];
      z[i] = -IPM_START_DAMPING * dx[i];
    }
    shiftIntoCones(x, kind, C);
    shiftIntoCones(z, kind, C);
  }
  for (let i = 0; i < n; i++)
    if (pinned[i]) {
      x[i] = 0;
      z[i] = 0;
    }
  return true;
}

/**
 * Predictor (σ = 0), then Mehrotra corrector with σ = (1 − α_aff)³ ([V] §3 eqs. (12)–(14); [M]), each
 * followed by the step to the boundary; leaves (dx, dz) and returns the step length α.
 *   NT:  λ∘(W⁻¹Δx + WΔz) = r_c, u = λ⧵r_c:  (P + W⁻²)Δx = −r + W⁻¹u,  Δz = W⁻¹(u − W⁻¹Δx);
 *   AHO: z∘Δx + x∘Δz = r_c,    u = x⧵r_c:  (P + Arw(x)⁻¹Arw(z))Δx = −r + u,  Δz = u − x⧵(z∘Δx);
 *   r_c = στe − v∘v − (Δa∘Δb)_predictor, with v∘v = λ∘λ (NT) or x∘z (AHO).
 */
function predictorCorrector(s: DenseIpm, useAho: boolean, tau: number): number {
  const { C, kind, x, z, nt, dxa, dza, tmp, u, corr, rhs, rx, winv, dz } = s;
  let alphaAff = 0,
    alpha = 0;
  for (let pass = 0; pass < 2; pass++) {
    const sigmaTau = pass === 0 ? 0 : Math.pow(1 - alphaAff, IPM_SIGMA_EXPONENT) * tau;
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        k = kind[c];
      if (useAho) complementarityTarget(x, z, x, o, k, sigmaTau, pass === 1 ? dxa : null, dza, tmp, u);
      else complementarityTarget(nt, nt, nt, o, k, sigmaTau, pass === 1 ? dxa : null, dza, tmp, u);
      if (useAho) {
        corr[o] = u[o];
        corr[o + 1] = u[o + 1];
        corr[o + 2] = u[o + 2];
      } else applyWinv(winv, 9 * c, u, o, k, corr);
      rhs[o] = -rx[o] + corr[o];
      rhs[o + 1] = k === CONE_ORTHANT ? 0 : -rx[o + 1] + corr[o + 1];
      rhs[o + 2] = k === CONE_ORTHANT ? 0 : -rx[o + 2] + corr[o + 2];
    }
    s.newtonSolve();
    const amax = stepToBoundary(s, useAho, pass === 0 ? dxa : tmp, pass === 0 ? dza : corr);
    if (pass === 0) alphaAff = Math.min(1, amax);
    else alpha = Math.min(1, IPM_STEP_FRACTION * amax);
  }
  // Δz in the original coordinates (corr holds Δz for AHO, WΔz for NT)
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    if (useAho) {
      dz[o] = corr[o];
      dz[o + 1] = corr[o + 1];
      dz[o + 2] = corr[o + 2];
    } else applyWinv(winv, 9 * c, corr, o, kind[c], dz);
  }
  return alpha;
}

/**
 * Step-length phase: the directions in the frame of v∘v — (W⁻¹Δx, WΔz) for NT, (Δx, Δz) for AHO — written
 * to (ex, ez), and the largest step that keeps both in the cones ([V] §3).
 */
function stepToBoundary(s: DenseIpm, useAho: boolean, ex: Float64Array, ez: Float64Array): number {
  const { C, kind, x, z, dx, u, nt, winv } = s;
  let amax = Infinity;
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      k = kind[c];
    if (useAho) {
      jordanProduct(z, dx, o, k, ez);
      ez[o] = -ez[o];
      if (k === CONE_SOC) {
        ez[o + 1] = -ez[o + 1];
        ez[o + 2] = -ez[o + 2];
      } else {
        ez[o + 1] = 0;
        ez[o + 2] = 0;
      }
      jordanDivide(x, ez, o, k);
      ez[o] += u[o];
      ez[o + 1] += u[o + 1];
      ez[o + 2] += u[o + 2];
      ex[o] = dx[o];
      ex[o + 1] = dx[o + 1];
      ex[o + 2] = dx[o + 2];
      if (k === CONE_ORTHANT) {
        if (ex[o] < 0) amax = Math.min(amax, -x[o] / ex[o]);
        if (ez[o] < 0) amax = Math.min(amax, -z[o] / ez[o]);
      } else amax = Math.min(amax, maxStepSoc(x, ex, o), maxStepSoc(z, ez, o));
    } else amax = Math.min(amax, ntStepToBoundary(winv, c, k, dx, u, nt, ex, ez));
  }
  return amax;
}

/** The interior-point method (file header, steps 1–4): setup, start, NT/AHO predictor–corrector iterations, polish. */
function interiorPoint(p: ContactProblem, opts: IpmOptions, start: Float64Array | null, margin = IPM_WARM_START_MARGIN): AlgorithmOutput {
  const maxIt = ipmIterationBudget(opts);
  const tol = opts.tolerance ?? IPM_DEFAULT_TOLERANCE;
  const { b, size: n, contactCount: C } = p;
  const history = new HistoryRecorder(maxIt);
  const ws = new KktWorkspace(n);
  const lam = new Float64Array(n);

  // λ = 0 is optimal iff −b ∈ K* (every contact separating, or b = 0). The checker's residuals are
  // relative to ‖λ‖∞, so an interior iterate tending to 0 would never pass them: test λ = 0 exactly.
  const r0 = kktInto(p, lam, ws);
  if (r0.maxRel <= tol) {
    history.record(r0.maxRel, 0);
    return { lambda: lam, iterations: 0, status: { kind: 'converged' }, regularization: 0, history: history.finish() };
  }

  const s = new DenseIpm(p, lam, opts.refinement === 'shifted');
  const band = rowBand(p.A, n); // the per-iteration KKT check's Aλ skips A's exact zeros (kktInto)
  const { x, z, xSave, zSave, dx, dz, pinned, kind, P, q, rx, measures, env, best, pw } = s;
  const failedAtStart = (reason: string): AlgorithmOutput => {
    history.record(r0.maxRel, 0);
    return { lambda: lam, iterations: 0, status: { kind: 'failed', reason }, regularization: s.regularization, history: history.finish() };
  };
  if (!startingPoint(s, start, margin)) return failedAtStart('starting point: P + δ₀I could not be factorised');
  s.toLambda(x);
  let rep = kktInto(p, lam, ws, band);
  if (!Number.isFinite(rep.maxRel) || !allInterior(x, kind, C) || !allInterior(z, kind, C)) {
    lam.fill(0);
    return failedAtStart('starting point is not finite / not interior');
  }
  history.record(rep.maxRel, objectiveOf(lam, ws, b, n));
  let bestRel = rep.maxRel;
  best.set(lam);
  let status: SolveStatus | null = bestRel <= tol ? { kind: 'converged' } : null;
  let iterations = 0;
  let aho = false; // phase: false = NT direction, true = AHO direction (file header, step 3)
  const progress = new IpmProgress();

  while (status === null && iterations < maxIt) {
    dualResidual(P, q, x, z, pinned, C, rx, measures, env);
    const tau = measures[0],
      merit = measures[1];
    const matrix = s.newtonMatrixFor(aho, iterations);
    if (typeof matrix !== 'string') {
      status = matrix;
      break;
    }
    const alpha = predictorCorrector(s, matrix === 'aho', tau);

    // update; if rounding puts an iterate on or outside a cone boundary, halve the step
    iterations++;
    if (!stepInside(x, z, xSave, zSave, dx, dz, alpha, pinned, kind, C))
      status = { kind: 'stalled', reason: `no step keeps the iterate inside the cones at iteration ${iterations}` };
    s.toLambda(x);
    rep = kktInto(p, lam, ws, band);
    if (!Number.isFinite(rep.maxRel)) {
      status = { kind: 'failed', reason: `non-finite iterate at iteration ${iterations}` };
      kktInto(p, best, ws);
      history.record(bestRel, objectiveOf(best, ws, b, n));
      break;
    }
    history.record(rep.maxRel, objectiveOf(lam, ws, b, n));
    if (rep.maxRel < bestRel) {
      bestRel = rep.maxRel;
      best.set(lam);
    }
    if (status !== null) break;
    if (bestRel <= tol) {
      status = { kind: 'converged' };
      break;
    }
    if (!aho && rep.maxRel <= IPM_AHO_SWITCH) aho = true;
    status = progress.check(iterations, alpha, bestRel, merit, tau, aho);
  }

  // ---- polish (file header, step 4): semismooth Newton / LM on the checker's natural map ----
  if (bestRel > tol && iterations < maxIt) {
    const before = bestRel;
    const polished = polishNaturalMap(p, best, bestRel, tol, Math.min(IPM_POLISH_STEPS, maxIt - iterations), ws, pw, (rel, f) => history.record(rel, f));
    bestRel = polished.bestRel;
    iterations += polished.steps;
    status = statusAfterPolish(status, bestRel, tol, bestRel < before ? `polish reached KKT max_rel ${formatNumber(bestRel)}` : null);
  }
  status = closingStatus(status, bestRel, tol, iterations, maxIt);
  return { lambda: best, iterations, status, regularization: s.regularization, history: history.finish() };
}
