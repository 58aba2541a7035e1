/**
 * The impulses the bodies receive from a frame's contacts, Jᵀλ per dynamic body (linear impulse Σ ±P and angular
 * impulse Σ r × ±P about the body's centre, P = λn·n + λt1·t1 + λt2·t2 the contact's impulse on its body a): what a
 * λ does to the motion. When A = J M⁻¹Jᵀ is rank deficient (four coplanar corners of a box face) many λ give the
 * same Jᵀλ, and how a solver splits it over the corners depends on the contacts' order for every solver; comparing
 * Jᵀλ tells a difference in the split from one in the motion (docs/compare.md "Kinds").
 */
import type { RecordedFrame } from '../../format/recording.js';
import type { BodyMap } from './bodyMap.js';
import type { CompareContext } from './frameCompare.js';
import { exceeds, vecRel } from './tolerance.js';
import type { FrameScales } from './scales.js';

/** 6 numbers per body (linear, angular), indexed by a's body numbering; `ref` holds the centres (a's). */
function accumulate(f: RecordedFrame, toA: (body: number) => number, ref: Float64Array, out: Float64Array): void {
  const l = f.solver.lambda;
  f.contacts.forEach((c, k) => {
    const P = [0, 1, 2].map((d) => l[3 * k] * c.normal[d] + l[3 * k + 1] * c.t1[d] + l[3 * k + 2] * c.t2[d]);
    for (const [body, sign] of [
      [c.a, 1],
      [c.b, -1],
    ] as const) {
      const i = body < 0 ? -1 : toA(body);
      if (i < 0) continue;
      const o = 6 * i;
      const r = [c.point[0] - ref[3 * i], c.point[1] - ref[3 * i + 1], c.point[2] - ref[3 * i + 2]];
      const p = [sign * P[0], sign * P[1], sign * P[2]];
      out[o] += p[0];
      out[o + 1] += p[1];
      out[o + 2] += p[2];
      out[o + 3] += r[1] * p[2] - r[2] * p[1];
      out[o + 4] += r[2] * p[0] - r[0] * p[2];
      out[o + 5] += r[0] * p[1] - r[1] * p[0];
    }
  });
}

/** a's dynamic bodies whose contact impulses (Jᵀλ) differ between the runs beyond the tolerance. */
export function impulseDifferences(fa: RecordedFrame, fb: RecordedFrame, map: BodyMap, sc: FrameScales, ctx: CompareContext): Set<number> {
  const n = fa.bodies.length;
  const ref = new Float64Array(3 * n);
  fa.bodies.forEach((s, i) => ref.set(fa.pre?.[i]?.x ?? s.x, 3 * i));
  const ia = new Float64Array(6 * n),
    ib = new Float64Array(6 * n);
  const dynamicA = new Uint8Array(n);
  for (const [i] of map.dynamicPairs) dynamicA[i] = 1;
  accumulate(fa, (i) => (dynamicA[i] ? i : -1), ref, ia);
  accumulate(fb, (j) => (map.bToA[j] >= 0 && dynamicA[map.bToA[j]] ? map.bToA[j] : -1), ref, ib);
  const out = new Set<number>();
  // impulse scale; the angular one over the bodies' size
  const angular = sc.impulse * ctx.run.length;
  for (const [i] of map.dynamicPairs) {
    const o = 6 * i;
    const lin = vecRel([ia[o], ia[o + 1], ia[o + 2]], [ib[o], ib[o + 1], ib[o + 2]], 1, sc.impulse, ctx.tol);
    const ang = vecRel([ia[o + 3], ia[o + 4], ia[o + 5]], [ib[o + 3], ib[o + 4], ib[o + 5]], 1, angular, ctx.tol);
    if (exceeds(lin, ctx.tol) || exceeds(ang, ctx.tol)) out.add(i);
  }
  return out;
}
