/**
 * Projected Newton for the QP-SOCP (Bertsekas 1982; docs/physics.md "Solvers").
 *
 * Cold start: λ¹ = Proj_K(A⁻¹b) with one Cholesky of A (with the Cholesky ε-fallback) — exact
 * when every cone is inactive or A = αI; kept only if f(λ¹) ≤ f(0) (for singular A, A⁻¹b is huge).
 * Warm start: λ⁰ = Proj_K(λ_prev). Each iteration (reduced-space Newton, Bertsekas 1982):
 *  1. a projected-gradient step λ̃ = Proj_K(λ − αD⁻¹w), D ⪰ A (Gershgorin, never increases f for α = 1,
 *     larger α tried first); it identifies the face of K each contact is on: separating (λᵢ = 0, fixed),
 *     sticking (interior, 3 free directions), sliding (cone surface: the ray and the rotation about the
 *     cone axis);
 *  2. a Newton step Δ on that face with the Hessian of the Lagrangian, which adds the cone curvature
 *     β/‖λt‖ on the rotation direction (the ρ-term of the projection Jacobian);
 *  3. a) the full semismooth step Proj_K(λ̃ + Δ), which changes every face at once, is taken when it
 *        halves the KKT residual without raising f above rounding;
 *     b) otherwise a feasible line search (primal active-set rule): the largest α ≤ 1 keeping λ̃ + αΔ in
 *        the closure of the face, then projection and Armijo (Nocedal & Wright 2006 §3.1: c₁ = 1e-4, halving ≤ 10 times);
 *        the contact that stopped the step moves to the smaller face and Newton repeats from there.
 * Near the solution (or once f no longer resolves progress) the KKT residual replaces f as the merit and
 * faces with a wrong multiplier sign are released (Bertsekas 1982). When the iteration stalls above the
 * tolerance, a few semismooth Newton / LM steps on the natural map finish it (polish.ts).
 * Convergence test: KKT max_rel (kkt.ts) ≤ tolerance — it contains the projected-gradient residual of
 * the natural map (Facchinei & Pang 2003) together with the complementarity and dual-cone residuals.
 */
import type { ContactProblem } from '../problem.js';
import { KktWorkspace, kktInto } from '../kkt.js';
import { choleskyInto, choleskySolve, choleskySolveRaw, choleskyWithFallback, REGULARIZATION_MAX, REGULARIZATION_START } from '../math/cholesky.js';
import { matVec } from '../math/dense.js';
import { HistoryRecorder, objectiveFromAlam } from './history.js';
import { gershgorinSteps, projectAll } from './projectedSteps.js';
import { PolishWorkspace, polishNaturalMap } from './polish.js';
import type { AlgorithmOutput, NewtonOptions, SolveStatus } from './types.js';

export const NEWTON_DEFAULTS = {
  maxIterations: 300, // a cap of 50 is common; faces change one contact at a time, so stacks need more
  tolerance: 1e-10, // relative KKT residual; an absolute 1e-8 on the natural map leaves f off by ~1e-8 on stacks
  armijo: 1e-4, // Nocedal & Wright 2006 §3.1
  maxBacktracks: 10,
} as const;

/** A cone-surface point is "on the surface" when ‖λt‖ ≥ (1 − this)·μλn. */
export const SURFACE_TOLERANCE = 1e-9;
/** Proximal regularisation of the reduced Newton matrix, relative to its largest diagonal entry. */
export const PROXIMAL_RELATIVE = 1e-10;
/** Relative size below which a blocking contact's λn is snapped to the apex. */
export const BOUNDARY_SNAP = 1e-12;
/** KKT max_rel below which apex contacts with a violated dual cone are released in the Newton step. */
export const POLISH_THRESHOLD = 1e-6;
/** Full Newton steps the polish phase may take without halving the KKT residual (watchdog). */
export const WATCHDOG_STEPS = 5;
/** A released contact that blocks a step shorter than this is pinned back to its surface. */
export const PIN_STEP = 1e-8;
/** Largest multiple of the Gershgorin step the projected-gradient search tries. */
export const PG_MAX_EXPANSION = 1 << 20;
/** A decrease of f smaller than this (relative) is rounding, not progress, for the stall test. */
export const F_PROGRESS_RELATIVE = 1e-12;
/** Natural-map polishing steps when the face iteration stops above the tolerance. */
export const NEWTON_POLISH_STEPS = 6;
/** A full semismooth step is taken when it multiplies the KKT residual by at most this. */
export const SEMISMOOTH_ACCEPT = 0.5;
/** Increase of f (relative) still attributed to rounding when a semismooth step is judged. */
export const F_NOISE_RELATIVE = 1e-9;
/** Iterations without decrease of f or of the KKT residual before the solver reports "stalled". */
export const STALL_ITERATIONS = 12;

