/** Preallocated per-iteration record (no allocation inside solver iterations). */
import type { SolveHistory } from './types.js';

export class HistoryRecorder {
  private readonly residual: Float64Array;
  private readonly objective: Float64Array;
  private readonly sweep: Int32Array;
  private count = 0;
  constructor(maxIterations: number) {
    this.residual = new Float64Array(maxIterations + 1);
    this.objective = new Float64Array(maxIterations + 1);
    this.sweep = new Int32Array(maxIterations + 1);
  }
  /** `iteration`: after how many iterations (default: one entry per iteration, the entry's index). */
  record(residual: number, objective: number, iteration = this.count): void {
    if (this.count < this.residual.length) {
      this.residual[this.count] = residual;
      this.objective[this.count] = objective;
      this.sweep[this.count] = iteration;
      this.count++;
    }
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
