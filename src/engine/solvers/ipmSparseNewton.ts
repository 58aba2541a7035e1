/**
 * The Newton systems of the sparse interior point (ipmSparse.ts, whose file header derives them): setup of
 * the scaled problem and the body space, Woodbury solves with refinement, PCG on the NT-scaled system
 * ('krylov' path) and the contact-space factor (last resort). Split from ipmSparse.ts so that the
 * iteration there reads as its phases (start, predictor–corrector, step, termination, polish).
 */
import type { ContactJacobians } from '../assembly.js';
import { addBtv, addRowDot6, assembleBodySpace, BODY_DOFS, type BodySpace, bodySpace } from './bodySpace.js';
import { factorBlockSparse, solveBlockSparse, type BlockSparseSymbolic, type PivotRegularization } from '../math/blockSparseCholesky.js';
import { PcgWorkspace, pcgSolve } from './pcg.js';
import { CONE_ORTHANT } from './ipmCones.js';
import { contactScaling, rhsScale } from './ipmSetup.js';
import {
  IPM_REFINEMENT_STEPS,
  IPM_SHIFT_START,
  IPM_START_DAMPING,
  SPARSE_IPM_FORCING,
  SPARSE_IPM_PCG_MAX_ITERATIONS,
  SPARSE_IPM_PIVOT_FLOOR,
  SPARSE_IPM_REFINED_RESIDUAL,
  SPARSE_IPM_WOODBURY_RESIDUAL,
  type SparseIpmLinearSolve,
} from './ipmParameters.js';
import { gramPlusDiag3, identityPlusScaledGram3, mul3, mul3x3, spdInverse3 } from './ipmSparseBlocks3.js';
import { contactSpaceMatrix } from './ipmSparseContactSpace.js';

import { REGULARIZATION_MAX } from '../math/cholesky.js';
import { hypot2Exact } from '../math/hypot.js';

/**
 * The sparse interior point's Newton systems (ipmSparse.ts file header): the scaled problem, the body space
 * (B = D J L and K = I + Bᵀ H⁻¹ B, bodySpace.ts), the NT-scaled operator of the 'krylov' path, the
 * contact-space fallback factor, the iterate (x, z) and every work vector. Setup (the constructor) allocates
 * all of it — the contact-space factor once, on first use — so the iterations allocate nothing.
 * `newtonSolve` leaves dx = (P + W⁻²)⁻¹ rhs for the H last built by `buildAndFactor`.
 */