export function solveNewton(p: ContactProblem, opts: NewtonOptions, warmStart?: Float64Array): AlgorithmOutput {
  const { A, b, mu, size: n, contactCount: C } = p;
  const maxIt = opts.maxIterations ?? NEWTON_DEFAULTS.maxIterations;
  const tol = opts.tolerance ?? NEWTON_DEFAULTS.tolerance;
  const c1 = opts.armijo ?? NEWTON_DEFAULTS.armijo;
  const maxBt = opts.maxBacktracks ?? NEWTON_DEFAULTS.maxBacktracks;

  const hist = new HistoryRecorder(maxIt + 1 + NEWTON_POLISH_STEPS);
  const ws = new KktWorkspace(n),
    wsTrial = new KktWorkspace(n);
  const polishWs = new PolishWorkspace(n, C);
  const lam = new Float64Array(n),
    base = new Float64Array(n),
    trial = new Float64Array(n);
  const g = new Float64Array(n),
    Ab = new Float64Array(n),
    dir = new Float64Array(n);
  const step = new Float64Array(C);
  // Face basis: per contact up to 3 orthonormal directions (3 numbers each) and a curvature per direction.
  const Z = new Float64Array(9 * C),
    curv = new Float64Array(3 * C);
  const zCount = new Int32Array(C),
    zStart = new Int32Array(C);
  const AZ = new Float64Array(n * n),
    K = new Float64Array(n * n),
    Lk = new Float64Array(n * n);
  const rhs = new Float64Array(n),
    y = new Float64Array(n);
  gershgorinSteps(p, step);
  let pgAlpha = 4;
  let needPg = true;
  // Surface contacts whose release made the very next step blocked at once (β from w was not the face's
  // multiplier): kept on their surface until the next projected-gradient step.
  const pinned = new Uint8Array(C);
  let watchdog = 0;
  const best = new Float64Array(n);
  let bestRes = Infinity;

  let regularization = 0;
  let iterations = 0;
  if (warmStart) {
    projectAll(p, warmStart, lam); // feasibility restoration
  } else {
    hist.record(kktInto(p, lam, ws).maxRel, 0);
    const f = choleskyWithFallback(A, n, { tryUnshifted: true });
    if (!f) {
      return {
        lambda: lam,
        iterations: 0,
        regularization: REGULARIZATION_MAX,
        history: hist.finish(),
        status: { kind: 'failed', reason: `A is not positive semidefinite: Cholesky failed even with ε = ${REGULARIZATION_MAX}` },
      };
    }
    regularization = f.regularization;
    choleskySolve(f, b, lam); // λ_unc = A⁻¹ b
    projectAll(p, lam, lam); // eq. 15
    // For singular A, A⁻¹b is huge and its projection can be far worse than λ = 0 (f(0) = 0): keep the better.
    matVec(A, n, lam, Ab);
    if (objectiveFromAlam(lam, Ab, b, n) > 0) lam.fill(0);
    iterations = 1;
  }

  // Face system of the current iteration (size faceM), factorised and solved by faceStep (defined once,
  // outside the loop, so the iterations allocate nothing).
  let faceM = 0,
    faceKmax = 0;
  /** dir = −Z (ZᵀAZ + H + δI)⁻¹ Zᵀg; false when even the regularised matrix will not factorise. */
  const faceStep = (): boolean => {
    const m = faceM;
    for (let i = 0; i < m; i++) K[i * m + i] += PROXIMAL_RELATIVE * faceKmax;
    const used = factorReduced(K, m, Lk);
    if (used < 0) return false;
    if (used > regularization) regularization = used;
    choleskySolveRaw(Lk, m, rhs, y);
    dir.fill(0);
    for (let c = 0; c < C; c++) {
      for (let k = 0; k < zCount[c]; k++) {
        const yk = y[zStart[c] + k],
          zo = 9 * c + 3 * k,
          o = 3 * c;
        dir[o] += yk * Z[zo];
        dir[o + 1] += yk * Z[zo + 1];
        dir[o + 2] += yk * Z[zo + 2];
      }
    }
    return true;
  };

  let status: SolveStatus | null = null;
  let bestF = Infinity,
    bestR = Infinity,
    stall = 0;
  for (;;) {
    let r = kktInto(p, lam, ws);
    if (r.maxRel < bestRes) {
      bestRes = r.maxRel;
      best.set(lam);
    }
    const fval = objectiveFromAlam(lam, ws.Alam, b, n);
    hist.record(r.maxRel, fval);
    if (r.maxRel <= tol) {
      status = { kind: 'converged' };
      break;
    }
    const progressed = fval < bestF - F_PROGRESS_RELATIVE * Math.abs(bestF) || r.maxRel < 0.5 * bestR;
    if (fval < bestF) bestF = fval;
    if (r.maxRel < bestR) bestR = r.maxRel;
    stall = progressed ? 0 : stall + 1;
    if (iterations >= maxIt || stall >= STALL_ITERATIONS) {
      if (bestRes < r.maxRel) {
        lam.set(best);
        r = kktInto(p, lam, ws);
      } // return the best iterate seen
      // Finish with semismooth Newton / LM on the natural map (polish.ts), which resolves the weakly
      // complementary and ε-tie-break directions the face iteration stalls on.
      const polished = polishNaturalMap(p, lam, r.maxRel, tol, NEWTON_POLISH_STEPS, ws, polishWs, (rel, f) => hist.record(rel, f));
      iterations += polished.steps;
      r = kktInto(p, lam, ws);
      if (r.maxRel <= tol) {
        status = { kind: 'converged' };
        break;
      }
      const why = iterations >= maxIt ? `after ${iterations} iterations` : `no decrease of f or of the KKT residual for ${STALL_ITERATIONS} iterations`;
      const detail = `KKT max_rel ${r.maxRel.toExponential(2)} > ${tol} ${why} (worst contact ${r.worstContact})`;
      status = iterations >= maxIt ? { kind: 'max-iterations', reason: detail } : { kind: 'stalled', reason: detail };
      break;
    }
    iterations++;

    let fBase = fval;
    if (!needPg) {
      base.set(lam);
      g.set(ws.w);
    } else {
      pinned.fill(0);
      // 1. Projected-gradient step λ̃ = Proj_K(λ − αD⁻¹w), D = Gershgorin block bound ⪰ A (blocks.ts): α = 1
      //    never increases f (majorisation). A scalar per cone keeps the Euclidean projection the projection
      //    in the D metric, so larger α are tried first (expansion, Moré & Toraldo 1991 projected search)
      //    and kept when Armijo holds.
      fBase = Infinity;
      for (let alpha = pgAlpha; ; alpha = alpha > 1 ? Math.max(1, alpha / 4) : alpha) {
        for (let i = 0; i < n; i++) trial[i] = lam[i] - alpha * step[(i / 3) | 0] * ws.w[i];
        projectAll(p, trial, trial);
        matVec(A, n, trial, Ab);
        let fT = 0,
          slope = 0;
        for (let i = 0; i < n; i++) {
          fT += trial[i] * (0.5 * Ab[i] - b[i]);
          slope += ws.w[i] * (trial[i] - lam[i]);
        }
        if (alpha <= 1 || fT <= fval + c1 * slope) {
          fBase = fT;
          base.set(trial);
          pgAlpha = alpha > 1 ? Math.min(PG_MAX_EXPANSION, 4 * alpha) : 4;
          break;
        }
      }
      for (let i = 0; i < n; i++) g[i] = Ab[i] - b[i];
    }

    // Polish once close, or once f has stopped resolving progress (cancellation in Aλ with large mass ratios).
    const polish = r.maxRel <= POLISH_THRESHOLD || stall >= 2;
    // 2. Face of each contact at λ̃ and its orthonormal basis Z.
    let m = 0;
    for (let c = 0; c < C; c++) {
      zStart[c] = m;
      zCount[c] = contactFace(c, base, g, mu[c], polish, pinned[c] === 1, Z, curv);
      m += zCount[c];
    }
    if (m === 0) {
      lam.set(base);
      needPg = true;
      continue;
    }

    // Reduced Newton system (Zᵀ(A + H)Z) y = −Zᵀ g.
    reducedSystem(A, n, C, Z, zStart, zCount, curv, g, m, AZ, K, rhs);
    // Proximal term δI bounds the step along (near-)null directions of A (singular A: duplicated contacts,
    // coplanar corners), where the model is flat and a pure Newton step would be ~1/ε long.
    faceM = m;
    faceKmax = 0;
    for (let i = 0; i < m; i++) faceKmax = Math.max(faceKmax, K[i * m + i]);
    // 3a. Semismooth step: after a full (uncut) step the full projected Newton step Proj_K(λ̃ + Δ) changes
    //     every contact's face at once (Newton on the natural map, Qi & Sun 1993). It is taken when it
    //     halves the KKT residual without raising f above rounding (relative residuals alone would reward
    //     a λ blown up along a near-null direction of A).
    if (!faceStep()) {
      lam.set(base);
      needPg = true;
      continue;
    }
    if (needPg) {
      for (let i = 0; i < n; i++) trial[i] = base[i] + dir[i];
      projectAll(p, trial, trial);
      const rt = kktInto(p, trial, wsTrial).maxRel;
      const fT = objectiveFromAlam(trial, wsTrial.Alam, b, n);
      if (rt <= SEMISMOOTH_ACCEPT * r.maxRel && fT <= fval + F_NOISE_RELATIVE * Math.max(1, Math.abs(fval))) {
        lam.set(trial);
        continue;
      }
    }

    // 3b. Feasible line search (primal active-set rule): the largest α ≤ 1 for which λ̃ + αΔ stays in the
    //    closure of each contact's face — a sticking contact stops at its cone surface, any contact at the
    //    apex; f is a convex quadratic along Δ with its minimum near α = 1, so any such α decreases f.
    //    Sliding contacts drift off the curved surface to second order; the final projection puts them
    //    back onto K and Armijo (c₁, halving) guards the decrease.
    let alpha = 1,
      blocker = -1;
    for (let c = 0; c < C; c++) {
      if (zCount[c] === 0) continue;
      const o = 3 * c;
      if (base[o] === 0 && base[o + 1] === 0 && base[o + 2] === 0) continue; // released apex: projection decides
      const a = maxFeasibleStep(base, dir, o, mu[c], zCount[c] === 3);
      if (a < alpha) {
        alpha = a;
        blocker = c;
      }
    }
    // A full step reached the minimiser on this face: next iteration looks for a better face (step 1).
    // A step cut at a boundary puts one more contact on a smaller face: Newton again from there.
    const cut = alpha < 1;
    let accepted = false;
    for (let bt = 0; bt <= maxBt && alpha > 0; bt++, alpha *= 0.5) {
      for (let i = 0; i < n; i++) trial[i] = base[i] + alpha * dir[i];
      if (bt === 0 && cut) snapToBoundary(trial, base, 3 * blocker, mu[blocker]);
      projectAll(p, trial, trial);
      matVec(A, n, trial, Ab);
      let fT = 0,
        slope = 0;
      for (let i = 0; i < n; i++) {
        fT += trial[i] * (0.5 * Ab[i] - b[i]);
        slope += g[i] * (trial[i] - base[i]);
      }
      if (fT <= fBase + c1 * slope && fT <= fBase) {
        accepted = true;
        break;
      }
      // Near the solution f is flat to rounding (δf ~ 1e-16·|f| only bounds w to ~1e-8), so Armijo on f
      // cannot tell a better point; there the KKT residual is the merit (semismooth Newton on the natural
      // map, e.g. Qi & Sun 1993): accept a step that halves it.
      // A watchdog (Chamberlain et al. 1982) lets a few full steps through that do not yet reduce it, since
      // on curved (sliding) faces the projection perturbs the first steps; the best iterate is kept.
      if (polish) {
        const rt = kktInto(p, trial, wsTrial).maxRel;
        if (rt <= 0.5 * r.maxRel || (bt === 0 && watchdog < WATCHDOG_STEPS && rt <= 4 * r.maxRel)) {
          watchdog = rt <= 0.5 * r.maxRel ? 0 : watchdog + 1;
          accepted = true;
          break;
        }
      }
    }
    if (cut && alpha < PIN_STEP && zCount[blocker] === 3 && mu[blocker] > 0) pinned[blocker] = 1;
    lam.set(accepted ? trial : base);
    needPg = !(accepted && cut) || alpha === 0;
  }
  return { lambda: lam, iterations, status, regularization, history: hist.finish() };
}

