/**
 * The kind of the first divergence (docs/compare.md "Kinds"), decided stage by stage of a step:
 *   contact-set  a contact exists in one run only (detection, margins);
 *   problem      the same contacts, other problem data: contact data (μ, e, point, normal, depth, gap), the
 *                bodies' mass or inertia (A), the pre-solve state, the recorded A or b, or b rebuilt from each
 *                run's header (its terms: velocity, restitution, bias, speculative);
 *   solve        the same problem, another λ: both λ's merits on the shared problem (rebuild.ts) say which run
 *                solved it better;
 *   state        the same λ, another post-step state (integration).
 */
import { buildIslands } from '../../engine/index.js';
import type { RecordedContact, RecordedFrame, RecordingHeader } from '../../format/recording.js';
import type { BodyMap } from './bodyMap.js';
import type { ContactPair } from './contactMatch.js';
import { contactRotation, exceeds, type CompareContext, type FieldDifference, type FrameComparison, numRel, rotated } from './frameCompare.js';
import { islandMerits, rebuildFrame, type Merit } from './rebuild.js';
import { impulseDifferences } from './bodyImpulses.js';
import type { FrameScales } from './scales.js';
import type { DiffTolerance } from './tolerance.js';
import { formatNumber } from '../../engine/index.js';

export type DivergenceKind = 'contact-set' | 'problem' | 'solve' | 'state';
export const DIVERGENCE_KINDS: readonly DivergenceKind[] = ['contact-set', 'problem', 'solve', 'state'];

/** One run's side of the divergence: the values of `field` per listed contact or body, and what else applies. */
export interface DivergenceSide {
  readonly values: readonly unknown[];
  readonly [extra: string]: unknown;
}

export interface Divergence {
  /** Run a's frame number and time (b's are `frameB`, `timeB`). */
  readonly frame: number;
  readonly time: number;
  readonly frameB: number;
  readonly timeB: number;
  readonly kind: DivergenceKind;
  /** Names of the bodies involved. */
  readonly bodies: readonly string[];
  /** Indices of the contacts involved, in b's frame. */
  readonly contacts: readonly number[];
  readonly field: string;
  readonly a: DivergenceSide;
  readonly b: DivergenceSide;
  /** Plain-text lines: every difference of the frame by stage, and the solve's merits (for the CLI and the inspector). */
  readonly lines: readonly string[];
  /** With kind 'solve': which run's λ is closer to solving the shared problem ('a', 'b' or 'tie'), and by which measure. */
  readonly closer?: { readonly run: 'a' | 'b' | 'tie'; readonly measure: 'kkt' | 'coulomb' };
}

export interface DivergenceInput {
  readonly headerA: RecordingHeader;
  readonly headerB: RecordingHeader;
  readonly fa: RecordedFrame;
  readonly fb: RecordedFrame;
  /** The frames before (frame number − 1), when available: the pose a frame without pre.x/q was solved at. */
  readonly prevA?: RecordedFrame;
  readonly prevB?: RecordedFrame;
  readonly comparison: FrameComparison;
  readonly scales: FrameScales;
  readonly ctx: CompareContext;
}

const r3 = (v: ArrayLike<number>, o: number): number[] => [v[o], v[o + 1], v[o + 2]];

function bodyName(h: RecordingHeader, i: number): string {
  return i < 0 ? 'world' : h.bodies[i].name;
}

/** Names of the bodies a's contacts (and b's) join, in order of first appearance, without the static side. */
function contactBodies(h: RecordingHeader, cs: readonly RecordedContact[], idx: readonly number[], into: Set<string>): void {
  for (const i of idx) for (const body of [cs[i].a, cs[i].b]) if (body >= 0 && !h.bodies[body].static) into.add(h.bodies[body].name);
}

/** contactBodies of the a side of differing contact pairs. */
function diffBodies(h: RecordingHeader, cs: readonly RecordedContact[], diffs: readonly { readonly a: number }[]): Set<string> {
  const names = new Set<string>();
  contactBodies(
    h,
    cs,
    diffs.map((d) => d.a),
    names,
  );
  return names;
}

