/**
 * Monotonic milliseconds for solver timings. `performance.now()` exists in Node ≥ 16, browsers and
 * workers; it is reached through this one declaration so the engine type-checks with no DOM/Node types.
 */
const clock = (globalThis as unknown as { readonly performance: { now(): number } }).performance;

export function nowMs(): number {
  return clock.now();
}
