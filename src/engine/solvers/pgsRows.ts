/**
 * The rows a projected Gauss–Seidel sweep reads (pgs.ts), in two storages with the same numbers:
 *   dense: A = J M⁻¹ Jᵀ (+ εI) formed, (Aλ)ᵢ = Σⱼ Aᵢⱼλⱼ, O(C²) per sweep;
 *   matrix-free: A never formed, (Aλ)ᵢ = Jᵢ Δv with Δv = M⁻¹Jᵀλ kept up to date per impulse change
 *   (sequential impulses, Catto GDC 2005), O(C) per sweep and O(C + N) memory.
 * Both add the same diagonal shifts: the assembly's ε (docs/physics.md "Regularisation") and, matrix-free,
 * the softening γ on normal rows (the dense path has γ already in A).
 */
import type { ContactJacobians } from '../assembly.js';
import type { ContactProblem } from '../problem.js';
import { type KktWorkspace, kktFromScales, kktInto, type KktReport } from '../kkt.js';
import { objectiveFromAlam } from './history.js';
import {
  type MatrixFreeArrays,
  matrixFreeApply,
  matrixFreeRowTimes,
  PACKED_DIRECTIONS,
  PACKED_INV_INERTIA_A_RA_CROSS_D,
  PACKED_INV_INERTIA_B_RB_CROSS_D,
  PACKED_INV_MASS_A,
  PACKED_INV_MASS_B,
  PACKED_RA_CROSS_D,
  PACKED_RB_CROSS_D,
  PACKED_STRIDE,
  type SweepOutcome,
  type SweepParams,
  sweepMatrixFree,
  sweepRows,
} from './pgsSweep.js';

export interface PgsRows {
  readonly contactCount: number;
  readonly size: number;
  readonly b: Float64Array;
  readonly mu: Float64Array;
  /** The 3×3 diagonal block A_cc of every contact, row-major, 9 numbers per contact. */
  readonly diagonal: Float64Array;
  /** (Aλ)ᵢ with the current λ (Gauss–Seidel reads the freshest values). */
  rowTimes(i: number, lambda: Float64Array): number;
  /** Contact c's impulse changed by (d0, d1, d2): matrix-free storage updates Δv, dense storage does nothing. */
  changed(c: number, d0: number, d1: number, d2: number): void;
  /** One Gauss–Seidel sweep over all contacts (pgsSweep.ts), |Δλ| and |λ| maxima into `out`. */
  sweep(lambda: Float64Array, params: SweepParams, out: SweepOutcome): void;
  /**
   * KKT report of λ for A (fills ws.w = Aλ − b and ws.Alam = Aλ); with `objective`, objective[0] = f(λ) =
   * ½λᵀAλ − bᵀλ (objectiveFromAlam's sum, in its order).
   */
  kkt(lambda: Float64Array, ws: KktWorkspace, objective?: Float64Array): KktReport;
}

/** Rows of a dense problem (A already contains ε and any softening). */
export function denseRows(p: ContactProblem): PgsRows {
  const { A, size: n, contactCount: C } = p;
  const diagonal = new Float64Array(9 * C);
  for (let c = 0; c < C; c++) for (let r = 0; r < 3; r++) for (let s = 0; s < 3; s++) diagonal[9 * c + 3 * r + s] = A[(3 * c + r) * n + 3 * c + s];
  const rows: PgsRows = {
    contactCount: C,
    size: n,
    b: p.b,
    mu: p.mu,
    diagonal,
    rowTimes(i, lambda) {
      let s = 0;
      const row = i * n;
      for (let j = 0; j < n; j++) s += A[row + j] * lambda[j];
      return s;
    },
    changed() {
      /* A is read directly: nothing to update */
    },
    sweep: (lambda, params, out) => sweepRows(rows, lambda, params, out),
    kkt(lambda, ws, objective) {
      const r = kktInto(p, lambda, ws);
      if (objective) objective[0] = objectiveFromAlam(lambda, ws.Alam, p.b, n);
      return r;
    },
  };
  return rows;
}

/** Matrix-free rows with their body velocity changes Δv = M⁻¹Jᵀλ (6 per body of the island's body list). */
export interface MatrixFreeRows extends PgsRows {
  readonly dv: Float64Array;
}

