/**
 * Which contact of run b is which contact of run a in one frame (docs/compare.md "Alignment"): contacts are
 * grouped by their body pair (bodies matched by bodyMap.ts, every static body and the static world −1 as one
 * "static" side, the pair unordered); within a pair, equal `feature` ids match; where no feature of the pair
 * matches (another engine's ids, or none written), the nearest points match, closest first. What is left is a
 * contact in one run only. A pair written the other way round (a and b swapped: the normal flipped) matches
 * with `flipped` set.
 */
import type { RecordedContact } from '../../format/recording.js';
import type { BodyMap } from './bodyMap.js';

export interface ContactPair {
  /** Index in a's frame and in b's frame. */
  readonly a: number;
  readonly b: number;
  /** b's contact names the bodies the other way round (its normal points the other way). */
  readonly flipped: boolean;
}

export interface ContactMatch {
  readonly pairs: readonly ContactPair[];
  /** Contacts in one run only (indices in that run's frame), ascending. */
  readonly onlyA: readonly number[];
  readonly onlyB: readonly number[];
}

/** Identity of a contact's side for matching: a's body index, or STATIC for any static body and the world. */
const STATIC = -1;

/** Body identities of both runs in a's numbering (b's unmatched bodies get their own negative ids). */
export class PairKeys {
  private readonly idA: Int32Array;
  private readonly idB: Int32Array;
  constructor(map: BodyMap, staticA: readonly boolean[], staticB: readonly boolean[]) {
    this.idA = Int32Array.from(staticA, (s, i) => (s ? STATIC : i));
    this.idB = Int32Array.from(staticB, (s, j) => (s ? STATIC : map.bToA[j] >= 0 ? map.bToA[j] : -2 - j));
  }
  a(body: number): number {
    return body < 0 ? STATIC : this.idA[body];
  }
  b(body: number): number {
    return body < 0 ? STATIC : this.idB[body];
  }
}

/** Unordered pair key of two identities (any integers ≥ −2 − bodies). */
function pairKey(x: number, y: number): string {
  return x < y ? `${x},${y}` : `${y},${x}`;
}

interface Group {
  readonly a: number[];
  readonly b: number[];
}

const dist2 = (p: readonly number[], q: readonly number[]): number => (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2;

export function matchContacts(ca: readonly RecordedContact[], cb: readonly RecordedContact[], keys: PairKeys): ContactMatch {
  const groups = new Map<string, Group>();
  const group = (k: string): Group => {
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { a: [], b: [] }));
    return g;
  };
  for (let i = 0; i < ca.length; i++) group(pairKey(keys.a(ca[i].a), keys.a(ca[i].b))).a.push(i);
  for (let j = 0; j < cb.length; j++) group(pairKey(keys.b(cb[j].a), keys.b(cb[j].b))).b.push(j);
  const pairs: ContactPair[] = [];
  const onlyA: number[] = [],
    onlyB: number[] = [];
  const add = (i: number, j: number): void => {
    // b's contact is flipped when its body a is a's body b (or, against a static side, when a's a is static)
    pairs.push({ a: i, b: j, flipped: keys.b(cb[j].a) !== keys.a(ca[i].a) });
  };
  for (const g of groups.values()) {
    if (g.b.length === 0) {
      onlyA.push(...g.a);
      continue;
    }
    if (g.a.length === 0) {
      onlyB.push(...g.b);
      continue;
    }
    const usedA = new Uint8Array(g.a.length),
      usedB = new Uint8Array(g.b.length);
    let featureMatches = 0;
    const byFeature = new Map<string, number>();
    g.a.forEach((i, x) => {
      const f = ca[i].feature;
      if (f !== undefined && !byFeature.has(f)) byFeature.set(f, x);
    });
    g.b.forEach((j, y) => {
      const f = cb[j].feature;
      const x = f === undefined ? undefined : byFeature.get(f);
      if (x === undefined || usedA[x]) return;
      usedA[x] = 1;
      usedB[y] = 1;
      featureMatches++;
      add(g.a[x], j);
    });
    // nearest points for what features did not decide: contacts without ids, or a pair whose ids never match
    const strict = featureMatches > 0;
    const candidates: [number, number, number][] = [];
    g.a.forEach((i, x) => {
      if (usedA[x] || (strict && ca[i].feature !== undefined)) return;
      g.b.forEach((j, y) => {
        if (usedB[y] || (strict && cb[j].feature !== undefined)) return;
        candidates.push([dist2(ca[i].point, cb[j].point), x, y]);
      });
    });
    candidates.sort((p, q) => p[0] - q[0] || p[1] - q[1] || p[2] - q[2]);
    for (const [, x, y] of candidates) {
      if (usedA[x] || usedB[y]) continue;
      usedA[x] = 1;
      usedB[y] = 1;
      add(g.a[x], g.b[y]);
    }
    g.a.forEach((i, x) => {
      if (!usedA[x]) onlyA.push(i);
    });
    g.b.forEach((j, y) => {
      if (!usedB[y]) onlyB.push(j);
    });
  }
  pairs.sort((p, q) => p.a - q.a);
  onlyA.sort((x, y) => x - y);
  onlyB.sort((x, y) => x - y);
  return { pairs, onlyA, onlyB };
}
