/**
 * Broad phase: sweep and prune (sort and sweep) of world AABBs fattened by the contact margin.
 *
 * Sort axis: the axis of greatest variance of the AABB centres (Ericson, Real-Time Collision Detection
 * §7.5.2, array-based sort and sweep). Between calls the sorted order is kept, and re-sorted by insertion
 * sort, which is O(n + swaps) when bodies moved little (temporal coherence, Baraff 1992 / Ericson §7.5.1);
 * on the first call, when the set of bodies changed, or when the axis changed, a full O(n log n) sort is
 * used instead. The sweep tests only intervals overlapping on the sort axis, so spread-out scenes cost
 * about O(n log n + n·k) for k neighbours per slab, not O(n²).
 *
 * Planes are infinite and are not swept: `planePairs` pairs every plane with every non-static collider;
 * `candidatePairs` returns both kinds. Static–static pairs are never reported. Pairs are (i, j) with
 * i < j, sorted ascending by (i, j), so the output does not depend on the sweep order.
 */
import { CONTACT_MARGIN, isPlane, isStaticCollider, writeAabb, type Collider } from './shapes.js';

export type Pair = readonly [number, number];
/** AABB fattening (m): the same for every collider, or one entry per collider. */
export type Margin = number | Float64Array;

const marginOf = (m: Margin, i: number): number => (typeof m === 'number' ? m : m[i]);

export class SweepAndPrune {
  private boxes = new Float64Array(0);
  /** Indices of the finite (non-plane) colliders, sorted by AABB min on `axis`. */
  private order = new Int32Array(0);
  private finite = new Uint8Array(0);
  private colliderCount = -1;
  private axis = -1;
  private keys: Float64Array = new Float64Array(0);
  /** Axis (0 = x, 1 = y, 2 = z) swept in the last call. */
  lastAxis = 0;
  /** Interval tests performed by the last sweep (a cost figure for benchmarks). */
  lastTests = 0;
  /** sweepPairs' [pairs found, interval tests]. */
  private readonly sweepCounts = new Float64Array(2);
  /** sweepPairs' AABBs in sweep order and their static flags (scratch, grown as needed). */
  private sorted = new Float64Array(0);
  private sortedStatic = new Uint8Array(0);

  /**
   * Overlapping pairs among the finite colliders (planes excluded), AABBs fattened by `margin`: one number
   * for all, or one per collider (a fast body's AABB grows by its speculative reach, detect.ts).
   */
  pairs(colliders: readonly Collider[], margin: Margin = CONTACT_MARGIN): Pair[] {
    const count = this.sweep(colliders, margin); // first: the sweep may replace this.keys by a larger array
    return decodePairs(this.keys, count, colliders.length);
  }

  /**
   * The pairs of `pairs` as unsorted keys i·N + j (i < j, N = colliders.length) in keys[0..count): returns the
   * key list and writes the count to `count[0]` (candidatePairKeys sorts them with the plane pairs).
   */
  pairKeys(colliders: readonly Collider[], margin: Margin, count: Int32Array): Float64Array {
    count[0] = this.sweep(colliders, margin);
    return this.keys;
  }

  /** The sweep of `pairs`: leaves the unsorted pair keys in this.keys and returns how many there are. */
  private sweep(colliders: readonly Collider[], margin: Margin): number {
    const N = colliders.length;
    if (this.boxes.length < 6 * N) this.boxes = new Float64Array(6 * N);
    const box = this.boxes;
    // AABBs and the finite set; a change of the set (count or which colliders are planes) forces a fresh order.
    let sameSet = N === this.colliderCount;
    if (this.finite.length < N) this.finite = new Uint8Array(N);
    let finite = 0;
    for (let i = 0; i < N; i++) {
      const f = writeAabb(colliders[i], marginOf(margin, i), box, 6 * i) ? 1 : 0;
      if (f !== this.finite[i]) sameSet = false;
      this.finite[i] = f;
      finite += f;
    }
    // Axis of greatest variance of the AABB centres (Ericson §7.5.2).
    const s1 = [0, 0, 0],
      s2 = [0, 0, 0];
    for (let i = 0; i < N; i++) {
      if (!this.finite[i]) continue;
      for (let k = 0; k < 3; k++) {
        const c = 0.5 * (box[6 * i + k] + box[6 * i + 3 + k]);
        s1[k] += c;
        s2[k] += c * c;
      }
    }
    let axis = 0,
      bestVar = -1;
    for (let k = 0; k < 3; k++) {
      const v = finite > 0 ? s2[k] / finite - (s1[k] / finite) ** 2 : 0;
      if (v > bestVar) {
        bestVar = v;
        axis = k;
      }
    }
    if (!sameSet) {
      this.order = new Int32Array(finite);
      let p = 0;
      for (let i = 0; i < N; i++) if (this.finite[i]) this.order[p++] = i;
    }
    const order = this.order;
    if (!sameSet || axis !== this.axis) this.fullSort(finite, axis);
    else insertionSort(order, finite, box, axis);
    this.colliderCount = N;
    this.axis = axis;
    this.lastAxis = axis;

    // Sweep in a function of its own: a long loop followed by more code here deoptimised this method's
    // on-stack-replaced code on most calls (pgsSweep.ts SweepOutcome).
    const counts = this.sweepCounts;
    if (this.sorted.length < 6 * finite) {
      this.sorted = new Float64Array(6 * finite);
      this.sortedStatic = new Uint8Array(finite);
    }
    this.keys = sweepPairs(colliders, order, finite, box, axis, this.keys, counts, this.sorted, this.sortedStatic);
    this.lastTests = counts[1];
    return counts[0];
  }