function describeContact(h: RecordingHeader, c: RecordedContact, index: number): Record<string, unknown> {
  return {
    index,
    bodies: [bodyName(h, c.a), bodyName(h, c.b)],
    ...(c.feature !== undefined ? { feature: c.feature } : {}),
    point: c.point,
    depth: c.depth,
    ...(c.gap ? { gap: c.gap } : {}),
  };
}

/** The value of a contact field for the report (b's normal as written: the flip is in the lines). */
function contactValue(c: RecordedContact, field: string): unknown {
  switch (field) {
    case 'point':
      return c.point;
    case 'normal':
      return c.normal;
    case 't1':
      return c.t1;
    case 't2':
      return c.t2;
    case 'depth':
      return c.depth;
    case 'gap':
      return c.gap ?? 0;
    case 'mu':
      return c.mu;
    default:
      return c.e;
  }
}

/** The field most differences share (ties: the larger difference), and its differences. */
function dominant(diffs: readonly FieldDifference[]): { field: string; diffs: FieldDifference[] } {
  const by = new Map<string, FieldDifference[]>();
  for (const d of diffs) {
    const l = by.get(d.field);
    if (l) l.push(d);
    else by.set(d.field, [d]);
  }
  let best: FieldDifference[] = [];
  for (const l of by.values()) {
    const worst = (x: FieldDifference[]): number => Math.max(...x.map((d) => d.rel));
    if (l.length > best.length || (l.length === best.length && worst(l) > worst(best))) best = l;
  }
  return { field: best[0].field, diffs: best };
}

/** "mu on 4 contacts (largest 0.4 of its scale)": one line per field. */
function summaryLines(stage: string, diffs: readonly FieldDifference[], unit: 'contact' | 'body', tol: DiffTolerance): string[] {
  const by = new Map<string, FieldDifference[]>();
  for (const d of diffs) (by.get(d.field) ?? by.set(d.field, []).get(d.field)!).push(d);
  return [...by].map(([field, l]) => {
    const worst = Math.max(...l.map((d) => d.rel));
    const size = tol.exact ? `${worst} ULP` : `${formatNumber(worst)} of its scale`;
    return `${stage}: ${field} differs on ${l.length} ${unit}${l.length === 1 ? '' : 's'} (largest ${size})`;
  });
}

function base(inp: DivergenceInput): Pick<Divergence, 'frame' | 'time' | 'frameB' | 'timeB'> {
  return { frame: inp.fa.frame, time: inp.fa.time, frameB: inp.fb.frame, timeB: inp.fb.time };
}

function contactSet(inp: DivergenceInput): Divergence {
  const { headerA: ha, headerB: hb, fa, fb, comparison: c } = inp;
  const names = new Set<string>();
  contactBodies(ha, fa.contacts, c.match.onlyA, names);
  contactBodies(hb, fb.contacts, c.match.onlyB, names);
  const lines = [
    `contact-set: ${c.match.onlyA.length} contact${c.match.onlyA.length === 1 ? '' : 's'} only in a, ${c.match.onlyB.length} only in b (a has ${fa.contacts.length}, b has ${fb.contacts.length}; ${c.match.pairs.length} matched)`,
    ...c.match.onlyA
      .slice(0, 8)
      .map(
        (i) =>
          `  only in a: contact ${i} ${bodyName(ha, fa.contacts[i].a)}/${bodyName(ha, fa.contacts[i].b)}${fa.contacts[i].feature ? ` (${fa.contacts[i].feature})` : ''}`,
      ),
    ...c.match.onlyB
      .slice(0, 8)
      .map(
        (j) =>
          `  only in b: contact ${j} ${bodyName(hb, fb.contacts[j].a)}/${bodyName(hb, fb.contacts[j].b)}${fb.contacts[j].feature ? ` (${fb.contacts[j].feature})` : ''}`,
      ),
  ];
  return {
    ...base(inp),
    kind: 'contact-set',
    bodies: [...names],
    contacts: c.match.onlyB,
    field: 'contacts',
    a: { values: c.match.onlyA.map((i) => describeContact(ha, fa.contacts[i], i)), contacts: fa.contacts.length },
    b: { values: c.match.onlyB.map((j) => describeContact(hb, fb.contacts[j], j)), contacts: fb.contacts.length },
    lines,
  };
}