/** Factorises the reduced matrix, unshifted first, then with the Cholesky ε ladder (cholesky.ts); returns ε or −1. */
function factorReduced(K: Float64Array, m: number, L: Float64Array): number {
  if (choleskyInto(K, m, 0, L)) return 0;
  for (let eps = REGULARIZATION_START; eps <= REGULARIZATION_MAX * (1 + 1e-12); eps *= 10) {
    if (choleskyInto(K, m, eps, L)) return eps;
  }
  return -1;
}

/**
 * Largest α ∈ [0, ∞) with x + αd inside K_μ for contact block o: for a 3-D (sticking) block the first
 * root of μ²(xn + αdn)² − ‖xt + αdt‖² = 0 and of xn + αdn = 0; otherwise only xn + αdn ≥ 0.
 */
function maxFeasibleStep(x: Float64Array, d: Float64Array, o: number, mu: number, full: boolean): number {
  const xn = x[o],
    dn = d[o];
  let amax = dn < 0 ? -xn / dn : Infinity;
  if (!full || mu <= 0) return Math.max(0, amax);
  const x1 = x[o + 1],
    x2 = x[o + 2],
    d1 = d[o + 1],
    d2 = d[o + 2],
    m2 = mu * mu;
  const qa = m2 * dn * dn - (d1 * d1 + d2 * d2);
  const qb = 2 * (m2 * xn * dn - (x1 * d1 + x2 * d2));
  const qc = m2 * xn * xn - (x1 * x1 + x2 * x2);
  if (qc <= 0) {
    // on the surface: only an inward direction (q increasing) can move
    if (qb <= 0) return 0;
    return Math.max(0, Math.min(amax, qa < 0 ? -qb / qa : Infinity));
  }
  const disc = qb * qb - 4 * qa * qc;
  if (Math.abs(qa) <= 1e-300) {
    if (qb < 0) amax = Math.min(amax, -qc / qb);
  } else if (disc >= 0) {
    const sq = Math.sqrt(disc);
    // Stable roots (Numerical Recipes §5.6): q = −½(b + sign(b)√disc), roots q/a and c/q.
    const q = -0.5 * (qb + (qb >= 0 ? sq : -sq));
    const r1 = q / qa,
      r2 = q !== 0 ? qc / q : Infinity;
    if (r1 > 0) amax = Math.min(amax, r1);
    if (r2 > 0) amax = Math.min(amax, r2);
  }
  return Math.max(0, amax);
}

