/**
 * Block-sparse Cholesky K = L Lᵀ for symmetric positive definite matrices made of m×m blocks over the
 * nodes of a graph (e.g. contacts with 3×3 blocks, K_ij ≠ 0 only where contacts i and j share a dynamic
 * body; or bodies with 6×6 blocks, K_ab ≠ 0 only where a contact joins bodies a and b).
 *
 *  - Ordering: minimum degree on the node graph, eliminating one node at a time and joining its remaining
 *    neighbours into a clique (Tinney & Walker 1967 "scheme 2"; George & Liu, "The evolution of the minimum
 *    degree ordering algorithm", SIAM Review 31, 1989). The clique left by each elimination is exactly the
 *    non-zero pattern of that node's column of L, so the same pass is the symbolic factorisation.
 *  - Symbolic analysis (once per pattern): column structures, and for every pair of blocks of a column the
 *    position of the block its outer product updates (right-looking block Cholesky, George & Liu, Computer
 *    Solution of Large Sparse Positive Definite Systems, 1981, ch. 5).
 *  - Numeric factorisation and solves (every Newton step): Float64Array storage, nothing allocated.
 */

/** A pivot ≤ this × its own diagonal entry (after the earlier columns' updates) is rejected (not positive definite). */
export const BLOCK_PIVOT_TOLERANCE = 1e-14;

export interface BlockSparseSymbolic {
  /** Number of nodes. */
  readonly n: number;
  /** Block size m (m×m blocks, m unknowns per node). */
  readonly bs: number;
  /** perm[k] = node eliminated k-th; inv[node] = k. */
  readonly perm: Int32Array;
  readonly inv: Int32Array;
  /** Column k's off-diagonal blocks are entries colPtr[k] … colPtr[k+1]−1; rowOf[e] = their row (elimination position, ascending). */
  readonly colPtr: Int32Array;
  readonly rowOf: Int32Array;
  /** For column k and each pair (p ≥ q) of its entries, the slot the update L_p L_qᵀ subtracts from (updPtr[k] …). */
  readonly updPtr: Int32Array;
  readonly updTarget: Int32Array;
  /** Number of block slots: n diagonal blocks (slot = elimination position) + off-diagonal entries (slot n + e). */
  readonly slots: number;
}

/**
 * Minimum-degree ordering and symbolic factorisation of the pattern with `n` nodes and the given edges
 * (pairs of node indices, duplicates allowed, self-loops ignored).
 */
export function analyseBlockPattern(n: number, bs: number, edgesA: ArrayLike<number>, edgesB: ArrayLike<number>): BlockSparseSymbolic {
  const { perm, inv, structs } = n <= BITSET_ORDERING_MAX_NODES ? minimumDegreeBitset(n, edgesA, edgesB) : minimumDegreeSets(n, edgesA, edgesB);
  const colPtr = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) colPtr[k + 1] = colPtr[k] + structs[k].length;
  const rowOf = new Int32Array(colPtr[n]);
  for (let k = 0; k < n; k++) {
    const rows = Int32Array.from(structs[k], (v) => inv[v]).sort();
    rowOf.set(rows, colPtr[k]);
  }
  const updPtr = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) {
    const m = colPtr[k + 1] - colPtr[k];
    updPtr[k + 1] = updPtr[k] + (m * (m + 1)) / 2;
  }
  const updTarget = new Int32Array(updPtr[n]);
  for (let k = 0; k < n; k++) {
    let t = updPtr[k];
    for (let p = colPtr[k]; p < colPtr[k + 1]; p++) {
      const i = rowOf[p];
      for (let q = colPtr[k]; q <= p; q++) {
        const j = rowOf[q]; // j ≤ i: block (i, j) lives in column j (or is j's diagonal)
        updTarget[t++] = i === j ? j : n + findEntry(colPtr, rowOf, j, i);
      }
    }
  }
  return { n, bs, perm, inv, colPtr, rowOf, updPtr, updTarget, slots: n + colPtr[n] };
}

/** Graphs up to this many nodes are ordered with bitset adjacency (n²/8 bytes: 8 MiB at the limit). */
export const BITSET_ORDERING_MAX_NODES = 8192;

interface Ordering {
  readonly perm: Int32Array;
  readonly inv: Int32Array;
  /** Per elimination step: the eliminated node's remaining neighbours (node ids, any order). */
  readonly structs: ArrayLike<number>[];
}

