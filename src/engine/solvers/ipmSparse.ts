/**
 * Interior-point method for islands of any size that never forms the dense A = J M⁻¹ Jᵀ.
 *
 * Same problem, change of variables and iteration as the dense IPM (ipm.ts: λ = κ D x, Nesterov–Todd
 * scaled Mehrotra predictor–corrector, [V] L. Vandenberghe, "The CVXOPT linear and quadratic cone program
 * solvers", 2010, §3–§4), but every product with P = D A D is matrix-free and the Newton system
 *
 *   (P + W⁻²) Δx = r,   P = D (J M⁻¹ Jᵀ + S) D = B Bᵀ + Σ,   B = D J L,  M⁻¹ = L Lᵀ (per body),
 *
 * (S: the assembly's ε on every row plus the softening γ on normal rows; Σ = D S D) is solved with the
 * Sherman–Morrison–Woodbury identity (Golub & Van Loan, Matrix Computations, 4th ed., §2.1.4; the body-space
 * part, B and K's pattern and assembly, is bodySpace.ts, shared with the sparse Newton) for the
 * block-diagonal H = W⁻² + Σ (3×3 per contact, positive definite in the interior):
 *
 *   (H + B Bᵀ)⁻¹ = H⁻¹ − H⁻¹ B (I + Bᵀ H⁻¹ B)⁻¹ Bᵀ H⁻¹.
 *
 * K = I + Bᵀ H⁻¹ B lives in body-velocity space (6 per dynamic body; a block K_ab ≠ 0 only where a
 * contact joins bodies a and b); it is the body-space reduced system M + Jᵀ D H⁻¹ D J (bodySpace.ts) scaled by L, so
 * its eigenvalues are ≥ 1 and static bodies (M⁻¹ = 0) and infinite-inertia directions simply have no
 * columns (L = 0 there). H⁻¹ = W (I + WΣW)⁻¹ W is formed from W, not by inverting W⁻² + Σ. Each solve is
 * refined against the exact operator B Bᵀ + H (iterative refinement, Wilkinson).
 *
 * Near the solution of a rank-deficient island (coplanar contacts of stacked boxes) H⁻¹ grows to 1/σ on
 * the active contacts, cond K follows, and the Woodbury solve loses accuracy (it is not backward stable:
 * Yip, SIAM J. Sci. Stat. Comput. 7, 1986); worse, the explicit H = W⁻² + Σ of a sliding contact holds
 * curvatures ~1/τ and ~τ in one 3×3 block, so even a product with H loses the small one to rounding.
 * Once refinement cannot bring the relative residual to SPARSE_IPM_WOODBURY_RESIDUAL (krylovFrom), the
 * default ('krylov') path solves the remaining Newton systems in NT-scaled form (ŷ = W⁻¹dx, ŕ = W r; [V] §4)
 *
 *   Â ŷ = ŕ,   Â = W (B Bᵀ + H) W = Ĥ + (WB)(WB)ᵀ,   Ĥ = I + WΣW  (eigenvalues ≥ 1, no 1/τ inside a block),
 *
 * by preconditioned conjugate gradients (pcg.ts; Saad 2003 §9; matrix-free IPM: Gondzio, "Interior point
 * methods 25 years later", EJOR 218, 2012) applying Â matrix-free (O(rows)) and preconditioned by Â's
 * Woodbury solve, whose K = I + (WB)ᵀĤ⁻¹(WB) = I + BᵀH⁻¹B is the body-space factor above (K ≥ I, so its
 * pivots at rounding level are floored there). The residual is measured unscaled, ‖W⁻¹(ŕ − Âŷ)‖∞ / ‖r‖∞.
 * PCG stops at SPARSE_IPM_WOODBURY_RESIDUAL or after SPARSE_IPM_PCG_MAX_ITERATIONS steps; a direction at
 * or below the inexact-Newton forcing term SPARSE_IPM_FORCING is used, counted in inexactSolves. Near the
 * solution (KKT max_rel ≤ SPARSE_IPM_STALL_ARM) a Newton system that PCG misses, or a K (or a block Ĥ) that
 * cannot be factorised, ends the interior-point phase and the polish below takes over: there W of a nearly
 * degenerate sliding contact holds ~1e8 and ~1e-8 at once, and measured on pyramid-20's 1600-contact island the
 * contact-space factor then cost ~40 % of the solve for its last 2–3 iterations, which the polish does anyway.
 * Only farther out do the remaining iterations (contactSpaceFrom ≥ 0)
 * factorise the contact-space matrix B Bᵀ + H itself — the last resort, which the option 'contact-space'
 * (the earlier path) uses as soon as refinement misses its residual
 * (3×3 blocks; block (i, j) ≠ 0 when contacts i and j share a dynamic body: the block-sparse Delassus
 * matrix plus H), whose conditioning is the dense IPM's; pivots that cancellation leaves at rounding level
 * there are regularised and every solve is refined (factorContactSpace). Both factors use the block-sparse Cholesky of
 * math/blockSparseCholesky.ts (minimum-degree ordering and symbolic analysis once per solve, numeric
 * factorisation every Newton step).
 *
 * Like the dense IPM it ends with a natural-map polish when the interior-point phase stops above the
 * tolerance (it also stops, once armed, when the complementarity τ is at rounding level, SPARSE_IPM_TAU_ROUNDING): the sparse semismooth Newton of naturalMapSparse.ts (up to SPARSE_IPM_POLISH_STEPS steps, counted as
 * iterations and in polishSteps), starting with its proximal endgame (proximalStep, docs/physics.md): at the
 * interior point's end — nearly degenerate sliding contacts, where the interior point converges only like √τ —
 * the projected semismooth step found no lower point in every traced world step of pyramid-20 and box-pile-1000,
 * after two linear systems and up to 2·(POLISH_BACKTRACKS + 1) merit evaluations; projected steps follow the
 * endgame (or replace it when it finds nothing). Difference from the dense IPM: no AHO phase (it needs the dense Newton
 * matrix); the KKT check is the same checker (kktFromW) on w = J M⁻¹ Jᵀ λ + Sλ − b computed from the body
 * velocity changes M⁻¹ Jᵀ λ (pgsRows.ts). The status is the checker's: "converged" only at KKT max_rel ≤
 * tolerance on finite data. Work arrays are allocated before the iteration loop (the contact-space factor's
 * once, when it is first needed); memory is O(C) plus the fill of the two factors.
 */
