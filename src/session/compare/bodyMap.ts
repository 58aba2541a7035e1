/**
 * Which body of run b is which body of run a (docs/compare.md "Alignment"): by name when every name is unique
 * in both headers and the runs share at least one, else by index. Static bodies are not compared (they do not
 * move); bodies in one run only are listed. Header differences that change the contact problem (mass,
 * inertia, shape) are kept per body, so a divergence can name them.
 */
import type { RecordedBody, RecordingHeader } from '../../format/recording.js';
import { DEFAULT_TOLERANCE, differs, type DiffTolerance } from './tolerance.js';

export interface BodyMap {
  /** 'name' or 'index': how bodies were matched. */
  readonly by: 'name' | 'index';
  /** Per body of b: its index in a, or −1 (no partner). */
  readonly bToA: Int32Array;
  /** Per body of a: its index in b, or −1. */
  readonly aToB: Int32Array;
  /** Dynamic bodies of a with a dynamic partner in b, ascending by a's index. */
  readonly dynamicPairs: readonly (readonly [number, number])[];
  /** Names of bodies only in a / only in b. */
  readonly onlyA: readonly string[];
  readonly onlyB: readonly string[];
  /** Per matched body of a (by a's index): what differs in the headers ("mass 1 kg vs 2 kg"), if anything. */
  readonly headerDifferences: ReadonlyMap<number, string>;
}

function uniqueNames(h: RecordingHeader): boolean {
  return new Set(h.bodies.map((b) => b.name)).size === h.bodies.length;
}

const list = (v: readonly number[] | null): string => (v === null ? 'none' : `[${v.join(', ')}]`);

/** Do two lists of numbers differ (each number against the largest of both lists)? */
function numbersDiffer(a: readonly number[] | null, b: readonly number[] | null, tol: DiffTolerance): boolean {
  if (a === null || b === null || a.length !== b.length) return a !== b;
  const scale = Math.max(...a.map(Math.abs), ...b.map(Math.abs));
  return a.some((x, k) => differs(x, b[k], scale, tol));
}

/** The numbers of a shape (radius, half extents, plane normal and offset); null for a shape we do not know. */
function shapeNumbers(s: RecordedBody['shape']): number[] | null {
  if ('sphere' in s) return [s.sphere.radius];
  if ('box' in s) return [...s.box.halfExtents];
  if ('plane' in s) return [...s.plane.normal, s.plane.offset];
  return null;
}

/** What differs between two header bodies that the contact problem depends on (empty: nothing). */
function bodyDifference(a: RecordedBody, b: RecordedBody, tol: DiffTolerance): string {
  const out: string[] = [];
  if (a.static !== b.static) out.push(`static ${a.static} vs ${b.static}`);
  if (numbersDiffer(a.mass === null ? null : [a.mass], b.mass === null ? null : [b.mass], tol))
    out.push(`mass ${a.mass ?? 'static'} vs ${b.mass ?? 'static'} kg`);
  if (numbersDiffer(a.inertia, b.inertia, tol)) out.push(`inertia ${list(a.inertia)} vs ${list(b.inertia)}`);
  const sa = shapeNumbers(a.shape),
    sb = shapeNumbers(b.shape);
  if (Object.keys(a.shape)[0] !== Object.keys(b.shape)[0] || (sa && sb ? numbersDiffer(sa, sb, tol) : JSON.stringify(a.shape) !== JSON.stringify(b.shape)))
    out.push(`shape ${JSON.stringify(a.shape)} vs ${JSON.stringify(b.shape)}`);
  return out.join(', ');
}

export function mapBodies(a: RecordingHeader, b: RecordingHeader, tol: DiffTolerance = DEFAULT_TOLERANCE): BodyMap {
  const bToA = new Int32Array(b.bodies.length).fill(-1);
  const aToB = new Int32Array(a.bodies.length).fill(-1);
  const byName = uniqueNames(a) && uniqueNames(b) && b.bodies.some((x) => a.bodies.some((y) => y.name === x.name));
  if (byName) {
    const index = new Map(a.bodies.map((x, i) => [x.name, i] as const));
    b.bodies.forEach((x, j) => {
      const i = index.get(x.name);
      if (i !== undefined) {
        bToA[j] = i;
        aToB[i] = j;
      }
    });
  } else {
    for (let j = 0; j < Math.min(a.bodies.length, b.bodies.length); j++) {
      bToA[j] = j;
      aToB[j] = j;
    }
  }
  const dynamicPairs: [number, number][] = [];
  const headerDifferences = new Map<number, string>();
  a.bodies.forEach((x, i) => {
    const j = aToB[i];
    if (j < 0) return;
    const d = bodyDifference(x, b.bodies[j], tol);
    if (d) headerDifferences.set(i, d);
    if (!x.static && !b.bodies[j].static) dynamicPairs.push([i, j]);
  });
  return {
    by: byName ? 'name' : 'index',
    bToA,
    aToB,
    dynamicPairs,
    onlyA: a.bodies.filter((_, i) => aToB[i] < 0).map((x) => x.name),
    onlyB: b.bodies.filter((_, j) => bToA[j] < 0).map((x) => x.name),
    headerDifferences,
  };
}
