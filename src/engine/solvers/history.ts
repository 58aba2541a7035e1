/**
 * Per-iteration record, at most maxIterations + 1 entries, kept in plain arrays that grow as entries come (a
 * solve that stops after a few iterations of a large budget pays for those few; typed arrays only in finish()).
 */
import type { SolveHistory } from './types.js';

export class HistoryRecorder {
  private readonly residual: number[] = [];
  private readonly objective: number[] = [];
  private readonly sweep: number[] = [];
  private readonly limit: number;
  constructor(maxIterations: number) {
    this.limit = maxIterations + 1;
  }
  /** `iteration`: after how many iterations (default: one entry per iteration, the entry's index). */
  record(residual: number, objective: number, iteration = this.residual.length): void {
    if (this.residual.length >= this.limit) return;
    this.residual.push(residual);
    this.objective.push(objective);
    this.sweep.push(iteration);
  }
  /** `withIterations`: the history has entries at some iterations only, listed in `iterations`. */
  finish(withIterations = false): SolveHistory {
    // the constructors copy an array directly (Float64Array.from goes through its iterator)
    const h = { residual: new Float64Array(this.residual), objective: new Float64Array(this.objective) };
    return withIterations ? { ...h, iterations: new Int32Array(this.sweep) } : h;
  }
}

/** f(λ) from Aλ already computed: ½λᵀ(Aλ) − bᵀλ. */
export function objectiveFromAlam(lambda: Float64Array, Alam: Float64Array, b: Float64Array, n: number): number {
  let f = 0;
  for (let i = 0; i < n; i++) f += lambda[i] * (0.5 * Alam[i] - b[i]);
  return f;
}

/** Two runs' histories as one (entry k after k iterations): the first run's, then the second's after its start. */
export function joinedHistory(a: SolveHistory, b: SolveHistory): SolveHistory {
  const joined = (x: Float64Array, y: Float64Array): Float64Array => {
    const out = new Float64Array(x.length + y.length - 1);
    out.set(x);
    out.set(y.subarray(1), x.length);
    return out;
  };
  return { residual: joined(a.residual, b.residual), objective: joined(a.objective, b.objective) };
}
