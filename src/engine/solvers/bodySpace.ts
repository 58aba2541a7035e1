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
 * symbolic analysis of K = I + Bᵀ H⁻¹ B with every contact's block slots.
 */
export function bodySpace(k: ContactJacobians, rowScale?: Float64Array): BodySpace {
  const C = k.contactCount;
  let bytes = 0;
  const f64 = (len: number): Float64Array => {
    bytes += 8 * len;
    return new Float64Array(len);
  };
  // ---- bodies: compact indices of the dynamic bodies, M⁻¹ = L Lᵀ per body ----
  const bodies = k.physics.bodies;
  const node = new Int32Array(bodies.length).fill(-1);
  const ca = new Int32Array(C),
    cb = new Int32Array(C);
  let N = 0;
  for (let c = 0; c < C; c++) {
    const ct = k.contacts[c].contact;
    ca[c] = k.staticA[c] ? -1 : node[ct.bodyA] >= 0 ? node[ct.bodyA] : (node[ct.bodyA] = N++);
    cb[c] = k.staticB[c] ? -1 : node[ct.bodyB] >= 0 ? node[ct.bodyB] : (node[ct.bodyB] = N++);
  }
  const Lm = f64(36 * N);
  for (let g = 0; g < bodies.length; g++) {
    const i = node[g];
    if (i < 0) continue;
    const s = Math.sqrt(Math.max(0, bodies[g].invMass));
    for (let r = 0; r < 3; r++) Lm[36 * i + 7 * r] = s;
    psdCholesky3(bodies[g].invInertiaWorld, Lm, 36 * i + 21);
  }
  // B = diag(rowScale) J L, 3×6 per contact side (rows n, t1, t2); zero for static sides
  const BA = f64(18 * C),
    BB = f64(18 * C);
  const JA = k.physics.jacobianA,
    JB = k.physics.jacobianB;
  for (let c = 0; c < C; c++) {
    for (const [J, Bs, nd] of [
      [JA, BA, ca[c]],
      [JB, BB, cb[c]],
    ] as const) {
      if (nd < 0) continue;
      const lo = 36 * nd;
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
  }
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

/**
 * K = I + Σ_c B_cᵀ H_c⁻¹ B_c into val (lower blocks per slot, not yet factorised; of a diagonal block only its lower
 * triangle, all the factorisation reads — blockSparseCholesky.ts), with B = (BA, BB) of the
 * body space's pattern and H⁻¹ 3×3 per contact at Hinv[9c..]; G: 18 numbers of work.
 */
export function assembleBodySpace(s: BodySpace, BA: Float64Array, BB: Float64Array, Hinv: Float64Array, val: Float64Array, G: Float64Array): void {
  const { N, sym, ca, cb, slotA, slotB, slotAB, abTransposed } = s;
  const C = ca.length;
  val.fill(0);
  for (let i = 0; i < N; i++) for (let r = 0; r < BODY_DOFS; r++) val[36 * sym.inv[i] + 7 * r] = 1;
  for (let c = 0; c < C; c++) {
    const h = 9 * c;
    const a = ca[c],
      bb = cb[c];
    // G = H⁻¹ B_b (3×6), then K_bb += B_bᵀ G, K_ab += B_aᵀ G
    if (bb >= 0) {
      hinvTimesB(Hinv, h, BB, c, G);
      addBtGLower(val, 36 * slotB[c], BB, c, G);
      if (a >= 0) addBtG(val, 36 * slotAB[c], BA, c, G, abTransposed[c] === 1);
    }
    if (a >= 0) {
      hinvTimesB(Hinv, h, BA, c, G);
      addBtGLower(val, 36 * slotA[c], BA, c, G);
    }
  }
}

/** body[bo..bo+5] += B_cᵀ v[3c..3c+2]. */
export function addBtv(body: Float64Array, bo: number, Bs: Float64Array, c: number, v: Float64Array): void {
  const o = 3 * c;
  for (let j = 0; j < 6; j++) body[bo + j] += Bs[18 * c + j] * v[o] + Bs[18 * c + 6 + j] * v[o + 1] + Bs[18 * c + 12 + j] * v[o + 2];
}

/** G (3×6) = H_c⁻¹ B_c (B_c: 3×6 at Bs[18c..]). */
function hinvTimesB(hinv: Float64Array, ho: number, Bs: Float64Array, c: number, G: Float64Array): void {
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 6; j++)
      G[6 * i + j] = hinv[ho + 3 * i] * Bs[18 * c + j] + hinv[ho + 3 * i + 1] * Bs[18 * c + 6 + j] + hinv[ho + 3 * i + 2] * Bs[18 * c + 12 + j];
}

/** The lower triangle (j ≤ i) of a diagonal K block at val[o..] += B_cᵀ G (6×6; the sums as addBtG's). */
function addBtGLower(val: Float64Array, o: number, Bs: Float64Array, c: number, G: Float64Array): void {
  const bo = 18 * c;
  for (let i = 0; i < 6; i++) {
    const b0 = Bs[bo + i],
      b1 = Bs[bo + 6 + i],
      b2 = Bs[bo + 12 + i];
    for (let j = 0; j <= i; j++) val[o + 6 * i + j] += b0 * G[j] + b1 * G[6 + j] + b2 * G[12 + j];
  }
}

/** K block at val[o..] += B_cᵀ G (6×6), or its transpose Gᵀ B_c when `transposed`. */
function addBtG(val: Float64Array, o: number, Bs: Float64Array, c: number, G: Float64Array, transposed: boolean): void {
  const bo = 18 * c;
  for (let i = 0; i < 6; i++)
    for (let j = 0; j < 6; j++) {
      const v = Bs[bo + i] * G[j] + Bs[bo + 6 + i] * G[6 + j] + Bs[bo + 12 + i] * G[12 + j];
      if (transposed) val[o + 6 * j + i] += v;
      else val[o + 6 * i + j] += v;
    }
}