export class SparseIpmNewton {
  readonly n: number;
  readonly C: number;
  readonly krylov: boolean;
  readonly kind: Int8Array;
  readonly D: Float64Array;
  readonly sigma: Float64Array;
  readonly q: Float64Array;
  readonly pinned: Uint8Array;
  readonly kappa: number;
  readonly space: BodySpace;
  readonly N: number;
  readonly ca: Int32Array;
  readonly cb: Int32Array;
  readonly BA: Float64Array;
  readonly BB: Float64Array;
  readonly symB: BlockSparseSymbolic;
  readonly valB: Float64Array;
  readonly Hb: Float64Array;
  readonly Hinv: Float64Array;
  readonly Wm: Float64Array;
  readonly Mx: Float64Array;
  readonly Mi: Float64Array;
  readonly T9: Float64Array;
  readonly bodyVec: Float64Array;
  readonly bodyWork: Float64Array;
  readonly yv: Float64Array;
  readonly res: Float64Array;
  readonly sol: Float64Array;
  readonly work: Float64Array;
  readonly pivotReg: PivotRegularization = { floor: SPARSE_IPM_PIVOT_FLOOR, replaced: 0 };
  readonly bodyReg: PivotRegularization = { floor: SPARSE_IPM_PIVOT_FLOOR, replaced: 0 };
  readonly x: Float64Array;
  readonly z: Float64Array;
  readonly xSave: Float64Array;
  readonly zSave: Float64Array;
  readonly dx: Float64Array;
  readonly dz: Float64Array;
  readonly dxa: Float64Array;
  readonly dza: Float64Array;
  readonly u: Float64Array;
  readonly rx: Float64Array;
  readonly rhs: Float64Array;
  readonly nt: Float64Array;
  readonly tmp: Float64Array;
  readonly corr: Float64Array;
  readonly px: Float64Array;
  /** [τ, merit] of residualMeasures. */
  readonly measures: Float64Array;
  /** NT-scaled Newton system of the 'krylov' path: W per contact, Ĥ = I + WΣW and Ĥ⁻¹ (3×3 each), ŕ = W r, ŷ. */
  readonly Ws: Float64Array;
  readonly Wsi: Float64Array;
  readonly Hs: Float64Array;
  readonly Hsi: Float64Array;
  readonly rhsS: Float64Array;
  readonly yS: Float64Array;
  readonly pcg: PcgWorkspace;
  readonly winv: Float64Array;
  /** Contact-space factor (fallback, see file header): its symbolic analysis and B Bᵀ per stored block, built on first use. */
  symC: BlockSparseSymbolic | null = null;
  AvalC: Float64Array = new Float64Array(0);
  valC: Float64Array = new Float64Array(0);
  /** Bytes of the typed arrays allocated for this solve (SparseIpmOutput.memoryBytes). */
  bytes: number;
  regularization = 0;
  /** Switched on for good once a Woodbury solve misses SPARSE_IPM_WOODBURY_RESIDUAL. */
  contactSpace = false;
  /**
   * Whether a body-space failure may switch to the contact-space factor (the caller turns it off near the solution,
   * where it hands the endgame to the natural-map polish instead); when off, buildAndFactor / newtonSolve return false.
   */
  contactSpaceAllowed = true;
  contactSpaceFrom = -1;
  /** Most pivots one factorisation replaced (PivotRegularization). */
  regularizedPivots = 0;
  /** Iteration from which the scaled PCG solves the Newton systems ('krylov' path). */
  krylovFrom = -1;
  newtonSolves = 0;
  krylovIterations = 0;
  krylovMaxPerSolve = 0;
  inexactSolves = 0;
  worstInexact = 0;
  // the operator and preconditioner handed to pcgSolve, bound once
  private readonly applyScaledFn = (v: Float64Array, out: Float64Array): void => this.applyScaled(v, out);
  private readonly woodburyScaledFn = (r: Float64Array, out: Float64Array): void => this.woodburyScaled(r, out);
  private readonly unscaledNormFn = (v: Float64Array): number => this.unscaledNorm(v);

  /**
   * `diag`: the 3×3 diagonal blocks of A (matrixFreeRows); `bytes`: what the caller allocated so far; `pattern`: a body
   * space of the same island whose symbolic analysis is reused (bodySpace.ts).
   */
  constructor(
    readonly k: ContactJacobians,
    diag: Float64Array,
    readonly softening: number,
    linear: SparseIpmLinearSolve,
    bytes: number,
    pattern?: BodySpace,
  ) {
    const C = k.contactCount,
      n = k.size,
      b = k.b,
      mu = k.mu;
    this.C = C;
    this.n = n;
    this.bytes = bytes;
    // ---- change of variables (ipm.ts scaledProblem), from the diagonal blocks of A ----
    const kind = new Int8Array(C);
    const D = this.f64(n),
      sigma = this.f64(n),
      q = this.f64(n);
    const pinned = new Uint8Array(n);
    this.bytes += C + n;
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        m = mu[c];
      kind[c] = contactScaling(m, diag[9 * c], diag[9 * c + 4], diag[9 * c + 8], D, o);
      if (kind[c] === CONE_ORTHANT) pinned[o + 1] = pinned[o + 2] = 1;
      for (let r = 0; r < 3; r++) sigma[o + r] = D[o + r] * D[o + r] * (k.regularization + (r === 0 ? softening : 0));
    }
    const kappa = rhsScale(D, b);
    for (let i = 0; i < n; i++) q[i] = pinned[i] ? 0 : (-D[i] * b[i]) / kappa;
    this.kind = kind;
    this.D = D;
    this.sigma = sigma;
    this.q = q;
    this.pinned = pinned;
    this.kappa = kappa;

