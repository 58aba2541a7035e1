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
 * or below the inexact-Newton forcing term SPARSE_IPM_FORCING is used, counted in inexactSolves. Only if
 * PCG misses even that, or K cannot be factorised, do the remaining iterations (contactSpaceFrom ≥ 0)
 * factorise the contact-space matrix B Bᵀ + H itself — the last resort, which the option 'contact-space'
 * (the earlier path) uses as soon as refinement misses its residual
 * (3×3 blocks; block (i, j) ≠ 0 when contacts i and j share a dynamic body: the block-sparse Delassus
 * matrix plus H), whose conditioning is the dense IPM's; pivots that cancellation leaves at rounding level
 * there are regularised and every solve is refined (factorContactSpace). Both factors use the block-sparse Cholesky of
 * math/blockSparseCholesky.ts (minimum-degree ordering and symbolic analysis once per solve, numeric
 * factorisation every Newton step).
 *
 * Like the dense IPM it ends with a natural-map polish when the interior-point phase stops above the
 * tolerance: the sparse semismooth Newton of naturalMapSparse.ts (up to IPM_POLISH_STEPS steps, counted as
 * iterations and in polishSteps). Difference from the dense IPM: no AHO phase (it needs the dense Newton
 * matrix); the KKT check is the same checker (kktFromW) on w = J M⁻¹ Jᵀ λ + Sλ − b computed from the body
 * velocity changes M⁻¹ Jᵀ λ (pgsRows.ts). The status is the checker's: "converged" only at KKT max_rel ≤
 * tolerance on finite data. Work arrays are allocated before the iteration loop (the contact-space factor's
 * once, when it is first needed); memory is O(C) plus the fill of the two factors.
 */
import type { ContactJacobians } from '../assembly.js';
import { classifyContacts, KktWorkspace } from '../kkt.js';
import { addBtv, assembleBodySpace, BODY_DOFS, bodySpace } from './bodySpace.js';
import { kktRows, polishNaturalMapSparse, SparseNaturalMap } from './naturalMapSparse.js';
import {
  analyseBlockPattern,
  blockSlot,
  factorBlockSparse,
  solveBlockSparse,
  type BlockSparseSymbolic,
  type PivotRegularization,
} from '../math/blockSparseCholesky.js';
import { matrixFreeRows } from './pgsRows.js';
import { PcgWorkspace, pcgSolve } from './pcg.js';
import { HistoryRecorder, objectiveFromAlam } from './history.js';
import {
  allInterior,
  CONE_ORTHANT,
  IPM_DEFAULT_MAX_ITERATIONS,
  IPM_DEFAULT_TOLERANCE,
  IPM_MAX_COLLAPSED_STEPS,
  stepInside,
  IPM_MERIT_FLOOR,
  IPM_MIN_STEP,
  IPM_POLISH_STEPS,
  IPM_SIGMA_EXPONENT,
  IPM_STALL_FACTOR,
  IPM_STALL_WINDOW,
  IPM_REFINEMENT_STEPS,
  IPM_SHIFT_START,
  IPM_START_DAMPING,
  IPM_STEP_FRACTION,
  applyWinv,
  complementarityTarget,
  contactScaling,
  rhsScale,
  ntStepToBoundary,
  ntScaleAll,
  residualMeasures,
  shiftIntoCones,
} from './ipm.js';
import type { IpmOptions, SolveResult, SolveStatus } from './types.js';
import { nowMs } from '../clock.js';
import { REGULARIZATION_MAX } from '../math/cholesky.js';
import { formatCount, formatNumber } from '../numberText.js';

/**
 * A Woodbury solve (refined up to IPM_REFINEMENT_STEPS times) whose relative residual stays above this
 * switches the remaining iterations to PCG on the NT-scaled system ('krylov') or to the contact-space
 * factor ('contact-space'); also PCG's target (file header).
 */
export const SPARSE_IPM_WOODBURY_RESIDUAL = 1e-10;
/**
 * Conjugate-gradient steps allowed per Newton solve on the 'krylov' path (pcg.ts); a solve that has not
 * reached SPARSE_IPM_WOODBURY_RESIDUAL by then is judged by SPARSE_IPM_FORCING.
 */
export const SPARSE_IPM_PCG_MAX_ITERATIONS = 4;
/**
 * Forcing term of the inexact Newton steps (Dembo, Eisenstat & Steihaug, "Inexact Newton methods", SIAM J.
 * Numer. Anal. 19, 1982: ‖r − A dx‖ ≤ η‖r‖ with η < 1): a PCG solve that stops above
 * SPARSE_IPM_WOODBURY_RESIDUAL but at or below this is used as the Newton direction (counted in
 * inexactSolves); the status is still the KKT checker's on the true problem, so an inexact direction can
 * only cost iterations, never overstate convergence. Above it, the contact-space factor takes over.
 */
export const SPARSE_IPM_FORCING = 0.5;
/**
 * How the Newton systems are solved once Woodbury with refinement misses SPARSE_IPM_WOODBURY_RESIDUAL
 * (file header): 'krylov' (default) by PCG on the NT-scaled system, the contact-space factor only if that
 * fails; 'contact-space' (the earlier path, kept so that benchmarks show both) by the contact-space factor.
 */
export type SparseIpmLinearSolve = 'krylov' | 'contact-space';
/** Contact-space refinement stops once the relative residual is at or below this (a few ulps of the data). */
export const SPARSE_IPM_REFINED_RESIDUAL = 1e-14;
/**
 * Floor of a contact-space pivot relative to its diagonal entry: pivots below it (lost to cancellation
 * between a cone block's huge and tiny barrier curvatures) are replaced by it (blockSparseCholesky.ts
 * PivotRegularization) and each solve is refined against the exact operator.
 */
export const SPARSE_IPM_PIVOT_FLOOR = 1e-12;
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

/**
 * Solves the QP-SOCP of the island given by its Jacobians with the sparse interior-point method (file
 * header); `softening` γ is added to the normal rows as in the matrix-free PGS. The entry point for exact
 * solves of islands of any size (world step above the dense limit, counterfactual re-solves).
 */
