/** Min/max decimation of the charts' long series (charts.ts). */
/** Most points drawn per series; longer series keep the min and max of each of MAX_POINTS/2 buckets. */
export const MAX_POINTS = 1000;

export interface XY {
  x: number;
  y: number;
}

/**
 * Min/max decimation: splits the samples into buckets and keeps each bucket's extreme values in x order,
 * so spikes (energy jumps, κ blow-ups) survive. Missing values (null, or ≤ 0 on a log axis) become NaN
 * (a gap). Series with ≤ maxPoints samples are returned as they are.
 */
export function decimate(xs: readonly number[], ys: readonly (number | null)[], maxPoints = MAX_POINTS, positiveOnly = false): XY[] {
  const n = Math.min(xs.length, ys.length);
  const val = (i: number): number => {
    const y = ys[i];
    return y === null || !Number.isFinite(y) || (positiveOnly && y <= 0) ? NaN : y;
  };
  const out: XY[] = [];
  if (n <= maxPoints) {
    for (let i = 0; i < n; i++) out.push({ x: xs[i], y: val(i) });
    return out;
  }
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  for (let b = 0; b < buckets; b++) {
    const lo = Math.floor((b * n) / buckets),
      hi = Math.floor(((b + 1) * n) / buckets);
    let iMin = -1,
      iMax = -1;
    for (let i = lo; i < hi; i++) {
      const y = val(i);
      if (Number.isNaN(y)) continue;
      if (iMin < 0 || y < val(iMin)) iMin = i;
      if (iMax < 0 || y > val(iMax)) iMax = i;
    }
    if (iMin < 0) {
      out.push({ x: xs[lo], y: NaN });
      continue;
    }
    const [a, c] = iMin <= iMax ? [iMin, iMax] : [iMax, iMin];
    out.push({ x: xs[a], y: val(a) });
    if (c !== a) out.push({ x: xs[c], y: val(c) });
  }
  return out;
}
