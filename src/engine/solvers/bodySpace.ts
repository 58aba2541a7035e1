/**
 * Body-velocity space of an island for the sparse exact solvers (ipmSparse.ts, naturalMapSparse.ts): the
 * Delassus operator J M⁻¹ Jᵀ = B Bᵀ with B = J L (M⁻¹ = L Lᵀ per body, 3×6 per contact side), and the
 * block-sparse factor of K = I + Bᵀ H⁻¹ B for a block-diagonal H (3×3 per contact) — the body-space side of
 * the Sherman–Morrison–Woodbury identity (Golub & Van Loan, Matrix Computations, 4th ed., §2.1.4)
 *
 *   (H + B Bᵀ)⁻¹ = H⁻¹ − H⁻¹ B (I + Bᵀ H⁻¹ B)⁻¹ Bᵀ H⁻¹.
 *
 * K lives in body-velocity space (6 per dynamic body; a block K_ab ≠ 0 only where a contact joins bodies a
 * and b); static bodies and infinite-inertia directions have no columns (L = 0 there). The pattern is
 * analysed once (math/blockSparseCholesky.ts: minimum degree, symbolic factorisation); the numeric
 * factorisation is the caller's, once per Newton step.
 */
import type { ContactJacobians } from '../assembly.js';
import { analyseBlockPattern, blockSlot, type BlockSparseSymbolic } from '../math/blockSparseCholesky.js';

/** Body-space work vector length per body (v, ω). */
export const BODY_DOFS = 6;
/** A 3×3 pivot of M⁻¹'s inertia block ≤ this × its largest diagonal entry is an infinite-inertia direction (L column 0). */
export const INVERSE_MASS_PIVOT_TOLERANCE = 1e-14;

/** An island's body space: compact dynamic-body indices, B per contact side, K's symbolic factor and slots. */
export interface BodySpace {
  /** Dynamic bodies (6×6 diagonal blocks of K). */
  readonly N: number;
  /** Compact body index of each contact's side a / b (−1: static). */
  readonly ca: Int32Array;
  readonly cb: Int32Array;
  /** B = diag(rowScale) J L per contact side, 3×6 row-major at 18c (zero for a static side). */
  readonly BA: Float64Array;
  readonly BB: Float64Array;
  readonly sym: BlockSparseSymbolic;
  /** Slots of each contact's K blocks: (a, a), (b, b), (a, b) (−1 if absent), and whether (a, b) is stored transposed. */
  readonly slotA: Int32Array;
  readonly slotB: Int32Array;
  readonly slotAB: Int32Array;
  readonly abTransposed: Uint8Array;
  /** Bytes of the typed arrays above (and of L) — the accounting ipmSparse.ts reports. */
  readonly bytes: number;
}

/** Lower Cholesky factor (row-major 3×3 at out[o..], ld 6) of the symmetric PSD 3×3 m; zero columns for zero pivots. */
function psdCholesky3(m: readonly number[], out: Float64Array, o: number): void {
  const maxDiag = Math.max(m[0], m[4], m[8], 0);
  const a = [m[0], m[3], m[4], m[6], m[7], m[8]]; // lower triangle: 00, 10, 11, 20, 21, 22
  const L = [0, 0, 0, 0, 0, 0];
  const idx = (i: number, j: number): number => (i * (i + 1)) / 2 + j;
  for (let j = 0; j < 3; j++) {
    let d = a[idx(j, j)];
    for (let k = 0; k < j; k++) d -= L[idx(j, k)] * L[idx(j, k)];
    if (!(d > INVERSE_MASS_PIVOT_TOLERANCE * maxDiag)) continue; // column stays 0
    const l = Math.sqrt(d);
    L[idx(j, j)] = l;
    for (let i = j + 1; i < 3; i++) {
      let v = a[idx(i, j)];
      for (let k = 0; k < j; k++) v -= L[idx(i, k)] * L[idx(j, k)];
      L[idx(i, j)] = v / l;
    }
  }
  for (let i = 0; i < 3; i++) for (let j = 0; j <= i; j++) out[o + 6 * i + j] = L[idx(i, j)];
}

/**
 * The body space of the island: B = diag(rowScale) J L (rowScale per contact row, 1 when absent) and the
 * symbolic analysis of K = I + Bᵀ H⁻¹ B with every contact's block slots. `pattern`: another body space of the
 * same island (same Jacobians, e.g. the sparse Newton's natural map, handed to its interior point) whose body
 * indices, symbolic analysis and slots are reused — K's pattern depends only on which bodies the contacts join, so
 * the minimum-degree ordering is the same; only B is formed anew (its bytes alone are counted).
 */