const pairOfA = (pairs: readonly ContactPair[]): Map<number, ContactPair> => new Map(pairs.map((p) => [p.a, p] as const));

/** b rebuilt in both runs, term by term, over the matched contacts (b's rotated into a's contact frame). */
function rebuiltRhsDifferences(inp: DivergenceInput, out: FieldDifference[]): string | null {
  const ra = rebuildFrame(inp.headerA, inp.fa, inp.prevA),
    rb = rebuildFrame(inp.headerB, inp.fb, inp.prevB);
  if (!ra.ok || !rb.ok) return `b not rebuilt: ${!ra.ok ? `a: ${ra.reason}` : ''}${!ra.ok && !rb.ok ? '; ' : ''}${!rb.ok ? `b: ${rb.reason}` : ''}`;
  const { tol } = inp.ctx;
  const terms = ['velocity', 'restitution', 'bias', 'speculative'] as const;
  let scale = inp.scales.speed;
  for (const x of ra.jacobians.b) scale = Math.max(scale, Math.abs(x));
  for (const p of inp.comparison.match.pairs) {
    const q = contactRotation(inp.fa.contacts[p.a], inp.fb.contacts[p.b], p.flipped);
    let worst = 0,
      field = '';
    for (const t of terms) {
      const va = r3(ra.jacobians.rhs[t], 3 * p.a),
        vb = rotated(q, rb.jacobians.rhs[t], 3 * p.b);
      for (let k = 0; k < 3; k++) {
        const rel = numRel(va[k], vb[k], scale, tol);
        if (exceeds(rel, tol) && rel > worst) {
          worst = rel;
          field = `b.${t}`;
        }
      }
    }
    if (field) out.push({ field, a: p.a, b: p.b, rel: worst });
  }
  return null;
}

