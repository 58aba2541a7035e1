/**
 * Contact cache for warm starting (Catto 2005): a contact persists when the same body pair and feature
 * reappear with a normal within 15° of the cached one; its λ is carried over (the solvers restore
 * feasibility by projecting onto the current cone). New contacts start at 0.
 *
 * Storage (the pile stores ~6000 contacts per step): a generation per frame, with one chain of slots per
 * body pair (a number key in an open-addressing table, no string built per contact) and the normal and λ of
 * each slot in a Float64Array.
 */
import type { ContactPoint } from '../problem.js';

/** cos 15°: a cached contact whose normal turned further is a new contact. */
export const CACHE_NORMAL_COS = Math.cos((15 * Math.PI) / 180);

/** What identifies a cached contact: body pair, feature and normal. */
export type CacheKeyed = Pick<ContactPoint, 'bodyA' | 'bodyB' | 'featureId' | 'normal'>;

/** Body indices stay below this (2²⁶), so bodyA·PAIR_STRIDE + bodyB is an exact, unique number. */
const PAIR_STRIDE = 2 ** 26;
/**
 * Below this (2¹⁵) both indices fit a small-integer key bodyA·2¹⁵ + (bodyB + 1) < 2³⁰ (bodyB may be −1, the
 * static world): V8 keeps it unboxed (a Smi), where the 2²⁶ stride made a heap number per lookup and store
 * for every pair with bodyA ≥ 32. Larger indices get −(bodyA·2²⁶ + bodyB) − 2, negative, so the two key
 * ranges never meet.
 */
const SMALL_INDEX = 2 ** 15;
const pairOf = (c: CacheKeyed): number =>
  c.bodyA < SMALL_INDEX && c.bodyB + 1 < SMALL_INDEX ? c.bodyA * SMALL_INDEX + (c.bodyB + 1) : -(c.bodyA * PAIR_STRIDE + c.bodyB) - 2;
/** Per slot: normal (3) then λ (3). */
const SLOT = 6;

/** Smallest size of a generation's pair table (a power of two). */
const TABLE_MIN = 64;

/** The contacts stored during one frame. */
class Generation {
  /**
   * Body pair → its most recently stored slot, in an open-addressing table (linear probing; Knuth, TAOCP vol. 3
   * §6.4, algorithm L) of pair keys and slot + 1 (0: empty), at most half full: no Map entry or table
   * rebuilt per frame (the pile stores ~3000 pairs per step). Older slots of the pair follow through `next`.
   */
  private pairKey = new Float64Array(TABLE_MIN);
  private pairHead = new Int32Array(TABLE_MIN);
  private pairs = 0;
  private next = new Int32Array(64);
  private feature: string[] = [];
  data = new Float64Array(SLOT * 64);
  private count = 0;

  clear(): void {
    if (this.pairs > 0) this.pairHead.fill(0);
    this.pairs = 0;
    this.count = 0;
  }

  add(c: CacheKeyed, l0: number, l1: number, l2: number): void {
    if (this.count === this.next.length) this.grow();
    if (2 * (this.pairs + 1) > this.pairHead.length) this.growTable();
    const s = this.count++;
    const pair = pairOf(c);
    const t = this.tableIndex(pair);
    const head = this.pairHead[t];
    if (head === 0) {
      this.pairKey[t] = pair;
      this.pairs++;
    }
    this.next[s] = head - 1;
    this.pairHead[t] = s + 1;
    this.feature[s] = c.featureId ?? '';
    const o = SLOT * s,
      d = this.data;
    d[o] = c.normal[0];
    d[o + 1] = c.normal[1];
    d[o + 2] = c.normal[2];
    d[o + 3] = l0;
    d[o + 4] = l1;
    d[o + 5] = l2;
  }

  /** The latest slot stored for this contact's pair and feature, or −1. */
  find(c: CacheKeyed): number {
    const f = c.featureId ?? '';
    for (let s = this.pairHead[this.tableIndex(pairOf(c))] - 1; s >= 0; s = this.next[s]) if (this.feature[s] === f) return s;
    return -1;
  }

  /** The table entry of `pair`: where it is stored, or the empty entry where it would go. */
  private tableIndex(pair: number): number {
    const keys = this.pairKey,
      heads = this.pairHead,
      mask = heads.length - 1;
    // Fibonacci hashing of the key's low 32 bits (Knuth §6.4); equality is tested on the whole key
    let t = (Math.imul(pair | 0, 0x9e3779b1) >>> 0) & mask;
    while (heads[t] !== 0 && keys[t] !== pair) t = (t + 1) & mask;
    return t;
  }

  private growTable(): void {
    const oldKey = this.pairKey,
      oldHead = this.pairHead;
    this.pairKey = new Float64Array(2 * oldKey.length);
    this.pairHead = new Int32Array(2 * oldHead.length);
    for (let t = 0; t < oldHead.length; t++) {
      if (oldHead[t] === 0) continue;
      const u = this.tableIndex(oldKey[t]);
      this.pairKey[u] = oldKey[t];
      this.pairHead[u] = oldHead[t];
    }
  }

  private grow(): void {
    const next = new Int32Array(2 * this.next.length);
    next.set(this.next);
    this.next = next;
    const data = new Float64Array(2 * this.data.length);
    data.set(this.data);
    this.data = data;
  }
}

export class ContactCache {
  private entries = new Generation();
  private next = new Generation();

  /** λ⁰ in the 3C layout for these contacts (0 where nothing matches), or undefined if nothing matched. */
  warmStart(contacts: readonly CacheKeyed[]): Float64Array | undefined {
    const out = new Float64Array(3 * contacts.length);
    const d = this.entries.data;
    let hits = 0;
    for (let i = 0; i < contacts.length; i++) {
      const c = contacts[i];
      const s = this.entries.find(c);
      if (s < 0) continue;
      const o = SLOT * s;
      const cos = d[o] * c.normal[0] + d[o + 1] * c.normal[1] + d[o + 2] * c.normal[2];
      if (cos < CACHE_NORMAL_COS) continue;
      out[3 * i] = d[o + 3];
      out[3 * i + 1] = d[o + 4];
      out[3 * i + 2] = d[o + 5];
      hits++;
    }
    return hits > 0 ? out : undefined;
  }

  /** Replaces the cache content of these contacts (entries not seen this frame expire at `expire`). */
  store(contacts: readonly CacheKeyed[], lambda: ArrayLike<number>): void {
    for (let i = 0; i < contacts.length; i++) this.next.add(contacts[i], lambda[3 * i], lambda[3 * i + 1], lambda[3 * i + 2]);
  }

  /** Ends a frame: only the contacts stored during it survive (disappeared contacts expire). */
  expire(): void {
    const old = this.entries;
    this.entries = this.next;
    old.clear();
    this.next = old;
  }
}