import type { ContactJacobians } from '../assembly.js';
import { nowMs } from '../clock.js';
import { classifyContacts, KktWorkspace } from '../kkt.js';
import { REGULARIZATION_MAX } from '../math/cholesky.js';
import { formatNumber } from '../numberText.js';
import { HistoryRecorder, joinedHistory, objectiveFromAlam } from './history.js';
import {
  allInterior,
  applyWinv,
  CONE_ORTHANT,
  complementarityTarget,
  ipmIterationBudget,
  IPM_DEFAULT_TOLERANCE,
  IPM_POLISH_STEPS,
  IPM_SIGMA_EXPONENT,
  IPM_START_DAMPING,
  IPM_STEP_FRACTION,
  IPM_WARM_START_MARGIN,
  ntScaleAll,
  ntStepToBoundaryAll,
  residualMeasures,
  shiftIntoCones,
  stepInside,
  warmInteriorStart,
} from './ipm.js';
import { SparseIpmNewton } from './ipmSparseNewton.js';
import { SPARSE_IPM_TAU_ROUNDING, type SparseIpmLinearSolve } from './ipmParameters.js';
import { closingStatus, IpmProgress, statusAfterPolish } from './ipmTermination.js';
import { kktRows, polishNaturalMapSparse, SPARSE_NEWTON_PROXIMAL_STEPS, SparseNaturalMap } from './naturalMapSparse.js';
import { matrixFreeRows, type MatrixFreeRows } from './pgsRows.js';
import type { IpmOptions, SolveResult, SolveStatus } from './types.js';

