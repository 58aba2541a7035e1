/**
 * Semismooth Newton on the checker's natural map F(λ) = λ − Π_K(λ − ρw), w = Aλ − b, for islands of any
 * size: A = J M⁻¹ Jᵀ + S is never formed (S: the assembly's ε on every row plus the softening γ on normal
 * rows). The sparse counterpart of polish.ts (mode 1, plain Newton; F. Facchinei, J.-S. Pang,
 * "Finite-Dimensional Variational Inequalities and Complementarity Problems" (2003) §7.5; L. Qi, J. Sun,
 * "A nonsmooth version of Newton's method", Math. Programming 58 (1993)).
 *
 * Newton system. With the generalised Jacobian I − Π′ + Π′ρA (Π′ block-diagonal, per contact the
 * symmetric 3×3 derivative of the cone projection, cone.ts coneProjectionJacobian, eigenvalues θ ∈ [0, 1])
 * and Π′_c = U Θ Uᵀ (symmetricEigen3), the rotated unknowns y = Uᵀdλ, g = UᵀF satisfy per component
 *
 *   (1 − θ_k) y_k + θ_k ρ (Ã y)_k = −g_k,   Ã = Uᵀ A U (U block-diagonal, orthogonal):
 *   θ_k = 0 (≤ SPARSE_NEWTON_THETA_FIXED):  y_k = −g_k (fixed);
 *   θ_k > 0:  (Ã y)_k + (h_k/ρ) y_k = −g_k/(ρθ_k),   h_k = (1 − θ_k)/θ_k.
 *
 * On the free components, with the fixed ones moved to the right-hand side and the symmetric scaling
 * y = √ρ z (R = diag(ρ_c)), the matrix R^½(Ã + diag(h/ρ))R^½ is symmetric positive definite (A ⪰ εI):
 * Â = Ĥ + B̂B̂ᵀ with B̂ = √ρ P_F Uᵀ J L (per contact side 3×6, L Lᵀ = M⁻¹) and Ĥ = ρ Uᵀ S U + diag(h) =
 * diag(ρε + h) + ργ u uᵀ (u = Uᵀe_n) — diagonal plus rank one in the
 * eigenbasis, inverted exactly by Sherman–Morrison, so a block never mixes a huge and a tiny curvature in
 * an explicit sum. Â is solved like the sparse interior point's Newton systems (ipmSparse.ts, 'krylov'):
 * preconditioned conjugate gradients (pcg.ts) with Â's Woodbury solve as preconditioner, whose body-space
 * factor K = I + B̂ᵀĤ⁻¹B̂ (bodySpace.ts, block-sparse Cholesky) is analysed once and factorised per step.
 *
 * Line search as polish.ts projectedLineSearch: candidates Π_K(λ + t·dλ), t = 1, ½, …, merit = the KKT
 * max_rel of the matrix-free checker (ipmSparse.ts kktMatrixFree), only improving steps are kept.
 */
import type { ContactJacobians } from '../assembly.js';
import { coneProjectionJacobian, projectCone } from '../cone.js';
import { KktWorkspace } from '../kkt.js';
import { factorBlockSparse, solveBlockSparse, type PivotRegularization } from '../math/blockSparseCholesky.js';
import { symmetricEigen3 } from '../math/symmetricEigen3.js';
import { addBtv, addRowDot6, assembleBodySpace, BODY_DOFS, bodySpace, type BodySpace } from './bodySpace.js';
import { objectiveFromAlam } from './history.js';
import { PcgWorkspace, pcgSolve } from './pcg.js';
import { matrixFreeRows, type MatrixFreeRows } from './pgsRows.js';
import { POLISH_BACKTRACKS } from './polish.js';

// the polish loop over SparseNaturalMap.step (and its proximal endgame) lives in naturalMapPolish.ts
export { polishNaturalMapSparse } from './naturalMapPolish.js';