export function solveIpmSparse(k: ContactJacobians, opts: IpmOptions, softening = 0, linear: SparseIpmLinearSolve = 'krylov'): SparseIpmOutput {
  const t0 = nowMs();
  const maxIt = Math.max(0, Math.floor(opts.maxIterations ?? IPM_DEFAULT_MAX_ITERATIONS));
  const tol = opts.tolerance ?? IPM_DEFAULT_TOLERANCE;
  const C = k.contactCount,
    n = k.size;
  const b = k.b,
    mu = k.mu;
  let bytes = 0;
  const f64 = (len: number): Float64Array => {
    bytes += 8 * len;
    return new Float64Array(len);
  };
  const rows = matrixFreeRows(k, softening);
  bytes += rows.diagonal.byteLength + rows.dv.byteLength;
  const ws = new KktWorkspace(n);
  bytes += 16 * n;
  const history = new HistoryRecorder(maxIt + 1);
  const lam = f64(n),
    best = f64(n);
  let regularization = 0;
  let contactSpace = false; // switched on for good once a Woodbury solve misses SPARSE_IPM_WOODBURY_RESIDUAL
  let contactSpaceFrom = -1;
  let regularizedPivots = 0; // most pivots one contact-space factorisation replaced (PivotRegularization)
  let iterations = 0;
  let polishSteps = 0; // natural-map polish steps after the interior-point phase (counted in iterations)
  let krylovFrom = -1; // iteration from which the scaled PCG solves the Newton systems ('krylov' path)
  let newtonSolves = 0,
    krylovIterations = 0,
    krylovMaxPerSolve = 0,
    inexactSolves = 0,
    worstInexact = 0;

  const finish = (status: SolveStatus, iterations: number, src: Float64Array, bodyCount: number, factorBlocks: number): SparseIpmOutput => {
    const report = { ...kktMatrixFree(rows, src, ws) };
    const w = Float64Array.from(ws.w);
    const f = objectiveFromAlam(src, ws.Alam, b, n);
    let st = status;
    if (st.kind === 'converged' && !(report.maxRel <= tol))
      st = { kind: 'stalled', reason: `KKT max_rel ${formatNumber(report.maxRel)} > ${formatNumber(tol)}` };
    if (st.kind !== 'failed' && !Number.isFinite(report.maxRel)) st = { kind: 'failed', reason: 'λ or w is not finite' };
    return {
      solver: 'ipm',
      lambda: Float64Array.from(src),
      w,
      dv: Float64Array.from(rows.dv),
      status: st,
      iterations,
      history: history.finish(),
      regularization,
      timeMs: nowMs() - t0,
      objective: f,
      kkt: report,
      contactClass: classifyContacts(k, src, w, report.lamRef, report.wRef),
      memoryBytes: bytes,
      bodyCount,
      factorBlocks,
      contactSpaceFrom,
      krylovFrom,
      regularizedPivots,
      newtonSolves,
      krylovIterations,
      krylovMaxPerSolve,
      inexactSolves,
      worstInexact,
      polishSteps,
    };
  };

  // λ = 0 is optimal iff −b ∈ K* (as in ipm.ts, tested exactly).
  const r0 = kktMatrixFree(rows, lam, ws).maxRel;
  if (r0 <= tol) {
    history.record(r0, 0);
    return finish({ kind: 'converged' }, 0, lam, 0, 0);
  }

  // ---- change of variables (ipm.ts scaledProblem), from the diagonal blocks of A ----
  const diag = rows.diagonal;
  const kind = new Int8Array(C);
  const D = f64(n),
    sigma = f64(n),
    q = f64(n);
  const pinned = new Uint8Array(n);
  bytes += C + n;
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      m = mu[c];
    kind[c] = contactScaling(m, diag[9 * c], diag[9 * c + 4], diag[9 * c + 8], D, o);
    if (kind[c] === CONE_ORTHANT) pinned[o + 1] = pinned[o + 2] = 1;
    for (let r = 0; r < 3; r++) sigma[o + r] = D[o + r] * D[o + r] * (k.regularization + (r === 0 ? softening : 0));
  }
  const kappa = rhsScale(D, b);
  for (let i = 0; i < n; i++) q[i] = pinned[i] ? 0 : (-D[i] * b[i]) / kappa;

  // ---- bodies, B = D J L and the symbolic analysis of K = I + Bᵀ H⁻¹ B (bodySpace.ts) ----
  const space = bodySpace(k, D);
  bytes += space.bytes;
  const { N, ca, cb, BA, BB, sym: symB } = space;
  const valB = f64(36 * symB.slots);
  const Hb = f64(9 * C),
    Hinv = f64(9 * C),
    G = f64(18), // H⁻¹ B for one side (3×6)
    Wm = f64(9),
    Mx = f64(9),
    Mi = f64(9),
    T9 = f64(9);
  const bodyVec = f64(BODY_DOFS * N),
    bodyWork = f64(BODY_DOFS * N),
    yv = f64(n),
    res = f64(n),
    sol = f64(n);

  /**
   * Contact-space factor (fallback, see file header): symbolic analysis of P + H (3×3 blocks; block (i, j) ≠ 0
   * when contacts i and j share a dynamic body) and its constant part B Bᵀ per stored block, built on first use.
   */
  let symC: BlockSparseSymbolic | null = null;
  let AvalC: Float64Array = new Float64Array(0),
    valC: Float64Array = new Float64Array(0);
  const work = f64(n);
  const pivotReg: PivotRegularization = { floor: SPARSE_IPM_PIVOT_FLOOR, replaced: 0 };
  const bodyReg: PivotRegularization = { floor: SPARSE_IPM_PIVOT_FLOOR, replaced: 0 };
  const setupContactSpace = (): BlockSparseSymbolic => {
    const touch: number[][] = [];
    for (let i = 0; i < N; i++) touch.push([]);
    for (let c = 0; c < C; c++) {
      if (ca[c] >= 0) touch[ca[c]].push(2 * c);
      if (cb[c] >= 0) touch[cb[c]].push(2 * c + 1);
    }
    const eA: number[] = [],
      eB: number[] = [];
    for (const list of touch)
      for (let p = 0; p < list.length; p++)
        for (let q = 0; q < p; q++) {
          eA.push(list[p] >> 1);
          eB.push(list[q] >> 1);
        }
    const symC = analyseBlockPattern(C, 3, eA, eB);
    bytes += 4 * (symC.perm.length + symC.inv.length + symC.colPtr.length + symC.rowOf.length + symC.updPtr.length + symC.updTarget.length);
    const Aval = f64(9 * symC.slots);
    valC = f64(9 * symC.slots);
    const sideOf = (e: number): Float64Array => (e & 1 ? BB : BA);
    for (const list of touch)
      for (let p = 0; p < list.length; p++)
        for (let q = 0; q <= p; q++) {
          const i = list[p] >> 1,
            j = list[q] >> 1;
          const { slot, transposed } = blockSlot(symC, i, j);
          // B_i,side B_j,sideᵀ (3×3; rows of contact i), added once per shared body
          const Bi = sideOf(list[p]),
            Bj = sideOf(list[q]);
          for (let r = 0; r < 3; r++)
            for (let t = 0; t < 3; t++) {
              let v = 0;
              for (let m = 0; m < 6; m++) v += Bi[18 * i + 6 * r + m] * Bj[18 * j + 6 * t + m];
              if (i === j) {
                Aval[9 * slot + 3 * r + t] += v;
              } else if (transposed) Aval[9 * slot + 3 * t + r] += v;
              else Aval[9 * slot + 3 * r + t] += v;
            }
        }
    AvalC = Aval;
    bytes += 2 * Aval.byteLength;
    return symC;
  };
  // ---- iterate and work vectors ----
  const x = f64(n),
    z = f64(n),
    xSave = f64(n),
    zSave = f64(n),
    dx = f64(n),
    dz = f64(n),
    dxa = f64(n),
    dza = f64(n),
    u = f64(n),
    rx = f64(n),
    rhs = f64(n),
    nt = f64(n),
    tmp = f64(n),
    corr = f64(n),
    px = f64(n),
    measures = f64(2); // [τ, merit] of residualMeasures
  // NT-scaled Newton system of the 'krylov' path: W per contact, Ĥ = I + WΣW and Ĥ⁻¹ (3×3 each), ŕ = W r, ŷ
  const krylov = linear === 'krylov';
  const Ws = f64(krylov ? 9 * C : 0),
    Wsi = f64(krylov ? 9 * C : 0),
    Hs = f64(krylov ? 9 * C : 0),
    Hsi = f64(krylov ? 9 * C : 0),
    rhsS = f64(krylov ? n : 0),
    yS = f64(krylov ? n : 0);
  const pcg = new PcgWorkspace(krylov ? n : 0);
  bytes += pcg.bytes;
  const winv = f64(9 * C);

  /** out = B Bᵀ v + Σ v (= P v), matrix-free. */
  const applyP = (v: Float64Array, out: Float64Array): void => {
    bodyVec.fill(0);
    for (let c = 0; c < C; c++) {
      if (ca[c] >= 0) addBtv(bodyVec, BODY_DOFS * ca[c], BA, c, v);
      if (cb[c] >= 0) addBtv(bodyVec, BODY_DOFS * cb[c], BB, c, v);
    }
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      for (let r = 0; r < 3; r++) {
        let s = sigma[o + r] * v[o + r];
        const a = ca[c],
          bb = cb[c];
        if (a >= 0) for (let j = 0; j < 6; j++) s += BA[18 * c + 6 * r + j] * bodyVec[BODY_DOFS * a + j];
        if (bb >= 0) for (let j = 0; j < 6; j++) s += BB[18 * c + 6 * r + j] * bodyVec[BODY_DOFS * bb + j];
        out[o + r] = pinned[o + r] ? 0 : s;
      }
    }
  };

  /**
   * H per contact: δ₀I + Σ (mode 0, starting point) or W⁻² + Σ (mode 1, NT), identity on pinned rows; H⁻¹
   * = W (I + WΣW)⁻¹ W for NT (accurate when W⁻² has a huge range); then K = I + Bᵀ H⁻¹ B assembled and
   * factorised. False if a block or K is not positive definite.
   */
  const buildBodySpace = (mode: 0 | 1): boolean => {
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        h = 9 * c;
      for (let i = 0; i < 9; i++) Hb[h + i] = Hinv[h + i] = 0;
      if (kind[c] === CONE_ORTHANT) {
        const hv = (mode === 0 ? IPM_START_DAMPING : winv[h] * winv[h]) + sigma[o];
        Hb[h] = hv;
        Hinv[h] = 1 / hv;
        Hb[h + 4] = Hb[h + 8] = Hinv[h + 4] = Hinv[h + 8] = 1;
        if (!(hv > 0) || !Number.isFinite(hv)) return false;
        if (krylov) {
          // W = 1/W⁻¹ on the normal row (start: W = 1), identity on the pinned tangent rows
          const wv = mode === 0 ? 1 : 1 / winv[h];
          setScaled(h, wv, 0, 0, 0, 1, 0, 0, 0, 1);
          Wsi[h] = 1 / wv;
          const hs = mode === 0 ? hv : 1 + wv * wv * sigma[o];
          Hs[h] = hs;
          Hsi[h] = 1 / hs;
        }
      } else if (mode === 0) {
        for (let r = 0; r < 3; r++) {
          Hb[h + 4 * r] = IPM_START_DAMPING + sigma[o + r];
          Hinv[h + 4 * r] = 1 / Hb[h + 4 * r];
        }
        if (krylov) {
          // start: W = I, Ĥ = H
          setScaled(h, 1, 0, 0, 0, 1, 0, 0, 0, 1);
          for (let r = 0; r < 3; r++) {
            Hs[h + 4 * r] = Hb[h + 4 * r];
            Hsi[h + 4 * r] = Hinv[h + 4 * r];
          }
        }
      } else {
        // W⁻² + Σ, and W = η² J W⁻¹ J (J = diag(1, −1, −1), η² = ‖x‖_J/‖z‖_J; [V] §4.3)
        gramPlusDiag3(winv, h, sigma, o, Hb, h);
        const xr = Math.hypot(x[o + 1], x[o + 2]),
          zr = Math.hypot(z[o + 1], z[o + 2]);
        const eta2 = Math.sqrt((x[o] - xr) * (x[o] + xr)) / Math.sqrt((z[o] - zr) * (z[o] + zr));
        // J W⁻¹ J flips the signs of the (0, 1..2) and (1..2, 0) entries
        Wm[0] = eta2 * winv[h];
        Wm[1] = -eta2 * winv[h + 1];
        Wm[2] = -eta2 * winv[h + 2];
        Wm[3] = -eta2 * winv[h + 3];
        Wm[4] = eta2 * winv[h + 4];
        Wm[5] = eta2 * winv[h + 5];
        Wm[6] = -eta2 * winv[h + 6];
        Wm[7] = eta2 * winv[h + 7];
        Wm[8] = eta2 * winv[h + 8];
        identityPlusScaledGram3(Wm, 0, sigma, o, Wm, 0, Mx, 0);
        if (!spdInverse3(Mx, 0, Mi, 0)) return false;
        if (krylov)
          for (let i = 0; i < 9; i++) {
            Ws[h + i] = Wm[i];
            Wsi[h + i] = winv[h + i];
            Hs[h + i] = Mx[i];
            Hsi[h + i] = Mi[i];
          }
        mul3x3(Mi, 0, Wm, 0, T9, 0);
        mul3x3(Wm, 0, T9, 0, Hinv, h);
      }
    }
    // K = I + Σ_c B_cᵀ H_c⁻¹ B_c
    assembleBodySpace(space, BA, BB, Hinv, valB, G);
    // K's eigenvalues are ≥ 1, so a pivot at rounding level is rounding (cond K ~ max H⁻¹ near the solution): on the
    // 'krylov' path it is floored (PivotRegularization) and PCG works against the exact operator
    if (!krylov) return factorBlockSparse(symB, valB);
    const ok = factorBlockSparse(symB, valB, bodyReg);
    if (bodyReg.replaced > regularizedPivots) regularizedPivots = bodyReg.replaced;
    return ok;
  };

  /** Ws block at h ← the given 3×3 (row-major); Hs, Hsi blocks zeroed. */
  function setScaled(h: number, a0: number, a1: number, a2: number, a3: number, a4: number, a5: number, a6: number, a7: number, a8: number): void {
    Ws[h] = a0;
    Ws[h + 1] = a1;
    Ws[h + 2] = a2;
    Ws[h + 3] = a3;
    Ws[h + 4] = a4;
    Ws[h + 5] = a5;
    Ws[h + 6] = a6;
    Ws[h + 7] = a7;
    Ws[h + 8] = a8;
    for (let i = 0; i < 9; i++) Hs[h + i] = Hsi[h + i] = 0;
    for (let i = 0; i < 9; i++) Wsi[h + i] = i % 4 === 0 ? 1 / Ws[h + i] : 0; // callers with a full W overwrite Wsi
  }
  /** ‖W⁻¹ v‖∞: the unscaled Newton residual of a scaled one (r − A dx = W⁻¹(ŕ − Â ŷ)). */
  const unscaledNorm = (v: Float64Array): number => {
    let m = 0;
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      mul3(Wsi, 9 * c, v, o, corr);
      for (let r2 = 0; r2 < 3; r2++) {
        const a = Math.abs(pinned[o + r2] ? v[o + r2] : corr[o + r2]);
        if (a > m || Number.isNaN(a)) m = a;
      }
    }
    return m;
  };
  /** bodyVec = Bᵀ W v (pinned rows of v ignored); v's W-product is left in corr. */
  const scaledBt = (v: Float64Array): void => {
    bodyVec.fill(0);
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      mul3(Ws, 9 * c, v, o, corr);
      for (let r2 = 0; r2 < 3; r2++) if (pinned[o + r2]) corr[o + r2] = 0;
      if (ca[c] >= 0) addBtv(bodyVec, BODY_DOFS * ca[c], BA, c, corr);
      if (cb[c] >= 0) addBtv(bodyVec, BODY_DOFS * cb[c], BB, c, corr);
    }
  };
  /** tmp[3c..] = (W B bodyVec) for contact c. */
  const scaledB = (c: number): void => {
    const o = 3 * c;
    for (let r2 = 0; r2 < 3; r2++) {
      let s = 0;
      if (ca[c] >= 0) for (let j = 0; j < 6; j++) s += BA[18 * c + 6 * r2 + j] * bodyVec[BODY_DOFS * ca[c] + j];
      if (cb[c] >= 0) for (let j = 0; j < 6; j++) s += BB[18 * c + 6 * r2 + j] * bodyVec[BODY_DOFS * cb[c] + j];
      corr[o + r2] = pinned[o + r2] ? 0 : s;
    }
    mul3(Ws, 9 * c, corr, o, tmp);
  };
  /**
   * out = Â v = (Ĥ + W B Bᵀ W) v, the NT-scaled Newton operator W (B Bᵀ + H) W (identity on pinned rows): Ĥ = I + WΣW
   * has eigenvalues ≥ 1, so no block mixes the barrier's huge and tiny curvatures as H = W⁻² + Σ does.
   */
  const applyScaled = (v: Float64Array, out: Float64Array): void => {
    scaledBt(v);
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      scaledB(c);
      mul3(Hs, 9 * c, v, o, corr);
      for (let r2 = 0; r2 < 3; r2++) out[o + r2] = pinned[o + r2] ? v[o + r2] : tmp[o + r2] + corr[o + r2];
    }
  };
  /** out = Â⁻¹ r by Woodbury on Â = Ĥ + B̂B̂ᵀ, B̂ = WB: Ĥ⁻¹(r − B̂u), u = K⁻¹B̂ᵀĤ⁻¹r with K = I + B̂ᵀĤ⁻¹B̂ = I + BᵀH⁻¹B (the body-space factor). */
  const woodburyScaled = (r: Float64Array, out: Float64Array): void => {
    for (let c = 0; c < C; c++) mul3(Hsi, 9 * c, r, 3 * c, yv);
    scaledBt(yv);
    solveBlockSparse(symB, valB, bodyVec, bodyWork);
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      scaledB(c);
      for (let r2 = 0; r2 < 3; r2++) corr[o + r2] = r[o + r2] - tmp[o + r2];
      mul3(Hsi, 9 * c, corr, o, yv);
      for (let r2 = 0; r2 < 3; r2++) out[o + r2] = pinned[o + r2] ? r[o + r2] : yv[o + r2];
    }
  };
  /** out = (H + BBᵀ)⁻¹ r by Woodbury (file header); no refinement. */
  const woodbury = (r: Float64Array, out: Float64Array): void => {
    for (let c = 0; c < C; c++) mul3(Hinv, 9 * c, r, 3 * c, yv);
    bodyVec.fill(0);
    for (let c = 0; c < C; c++) {
      if (ca[c] >= 0) addBtv(bodyVec, BODY_DOFS * ca[c], BA, c, yv);
      if (cb[c] >= 0) addBtv(bodyVec, BODY_DOFS * cb[c], BB, c, yv);
    }
    solveBlockSparse(symB, valB, bodyVec, bodyWork);
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      for (let r2 = 0; r2 < 3; r2++) {
        let s = 0;
        if (ca[c] >= 0) for (let j = 0; j < 6; j++) s += BA[18 * c + 6 * r2 + j] * bodyVec[BODY_DOFS * ca[c] + j];
        if (cb[c] >= 0) for (let j = 0; j < 6; j++) s += BB[18 * c + 6 * r2 + j] * bodyVec[BODY_DOFS * cb[c] + j];
        tmp[o + r2] = s;
      }
      mul3(Hinv, 9 * c, tmp, o, corr);
      for (let r2 = 0; r2 < 3; r2++) out[o + r2] = pinned[o + r2] ? r[o + r2] : yv[o + r2] - corr[o + r2];
    }
  };
  /**
   * Contact-space factorisation of B Bᵀ + H (H from the last buildBodySpace). Near the solution a sliding
   * contact's H block holds barrier curvatures ~1/τ and ~τ at once, and cancellation can leave a pivot at
   * or below rounding level in a matrix that is positive definite: such pivots are replaced
   * (SPARSE_IPM_PIVOT_FLOOR, dynamic regularisation after Altman & Gondzio 1999) and newtonSolve refines
   * against the exact operator. The dense IPM's diagonal shift (IPM_SHIFT_START·10ᵏ up to
   * REGULARIZATION_MAX) remains for a diagonal entry that is not positive and finite.
   */
  const factorContactSpace = (): boolean => {
    const sym = symC ?? (symC = setupContactSpace());
    for (let shift = 0; shift <= REGULARIZATION_MAX * (1 + 1e-12); shift = shift === 0 ? IPM_SHIFT_START : shift * 10) {
      valC.set(AvalC);
      for (let c = 0; c < C; c++) {
        const d = 9 * sym.inv[c];
        for (let i = 0; i < 9; i++) valC[d + i] += Hb[9 * c + i];
        if (shift > 0) for (let i = 0; i < 3; i++) valC[d + 4 * i] += shift;
      }
      if (factorBlockSparse(sym, valC, pivotReg)) {
        if (pivotReg.replaced > regularizedPivots) regularizedPivots = pivotReg.replaced;
        if (shift > regularization) regularization = shift;
        return true;
      }
    }
    return false;
  };
  /** out = (P + W⁻²) v = (B Bᵀ + H) v, the exact Newton operator (identity on pinned rows). */
  const applyNewton = (v: Float64Array, out: Float64Array): void => {
    applyP(v, out);
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      for (let r2 = 0; r2 < 3; r2++) {
        const hb = 9 * c + 3 * r2;
        // applyP already holds Σv, which H = W⁻² + Σ also contains
        out[o + r2] = pinned[o + r2] ? v[o + r2] : out[o + r2] - sigma[o + r2] * v[o + r2] + Hb[hb] * v[o] + Hb[hb + 1] * v[o + 1] + Hb[hb + 2] * v[o + 2];
      }
    }
  };
  /** Relative residual ‖rhs − (BBᵀ + H)dx‖∞ / ‖rhs‖∞ of the current dx. */
  const newtonResidual = (): number => {
    applyNewton(dx, px);
    let a = 0,
      r = 0;
    for (let i = 0; i < n; i++) {
      res[i] = rhs[i] - px[i];
      a = Math.max(a, Math.abs(res[i]));
      r = Math.max(r, Math.abs(rhs[i]));
    }
    return r > 0 ? a / r : a;
  };
  /** The factor for this Newton matrix: body-space Woodbury unless the contact-space fallback is on. */
  const buildAndFactor = (mode: 0 | 1): boolean => {
    if (!contactSpace) {
      if (buildBodySpace(mode)) return true;
      if (!krylov) return false;
      // K (or a block of H) not factorisable at rounding level near the solution: the contact-space factor,
      // the last resort, for the remaining iterations (reported by contactSpaceFrom)
      contactSpace = true;
      contactSpaceFrom = iterations;
    }
    // H = W⁻² + Σ only (the body-space K is not needed any more)
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        h = 9 * c;
      for (let i = 0; i < 9; i++) Hb[h + i] = 0;
      if (kind[c] === CONE_ORTHANT) {
        Hb[h] = (mode === 0 ? IPM_START_DAMPING : winv[h] * winv[h]) + sigma[o];
        Hb[h + 4] = Hb[h + 8] = 1;
      } else
        for (let i = 0; i < 3; i++)
          for (let j = 0; j < 3; j++) {
            let v = i === j ? sigma[o + i] + (mode === 0 ? IPM_START_DAMPING : 0) : 0;
            if (mode === 1) for (let m = 0; m < 3; m++) v += winv[h + 3 * i + m] * winv[h + 3 * m + j];
            Hb[h + 3 * i + j] = v;
          }
    }
    return factorContactSpace();
  };
  /**
   * dx = (BBᵀ + H)⁻¹ rhs with iterative refinement against the exact operator (Wilkinson): Woodbury in body
   * space, or the contact-space factor once Woodbury's rounding (cond K ~ max H⁻¹) stops the refinement
   * from reaching SPARSE_IPM_WOODBURY_RESIDUAL.
   */
  const newtonSolve = (): boolean => {
    newtonSolves++;
    if (!contactSpace && krylovFrom < 0) {
      woodbury(rhs, dx);
      for (let it = 0; it < IPM_REFINEMENT_STEPS; it++) {
        if (newtonResidual() <= SPARSE_IPM_WOODBURY_RESIDUAL) return true;
        woodbury(res, sol);
        for (let i = 0; i < n; i++) dx[i] += sol[i];
      }
      if (newtonResidual() <= SPARSE_IPM_WOODBURY_RESIDUAL) return true;
      if (krylov) krylovFrom = iterations;
      else {
        contactSpace = true;
        contactSpaceFrom = iterations;
        if (!factorContactSpace()) return false;
      }
    }
    if (!contactSpace) {
      // ŕ = W r, ŷ = Â⁻¹ŕ by PCG preconditioned with Â's Woodbury solve, dx = W ŷ (file header)
      for (let c = 0; c < C; c++) {
        const o = 3 * c;
        mul3(Ws, 9 * c, rhs, o, rhsS);
        for (let r2 = 0; r2 < 3; r2++) if (pinned[o + r2]) rhsS[o + r2] = rhs[o + r2];
      }
      woodburyScaled(rhsS, yS);
      const out = pcgSolve(applyScaled, woodburyScaled, rhsS, yS, SPARSE_IPM_WOODBURY_RESIDUAL, SPARSE_IPM_PCG_MAX_ITERATIONS, pcg, unscaledNorm);
      krylovIterations += out.iterations;
      krylovMaxPerSolve = Math.max(krylovMaxPerSolve, out.iterations);
      if (out.residual <= SPARSE_IPM_FORCING) {
        if (out.residual > SPARSE_IPM_WOODBURY_RESIDUAL) {
          inexactSolves++;
          worstInexact = Math.max(worstInexact, out.residual);
        }
        for (let c = 0; c < C; c++) {
          const o = 3 * c;
          mul3(Ws, 9 * c, yS, o, dx);
          for (let r2 = 0; r2 < 3; r2++) if (pinned[o + r2]) dx[o + r2] = yS[o + r2];
        }
        return true;
      }
      contactSpace = true;
      contactSpaceFrom = iterations;
      if (!factorContactSpace()) return false;
    }
    dx.set(rhs);
    solveBlockSparse(symC!, valC, dx, work);
    for (let it = 0; it < IPM_REFINEMENT_STEPS; it++) {
      if (newtonResidual() <= SPARSE_IPM_REFINED_RESIDUAL) break;
      solveBlockSparse(symC!, valC, res, work);
      for (let i = 0; i < n; i++) dx[i] += res[i];
    }
    return true;
  };
  const toLambda = (src: Float64Array): void => {
    for (let i = 0; i < n; i++) lam[i] = pinned[i] ? 0 : kappa * D[i] * src[i];
  };
  const evalKkt = (): number => {
    const rep = kktMatrixFree(rows, lam, ws);
    history.record(rep.maxRel, objectiveFromAlam(lam, ws.Alam, b, n));
    return rep.maxRel;
  };
  const factorBlocks = symB.colPtr[N];

  // ---- starting point ([V] §3): x̂ = −(P + δ₀I)⁻¹q, ẑ = −δ₀x̂, each shifted into int K ----
  if (!buildAndFactor(0)) {
    history.record(r0, 0);
    return finish({ kind: 'failed', reason: 'starting point: P + δ₀I could not be factorised' }, 0, lam, N, factorBlocks);
  }
  for (let i = 0; i < n; i++) rhs[i] = -q[i];
  if (!newtonSolve())
    return finish({ kind: 'failed', reason: 'starting point: the contact-space Newton matrix could not be factorised' }, 0, lam, N, factorBlocks);
  for (let i = 0; i < n; i++) {
    x[i] = pinned[i] ? 0 : dx[i];
    z[i] = pinned[i] ? 0 : -IPM_START_DAMPING * dx[i];
  }
  shiftIntoCones(x, kind, C);
  shiftIntoCones(z, kind, C);
  toLambda(x);
  let rel = evalKkt();
  if (!Number.isFinite(rel) || !allInterior(x, kind, C) || !allInterior(z, kind, C)) {
    lam.fill(0);
    return finish({ kind: 'failed', reason: 'starting point is not finite / not interior' }, 0, lam, N, factorBlocks);
  }
  let bestRel = rel;
  best.set(lam);
  let status: SolveStatus | null = bestRel <= tol ? { kind: 'converged' } : null;
  let collapsed = 0,
    armed = false;
  const Wn = IPM_STALL_WINDOW + 1;
  const bestTrail = new Float64Array(Wn).fill(Infinity);
  const meritTrail = new Float64Array(Wn).fill(Infinity);

  while (status === null && iterations < maxIt) {
    // r = Px + q − z, τ = xᵀz / C, merit (ipm.ts residualMeasures, Px matrix-free)
    applyP(x, px);
    residualMeasures(px, q, x, z, pinned, C, rx, measures);
    const tau = measures[0],
      merit = measures[1];

    if (!ntScaleAll(x, z, kind, C, winv, nt)) {
      status = { kind: 'failed', reason: `iterate left the cone interior at iteration ${iterations}` };
      break;
    }
    if (!buildAndFactor(1)) {
      status = { kind: 'failed', reason: `Newton system not positive definite at iteration ${iterations}` };
      break;
    }
    // Mehrotra predictor–corrector on the NT direction (ipm.ts, [V] §3 eqs. (12)–(14))
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
      if (!newtonSolve()) break;
      const ex = pass === 0 ? dxa : tmp,
        ez = pass === 0 ? dza : corr;
      let amax = Infinity;
      for (let c = 0; c < C; c++) amax = Math.min(amax, ntStepToBoundary(winv, c, kind[c], dx, u, nt, ex, ez));
      if (pass === 0) alphaAff = Math.min(1, amax);
      else alpha = Math.min(1, IPM_STEP_FRACTION * amax);
      solved = pass;
    }
    if (solved < 1) {
      status = { kind: 'failed', reason: `contact-space Newton matrix not factorisable even with shift ${REGULARIZATION_MAX} at iteration ${iterations}` };
      break;
    }
    for (let c = 0; c < C; c++) applyWinv(winv, 9 * c, corr, 3 * c, kind[c], dz);

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
    collapsed = alpha < IPM_MIN_STEP ? collapsed + 1 : 0;
    if (collapsed >= IPM_MAX_COLLAPSED_STEPS) {
      status = {
        kind: 'stalled',
        reason: `step length collapsed (α = ${formatNumber(alpha)}) for ${formatCount(collapsed, 'iteration')} at iteration ${iterations}`,
      };
      break;
    }
    const slot = iterations % Wn,
      old = (iterations + 1) % Wn;
    const bestOld = bestTrail[old],
      meritOld = meritTrail[old];
    bestTrail[slot] = bestRel;
    meritTrail[slot] = merit;
    if (armed && !(bestRel < IPM_STALL_FACTOR * bestOld) && (merit <= IPM_MERIT_FLOOR || !(merit < IPM_STALL_FACTOR * meritOld))) {
      status = { kind: 'stalled', reason: `interior-point progress stopped at iteration ${iterations} (τ = ${formatNumber(tau)})` };
      break;
    }
  }
  // ---- polish (ipm.ts step 4, sparse): semismooth Newton on the checker's natural map (naturalMapSparse.ts) ----
  if (bestRel > tol && iterations < maxIt) {
    const before = bestRel;
    const nm = new SparseNaturalMap(k, softening);
    bytes += nm.bytes;
    const polished = polishNaturalMapSparse(nm, best, bestRel, tol, Math.min(IPM_POLISH_STEPS, maxIt - iterations), (rel, f) => history.record(rel, f));
    polishSteps = polished.steps;
    bestRel = polished.bestRel;
    iterations += polished.steps;
    if (bestRel <= tol) status = { kind: 'converged' };
    else if (status !== null) {
      const polish =
        bestRel < before
          ? `${polishSteps} natural-map polish step(s) reached KKT max_rel ${bestRel.toExponential(2)}`
          : `${polishSteps} natural-map polish step(s) did not lower it`;
      const why = `${status.kind === 'converged' ? '' : status.reason}; ${polish}`;
      status = status.kind === 'failed' ? { kind: 'failed', reason: why } : { kind: 'stalled', reason: why };
    }
  }
  if (status === null || (status.kind === 'converged' && !(bestRel <= tol))) {
    status =
      iterations >= maxIt
        ? { kind: 'max-iterations', reason: `${formatCount(maxIt, 'iteration')}, KKT max_rel ${formatNumber(bestRel)} > ${formatNumber(tol)}` }
        : { kind: 'stalled', reason: `KKT max_rel ${formatNumber(bestRel)} > ${formatNumber(tol)}` };
  } else if (status.kind !== 'converged') {
    status = { ...status, reason: `${status.reason}; best KKT max_rel ${formatNumber(bestRel)}` };
  }
  return finish(status, iterations, best, N, factorBlocks);
}