// the Newton systems' tolerances and linear-solve paths (ipmParameters.ts), importable from here
export {
  SPARSE_IPM_FORCING,
  SPARSE_IPM_PCG_MAX_ITERATIONS,
  SPARSE_IPM_PIVOT_FLOOR,
  SPARSE_IPM_REFINED_RESIDUAL,
  SPARSE_IPM_TAU_ROUNDING,
  SPARSE_IPM_WOODBURY_RESIDUAL,
  type SparseIpmLinearSolve,
} from './ipmParameters.js';

/**
 * Linear systems the sparse polish may solve after the interior-point phase (each counted as an iteration): a
 * natural-map step that finds no lower point, one proximal endgame of up to SPARSE_NEWTON_PROXIMAL_STEPS systems
 * (naturalMapSparse.ts), and a few more. The dense polish's IPM_POLISH_STEPS (8) left a 4388-contact box-pile-1000
 * world-step island at KKT 5.0e-10 with its endgame cut short; it needed 11 (converged at 1.5e-11).
 */
export const SPARSE_IPM_POLISH_STEPS = IPM_POLISH_STEPS + SPARSE_NEWTON_PROXIMAL_STEPS;
/** Stall test armed once KKT max_rel ≤ this (the dense IPM arms it in its AHO phase, which starts at IPM_AHO_SWITCH). */
export const SPARSE_IPM_STALL_ARM = 1e-6;

/** A SolveResult of the QP-SOCP (merit = KKT max_rel, added by the caller) with the sparse solve's own figures. */
export interface SparseIpmOutput extends Omit<SolveResult, 'merit' | 'solver'> {
  readonly solver: 'ipm';
  /** Δv = M⁻¹Jᵀλ, 6 per body of the Jacobians' body list. */
  readonly dv: Float64Array;
  /** Bytes of the typed arrays the solve allocated (per-contact data, body-space factor, work vectors). */
  readonly memoryBytes: number;
  /** Dynamic bodies (6×6 blocks of K) and stored off-diagonal blocks of its factor. */
  readonly bodyCount: number;
  readonly factorBlocks: number;
  /** Iteration from which Newton systems were solved in contact space (−1: Woodbury/PCG throughout). */
  readonly contactSpaceFrom: number;
  /** Iteration from which the NT-scaled PCG solved the Newton systems (−1: Woodbury with refinement met SPARSE_IPM_WOODBURY_RESIDUAL throughout). */
  readonly krylovFrom: number;
  /** Newton systems solved, conjugate-gradient steps over all of them, and the most one solve took (0 on the 'contact-space' path). */
  readonly newtonSolves: number;
  readonly krylovIterations: number;
  readonly krylovMaxPerSolve: number;
  /** Newton solves used as inexact steps (PCG relative residual in (SPARSE_IPM_WOODBURY_RESIDUAL, SPARSE_IPM_FORCING]) and the largest such residual. */
  readonly inexactSolves: number;
  readonly worstInexact: number;
  /** Natural-map polish steps after the interior-point phase (naturalMapSparse.ts; counted in iterations). */
  readonly polishSteps: number;
  /** Most pivots of one factorisation (contact space, or the body space on the 'krylov' path) replaced by the dynamic regularisation (0: none). */
  readonly regularizedPivots: number;
}

/** KKT report of λ from the matrix-free rows: recomputes Δv = M⁻¹Jᵀλ, then w = JΔv + shifts·λ − b. */
export const kktMatrixFree = kktRows;

/** The solve's context for `sparseOutput`: the island, its matrix-free rows and the KKT workspace, the history, the tolerance. */
interface SparseRun {
  readonly k: ContactJacobians;
  readonly rows: MatrixFreeRows;
  readonly ws: KktWorkspace;
  readonly history: HistoryRecorder;
  readonly tol: number;
  readonly t0: number;
}

