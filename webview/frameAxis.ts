/**
 * Time charts plot against the session index (0…N−1: evenly spaced even when a recording skips frame
 * numbers) but label it with the recording's frame numbers, the numbers the readout, the findings and the
 * CLI use.
 */
import { niceStep } from './niceStep.js';

/** Tick label for session index `value`: its frame number, '' between frames or outside the recording. */
export function frameTickLabel(value: number, frames: readonly number[]): string {
  return Number.isInteger(value) && value >= 0 && value < frames.length ? String(frames[value]) : '';
}

/** Tooltip title for session index i: "frame 28 · t = 0.4667 s". */
export function frameTitle(i: number, frames: readonly number[], times: readonly number[]): string {
  return Number.isInteger(i) && i >= 0 && i < frames.length ? `frame ${frames[i]} · t = ${times[i].toFixed(4)} s` : '';
}

/** Index of frame number `frame` in the increasing `frames`, −1 when it is not recorded. */
function indexOfFrame(frames: readonly number[], frame: number): number {
  let lo = 0,
    hi = frames.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (frames[mid] === frame) return mid;
    if (frames[mid] < frame) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Moves the chart's evenly spaced index ticks to the indices of round frame numbers (frames 1…180:
 * ticks 1, 20, 40, … 180 rather than 1, 21, 41, …). A tick whose round frame was not recorded stays.
 * A recording of every k-th step gets multiples of k times 1, 2 or 5 × 10^n. `frames` must be increasing
 * (recordings are); returns increasing, distinct indices.
 */
export function roundFrameTicks(ticks: readonly number[], frames: readonly number[]): number[] {
  if (ticks.length < 2 || frames.length < 2) return [...ticks];
  const at = (i: number): number => frames[Math.min(frames.length - 1, Math.max(0, Math.round(i)))];
  const span = at(ticks[1]) - at(ticks[0]);
  if (!(span > 0)) return [...ticks];
  // a recording of every k-th step: round multiples of k (k = 3: 30, 60, 90) so the round frames exist
  const k = frames[1] - frames[0];
  const stride = Number.isInteger(k) && k > 0 ? k : 1;
  const step = niceStep(span / stride) * stride;
  const out: number[] = [];
  for (const t of ticks) {
    const j = indexOfFrame(frames, Math.round(at(t) / step) * step);
    const v = j >= 0 ? j : t;
    if (out.length === 0 || v > out[out.length - 1]) out.push(v);
  }
  return out;
}
