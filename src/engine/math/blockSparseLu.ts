/**
 * Block-sparse LU factorisation M = L D U of a non-symmetric matrix of 3×3 blocks whose block pattern is
 * symmetric (the Newton matrix of a frictional contact problem: blocks (c, d) ≠ 0 only where contacts c and d
 * share a body, as in W). The ordering and the fill pattern are those of the symmetric analysis
 * (blockSparseCholesky.ts analyseBlockPattern: minimum degree, the same column structures); the numeric
 * phase is right-looking block elimination (George & Liu, "Computer Solution of Large Sparse Positive
 * Definite Systems", 1981, ch. 5, with L and U kept apart: Davis, "Direct Methods for Sparse Linear
 * Systems", 2006, §6). Pivoting is within the 3×3 diagonal blocks only (their explicit inverse); a diagonal
 * block that is singular to working precision is shifted by PIVOT_SHIFT·‖block‖ and counted, so the
 * factor is then of a nearby matrix — the caller uses it as a preconditioner (gmres.ts) and measures the
 * true residual.
 */
import type { BlockSparseSymbolic } from './blockSparseCholesky.js';

/** |det D| ≤ this · ‖D‖³ (max-norm) counts as a singular pivot block. */
export const PIVOT_SINGULAR = 1e-13;
/** Shift of a singular pivot block, relative to its max-norm (1 when the block is zero). */
export const PIVOT_SHIFT = 1e-8;
/** Shifts tried per singular pivot block (PIVOT_SHIFT … PIVOT_SHIFT·10^(tries−1)). */
export const PIVOT_SHIFT_TRIES = 8;

/** Numeric storage on a symbolic analysis: per slot, the block below (row later) and above (its transpose position). */
export class BlockLu {
  /** Diagonal slots (elimination position k): the block, then D_k⁻¹ after factorisation. Off-diagonal slot n + e: M[row][col] then L = M D⁻¹. */
  readonly lower: Float64Array;
  /** Off-diagonal slot n + e: M[col][row] (the block above the diagonal), kept as U. */
  readonly upper: Float64Array;
  readonly work: Float64Array;
  /** Pivot blocks shifted by the last factorisation. */
  shifted = 0;
  constructor(readonly s: BlockSparseSymbolic) {
    this.lower = new Float64Array(9 * s.slots);
    this.upper = new Float64Array(9 * s.slots);
    this.work = new Float64Array(3 * s.n);
  }

  /** Clears the values (before loading a new matrix). */
  clear(): void {
    this.lower.fill(0);
    this.upper.fill(0);
  }

  /**
   * Where block M[a][b] is stored, as one number for load(): the slot (blockSlot) times 2, plus 1 when it is the
   * upper block (a eliminated before b). Diagonal blocks (a = b) are in `lower` at their elimination position.
   */
  static place(slot: number, transposed: boolean): number {
    return 2 * slot + (transposed ? 1 : 0);
  }

