/**
 * The re-solve budget the open's thread spent before the stretch that another thread diagnoses
 * (./parallelStretch.ts), handed over in shared memory. The stretch's diagnosis takes it when it first consults its
 * budget, if the open has published it by then (the open publishes it once the budget has run out, which is final —
 * attribution.ts: once the total has left an island unsolved, nothing later is re-solved — and at the cut); else,
 * once the open has spent a good part of it (its work so far is here too), the stretch takes the budget as spent,
 * which the open checks (./stretchDiagnosis.ts).
 */
const UNKNOWN = 0,
  KNOWN = 1;

export interface BudgetSpent {
  /** Work units spent before the stretch. */
  readonly work: number;
  /** Frame at which the total budget ran out (null: it did not). */
  readonly exhaustedAt: number | null;
}

export class BudgetHandoff {
  private readonly state: Int32Array;
  private readonly values: Float64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(32)) {
    this.state = new Int32Array(buffer, 0, 1);
    // [work published, frame it ran out at (NaN: none), work spent so far]
    this.values = new Float64Array(buffer, 8, 3);
  }

  /** The open's side, after each frame: the work it has spent so far (not final). */
  progress(work: number): void {
    this.values[2] = work;
  }

  /** The work the open has spent so far (a hint: published() and take() give the final figure). */
  get spentSoFar(): number {
    return this.values[2];
  }

  /** The stretch's side: waits until the open publishes or `ms` pass. */
  waitSlice(ms: number): void {
    Atomics.wait(this.state, 0, UNKNOWN, ms);
  }

  get published(): boolean {
    return Atomics.load(this.state, 0) === KNOWN;
  }

  /** The open's side: what it spent before the stretch (final once the budget ran out). The first publication counts. */
  publish(spent: BudgetSpent): void {
    if (Atomics.load(this.state, 0) !== UNKNOWN) return;
    this.values[0] = spent.work;
    this.values[1] = spent.exhaustedAt ?? Number.NaN;
    Atomics.store(this.state, 0, KNOWN);
    Atomics.notify(this.state, 0);
  }

  /** The stretch's side: the budget spent before it (published: see `published`). */
  take(): BudgetSpent {
    if (!this.published) throw new Error('the budget spent before the stretch is not known yet');
    const at = this.values[1];
    return { work: this.values[0], exhaustedAt: Number.isNaN(at) ? null : at };
  }
}
