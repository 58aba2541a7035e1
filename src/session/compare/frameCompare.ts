/**
 * One frame of run a against the aligned frame of run b (docs/compare.md "What is compared"): the contact set
 * (contactMatch.ts), per matched contact its data (point, normal, depth, gap, μ, e), the recorded A and b when
 * both runs write them, the pre-solve velocities and poses, λ, and every dynamic body's post-step state. Each
 * difference is kept with its size relative to the quantity's scale (scales.ts), or in ULPs with `exact`.
 *
 * Runs of different engines write the same contact with other tangents (any orthonormal t1, t2 with
 * t1 × t2 = n is valid) or with the bodies the other way round: λ, b and A of b's contact are then rotated into
 * a's contact frame, λ' = Q λ with Q = s·[n t1 t2]_aᵀ [n t1 t2]_b (s = −1 for swapped bodies: the impulse on a's
 * body a is −P), b' = Q b, A' = Q A Qᵀ; contacts with the same frame are compared as written.
 */
import type { RecordedContact, RecordedFrame } from '../../format/recording.js';
import type { BodyMap } from './bodyMap.js';
import type { ContactMatch, ContactPair } from './contactMatch.js';
import { impulseDifferences } from './bodyImpulses.js';
import type { FrameScales, RunScales } from './scales.js';
import type { DiffTolerance } from './tolerance.js';
import { exceeds, numRel, vecRel } from './tolerance.js';

export { exceeds, numRel, vecRel } from './tolerance.js';
import type { Vec3 } from '../../engine/index.js';

/** One quantity that differs: `a`, `b` are contact indices (contact fields, A/b, λ) or body indices (pre, state). */
export interface FieldDifference {
  readonly field: string;
  readonly a: number;
  readonly b: number;
  /** |Δ| over the quantity's scale (exact mode: ULPs). */
  readonly rel: number;
}

export interface FrameComparison {
  readonly match: ContactMatch;
  readonly contacts: readonly FieldDifference[];
  /** Recorded A and b (both runs write them); field 'A' or 'b', a/b the contact of the row. */
  readonly matrix: readonly FieldDifference[];
  readonly pre: readonly FieldDifference[];
  readonly lambda: readonly FieldDifference[];
  readonly state: readonly FieldDifference[];
  readonly differs: boolean;
}

/**
 * How λ is compared: per contact ('contacts', what `diff` does), or through the impulses the bodies receive
 * ('impulses', bodyImpulses.ts: a λ split otherwise over redundant contacts is the same motion).
 */
export type LambdaComparison = 'contacts' | 'impulses';

/** Everything a frame comparison needs besides the two frames. */
export interface CompareContext {
  readonly bodies: BodyMap;
  readonly run: RunScales;
  readonly tol: DiffTolerance;
  readonly lambda?: LambdaComparison;
}

/**
 * The rotation angle between two orientations, 2·acos|q_a·q_b| (q and −q are the same rotation), computed as
 * 4·atan2(‖q_a − q_b‖, ‖q_a + q_b‖) of the unit quaternions with q_a·q_b ≥ 0: exact 0 for equal ones, accurate
 * for small angles where 1 − (q_a·q_b)² cancels (2·acos of a dot product 1 − 2⁻⁵³ is already 3e-8 rad).
 */
export function angleBetween(qa: readonly number[], qb: readonly number[]): number {
  const na = Math.hypot(qa[0], qa[1], qa[2], qa[3]),
    nb = Math.hypot(qb[0], qb[1], qb[2], qb[3]);
  const s = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3] < 0 ? -1 : 1;
  let diff = 0,
    sum = 0;
  for (let k = 0; k < 4; k++) {
    const a = qa[k] / na,
      b = (s * qb[k]) / nb;
    diff += (a - b) ** 2;
    sum += (a + b) ** 2;
  }
  return 4 * Math.atan2(Math.sqrt(diff), Math.sqrt(sum));
}

const sameVec = (a: Vec3, b: Vec3): boolean => Object.is(a[0], b[0]) && Object.is(a[1], b[1]) && Object.is(a[2], b[2]);

/**
 * Q (row-major 3×3) taking b's contact components into a's contact frame, or null when the frames are the
 * same bit for bit and the bodies in the same order (components compare as written).
 */
