/**
 * Limits on the numeric options every input (scene files, settings, the what-if form, the CLI) accepts,
 * so that a value the engine cannot take is bad input with a message, never a RangeError deep inside.
 */

/** Largest iteration budget: each solver preallocates its history, 2·(budget + 1) doubles (16 MB at 10⁶). */
export const MAX_SOLVER_ITERATIONS = 1_000_000;
/** Largest number of Armijo halvings per Newton iteration (2⁻⁶⁰ is below double precision). */
export const MAX_BACKTRACKS = 60;

/** Why `maxIterations` is not acceptable (undefined when it is: an integer in [1, MAX_SOLVER_ITERATIONS]). */
export function maxIterationsProblem(v: unknown): string | undefined {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_SOLVER_ITERATIONS) {
    return `must be an integer from 1 to ${MAX_SOLVER_ITERATIONS}`;
  }
  return undefined;
}