/**
 * Termination phase, output: the KKT report of `src` and the status it supports ("converged" only at KKT max_rel ≤
 * tolerance on finite data), with the solve's figures (`s` null when it ended before the setup).
 */
function sparseOutput(
  run: SparseRun,
  s: SparseIpmNewton | null,
  status: SolveStatus,
  iterations: number,
  src: Float64Array,
  bytes: number,
  polishSteps: number,
): SparseIpmOutput {
  const { k, rows, ws, history, tol, t0 } = run;
  const report = { ...kktMatrixFree(rows, src, ws) };
  const w = Float64Array.from(ws.w);
  const f = objectiveFromAlam(src, ws.Alam, k.b, k.size);
  let st = status;
  if (st.kind === 'converged' && !(report.maxRel <= tol)) st = { kind: 'stalled', reason: `KKT max_rel ${formatNumber(report.maxRel)} > ${formatNumber(tol)}` };
  if (st.kind !== 'failed' && !Number.isFinite(report.maxRel)) st = { kind: 'failed', reason: 'λ or w is not finite' };
  return {
    solver: 'ipm',
    lambda: Float64Array.from(src),
    w,
    dv: Float64Array.from(rows.dv),
    status: st,
    iterations,
    history: history.finish(),
    regularization: s?.regularization ?? 0,
    timeMs: nowMs() - t0,
    objective: f,
    kkt: report,
    contactClass: classifyContacts(k, src, w, report.lamRef, report.wRef),
    memoryBytes: bytes,
    bodyCount: s?.N ?? 0,
    factorBlocks: s ? s.symB.colPtr[s.N] : 0,
    contactSpaceFrom: s?.contactSpaceFrom ?? -1,
    krylovFrom: s?.krylovFrom ?? -1,
    regularizedPivots: s?.regularizedPivots ?? 0,
    newtonSolves: s?.newtonSolves ?? 0,
    krylovIterations: s?.krylovIterations ?? 0,
    krylovMaxPerSolve: s?.krylovMaxPerSolve ?? 0,
    inexactSolves: s?.inexactSolves ?? 0,
    worstInexact: s?.worstInexact ?? 0,
    polishSteps,
  };
}

/** Start phase ([V] §3): x̂ = −(P + δ₀I)⁻¹q, ẑ = −δ₀x̂, each shifted into int K. Returns the failure, or null. */
function sparseStart(s: SparseIpmNewton): string | null {
  const { n, rhs, q, x, z, dx, pinned, kind, C } = s;
  if (!s.buildAndFactor(0, 0)) return 'starting point: P + δ₀I could not be factorised';
  for (let i = 0; i < n; i++) rhs[i] = -q[i];
  if (!s.newtonSolve(0)) return 'starting point: the contact-space Newton matrix could not be factorised';
  for (let i = 0; i < n; i++) {
    x[i] = pinned[i] ? 0 : dx[i];
    z[i] = pinned[i] ? 0 : -IPM_START_DAMPING * dx[i];
  }
  shiftIntoCones(x, kind, C);
  shiftIntoCones(z, kind, C);
  return null;
}

/**
 * Start phase from a given λ⁰ (ipm.ts's warm start, Gondzio's shift): x = λ⁰/(κD), z = Px + q, each cone's point
 * pushed inside to the smallest eigenvalue IPM_WARM_START_MARGIN.
 */
function sparseWarmStart(s: SparseIpmNewton, start: Float64Array): void {
  const { n, q, x, z, pinned, kind, C, kappa, D } = s;
  for (let i = 0; i < n; i++) x[i] = pinned[i] ? 0 : start[i] / (kappa * D[i]);
  s.applyP(x, z);
  for (let i = 0; i < n; i++) z[i] = pinned[i] ? 0 : z[i] + q[i];
  warmInteriorStart(x, kind, C, IPM_WARM_START_MARGIN);
  warmInteriorStart(z, kind, C, IPM_WARM_START_MARGIN);
}

