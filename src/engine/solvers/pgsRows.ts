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
import { type KktWorkspace, kktFromW, kktInto, type KktReport } from '../kkt.js';

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
  /** KKT report of λ for A (fills ws.w = Aλ − b and ws.Alam = Aλ). */
  kkt(lambda: Float64Array, ws: KktWorkspace): KktReport;
}

/** Rows of a dense problem (A already contains ε and any softening). */
export function denseRows(p: ContactProblem): PgsRows {
  const { A, size: n, contactCount: C } = p;
  const diagonal = new Float64Array(9 * C);
  for (let c = 0; c < C; c++) for (let r = 0; r < 3; r++) for (let s = 0; s < 3; s++) diagonal[9 * c + 3 * r + s] = A[(3 * c + r) * n + 3 * c + s];
  return {
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
    kkt: (lambda, ws) => kktInto(p, lambda, ws),
  };
}

/** Matrix-free rows with their body velocity changes Δv = M⁻¹Jᵀλ (6 per body of the island's body list). */
export interface MatrixFreeRows extends PgsRows {
  readonly dv: Float64Array;
}

/** Matrix-free rows of assembled Jacobians; `softening` γ is added to the normal rows (docs/physics.md). */
export function matrixFreeRows(k: ContactJacobians, softening = 0): MatrixFreeRows {
  const C = k.contactCount,
    n = k.size;
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const { invMassJA: MA, invMassJB: MB, staticA, staticB } = k;
  const ia = new Int32Array(C),
    ib = new Int32Array(C);
  k.contacts.forEach((m, c) => {
    ia[c] = m.contact.bodyA;
    ib[c] = m.contact.bodyB;
  });
  const dv = new Float64Array(6 * k.physics.bodies.length);
  /** Diagonal shift of row r (0 = normal): assembly ε, plus γ on the normal row. */
  const shift = (r: number): number => k.regularization + (r === 0 ? softening : 0);
  // A_cc = J_c M⁻¹ J_cᵀ (+ shifts), from the two bodies' blocks.
  const diagonal = new Float64Array(9 * C);
  for (let c = 0; c < C; c++) {
    for (let r = 0; r < 3; r++) {
      for (let s = 0; s < 3; s++) {
        let v = 0;
        const a = 18 * c + 6 * r,
          bb = 18 * c + 6 * s;
        if (!staticA[c]) for (let q = 0; q < 6; q++) v += JA[a + q] * MA[bb + q];
        if (!staticB[c]) for (let q = 0; q < 6; q++) v += JB[a + q] * MB[bb + q];
        diagonal[9 * c + 3 * r + s] = v + (r === s ? shift(r) : 0);
      }
    }
  }
  const rowTimes = (i: number, lambda: Float64Array): number => {
    const c = (i / 3) | 0,
      r = i - 3 * c;
    let s = shift(r) * lambda[i];
    if (!staticA[c]) {
      const o = 6 * ia[c],
        j = 18 * c + 6 * r;
      for (let q = 0; q < 6; q++) s += JA[j + q] * dv[o + q];
    }
    if (!staticB[c]) {
      const o = 6 * ib[c],
        j = 18 * c + 6 * r;
      for (let q = 0; q < 6; q++) s += JB[j + q] * dv[o + q];
    }
    return s;
  };
  // Natural-map steps of the KKT check, ρ_c = 1/max diag A_cc, as kktInto computes them from a dense A.
  const rho = new Float64Array(C);
  for (let c = 0; c < C; c++) {
    const dmax = Math.max(diagonal[9 * c], diagonal[9 * c + 4], diagonal[9 * c + 8]);
    rho[c] = dmax > 0 ? 1 / dmax : 1;
  }
  return {
    contactCount: C,
    size: n,
    b: k.b,
    mu: k.mu,
    diagonal,
    dv,
    rowTimes,
    changed(c, d0, d1, d2) {
      if (!staticA[c]) {
        const o = 6 * ia[c],
          m = 18 * c;
        for (let q = 0; q < 6; q++) dv[o + q] += MA[m + q] * d0 + MA[m + 6 + q] * d1 + MA[m + 12 + q] * d2;
      }
      if (!staticB[c]) {
        const o = 6 * ib[c],
          m = 18 * c;
        for (let q = 0; q < 6; q++) dv[o + q] += MB[m + q] * d0 + MB[m + 6 + q] * d1 + MB[m + 12 + q] * d2;
      }
    },
    kkt(lambda, ws) {
      for (let i = 0; i < n; i++) {
        const a = rowTimes(i, lambda);
        ws.Alam[i] = a;
        ws.w[i] = a - k.b[i];
      }
      return kktFromW(k.mu, lambda, ws.w, k.b, rho, ws);
    },
  };
}