/** A Π′ eigenvalue at or below this is 0: the component is fixed (y_k = −g_k), not a free unknown. */
export const SPARSE_NEWTON_THETA_FIXED = 1e-12;
/** PCG target of a Newton system (relative ∞-norm residual of Â y = r). */
export const SPARSE_NEWTON_LINEAR_RESIDUAL = 1e-12;
/**
 * The cold start's A⁻¹b (naturalMapSparse.ts coldStart) is only a starting point, projected and then judged by
 * f: its PCG stops at this relative residual or after SPARSE_NEWTON_START_PCG_ITERATIONS steps.
 */
export const SPARSE_NEWTON_START_RESIDUAL = 1e-6;
export const SPARSE_NEWTON_START_PCG_ITERATIONS = 4;
/** Conjugate-gradient steps allowed per Newton system (the Woodbury preconditioner is exact up to rounding). */
export const SPARSE_NEWTON_PCG_MAX_ITERATIONS = 25;
/**
 * Damping δ of the first direction of each step (scaled system, whose diagonal is ≤ 1 + h): directions with
 * curvature ≫ δ get a full Newton step, the near-null space of a rank-deficient A (curvature ~ ρε) hardly
 * moves — the sparse counterpart of polish.ts's Levenberg–Marquardt mode (Moré 1978).
 */
export const SPARSE_NEWTON_DAMPING = 1e-4;
/**
 * Proximal endgame (SparseNaturalMap.proximalStep): weight δ of the proximal term, in the scaled system's units
 * (the term (δ/ρ_c)·‖λ_c − λ_k,c‖²/2 per contact, i.e. δ on the scaled diagonal, as SPARSE_NEWTON_DAMPING), and
 * the most plain Newton steps on one proximal subproblem, whose natural residual is driven to
 * SPARSE_NEWTON_PROXIMAL_RESIDUAL·max(‖λ‖∞, 1) (rounding level). A smaller δ keeps the subproblem closer to the
 * problem but needs more Newton steps: measured on a stalled 1600-contact pyramid-20 island, 1e-5 did not settle
 * within the interior point's polish budget (IPM_POLISH_STEPS), 1e-4 needed two proximal steps, 3e-5 one (6
 * linear systems, the last ones quadratic).
 */
export const SPARSE_NEWTON_PROXIMAL = 3e-5;
export const SPARSE_NEWTON_PROXIMAL_STEPS = 10;
export const SPARSE_NEWTON_PROXIMAL_RESIDUAL = 1e-14;
/** Rounding level of a body-space pivot relative to its diagonal entry (K ⪰ I; blockSparseCholesky.ts PivotRegularization). */
export const SPARSE_NEWTON_PIVOT_FLOOR = 1e-12;

/** KKT report of λ from the matrix-free rows: recomputes Δv = M⁻¹Jᵀλ, then w = JΔv + shifts·λ − b. */
export function kktRows(rows: MatrixFreeRows, lambda: Float64Array, ws: KktWorkspace): ReturnType<MatrixFreeRows['kkt']> {
  rows.dv.fill(0);
  for (let c = 0; c < rows.contactCount; c++) rows.changed(c, lambda[3 * c], lambda[3 * c + 1], lambda[3 * c + 2]);
  return rows.kkt(lambda, ws);
}

/** What the linear solves did, over the life of one SparseNaturalMap. */
export interface SparseNewtonLinearStats {
  newtonSolves: number;
  krylovIterations: number;
  /** Largest PCG relative residual of a direction that was used. */
  worstResidual: number;
  /** Most body-space pivots one factorisation floored (0: none). */
  regularizedPivots: number;
}