export function bodySpace(k: ContactJacobians, rowScale?: Float64Array, pattern?: BodySpace): BodySpace {
  const C = k.contactCount;
  let bytes = 0;
  const f64 = (len: number): Float64Array => {
    bytes += 8 * len;
    return new Float64Array(len);
  };
  // ---- bodies: compact indices of the dynamic bodies, M⁻¹ = L Lᵀ per body ----
  const bodies = k.physics.bodies;
  const node = new Int32Array(bodies.length).fill(-1);
  let ca: Int32Array, cb: Int32Array;
  let N = 0;
  if (pattern) {
    ({ ca, cb, N } = pattern);
    for (let c = 0; c < C; c++) {
      const ct = k.contacts[c].contact;
      if (ca[c] >= 0) node[ct.bodyA] = ca[c];
      if (cb[c] >= 0) node[ct.bodyB] = cb[c];
    }
  } else {
    ca = new Int32Array(C);
    cb = new Int32Array(C);
    for (let c = 0; c < C; c++) {
      const ct = k.contacts[c].contact;
      ca[c] = k.staticA[c] ? -1 : node[ct.bodyA] >= 0 ? node[ct.bodyA] : (node[ct.bodyA] = N++);
      cb[c] = k.staticB[c] ? -1 : node[ct.bodyB] >= 0 ? node[ct.bodyB] : (node[ct.bodyB] = N++);
    }
  }
  const { BA, BB } = scaledB(k, rowScale, node, N, ca, cb, f64);
  if (pattern) return { ...pattern, BA, BB, bytes };
  // ---- symbolic analysis of K = I + Bᵀ H⁻¹ B, slots of every contact's blocks ----
  const sym = analyseBlockPattern(N, BODY_DOFS, ca, cb);
  bytes += 4 * (sym.perm.length + sym.inv.length + sym.colPtr.length + sym.rowOf.length + sym.updPtr.length + sym.updTarget.length);
  const slotA = new Int32Array(C),
    slotB = new Int32Array(C),
    slotAB = new Int32Array(C).fill(-1);
  const abTransposed = new Uint8Array(C);
  bytes += 13 * C;
  for (let c = 0; c < C; c++) {
    slotA[c] = ca[c] >= 0 ? blockSlot(sym, ca[c], ca[c]).slot : -1;
    slotB[c] = cb[c] >= 0 ? blockSlot(sym, cb[c], cb[c]).slot : -1;
    if (ca[c] >= 0 && cb[c] >= 0) {
      const s = blockSlot(sym, ca[c], cb[c]);
      slotAB[c] = s.slot;
      abTransposed[c] = s.transposed ? 1 : 0;
    }
  }
  return { N, ca, cb, BA, BB, sym, slotA, slotB, slotAB, abTransposed, bytes };
}

/** B = diag(rowScale) J L per contact side (3×6; zero for a static side), with L Lᵀ = M⁻¹ of each dynamic body (`node`: its compact index, −1 if static). */
function scaledB(
  k: ContactJacobians,
  rowScale: Float64Array | undefined,
  node: Int32Array,
  N: number,
  ca: Int32Array,
  cb: Int32Array,
  f64: (len: number) => Float64Array,
): { BA: Float64Array; BB: Float64Array } {
  const C = k.contactCount;
  const bodies = k.physics.bodies;
  const Lm = f64(36 * N);
  for (let g = 0; g < bodies.length; g++) {
    const i = node[g];
    if (i < 0) continue;
    const s = Math.sqrt(Math.max(0, bodies[g].invMass));
    for (let r = 0; r < 3; r++) Lm[36 * i + 7 * r] = s;
    psdCholesky3(bodies[g].invInertiaWorld, Lm, 36 * i + 21);
  }
  const BA = f64(18 * C),
    BB = f64(18 * C);
  for (let c = 0; c < C; c++) {
    if (ca[c] >= 0) sideB(k.physics.jacobianA, BA, c, 36 * ca[c], Lm, rowScale);
    if (cb[c] >= 0) sideB(k.physics.jacobianB, BB, c, 36 * cb[c], Lm, rowScale);
  }
  return { BA, BB };
}

/** Bs[18c..] = diag(rowScale) J_c L for one contact side (J at J[18c..], L at Lm[lo..], upper triangle of each 6-column). */
function sideB(J: Float64Array, Bs: Float64Array, c: number, lo: number, Lm: Float64Array, rowScale: Float64Array | undefined): void {
  for (let r = 0; r < 3; r++) {
    const jr = 18 * c + 6 * r,
      d = rowScale ? rowScale[3 * c + r] : 1;
    for (let j = 0; j < 6; j++) {
      let v = 0;
      for (let p = j; p < 6; p++) v += J[jr + p] * Lm[lo + 6 * p + j];
      Bs[jr + j] = d * v;
    }
  }
}

/**
 * K = I + Σ_c B_cᵀ H_c⁻¹ B_c into val (lower blocks per slot, not yet factorised; of a diagonal block only its lower
 * triangle, all the factorisation reads — blockSparseCholesky.ts), with B = (BA, BB) of the
 * body space's pattern and H⁻¹ 3×3 per contact at Hinv[9c..]. Column j of G = H⁻¹ B_b is formed in three locals and
 * added at once to K_bb's lower triangle and to K_ab (then the same for side a): the sums of the 3×6 G and the
 * 6×6 products B_bᵀ G, B_aᵀ G, term for term in the order of the written-out products (the same K bit for bit);
 * this is a hot kernel of every Newton step of the sparse solvers.
 */