/** Problem differences by priority: contact data, the bodies' header data, pre-solve state, recorded A/b, rebuilt b. */
function problem(inp: DivergenceInput, notes: string[]): Divergence | null {
  const { headerA: ha, headerB: hb, fa, fb, comparison: c, ctx } = inp;
  const lines: string[] = [];
  const involved = new Set<number>();
  for (const p of c.match.pairs) for (const body of [fa.contacts[p.a].a, fa.contacts[p.a].b]) if (body >= 0) involved.add(body);
  const headerBodies = [...ctx.bodies.headerDifferences].filter(([i]) => involved.has(i));
  const rebuilt: FieldDifference[] = [];
  const note = c.contacts.length || headerBodies.length || c.pre.length || c.matrix.length ? null : rebuiltRhsDifferences(inp, rebuilt);
  if (note) notes.push(note);
  if (!c.contacts.length && !headerBodies.length && !c.pre.length && !c.matrix.length && !rebuilt.length) return null;
  lines.push(
    ...summaryLines('problem', c.contacts, 'contact', ctx.tol),
    ...headerBodies.map(([i, d]) => `problem: body ${ha.bodies[i].name}: ${d}`),
    ...summaryLines('problem', c.pre, 'body', ctx.tol),
    ...summaryLines('problem (recorded)', c.matrix, 'contact', ctx.tol),
    ...summaryLines('problem (rebuilt from each header)', rebuilt, 'contact', ctx.tol),
  );
  const common = { ...base(inp), kind: 'problem' as const, lines };
  if (c.contacts.length) {
    const { field, diffs } = dominant(c.contacts);
    const names = diffBodies(ha, fa.contacts, diffs);
    return {
      ...common,
      bodies: [...names],
      contacts: diffs.map((d) => d.b),
      field,
      a: { values: diffs.map((d) => contactValue(fa.contacts[d.a], field)) },
      b: {
        values: diffs.map((d) => contactValue(fb.contacts[d.b], field)),
        ...(diffs.some((d) => pairOfA(c.match.pairs).get(d.a)?.flipped) ? { flipped: true } : {}),
      },
    };
  }
  if (headerBodies.length) {
    const field = headerBodies.some(([, d]) => d.startsWith('mass')) ? 'mass' : 'inertia';
    const contacts = c.match.pairs.filter((p) => headerBodies.some(([i]) => fa.contacts[p.a].a === i || fa.contacts[p.a].b === i)).map((p) => p.b);
    return {
      ...common,
      bodies: headerBodies.map(([i]) => ha.bodies[i].name),
      contacts,
      field,
      a: { values: headerBodies.map(([i]) => ({ mass: ha.bodies[i].mass, inertia: ha.bodies[i].inertia })) },
      b: { values: headerBodies.map(([i]) => ({ mass: hb.bodies[ctx.bodies.aToB[i]].mass, inertia: hb.bodies[ctx.bodies.aToB[i]].inertia })) },
    };
  }
  if (c.pre.length) {
    const { field, diffs } = dominant(c.pre);
    const key = field.slice(4) as 'v' | 'w' | 'x' | 'q';
    return {
      ...common,
      bodies: diffs.map((d) => ha.bodies[d.a].name),
      contacts: c.match.pairs.filter((p) => diffs.some((d) => fa.contacts[p.a].a === d.a || fa.contacts[p.a].b === d.a)).map((p) => p.b),
      field,
      a: { values: diffs.map((d) => fa.pre![d.a][key]) },
      b: { values: diffs.map((d) => fb.pre![d.b][key]) },
    };
  }
  const rows = c.matrix.length ? c.matrix : rebuilt;
  const { field, diffs } = dominant(rows);
  const names = diffBodies(ha, fa.contacts, diffs);
  const bOf = (f: RecordedFrame, i: number): number[] | null => (f.b ? r3(f.b, 3 * i) : null);
  return {
    ...common,
    bodies: [...names],
    contacts: diffs.map((d) => d.b),
    field,
    a: { values: field === 'b' ? diffs.map((d) => bOf(fa, d.a)) : diffs.map((d) => d.a) },
    b: { values: field === 'b' ? diffs.map((d) => bOf(fb, d.b)) : diffs.map((d) => d.b) },
  };
}

/** The law a header's solver follows: the convex QP-SOCP (our newton and ipm, friction "cone") or Coulomb's. */
export function declaredLaw(h: RecordingHeader): 'kkt' | 'coulomb' {
  const s = h.solver;
  return s && (s.friction === 'cone' || s.name === 'newton' || s.name === 'ipm') ? 'kkt' : 'coulomb';
}