/**
 * Mehrotra predictor–corrector on the NT direction (ipm.ts, [V] §3 eqs. (12)–(14)), each pass followed by the
 * step to the boundary; leaves (dx, dz) and returns α, or −1 when a Newton system could not be solved.
 */
function sparsePredictorCorrector(s: SparseIpmNewton, tau: number, iterations: number): number {
  const { C, kind, nt, dxa, dza, tmp, u, winv, corr, rhs, rx, dx, dz } = s;
  let alphaAff = 0,
    alpha = 0,
    solved = -1;
  for (let pass = 0; pass < 2; pass++) {
    const sigmaTau = pass === 0 ? 0 : Math.pow(1 - alphaAff, IPM_SIGMA_EXPONENT) * tau;
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        kc = kind[c];
      complementarityTarget(nt, nt, nt, o, kc, sigmaTau, pass === 1 ? dxa : null, dza, tmp, u);
      applyWinv(winv, 9 * c, u, o, kc, corr);
      rhs[o] = -rx[o] + corr[o];
      rhs[o + 1] = kc === CONE_ORTHANT ? 0 : -rx[o + 1] + corr[o + 1];
      rhs[o + 2] = kc === CONE_ORTHANT ? 0 : -rx[o + 2] + corr[o + 2];
    }
    if (!s.newtonSolve(iterations)) break;
    const ex = pass === 0 ? dxa : tmp,
      ez = pass === 0 ? dza : corr;
    const amax = ntStepToBoundaryAll(winv, kind, C, dx, u, nt, ex, ez);
    if (pass === 0) alphaAff = Math.min(1, amax);
    else alpha = Math.min(1, IPM_STEP_FRACTION * amax);
    solved = pass;
  }
  if (solved < 1) return -1;
  for (let c = 0; c < C; c++) applyWinv(winv, 9 * c, corr, 3 * c, kind[c], dz);
  return alpha;
}

/**
 * Solves the QP-SOCP of the island given by its Jacobians with the sparse interior-point method (file
 * header); `softening` γ is added to the normal rows as in the matrix-free PGS. The entry point for exact
 * solves of islands of any size (world step above the dense limit, counterfactual re-solves). `polishMap`: the
 * natural map of the same island and softening for the polish (the sparse Newton's), instead of a new one.
 * `warm`: a λ⁰ to start from as solveIpm does (ipm.ts: shifted into the cones, and [V]'s start with the budget left
 * where the warm path does not converge).
 */
export function solveIpmSparse(
  k: ContactJacobians,
  opts: IpmOptions,
  softening = 0,
  linear: SparseIpmLinearSolve = 'krylov',
  polishMap?: SparseNaturalMap,
  warm?: Float64Array,
): SparseIpmOutput {
  if (warm === undefined || warm.length !== k.size) return sparseInteriorPoint(k, opts, softening, linear, polishMap);
  const first = sparseInteriorPoint(k, opts, softening, linear, polishMap, warm);
  const maxIt = ipmIterationBudget(opts);
  if (first.status.kind === 'converged' || first.iterations >= maxIt) return first;
  const cold = sparseInteriorPoint(k, { ...opts, maxIterations: maxIt - first.iterations }, softening, linear, polishMap);
  // the cold run's answer; the counts of both runs, and both histories (entry k after k iterations)
  return {
    ...cold,
    iterations: first.iterations + cold.iterations,
    history: joinedHistory(first.history, cold.history),
    regularization: Math.max(first.regularization, cold.regularization),
    timeMs: first.timeMs + cold.timeMs,
    newtonSolves: first.newtonSolves + cold.newtonSolves,
    krylovIterations: first.krylovIterations + cold.krylovIterations,
    krylovMaxPerSolve: Math.max(first.krylovMaxPerSolve, cold.krylovMaxPerSolve),
    inexactSolves: first.inexactSolves + cold.inexactSolves,
    worstInexact: Math.max(first.worstInexact, cold.worstInexact),
    polishSteps: first.polishSteps + cold.polishSteps,
    memoryBytes: Math.max(first.memoryBytes, cold.memoryBytes),
  };
}

