/**
 * The one JSON object of `contact-lens diff --json` (docs/compare.md "JSON"): exactly
 *   {"framesCompared": n, "firstDivergence": null | {"frame", "time", "kind", "bodies", "contacts", "field", "a", "b"},
 *    "growth": [{"frame", "time", "x", "q", "v", "w", "relative", "firstDiffering"}, …]}
 * frame and time are run a's; contacts are indices in b's frame; a and b hold the values of `field` per listed
 * contact or body (and, for a solve, each λ's merits on the shared problem).
 */
import type { RunDiff } from './runComparison.js';

export interface DiffJson {
  readonly framesCompared: number;
  readonly firstDivergence: {
    readonly frame: number;
    readonly time: number;
    readonly kind: string;
    readonly bodies: readonly string[];
    readonly contacts: readonly number[];
    readonly field: string;
    readonly a: unknown;
    readonly b: unknown;
  } | null;
  readonly growth: readonly unknown[];
}

export function diffJson(d: RunDiff): DiffJson {
  const f = d.firstDivergence;
  return {
    framesCompared: d.framesCompared,
    firstDivergence: f ? { frame: f.frame, time: f.time, kind: f.kind, bodies: f.bodies, contacts: f.contacts, field: f.field, a: f.a, b: f.b } : null,
    growth: d.growth.map((g) => ({ frame: g.frame, time: g.time, x: g.x, q: g.q, v: g.v, w: g.w, relative: g.relative, firstDiffering: g.firstDiffering })),
  };
}