/** The natural map of one island, its sparse Newton directions and the matrix-free KKT merit; work arrays made once. */
export class SparseNaturalMap {
  readonly rows: MatrixFreeRows;
  readonly ws: KktWorkspace;
  readonly C: number;
  readonly n: number;
  readonly stats: SparseNewtonLinearStats = { newtonSolves: 0, krylovIterations: 0, worstResidual: 0, regularizedPivots: 0 };
  /** Bytes of the typed arrays this object allocated. */
  readonly bytes: number;
  /** The last Newton direction (original frame). */
  readonly dl: Float64Array;
  private readonly space: BodySpace;
  private readonly mu: Float64Array;
  private readonly b: Float64Array;
  private readonly rho: Float64Array;
  private readonly eps: number;
  private readonly gamma: number;
  // per contact: Π′ (9), U (9, eigenvectors as columns), θ (3), free mask (3), F and g = UᵀF (3)
  private readonly P: Float64Array;
  private readonly U: Float64Array;
  private readonly theta: Float64Array;
  private readonly free: Uint8Array;
  private readonly F: Float64Array;
  private readonly g: Float64Array;
  // the Newton system Â = Ĥ + B̂B̂ᵀ: B̂ per side, Ĥ and Ĥ⁻¹ (3×3 per contact), K's values
  private readonly BhA: Float64Array;
  private readonly BhB: Float64Array;
  private readonly Hs: Float64Array;
  private readonly Hsi: Float64Array;
  private readonly valB: Float64Array;
  private readonly bodyVec: Float64Array;
  private readonly bodyWork: Float64Array;
  private readonly t1: Float64Array;
  private readonly t2: Float64Array;
  private readonly rhs: Float64Array;
  private readonly y: Float64Array;
  private readonly cand: Float64Array;
  private readonly bestCand: Float64Array;
  private readonly pcg: PcgWorkspace;
  /** Proximal damping δ added to the scaled system's diagonal on free components (0: plain Newton). */
  damping = 0;
  /**
   * Proximal endgame (proximalStep): while set, the natural map is the proximal subproblem's, whose w is
   * w + (δ/ρ_c)(λ − centre) (δ = damping); proxW holds it, prox the subproblem's iterate.
   */
  private proxActive = false;
  private readonly center: Float64Array;
  private readonly proxW: Float64Array;
  private readonly prox: Float64Array;
  private readonly reg: PivotRegularization = { floor: SPARSE_NEWTON_PIVOT_FLOOR, replaced: 0 };

  /** `pattern`: a body space of the same island whose symbolic analysis is reused (bodySpace.ts). */
  constructor(k: ContactJacobians, softening = 0, pattern?: BodySpace) {
    const C = k.contactCount,
      n = k.size;
    this.C = C;
    this.n = n;
    this.mu = k.mu;
    this.b = k.b;
    this.eps = k.regularization;
    this.gamma = softening;
    this.rows = matrixFreeRows(k, softening);
    this.ws = new KktWorkspace(n);
    this.space = bodySpace(k, undefined, pattern);
    let bytes = this.space.bytes + this.rows.diagonal.byteLength + this.rows.dv.byteLength + 16 * n;
    const f64 = (len: number): Float64Array => {
      bytes += 8 * len;
      return new Float64Array(len);
    };
    // the checker's natural-map steps ρ_c = 1/max diag A_cc (kkt.ts, pgsRows.ts)
    this.rho = f64(C);
    const d = this.rows.diagonal;
    for (let c = 0; c < C; c++) {
      const dmax = Math.max(d[9 * c], d[9 * c + 4], d[9 * c + 8]);
      this.rho[c] = dmax > 0 ? 1 / dmax : 1;
    }
    this.P = f64(9 * C);
    this.U = f64(9 * C);
    this.theta = f64(n);
    this.free = new Uint8Array(n);
    bytes += n;
    this.F = f64(n);
    this.g = f64(n);
    this.BhA = f64(18 * C);
    this.BhB = f64(18 * C);
    this.Hs = f64(9 * C);
    this.Hsi = f64(9 * C);
    this.valB = f64(36 * this.space.sym.slots);
    this.bodyVec = f64(BODY_DOFS * this.space.N);
    this.bodyWork = f64(BODY_DOFS * this.space.N);
    this.t1 = f64(n);
    this.t2 = f64(n);
    this.rhs = f64(n);
    this.y = f64(n);
    this.dl = f64(n);
    this.cand = f64(n);
    this.bestCand = f64(n);
    this.center = f64(n);
    this.proxW = f64(n);
    this.prox = f64(n);
    this.pcg = new PcgWorkspace(n);
    bytes += this.pcg.bytes;
    this.bytes = bytes;
  }

  /** The island's body space (body indices, K's symbolic analysis and slots), for a solver of the same island to reuse (bodySpace `pattern`). */
  get bodySpace(): BodySpace {
    return this.space;
  }