/** Minimum degree with one Set per node (any size). Ties go to the lowest node id. */
function minimumDegreeSets(n: number, edgesA: ArrayLike<number>, edgesB: ArrayLike<number>): Ordering {
  const adj: Set<number>[] = [];
  for (let i = 0; i < n; i++) adj.push(new Set());
  for (let e = 0; e < edgesA.length; e++) {
    const a = edgesA[e],
      b = edgesB[e];
    if (a === b || a < 0 || b < 0) continue;
    adj[a].add(b);
    adj[b].add(a);
  }
  const perm = new Int32Array(n),
    inv = new Int32Array(n).fill(-1);
  const structs: number[][] = [];
  const alive = new Uint8Array(n).fill(1);
  for (let k = 0; k < n; k++) {
    let best = -1,
      bestDeg = Infinity;
    for (let v = 0; v < n; v++)
      if (alive[v] && adj[v].size < bestDeg) {
        best = v;
        bestDeg = adj[v].size;
      }
    perm[k] = best;
    inv[best] = k;
    alive[best] = 0;
    const nb = [...adj[best]];
    structs.push(nb);
    for (const u of nb) {
      adj[u].delete(best);
      for (const w of nb) if (w !== u) adj[u].add(w);
    }
    adj[best].clear();
  }
  return { perm, inv, structs };
}

/**
 * The same ordering as minimumDegreeSets (same degrees, same ties), with adjacency as bitsets: eliminating a node
 * ORs its row into its neighbours' rows, O(degree·n/32) word operations instead of O(degree²) set insertions.
 */
