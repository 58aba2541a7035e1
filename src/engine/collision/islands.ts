/**
 * Simulation islands: dynamic bodies connected (transitively) by contacts, found with union-find
 * (disjoint-set forest with path halving and union by size; Tarjan 1975, Cormen et al. CLRS ch. 21).
 *
 * Static bodies never join islands: a contact between a dynamic body and a static one (or the static
 * world, index −1) belongs to the dynamic body's island, so one ground under many separate stacks does not
 * merge them into one island. Contacts between two static bodies belong to no island.
 */

export interface Island {
  /** Dynamic body indices, ascending. */
  readonly bodies: number[];
  /** Indices into the contact list, ascending. */
  readonly contacts: number[];
}

export interface IslandOptions {
  /** Also return single-body islands of dynamic bodies without contacts (default false). */
  readonly includeIsolated?: boolean;
}

/**
 * Islands of `bodyCount` bodies joined by contacts `pairs[c] = [bodyA, bodyB]` (negative index: the
 * static world). Islands are ordered by their smallest body index; deterministic for a given input.
 */
export function buildIslands(
  bodyCount: number,
  pairs: ReadonlyArray<readonly [number, number]>,
  isStatic: ReadonlyArray<boolean>,
  options: IslandOptions = {},
): Island[] {
  const parent = new Int32Array(bodyCount),
    size = new Int32Array(bodyCount).fill(1);
  for (let i = 0; i < bodyCount; i++) parent[i] = i;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    } // path halving
    return x;
  };
  const dynamic = (i: number): boolean => {
    if (i >= bodyCount) throw new RangeError(`buildIslands: body index ${i} out of range (bodyCount ${bodyCount})`);
    return i >= 0 && !isStatic[i];
  };
  for (let c = 0; c < pairs.length; c++) {
    const a = pairs[c][0],
      b = pairs[c][1];
    if (!dynamic(a) || !dynamic(b)) continue;
    let ra = find(a),
      rb = find(b);
    if (ra === rb) continue;
    if (size[ra] < size[rb]) {
      const t = ra;
      ra = rb;
      rb = t;
    }
    parent[rb] = ra; // union by size
    size[ra] += size[rb];
  }
  // Island per root, numbered in order of the smallest body index.
  const islandOf = new Int32Array(bodyCount).fill(-1);
  const islands: { bodies: number[]; contacts: number[] }[] = [];
  for (let i = 0; i < bodyCount; i++) {
    if (isStatic[i]) continue;
    const r = find(i);
    if (islandOf[r] < 0) {
      islandOf[r] = islands.length;
      islands.push({ bodies: [], contacts: [] });
    }
    islands[islandOf[r]].bodies.push(i);
  }
  for (let c = 0; c < pairs.length; c++) {
    const a = pairs[c][0],
      b = pairs[c][1];
    const d = dynamic(a) ? a : dynamic(b) ? b : -1;
    if (d >= 0) islands[islandOf[find(d)]].contacts.push(c);
  }
  return options.includeIsolated ? islands : islands.filter((isl) => isl.contacts.length > 0);
}