  /** KKT max_rel of λ (the matrix-free checker); leaves w in ws.w, Aλ in ws.Alam and M⁻¹Jᵀλ in rows.dv. */
  merit(lam: Float64Array): number {
    return kktRows(this.rows, lam, this.ws).maxRel;
  }

  /** f(λ) = ½λᵀAλ − bᵀλ (recomputes Aλ). */
  objective(lam: Float64Array): number {
    kktRows(this.rows, lam, this.ws);
    return objectiveFromAlam(lam, this.ws.Alam, this.b, this.n);
  }

  /** out = A x = (J L)(J L)ᵀ x + S x, matrix-free over the body space. */
  private applyA(x: Float64Array, out: Float64Array): void {
    const { ca, cb, BA, BB } = this.space;
    const bv = this.bodyVec;
    bv.fill(0);
    for (let c = 0; c < this.C; c++) {
      if (ca[c] >= 0) addBtv(bv, BODY_DOFS * ca[c], BA, c, x);
      if (cb[c] >= 0) addBtv(bv, BODY_DOFS * cb[c], BB, c, x);
    }
    for (let c = 0; c < this.C; c++) {
      const a = ca[c],
        bb = cb[c];
      for (let r = 0; r < 3; r++) {
        const i = 3 * c + r;
        let s = (this.eps + (r === 0 ? this.gamma : 0)) * x[i];
        if (a >= 0) s = addRowDot6(s, BA, 18 * c + 6 * r, bv, BODY_DOFS * a);
        if (bb >= 0) s = addRowDot6(s, BB, 18 * c + 6 * r, bv, BODY_DOFS * bb);
        out[i] = s;
      }
    }
  }

