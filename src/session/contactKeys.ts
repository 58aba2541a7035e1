/**
 * A contact's identity across frames — its body pair and the writer's feature id (docs/recording-format.md)
 * — interned as a small integer. The diagnosis, its non-physical tracks and the inspector's λ columns all
 * follow contacts from frame to frame; one table, one Map lookup per contact and frame, no key string built
 * on the hot path (a 1000-box pile has ~780 000 contact records).
 */
import type { RecordedContact, RecordedFrame } from '../format/recording.js';

/** Body indices below this make a pair number that V8 keeps as a small integer (fast Map keys, no heap number). */
const SMALL_PAIR = 32767;
/**
 * A body pair as one number (−1 is the static world): a·2¹⁵ + b + 1 (< 2³⁰) for scenes below 32 767 bodies,
 * else a negative number from the full range; unique either way.
 */
export const pairNumber = (c: { readonly a: number; readonly b: number }): number =>
  c.a < SMALL_PAIR && c.b < SMALL_PAIR ? c.a * 32768 + c.b + 1 : -((c.a + 1) * 1073741824 + (c.b + 1));

/** The key's text form, as the protocol carries it: "a|b|feature" (feature "" when the writer gives none). */
export const contactKeyText = (c: Pick<RecordedContact, 'a' | 'b' | 'feature'>): string => `${c.a}|${c.b}|${c.feature ?? ''}`;

/** A key's text form ("a|b|feature") read back (null: not one); feature "" is no feature. */
function parseKeyText(text: string): { a: number; b: number; feature: string | undefined } | null {
  const i = text.indexOf('|'),
    j = i < 0 ? -1 : text.indexOf('|', i + 1);
  if (j < 0) return null;
  const a = Number(text.slice(0, i)),
    b = Number(text.slice(i + 1, j)),
    feature = text.slice(j + 1);
  return Number.isInteger(a) && Number.isInteger(b) ? { a, b, feature: feature === '' ? undefined : feature } : null;
}

export class ContactKeyTable {
  private readonly byPair = new Map<number, Map<string, number>>();
  private readonly texts: string[] = [];
  private lastFrame: RecordedFrame | undefined;
  private lastIds = new Int32Array(0);
  private lastPairs = new Float64Array(0);

  /** Number of distinct contacts seen so far (ids are 0 … size − 1). */
  get size(): number {
    return this.texts.length;
  }

  /** The id of one contact (a new id when it was never seen). */
  id(c: Pick<RecordedContact, 'a' | 'b' | 'feature'>): number {
    return this.idOfPair(pairNumber(c), c);
  }

  private idOfPair(p: number, c: Pick<RecordedContact, 'a' | 'b' | 'feature'>): number {
    let m = this.byPair.get(p);
    if (!m) this.byPair.set(p, (m = new Map()));
    const f = c.feature ?? '';
    let id = m.get(f);
    if (id === undefined) {
      id = this.texts.length;
      m.set(f, id);
      this.texts.push(contactKeyText(c));
    }
    return id;
  }

  /** The ids of a frame's contacts, in its order; computed once per frame (the same array for every caller). */
  ids(f: RecordedFrame): Int32Array {
    if (f !== this.lastFrame) this.load(f);
    return this.lastIds;
  }

  /** The pair numbers (pairNumber) of a frame's contacts, in its order; computed once per frame. */
  pairs(f: RecordedFrame): Float64Array {
    if (f !== this.lastFrame) this.load(f);
    return this.lastPairs;
  }

  private load(f: RecordedFrame): void {
    const C = f.contacts.length,
      ids = new Int32Array(C),
      pairs = new Float64Array(C);
    for (let c = 0; c < C; c++) {
      const ct = f.contacts[c],
        p = pairNumber(ct);
      pairs[c] = p;
      ids[c] = this.idOfPair(p, ct);
    }
    this.lastFrame = f;
    this.lastIds = ids;
    this.lastPairs = pairs;
  }

  /** The id of a key's text form ("a|b|feature"), a new id when it was never seen (null: not a key's text). */
  idOfText(text: string): number | null {
    const k = parseKeyText(text);
    return k ? this.idOfPair(pairNumber(k), k) : null;
  }

  /** The id of a key's text form, or −1 when no such contact was seen. */
  find(text: string): number {
    const k = parseKeyText(text);
    return k ? (this.byPair.get(pairNumber(k))?.get(k.feature ?? '') ?? -1) : -1;
  }

  text(id: number): string {
    return this.texts[id];
  }
}