/**
 * The working arrays of matrixFreeRows (body indices, packed rows, diagonal blocks, KKT steps), kept between
 * solves by a caller that solves one island at a time and lets no rows outlive the solve (solvePgsMatrixFree):
 * grown when an island is larger than any before, never shrunk, so a world step in steady state allocates
 * none of them (Box2D v3 keeps its constraint arrays in a per-step arena likewise). Every entry an island
 * uses is rewritten before it is read.
 */
export class MatrixFreeScratch {
  private capacity = 0;
  private bodyA = new Int32Array(0);
  private bodyB = new Int32Array(0);
  private packed = new Float64Array(0);
  private diagonal = new Float64Array(0);
  private rho = new Float64Array(0);

  /** Views of the first C contacts' entries (new views, the same memory). */
  views(C: number): { bodyA: Int32Array; bodyB: Int32Array; packed: Float64Array; diagonal: Float64Array; rho: Float64Array } {
    if (C > this.capacity) {
      const cap = Math.max(C, 2 * this.capacity);
      this.capacity = cap;
      this.bodyA = new Int32Array(cap);
      this.bodyB = new Int32Array(cap);
      this.packed = new Float64Array(PACKED_STRIDE * cap);
      this.diagonal = new Float64Array(9 * cap);
      this.rho = new Float64Array(cap);
    }
    return {
      bodyA: this.bodyA.subarray(0, C),
      bodyB: this.bodyB.subarray(0, C),
      packed: this.packed.subarray(0, PACKED_STRIDE * C),
      diagonal: this.diagonal.subarray(0, 9 * C),
      rho: this.rho.subarray(0, C),
    };
  }
}

/**
 * Matrix-free rows of assembled Jacobians; `softening` γ is added to the normal rows (docs/physics.md).
 * Δv is kept in `into` when given (6 per body of the island's body list, zero at this island's dynamic
 * bodies: islands share no dynamic body, so one array serves every island of a step), else in a new array.
 * With `scratch` the working arrays are its views (the rows must then not outlive the next use of scratch).
 */
export function matrixFreeRows(k: ContactJacobians, softening = 0, into?: Float64Array, scratch?: MatrixFreeScratch): MatrixFreeRows {
  const C = k.contactCount,
    n = k.size;
  // Every array first, then one loop per function: V8 optimises a long loop on stack replacement and
  // deoptimised this function at the next, not yet executed, `new` after it (pgsSweep.ts SweepOutcome).
  const work = scratch
    ? scratch.views(C)
    : {
        bodyA: new Int32Array(C),
        bodyB: new Int32Array(C),
        packed: new Float64Array(PACKED_STRIDE * C),
        diagonal: new Float64Array(9 * C),
        rho: new Float64Array(C),
      };
  const { bodyA, bodyB, packed, diagonal, rho } = work;
  const dv = into ?? new Float64Array(6 * k.physics.bodies.length);
  const shiftN = k.regularization + softening,
    shiftT = k.regularization;
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const { invMassJA: MA, invMassJB: MB } = k;
  const arrays: MatrixFreeArrays = { contactCount: C, JA, JB, MA, MB, bodyA, bodyB, shiftN, shiftT, b: k.b, mu: k.mu, dv, packed };
  packContacts(k, bodyA, bodyB, packed);
  diagonalBlocks(k, shiftN, shiftT, diagonal, rho);
  return {
    contactCount: C,
    size: n,
    b: k.b,
    mu: k.mu,
    diagonal,
    dv,
    rowTimes: (i, lambda) => {
      const c = (i / 3) | 0;
      return matrixFreeRowTimes(arrays, c, i - 3 * c, lambda[i]);
    },
    changed: (c, d0, d1, d2) => matrixFreeApply(arrays, c, d0, d1, d2),
    sweep: (lambda, params, out) => sweepMatrixFree(arrays, lambda, params, out),
    kkt(lambda, ws, objective) {
      // one pass: Aλ, w, kktFromW's scales and f(λ) (kktScales and objectiveFromAlam read the same rows again)
      matrixFreeProducts(arrays, lambda, ws.Alam, ws.w, ws.scales, objective ?? objectiveScratch);
      return kktFromScales(k.mu, lambda, ws.w, rho, ws);
    },
  };
}

