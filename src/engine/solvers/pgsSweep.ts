/**
 * One projected Gauss–Seidel sweep (pgs.ts runs the iteration: stopping tests, KKT residual, history).
 * The update of a contact is the same in every storage (docs/physics.md "PGS"):
 *   coulomb-disk: λn ← max(0, λn − wₙ/Aₙₙ); then λt ← clamp_{‖λt‖ ≤ μλn}(λt − w_t/λmax(A_tt)) with both
 *     tangent rows read before either moves (Catto GDC 2005; Erleben 2007);
 *   cone: λᵢ ← Proj_K(λᵢ − sᵢwᵢ), sᵢ ≤ 1/λmax(Aᵢᵢ) (block coordinate descent on the QP-SOCP).
 * w = (A + εI)λ − b is read from the rows: `sweepRows` through PgsRows.rowTimes (any storage, e.g. a dense
 * A), `sweepMatrixFree` fused over the flat Jacobian arrays with Δv = M⁻¹Jᵀλ kept per body (the stages of
 * Box2D v3's solver: contact constraints prepared once, then sweeps over flat arrays, no allocation).
 * Both perform the same floating-point operations in the same order: their iterates are bit-identical
 * (test/unit/pgs-matrix-free.test.ts checks the dense and matrix-free iterations agree).
 */
import { clampDisk, projectCone } from '../cone.js';
import { hypot2, hypot2Exact } from '../math/hypot.js';
import type { PgsRows } from './pgsRows.js';

/** What a sweep needs besides λ: the friction law, ε of (A + εI), and the per-contact step data. */
export interface SweepParams {
  readonly cone: boolean;
  readonly eps: number;
  /** A_nn + ε per contact (coulomb-disk normal step). */
  readonly normalDiag: Float64Array;
  /** λmax of the 2×2 tangent block (+ εI) per contact (coulomb-disk tangent step). */
  readonly tangentMax: Float64Array;
  /** Cone-mode block steps sᵢ (null in coulomb-disk mode). */
  readonly step: Float64Array | null;
  /** Scratch for one contact's block (3 numbers). */
  readonly block: Float64Array;
}

/**
 * [largest |Δλ|, largest |λ|] of the sweep (the change-based fixed-point test), 2 numbers, reused. The
 * sweeps write it inside their loop, not after it: V8 may optimise a sweep during its first (long) loop,
 * and an operation after the loop that it has not yet seen executed deoptimises it at every return.
 */
export type SweepOutcome = Float64Array;

/**
 * The per-contact step data of a solve, computed once (not per sweep): A_nn + ε and
 * λmax([[a, b], [b, c]]) = (a + c)/2 + √(((a − c)/2)² + b²) of the tangent block (+ εI).
 */
export function sweepParams(
  rows: PgsRows,
  eps: number,
  step: Float64Array | null,
  into?: { readonly normalDiag: Float64Array; readonly tangentMax: Float64Array },
): SweepParams {
  const C = rows.contactCount,
    D = rows.diagonal;
  // with `into` (C entries each, e.g. reused scratch) the steps are written there
  const normalDiag = into ? into.normalDiag : new Float64Array(C),
    tangentMax = into ? into.tangentMax : new Float64Array(C);
  // The result object before the loop, nothing after it: V8 optimises the loop on stack replacement and deoptimised
  // the function at an object literal after it, not yet executed, once per island and step (see SweepOutcome).
  const params: SweepParams = { cone: step !== null, eps, normalDiag, tangentMax, step, block: new Float64Array(3) };
  fillSweepSteps(D, eps, C, normalDiag, tangentMax);
  return params;
}

/** sweepParams' per-contact steps, into normalDiag and tangentMax. */
function fillSweepSteps(D: Float64Array, eps: number, C: number, normalDiag: Float64Array, tangentMax: Float64Array): void {
  for (let c = 0; c < C; c++) {
    const d = 9 * c;
    normalDiag[c] = D[d] + eps;
    const a = D[d + 4] + eps,
      bb = D[d + 5],
      cc = D[d + 8] + eps;
    tangentMax[c] = 0.5 * (a + cc) + hypot2Exact(0.5 * (a - cc), bb);
  }
}