function minimumDegreeBitset(n: number, edgesA: ArrayLike<number>, edgesB: ArrayLike<number>): Ordering {
  const words = (n + 31) >>> 5;
  const bits = new Uint32Array(n * words);
  const degree = new Int32Array(n);
  const set = (a: number, b: number): void => {
    const w = a * words + (b >>> 5),
      m = 1 << (b & 31);
    if (!(bits[w] & m)) {
      bits[w] |= m;
      degree[a]++;
    }
  };
  for (let e = 0; e < edgesA.length; e++) {
    const a = edgesA[e],
      b = edgesB[e];
    if (a === b || a < 0 || b < 0) continue;
    set(a, b);
    set(b, a);
  }
  const perm = new Int32Array(n),
    inv = new Int32Array(n).fill(-1);
  const structs: Int32Array[] = [];
  const alive = new Uint8Array(n).fill(1);
  for (let k = 0; k < n; k++) {
    let best = -1,
      bestDeg = Infinity;
    for (let v = 0; v < n; v++)
      if (alive[v] && degree[v] < bestDeg) {
        best = v;
        bestDeg = degree[v];
      }
    perm[k] = best;
    inv[best] = k;
    alive[best] = 0;
    const nb = new Int32Array(degree[best]);
    const row = best * words;
    let count = 0;
    for (let w = 0; w < words; w++) {
      let x = bits[row + w];
      while (x !== 0) {
        const low = x & -x;
        nb[count++] = (w << 5) + (31 - Math.clz32(low));
        x ^= low;
      }
    }
    structs.push(nb);
    // each neighbour u: row(u) ← row(u) ∪ row(best) without u itself and best
    const bw = best >>> 5,
      bm = 1 << (best & 31);
    for (let i = 0; i < count; i++) {
      const u = nb[i],
        ur = u * words;
      let deg = 0;
      for (let w = 0; w < words; w++) {
        const x = bits[ur + w] | bits[row + w];
        bits[ur + w] = x;
      }
      bits[ur + bw] &= ~bm;
      bits[ur + (u >>> 5)] &= ~(1 << (u & 31));
      for (let w = 0; w < words; w++) deg += popcount(bits[ur + w]);
      degree[u] = deg;
    }
    bits.fill(0, row, row + words);
    degree[best] = 0;
  }
  return { perm, inv, structs };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function findEntry(colPtr: Int32Array, rowOf: Int32Array, col: number, row: number): number {
  let lo = colPtr[col],
    hi = colPtr[col + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (rowOf[mid] === row) return mid;
    if (rowOf[mid] < row) lo = mid + 1;
    else hi = mid - 1;
  }
  throw new Error(`block (${row}, ${col}) is not in the symbolic pattern`);
}

/**
 * Slot of block K[a][b] (nodes a, b joined by an edge of the analysed pattern, or a = b) and whether it is
 * stored transposed: the slot holds K[row][col] with row the later-eliminated node.
 */
export function blockSlot(s: BlockSparseSymbolic, a: number, b: number): { slot: number; transposed: boolean } {
  const ka = s.inv[a],
    kb = s.inv[b];
  if (ka === kb) return { slot: ka, transposed: false };
  return ka > kb
    ? { slot: s.n + findEntry(s.colPtr, s.rowOf, kb, ka), transposed: false }
    : { slot: s.n + findEntry(s.colPtr, s.rowOf, ka, kb), transposed: true };
}

/**
 * Dynamic regularisation of the pivots (Altman & Gondzio, "Regularized symmetric indefinite systems in
 * interior point methods for linear and quadratic optimization", Optim. Methods Softw. 11–12, 1999, §3):
 * in a matrix that is positive definite in exact arithmetic, a pivot at or below the rounding level of its
 * diagonal entry (`floor` × that entry, a few units of roundoff) is replaced by that level and counted in
 * `replaced`; larger pivots are kept even below BLOCK_PIVOT_TOLERANCE. The factor is then of a nearby
 * matrix; the caller refines each solve against the exact one.
 */
export interface PivotRegularization {
  /** Rounding level of a pivot, relative to its diagonal entry: smaller pivots are replaced by it. */
  readonly floor: number;
  /** Pivots replaced by the last factorisation (written by factorBlockSparse). */
  replaced: number;
}

/**
 * In-place numeric factorisation: `val` holds the lower blocks of K (m² numbers per slot, row-major,
 * diagonal blocks: only their lower triangle is read) and is overwritten by L. Returns false if a pivot is not positive
 * (with `reg`: only if a diagonal entry is not positive and finite; small pivots are regularised instead).
 */
export function factorBlockSparse(s: BlockSparseSymbolic, val: Float64Array, reg?: PivotRegularization): boolean {
  const { n, bs, colPtr, updPtr, updTarget } = s;
  const BB = bs * bs;
  if (reg) reg.replaced = 0;
  for (let k = 0; k < n; k++) {
    const d = BB * k;
    if (!denseCholesky(val, d, bs, reg)) return false;
    if (bs === 6) for (let p = colPtr[k]; p < colPtr[k + 1]; p++) solveRightLt6(val, d, 36 * (n + p));
    else for (let p = colPtr[k]; p < colPtr[k + 1]; p++) solveRightLt(val, d, val, BB * (n + p), bs);
    let t = updPtr[k];
    for (let p = colPtr[k]; p < colPtr[k + 1]; p++) {
      const op = BB * (n + p);
      if (bs === 6) {
        for (let q = colPtr[k]; q < p; q++) subtractOuter6(val, 36 * updTarget[t++], op, 36 * (n + q));
        subtractOuter6Lower(val, 36 * updTarget[t++], op); // q = p: a diagonal block, whose lower triangle is all that is read
      } else for (let q = colPtr[k]; q <= p; q++) subtractOuter(val, BB * updTarget[t++], val, op, BB * (n + q), bs);
    }
  }
  return true;
}

/** x ← K⁻¹x for the factor in `val`; x is indexed by node (m per node), work has m·n entries. */
export function solveBlockSparse(s: BlockSparseSymbolic, val: Float64Array, x: Float64Array, work: Float64Array): void {
  if (s.bs === 6) {
    solveBlockSparse6(s, val, x, work);
    return;
  }
  const { n, perm, colPtr, rowOf, bs: BLOCK } = s;
  const BB = BLOCK * BLOCK;
  for (let k = 0; k < n; k++) for (let r = 0; r < BLOCK; r++) work[BLOCK * k + r] = x[BLOCK * perm[k] + r];
  for (let k = 0; k < n; k++) {
    const d = BB * k,
      o = BLOCK * k;
    for (let r = 0; r < BLOCK; r++) {
      let v = work[o + r];
      for (let c = 0; c < r; c++) v -= val[d + BLOCK * r + c] * work[o + c];
      work[o + r] = v / val[d + BLOCK * r + r];
    }
    for (let p = colPtr[k]; p < colPtr[k + 1]; p++) {
      const b = BB * (n + p),
        oi = BLOCK * rowOf[p];
      for (let r = 0; r < BLOCK; r++) {
        let v = 0;
        for (let c = 0; c < BLOCK; c++) v += val[b + BLOCK * r + c] * work[o + c];
        work[oi + r] -= v;
      }
    }
  }
  for (let k = n - 1; k >= 0; k--) {
    const d = BB * k,
      o = BLOCK * k;
    for (let p = colPtr[k]; p < colPtr[k + 1]; p++) {
      const b = BB * (n + p),
        oi = BLOCK * rowOf[p];
      for (let c = 0; c < BLOCK; c++) {
        let v = 0;
        for (let r = 0; r < BLOCK; r++) v += val[b + BLOCK * r + c] * work[oi + r];
        work[o + c] -= v;
      }
    }
    for (let r = BLOCK - 1; r >= 0; r--) {
      let v = work[o + r];
      for (let c = r + 1; c < BLOCK; c++) v -= val[d + BLOCK * c + r] * work[o + c];
      work[o + r] = v / val[d + BLOCK * r + r];
    }
  }
  for (let k = 0; k < n; k++) for (let r = 0; r < BLOCK; r++) x[BLOCK * perm[k] + r] = work[BLOCK * k + r];
}

/**
 * solveBlockSparse for 6×6 blocks (the body-space factor's, solved once or more per Newton system): each node's
 * six unknowns held in locals and the sums unrolled, in the generic loops' arithmetic order (same results).
 */
function solveBlockSparse6(s: BlockSparseSymbolic, val: Float64Array, x: Float64Array, work: Float64Array): void {
  const { n, perm, colPtr, rowOf } = s;
  for (let k = 0; k < n; k++) {
    const o = 6 * k,
      xo = 6 * perm[k];
    for (let r = 0; r < 6; r++) work[o + r] = x[xo + r];
  }
  for (let k = 0; k < n; k++) {
    const d = 36 * k,
      o = 6 * k;
    // L_kk w = work (forward), then work_i −= L_ik w for the column's blocks
    const w0 = work[o] / val[d];
    const w1 = (work[o + 1] - val[d + 6] * w0) / val[d + 7];
    const w2 = (work[o + 2] - val[d + 12] * w0 - val[d + 13] * w1) / val[d + 14];
    const w3 = (work[o + 3] - val[d + 18] * w0 - val[d + 19] * w1 - val[d + 20] * w2) / val[d + 21];
    const w4 = (work[o + 4] - val[d + 24] * w0 - val[d + 25] * w1 - val[d + 26] * w2 - val[d + 27] * w3) / val[d + 28];
    const w5 = (work[o + 5] - val[d + 30] * w0 - val[d + 31] * w1 - val[d + 32] * w2 - val[d + 33] * w3 - val[d + 34] * w4) / val[d + 35];
    work[o] = w0;
    work[o + 1] = w1;
    work[o + 2] = w2;
    work[o + 3] = w3;
    work[o + 4] = w4;
    work[o + 5] = w5;
    for (let p = colPtr[k]; p < colPtr[k + 1]; p++) {
      const b = 36 * (n + p),
        oi = 6 * rowOf[p];
      for (let r = 0; r < 6; r++) {
        const br = b + 6 * r;
        work[oi + r] -= val[br] * w0 + val[br + 1] * w1 + val[br + 2] * w2 + val[br + 3] * w3 + val[br + 4] * w4 + val[br + 5] * w5;
      }
    }
  }
  for (let k = n - 1; k >= 0; k--) {
    const d = 36 * k,
      o = 6 * k;
    let v0 = work[o],
      v1 = work[o + 1],
      v2 = work[o + 2],
      v3 = work[o + 3],
      v4 = work[o + 4],
      v5 = work[o + 5];
    // work_k −= L_ikᵀ work_i for the column's blocks, then L_kkᵀ w = work (backward)
    for (let p = colPtr[k]; p < colPtr[k + 1]; p++) {
      const b = 36 * (n + p),
        oi = 6 * rowOf[p];
      const u0 = work[oi],
        u1 = work[oi + 1],
        u2 = work[oi + 2],
        u3 = work[oi + 3],
        u4 = work[oi + 4],
        u5 = work[oi + 5];
      v0 -= val[b] * u0 + val[b + 6] * u1 + val[b + 12] * u2 + val[b + 18] * u3 + val[b + 24] * u4 + val[b + 30] * u5;
      v1 -= val[b + 1] * u0 + val[b + 7] * u1 + val[b + 13] * u2 + val[b + 19] * u3 + val[b + 25] * u4 + val[b + 31] * u5;
      v2 -= val[b + 2] * u0 + val[b + 8] * u1 + val[b + 14] * u2 + val[b + 20] * u3 + val[b + 26] * u4 + val[b + 32] * u5;
      v3 -= val[b + 3] * u0 + val[b + 9] * u1 + val[b + 15] * u2 + val[b + 21] * u3 + val[b + 27] * u4 + val[b + 33] * u5;
      v4 -= val[b + 4] * u0 + val[b + 10] * u1 + val[b + 16] * u2 + val[b + 22] * u3 + val[b + 28] * u4 + val[b + 34] * u5;
      v5 -= val[b + 5] * u0 + val[b + 11] * u1 + val[b + 17] * u2 + val[b + 23] * u3 + val[b + 29] * u4 + val[b + 35] * u5;
    }
    v5 = v5 / val[d + 35];
    v4 = (v4 - val[d + 34] * v5) / val[d + 28];
    v3 = (v3 - val[d + 27] * v4 - val[d + 33] * v5) / val[d + 21];
    v2 = (v2 - val[d + 20] * v3 - val[d + 26] * v4 - val[d + 32] * v5) / val[d + 14];
    v1 = (v1 - val[d + 13] * v2 - val[d + 19] * v3 - val[d + 25] * v4 - val[d + 31] * v5) / val[d + 7];
    v0 = (v0 - val[d + 6] * v1 - val[d + 12] * v2 - val[d + 18] * v3 - val[d + 24] * v4 - val[d + 30] * v5) / val[d];
    work[o] = v0;
    work[o + 1] = v1;
    work[o + 2] = v2;
    work[o + 3] = v3;
    work[o + 4] = v4;
    work[o + 5] = v5;
  }
  for (let k = 0; k < n; k++) {
    const o = 6 * k,
      xo = 6 * perm[k];
    for (let r = 0; r < 6; r++) x[xo + r] = work[o + r];
  }
}

/** Dense Cholesky of the m×m block at a[o..] (lower triangle read, L written to the lower triangle, upper zeroed). */
function denseCholesky(a: Float64Array, o: number, BLOCK: number, reg?: PivotRegularization): boolean {
  for (let j = 0; j < BLOCK; j++) {
    const ajj = a[o + (BLOCK + 1) * j];
    let d = ajj;
    for (let k = 0; k < j; k++) d -= a[o + BLOCK * j + k] * a[o + BLOCK * j + k];
    // relative to the pivot's own diagonal entry, not the block's largest: a block whose diagonal holds
    // a huge barrier curvature in one direction and O(1) in the others is not singular
    if (reg) {
      // reference: the pivot's diagonal entry, or the block's largest when rounding made that ≤ 0
      let ref = ajj;
      if (!(ref > 0)) for (let i = 0; i < BLOCK; i++) ref = Math.max(ref, Math.abs(a[o + (BLOCK + 1) * i]));
      if (!(ref > 0) || !Number.isFinite(ref)) return false;
      if (!(d > reg.floor * ref)) {
        d = reg.floor * ref;
        reg.replaced++;
      }
    } else if (!(d > BLOCK_PIVOT_TOLERANCE * ajj)) return false;
    const l = Math.sqrt(d);
    a[o + (BLOCK + 1) * j] = l;
    for (let i = j + 1; i < BLOCK; i++) {
      let v = a[o + BLOCK * i + j];
      for (let k = 0; k < j; k++) v -= a[o + BLOCK * i + k] * a[o + BLOCK * j + k];
      a[o + BLOCK * i + j] = v / l;
      a[o + BLOCK * j + i] = 0;
    }
  }
  return true;
}

/** X ← X L⁻ᵀ for the m×m block X at x[ox..] and lower L at l[ol..] (row r of X: forward substitution with L). */
function solveRightLt(l: Float64Array, ol: number, x: Float64Array, ox: number, BLOCK: number): void {
  for (let r = 0; r < BLOCK; r++) {
    const row = ox + BLOCK * r;
    for (let j = 0; j < BLOCK; j++) {
      let v = x[row + j];
      for (let k = 0; k < j; k++) v -= x[row + k] * l[ol + BLOCK * j + k];
      x[row + j] = v / l[ol + (BLOCK + 1) * j];
    }
  }
}

/** solveRightLt for 6×6 blocks in one array (X at a[ox..], L at a[ol..]): unrolled, the same operations. */
function solveRightLt6(a: Float64Array, ol: number, ox: number): void {
  const l00 = a[ol],
    l11 = a[ol + 7],
    l22 = a[ol + 14],
    l33 = a[ol + 21],
    l44 = a[ol + 28],
    l55 = a[ol + 35];
  for (let r = 0; r < 6; r++) {
    const row = ox + 6 * r;
    const x0 = a[row] / l00;
    const x1 = (a[row + 1] - x0 * a[ol + 6]) / l11;
    const x2 = (a[row + 2] - x0 * a[ol + 12] - x1 * a[ol + 13]) / l22;
    const x3 = (a[row + 3] - x0 * a[ol + 18] - x1 * a[ol + 19] - x2 * a[ol + 20]) / l33;
    const x4 = (a[row + 4] - x0 * a[ol + 24] - x1 * a[ol + 25] - x2 * a[ol + 26] - x3 * a[ol + 27]) / l44;
    const x5 = (a[row + 5] - x0 * a[ol + 30] - x1 * a[ol + 31] - x2 * a[ol + 32] - x3 * a[ol + 33] - x4 * a[ol + 34]) / l55;
    a[row] = x0;
    a[row + 1] = x1;
    a[row + 2] = x2;
    a[row + 3] = x3;
    a[row + 4] = x4;
    a[row + 5] = x5;
  }
}

/**
 * subtractOuter for 6×6 blocks (the body-space factor's; its cost is almost all here): the row of P is
 * held in locals and the k-sum unrolled, same arithmetic order as the generic loop.
 */
function subtractOuter6(a: Float64Array, ot: number, op: number, oq: number): void {
  for (let r = 0; r < 6; r++) {
    const pr = op + 6 * r,
      tr = ot + 6 * r;
    const p0 = a[pr],
      p1 = a[pr + 1],
      p2 = a[pr + 2],
      p3 = a[pr + 3],
      p4 = a[pr + 4],
      p5 = a[pr + 5];
    for (let c = 0; c < 6; c++) {
      const qc = oq + 6 * c;
      a[tr + c] -= p0 * a[qc] + p1 * a[qc + 1] + p2 * a[qc + 2] + p3 * a[qc + 3] + p4 * a[qc + 4] + p5 * a[qc + 5];
    }
  }
}

/** subtractOuter6 with Q = P onto a diagonal block: only its lower triangle (c ≤ r), the same sums. */
function subtractOuter6Lower(a: Float64Array, ot: number, op: number): void {
  for (let r = 0; r < 6; r++) {
    const pr = op + 6 * r,
      tr = ot + 6 * r;
    const p0 = a[pr],
      p1 = a[pr + 1],
      p2 = a[pr + 2],
      p3 = a[pr + 3],
      p4 = a[pr + 4],
      p5 = a[pr + 5];
    for (let c = 0; c <= r; c++) {
      const qc = op + 6 * c;
      a[tr + c] -= p0 * a[qc] + p1 * a[qc + 1] + p2 * a[qc + 2] + p3 * a[qc + 3] + p4 * a[qc + 4] + p5 * a[qc + 5];
    }
  }
}

/** T ← T − P Qᵀ for m×m blocks (T at t[ot..], P at a[op..], Q at a[oq..]). */
function subtractOuter(t: Float64Array, ot: number, a: Float64Array, op: number, oq: number, BLOCK: number): void {
  for (let r = 0; r < BLOCK; r++) {
    const pr = op + BLOCK * r,
      tr = ot + BLOCK * r;
    for (let c = 0; c < BLOCK; c++) {
      const qc = oq + BLOCK * c;
      let v = 0;
      for (let k = 0; k < BLOCK; k++) v += a[pr + k] * a[qc + k];
      t[tr + c] -= v;
    }
  }
}