export function contactRotation(ca: RecordedContact, cb: RecordedContact, flipped: boolean): Float64Array | null {
  if (!flipped && sameVec(ca.normal, cb.normal) && sameVec(ca.t1, cb.t1) && sameVec(ca.t2, cb.t2)) return null;
  const s = flipped ? -1 : 1;
  const A = [ca.normal, ca.t1, ca.t2],
    B = [cb.normal, cb.t1, cb.t2];
  const q = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) q[3 * r + c] = s * (A[r][0] * B[c][0] + A[r][1] * B[c][1] + A[r][2] * B[c][2]);
  return q;
}

/** b's 3 components (λ or b rows of one contact, at offset o) in a's contact frame. */
export function rotated(q: Float64Array | null, v: ArrayLike<number>, o: number): [number, number, number] {
  if (!q) return [v[o], v[o + 1], v[o + 2]];
  const x = v[o],
    y = v[o + 1],
    z = v[o + 2];
  return [q[0] * x + q[1] * y + q[2] * z, q[3] * x + q[4] * y + q[5] * z, q[6] * x + q[7] * y + q[8] * z];
}

function contactFields(ca: RecordedContact, cb: RecordedContact, p: ContactPair, ctx: CompareContext, out: FieldDifference[]): void {
  const { tol, run } = ctx;
  const s = p.flipped ? -1 : 1;
  const pos = Math.max(run.length, Math.hypot(...ca.point), Math.hypot(...cb.point));
  const checks: [string, number][] = [
    ['point', vecRel(ca.point, cb.point, 1, pos, tol)],
    ['normal', vecRel(ca.normal, cb.normal, s, 1, tol)],
    ['depth', numRel(ca.depth, cb.depth, run.length, tol)],
    ['gap', numRel(ca.gap ?? 0, cb.gap ?? 0, run.length, tol)],
    ['mu', numRel(ca.mu, cb.mu, Math.max(1, Math.abs(ca.mu)), tol)],
    ['e', numRel(ca.e, cb.e, Math.max(1, Math.abs(ca.e)), tol)],
  ];
  // in exact mode the tangents must agree too: λ is then compared as written
  if (tol.exact) checks.push(['t1', vecRel(ca.t1, cb.t1, s, 1, tol)], ['t2', vecRel(ca.t2, cb.t2, 1, 1, tol)]);
  for (const [field, rel] of checks) if (exceeds(rel, tol)) out.push({ field, a: p.a, b: p.b, rel });
}

/** Recorded A and b of both runs (b's rotated into a's contact frames), over the matched contacts. */
function matrixRows(
  fa: RecordedFrame,
  fb: RecordedFrame,
  pairs: readonly ContactPair[],
  q: readonly (Float64Array | null)[],
  sc: FrameScales,
  ctx: CompareContext,
  out: FieldDifference[],
): void {
  const { tol } = ctx;
  if (fa.b && fb.b) {
    let bScale = sc.speed;
    for (const x of fa.b) bScale = Math.max(bScale, Math.abs(x));
    for (const x of fb.b) bScale = Math.max(bScale, Math.abs(x));
    pairs.forEach((p, k) => {
      const rb = rotated(q[k], fb.b!, 3 * p.b);
      const rel = vecRel([fa.b![3 * p.a], fa.b![3 * p.a + 1], fa.b![3 * p.a + 2]], rb, 1, bScale, tol);
      if (exceeds(rel, tol)) out.push({ field: 'b', a: p.a, b: p.b, rel });
    });
  }
  if (!fa.A || !fb.A) return;
  const na = 3 * fa.contacts.length,
    nb = 3 * fb.contacts.length;
  let aScale = 0;
  for (const x of fa.A) aScale = Math.max(aScale, Math.abs(x));
  for (const x of fb.A) aScale = Math.max(aScale, Math.abs(x));
  const block = new Float64Array(9),
    tmp = new Float64Array(9);
  pairs.forEach((p, k) => {
    let worst = 0;
    for (let m = 0; m < pairs.length; m++) {
      const p2 = pairs[m];
      // A_b block (p.b, p2.b), then Q_k · block · Q_mᵀ
      for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) block[3 * r + c] = fb.A![(3 * p.b + r) * nb + 3 * p2.b + c];
      rotateBlock(q[k], q[m], block, tmp);
      for (let r = 0; r < 3; r++)
        for (let c = 0; c < 3; c++) {
          const rel = numRel(fa.A![(3 * p.a + r) * na + 3 * p2.a + c], block[3 * r + c], aScale || 1, tol);
          if (rel > worst) worst = rel;
        }
    }
    if (exceeds(worst, tol)) out.push({ field: 'A', a: p.a, b: p.b, rel: worst });
  });
}

