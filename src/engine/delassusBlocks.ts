/**
 * The Delassus matrix A = J M⁻¹ Jᵀ + εI of one island as its non-zero 3×3 blocks on and above the diagonal
 * (docs/physics.md "Delassus matrix"): A couples two contacts only through a body they share, so a busy island
 * of C contacts has Σ deg² blocks where the dense A has C². Every dense A is formed from them (denseFromDelassusBlocks,
 * denseProblem in ./assembly.ts); the frame view's heat map reads the blocks alone.
 *
 * An entry is the sum, over the bodies two contacts share (at most two, so the sum is the same in any order), of
 * the six-term product of a Jacobian row and an M⁻¹Jᵀ column from zero; ε is added last. Each off-diagonal block is
 * computed once and mirrored, so A is exactly symmetric.
 */
import type { ContactJacobians, ContactsByBody } from './assembly.js';
import type { ContactProblem } from './problem.js';

/**
 * A's blocks by contact row, upper triangle: block (i, col[p]) for p in [start[i], start[i + 1]), col ascending from
 * i. (math/blockRows.ts's BlockRows holds both triangles of a matrix taken as given, as the Coulomb solvers read it;
 * these are the symmetric A as assembled, each off-diagonal block once.)
 */
export interface DelassusBlocks {
  /** Contacts C (A has 3C rows). */
  readonly contactCount: number;
  /** The ε on A's diagonal. */
  readonly regularization: number;
  readonly start: Int32Array;
  readonly col: Int32Array;
  /** 9 numbers per block, row-major (the diagonal block i = col is complete, both triangles). */
  readonly val: Float64Array;
}

/**
 * The blocks of A = J M⁻¹ Jᵀ + εI (ε = regularization) from the Jacobians and each body's contacts: row i merges
 * the contacts at and after i on its body a and on its body b (both lists ascending; a contact on both adds
 * both products into one block).
 */
export function delassusBlocks(k: ContactJacobians, byBody: ContactsByBody, regularization: number): DelassusBlocks {
  const C = k.contactCount;
  const { start: groupStart, entries } = byBody;
  // per entry 2·contact + side: its position in its body's list and that list's end (−1: a static side)
  const at = new Int32Array(2 * C).fill(-1),
    end = new Int32Array(2 * C);
  let bound = 0;
  for (let d = 0; d + 1 < groupStart.length; d++)
    for (let p = groupStart[d]; p < groupStart[d + 1]; p++) {
      at[entries[p]] = p;
      end[entries[p]] = groupStart[d + 1];
      bound += groupStart[d + 1] - p;
    }
  // a contact with no dynamic body (in no list) still has its diagonal block
  for (let i = 0; i < C; i++) if (at[2 * i] < 0 && at[2 * i + 1] < 0) bound++;
  const start = new Int32Array(C + 1),
    col = new Int32Array(bound),
    val = new Float64Array(9 * bound);
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const { invMassJA: MJA, invMassJB: MJB } = k;
  let nb = 0;
  for (let i = 0; i < C; i++) {
    start[i] = nb;
    let pa = at[2 * i],
      pb = at[2 * i + 1];
    const ea = pa < 0 ? 0 : end[2 * i],
      eb = pb < 0 ? 0 : end[2 * i + 1];
    if (pa < 0) pa = 0;
    if (pb < 0) pb = 0;
    // a contact with no dynamic body has no list: its diagonal block is ε alone
    if (pa >= ea && pb >= eb) {
      col[nb] = i;
      nb++;
    }
    while (pa < ea || pb < eb) {
      const ja = pa < ea ? entries[pa] >> 1 : C,
        jb = pb < eb ? entries[pb] >> 1 : C;
      const j = ja < jb ? ja : jb;
      col[nb] = j;
      if (ja === j) {
        const e = entries[pa++];
        addBlockProduct(val, 9 * nb, JA, i, e & 1 ? MJB : MJA, j);
      }
      if (jb === j) {
        const e = entries[pb++];
        addBlockProduct(val, 9 * nb, JB, i, e & 1 ? MJB : MJA, j);
      }
      nb++;
    }
  }
  start[C] = nb;
  // ε on the diagonal, after both bodies' products (denseProblem's order); the row's first block is (i, i)
  for (let i = 0; i < C; i++) {
    const o = 9 * start[i];
    val[o] += regularization;
    val[o + 4] += regularization;
    val[o + 8] += regularization;
  }
  return { contactCount: C, regularization, start, col: col.subarray(0, nb), val: val.subarray(0, 9 * nb) };
}