/** One sweep through PgsRows.rowTimes / changed: works on any row storage. */
export function sweepRows(rows: PgsRows, lam: Float64Array, p: SweepParams, out: SweepOutcome): void {
  const { b, mu, contactCount: C } = rows;
  const { eps, step, block: blk } = p;
  /** (A + εI)λ − b for row i with the current λ. */
  const rowW = (i: number): number => rows.rowTimes(i, lam) - b[i] + eps * lam[i];
  let change = 0,
    size = 0;
  out[0] = 0;
  out[1] = 0;
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      m = mu[c];
    const old0 = lam[o],
      old1 = lam[o + 1],
      old2 = lam[o + 2];
    if (step) {
      const s = step[c];
      blk[0] = lam[o] - s * rowW(o);
      blk[1] = m > 0 ? lam[o + 1] - s * rowW(o + 1) : 0;
      blk[2] = m > 0 ? lam[o + 2] - s * rowW(o + 2) : 0;
      projectCone(blk, 0, m, blk);
      lam[o] = blk[0];
      lam[o + 1] = blk[1];
      lam[o + 2] = blk[2];
      rows.changed(c, lam[o] - old0, lam[o + 1] - old1, lam[o + 2] - old2);
    } else {
      // A row with a zero diagonal moves nothing (both bodies static): its impulse is set to zero.
      const dn = p.normalDiag[c];
      lam[o] = dn > 0 ? Math.max(0, lam[o] - rowW(o) / dn) : 0;
      rows.changed(c, lam[o] - old0, 0, 0);
      // inactive and staying inactive: the tangent rows could only clamp to the zero disk (as sweepMatrixFree)
      if (lam[o] === 0 && old0 === 0 && old1 === 0 && old2 === 0) continue;
      if (m > 0) {
        // One step length for both tangent rows, s = 1/λmax of the 2×2 tangent block: then the fixed point
        // λt = clamp(λt − s·w_t) puts a sliding contact's λt exactly opposite w_t (maximal dissipation).
        // Separate steps 1/A_t1t1, 1/A_t2t2 skew it whenever A_t1t1 ≠ A_t2t2 (a box's corner contacts: the
        // friction came out 6 % weak along the slide, docs/physics.md "PGS").
        const lmax = p.tangentMax[c];
        if (lmax > 0) {
          const t1 = lam[o + 1],
            t2 = lam[o + 2];
          const w1 = rowW(o + 1),
            w2 = rowW(o + 2);
          lam[o + 1] = t1 - w1 / lmax;
          lam[o + 2] = t2 - w2 / lmax;
          clampDisk(lam, o + 1, m * lam[o]);
          rows.changed(c, 0, lam[o + 1] - t1, lam[o + 2] - t2);
        }
      } else if (lam[o + 1] !== 0 || lam[o + 2] !== 0) {
        rows.changed(c, 0, -lam[o + 1], -lam[o + 2]);
        lam[o + 1] = 0;
        lam[o + 2] = 0;
      }
    }
    change = Math.max(change, Math.abs(lam[o] - old0), Math.abs(lam[o + 1] - old1), Math.abs(lam[o + 2] - old2));
    size = Math.max(size, Math.abs(lam[o]), Math.abs(lam[o + 1]), Math.abs(lam[o + 2]));
    out[0] = change;
    out[1] = size;
  }
}

/**
 * The flat arrays of a matrix-free sweep: per contact the Jacobian rows J (18 numbers per body: rows n,
 * t1, t2 × [linear, angular]) and M⁻¹Jᵀ (same layout), the body indices (−1: static, no columns), the
 * row shifts (assembly ε, softening γ on normal rows), b; Δv per body (6 numbers, indexed by body).
 */
export interface MatrixFreeArrays {
  readonly contactCount: number;
  readonly JA: Float64Array;
  readonly JB: Float64Array;
  readonly MA: Float64Array;
  readonly MB: Float64Array;
  readonly bodyA: Int32Array;
  readonly bodyB: Int32Array;
  /** Diagonal shift of the normal row (ε + γ) and of the tangent rows (ε). */
  readonly shiftN: number;
  readonly shiftT: number;
  readonly b: Float64Array;
  readonly mu: Float64Array;
  readonly dv: Float64Array;
  /** The same rows packed for the fused sweep, PACKED_STRIDE numbers per contact (packContacts in pgsRows.ts). */
  readonly packed: Float64Array;
}

/**
 * Packed contact rows (one stream of 48 numbers per contact instead of four of 18): directions d_k
 * (n, t1, t2) at 0, r_a × d_k at 9, r_b × d_k at 18, I_a⁻¹(r_a × d_k) at 27, I_b⁻¹(r_b × d_k) at 36
 * (3 per row k), 1/m_a at 45, 1/m_b at 46. J_a = [d, r_a × d] and J_b = −[d, r_b × d] (assembly.ts), so
 * J_b·Δv is subtracted and M⁻¹J_bᵀ applied with the opposite sign: x + (−y) = x − y and (−u)·v = −(u·v)
 * exactly in IEEE arithmetic, hence the same numbers as the 18-number blocks.
 */