function sparseInteriorPoint(
  k: ContactJacobians,
  opts: IpmOptions,
  softening: number,
  linear: SparseIpmLinearSolve,
  polishMap: SparseNaturalMap | undefined,
  start?: Float64Array,
): SparseIpmOutput {
  const t0 = nowMs();
  const maxIt = ipmIterationBudget(opts);
  const tol = opts.tolerance ?? IPM_DEFAULT_TOLERANCE;
  const n = k.size,
    C = k.contactCount,
    b = k.b;
  const rows = matrixFreeRows(k, softening);
  const ws = new KktWorkspace(n);
  const history = new HistoryRecorder(maxIt + 1);
  const lam = new Float64Array(n),
    best = new Float64Array(n);
  // bytes of the typed arrays allocated for this solve (rows, KKT workspace, λ and the best λ)
  const setupBytes = rows.diagonal.byteLength + rows.dv.byteLength + 16 * n + 16 * n;
  const run: SparseRun = { k, rows, ws, history, tol, t0 };

  // λ = 0 is optimal iff −b ∈ K* (as in ipm.ts, tested exactly).
  const r0 = kktMatrixFree(rows, lam, ws).maxRel;
  if (r0 <= tol) {
    history.record(r0, 0);
    return sparseOutput(run, null, { kind: 'converged' }, 0, lam, setupBytes, 0);
  }

  // the polish map's body space (the sparse Newton's) has this island's K pattern: its symbolic analysis is reused
  const s = new SparseIpmNewton(k, rows.diagonal, softening, linear, setupBytes, polishMap?.bodySpace);
  const { x, z, xSave, zSave, dx, dz, pinned, kind, q, rx, px, measures, kappa, D } = s;
  const toLambda = (src: Float64Array): void => {
    for (let i = 0; i < n; i++) lam[i] = pinned[i] ? 0 : kappa * D[i] * src[i];
  };
  const evalKkt = (): number => {
    const rep = kktMatrixFree(rows, lam, ws);
    history.record(rep.maxRel, objectiveFromAlam(lam, ws.Alam, b, n));
    return rep.maxRel;
  };
  let startFailure: string | null = null;
  if (start) sparseWarmStart(s, start);
  else startFailure = sparseStart(s);
  if (startFailure !== null) {
    if (s.newtonSolves === 0) history.record(r0, 0); // P + δ₀I failed before any Newton solve: the history holds λ = 0
    return sparseOutput(run, s, { kind: 'failed', reason: startFailure }, 0, lam, s.bytes, 0);
  }
  toLambda(x);
  let rel = evalKkt();
  if (!Number.isFinite(rel) || !allInterior(x, kind, C) || !allInterior(z, kind, C)) {
    lam.fill(0);
    return sparseOutput(run, s, { kind: 'failed', reason: 'starting point is not finite / not interior' }, 0, lam, s.bytes, 0);
  }
  let bestRel = rel;
  best.set(lam);
  let status: SolveStatus | null = bestRel <= tol ? { kind: 'converged' } : null;
  let iterations = 0,
    armed = false;
  const progress = new IpmProgress();

  while (status === null && iterations < maxIt) {
    // r = Px + q − z, τ = xᵀz / C, merit (ipm.ts residualMeasures, Px matrix-free)
    s.applyP(x, px);
    residualMeasures(px, q, x, z, pinned, C, rx, measures);
    const tau = measures[0],
      merit = measures[1];
    if (!ntScaleAll(x, z, kind, C, s.winv, s.nt)) {
      status = { kind: 'failed', reason: `iterate left the cone interior at iteration ${iterations}` };
      break;
    }
    // near the solution (armed) a body-space Newton system that fails ends the interior-point phase: the natural-map
    // polish finishes (file header, "Endgame"), instead of the contact-space factor
    s.contactSpaceAllowed = !armed;
    if (!s.buildAndFactor(1, iterations)) {
      status = armed
        ? { kind: 'stalled', reason: `body-space Newton system not factorisable at rounding level at iteration ${iterations}` }
        : { kind: 'failed', reason: `Newton system not positive definite at iteration ${iterations}` };
      break;
    }
    const alpha = sparsePredictorCorrector(s, tau, iterations);
    if (alpha < 0 && armed) {
      status = { kind: 'stalled', reason: `body-space Newton system not solved to the forcing term at iteration ${iterations}` };
      break;
    }
    if (alpha < 0) {
      status = { kind: 'failed', reason: `contact-space Newton matrix not factorisable even with shift ${REGULARIZATION_MAX} at iteration ${iterations}` };
      break;
    }

    iterations++;
    if (!stepInside(x, z, xSave, zSave, dx, dz, alpha, pinned, kind, C))
      status = { kind: 'stalled', reason: `no step keeps the iterate inside the cones at iteration ${iterations}` };
    toLambda(x);
    rel = evalKkt();
    if (!Number.isFinite(rel)) {
      status = { kind: 'failed', reason: `non-finite iterate at iteration ${iterations}` };
      break;
    }
    if (rel < bestRel) {
      bestRel = rel;
      best.set(lam);
    }
    if (status !== null) break;
    if (bestRel <= tol) {
      status = { kind: 'converged' };
      break;
    }
    if (rel <= SPARSE_IPM_STALL_ARM) armed = true;
    status = progress.check(iterations, alpha, bestRel, merit, tau, armed);
    // complementarity at rounding level (SPARSE_IPM_TAU_ROUNDING): the polish finishes
    if (status === null && armed && tau <= SPARSE_IPM_TAU_ROUNDING)
      status = { kind: 'stalled', reason: `complementarity τ = ${formatNumber(tau)} at rounding level at iteration ${iterations}` };
  }
  // ---- polish (ipm.ts step 4, sparse): semismooth Newton on the checker's natural map (naturalMapSparse.ts) ----
  let polishSteps = 0;
  if (bestRel > tol && iterations < maxIt) {
    const before = bestRel;
    // the caller's natural map of this island (the sparse Newton's, with its symbolic analysis), else a new one on
    // this solve's body-space pattern
    const nm = polishMap ?? new SparseNaturalMap(k, softening, s.space);
    if (!polishMap) s.bytes += nm.bytes;
    // the proximal endgame (naturalMapSparse.ts proximalStep) first, then projected steps (file header)
    const polished = polishNaturalMapSparse(
      nm,
      best,
      bestRel,
      tol,
      Math.min(SPARSE_IPM_POLISH_STEPS, maxIt - iterations),
      (rel, f) => history.record(rel, f),
      undefined,
      1,
      true,
    );
    polishSteps = polished.steps;
    bestRel = polished.bestRel;
    iterations += polished.steps;
    const note =
      bestRel < before
        ? `${polishSteps} natural-map polish step(s) reached KKT max_rel ${bestRel.toExponential(2)}`
        : `${polishSteps} natural-map polish step(s) did not lower it`;
    status = statusAfterPolish(status, bestRel, tol, note);
  }
  const closing = closingStatus(status, bestRel, tol, iterations, maxIt);
  // the loop's own non-converged status (not one closingStatus wrote) also names the best max_rel reached
  status =
    closing === status && closing.kind !== 'converged' ? { ...closing, reason: `${closing.reason}; best KKT max_rel ${formatNumber(bestRel)}` } : closing;
  return sparseOutput(run, s, status, iterations, best, s.bytes, polishSteps);
}