/**
 * Block (i, j) += J_i · (M⁻¹J_j)ᵀ for one shared body: entry (r, s) the six-term dot product from zero (the row's six
 * numbers in locals, the sum written out); on the diagonal (i = j) the entries r ≤ s, mirrored.
 */
function addBlockProduct(val: Float64Array, o: number, Ji: Float64Array, i: number, MJj: Float64Array, j: number): void {
  for (let r = 0; r < 3; r++) {
    const a = 18 * i + 6 * r;
    const a0 = Ji[a],
      a1 = Ji[a + 1],
      a2 = Ji[a + 2],
      a3 = Ji[a + 3],
      a4 = Ji[a + 4],
      a5 = Ji[a + 5];
    for (let s = i === j ? r : 0; s < 3; s++) {
      const bb = 18 * j + 6 * s;
      let v = 0;
      v += a0 * MJj[bb];
      v += a1 * MJj[bb + 1];
      v += a2 * MJj[bb + 2];
      v += a3 * MJj[bb + 3];
      v += a4 * MJj[bb + 4];
      v += a5 * MJj[bb + 5];
      val[o + 3 * r + s] += v;
      if (i === j && s !== r) val[o + 3 * s + r] += v;
    }
  }
}

/** The dense n×n A (n = 3C, row-major) of the blocks: each off-diagonal block also written transposed. */
export function denseFromDelassusBlocks(rows: DelassusBlocks): Float64Array {
  const { contactCount: C, start, col, val } = rows;
  const n = 3 * C;
  const A = new Float64Array(n * n);
  for (let i = 0; i < C; i++)
    for (let p = start[i]; p < start[i + 1]; p++) {
      const j = col[p],
        v = 9 * p;
      // block (i, j) row by row; block (j, i) = its transpose, column by column
      const o = 3 * i * n + 3 * j,
        m = 3 * j * n + 3 * i;
      A[o] = val[v];
      A[o + 1] = val[v + 1];
      A[o + 2] = val[v + 2];
      A[o + n] = val[v + 3];
      A[o + n + 1] = val[v + 4];
      A[o + n + 2] = val[v + 5];
      A[o + 2 * n] = val[v + 6];
      A[o + 2 * n + 1] = val[v + 7];
      A[o + 2 * n + 2] = val[v + 8];
      if (j === i) continue;
      A[m] = val[v];
      A[m + n] = val[v + 1];
      A[m + 2 * n] = val[v + 2];
      A[m + 1] = val[v + 3];
      A[m + n + 1] = val[v + 4];
      A[m + 2 * n + 1] = val[v + 5];
      A[m + 2] = val[v + 6];
      A[m + n + 2] = val[v + 7];
      A[m + 2 * n + 2] = val[v + 8];
    }
  return A;
}

/** The island's ContactProblem (A, b, μ, b's decomposition, the Jacobian blocks) with the dense A of its blocks. */
export function problemFromDelassusBlocks(k: ContactJacobians, blocks: DelassusBlocks): ContactProblem {
  return {
    contactCount: k.contactCount,
    size: k.size,
    A: denseFromDelassusBlocks(blocks),
    b: k.b,
    mu: k.mu,
    regularization: blocks.regularization,
    contacts: k.contacts,
    rhs: k.rhs,
    physics: k.physics,
  };
}
