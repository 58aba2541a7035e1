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
  // t = (log10|a| − log10 max + DECADES) · STEPS/DECADES, as one multiply-add per entry
  const scale = HEAT_STEPS / HEAT_DECADES;
  const offset = maxAbs > 0 ? (HEAT_DECADES - log10Abs(maxAbs)) * scale : 0;
  for (let i = 0; i < n; i++) {
    const a = A[i];
    if (a === 0) continue;
    if (!Number.isFinite(a)) {
      levels[i] = HEAT_NON_FINITE;
      continue;
    }
    const t = log10Abs(a) * scale + offset;
    const step = t <= 0 ? 0 : t >= HEAT_STEPS ? HEAT_STEPS : Math.round(t);
    levels[i] = (a > 0 ? 1 : HEAT_NEGATIVE) + step;
  }
  return { levels, maxAbs, nonFinite };
}