  /**
   * B̂ = √ρ P_F Uᵀ J L, Ĥ = diag(ρε + h) + ργ u uᵀ on the free components and Ĥ⁻¹ (Sherman–Morrison; zero rows
   * and columns on fixed components), then K = I + B̂ᵀĤ⁻¹B̂ factorised. False if K cannot be factorised.
   */
  private factor(): boolean {
    const { C, U, theta, free, rho, Hs, Hsi } = this;
    const { BA, BB } = this.space;
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        u9 = 9 * c,
        sr = Math.sqrt(rho[c]);
      const BhA = this.BhA,
        BhB = this.BhB;
      for (let kk = 0; kk < 3; kk++) {
        const row = 18 * c + 6 * kk;
        const f = free[o + kk] === 1;
        const u0 = f ? sr * U[u9 + kk] : 0,
          u1 = f ? sr * U[u9 + 3 + kk] : 0,
          u2 = f ? sr * U[u9 + 6 + kk] : 0;
        const b0 = 18 * c;
        for (let j = 0; j < 6; j++) {
          BhA[row + j] = u0 * BA[b0 + j] + u1 * BA[b0 + 6 + j] + u2 * BA[b0 + 12 + j];
          BhB[row + j] = u0 * BB[b0 + j] + u1 * BB[b0 + 6 + j] + u2 * BB[b0 + 12 + j];
        }
      }
      // Ĥ = diag(dk) + ργ v vᵀ, v = u on free components (u_k = U[0][k] = (Uᵀ e_n)_k)
      const rg = rho[c] * this.gamma;
      let svd = 0; // vᵀ D⁻¹ v
      const dk = this.t1,
        vk = this.t2; // scratch (3 entries at o)
      for (let kk = 0; kk < 3; kk++) {
        const f = free[o + kk] === 1;
        dk[o + kk] = f ? rho[c] * this.eps + (1 - theta[o + kk]) / theta[o + kk] + this.damping : 1;
        vk[o + kk] = f ? U[u9 + kk] : 0;
        svd += (vk[o + kk] * vk[o + kk]) / dk[o + kk];
      }
      const smc = rg > 0 ? rg / (1 + rg * svd) : 0;
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 3; j++) {
          const fi = free[o + i] === 1 && free[o + j] === 1;
          Hs[u9 + 3 * i + j] = fi ? (i === j ? dk[o + i] : 0) + rg * vk[o + i] * vk[o + j] : 0;
          const di = vk[o + i] / dk[o + i],
            dj = vk[o + j] / dk[o + j];
          Hsi[u9 + 3 * i + j] = fi ? (i === j ? 1 / dk[o + i] : 0) - smc * di * dj : 0;
        }
    }
    assembleBodySpace(this.space, this.BhA, this.BhB, Hsi, this.valB);
    const ok = factorBlockSparse(this.space.sym, this.valB, this.reg);
    if (this.reg.replaced > this.stats.regularizedPivots) this.stats.regularizedPivots = this.reg.replaced;
    return ok;
  }

  /** bodyVec = B̂ᵀ v. */
  private bhT(v: Float64Array): void {
    const { ca, cb } = this.space;
    const bv = this.bodyVec;
    bv.fill(0);
    for (let c = 0; c < this.C; c++) {
      if (ca[c] >= 0) addBtv(bv, BODY_DOFS * ca[c], this.BhA, c, v);
      if (cb[c] >= 0) addBtv(bv, BODY_DOFS * cb[c], this.BhB, c, v);
    }
  }

  /** out[3c..3c+2] = (B̂ bodyVec) for every contact, zero on fixed components. */
  private bh(out: Float64Array): void {
    const { ca, cb } = this.space;
    const bv = this.bodyVec,
      BhA = this.BhA,
      BhB = this.BhB;
    for (let c = 0; c < this.C; c++) {
      const a = BODY_DOFS * ca[c],
        b = BODY_DOFS * cb[c];
      for (let kk = 0; kk < 3; kk++) {
        const row = 18 * c + 6 * kk;
        let s = 0;
        if (a >= 0)
          s +=
            BhA[row] * bv[a] +
            BhA[row + 1] * bv[a + 1] +
            BhA[row + 2] * bv[a + 2] +
            BhA[row + 3] * bv[a + 3] +
            BhA[row + 4] * bv[a + 4] +
            BhA[row + 5] * bv[a + 5];
        if (b >= 0)
          s +=
            BhB[row] * bv[b] +
            BhB[row + 1] * bv[b + 1] +
            BhB[row + 2] * bv[b + 2] +
            BhB[row + 3] * bv[b + 3] +
            BhB[row + 4] * bv[b + 4] +
            BhB[row + 5] * bv[b + 5];
        out[3 * c + kk] = s;
      }
    }
  }

  /** out = Â v (identity on fixed components). */
  private readonly applyOp = (v: Float64Array, out: Float64Array): void => {
    this.bhT(v);
    this.bh(out);
    const { Hs, free } = this;
    for (let c = 0; c < this.C; c++) {
      const o = 3 * c,
        h = 9 * c;
      const v0 = v[o],
        v1 = v[o + 1],
        v2 = v[o + 2];
      for (let kk = 0; kk < 3; kk++) {
        const i = o + kk;
        out[i] = free[i] ? out[i] + Hs[h + 3 * kk] * v0 + Hs[h + 3 * kk + 1] * v1 + Hs[h + 3 * kk + 2] * v2 : v[i];
      }
    }
  };

  /** out = Â⁻¹ r by Woodbury: Ĥ⁻¹(r − B̂ K⁻¹ B̂ᵀ Ĥ⁻¹ r) on free components, r on fixed ones. */
  private readonly woodbury = (r: Float64Array, out: Float64Array): void => {
    const { Hsi, free, t1 } = this;
    for (let c = 0; c < this.C; c++) {
      const o = 3 * c,
        h = 9 * c;
      const r0 = r[o],
        r1 = r[o + 1],
        r2 = r[o + 2];
      for (let kk = 0; kk < 3; kk++) t1[o + kk] = Hsi[h + 3 * kk] * r0 + Hsi[h + 3 * kk + 1] * r1 + Hsi[h + 3 * kk + 2] * r2;
    }
    this.bhT(t1);
    solveBlockSparse(this.space.sym, this.valB, this.bodyVec, this.bodyWork);
    this.bh(t1);
    for (let c = 0; c < this.C; c++) {
      const o = 3 * c,
        h = 9 * c;
      const d0 = free[o] ? r[o] - t1[o] : 0,
        d1 = free[o + 1] ? r[o + 1] - t1[o + 1] : 0,
        d2 = free[o + 2] ? r[o + 2] - t1[o + 2] : 0;
      for (let kk = 0; kk < 3; kk++) {
        const i = o + kk;
        out[i] = free[i] ? Hsi[h + 3 * kk] * d0 + Hsi[h + 3 * kk + 1] * d1 + Hsi[h + 3 * kk + 2] * d2 : r[i];
      }
    }
  };

  /** y = Â⁻¹ rhs by PCG from the Woodbury solve; false if the residual is not below 1 (no descent to trust). */
  private solveSystem(tolerance = SPARSE_NEWTON_LINEAR_RESIDUAL, maxIterations = SPARSE_NEWTON_PCG_MAX_ITERATIONS): boolean {
    this.woodbury(this.rhs, this.y);
    const out = pcgSolve(this.applyOp, this.woodbury, this.rhs, this.y, tolerance, maxIterations, this.pcg);
    this.stats.newtonSolves++;
    this.stats.krylovIterations += out.iterations;
    if (!(out.residual < 1)) return false;
    if (out.residual > this.stats.worstResidual) this.stats.worstResidual = out.residual;
    return true;
  }

  /**
   * The semismooth Newton direction at λ into this.dl (file header). Returns false when the system could not
   * be formed or solved (non-finite data, K not factorisable).
   */
  direction(lam: Float64Array): boolean {
    return this.linearise(lam) && this.solveLinearised();
  }

  /** The natural map at λ (F, g = UᵀF, Π′'s eigenbasis, free components) and the Newton system's right-hand side; false if not finite. */
  private linearise(lam: Float64Array): boolean {
    const { C, mu, rho, P, U, theta, free, F, g, rhs, t1, t2 } = this;
    kktRows(this.rows, lam, this.ws);
    const w = this.proxActive ? this.proximalW(lam) : this.ws.w;
    const pt = this.cand;
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        u9 = 9 * c,
        r = rho[c];
      pt[o] = lam[o] - r * w[o];
      pt[o + 1] = lam[o + 1] - r * w[o + 1];
      pt[o + 2] = lam[o + 2] - r * w[o + 2];
      coneProjectionJacobian(pt[o], pt[o + 1], pt[o + 2], mu[c], P, u9);
      projectCone(pt, o, mu[c], pt);
      for (let kk = 0; kk < 3; kk++) F[o + kk] = lam[o + kk] - pt[o + kk];
      symmetricEigen3(P, u9, theta, o, U, u9);
      for (let kk = 0; kk < 3; kk++) {
        const th = Math.min(1, theta[o + kk]);
        theta[o + kk] = th;
        free[o + kk] = th > SPARSE_NEWTON_THETA_FIXED ? 1 : 0;
        g[o + kk] = U[u9 + kk] * F[o] + U[u9 + 3 + kk] * F[o + 1] + U[u9 + 6 + kk] * F[o + 2];
      }
    }
    // fixed components y_k = −g_k; their coupling −ρ(Ã y_Z)_F goes to the right-hand side
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        u9 = 9 * c;
      for (let kk = 0; kk < 3; kk++) t2[o + kk] = free[o + kk] ? 0 : -g[o + kk];
      for (let i = 0; i < 3; i++) t1[o + i] = U[u9 + 3 * i] * t2[o] + U[u9 + 3 * i + 1] * t2[o + 1] + U[u9 + 3 * i + 2] * t2[o + 2];
    }
    this.applyA(t1, t2); // A U y_Z (original frame)
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        u9 = 9 * c,
        sr = Math.sqrt(rho[c]);
      for (let kk = 0; kk < 3; kk++) {
        const i = o + kk;
        if (!free[i]) rhs[i] = -g[i];
        else {
          const ay = U[u9 + kk] * t2[o] + U[u9 + 3 + kk] * t2[o + 1] + U[u9 + 6 + kk] * t2[o + 2];
          rhs[i] = -g[i] / (sr * theta[i]) - sr * ay; // √ρ·(−g/(ρθ) − (Ã y_Z)_k)
        }
      }
    }
    for (let i = 0; i < this.n; i++) if (!Number.isFinite(rhs[i])) return false;
    return true;
  }

  /** The Newton direction of the last linearise into this.dl; false if K cannot be factorised or PCG fails. */
  private solveLinearised(): boolean {
    if (!this.factor() || !this.solveSystem()) return false;
    this.rotateBack(this.dl);
    return true;
  }

  /** out = U y per contact, y = √ρ z on free components (z: the unknowns of the symmetrically scaled system), z on fixed ones. */
  private rotateBack(out: Float64Array): void {
    const { U, y, free, rho } = this;
    for (let c = 0; c < this.C; c++) {
      const o = 3 * c,
        u9 = 9 * c,
        sr = Math.sqrt(rho[c]);
      const y0 = free[o] ? sr * y[o] : y[o],
        y1 = free[o + 1] ? sr * y[o + 1] : y[o + 1],
        y2 = free[o + 2] ? sr * y[o + 2] : y[o + 2];
      for (let i = 0; i < 3; i++) out[o + i] = U[u9 + 3 * i] * y0 + U[u9 + 3 * i + 1] * y1 + U[u9 + 3 * i + 2] * y2;
    }
  }

  /** w of the proximal subproblem at λ: w + (δ/ρ_c)(λ − centre) into proxW (ws.w holds w). */
  private proximalW(lam: Float64Array): Float64Array {
    const { C, rho, center, proxW, damping } = this;
    const w = this.ws.w;
    for (let c = 0; c < C; c++) {
      const m = damping / rho[c];
      for (let i = 3 * c; i < 3 * c + 3; i++) proxW[i] = w[i] + m * (lam[i] - center[i]);
    }
    return proxW;
  }

  /**
   * Proximal endgame: one proximal-point step (R. T. Rockafellar, "Monotone operators and the proximal point
   * algorithm", SIAM J. Control Optim. 14 (1976)) from λ_k = best — the minimiser over K of
   * f(λ) + Σ_c (δ/2ρ_c)‖λ_c − λ_k,c‖² (δ = SPARSE_NEWTON_PROXIMAL) — found by plain semismooth Newton steps on
   * that subproblem's natural map, neither projected nor line-searched (locally quadratic: its matrix
   * A + diag(δ/ρ) is positive definite with condition ~1/δ, where A itself is singular up to ε on redundant
   * contacts), then projected onto K and kept only if the checker's KKT max_rel drops below bestRel. Where the
   * natural map of the problem itself picks the wrong piece at contacts that are nearly degenerate (a sliding
   * contact inside its cone by ~√τ with a slip of ~√τ at an interior point's end), its Newton step asks w = 0
   * there, which the redundant rows can only meet by large moves along A's near-null space; the projected line
   * search then rejects every step. The proximal term keeps the subproblem strongly convex, so its Newton
   * iteration settles the contact modes itself. With `tol` > 0 the projected iterate is checked after every
   * Newton step and the step ends as soon as it meets the tolerance (the remaining Newton steps would only drive the
   * subproblem's residual to rounding: measured on box-pile-1000 and pyramid-20 world-step islands, the projected
   * iterate met 1e-10 two and one linear systems before the subproblem's residual test stopped). Returns the merit of
   * `best` afterwards and the linear systems solved (each an iteration of the caller).
   */
  proximalStep(best: Float64Array, bestRel: number, maxSolves: number, tol = 0): { rel: number; solves: number } {
    const { n, C, mu, F, prox, dl } = this;
    this.center.set(best);
    prox.set(best);
    this.damping = SPARSE_NEWTON_PROXIMAL;
    this.proxActive = true;
    let scale = 1;
    for (let i = 0; i < n; i++) scale = Math.max(scale, Math.abs(best[i]));
    let solves = 0;
    while (solves < maxSolves && solves < SPARSE_NEWTON_PROXIMAL_STEPS) {
      if (!this.linearise(prox)) break;
      let f = 0;
      for (let i = 0; i < n; i++) f = Math.max(f, Math.abs(F[i]));
      if (f <= SPARSE_NEWTON_PROXIMAL_RESIDUAL * scale) break;
      solves++;
      if (!this.solveLinearised()) break;
      for (let i = 0; i < n; i++) prox[i] += dl[i];
      const met = tol > 0 ? this.proximalMeets(prox, best, bestRel, tol) : -1;
      if (met >= 0) {
        this.damping = 0;
        this.proxActive = false;
        return { rel: met, solves };
      }
    }
    this.damping = 0;
    this.proxActive = false;
    for (let c = 0; c < C; c++) projectCone(prox, 3 * c, mu[c], prox);
    const rel = this.merit(prox);
    if (rel < bestRel) {
      best.set(prox);
      return { rel, solves };
    }
    return { rel: bestRel, solves };
  }

  /**
   * The checker's KKT max_rel of Π_K(prox) when it meets `tol` and lowers bestRel (then written to `best`), else −1.
   * The projection goes to scratch (bestCand: the line search's, not in use here).
   */
  private proximalMeets(prox: Float64Array, best: Float64Array, bestRel: number, tol: number): number {
    const { C, mu, bestCand } = this;
    bestCand.set(prox);
    for (let c = 0; c < C; c++) projectCone(bestCand, 3 * c, mu[c], bestCand);
    const rel = this.merit(bestCand);
    if (!(rel <= tol && rel < bestRel)) return -1;
    best.set(bestCand);
    return rel;
  }

  /**
   * Cold start (newton.ts coldStart without the dense Cholesky): λ = Π_K(A⁻¹b) — the Newton system with every
   * θ = 1, U = I — or 0 when f(Π_K(A⁻¹b)) > f(0) = 0. False if the system could not be solved (λ = 0 then).
   */
  coldStart(lam: Float64Array): boolean {
    const { C, U, theta, free, rho, rhs } = this;
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      for (let i = 0; i < 9; i++) U[9 * c + i] = i % 4 === 0 ? 1 : 0;
      for (let kk = 0; kk < 3; kk++) {
        theta[o + kk] = 1;
        free[o + kk] = 1;
        rhs[o + kk] = Math.sqrt(rho[c]) * this.b[o + kk]; // A y = b as (R^½ A R^½) z = R^½ b, y = R^½ z
      }
    }
    lam.fill(0);
    // a start only (projected, then judged by f): solved to SPARSE_NEWTON_START_RESIDUAL, not to Newton accuracy
    if (!this.factor() || !this.solveSystem(SPARSE_NEWTON_START_RESIDUAL, SPARSE_NEWTON_START_PCG_ITERATIONS)) return false;
    this.rotateBack(lam);
    for (let c = 0; c < C; c++) projectCone(lam, 3 * c, this.mu[c], lam);
    if (!lam.every(Number.isFinite) || this.objective(lam) > 0) lam.fill(0);
    return true;
  }

  /**
   * One semismooth Newton step from `best` (KKT max_rel bestRel), in place, as polish.ts projectedLineSearch:
   * two directions — damped (δ = SPARSE_NEWTON_DAMPING: hardly any motion along the near-null space of a
   * rank-deficient A, the role of the dense polish's Levenberg–Marquardt mode) and plain Newton — each
   * searched with t = 1, ½, … (`backtracks` halvings) on Π_K(best + t·dλ) until the merit drops below
   * bestRel; the lowest candidate wins. Returns the merit of `best` afterwards (unchanged if none improved).
   */
  step(best: Float64Array, bestRel: number, backtracks: number = POLISH_BACKTRACKS): number {
    const { n, C, mu, cand, bestCand, dl } = this;
    let candValue = Infinity;
    for (const delta of [SPARSE_NEWTON_DAMPING, 0]) {
      this.damping = delta;
      if (!this.direction(best)) continue;
      let t = 1;
      for (let bt = 0; bt <= backtracks; bt++, t *= 0.5) {
        for (let i = 0; i < n; i++) cand[i] = best[i] + t * dl[i];
        for (let c = 0; c < C; c++) projectCone(cand, 3 * c, mu[c], cand);
        const m = this.merit(cand);
        if (m < candValue) {
          candValue = m;
          bestCand.set(cand);
        }
        if (m < bestRel) break;
      }
    }
    this.damping = 0;
    if (candValue < bestRel) {
      best.set(bestCand);
      return candValue;
    }
    return bestRel;
  }
}