/**
 * Per contact: the body indices (−1: static side) and the packed rows (layout at PACKED_STRIDE, pgsSweep.ts; zeros
 * for a static side), in one loop without a call per contact (a packing call with 13 arguments, two of them
 * doubles, boxed them per call in V8).
 */
function packContacts(k: ContactJacobians, bodyA: Int32Array, bodyB: Int32Array, packed: Float64Array): void {
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const { invMassJA: MA, invMassJB: MB, staticA, staticB } = k;
  const bodies = k.physics.bodies;
  for (let c = 0; c < k.contactCount; c++) {
    const m = k.contacts[c].contact;
    const ia = staticA[c] ? -1 : m.bodyA,
      ib = staticB[c] ? -1 : m.bodyB;
    bodyA[c] = ia;
    bodyB[c] = ib;
    const p = PACKED_STRIDE * c,
      j = 18 * c;
    const n = m.normal,
      t1 = m.t1,
      t2 = m.t2;
    packed[p + PACKED_DIRECTIONS] = n[0];
    packed[p + PACKED_DIRECTIONS + 1] = n[1];
    packed[p + PACKED_DIRECTIONS + 2] = n[2];
    packed[p + PACKED_DIRECTIONS + 3] = t1[0];
    packed[p + PACKED_DIRECTIONS + 4] = t1[1];
    packed[p + PACKED_DIRECTIONS + 5] = t1[2];
    packed[p + PACKED_DIRECTIONS + 6] = t2[0];
    packed[p + PACKED_DIRECTIONS + 7] = t2[1];
    packed[p + PACKED_DIRECTIONS + 8] = t2[2];
    // row r's angular part of J_a (= r_a × d) and of M⁻¹J_aᵀ (= I_a⁻¹(r_a × d)); J_b and M⁻¹J_bᵀ negated; zeros
    // for a static side (the array may be reused scratch).
    for (let r = 0; r < 3; r++) {
      const src = j + 6 * r + 3,
        dst = 3 * r;
      packed[p + PACKED_RA_CROSS_D + dst] = ia >= 0 ? JA[src] : 0;
      packed[p + PACKED_RA_CROSS_D + dst + 1] = ia >= 0 ? JA[src + 1] : 0;
      packed[p + PACKED_RA_CROSS_D + dst + 2] = ia >= 0 ? JA[src + 2] : 0;
      packed[p + PACKED_INV_INERTIA_A_RA_CROSS_D + dst] = ia >= 0 ? MA[src] : 0;
      packed[p + PACKED_INV_INERTIA_A_RA_CROSS_D + dst + 1] = ia >= 0 ? MA[src + 1] : 0;
      packed[p + PACKED_INV_INERTIA_A_RA_CROSS_D + dst + 2] = ia >= 0 ? MA[src + 2] : 0;
      packed[p + PACKED_RB_CROSS_D + dst] = ib >= 0 ? -JB[src] : 0;
      packed[p + PACKED_RB_CROSS_D + dst + 1] = ib >= 0 ? -JB[src + 1] : 0;
      packed[p + PACKED_RB_CROSS_D + dst + 2] = ib >= 0 ? -JB[src + 2] : 0;
      packed[p + PACKED_INV_INERTIA_B_RB_CROSS_D + dst] = ib >= 0 ? -MB[src] : 0;
      packed[p + PACKED_INV_INERTIA_B_RB_CROSS_D + dst + 1] = ib >= 0 ? -MB[src + 1] : 0;
      packed[p + PACKED_INV_INERTIA_B_RB_CROSS_D + dst + 2] = ib >= 0 ? -MB[src + 2] : 0;
    }
    packed[p + PACKED_INV_MASS_A] = ia >= 0 ? bodies[ia].invMass : 0;
    packed[p + PACKED_INV_MASS_B] = ib >= 0 ? bodies[ib].invMass : 0;
  }
}

/**
 * A_cc = J_c M⁻¹ J_cᵀ (+ shifts) of every contact from its two bodies' blocks, and the natural-map steps of
 * the KKT check, ρ_c = 1/max diag A_cc, as kktInto computes them from a dense A.
 */
