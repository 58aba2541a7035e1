/**
 * Semismooth Newton on the Alart–Curnier formulation of the exact Coulomb problem (Alart & Curnier 1991, "A
 * mixed formulation for frictional contact problems prone to Newton like solution methods", CMAME 92;
 * Siconos's NSN_AC, Acary, Brémond & Huber 2018 §4.3), per contact, u = W r + q:
 *
 *   F_n = r_n − [r_n − ρ_n u_n]₊,
 *   F_t = r_t − Π_{D(μ[r_n − ρ_n u_n]₊)}(r_t − ρ_t u_t)        (D(R): the disk of radius R),
 *
 * zero exactly at the solutions of Coulomb's law. Here it is solved for the proximal subproblem of coulomb.ts,
 * u_σ = W r + q + σ(r − r̄) (Rockafellar 1976, "Monotone operators and the proximal point algorithm"; Siconos's
 * PROX): W + σI keeps the Newton matrix nonsingular where W is rank deficient (redundant contacts, four
 * coplanar corners). The generalised Jacobian has W's block pattern: block row c is
 * J_c· = G_c (W + σI)_c· + H_c e_c with G_c, H_c 3×3 from the contact's piece (separated, sticking or sliding),
 * so J = G(W + σI) + H with G, H block-diagonal. Contacts separated in both rows (G_c = 0) have identity rows
 * (Δ_c = −F_c); the system is solved by block LU (blockSparseLu.ts) on a minimum-degree ordering of W's block
 * pattern, analysed once per solve, the identity rows' Schur updates skipped. Steps are backtracked on ‖F‖
 * (Armijo).
 */
import type { BlockRows } from '../math/blockRows.js';
import { blockRowsMulAdd } from '../math/blockRows.js';
import { analyseBlockPattern, blockSlot, type BlockSparseSymbolic } from '../math/blockSparseCholesky.js';
import { BlockLu } from '../math/blockSparseLu.js';

/** Armijo constant of the backtracking on ‖F‖ (Nocedal & Wright 2006 §3.1). */
export const AC_ARMIJO = 1e-4;
/** Step halvings per Newton direction. */
export const AC_BACKTRACKS = 12;

/**
 * Scales k of ρ = k/W_cc tried in turn (coulomb.ts switches to the next when a proximal phase stalls): a
 * larger ρ weighs the velocities more than the impulses when choosing each contact's piece, which identifies
 * lifting-off contacts whose impulse is not yet exactly zero (FCLIB's merit takes ρ = 1 on every scale).
 */
export const AC_RHO_SCALES = [10, 100, 1, 1000, 0.1] as const;

/** What one Newton step did. */
export interface AcStep {
  /** ‖F‖ after the step (unchanged if no step was accepted). */
  norm: number;
  /** Step length accepted (0: none). */
  t: number;
}

export class AcNewton {
  readonly C: number;
  readonly n: number;
  readonly rhoN: Float64Array;
  readonly rhoT: Float64Array;
  /** Per contact 3×3 G and H (row-major): J_c· = G_c W_c· + H_c e_c. */
  readonly G: Float64Array;
  readonly H: Float64Array;
  readonly F: Float64Array;
  readonly dir: Float64Array;
  readonly trial: Float64Array;
  readonly trialU: Float64Array;
  readonly trialF: Float64Array;
  readonly rhs: Float64Array;
  readonly corr: Float64Array;
  /** The proximal centre r̄ and weight σ (σ = 0: the problem itself). */
  readonly center: Float64Array;
  sigma = 0;
  readonly active: Uint8Array;
  private readonly block = new Float64Array(9);
  private analysis: { s: BlockSparseSymbolic; lu: BlockLu; place: Int32Array; identity: Uint8Array } | null = null;
  /** Pivot blocks shifted in the last factorisation, and the number of analyses done. */
  shifted = 0;
  analyses = 0;

  constructor(
    readonly W: BlockRows,
    readonly q: Float64Array,
    readonly mu: Float64Array,
  ) {
    const C = W.blocks,
      n = 3 * C;
    this.C = C;
    this.n = n;
    this.rhoN = new Float64Array(C);
    this.rhoT = new Float64Array(C);
    this.setRhoScale(AC_RHO_SCALES[0]);
    this.G = new Float64Array(9 * C);
    this.H = new Float64Array(9 * C);
    this.F = new Float64Array(n);
    this.dir = new Float64Array(n);
    this.trial = new Float64Array(n);
    this.trialU = new Float64Array(n);
    this.trialF = new Float64Array(n);
    this.rhs = new Float64Array(n);
    this.corr = new Float64Array(n);
    this.center = new Float64Array(n);
    this.active = new Uint8Array(C);
  }

