/** Joules per mechanism accumulated over a frame's islands, with per-contact shares (the one computation behind every figure). */
import type { InjectionMechanism } from './findings.js';

export class Shares {
  readonly total = new Map<InjectionMechanism, number>();
  readonly perContact = new Map<InjectionMechanism, Map<number, number>>();

  add(m: InjectionMechanism, joules: number, contact?: number): void {
    if (!(joules > 0)) return;
    this.total.set(m, (this.total.get(m) ?? 0) + joules);
    if (contact === undefined) return;
    let pc = this.perContact.get(m);
    if (!pc) this.perContact.set(m, (pc = new Map()));
    pc.set(contact, (pc.get(contact) ?? 0) + joules);
  }

  /** Spreads `joules` of mechanism m over contacts in proportion to weights (or unlisted when all weights are 0). */
  spread(m: InjectionMechanism, joules: number, weights: ReadonlyMap<number, number>): void {
    if (!(joules > 0)) return;
    let sum = 0;
    for (const w of weights.values()) if (w > 0) sum += w;
    if (!(sum > 0)) {
      this.add(m, joules);
      return;
    }
    this.total.set(m, (this.total.get(m) ?? 0) + joules);
    let pc = this.perContact.get(m);
    if (!pc) this.perContact.set(m, (pc = new Map()));
    for (const [c, w] of weights) if (w > 0) pc.set(c, (pc.get(c) ?? 0) + joules * (w / sum));
  }

  /** Contacts of mechanism m ranked by joules. */
  ranked(m: InjectionMechanism): [number, number][] {
    return [...(this.perContact.get(m) ?? new Map<number, number>()).entries()].sort((a, b) => b[1] - a[1]);
  }
}