  /**
   * In-place factorisation; returns false on a non-finite pivot block. `identityRows` (by elimination position,
   * optional): rows whose off-diagonal blocks are all zero (and stay zero: no earlier elimination reaches them) —
   * their Schur updates L_ik U_kj vanish and are skipped.
   */
  factor(identityRows?: Uint8Array): boolean {
    const { n, colPtr, updPtr, updTarget } = this.s;
    const lo = this.lower,
      up = this.upper;
    this.shifted = 0;
    for (let k = 0; k < n; k++) {
      const d = 9 * k;
      if (!invert3InPlace(lo, d)) {
        this.shifted++;
        let norm = 0;
        for (let i = 0; i < 9; i++) norm = Math.max(norm, Math.abs(lo[d + i]));
        if (!Number.isFinite(norm)) return false;
        // the smallest shift PIVOT_SHIFT·10^k (k = 0, 1, …) that makes the block invertible
        let shift = PIVOT_SHIFT * (norm > 0 ? norm : 1),
          done = false;
        for (let k = 0; k < PIVOT_SHIFT_TRIES && !done; k++, shift *= 10) {
          lo[d] += shift;
          lo[d + 4] += shift;
          lo[d + 8] += shift;
          done = invert3InPlace(lo, d);
          if (!done) {
            lo[d] -= shift;
            lo[d + 4] -= shift;
            lo[d + 8] -= shift;
          }
        }
        if (!done) return false;
      }
      // L_ik = M_ik D_k⁻¹ for the entries of column k
      for (let p = colPtr[k]; p < colPtr[k + 1]; p++) mulRight(lo, 9 * (n + p), lo, d);
      if (identityRows?.[k]) continue; // U_k· = 0: no Schur update
      // Schur complement: M_ij −= L_ik U_kj for every pair of column k's entries (and i = j)
      let t = updPtr[k];
      for (let p = colPtr[k]; p < colPtr[k + 1]; p++) {
        const op = 9 * (n + p);
        // L_ik and U_ki of row/column p, held in locals for the inner loop (3×3 products written out: this is the
        // hot loop of the exact Coulomb solver's Newton steps)
        const l0 = lo[op],
          l1 = lo[op + 1],
          l2 = lo[op + 2],
          l3 = lo[op + 3],
          l4 = lo[op + 4],
          l5 = lo[op + 5],
          l6 = lo[op + 6],
          l7 = lo[op + 7],
          l8 = lo[op + 8];
        const u0 = up[op],
          u1 = up[op + 1],
          u2 = up[op + 2],
          u3 = up[op + 3],
          u4 = up[op + 4],
          u5 = up[op + 5],
          u6 = up[op + 6],
          u7 = up[op + 7],
          u8 = up[op + 8];
        for (let q = colPtr[k]; q <= p; q++) {
          const ot = 9 * updTarget[t++];
          const oq = 9 * (n + q);
          if (q === p) {
            // diagonal block i: −= L_ik U_ki
            lo[ot] -= l0 * u0 + l1 * u3 + l2 * u6;
            lo[ot + 1] -= l0 * u1 + l1 * u4 + l2 * u7;
            lo[ot + 2] -= l0 * u2 + l1 * u5 + l2 * u8;
            lo[ot + 3] -= l3 * u0 + l4 * u3 + l5 * u6;
            lo[ot + 4] -= l3 * u1 + l4 * u4 + l5 * u7;
            lo[ot + 5] -= l3 * u2 + l4 * u5 + l5 * u8;
            lo[ot + 6] -= l6 * u0 + l7 * u3 + l8 * u6;
            lo[ot + 7] -= l6 * u1 + l7 * u4 + l8 * u7;
            lo[ot + 8] -= l6 * u2 + l7 * u5 + l8 * u8;
            continue;
          }
          // i = row of p (later) > j = row of q: lower (i, j) −= L_ik U_kj; upper (holds M_ji) −= L_jk U_ki
          const v0 = up[oq],
            v1 = up[oq + 1],
            v2 = up[oq + 2],
            v3 = up[oq + 3],
            v4 = up[oq + 4],
            v5 = up[oq + 5],
            v6 = up[oq + 6],
            v7 = up[oq + 7],
            v8 = up[oq + 8];
          lo[ot] -= l0 * v0 + l1 * v3 + l2 * v6;
          lo[ot + 1] -= l0 * v1 + l1 * v4 + l2 * v7;
          lo[ot + 2] -= l0 * v2 + l1 * v5 + l2 * v8;
          lo[ot + 3] -= l3 * v0 + l4 * v3 + l5 * v6;
          lo[ot + 4] -= l3 * v1 + l4 * v4 + l5 * v7;
          lo[ot + 5] -= l3 * v2 + l4 * v5 + l5 * v8;
          lo[ot + 6] -= l6 * v0 + l7 * v3 + l8 * v6;
          lo[ot + 7] -= l6 * v1 + l7 * v4 + l8 * v7;
          lo[ot + 8] -= l6 * v2 + l7 * v5 + l8 * v8;
          const m0 = lo[oq],
            m1 = lo[oq + 1],
            m2 = lo[oq + 2],
            m3 = lo[oq + 3],
            m4 = lo[oq + 4],
            m5 = lo[oq + 5],
            m6 = lo[oq + 6],
            m7 = lo[oq + 7],
            m8 = lo[oq + 8];
          up[ot] -= m0 * u0 + m1 * u3 + m2 * u6;
          up[ot + 1] -= m0 * u1 + m1 * u4 + m2 * u7;
          up[ot + 2] -= m0 * u2 + m1 * u5 + m2 * u8;
          up[ot + 3] -= m3 * u0 + m4 * u3 + m5 * u6;
          up[ot + 4] -= m3 * u1 + m4 * u4 + m5 * u7;
          up[ot + 5] -= m3 * u2 + m4 * u5 + m5 * u8;
          up[ot + 6] -= m6 * u0 + m7 * u3 + m8 * u6;
          up[ot + 7] -= m6 * u1 + m7 * u4 + m8 * u7;
          up[ot + 8] -= m6 * u2 + m7 * u5 + m8 * u8;
        }
      }
    }
    return true;
  }