export function assembleBodySpace(s: BodySpace, BA: Float64Array, BB: Float64Array, Hinv: Float64Array, val: Float64Array): void {
  const { N, sym, ca, cb, slotA, slotB, slotAB, abTransposed } = s;
  const C = ca.length;
  val.fill(0);
  for (let i = 0; i < N; i++) for (let r = 0; r < BODY_DOFS; r++) val[36 * sym.inv[i] + 7 * r] = 1;
  for (let c = 0; c < C; c++) {
    const h = 9 * c;
    const a = ca[c],
      bb = cb[c];
    // K_bb += B_bᵀ H⁻¹ B_b, K_ab += B_aᵀ H⁻¹ B_b, then K_aa += B_aᵀ H⁻¹ B_a
    if (bb >= 0) addSide(val, 36 * slotB[c], Hinv, h, BB, 18 * c, a >= 0 ? 36 * slotAB[c] : -1, BA, abTransposed[c] === 1);
    if (a >= 0) addSide(val, 36 * slotA[c], Hinv, h, BA, 18 * c, -1, BA, false);
  }
}

/**
 * One contact side's terms (assembleBodySpace): per column j of G = H⁻¹ B (B at Bs[bo..], 3×6), the diagonal block at
 * val[od..] gets rows i ≥ j of Bᵀ G, and, when oab ≥ 0, the block at val[oab..] all rows of B_otherᵀ G (B_other at
 * Bo[bo..]; stored transposed when `transposed`).
 */
function addSide(
  val: Float64Array,
  od: number,
  Hinv: Float64Array,
  h: number,
  Bs: Float64Array,
  bo: number,
  oab: number,
  Bo: Float64Array,
  transposed: boolean,
): void {
  const h0 = Hinv[h],
    h1 = Hinv[h + 1],
    h2 = Hinv[h + 2],
    h3 = Hinv[h + 3],
    h4 = Hinv[h + 4],
    h5 = Hinv[h + 5],
    h6 = Hinv[h + 6],
    h7 = Hinv[h + 7],
    h8 = Hinv[h + 8];
  for (let j = 0; j < 6; j++) {
    const b0 = Bs[bo + j],
      b1 = Bs[bo + 6 + j],
      b2 = Bs[bo + 12 + j];
    // G[j], G[6 + j], G[12 + j] (hinv row · B column, as hinvTimesB summed them)
    const g0 = h0 * b0 + h1 * b1 + h2 * b2,
      g1 = h3 * b0 + h4 * b1 + h5 * b2,
      g2 = h6 * b0 + h7 * b1 + h8 * b2;
    for (let i = j; i < 6; i++) val[od + 6 * i + j] += Bs[bo + i] * g0 + Bs[bo + 6 + i] * g1 + Bs[bo + 12 + i] * g2;
    if (oab < 0) continue;
    if (transposed) for (let i = 0; i < 6; i++) val[oab + 6 * j + i] += Bo[bo + i] * g0 + Bo[bo + 6 + i] * g1 + Bo[bo + 12 + i] * g2;
    else for (let i = 0; i < 6; i++) val[oab + 6 * i + j] += Bo[bo + i] * g0 + Bo[bo + 6 + i] * g1 + Bo[bo + 12 + i] * g2;
  }
}

/** body[bo..bo+5] += B_cᵀ v[3c..3c+2] (written out: the same sums as a loop over the six entries). */
export function addBtv(body: Float64Array, bo: number, Bs: Float64Array, c: number, v: Float64Array): void {
  const o = 3 * c,
    b = 18 * c;
  const v0 = v[o],
    v1 = v[o + 1],
    v2 = v[o + 2];
  body[bo] += Bs[b] * v0 + Bs[b + 6] * v1 + Bs[b + 12] * v2;
  body[bo + 1] += Bs[b + 1] * v0 + Bs[b + 7] * v1 + Bs[b + 13] * v2;
  body[bo + 2] += Bs[b + 2] * v0 + Bs[b + 8] * v1 + Bs[b + 14] * v2;
  body[bo + 3] += Bs[b + 3] * v0 + Bs[b + 9] * v1 + Bs[b + 15] * v2;
  body[bo + 4] += Bs[b + 4] * v0 + Bs[b + 10] * v1 + Bs[b + 16] * v2;
  body[bo + 5] += Bs[b + 5] * v0 + Bs[b + 11] * v1 + Bs[b + 17] * v2;
}

/**
 * s + Σ_j Bs[o + j]·v[p + j] over six entries, added one at a time from s (left to right, as the loop
 * `for (j < 6) s += …` adds them): one row of a contact side's B times a body's velocity.
 */
export function addRowDot6(s: number, Bs: Float64Array, o: number, v: Float64Array, p: number): number {
  return s + Bs[o] * v[p] + Bs[o + 1] * v[p + 1] + Bs[o + 2] * v[p + 2] + Bs[o + 3] * v[p + 3] + Bs[o + 4] * v[p + 4] + Bs[o + 5] * v[p + 5];
}