  private fullSort(count: number, axis: number): void {
    const box = this.boxes;
    const sorted = Array.from(this.order.subarray(0, count)).sort((i, j) => box[6 * i + axis] - box[6 * j + axis] || i - j);
    this.order.set(sorted);
  }
}

/**
 * The sweep of SweepAndPrune.pairs: for each box, the boxes starting before it ends on the sort axis; the
 * other two axes tested. The AABBs are first copied in sweep order into `sorted` (6 per box, with a static
 * flag per box in `sortedStatic`), so the inner loop reads memory in sequence instead of jumping through
 * `order` (the pile's 1000 boxes make ~60 000 interval tests per step). Pair keys i·N + j (i < j) into
 * `keys` (grown when full, returned); counts = [pairs, interval tests].
 */
function sweepPairs(
  colliders: readonly Collider[],
  order: Int32Array,
  finite: number,
  box: Float64Array,
  axis: number,
  keysIn: Float64Array,
  counts: Float64Array,
  sorted: Float64Array,
  sortedStatic: Uint8Array,
): Float64Array {
  const N = colliders.length;
  const a1 = (axis + 1) % 3,
    a2 = (axis + 2) % 3;
  for (let p = 0; p < finite; p++) {
    const i = order[p];
    for (let k = 0; k < 6; k++) sorted[6 * p + k] = box[6 * i + k];
    sortedStatic[p] = isStaticCollider(colliders[i]) ? 1 : 0;
  }
  let keys = keysIn,
    count = 0,
    tests = 0;
  counts[0] = 0;
  counts[1] = 0;
  for (let p = 0; p < finite; p++) {
    const op = 6 * p;
    const maxI = sorted[op + 3 + axis],
      minA1 = sorted[op + a1],
      maxA1 = sorted[op + 3 + a1],
      minA2 = sorted[op + a2],
      maxA2 = sorted[op + 3 + a2];
    const iStatic = sortedStatic[p] === 1;
    for (let q = p + 1; q < finite; q++) {
      const oq = 6 * q;
      if (sorted[oq + axis] > maxI) break;
      tests++;
      counts[1] = tests;
      if (sorted[oq + a1] > maxA1 || minA1 > sorted[oq + 3 + a1]) continue;
      if (sorted[oq + a2] > maxA2 || minA2 > sorted[oq + 3 + a2]) continue;
      if (iStatic && sortedStatic[q] === 1) continue;
      if (count === keys.length) {
        const k2 = new Float64Array(Math.max(64, 2 * count));
        k2.set(keys);
        keys = k2;
      }
      const i = order[p],
        j = order[q];
      keys[count++] = i < j ? i * N + j : j * N + i; // pair key, exact in float64 for N < 9·10⁷
      counts[0] = count;
    }
  }
  return keys;
}

/** Insertion sort of order[0..count) by AABB min on `axis`: O(count + inversions) (temporal coherence). */
function insertionSort(order: Int32Array, count: number, box: Float64Array, axis: number): void {
  for (let p = 1; p < count; p++) {
    const i = order[p],
      key = box[6 * i + axis];
    let q = p - 1;
    while (q >= 0 && box[6 * order[q] + axis] > key) {
      order[q + 1] = order[q];
      q--;
    }
    order[q + 1] = i;
  }
}