/**
 * Puts a contact that limited the step exactly on the boundary it reached (rounding would otherwise
 * leave λn ≈ 1e-17 or ‖λt‖ a hair inside the cone, and the face would never change): the apex when λn
 * reached 0 (within BOUNDARY_SNAP of the block's size before the step), else the cone surface ‖λt‖ = μλn.
 */
function snapToBoundary(x: Float64Array, before: Float64Array, o: number, mu: number): void {
  const size = Math.max(Math.abs(before[o]), Math.abs(before[o + 1]), Math.abs(before[o + 2]), Math.abs(x[o]));
  if (x[o] <= BOUNDARY_SNAP * size) {
    x[o] = 0;
    x[o + 1] = 0;
    x[o + 2] = 0;
    return;
  }
  if (mu <= 0) return;
  const s = Math.hypot(x[o + 1], x[o + 2]);
  if (s > 0) {
    const k = (mu * x[o]) / s;
    x[o + 1] *= k;
    x[o + 2] *= k;
  }
}

/**
 * Face of contact c at λ (phase 2 of an iteration) and an orthonormal basis of it in Z[9c…] (up to three
 * directions of 3 numbers), the curvature of the cone along each direction in curv[3c…]; returns the
 * number of directions: 0 = fixed at the apex, 1 = frictionless normal, 2 = sliding on the cone surface
 * (ray and rotation), 3 = sticking or released (all of ℝ³). g = Aλ − b at λ.
 */