/** out = diag(d) + a a (3×3 row-major at a[ao..], d[dof..dof+2]); the loop order of the sums kept (no rounding change). */
function gramPlusDiag3(a: Float64Array, ao: number, d: Float64Array, dof: number, out: Float64Array, oo: number): void {
  out[oo + 0] = d[dof + 0] + a[ao + 0] * a[ao + 0] + a[ao + 1] * a[ao + 3] + a[ao + 2] * a[ao + 6];
  out[oo + 1] = a[ao + 0] * a[ao + 1] + a[ao + 1] * a[ao + 4] + a[ao + 2] * a[ao + 7];
  out[oo + 2] = a[ao + 0] * a[ao + 2] + a[ao + 1] * a[ao + 5] + a[ao + 2] * a[ao + 8];
  out[oo + 3] = a[ao + 3] * a[ao + 0] + a[ao + 4] * a[ao + 3] + a[ao + 5] * a[ao + 6];
  out[oo + 4] = d[dof + 1] + a[ao + 3] * a[ao + 1] + a[ao + 4] * a[ao + 4] + a[ao + 5] * a[ao + 7];
  out[oo + 5] = a[ao + 3] * a[ao + 2] + a[ao + 4] * a[ao + 5] + a[ao + 5] * a[ao + 8];
  out[oo + 6] = a[ao + 6] * a[ao + 0] + a[ao + 7] * a[ao + 3] + a[ao + 8] * a[ao + 6];
  out[oo + 7] = a[ao + 6] * a[ao + 1] + a[ao + 7] * a[ao + 4] + a[ao + 8] * a[ao + 7];
  out[oo + 8] = d[dof + 2] + a[ao + 6] * a[ao + 2] + a[ao + 7] * a[ao + 5] + a[ao + 8] * a[ao + 8];
}

