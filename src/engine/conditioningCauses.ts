/**
 * Likely causes of an ill-conditioned or rank-deficient contact matrix (docs/physics.md "Conditioning"): mass ratios,
 * duplicated or near-parallel contact rows, and redundant contacts between the same two bodies.
 */
import type { ProblemStructure } from './problem.js';
import type { Conditioning } from './conditioning.js';

/** Mass ratio from which κ(A) ~ m_max/m_min is worth reporting (rule of thumb: 100:1). */
export const MASS_RATIO_REPORT = 100;
/** Cosine between two normal Jacobian rows above which they count as (near-)duplicates. */
export const PARALLEL_ROW_COSINE = 0.9999;
/** Contacts lie on one face when every point is within this fraction of their spread from the first one's tangent plane. */
export const COPLANAR_RELATIVE = 1e-2;

/** True when the contacts share one normal direction and their points lie in one plane orthogonal to it. */
function coplanar(p: ProblemStructure, list: readonly number[]): boolean {
  const cs = list.map((i) => p.contacts![i].contact);
  const n = cs[0].normal,
    p0 = cs[0].point;
  let spread = 0,
    off = 0;
  for (const c of cs) {
    if (n[0] * c.normal[0] + n[1] * c.normal[1] + n[2] * c.normal[2] < PARALLEL_ROW_COSINE) return false;
    const d = [c.point[0] - p0[0], c.point[1] - p0[1], c.point[2] - p0[2]];
    spread = Math.max(spread, Math.hypot(d[0], d[1], d[2]));
    off = Math.max(off, Math.abs(n[0] * d[0] + n[1] * d[1] + n[2] * d[2]));
  }
  return off <= COPLANAR_RELATIVE * spread;
}

export interface ConditioningCause {
  readonly kind: 'mass-ratio' | 'duplicate-rows' | 'redundant-contacts';
  readonly contacts: readonly number[];
  /** The cause in a few words (e.g. "rank deficiency from coplanar contacts"), for summaries. */
  readonly label: string;
  readonly message: string;
}

export function conditioningCauses(p: ProblemStructure, cond?: Pick<Conditioning, 'rankDeficiency'>): ConditioningCause[] {
  const out: ConditioningCause[] = [];
  if (!p.physics || !p.contacts) return out;
  const { bodies, jacobianA: JA, jacobianB: JB } = p.physics;
  const used = new Set<number>();
  p.contacts.forEach(({ contact: c }) => {
    for (const i of [c.bodyA, c.bodyB]) if (i >= 0 && bodies[i].invMass > 0) used.add(i);
  });
  const inv = [...used].map((i) => bodies[i].invMass);
  if (inv.length >= 2) {
    const ratio = Math.max(...inv) / Math.min(...inv);
    if (ratio >= MASS_RATIO_REPORT) {
      out.push({
        kind: 'mass-ratio',
        contacts: [],
        label: `mass ratio 1:${ratio.toPrecision(3)}`,
        message: `mass ratio 1:${ratio.toPrecision(3)} between the island's bodies: κ(A) grows like the ratio (docs/physics.md "Conditioning")`,
      });
    }
  }
  // Normal rows of two contacts on the same body pair: cosine of their 12-vectors [J_a, J_b].
  const C = p.contactCount;
  const row = (c: number, k: number): number => (k < 6 ? JA[18 * c + k] : JB[18 * c + k - 6]);
  const norm = (c: number): number => {
    let s = 0;
    for (let k = 0; k < 12; k++) s += row(c, k) ** 2;
    return Math.sqrt(s);
  };
  const pairs = new Map<string, number[]>();
  for (let i = 0; i < C; i++) {
    const c = p.contacts[i].contact;
    const key = `${Math.min(c.bodyA, c.bodyB)}|${Math.max(c.bodyA, c.bodyB)}`;
    pairs.set(key, [...(pairs.get(key) ?? []), i]);
  }
  for (const [, list] of pairs) {
    for (let x = 0; x < list.length; x++) {
      for (let y = x + 1; y < list.length; y++) {
        const i = list[x],
          j = list[y];
        if (p.contacts[i].contact.bodyA !== p.contacts[j].contact.bodyA) continue;
        let d = 0;
        for (let k = 0; k < 12; k++) d += row(i, k) * row(j, k);
        const cos = d / (norm(i) * norm(j) || 1);
        if (cos > PARALLEL_ROW_COSINE)
          out.push({
            kind: 'duplicate-rows',
            contacts: [i, j],
            label: 'duplicated contacts',
            message: `contacts ${i} and ${j} have (near-)identical normal rows (cos ${cos.toFixed(6)}): duplicated or coincident points (docs/physics.md "Conditioning")`,
          });
      }
    }
    if (list.length >= 4 && cond && cond.rankDeficiency > 0) {
      const onFace = coplanar(p, list);
      const face = onFace ? 'rank deficiency from coplanar contacts: ' : '';
      out.push({
        kind: 'redundant-contacts',
        contacts: list,
        label: onFace ? 'rank deficiency from coplanar contacts' : 'rank deficiency from redundant contacts',
        message: `${face}${list.length} contacts between the same two bodies: 3 of their ${3 * list.length} rows suffice per rigid DOF pair, A has rank deficiency ${cond.rankDeficiency} (docs/physics.md "Conditioning"); λ is not unique there`,
      });
    }
  }
  return out;
}
