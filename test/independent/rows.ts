// Constraint rows of the contact problem: for each contact the normal row and the two tangent rows,
// J = [dᵀ, (r_a × d)ᵀ] on body a and [−dᵀ, −(r_b × d)ᵀ] on body b (r = point − x), M⁻¹Jᵀ per body, and
// A = J M⁻¹ Jᵀ in the 3C layout of docs/recording-format.md (contact i at rows 3i, 3i+1, 3i+2).

import { type Body, invInertiaWorld, invMass } from './bodies.js';
import type { Contact } from './contacts.js';
import { add, cross, dot, matVec, neg, scale, sub, type Vec3 } from './vec.js';

export interface Row {
  a: number;
  b: number;
  linA: Vec3;
  angA: Vec3;
  linB: Vec3;
  angB: Vec3;
  /** M⁻¹Jᵀ, per body */
  mLinA: Vec3;
  mAngA: Vec3;
  mLinB: Vec3;
  mAngB: Vec3;
  /** A_rr = J M⁻¹ Jᵀ of this row */
  diag: number;
}

/** Linear and angular velocities of every body (mutable during a solve). */
export interface Velocities {
  v: Vec3[];
  w: Vec3[];
}

export function velocitiesOf(bodies: readonly Body[]): Velocities {
  return { v: bodies.map((b) => [...b.v] as Vec3), w: bodies.map((b) => [...b.w] as Vec3) };
}

export function copyVelocities(src: Velocities): Velocities {
  return { v: src.v.map((x) => [...x] as Vec3), w: src.w.map((x) => [...x] as Vec3) };
}

function makeRow(bodies: readonly Body[], c: Contact, d: Vec3): Row {
  const A = bodies[c.a];
  const B = bodies[c.b];
  const ra = sub(c.point, A.x);
  const rb = sub(c.point, B.x);
  const angA = cross(ra, d);
  const angB = neg(cross(rb, d));
  const linB = neg(d);
  const mLinA = scale(d, invMass(A));
  const mAngA = matVec(invInertiaWorld(A), angA);
  const mLinB = scale(linB, invMass(B));
  const mAngB = matVec(invInertiaWorld(B), angB);
  const diag = dot(d, mLinA) + dot(angA, mAngA) + dot(linB, mLinB) + dot(angB, mAngB);
  return { a: c.a, b: c.b, linA: d, angA, linB, angB, mLinA, mAngA, mLinB, mAngB, diag };
}

/** 3 rows per contact: n, t1, t2 (lever arms and inertia from the bodies' current pose). */
export function buildRows(bodies: readonly Body[], contacts: readonly Contact[]): Row[] {
  const rows: Row[] = [];
  for (const c of contacts) rows.push(makeRow(bodies, c, c.normal), makeRow(bodies, c, c.t1), makeRow(bodies, c, c.t2));
  return rows;
}

/** ġ of a row: J·v. */
export function rowVelocity(r: Row, vel: Velocities): number {
  return dot(r.linA, vel.v[r.a]) + dot(r.angA, vel.w[r.a]) + dot(r.linB, vel.v[r.b]) + dot(r.angB, vel.w[r.b]);
}

/** v ← v + M⁻¹Jᵀ·Δλ for one row. */
export function applyImpulse(r: Row, vel: Velocities, dl: number): void {
  if (dl === 0) return;
  vel.v[r.a] = add(vel.v[r.a], scale(r.mLinA, dl));
  vel.w[r.a] = add(vel.w[r.a], scale(r.mAngA, dl));
  vel.v[r.b] = add(vel.v[r.b], scale(r.mLinB, dl));
  vel.w[r.b] = add(vel.w[r.b], scale(r.mAngB, dl));
}

/** A_rs = J_r M⁻¹ J_sᵀ, contributions of the bodies the two rows share. */
export function coupling(r: Row, s: Row): number {
  let sum = 0;
  if (r.a === s.a) sum += dot(r.linA, s.mLinA) + dot(r.angA, s.mAngA);
  if (r.a === s.b) sum += dot(r.linA, s.mLinB) + dot(r.angA, s.mAngB);
  if (r.b === s.a) sum += dot(r.linB, s.mLinA) + dot(r.angB, s.mAngA);
  if (r.b === s.b) sum += dot(r.linB, s.mLinB) + dot(r.angB, s.mAngB);
  return sum;
}

/** Dense A (row-major, (3C)²). Rows on the static ground share body index 0, whose M⁻¹ is zero. */
export function denseA(rows: readonly Row[]): number[] {
  const n = rows.length;
  const out = new Array<number>(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[i * n + j] = coupling(rows[i], rows[j]);
  return out;
}