/** out = I + a diag(d) b (3×3 row-major); the loop order of the sums kept. */
function identityPlusScaledGram3(a: Float64Array, ao: number, d: Float64Array, dof: number, b: Float64Array, bo: number, out: Float64Array, oo: number): void {
  out[oo + 0] = 1 + a[ao + 0] * d[dof + 0] * b[bo + 0] + a[ao + 1] * d[dof + 1] * b[bo + 3] + a[ao + 2] * d[dof + 2] * b[bo + 6];
  out[oo + 1] = a[ao + 0] * d[dof + 0] * b[bo + 1] + a[ao + 1] * d[dof + 1] * b[bo + 4] + a[ao + 2] * d[dof + 2] * b[bo + 7];
  out[oo + 2] = a[ao + 0] * d[dof + 0] * b[bo + 2] + a[ao + 1] * d[dof + 1] * b[bo + 5] + a[ao + 2] * d[dof + 2] * b[bo + 8];
  out[oo + 3] = a[ao + 3] * d[dof + 0] * b[bo + 0] + a[ao + 4] * d[dof + 1] * b[bo + 3] + a[ao + 5] * d[dof + 2] * b[bo + 6];
  out[oo + 4] = 1 + a[ao + 3] * d[dof + 0] * b[bo + 1] + a[ao + 4] * d[dof + 1] * b[bo + 4] + a[ao + 5] * d[dof + 2] * b[bo + 7];
  out[oo + 5] = a[ao + 3] * d[dof + 0] * b[bo + 2] + a[ao + 4] * d[dof + 1] * b[bo + 5] + a[ao + 5] * d[dof + 2] * b[bo + 8];
  out[oo + 6] = a[ao + 6] * d[dof + 0] * b[bo + 0] + a[ao + 7] * d[dof + 1] * b[bo + 3] + a[ao + 8] * d[dof + 2] * b[bo + 6];
  out[oo + 7] = a[ao + 6] * d[dof + 0] * b[bo + 1] + a[ao + 7] * d[dof + 1] * b[bo + 4] + a[ao + 8] * d[dof + 2] * b[bo + 7];
  out[oo + 8] = 1 + a[ao + 6] * d[dof + 0] * b[bo + 2] + a[ao + 7] * d[dof + 1] * b[bo + 5] + a[ao + 8] * d[dof + 2] * b[bo + 8];
}