  /**
   * ρ_n = k/W_nn and ρ_t = k/max(W_t1t1, W_t2t2) per contact (1/k where a diagonal entry is not positive): the
   * step of the projections. It decides which piece a contact is on (r_n − ρ_n u_n ≷ 0 …) away from the
   * solution; at a solution every k gives F = 0.
   */
  setRhoScale(k: number): void {
    const { W, C } = this;
    for (let c = 0; c < C; c++) {
      const v = 9 * W.diag[c];
      const wn = W.val[v],
        wt = Math.max(W.val[v + 4], W.val[v + 8]);
      this.rhoN[c] = wn > 0 && Number.isFinite(wn) ? k / wn : k;
      this.rhoT[c] = wt > 0 && Number.isFinite(wt) ? k / wt : this.rhoN[c];
    }
  }

  /** u_σ = W r + q + σ(r − r̄) into out. */
  velocity(r: Float64Array, out: Float64Array): void {
    blockRowsMulAdd(this.W, r, this.q, out);
    const { sigma, center } = this;
    if (sigma !== 0) for (let i = 0; i < this.n; i++) out[i] += sigma * (r[i] - center[i]);
  }

  /** F(r) from r and u = u_σ(r) into `out`; with `jacobian`, also G, H and the active flags. Returns ‖F‖₂. */
  residual(r: Float64Array, u: Float64Array, out: Float64Array, jacobian: boolean): number {
    const { C, mu, rhoN, rhoT, G, H, active } = this;
    let sum = 0;
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        g = 9 * c;
      const rn = r[o],
        rt1 = r[o + 1],
        rt2 = r[o + 2];
      const pn = rhoN[c],
        pt = rhoT[c],
        m = mu[c];
      const xn = rn - pn * u[o];
      const R = xn > 0 ? m * xn : 0;
      const x1 = rt1 - pt * u[o + 1],
        x2 = rt2 - pt * u[o + 2];
      const nx = Math.sqrt(x1 * x1 + x2 * x2);
      let f0: number, f1: number, f2: number;
      if (jacobian) {
        G.fill(0, g, g + 9);
        H.fill(0, g, g + 9);
        active[c] = xn > 0 ? 1 : 0;
      }
      if (xn > 0) {
        f0 = rn - xn;
        if (jacobian) G[g] = pn;
      } else {
        f0 = rn;
        if (jacobian) H[g] = 1;
      }
      if (R <= 0) {
        f1 = rt1;
        f2 = rt2;
        if (jacobian) {
          H[g + 4] = 1;
          H[g + 8] = 1;
        }
      } else if (nx <= R) {
        f1 = rt1 - x1;
        f2 = rt2 - x2;
        if (jacobian) {
          G[g + 4] = pt;
          G[g + 8] = pt;
        }
      } else {
        const e1 = x1 / nx,
          e2 = x2 / nx,
          k = R / nx;
        f1 = rt1 - R * e1;
        f2 = rt2 - R * e2;
        if (jacobian) {
          // rows t of J: μρ_n x̂ W_n + kρ_t P W_t  +  (−μ x̂ on r_n, I − kP on r_t);  P = I − x̂x̂ᵀ
          const p11 = 1 - e1 * e1,
            p12 = -e1 * e2,
            p22 = 1 - e2 * e2;
          G[g + 3] = m * pn * e1;
          G[g + 4] = k * pt * p11;
          G[g + 5] = k * pt * p12;
          G[g + 6] = m * pn * e2;
          G[g + 7] = k * pt * p12;
          G[g + 8] = k * pt * p22;
          H[g + 3] = -m * e1;
          H[g + 4] = 1 - k * p11;
          H[g + 5] = -k * p12;
          H[g + 6] = -m * e2;
          H[g + 7] = -k * p12;
          H[g + 8] = 1 - k * p22;
        }
      }
      out[o] = f0;
      out[o + 1] = f1;
      out[o + 2] = f2;
      sum += f0 * f0 + f1 * f1 + f2 * f2;
    }
    return Math.sqrt(sum);
  }

  /**
   * One Newton step from r (u = u_σ(r), norm = ‖F(r)‖), in place on r and u when a step is accepted.
   */
  step(r: Float64Array, u: Float64Array, norm: number): AcStep {
    const { n, F, dir } = this;
    this.residual(r, u, F, true);
    if (!this.solveActive(this.sigma)) return { norm, t: 0 };
    for (let i = 0; i < n; i++) if (!Number.isFinite(dir[i])) return { norm, t: 0 };
    // backtracking on ‖F‖
    const { trial, trialU, trialF } = this;
    let t = 1;
    for (let k = 0; k <= AC_BACKTRACKS; k++, t *= 0.5) {
      for (let i = 0; i < n; i++) trial[i] = r[i] + t * dir[i];
      this.velocity(trial, trialU);
      const m = this.residual(trial, trialU, trialF, false);
      if (m <= (1 - AC_ARMIJO * t) * norm) {
        r.set(trial);
        u.set(trialU);
        return { norm: m, t };
      }
    }
    return { norm, t: 0 };
  }

  /**
   * The Newton system J_σ Δ = −F into dir, on W's whole block pattern analysed once: a separated contact's rows
   * are the identity (Δ_c = −F_c) and its Schur updates are skipped (BlockLu.factor identityRows), so a change of
   * the active set needs no new analysis. False if it cannot be factorised.
   */
  private solveActive(sigma: number): boolean {
    const { C, W, G, H, F, dir, active, rhs, block } = this;
    const a = this.analyse();
    const { lu, place, identity, s } = a;
    lu.clear();
    const { rowPtr, col, val } = W;
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        g = 9 * c;
      rhs[o] = -F[o];
      rhs[o + 1] = -F[o + 1];
      rhs[o + 2] = -F[o + 2];
      identity[s.inv[c]] = active[c] ? 0 : 1;
      if (!active[c]) {
        // Δ_c = −F_c: the identity block (H_c = I, G_c = 0)
        const pl = place[W.diag[c]];
        const off = 9 * (pl >> 1);
        lu.lower[off] = 1;
        lu.lower[off + 4] = 1;
        lu.lower[off + 8] = 1;
        continue;
      }
      for (let e = rowPtr[c]; e < rowPtr[c + 1]; e++) {
        const v = 9 * e;
        // block = G_c W_cd (+ σG_c + H_c on the diagonal)
        for (let i = 0; i < 3; i++) {
          const g0 = G[g + 3 * i],
            g1 = G[g + 3 * i + 1],
            g2 = G[g + 3 * i + 2];
          for (let j = 0; j < 3; j++) block[3 * i + j] = g0 * val[v + j] + g1 * val[v + 3 + j] + g2 * val[v + 6 + j];
        }
        if (col[e] === c) for (let k = 0; k < 9; k++) block[k] += sigma * G[g + k] + H[g + k];
        const pl = place[e];
        const arr = pl & 1 ? lu.upper : lu.lower,
          off = 9 * (pl >> 1);
        for (let k = 0; k < 9; k++) arr[off + k] += block[k];
      }
    }
    if (!lu.factor(identity)) return false;
    this.shifted = lu.shifted;
    dir.set(rhs);
    lu.solve(dir);
    return true;
  }

  /** The symbolic analysis of W's block pattern, made on first use. */
  private analyse(): { s: BlockSparseSymbolic; lu: BlockLu; place: Int32Array; identity: Uint8Array } {
    if (this.analysis) return this.analysis;
    const { C, W } = this;
    const ea: number[] = [],
      eb: number[] = [];
    const { rowPtr, col } = W;
    for (let c = 0; c < C; c++) {
      for (let e = rowPtr[c]; e < rowPtr[c + 1]; e++) {
        if (col[e] === c) continue;
        ea.push(c);
        eb.push(col[e]);
      }
    }
    const s = analyseBlockPattern(C, 3, ea, eb);
    const place = new Int32Array(rowPtr[C]);
    for (let c = 0; c < C; c++) {
      for (let e = rowPtr[c]; e < rowPtr[c + 1]; e++) {
        const { slot, transposed } = blockSlot(s, c, col[e]);
        place[e] = BlockLu.place(slot, transposed);
      }
    }
    this.analyses++;
    this.analysis = { s, lu: new BlockLu(s), place, identity: new Uint8Array(C) };
    return this.analysis;
  }
}