export const PACKED_STRIDE = 48;
/** Offsets in a contact's PACKED_STRIDE numbers (row k of a block at offset + 3k). */
export const PACKED_DIRECTIONS = 0;
export const PACKED_RA_CROSS_D = 9;
export const PACKED_RB_CROSS_D = 18;
export const PACKED_INV_INERTIA_A_RA_CROSS_D = 27;
export const PACKED_INV_INERTIA_B_RB_CROSS_D = 36;
export const PACKED_INV_MASS_A = 45;
export const PACKED_INV_MASS_B = 46;

/**
 * (Aλ)ᵢ = shiftᵢλᵢ + J_{i,a}·Δv_a + J_{i,b}·Δv_b for row r of contact c (i = 3c + r): the matrix-free row
 * product (Catto GDC 2005), summed in this order in every caller so that sweeps and KKT agree bit for bit.
 */
export function matrixFreeRowTimes(k: MatrixFreeArrays, c: number, r: number, lam: number): number {
  const dv = k.dv;
  let s = (r === 0 ? k.shiftN : k.shiftT) * lam;
  const a = k.bodyA[c],
    bb = k.bodyB[c],
    j = 18 * c + 6 * r;
  if (a >= 0) {
    const J = k.JA,
      o = 6 * a;
    s += J[j] * dv[o];
    s += J[j + 1] * dv[o + 1];
    s += J[j + 2] * dv[o + 2];
    s += J[j + 3] * dv[o + 3];
    s += J[j + 4] * dv[o + 4];
    s += J[j + 5] * dv[o + 5];
  }
  if (bb >= 0) {
    const J = k.JB,
      o = 6 * bb;
    s += J[j] * dv[o];
    s += J[j + 1] * dv[o + 1];
    s += J[j + 2] * dv[o + 2];
    s += J[j + 3] * dv[o + 3];
    s += J[j + 4] * dv[o + 4];
    s += J[j + 5] * dv[o + 5];
  }
  return s;
}

/** Δv += M⁻¹J_cᵀ·(d0, d1, d2) for both bodies of contact c (sequential impulses: the one write per impulse change). */
export function matrixFreeApply(k: MatrixFreeArrays, c: number, d0: number, d1: number, d2: number): void {
  const dv = k.dv,
    m = 18 * c;
  const a = k.bodyA[c],
    bb = k.bodyB[c];
  if (a >= 0) {
    const M = k.MA,
      o = 6 * a;
    for (let q = 0; q < 6; q++) dv[o + q] += M[m + q] * d0 + M[m + 6 + q] * d1 + M[m + 12 + q] * d2;
  }
  if (bb >= 0) {
    const M = k.MB,
      o = 6 * bb;
    for (let q = 0; q < 6; q++) dv[o + q] += M[m + q] * d0 + M[m + 6 + q] * d1 + M[m + 12 + q] * d2;
  }
}

/**
 * One sweep on the flat matrix-free arrays: the same operations as sweepRows, without calls through
 * PgsRows. In coulomb-disk mode (the world's default) the row products and Δv updates are written out
 * in the loop: a call that takes or returns a double boxes it in V8 (a heap allocation per row), which
 * cost more than the arithmetic; the sums keep the order of matrixFreeRowTimes / matrixFreeApply.
 */