export function contactFace(
  c: number,
  lam: Float64Array,
  g: Float64Array,
  mu: number,
  polish: boolean,
  pinned: boolean,
  Z: Float64Array,
  curv: Float64Array,
): number {
  const o = 3 * c,
    zo = 9 * c;
  const ln = lam[o],
    l1 = lam[o + 1],
    l2 = lam[o + 2];
  curv[3 * c] = curv[3 * c + 1] = curv[3 * c + 2] = 0;
  // At the apex: fixed (step 1 releases it). Close to the solution (polish) it is fixed only while its
  // multiplier w = g lies in K* (Bertsekas 1982: a bound-active variable whose gradient points outwards
  // stays fixed), else released with all its directions; the projection and Armijo decide how far.
  const atApex = ln <= 0 && l1 === 0 && l2 === 0;
  if (atApex && (!polish || (mu > 0 ? mu * Math.hypot(g[o + 1], g[o + 2]) <= g[o] : g[o] >= 0))) return 0;
  if (mu <= 0) {
    Z[zo] = 1;
    Z[zo + 1] = 0;
    Z[zo + 2] = 0;
    return 1;
  }
  const s = Math.hypot(l1, l2);
  const beta = s > 0 ? (mu * g[o] - (l1 * g[o + 1] + l2 * g[o + 2]) / s) / (1 + mu * mu) : 0;
  if (atApex || s < (1 - SURFACE_TOLERANCE) * mu * ln || (polish && beta < 0 && !pinned)) {
    // sticking, or released (polish): all of ℝ³
    Z.fill(0, zo, zo + 9);
    Z[zo] = 1;
    Z[zo + 4] = 1;
    Z[zo + 8] = 1;
    return 3;
  }
  // sliding: ray direction e₁ = (1, μd̂)/√(1+μ²) and rotation e₂ = (0, d̂⊥)
  const d1 = l1 / s,
    d2 = l2 / s,
    k = 1 / Math.sqrt(1 + mu * mu);
  Z[zo] = k;
  Z[zo + 1] = k * mu * d1;
  Z[zo + 2] = k * mu * d2;
  Z[zo + 3] = 0;
  Z[zo + 4] = -d2;
  Z[zo + 5] = d1;
  // β from w ≈ β(μ, −d̂) (least squares); Hessian of β(‖λt‖ − μλn) along e₂ is β/‖λt‖.
  curv[3 * c + 1] = beta > 0 ? beta / s : 0;
  return 2;
}