function solve(inp: DivergenceInput, notes: readonly string[]): Divergence {
  const { headerA: ha, fa, fb, comparison: c, ctx } = inp;
  const diffs = c.lambda;
  const byA = pairOfA(c.match.pairs);
  const names = diffBodies(ha, fa.contacts, diffs);
  const lines = [...summaryLines('solve', diffs, 'contact', ctx.tol), ...notes];
  // the islands (of a's frame) holding the differing contacts: both λ's merits on a's problem
  const islands = buildIslands(
    ha.bodies.length,
    fa.contacts.map((x) => [x.a, x.b] as const),
    ha.bodies.map((b) => b.static),
  ).filter((isl) => isl.contacts.some((k) => diffs.some((d) => d.a === k)));
  const pre = fa.A && fa.b ? null : rebuildFrame(ha, fa, inp.prevA);
  let ma: Merit = { kktMaxRel: 0, coulombMerit: 0 },
    mb: Merit = { kktMaxRel: 0, coulombMerit: 0 },
    measured = islands.length > 0;
  for (const isl of islands) {
    const la = new Float64Array(3 * isl.contacts.length),
      lb = new Float64Array(3 * isl.contacts.length);
    isl.contacts.forEach((k, i) => {
      la.set(r3(fa.solver.lambda, 3 * k), 3 * i);
      const p = byA.get(k);
      if (p) lb.set(rotated(contactRotation(fa.contacts[k], fb.contacts[p.b], p.flipped), fb.solver.lambda, 3 * p.b), 3 * i);
    });
    const m = islandMerits(fa, isl.contacts, pre?.ok ? pre.bodies : null, ha, [la, lb]);
    if (!m) {
      measured = false;
      lines.push(`solve: the shared problem could not be rebuilt (${pre && !pre.ok ? pre.reason : 'no pre-solve state'}): no merits`);
      break;
    }
    ma = { kktMaxRel: Math.max(ma.kktMaxRel, m[0].kktMaxRel), coulombMerit: Math.max(ma.coulombMerit, m[0].coulombMerit) };
    mb = { kktMaxRel: Math.max(mb.kktMaxRel, m[1].kktMaxRel), coulombMerit: Math.max(mb.coulombMerit, m[1].coulombMerit) };
  }
  if (impulseDifferences(fa, fb, ctx.bodies, inp.scales, ctx).size === 0)
    lines.push(
      'solve: the bodies receive the same impulses (Jᵀλ within the tolerance): λ differs only in its split over redundant contacts (A is rank deficient, e.g. four coplanar corners), not in the motion',
    );
  const measure = declaredLaw(ha) === declaredLaw(inp.headerB) ? declaredLaw(ha) : 'kkt';
  const pick = (m: Merit): number => (measure === 'kkt' ? m.kktMaxRel : m.coulombMerit);
  const closer = !measured ? undefined : { run: pick(ma) < pick(mb) ? ('a' as const) : pick(mb) < pick(ma) ? ('b' as const) : ('tie' as const), measure };
  if (measured) {
    const src = fa.A && fa.b ? "a's recorded A and b" : "a's problem rebuilt from its header";
    lines.push(
      `solve: on the shared problem (${src}, ${islands.length} island${islands.length === 1 ? '' : 's'}): KKT max_rel a ${formatNumber(ma.kktMaxRel)}, b ${formatNumber(mb.kktMaxRel)}; Coulomb merit a ${formatNumber(ma.coulombMerit)}, b ${formatNumber(mb.coulombMerit)}`,
      `solve: ${closer!.run === 'tie' ? 'both solved it equally well' : `run ${closer!.run} solved it better`} (by ${measure === 'kkt' ? 'the QP-SOCP KKT residual' : "Coulomb's merit"})`,
    );
  }
  return {
    ...base(inp),
    kind: 'solve',
    bodies: [...names],
    contacts: diffs.map((d) => d.b),
    field: 'lambda',
    a: { values: diffs.map((d) => r3(fa.solver.lambda, 3 * d.a)), ...(measured ? ma : {}) },
    b: { values: diffs.map((d) => r3(fb.solver.lambda, 3 * d.b)), ...(measured ? mb : {}) },
    lines,
    ...(closer ? { closer } : {}),
  };
}

function state(inp: DivergenceInput, map: BodyMap): Divergence {
  const { headerA: ha, fa, fb, comparison: c, ctx } = inp;
  const { field, diffs } = dominant(c.state);
  const key = field as 'x' | 'q' | 'v' | 'w';
  return {
    ...base(inp),
    kind: 'state',
    bodies: diffs.map((d) => ha.bodies[d.a].name),
    contacts: [],
    field,
    a: { values: diffs.map((d) => fa.bodies[d.a][key]) },
    b: { values: diffs.map((d) => fb.bodies[map.aToB[d.a]][key]) },
    lines: ['state: the same contacts, problem and λ', ...summaryLines('state', c.state, 'body', ctx.tol)],
  };
}

/** The kind and details of a frame whose comparison differs (the first such frame of the runs). */
export function classify(inp: DivergenceInput): Divergence {
  const c = inp.comparison;
  if (c.match.onlyA.length || c.match.onlyB.length) return contactSet(inp);
  const notes: string[] = [];
  const p = problem(inp, notes);
  if (p) return p;
  if (c.lambda.length) return solve(inp, notes);
  return state(inp, inp.ctx.bodies);
}
