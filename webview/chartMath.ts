/**
 * Pure helpers of the time charts (tested in Node): the energy chart's relative series, two y-axes whose
 * zeros line up, and the findings track's clusters.
 */
import { niceStep } from './niceStep.js';

/** xs − xs[0] (ΔE since the first frame), null where a value is missing; all null when the first is missing. */
export function relativeTo0(xs: readonly (number | null)[]): (number | null)[] {
  const x0 = xs[0];
  return xs.map((x) => (x === null || x0 === null || x0 === undefined || !Number.isFinite(x) ? null : x - x0));
}

export interface AxisRange {
  readonly min: number;
  readonly max: number;
  /** Tick spacing (a 1-2-5 step): zero is a tick on both axes. */
  readonly step: number;
}

/** Intervals of both axes: zero lies on the same grid line of each. */
export const ALIGNED_INTERVALS = 6;

/**
 * Ranges for two y-axes of one chart, each enclosing its data and zero, with zero on the same grid line: both
 * get ALIGNED_INTERVALS intervals of a 1-2-5 step, k of them below zero, k enough for the axis that reaches
 * lowest in proportion. (An injection chart's per-frame bars are ≥ 0 and its E − E₀ line dips below zero:
 * without this, the two zeros sit at different heights and the bars look like a loss.)
 */
export function alignedZeroRanges(a: { min: number; max: number }, b: { min: number; max: number }): [AxisRange, AxisRange] {
  const n = ALIGNED_INTERVALS;
  const lo = (r: { min: number }): number => Math.min(0, Number.isFinite(r.min) ? r.min : 0);
  const hi = (r: { max: number }): number => Math.max(0, Number.isFinite(r.max) ? r.max : 0);
  const frac = (r: { min: number; max: number }): number => {
    const span = hi(r) - lo(r);
    return span > 0 ? -lo(r) / span : 0;
  };
  const f = Math.max(frac(a), frac(b));
  // below zero: at least one interval when any axis goes negative, and at least one interval above
  const k = f > 0 ? Math.min(n - 1, Math.max(1, Math.ceil(f * n - 1e-9))) : 0;
  const range = (r: { min: number; max: number }): AxisRange => {
    const need = Math.max(hi(r) / (n - k), k > 0 ? -lo(r) / k : 0);
    const step = need > 0 ? niceStep(need) : 1;
    return { min: k > 0 ? -k * step : 0, max: (n - k) * step, step };
  };
  return [range(a), range(b)];
}

/** A finding's marker on the findings track. */
export interface TrackMarker {
  /** Pixel position along the track. */
  readonly x: number;
  /** Session index of the finding's frame. */
  readonly index: number;
  /** 2 error, 1 warning, 0 info: a cluster shows its most severe. */
  readonly rank: number;
}

export interface TrackCluster {
  /** Mean pixel position of its markers. */
  readonly x: number;
  /** Session index of its first finding (a click seeks there). */
  readonly first: number;
  readonly last: number;
  readonly count: number;
  readonly rank: number;
}

/**
 * Groups markers closer than `gap` pixels into one cluster (sorted by x; a cluster grows while the next marker
 * is within `gap` of its last one): 52 findings in 40 frames of a 600-pixel track become a handful of marks
 * with counts, not a barcode.
 */
export function clusterMarkers(markers: readonly TrackMarker[], gap: number): TrackCluster[] {
  const sorted = [...markers].filter((m) => Number.isFinite(m.x)).sort((p, q) => p.x - q.x || p.index - q.index);
  const out: TrackCluster[] = [];
  let cur: { sum: number; lastX: number; first: number; last: number; count: number; rank: number } | null = null;
  const flush = (): void => {
    if (cur) out.push({ x: cur.sum / cur.count, first: cur.first, last: cur.last, count: cur.count, rank: cur.rank });
  };
  for (const m of sorted) {
    if (cur && m.x - cur.lastX <= gap) {
      cur.sum += m.x;
      cur.lastX = m.x;
      cur.count++;
      cur.first = Math.min(cur.first, m.index);
      cur.last = Math.max(cur.last, m.index);
      cur.rank = Math.max(cur.rank, m.rank);
    } else {
      flush();
      cur = { sum: m.x, lastX: m.x, first: m.index, last: m.index, count: 1, rank: m.rank };
    }
  }
  flush();
  return out;
}
