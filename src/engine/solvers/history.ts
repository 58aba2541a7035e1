/**
 * Per-iteration record, at most maxIterations + 1 entries. Storage starts at HISTORY_INITIAL_CAPACITY entries
 * and doubles when full (amortised O(1), a handful of allocations per solve), so a solve that stops after a
 * few iterations of a large budget does not pay for the whole budget.
 */
import type { SolveHistory } from './types.js';

/** Entries allocated before the first doubling. */
export const HISTORY_INITIAL_CAPACITY = 64;

export class HistoryRecorder {
  private residual: Float64Array;
  private objective: Float64Array;
  private sweep: Int32Array;
  private count = 0;
  private readonly limit: number;
  constructor(maxIterations: number) {
    this.limit = maxIterations + 1;
    const cap = Math.min(this.limit, HISTORY_INITIAL_CAPACITY);
    this.residual = new Float64Array(cap);
    this.objective = new Float64Array(cap);
    this.sweep = new Int32Array(cap);
  }
  /** `iteration`: after how many iterations (default: one entry per iteration, the entry's index). */
  record(residual: number, objective: number, iteration = this.count): void {
    if (this.count >= this.limit) return;
    if (this.count === this.residual.length) this.grow();
    this.residual[this.count] = residual;
    this.objective[this.count] = objective;
    this.sweep[this.count] = iteration;
    this.count++;
  }
  private grow(): void {
    const cap = Math.min(this.limit, 2 * this.residual.length);
    const r = new Float64Array(cap),
      o = new Float64Array(cap),
      s = new Int32Array(cap);
    r.set(this.residual);
    o.set(this.objective);
    s.set(this.sweep);
    this.residual = r;
    this.objective = o;
    this.sweep = s;
  }
  /** `withIterations`: the history has entries at some iterations only, listed in `iterations`. */
  finish(withIterations = false): SolveHistory {
    const h = { residual: this.residual.slice(0, this.count), objective: this.objective.slice(0, this.count) };
    return withIterations ? { ...h, iterations: this.sweep.slice(0, this.count) } : h;
  }
}

/** f(λ) from Aλ already computed: ½λᵀ(Aλ) − bᵀλ. */
export function objectiveFromAlam(lambda: Float64Array, Alam: Float64Array, b: Float64Array, n: number): number {
  let f = 0;
  for (let i = 0; i < n; i++) f += lambda[i] * (0.5 * Alam[i] - b[i]);
  return f;
}
