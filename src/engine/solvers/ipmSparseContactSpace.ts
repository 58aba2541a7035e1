/**
 * The contact-space Newton matrix of the sparse interior point's last-resort path (ipmSparseNewton.ts
 * factorContactSpace; ipmSparse.ts file header): the block pattern of B Bᵀ + H in contact space, analysed once
 * (math/blockSparseCholesky.ts: minimum-degree ordering, symbolic factorisation), and B Bᵀ per stored 3×3 block.
 * Moved from ipmSparseNewton.ts unchanged.
 */
import { analyseBlockPattern, blockSlot, type BlockSparseSymbolic } from '../math/blockSparseCholesky.js';

/** Symbolic analysis of P + H in contact space (3×3 blocks; block (i, j) ≠ 0 when contacts i and j share a dynamic body) and B Bᵀ per stored block (Aval). */
export function contactSpaceMatrix(
  N: number,
  C: number,
  ca: Int32Array,
  cb: Int32Array,
  BA: Float64Array,
  BB: Float64Array,
): { readonly sym: BlockSparseSymbolic; readonly Aval: Float64Array } {
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
  const Aval = new Float64Array(9 * symC.slots);
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
  return { sym: symC, Aval };
}