    // ---- bodies, B = D J L and the symbolic analysis of K = I + Bᵀ H⁻¹ B (bodySpace.ts) ----
    const space = bodySpace(k, D, pattern);
    this.bytes += space.bytes;
    this.space = space;
    this.N = space.N;
    this.ca = space.ca;
    this.cb = space.cb;
    this.BA = space.BA;
    this.BB = space.BB;
    this.symB = space.sym;
    this.valB = this.f64(36 * space.sym.slots);
    this.Hb = this.f64(9 * C);
    this.Hinv = this.f64(9 * C);
    this.Wm = this.f64(9);
    this.Mx = this.f64(9);
    this.Mi = this.f64(9);
    this.T9 = this.f64(9);
    this.bodyVec = this.f64(BODY_DOFS * space.N);
    this.bodyWork = this.f64(BODY_DOFS * space.N);
    this.yv = this.f64(n);
    this.res = this.f64(n);
    this.sol = this.f64(n);
    this.work = this.f64(n);
    // ---- iterate and work vectors ----
    this.x = this.f64(n);
    this.z = this.f64(n);
    this.xSave = this.f64(n);
    this.zSave = this.f64(n);
    this.dx = this.f64(n);
    this.dz = this.f64(n);
    this.dxa = this.f64(n);
    this.dza = this.f64(n);
    this.u = this.f64(n);
    this.rx = this.f64(n);
    this.rhs = this.f64(n);
    this.nt = this.f64(n);
    this.tmp = this.f64(n);
    this.corr = this.f64(n);
    this.px = this.f64(n);
    this.measures = this.f64(2);
    const krylov = linear === 'krylov';
    this.krylov = krylov;
    this.Ws = this.f64(krylov ? 9 * C : 0);
    this.Wsi = this.f64(krylov ? 9 * C : 0);
    this.Hs = this.f64(krylov ? 9 * C : 0);
    this.Hsi = this.f64(krylov ? 9 * C : 0);
    this.rhsS = this.f64(krylov ? n : 0);
    this.yS = this.f64(krylov ? n : 0);
    this.pcg = new PcgWorkspace(krylov ? n : 0);
    this.bytes += this.pcg.bytes;
    this.winv = this.f64(9 * C);
  }

  private f64(len: number): Float64Array {
    this.bytes += 8 * len;
    return new Float64Array(len);
  }

  /** Symbolic analysis of P + H in contact space and B Bᵀ per stored block (ipmSparseContactSpace.ts), counted in bytes. */
  private setupContactSpace(): BlockSparseSymbolic {
    const { sym, Aval } = contactSpaceMatrix(this.N, this.C, this.ca, this.cb, this.BA, this.BB);
    this.bytes += 4 * (sym.perm.length + sym.inv.length + sym.colPtr.length + sym.rowOf.length + sym.updPtr.length + sym.updTarget.length);
    this.bytes += Aval.byteLength;
    this.valC = this.f64(9 * sym.slots);
    this.AvalC = Aval;
    this.bytes += 2 * Aval.byteLength;
    return sym;
  }

  /** out = B Bᵀ v + Σ v (= P v), matrix-free. */
  applyP(v: Float64Array, out: Float64Array): void {
    const { C, sigma, pinned, ca, cb, BA, BB, bodyVec } = this;
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
        if (a >= 0) s = addRowDot6(s, BA, 18 * c + 6 * r, bodyVec, BODY_DOFS * a);
        if (bb >= 0) s = addRowDot6(s, BB, 18 * c + 6 * r, bodyVec, BODY_DOFS * bb);
        out[o + r] = pinned[o + r] ? 0 : s;
      }
    }
  }

  /**
   * H per contact: δ₀I + Σ (mode 0, starting point) or W⁻² + Σ (mode 1, NT), identity on pinned rows; H⁻¹
   * = W (I + WΣW)⁻¹ W for NT (accurate when W⁻² has a huge range); then K = I + Bᵀ H⁻¹ B assembled and
   * factorised. False if a block or K is not positive definite.
   */
  private buildBodySpace(mode: 0 | 1): boolean {
    const { C, krylov, kind, sigma, space, BA, BB, symB, valB, Hb, Hinv, Wm, Mx, Mi, T9, bodyReg, x, z, Ws, Wsi, Hs, Hsi, winv } = this;
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
          this.setScaled(h, wv, 0, 0, 0, 1, 0, 0, 0, 1);
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
          this.setScaled(h, 1, 0, 0, 0, 1, 0, 0, 0, 1);
          for (let r = 0; r < 3; r++) {
            Hs[h + 4 * r] = Hb[h + 4 * r];
            Hsi[h + 4 * r] = Hinv[h + 4 * r];
          }
        }
      } else {
        // W⁻² + Σ, and W = η² J W⁻¹ J (J = diag(1, −1, −1), η² = ‖x‖_J/‖z‖_J; [V] §4.3)
        gramPlusDiag3(winv, h, sigma, o, Hb, h);
        const xr = hypot2Exact(x[o + 1], x[o + 2]),
          zr = hypot2Exact(z[o + 1], z[o + 2]);
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
    assembleBodySpace(space, BA, BB, Hinv, valB);
    // K's eigenvalues are ≥ 1, so a pivot at rounding level is rounding (cond K ~ max H⁻¹ near the solution): on the
    // 'krylov' path it is floored (PivotRegularization) and PCG works against the exact operator
    if (!krylov) return factorBlockSparse(symB, valB);
    const ok = factorBlockSparse(symB, valB, bodyReg);
    if (bodyReg.replaced > this.regularizedPivots) this.regularizedPivots = bodyReg.replaced;
    return ok;
  }

  /** Ws block at h ← the given 3×3 (row-major); Hs, Hsi blocks zeroed. */
  private setScaled(h: number, a0: number, a1: number, a2: number, a3: number, a4: number, a5: number, a6: number, a7: number, a8: number): void {
    const { Ws, Wsi, Hs, Hsi } = this;
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
  private unscaledNorm(v: Float64Array): number {
    const { C, pinned, corr, Wsi } = this;
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
  }
  /** bodyVec = Bᵀ W v (pinned rows of v ignored); v's W-product is left in corr. */
  private scaledBt(v: Float64Array): void {
    const { C, pinned, ca, cb, BA, BB, bodyVec, corr, Ws } = this;
    bodyVec.fill(0);
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      mul3(Ws, 9 * c, v, o, corr);
      for (let r2 = 0; r2 < 3; r2++) if (pinned[o + r2]) corr[o + r2] = 0;
      if (ca[c] >= 0) addBtv(bodyVec, BODY_DOFS * ca[c], BA, c, corr);
      if (cb[c] >= 0) addBtv(bodyVec, BODY_DOFS * cb[c], BB, c, corr);
    }
  }
  /** tmp[3c..] = (W B bodyVec) for contact c. */
  private scaledB(c: number): void {
    const { pinned, ca, cb, BA, BB, bodyVec, tmp, corr, Ws } = this;
    const o = 3 * c;
    for (let r2 = 0; r2 < 3; r2++) {
      let s = 0;
      if (ca[c] >= 0) s = addRowDot6(s, BA, 18 * c + 6 * r2, bodyVec, BODY_DOFS * ca[c]);
      if (cb[c] >= 0) s = addRowDot6(s, BB, 18 * c + 6 * r2, bodyVec, BODY_DOFS * cb[c]);
      corr[o + r2] = pinned[o + r2] ? 0 : s;
    }
    mul3(Ws, 9 * c, corr, o, tmp);
  }
  /**
   * out = Â v = (Ĥ + W B Bᵀ W) v, the NT-scaled Newton operator W (B Bᵀ + H) W (identity on pinned rows): Ĥ = I + WΣW
   * has eigenvalues ≥ 1, so no block mixes the barrier's huge and tiny curvatures as H = W⁻² + Σ does.
   */
  private applyScaled(v: Float64Array, out: Float64Array): void {
    const { C, pinned, tmp, corr, Hs } = this;
    this.scaledBt(v);
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      this.scaledB(c);
      mul3(Hs, 9 * c, v, o, corr);
      for (let r2 = 0; r2 < 3; r2++) out[o + r2] = pinned[o + r2] ? v[o + r2] : tmp[o + r2] + corr[o + r2];
    }
  }
  /** out = Â⁻¹ r by Woodbury on Â = Ĥ + B̂B̂ᵀ, B̂ = WB: Ĥ⁻¹(r − B̂u), u = K⁻¹B̂ᵀĤ⁻¹r with K = I + B̂ᵀĤ⁻¹B̂ = I + BᵀH⁻¹B (the body-space factor). */
  private woodburyScaled(r: Float64Array, out: Float64Array): void {
    const { C, pinned, symB, valB, bodyVec, bodyWork, yv, tmp, corr, Hsi } = this;
    for (let c = 0; c < C; c++) mul3(Hsi, 9 * c, r, 3 * c, yv);
    this.scaledBt(yv);
    solveBlockSparse(symB, valB, bodyVec, bodyWork);
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      this.scaledB(c);
      for (let r2 = 0; r2 < 3; r2++) corr[o + r2] = r[o + r2] - tmp[o + r2];
      mul3(Hsi, 9 * c, corr, o, yv);
      for (let r2 = 0; r2 < 3; r2++) out[o + r2] = pinned[o + r2] ? r[o + r2] : yv[o + r2];
    }
  }
  /** out = (H + BBᵀ)⁻¹ r by Woodbury (file header); no refinement. */
  private woodbury(r: Float64Array, out: Float64Array): void {
    const { C, pinned, ca, cb, BA, BB, symB, valB, Hinv, bodyVec, bodyWork, yv, tmp, corr } = this;
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
        if (ca[c] >= 0) s = addRowDot6(s, BA, 18 * c + 6 * r2, bodyVec, BODY_DOFS * ca[c]);
        if (cb[c] >= 0) s = addRowDot6(s, BB, 18 * c + 6 * r2, bodyVec, BODY_DOFS * cb[c]);
        tmp[o + r2] = s;
      }
      mul3(Hinv, 9 * c, tmp, o, corr);
      for (let r2 = 0; r2 < 3; r2++) out[o + r2] = pinned[o + r2] ? r[o + r2] : yv[o + r2] - corr[o + r2];
    }
  }
  /**
   * Contact-space factorisation of B Bᵀ + H (H from the last buildBodySpace). Near the solution a sliding
   * contact's H block holds barrier curvatures ~1/τ and ~τ at once, and cancellation can leave a pivot at
   * or below rounding level in a matrix that is positive definite: such pivots are replaced
   * (SPARSE_IPM_PIVOT_FLOOR, dynamic regularisation after Altman & Gondzio 1999) and newtonSolve refines
   * against the exact operator. The dense IPM's diagonal shift (IPM_SHIFT_START·10ᵏ up to
   * REGULARIZATION_MAX) remains for a diagonal entry that is not positive and finite.
   */
  private factorContactSpace(): boolean {
    const { C, Hb, pivotReg } = this;
    const sym = this.symC ?? (this.symC = this.setupContactSpace());
    for (let shift = 0; shift <= REGULARIZATION_MAX * (1 + 1e-12); shift = shift === 0 ? IPM_SHIFT_START : shift * 10) {
      this.valC.set(this.AvalC);
      for (let c = 0; c < C; c++) {
        const d = 9 * sym.inv[c];
        for (let i = 0; i < 9; i++) this.valC[d + i] += Hb[9 * c + i];
        if (shift > 0) for (let i = 0; i < 3; i++) this.valC[d + 4 * i] += shift;
      }
      if (factorBlockSparse(sym, this.valC, pivotReg)) {
        if (pivotReg.replaced > this.regularizedPivots) this.regularizedPivots = pivotReg.replaced;
        if (shift > this.regularization) this.regularization = shift;
        return true;
      }
    }
    return false;
  }
  /** out = (P + W⁻²) v = (B Bᵀ + H) v, the exact Newton operator (identity on pinned rows). */
  private applyNewton(v: Float64Array, out: Float64Array): void {
    const { C, sigma, pinned, Hb } = this;
    this.applyP(v, out);
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      for (let r2 = 0; r2 < 3; r2++) {
        const hb = 9 * c + 3 * r2;
        // applyP already holds Σv, which H = W⁻² + Σ also contains
        out[o + r2] = pinned[o + r2] ? v[o + r2] : out[o + r2] - sigma[o + r2] * v[o + r2] + Hb[hb] * v[o] + Hb[hb + 1] * v[o + 1] + Hb[hb + 2] * v[o + 2];
      }
    }
  }
  /** Relative residual ‖rhs − (BBᵀ + H)dx‖∞ / ‖rhs‖∞ of the current dx. */
  private newtonResidual(): number {
    const { n, res, dx, rhs, px } = this;
    this.applyNewton(dx, px);
    let a = 0,
      r = 0;
    for (let i = 0; i < n; i++) {
      res[i] = rhs[i] - px[i];
      a = Math.max(a, Math.abs(res[i]));
      r = Math.max(r, Math.abs(rhs[i]));
    }
    return r > 0 ? a / r : a;
  }
  /** The factor for this Newton matrix: body-space Woodbury unless the contact-space fallback is on. */
  buildAndFactor(mode: 0 | 1, iteration: number): boolean {
    const { C, krylov, kind, sigma, Hb, winv } = this;
    if (!this.contactSpace) {
      if (this.buildBodySpace(mode)) return true;
      if (!krylov || !this.contactSpaceAllowed) return false;
      // K (or a block of H) not factorisable at rounding level near the solution: the contact-space factor,
      // the last resort, for the remaining iterations (reported by contactSpaceFrom)
      this.contactSpace = true;
      this.contactSpaceFrom = iteration;
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
    return this.factorContactSpace();
  }
  /**
   * dx = (BBᵀ + H)⁻¹ rhs with iterative refinement against the exact operator (Wilkinson): Woodbury in body
   * space, or the contact-space factor once Woodbury's rounding (cond K ~ max H⁻¹) stops the refinement
   * from reaching SPARSE_IPM_WOODBURY_RESIDUAL.
   */
  newtonSolve(iteration: number): boolean {
    const { C, n, krylov, pinned, res, sol, work, dx, rhs, Ws, rhsS, yS, pcg } = this;
    this.newtonSolves++;
    if (!this.contactSpace && this.krylovFrom < 0) {
      this.woodbury(rhs, dx);
      for (let it = 0; it < IPM_REFINEMENT_STEPS; it++) {
        if (this.newtonResidual() <= SPARSE_IPM_WOODBURY_RESIDUAL) return true;
        this.woodbury(res, sol);
        for (let i = 0; i < n; i++) dx[i] += sol[i];
      }
      if (this.newtonResidual() <= SPARSE_IPM_WOODBURY_RESIDUAL) return true;
      if (krylov) this.krylovFrom = iteration;
      else {
        this.contactSpace = true;
        this.contactSpaceFrom = iteration;
        if (!this.factorContactSpace()) return false;
      }
    }
    if (!this.contactSpace) {
      // ŕ = W r, ŷ = Â⁻¹ŕ by PCG preconditioned with Â's Woodbury solve, dx = W ŷ (file header)
      for (let c = 0; c < C; c++) {
        const o = 3 * c;
        mul3(Ws, 9 * c, rhs, o, rhsS);
        for (let r2 = 0; r2 < 3; r2++) if (pinned[o + r2]) rhsS[o + r2] = rhs[o + r2];
      }
      this.woodburyScaled(rhsS, yS);
      const out = pcgSolve(
        this.applyScaledFn,
        this.woodburyScaledFn,
        rhsS,
        yS,
        SPARSE_IPM_WOODBURY_RESIDUAL,
        SPARSE_IPM_PCG_MAX_ITERATIONS,
        pcg,
        this.unscaledNormFn,
      );
      this.krylovIterations += out.iterations;
      this.krylovMaxPerSolve = Math.max(this.krylovMaxPerSolve, out.iterations);
      if (out.residual <= SPARSE_IPM_FORCING) {
        if (out.residual > SPARSE_IPM_WOODBURY_RESIDUAL) {
          this.inexactSolves++;
          this.worstInexact = Math.max(this.worstInexact, out.residual);
        }
        for (let c = 0; c < C; c++) {
          const o = 3 * c;
          mul3(Ws, 9 * c, yS, o, dx);
          for (let r2 = 0; r2 < 3; r2++) if (pinned[o + r2]) dx[o + r2] = yS[o + r2];
        }
        return true;
      }
      if (!this.contactSpaceAllowed) return false;
      this.contactSpace = true;
      this.contactSpaceFrom = iteration;
      if (!this.factorContactSpace()) return false;
    }
    dx.set(rhs);
    solveBlockSparse(this.symC!, this.valC, dx, work);
    for (let it = 0; it < IPM_REFINEMENT_STEPS; it++) {
      if (this.newtonResidual() <= SPARSE_IPM_REFINED_RESIDUAL) break;
      solveBlockSparse(this.symC!, this.valC, res, work);
      for (let i = 0; i < n; i++) dx[i] += res[i];
    }
    return true;
  }
}