function diagonalBlocks(k: ContactJacobians, shiftN: number, shiftT: number, diagonal: Float64Array, rho: Float64Array): void {
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const { invMassJA: MA, invMassJB: MB, staticA, staticB } = k;
  for (let c = 0; c < k.contactCount; c++) {
    for (let r = 0; r < 3; r++) {
      for (let s = 0; s < 3; s++) {
        let v = 0;
        const a = 18 * c + 6 * r,
          bb = 18 * c + 6 * s;
        if (!staticA[c]) for (let q = 0; q < 6; q++) v += JA[a + q] * MA[bb + q];
        if (!staticB[c]) for (let q = 0; q < 6; q++) v += JB[a + q] * MB[bb + q];
        diagonal[9 * c + 3 * r + s] = v + (r === s ? (r === 0 ? shiftN : shiftT) : 0);
      }
    }
    const dmax = Math.max(diagonal[9 * c], diagonal[9 * c + 4], diagonal[9 * c + 8]);
    rho[c] = dmax > 0 ? 1 / dmax : 1;
  }
}

/** f(λ) of a matrix-free kkt() whose caller did not ask for it. */
const objectiveScratch = new Float64Array(1);

/**
 * Alam = Aλ and w = Aλ − b for all rows, in matrixFreeRowTimes' order (written out: a call per row would
 * box each double in V8), and from the same rows kktFromW's scales into `scales` (kkt.ts kktScales: the same
 * maxima and first non-finite index, rows in the same order) and f(λ) = Σᵢ λᵢ(½(Aλ)ᵢ − bᵢ) into objective[0]
 * (history.ts objectiveFromAlam: the same sum in the same order). A function of its own, with nothing after its
 * loop; its results are written inside the loop (see SweepOutcome).
 */
function matrixFreeProducts(
  k: MatrixFreeArrays,
  lambda: Float64Array,
  Alam: Float64Array,
  w: Float64Array,
  scales: Float64Array,
  objective: Float64Array,
): void {
  const { contactCount: C, bodyA, bodyB, shiftN, shiftT, b, dv, packed: R, mu } = k;
  let aNorm = 0,
    bNorm = 0,
    lamRef = 0,
    muMax = 0,
    firstNonFinite = -1,
    f = 0;
  scales[0] = -1;
  scales[1] = 0;
  scales[2] = 0;
  scales[3] = 0;
  scales[4] = 0;
  objective[0] = 0;
  for (let c = 0; c < C; c++) {
    muMax = Math.max(muMax, mu[c]);
    scales[4] = muMax;
    const ia = bodyA[c],
      ib = bodyB[c],
      oa = 6 * ia,
      ob = 6 * ib,
      p = PACKED_STRIDE * c;
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
    for (let r = 0; r < 3; r++) {
      const i = 3 * c + r,
        d = p + PACKED_DIRECTIONS + 3 * r,
        dRa = p + PACKED_RA_CROSS_D + 3 * r,
        dRb = p + PACKED_RB_CROSS_D + 3 * r;
      let s = (r === 0 ? shiftN : shiftT) * lambda[i];
      // J_a = [d, r_a × d], J_b = −[d, r_b × d] (packed rows, pgsSweep.ts)
      if (ia >= 0) {
        s += R[d] * a0;
        s += R[d + 1] * a1;
        s += R[d + 2] * a2;
        s += R[dRa] * a3;
        s += R[dRa + 1] * a4;
        s += R[dRa + 2] * a5;
      }
      if (ib >= 0) {
        s -= R[d] * b0;
        s -= R[d + 1] * b1;
        s -= R[d + 2] * b2;
        s -= R[dRb] * b3;
        s -= R[dRb + 1] * b4;
        s -= R[dRb + 2] * b5;
      }
      const bi = b[i],
        li = lambda[i],
        wi = s - bi;
      Alam[i] = s;
      w[i] = wi;
      if (firstNonFinite < 0 && !(Number.isFinite(li) && Number.isFinite(wi) && Number.isFinite(bi))) firstNonFinite = i;
      aNorm = Math.max(aNorm, Math.abs(wi + bi));
      bNorm = Math.max(bNorm, Math.abs(bi));
      lamRef = Math.max(lamRef, Math.abs(li));
      f += li * (0.5 * s - bi);
      scales[0] = firstNonFinite;
      scales[1] = aNorm;
      scales[2] = bNorm;
      scales[3] = lamRef;
      objective[0] = f;
    }
  }
}