/**
 * The reduced Newton system on the faces (phase 3): K = Zᵀ(A + H)Z (m × m, H the cone curvatures) and
 * rhs = −Zᵀg, with AZ = A·Z (n × m, row-major with stride n) as scratch.
 */
export function reducedSystem(
  A: Float64Array,
  n: number,
  C: number,
  Z: Float64Array,
  zStart: Int32Array,
  zCount: Int32Array,
  curv: Float64Array,
  g: Float64Array,
  m: number,
  AZ: Float64Array,
  K: Float64Array,
  rhs: Float64Array,
): void {
  for (let c = 0; c < C; c++) {
    for (let k = 0; k < zCount[c]; k++) {
      const col = zStart[c] + k,
        zo = 9 * c + 3 * k,
        o = 3 * c;
      const z0 = Z[zo],
        z1 = Z[zo + 1],
        z2 = Z[zo + 2];
      for (let i = 0; i < n; i++) AZ[i * n + col] = A[i * n + o] * z0 + A[i * n + o + 1] * z1 + A[i * n + o + 2] * z2;
      rhs[col] = -(g[o] * z0 + g[o + 1] * z1 + g[o + 2] * z2);
    }
  }
  for (let c = 0; c < C; c++) {
    for (let k = 0; k < zCount[c]; k++) {
      const row = zStart[c] + k,
        zo = 9 * c + 3 * k,
        o = 3 * c;
      const z0 = Z[zo],
        z1 = Z[zo + 1],
        z2 = Z[zo + 2];
      for (let col = 0; col < m; col++) K[row * m + col] = z0 * AZ[o * n + col] + z1 * AZ[(o + 1) * n + col] + z2 * AZ[(o + 2) * n + col];
      K[row * m + row] += curv[3 * c + k];
    }
  }
}