export function sweepMatrixFree(k: MatrixFreeArrays, lam: Float64Array, p: SweepParams, out: SweepOutcome): void {
  const { b, mu, contactCount: C, bodyA, bodyB, shiftN, shiftT, dv, packed: R } = k;
  const { eps, step, block: blk, normalDiag, tangentMax } = p;
  let change = 0,
    size = 0;
  out[0] = 0;
  out[1] = 0;
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      m = mu[c];
    const old0 = lam[o],
      old1 = lam[o + 1],
      old2 = lam[o + 2];
    if (step) {
      const s = step[c];
      blk[0] = old0 - s * (matrixFreeRowTimes(k, c, 0, old0) - b[o] + eps * old0);
      blk[1] = m > 0 ? old1 - s * (matrixFreeRowTimes(k, c, 1, old1) - b[o + 1] + eps * old1) : 0;
      blk[2] = m > 0 ? old2 - s * (matrixFreeRowTimes(k, c, 2, old2) - b[o + 2] + eps * old2) : 0;
      projectCone(blk, 0, m, blk);
      lam[o] = blk[0];
      lam[o + 1] = blk[1];
      lam[o + 2] = blk[2];
      matrixFreeApply(k, c, blk[0] - old0, blk[1] - old1, blk[2] - old2);
    } else {
      const ia = bodyA[c],
        ib = bodyB[c],
        p = PACKED_STRIDE * c,
        oa = 6 * ia,
        ob = 6 * ib;
      const imA = R[p + PACKED_INV_MASS_A],
        imB = R[p + PACKED_INV_MASS_B],
        pRa = p + PACKED_RA_CROSS_D,
        pRb = p + PACKED_RB_CROSS_D,
        pMa = p + PACKED_INV_INERTIA_A_RA_CROSS_D,
        pMb = p + PACKED_INV_INERTIA_B_RB_CROSS_D;
      // Δv of both bodies, read once into locals for the contact's three rows and written back once
      let a0 = 0,
        a1 = 0,
        a2 = 0,
        a3 = 0,
        a4 = 0,
        a5 = 0,
        b0 = 0,
        b1 = 0,
        b2 = 0,
        b3 = 0,
        b4 = 0,
        b5 = 0;
      if (ia >= 0) {
        a0 = dv[oa];
        a1 = dv[oa + 1];
        a2 = dv[oa + 2];
        a3 = dv[oa + 3];
        a4 = dv[oa + 4];
        a5 = dv[oa + 5];
      }
      if (ib >= 0) {
        b0 = dv[ob];
        b1 = dv[ob + 1];
        b2 = dv[ob + 2];
        b3 = dv[ob + 3];
        b4 = dv[ob + 4];
        b5 = dv[ob + 5];
      }
      // normal row: λn ← max(0, λn − wₙ/(Aₙₙ + ε)), wₙ = shift·λn + J_a·Δv_a + J_b·Δv_b − bₙ + ελn
      const dn = normalDiag[c];
      let ln = 0;
      if (dn > 0) {
        let s = shiftN * old0;
        if (ia >= 0) {
          s += R[p] * a0;
          s += R[p + 1] * a1;
          s += R[p + 2] * a2;
          s += R[pRa] * a3;
          s += R[pRa + 1] * a4;
          s += R[pRa + 2] * a5;
        }
        if (ib >= 0) {
          s -= R[p] * b0;
          s -= R[p + 1] * b1;
          s -= R[p + 2] * b2;
          s -= R[pRb] * b3;
          s -= R[pRb + 1] * b4;
          s -= R[pRb + 2] * b5;
        }
        ln = Math.max(0, old0 - (s - b[o] + eps * old0) / dn);
      }
      lam[o] = ln;
      // An inactive contact that stays inactive (λ = 0 before, λn = 0 after: e.g. a speculative contact whose
      // gap does not close within the step, Box2D v3's speculative rows): its tangent impulses are clamped to
      // the disk of radius μ·0, so nothing moves; skip the tangent rows and the Δv write-back.
      if (ln === 0 && old0 === 0 && old1 === 0 && old2 === 0) continue;
      const d0 = ln - old0;
      if (d0 !== 0) {
        if (ia >= 0) {
          a0 += imA * R[p] * d0;
          a1 += imA * R[p + 1] * d0;
          a2 += imA * R[p + 2] * d0;
          a3 += R[pMa] * d0;
          a4 += R[pMa + 1] * d0;
          a5 += R[pMa + 2] * d0;
        }
        if (ib >= 0) {
          b0 -= imB * R[p] * d0;
          b1 -= imB * R[p + 1] * d0;
          b2 -= imB * R[p + 2] * d0;
          b3 -= R[pMb] * d0;
          b4 -= R[pMb + 1] * d0;
          b5 -= R[pMb + 2] * d0;
        }
      }
      let t1 = old1,
        t2 = old2;
      if (m > 0) {
        const lmax = tangentMax[c];
        if (lmax > 0) {
          // both tangent rows read Δv before either moves
          let s1 = shiftT * old1,
            s2 = shiftT * old2;
          if (ia >= 0) {
            s1 += R[p + 3] * a0;
            s1 += R[p + 4] * a1;
            s1 += R[p + 5] * a2;
            s1 += R[pRa + 3] * a3;
            s1 += R[pRa + 4] * a4;
            s1 += R[pRa + 5] * a5;
            s2 += R[p + 6] * a0;
            s2 += R[p + 7] * a1;
            s2 += R[p + 8] * a2;
            s2 += R[pRa + 6] * a3;
            s2 += R[pRa + 7] * a4;
            s2 += R[pRa + 8] * a5;
          }
          if (ib >= 0) {
            s1 -= R[p + 3] * b0;
            s1 -= R[p + 4] * b1;
            s1 -= R[p + 5] * b2;
            s1 -= R[pRb + 3] * b3;
            s1 -= R[pRb + 4] * b4;
            s1 -= R[pRb + 5] * b5;
            s2 -= R[p + 6] * b0;
            s2 -= R[p + 7] * b1;
            s2 -= R[p + 8] * b2;
            s2 -= R[pRb + 6] * b3;
            s2 -= R[pRb + 7] * b4;
            s2 -= R[pRb + 8] * b5;
          }
          t1 = old1 - (s1 - b[o + 1] + eps * old1) / lmax;
          t2 = old2 - (s2 - b[o + 2] + eps * old2) / lmax;
          // clamp to the disk ‖λt‖ ≤ μλn (clampDisk)
          const r = m * ln,
            norm = hypot2(t1, t2);
          if (norm > r) {
            const f = norm > 0 ? r / norm : 0;
            t1 *= f;
            t2 *= f;
          }
          const d1 = t1 - old1,
            d2 = t2 - old2;
          if (ia >= 0) {
            a0 += imA * R[p + 3] * d1 + imA * R[p + 6] * d2;
            a1 += imA * R[p + 4] * d1 + imA * R[p + 7] * d2;
            a2 += imA * R[p + 5] * d1 + imA * R[p + 8] * d2;
            a3 += R[pMa + 3] * d1 + R[pMa + 6] * d2;
            a4 += R[pMa + 4] * d1 + R[pMa + 7] * d2;
            a5 += R[pMa + 5] * d1 + R[pMa + 8] * d2;
          }
          if (ib >= 0) {
            b0 -= imB * R[p + 3] * d1 + imB * R[p + 6] * d2;
            b1 -= imB * R[p + 4] * d1 + imB * R[p + 7] * d2;
            b2 -= imB * R[p + 5] * d1 + imB * R[p + 8] * d2;
            b3 -= R[pMb + 3] * d1 + R[pMb + 6] * d2;
            b4 -= R[pMb + 4] * d1 + R[pMb + 7] * d2;
            b5 -= R[pMb + 5] * d1 + R[pMb + 8] * d2;
          }
        }
      } else if (old1 !== 0 || old2 !== 0) {
        // μ = 0: the tangent impulses are removed
        t1 = 0;
        t2 = 0;
        if (ia >= 0) {
          a0 += imA * R[p + 3] * -old1 + imA * R[p + 6] * -old2;
          a1 += imA * R[p + 4] * -old1 + imA * R[p + 7] * -old2;
          a2 += imA * R[p + 5] * -old1 + imA * R[p + 8] * -old2;
          a3 += R[pMa + 3] * -old1 + R[pMa + 6] * -old2;
          a4 += R[pMa + 4] * -old1 + R[pMa + 7] * -old2;
          a5 += R[pMa + 5] * -old1 + R[pMa + 8] * -old2;
        }
        if (ib >= 0) {
          b0 += imB * R[p + 3] * old1 + imB * R[p + 6] * old2;
          b1 += imB * R[p + 4] * old1 + imB * R[p + 7] * old2;
          b2 += imB * R[p + 5] * old1 + imB * R[p + 8] * old2;
          b3 += R[pMb + 3] * old1 + R[pMb + 6] * old2;
          b4 += R[pMb + 4] * old1 + R[pMb + 7] * old2;
          b5 += R[pMb + 5] * old1 + R[pMb + 8] * old2;
        }
      }
      lam[o + 1] = t1;
      lam[o + 2] = t2;
      if (ia >= 0) {
        dv[oa] = a0;
        dv[oa + 1] = a1;
        dv[oa + 2] = a2;
        dv[oa + 3] = a3;
        dv[oa + 4] = a4;
        dv[oa + 5] = a5;
      }
      if (ib >= 0) {
        dv[ob] = b0;
        dv[ob + 1] = b1;
        dv[ob + 2] = b2;
        dv[ob + 3] = b3;
        dv[ob + 4] = b4;
        dv[ob + 5] = b5;
      }
    }
    change = Math.max(change, Math.abs(lam[o] - old0), Math.abs(lam[o + 1] - old1), Math.abs(lam[o + 2] - old2));
    size = Math.max(size, Math.abs(lam[o]), Math.abs(lam[o + 1]), Math.abs(lam[o + 2]));
    out[0] = change;
    out[1] = size;
  }
}