/** block ← Ql · block · Qrᵀ (identity where a Q is null). */
function rotateBlock(ql: Float64Array | null, qr: Float64Array | null, block: Float64Array, tmp: Float64Array): void {
  if (ql) {
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) tmp[3 * r + c] = ql[3 * r] * block[c] + ql[3 * r + 1] * block[3 + c] + ql[3 * r + 2] * block[6 + c];
    block.set(tmp);
  }
  if (qr) {
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 3; c++) tmp[3 * r + c] = block[3 * r] * qr[3 * c] + block[3 * r + 1] * qr[3 * c + 1] + block[3 * r + 2] * qr[3 * c + 2];
    block.set(tmp);
  }
}

/** Post-step states (or, with `pre`, the pre-solve velocities and poses) of every matched dynamic body. */
export function compareStates(
  sa: readonly { x?: Vec3; q?: readonly number[]; v: Vec3; w: Vec3 }[],
  sb: readonly { x?: Vec3; q?: readonly number[]; v: Vec3; w: Vec3 }[],
  sc: { speed: number; angularSpeed: number },
  ctx: CompareContext,
  prefix: string,
  out: FieldDifference[],
): void {
  const { tol, run } = ctx;
  for (const [i, j] of ctx.bodies.dynamicPairs) {
    const a = sa[i],
      b = sb[j];
    if (!a || !b) continue;
    let worstField = '',
      worst = 0;
    const note = (field: string, rel: number): void => {
      if (exceeds(rel, tol) && rel > worst) {
        worst = rel;
        worstField = field;
      }
    };
    if (a.x && b.x) note('x', vecRel(a.x, b.x, 1, Math.max(run.length, Math.hypot(...a.x), Math.hypot(...b.x)), tol));
    if (a.q && b.q) note('q', tol.exact ? vecRel(a.q, b.q, 1, 1, tol) : angleBetween(a.q, b.q));
    note('v', vecRel(a.v, b.v, 1, sc.speed, tol));
    note('w', vecRel(a.w, b.w, 1, sc.angularSpeed, tol));
    if (worstField) out.push({ field: prefix + worstField, a: i, b: j, rel: worst });
  }
}

export function compareFrames(fa: RecordedFrame, fb: RecordedFrame, match: ContactMatch, sc: FrameScales, ctx: CompareContext): FrameComparison {
  const contacts: FieldDifference[] = [],
    matrix: FieldDifference[] = [],
    pre: FieldDifference[] = [],
    lambda: FieldDifference[] = [],
    state: FieldDifference[] = [];
  const q = match.pairs.map((p) => contactRotation(fa.contacts[p.a], fb.contacts[p.b], p.flipped));
  const la = fa.solver.lambda,
    lb = fb.solver.lambda;
  match.pairs.forEach((p, k) => {
    contactFields(fa.contacts[p.a], fb.contacts[p.b], p, ctx, contacts);
    const rel = vecRel([la[3 * p.a], la[3 * p.a + 1], la[3 * p.a + 2]], rotated(q[k], lb, 3 * p.b), 1, sc.impulse, ctx.tol);
    if (exceeds(rel, ctx.tol)) lambda.push({ field: 'lambda', a: p.a, b: p.b, rel });
  });
  if (ctx.lambda === 'impulses' && lambda.length) {
    // only contacts of bodies whose impulses differ: another split of the same Jᵀλ is not a difference here
    const moved = impulseDifferences(fa, fb, ctx.bodies, sc, ctx);
    const kept = lambda.filter((d) => moved.has(fa.contacts[d.a].a) || moved.has(fa.contacts[d.a].b));
    lambda.length = 0;
    lambda.push(...kept);
  }
  matrixRows(fa, fb, match.pairs, q, sc, ctx, matrix);
  if (fa.pre && fb.pre) compareStates(fa.pre, fb.pre, sc, ctx, 'pre.', pre);
  compareStates(fa.bodies, fb.bodies, sc, ctx, '', state);
  const differs = match.onlyA.length + match.onlyB.length + contacts.length + matrix.length + pre.length + lambda.length + state.length > 0;
  return { match, contacts, matrix, pre, lambda, state, differs };
}