function decodePairs(keys: Float64Array, count: number, N: number): Pair[] {
  const sorted = keys.slice(0, count).sort(); // typed-array sort is numeric
  const out: Pair[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const key = sorted[k],
      i = Math.floor(key / N);
    out[k] = [i, key - i * N];
  }
  return out;
}

/** Every plane paired with every non-static collider (planes are static, infinite and not swept). */
export function planePairs(colliders: readonly Collider[]): Pair[] {
  const out: Pair[] = [];
  for (let i = 0; i < colliders.length; i++) {
    if (!isPlane(colliders[i])) continue;
    for (let j = 0; j < colliders.length; j++) {
      if (j === i || isStaticCollider(colliders[j])) continue;
      out.push(i < j ? [i, j] : [j, i]);
    }
  }
  return out.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
}

/**
 * All candidate pairs for the narrow phase: swept pairs plus plane pairs, (i, j) with i < j, sorted.
 * Pass the same `sap` every frame to benefit from temporal coherence.
 */
export function candidatePairs(colliders: readonly Collider[], sap: SweepAndPrune = new SweepAndPrune(), margin: Margin = CONTACT_MARGIN): Pair[] {
  return mergePairs(sap.pairs(colliders, margin), planePairs(colliders));
}

/**
 * candidatePairs as keys i·N + j (i < j, N = colliders.length) in one sorted Float64Array: the same pairs in the
 * same order (key order is (i, j) order, and the swept and plane pairs never coincide), without an array per pair
 * (the world's detection decodes i = ⌊key/N⌋, j = key − i·N in its loop; ~7000 pairs per step in a 1000-box pile).
 */
export function candidatePairKeys(colliders: readonly Collider[], sap: SweepAndPrune = new SweepAndPrune(), margin: Margin = CONTACT_MARGIN): Float64Array {
  const N = colliders.length;
  const count = new Int32Array(1);
  const swept = sap.pairKeys(colliders, margin, count);
  let planes = 0,
    movable = 0;
  for (let i = 0; i < N; i++) {
    if (isPlane(colliders[i])) planes++;
    else if (!isStaticCollider(colliders[i])) movable++;
  }
  const out = new Float64Array(count[0] + planes * movable);
  out.set(swept.subarray(0, count[0]));
  let k = count[0];
  // planePairs: every plane with every non-static collider
  for (let i = 0; i < N; i++) {
    if (!isPlane(colliders[i])) continue;
    for (let j = 0; j < N; j++) {
      if (j === i || isStaticCollider(colliders[j])) continue;
      out[k++] = i < j ? i * N + j : j * N + i;
    }
  }
  return out.sort(); // typed-array sort is numeric
}

/** Merge of two lists sorted by (i, j) into one sorted list (the two lists share no pair: one holds planes, the other none). */
function mergePairs(a: readonly Pair[], b: readonly Pair[]): Pair[] {
  const out: Pair[] = new Array(a.length + b.length);
  let i = 0,
    j = 0,
    k = 0;
  while (i < a.length && j < b.length) {
    const d = a[i][0] - b[j][0] || a[i][1] - b[j][1];
    out[k++] = d <= 0 ? a[i++] : b[j++];
  }
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

/** Reference O(n²) broad phase (same rules as SweepAndPrune.pairs, planes excluded); for tests and tiny scenes. */
export function bruteForcePairs(colliders: readonly Collider[], margin: Margin = CONTACT_MARGIN): Pair[] {
  const N = colliders.length,
    box = new Float64Array(6 * N),
    finite = new Uint8Array(N);
  for (let i = 0; i < N; i++) finite[i] = writeAabb(colliders[i], marginOf(margin, i), box, 6 * i) ? 1 : 0;
  const out: Pair[] = [];
  for (let i = 0; i < N; i++) {
    if (!finite[i]) continue;
    for (let j = i + 1; j < N; j++) {
      if (!finite[j] || (isStaticCollider(colliders[i]) && isStaticCollider(colliders[j]))) continue;
      let overlap = true;
      for (let k = 0; k < 3 && overlap; k++) overlap = box[6 * i + k] <= box[6 * j + 3 + k] && box[6 * j + k] <= box[6 * i + 3 + k];
      if (overlap) out.push([i, j]);
    }
  }
  return out;
}
