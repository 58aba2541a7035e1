/**
 * The wire form of an island's A for the heat map: one byte per entry, a signed log-magnitude level.
 * The worker encodes it; the webview only maps levels to theme colours. A 600×600 A is then 360 KB
 * instead of 2.9 MB per frame change, and the webview's per-entry work is one table lookup.
 *   0                  a = 0
 *   1 … 127            a > 0:  1 + round(126·u)
 *   128                a is NaN or ±∞
 *   129 … 255          a < 0:  129 + round(126·u)
 * with u = clamp((log10(|a| / max|a|) + HEAT_DECADES) / HEAT_DECADES, 0, 1), max over the finite entries.
 * The full-precision A is in the frame export (Inspector: Export Frame as JSON).
 */

/** Orders of magnitude below max|a| that the colour scale spans. */
export const HEAT_DECADES = 6;
/** Levels per sign above the first (u = 0 → level 1, u = 1 → level 1 + HEAT_STEPS). */
export const HEAT_STEPS = 126;
export const HEAT_ZERO = 0;
export const HEAT_NON_FINITE = 128;
/** First level of negative entries. */
export const HEAT_NEGATIVE = 129;

export interface HeatMap {
  /** Row-major levels, size² entries. */
  readonly levels: Uint8Array;
  /** max |a| over the finite entries (0 when there is none). */
  readonly maxAbs: number;
  /** Number of NaN / ±∞ entries. */
  readonly nonFinite: number;
}

/** Top mantissa bits used for log10: the table error is ≤ log10(1 + 2⁻¹²) ≈ 1e-4 decades ≈ 0.002 levels. */
const MANTISSA_BITS = 12;
/** log10(1 + k / 2¹²) for every 12-bit mantissa prefix k (the rest of the mantissa is truncated). */
const LOG10_MANTISSA = Float64Array.from({ length: 1 << MANTISSA_BITS }, (_, k) => Math.log10(1 + k / (1 << MANTISSA_BITS)));
const LOG10_2 = Math.log10(2);
const bits = new Float64Array(1);
/** The two 32-bit halves of `bits` (little-endian: [1] = sign, 11 exponent bits, top 20 mantissa bits). */
const words = new Uint32Array(bits.buffer);

/** log10|a| for finite a ≠ 0 from its exponent and a table of the mantissa (≈ 10× faster than Math.log10). */
function log10Abs(a: number): number {
  bits[0] = a;
  const hi = words[1];
  const exp = (hi >>> 20) & 0x7ff;
  if (exp === 0) return Math.log10(Math.abs(a)); // subnormal: rare, exact
  return (exp - 1023) * LOG10_2 + LOG10_MANTISSA[(hi >>> (20 - MANTISSA_BITS)) & ((1 << MANTISSA_BITS) - 1)];
}

/** The level of a finite a ≠ 0: t = (log10|a| − log10 max + DECADES) · STEPS/DECADES = log10|a| · scale + offset. */
function finiteLevel(a: number, scale: number, offset: number): number {
  const t = log10Abs(a) * scale + offset;
  const step = t <= 0 ? 0 : t >= HEAT_STEPS ? HEAT_STEPS : Math.round(t);
  return (a > 0 ? 1 : HEAT_NEGATIVE) + step;
}

/** scale and offset of finiteLevel for the largest finite |a| (one multiply-add per entry). */
function levelScale(maxAbs: number): { scale: number; offset: number } {
  const scale = HEAT_STEPS / HEAT_DECADES;
  return { scale, offset: maxAbs > 0 ? (HEAT_DECADES - log10Abs(maxAbs)) * scale : 0 };
}

/** Encodes the leading size×size block of A (row-major). */
export function encodeHeatMap(A: Float64Array, size: number): HeatMap {
  const n = size * size;
  const levels = new Uint8Array(n);
  let maxAbs = 0,
    nonFinite = 0;
  for (let i = 0; i < n; i++) {
    const a = A[i];
    if (!Number.isFinite(a)) nonFinite++;
    else if (Math.abs(a) > maxAbs) maxAbs = Math.abs(a);
  }
  const { scale, offset } = levelScale(maxAbs);
  for (let i = 0; i < n; i++) {
    const a = A[i];
    if (a === 0) continue;
    levels[i] = Number.isFinite(a) ? finiteLevel(a, scale, offset) : HEAT_NON_FINITE;
  }
  return { levels, maxAbs, nonFinite };
}

/**
 * A symmetric matrix of 3×3 blocks given by its non-zero blocks on and above the diagonal, row by row: block
 * (i, col[p]) for p in [start[i], start[i + 1]), 9 numbers each, row-major, in val (the diagonal blocks complete);
 * every other block is zero. The island's Delassus blocks (engine/delassusBlocks.ts DelassusBlocks).
 */
export interface SymmetricBlockRows {
  readonly contactCount: number;
  readonly start: Int32Array;
  readonly col: Int32Array;
  readonly val: Float64Array;
}

/**
 * encodeHeatMap of the 3C×3C matrix these blocks make: the same levels, max|a| and NaN count (an entry of an
 * off-diagonal block stands for two entries, itself and its mirror), reading the blocks only (Σ deg² of them
 * instead of (3C)² entries: under a fifth of a busy pile island's).
 */
export function encodeHeatMapBlockRows(rows: SymmetricBlockRows): HeatMap {
  const { contactCount: C, start, col, val } = rows;
  const n = 3 * C;
  const levels = new Uint8Array(n * n);
  let maxAbs = 0;
  for (let k = 0; k < val.length; k++) {
    const x = Math.abs(val[k]);
    if (x > maxAbs && x < Infinity) maxAbs = x;
  }
  const { scale, offset } = levelScale(maxAbs);
  let nonFinite = 0;
  for (let i = 0; i < C; i++)
    for (let p = start[i]; p < start[i + 1]; p++) {
      const j = col[p],
        mirrored = j !== i;
      for (let r = 0; r < 3; r++)
        for (let s = 0; s < 3; s++) {
          const a = val[9 * p + 3 * r + s];
          if (a === 0) continue;
          let level = HEAT_NON_FINITE;
          if (Number.isFinite(a)) level = finiteLevel(a, scale, offset);
          else nonFinite += mirrored ? 2 : 1;
          levels[(3 * i + r) * n + 3 * j + s] = level;
          if (mirrored) levels[(3 * j + s) * n + 3 * i + r] = level;
        }
    }
  return { levels, maxAbs, nonFinite };
}
