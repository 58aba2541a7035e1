/**
 * How long OUR code runs on the extension host's event loop, per entry point (providers, event handlers,
 * webview and worker messages). The event-loop delay of the whole host also contains other extensions'
 * work — e.g. VS Code's JSON language client blocks 70–210 ms when a 200 KB .json file opens, with or
 * without Contact Lens — so the responsiveness budget (< 50 ms per callback) is checked on this figure.
 */
import { performance } from 'node:perf_hooks';

const worst = new Map<string, number>();
const calls = new Map<string, number>();

export function recordCallbackTime(name: string, ms: number): void {
  if (ms > (worst.get(name) ?? 0)) worst.set(name, ms);
  calls.set(name, (calls.get(name) ?? 0) + 1);
}

/** Runs fn and records its synchronous duration under `name`. */
export function timed<T>(name: string, fn: () => T): T {
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    recordCallbackTime(name, performance.now() - t0);
  }
}

/** Wraps a callback so every call is timed. */
export function timedCallback<A extends unknown[], R>(name: string, fn: (...args: A) => R): (...args: A) => R {
  return (...args: A) => timed(name, () => fn(...args));
}

export interface CallbackTimeReport {
  /** The longest single run of our code (ms) and its entry point. */
  readonly maxMs: number;
  readonly worst: string;
  /** Longest run per entry point (ms). */
  readonly byEntry: Record<string, number>;
  /** How many times each entry point ran. */
  readonly calls: Record<string, number>;
}

export function callbackTimeReport(): CallbackTimeReport {
  let maxMs = 0,
    name = '';
  for (const [k, v] of worst)
    if (v > maxMs) {
      maxMs = v;
      name = k;
    }
  return { maxMs, worst: name, byEntry: Object.fromEntries(worst), calls: Object.fromEntries(calls) };
}

export function resetCallbackTimes(): void {
  worst.clear();
  calls.clear();
}