/** out = a b (3×3 row-major); the loop order of the sums kept. */
function mul3x3(a: Float64Array, ao: number, b: Float64Array, bo: number, out: Float64Array, oo: number): void {
  out[oo + 0] = a[ao + 0] * b[bo + 0] + a[ao + 1] * b[bo + 3] + a[ao + 2] * b[bo + 6];
  out[oo + 1] = a[ao + 0] * b[bo + 1] + a[ao + 1] * b[bo + 4] + a[ao + 2] * b[bo + 7];
  out[oo + 2] = a[ao + 0] * b[bo + 2] + a[ao + 1] * b[bo + 5] + a[ao + 2] * b[bo + 8];
  out[oo + 3] = a[ao + 3] * b[bo + 0] + a[ao + 4] * b[bo + 3] + a[ao + 5] * b[bo + 6];
  out[oo + 4] = a[ao + 3] * b[bo + 1] + a[ao + 4] * b[bo + 4] + a[ao + 5] * b[bo + 7];
  out[oo + 5] = a[ao + 3] * b[bo + 2] + a[ao + 4] * b[bo + 5] + a[ao + 5] * b[bo + 8];
  out[oo + 6] = a[ao + 6] * b[bo + 0] + a[ao + 7] * b[bo + 3] + a[ao + 8] * b[bo + 6];
  out[oo + 7] = a[ao + 6] * b[bo + 1] + a[ao + 7] * b[bo + 4] + a[ao + 8] * b[bo + 7];
  out[oo + 8] = a[ao + 6] * b[bo + 2] + a[ao + 7] * b[bo + 5] + a[ao + 8] * b[bo + 8];
}

