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

/** Encodes the leading size×size block of A (row-major). */
export function encodeHeatMap(A: Float64Array, size: number): HeatMap {
  const n = size * size;
  const levels = new Uint8Array(n);
  let maxAbs = 0, nonFinite = 0;
  for (let i = 0; i < n; i++) {
    const a = A[i];
    if (!Number.isFinite(a)) nonFinite++;
    else if (Math.abs(a) > maxAbs) maxAbs = Math.abs(a);
  }
  const scale = HEAT_STEPS / HEAT_DECADES;
  for (let i = 0; i < n; i++) {
    const a = A[i];
    if (!Number.isFinite(a)) { levels[i] = HEAT_NON_FINITE; continue; }
    if (a === 0) continue;
    const t = (Math.log10(Math.abs(a) / maxAbs) + HEAT_DECADES) * scale;
    const step = t <= 0 ? 0 : t >= HEAT_STEPS ? HEAT_STEPS : Math.round(t);
    levels[i] = (a > 0 ? 1 : HEAT_NEGATIVE) + step;
  }
  return { levels, maxAbs, nonFinite };
}
