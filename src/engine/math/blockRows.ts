/**
 * A square matrix of 3×3 blocks stored by block rows (block compressed sparse rows, BSR; Saad, "Iterative
 * Methods for Sparse Linear Systems", 2nd ed., §3.4): the contact matrix W of a frictional contact problem
 * couples two contacts only through a shared body, so most of its blocks are zero (a 570-contact Kapla tower:
 * 1710×1710 with a few blocks per row). Built once per solve from the dense row-major matrix; the values are
 * taken as given (no symmetry assumed). The diagonal block of every row is stored, even when zero.
 */

export interface BlockRows {
  /** Number of block rows (contacts). */
  readonly blocks: number;
  /** Row c's blocks are entries rowPtr[c] … rowPtr[c+1]−1. */
  readonly rowPtr: Int32Array;
  /** Block column of each entry (ascending within a row). */
  readonly col: Int32Array;
  /** Entry of each row's diagonal block. */
  readonly diag: Int32Array;
  /** 9 numbers per entry, the block row-major (entries past rowPtr[blocks]: unused capacity). */
  readonly val: Float64Array;
}

/**
 * Storage a BlockRows can be rebuilt in, call after call (blockRowsFromDense's `into`): its arrays grow to the
 * largest problem seen and are reused, so a warm solve of a small problem allocates nothing for W. Entries past
 * rowPtr[blocks] (and rows past `blocks`) are unused capacity.
 */
export class BlockRowsStorage implements BlockRows {
  blocks = 0;
  rowPtr = new Int32Array(1);
  col = new Int32Array(16);
  diag = new Int32Array(0);
  val = new Float64Array(0);
}

/**
 * The 3×3 block structure of the dense n×n row-major A (n = 3·blocks): blocks with a nonzero entry, plus the
 * diagonal. Written into `into` when given (its previous content is overwritten), else into new arrays.
 */
export function blockRowsFromDense(A: Float64Array, blocks: number, into: BlockRowsStorage = new BlockRowsStorage()): BlockRows {
  const n = 3 * blocks;
  if (into.rowPtr.length < blocks + 1) into.rowPtr = new Int32Array(blocks + 1);
  if (into.diag.length < blocks) into.diag = new Int32Array(blocks);
  if (into.col.length < 4 * blocks) into.col = new Int32Array(4 * blocks);
  const { rowPtr, diag } = into;
  rowPtr[0] = 0;
  // one pass over A: the nonzero blocks of each block row, in column order
  let cols = into.col;
  let count = 0;
  for (let c = 0; c < blocks; c++) {
    const o0 = 3 * c * n,
      o1 = o0 + n,
      o2 = o1 + n;
    for (let d = 0, j = 0; d < blocks; d++, j += 3) {
      const nonzero =
        d === c ||
        A[o0 + j] !== 0 ||
        A[o0 + j + 1] !== 0 ||
        A[o0 + j + 2] !== 0 ||
        A[o1 + j] !== 0 ||
        A[o1 + j + 1] !== 0 ||
        A[o1 + j + 2] !== 0 ||
        A[o2 + j] !== 0 ||
        A[o2 + j + 1] !== 0 ||
        A[o2 + j + 2] !== 0;
      if (!nonzero) continue;
      if (count === cols.length) {
        const grown = new Int32Array(2 * cols.length);
        grown.set(cols);
        cols = grown;
      }
      if (d === c) diag[c] = count;
      cols[count++] = d;
    }
    rowPtr[c + 1] = count;
  }
  into.col = cols;
  if (into.val.length < 9 * count) into.val = new Float64Array(9 * count);
  const { val } = into;
  for (let c = 0; c < blocks; c++) {
    for (let e = rowPtr[c]; e < rowPtr[c + 1]; e++) {
      const v = 9 * e,
        j = 3 * cols[e];
      for (let i = 0; i < 3; i++) {
        const o = (3 * c + i) * n + j;
        val[v + 3 * i] = A[o];
        val[v + 3 * i + 1] = A[o + 1];
        val[v + 3 * i + 2] = A[o + 2];
      }
    }
  }
  into.blocks = blocks;
  return into;
}

/**
 * out = W x + shift (shift may be null for 0); out must not alias x. Each row is summed term by term in column
 * order starting from the shift, exactly as the dense loop `s = shift_i; for j: s += A_ij x_j` does (the zero
 * entries it adds change nothing): the result is bit-identical to the dense product, so a merit computed from it
 * is the merit of the dense problem.
 */
export function blockRowsMulAdd(W: BlockRows, x: Float64Array, shift: Float64Array | null, out: Float64Array): void {
  const { blocks, rowPtr, col, val } = W;
  for (let c = 0; c < blocks; c++) {
    const o = 3 * c;
    let s0 = shift === null ? 0 : shift[o],
      s1 = shift === null ? 0 : shift[o + 1],
      s2 = shift === null ? 0 : shift[o + 2];
    for (let e = rowPtr[c]; e < rowPtr[c + 1]; e++) {
      const v = 9 * e,
        xo = 3 * col[e];
      const x0 = x[xo],
        x1 = x[xo + 1],
        x2 = x[xo + 2];
      s0 += val[v] * x0;
      s0 += val[v + 1] * x1;
      s0 += val[v + 2] * x2;
      s1 += val[v + 3] * x0;
      s1 += val[v + 4] * x1;
      s1 += val[v + 5] * x2;
      s2 += val[v + 6] * x0;
      s2 += val[v + 7] * x1;
      s2 += val[v + 8] * x2;
    }
    out[o] = s0;
    out[o + 1] = s1;
    out[o + 2] = s2;
  }
}

/** Number of stored blocks (including the diagonal ones). */
export function blockRowsCount(W: BlockRows): number {
  return W.rowPtr[W.blocks];
}
