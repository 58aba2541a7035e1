/**
 * Axes of the convergence plot (residual per iteration, log y), as pure functions so they are tested in
 * Node: which iterations have a value, the decade range of the y axis, and "nice" x ticks.
 */
import { niceStep } from './niceStep.js';

/** One plotted sample: 1-based iteration and its residual (> 0, finite). */
export interface Sample {
  readonly iteration: number;
  readonly residual: number;
}

/** Log axis range in whole decades: 10^lo … 10^hi, hi > lo; labels every `step` decades. */
export interface DecadeAxis {
  readonly lo: number;
  readonly hi: number;
  readonly step: number;
}

/** At most this many labelled decades on the y axis; wider ranges label every 2nd, 3rd … decade. */
export const MAX_DECADE_LABELS = 8;

/** Residuals that can be drawn on a log axis (positive and finite); others are gaps. */
export function samples(residuals: readonly (number | null)[]): Sample[] {
  const out: Sample[] = [];
  residuals.forEach((r, i) => {
    if (r !== null && Number.isFinite(r) && r > 0) out.push({ iteration: i + 1, residual: r });
  });
  return out;
}

/** The whole decades that enclose [min, max] (a single value gets the decade it lies in). */
export function decadeAxis(min: number, max: number): DecadeAxis {
  let lo = Math.floor(Math.log10(min));
  let hi = Math.ceil(Math.log10(max));
  if (hi <= lo) hi = lo + 1;
  // floating log10 of an exact power of ten can land a hair off the integer
  if (Math.pow(10, lo + 1) <= min) lo++;
  if (hi - 1 > lo && Math.pow(10, hi - 1) >= max) hi--;
  return { lo, hi, step: Math.max(1, Math.ceil((hi - lo) / MAX_DECADE_LABELS)) };
}

/** "1e-6" for 10^-6 (the same labels as the time charts' log axes). */
export function decadeLabel(exponent: number): string {
  return `1e${exponent}`;
}

/** Integer x ticks on [1, last]: a step of 1, 2 or 5 × 10^k so that at most `maxTicks` labels fit. */
export function iterationTicks(last: number, maxTicks: number): number[] {
  const span = Math.max(1, last - 1);
  const step = Math.max(1, niceStep(span / Math.max(1, maxTicks - 1)));
  const out: number[] = [1];
  for (let t = step; t <= last; t += step) if (t > 1) out.push(t);
  return out;
}