  /** x ← M⁻¹x (x indexed by node, 3 per node). */
  solve(x: Float64Array): void {
    const { n, perm, colPtr, rowOf } = this.s;
    const lo = this.lower,
      up = this.upper,
      w = this.work;
    for (let k = 0; k < n; k++) {
      const src = 3 * perm[k];
      w[3 * k] = x[src];
      w[3 * k + 1] = x[src + 1];
      w[3 * k + 2] = x[src + 2];
    }
    // forward: unit block-lower L
    for (let k = 0; k < n; k++) {
      const o = 3 * k;
      const y0 = w[o],
        y1 = w[o + 1],
        y2 = w[o + 2];
      for (let p = colPtr[k]; p < colPtr[k + 1]; p++) {
        const b = 9 * (n + p),
          oi = 3 * rowOf[p];
        w[oi] -= lo[b] * y0 + lo[b + 1] * y1 + lo[b + 2] * y2;
        w[oi + 1] -= lo[b + 3] * y0 + lo[b + 4] * y1 + lo[b + 5] * y2;
        w[oi + 2] -= lo[b + 6] * y0 + lo[b + 7] * y1 + lo[b + 8] * y2;
      }
    }
    // backward: x_k = D_k⁻¹ (y_k − Σ U_ki x_i)
    for (let k = n - 1; k >= 0; k--) {
      const o = 3 * k;
      let y0 = w[o],
        y1 = w[o + 1],
        y2 = w[o + 2];
      for (let p = colPtr[k]; p < colPtr[k + 1]; p++) {
        const b = 9 * (n + p),
          oi = 3 * rowOf[p];
        const x0 = w[oi],
          x1 = w[oi + 1],
          x2 = w[oi + 2];
        y0 -= up[b] * x0 + up[b + 1] * x1 + up[b + 2] * x2;
        y1 -= up[b + 3] * x0 + up[b + 4] * x1 + up[b + 5] * x2;
        y2 -= up[b + 6] * x0 + up[b + 7] * x1 + up[b + 8] * x2;
      }
      const d = 9 * k;
      w[o] = lo[d] * y0 + lo[d + 1] * y1 + lo[d + 2] * y2;
      w[o + 1] = lo[d + 3] * y0 + lo[d + 4] * y1 + lo[d + 5] * y2;
      w[o + 2] = lo[d + 6] * y0 + lo[d + 7] * y1 + lo[d + 8] * y2;
    }
    for (let k = 0; k < n; k++) {
      const dst = 3 * perm[k];
      x[dst] = w[3 * k];
      x[dst + 1] = w[3 * k + 1];
      x[dst + 2] = w[3 * k + 2];
    }
  }
}

const tmp9 = new Float64Array(9);

/** The 3×3 block at a[o..] replaced by its inverse (cofactors); false when |det| ≤ PIVOT_SINGULAR·‖a‖³ or not finite. */
export function invert3InPlace(a: Float64Array, o: number): boolean {
  const a0 = a[o],
    a1 = a[o + 1],
    a2 = a[o + 2],
    a3 = a[o + 3],
    a4 = a[o + 4],
    a5 = a[o + 5],
    a6 = a[o + 6],
    a7 = a[o + 7],
    a8 = a[o + 8];
  const c0 = a4 * a8 - a5 * a7,
    c1 = a5 * a6 - a3 * a8,
    c2 = a3 * a7 - a4 * a6;
  const det = a0 * c0 + a1 * c1 + a2 * c2;
  let norm = 0;
  for (let i = 0; i < 9; i++) norm = Math.max(norm, Math.abs(a[o + i]));
  if (!(Math.abs(det) > PIVOT_SINGULAR * norm * norm * norm) || !Number.isFinite(det)) return false;
  const inv = 1 / det;
  a[o] = c0 * inv;
  a[o + 1] = (a2 * a7 - a1 * a8) * inv;
  a[o + 2] = (a1 * a5 - a2 * a4) * inv;
  a[o + 3] = c1 * inv;
  a[o + 4] = (a0 * a8 - a2 * a6) * inv;
  a[o + 5] = (a2 * a3 - a0 * a5) * inv;
  a[o + 6] = c2 * inv;
  a[o + 7] = (a1 * a6 - a0 * a7) * inv;
  a[o + 8] = (a0 * a4 - a1 * a3) * inv;
  return true;
}

/** X ← X B for 3×3 blocks X at x[ox..], B at b[ob..]. */
function mulRight(x: Float64Array, ox: number, b: Float64Array, ob: number): void {
  for (let i = 0; i < 9; i++) tmp9[i] = x[ox + i];
  for (let r = 0; r < 3; r++) {
    const t0 = tmp9[3 * r],
      t1 = tmp9[3 * r + 1],
      t2 = tmp9[3 * r + 2];
    x[ox + 3 * r] = t0 * b[ob] + t1 * b[ob + 3] + t2 * b[ob + 6];
    x[ox + 3 * r + 1] = t0 * b[ob + 1] + t1 * b[ob + 4] + t2 * b[ob + 7];
    x[ox + 3 * r + 2] = t0 * b[ob + 2] + t1 * b[ob + 5] + t2 * b[ob + 8];
  }
}