/** Inverse of the symmetric positive definite 3×3 block at a[o..] into out[oo..] (via Cholesky); false if not PD. */
function spdInverse3(a: Float64Array, o: number, out: Float64Array, oo: number): boolean {
  const l00 = Math.sqrt(a[o]);
  if (!(l00 > 0)) return false;
  const l10 = a[o + 3] / l00,
    l20 = a[o + 6] / l00;
  const d1 = a[o + 4] - l10 * l10;
  if (!(d1 > 0)) return false;
  const l11 = Math.sqrt(d1),
    l21 = (a[o + 7] - l20 * l10) / l11;
  const d2 = a[o + 8] - l20 * l20 - l21 * l21;
  if (!(d2 > 0)) return false;
  const l22 = Math.sqrt(d2);
  // Linv (lower), then A⁻¹ = Linvᵀ Linv
  const i00 = 1 / l00,
    i11 = 1 / l11,
    i22 = 1 / l22;
  const i10 = (-l10 * i00) / l11;
  const i21 = (-l21 * i11) / l22;
  const i20 = (-(l20 * i00) - l21 * i10) / l22;
  out[oo] = i00 * i00 + i10 * i10 + i20 * i20;
  out[oo + 1] = out[oo + 3] = i11 * i10 + i21 * i20;
  out[oo + 2] = out[oo + 6] = i22 * i20;
  out[oo + 4] = i11 * i11 + i21 * i21;
  out[oo + 5] = out[oo + 7] = i22 * i21;
  out[oo + 8] = i22 * i22;
  return Number.isFinite(out[oo]) && Number.isFinite(out[oo + 4]) && Number.isFinite(out[oo + 8]);
}

/** out[o..o+2] = H⁻¹ block (row-major 3×3 at h[ho..]) · v[o..o+2]. */
function mul3(h: Float64Array, ho: number, v: Float64Array, o: number, out: Float64Array): void {
  const v0 = v[o],
    v1 = v[o + 1],
    v2 = v[o + 2];
  out[o] = h[ho] * v0 + h[ho + 1] * v1 + h[ho + 2] * v2;
  out[o + 1] = h[ho + 3] * v0 + h[ho + 4] * v1 + h[ho + 5] * v2;
  out[o + 2] = h[ho + 6] * v0 + h[ho + 7] * v1 + h[ho + 8] * v2;
}
