/**
 * The re-solve budget the open's thread spent before the stretch that another thread diagnoses
 * (./parallelOpen.ts), handed over in shared memory: the stretch's diagnosis waits for it when it first consults
 * its budget, so that its re-solves are the ones a one-thread diagnosis makes (attribution.ts: the budget is
 * spent in frame order and, once it has left an island unsolved, nothing later is re-solved).
 */
const UNKNOWN = 0,
  KNOWN = 1,
  CANCELLED = 2;
/** Longest single wait before the stretch's thread looks again (ms). */
const WAIT_SLICE_MS = 100;

export interface BudgetSpent {
  /** Work units spent before the stretch. */
  readonly work: number;
  /** Frame at which the total budget ran out (null: it did not). */
  readonly exhaustedAt: number | null;
}

export class BudgetHandoff {
  private readonly state: Int32Array;
  private readonly values: Float64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(24)) {
    this.state = new Int32Array(buffer, 0, 1);
    this.values = new Float64Array(buffer, 8, 2);
  }

  get published(): boolean {
    return Atomics.load(this.state, 0) === KNOWN;
  }

  /** The open's side: what it spent before the stretch (final once the budget ran out). */
  publish(spent: BudgetSpent): void {
    if (Atomics.load(this.state, 0) !== UNKNOWN) return;
    this.values[0] = spent.work;
    this.values[1] = spent.exhaustedAt ?? Number.NaN;
    Atomics.store(this.state, 0, KNOWN);
    Atomics.notify(this.state, 0);
  }

  /** The open's side: the stretch is not used (a waiting stretch stops). */
  cancel(): void {
    if (Atomics.compareExchange(this.state, 0, UNKNOWN, CANCELLED) === UNKNOWN) Atomics.notify(this.state, 0);
  }

  /** The stretch's side: the budget spent before it, once published (throws when the open cancelled it). */
  take(): BudgetSpent {
    while (Atomics.load(this.state, 0) === UNKNOWN) Atomics.wait(this.state, 0, UNKNOWN, WAIT_SLICE_MS);
    if (Atomics.load(this.state, 0) === CANCELLED) throw new Error('the open no longer needs this stretch');
    const at = this.values[1];
    return { work: this.values[0], exhaustedAt: Number.isNaN(at) ? null : at };
  }
}
