/**
 * Contact problem assembly from physical data (docs/physics.md "Contact model" and "Conventions"):
 *   Jacobian row for direction d at p: body a [dᵀ, (r_a×d)ᵀ], body b [−dᵀ, −(r_b×d)ᵀ], r = p − x;
 *   A = J M⁻¹ Jᵀ (+ εI), blocks A_ij non-zero only when contacts i and j share a dynamic body;
 *   b_n = −ġ_n − e·ġ_n (restitution only when −ġ_n exceeds the rest-velocity threshold)
 *         + (ERP/Δt)·max(0, depth − slop);  b_t = −ġ_t  (Baumgarte 1972; Catto 2005);
 *   a speculative contact (gap > 0, Catto GDC 2013) gets −gap/Δt instead of the restitution and bias
 *   terms: ġ_n⁺ ≥ −gap/Δt, it may close the gap but not pass through it.
 */
import type { BodyState, ContactMeta, ContactPoint, ContactProblem, ProblemPhysics, RhsDecomposition } from './problem.js';
import { ProblemError } from './problem.js';
import type { Vec3 } from './math/vec3.js';
import { delassusBlocks, problemFromDelassusBlocks } from './delassusBlocks.js';

export interface AssemblyOptions {
  /** Time step Δt (s); only used by the bias term. */
  readonly dt: number;
  /** Error-reduction parameter of the velocity-level bias (ERP/Δt)·depth (Baumgarte 1972; default 0.2). */
  readonly erp: number;
  /** Penetration allowed without correction (m). */
  readonly slop: number;
  /** Apply the bias term at all (Baumgarte / ERP). */
  readonly baumgarte: boolean;
  /** Approach speed (m/s) below which restitution is zero (docs/physics.md "Contact model"). */
  readonly restVelocityThreshold: number;
  /** Diagonal regularisation ε added to A (docs/physics.md "Regularisation"). */
  readonly regularization: number;
}

/**
 * ε of A + εI: keeps A positive definite when contacts are redundant (rank-deficient J) at a cost far
 * below solver tolerances (docs/physics.md "Regularisation"). The one place this number is written.
 */
export const ASSEMBLY_REGULARIZATION = 1e-10;

export const DEFAULT_ASSEMBLY: AssemblyOptions = {
  dt: 1 / 60,
  erp: 0.2,
  slop: 0,
  baumgarte: true,
  restVelocityThreshold: 0,
  regularization: ASSEMBLY_REGULARIZATION,
};

/** Is a body static (no columns in J)? Index −1 is the static world. */
export function isStatic(bodies: readonly BodyState[], i: number): boolean {
  if (i < 0) return true;
  const bd = bodies[i];
  if (bd.invMass !== 0) return false;
  const I = bd.invInertiaWorld; // a loop, not .every(): no callback per call (twice per contact per step)
  for (let k = 0; k < I.length; k++) if (I[k] !== 0) return false;
  return true;
}

/** Writes the 3×6 Jacobian block of one body for rows (n, t1, t2) into out[o..o+18). */
function jacobianBlock(c: ContactPoint, x: Vec3, sign: number, out: Float64Array, o: number): void {
  // r = p − x, row k: sign·[d_k, r × d_k] (no temporaries: this runs for every contact of every step)
  const r0 = c.point[0] - x[0],
    r1 = c.point[1] - x[1],
    r2 = c.point[2] - x[2];
  for (let k = 0; k < 3; k++) {
    const d = k === 0 ? c.normal : k === 1 ? c.t1 : c.t2;
    const d0 = d[0],
      d1 = d[1],
      d2 = d[2];
    const base = o + 6 * k;
    out[base] = sign * d0;
    out[base + 1] = sign * d1;
    out[base + 2] = sign * d2;
    out[base + 3] = sign * (r1 * d2 - r2 * d1);
    out[base + 4] = sign * (r2 * d0 - r0 * d2);
    out[base + 5] = sign * (r0 * d1 - r1 * d0);
  }
}

/** M⁻¹ Jᵀ column block for one body: 6×3 stored as 3 rows of 6 (row k = M⁻¹ J_kᵀ). */
function applyInvMass(bd: BodyState, J: Float64Array, o: number, out: Float64Array, oo: number): void {
  const I = bd.invInertiaWorld;
  for (let k = 0; k < 3; k++) {
    const s = o + 6 * k,
      t = oo + 6 * k;
    out[t] = bd.invMass * J[s];
    out[t + 1] = bd.invMass * J[s + 1];
    out[t + 2] = bd.invMass * J[s + 2];
    const a0 = J[s + 3],
      a1 = J[s + 4],
      a2 = J[s + 5];
    out[t + 3] = I[0] * a0 + I[1] * a1 + I[2] * a2;
    out[t + 4] = I[3] * a0 + I[4] * a1 + I[5] * a2;
    out[t + 5] = I[6] * a0 + I[7] * a1 + I[8] * a2;
  }
}

/** `contacts[i].name`: built only on failure (checkContact runs for every contact of every step). */
function field(i: number, name: string): string {
  return `contacts[${i}].${name}`;
}

function checkContact(c: ContactPoint, i: number, nBodies: number): void {
  if (!Number.isInteger(c.bodyA) || c.bodyA < 0 || c.bodyA >= nBodies)
    throw new ProblemError(field(i, 'body_a'), `is ${c.bodyA}, expected a body index 0…${nBodies - 1}`);
  if (!Number.isInteger(c.bodyB) || c.bodyB < -1 || c.bodyB >= nBodies)
    throw new ProblemError(field(i, 'body_b'), `is ${c.bodyB}, expected −1 (static world) or a body index 0…${nBodies - 1}`);
  if (c.bodyA === c.bodyB) throw new ProblemError(field(i, 'body_b'), 'a contact must join two different bodies');
  if (!(c.mu >= 0)) throw new ProblemError(field(i, 'mu'), `is ${c.mu}; friction coefficients must be ≥ 0`);
  if (!(c.restitution >= 0)) throw new ProblemError(field(i, 'e'), `is ${c.restitution}; restitution must be ≥ 0`);
  if (!(c.penetration >= 0)) throw new ProblemError(field(i, 'penetration'), `is ${c.penetration}; penetration must be ≥ 0`);
  const gap = c.gap ?? 0;
  if (!(gap >= 0 && gap < Infinity)) throw new ProblemError(field(i, 'gap'), `is ${gap}; the speculative gap must be a finite distance ≥ 0`);
  if (gap > 0 && c.penetration > 0)
    throw new ProblemError(field(i, 'gap'), `is ${gap} while penetration is ${c.penetration}; a contact is either apart (gap) or overlapping (penetration)`);
  const n = c.normal,
    t1 = c.t1,
    t2 = c.t2;
  if (!isUnit(n)) throw new ProblemError(field(i, 'normal'), `must be a unit vector (length ${Math.hypot(n[0], n[1], n[2])})`);
  if (!isUnit(t1)) throw new ProblemError(field(i, 't1'), `must be a unit vector (length ${Math.hypot(t1[0], t1[1], t1[2])})`);
  if (!isUnit(t2)) throw new ProblemError(field(i, 't2'), `must be a unit vector (length ${Math.hypot(t2[0], t2[1], t2[2])})`);
  // |t1 × t2 − n|, written out (no temporaries)
  const e0 = t1[1] * t2[2] - t1[2] * t2[1] - n[0],
    e1 = t1[2] * t2[0] - t1[0] * t2[2] - n[1],
    e2 = t1[0] * t2[1] - t1[1] * t2[0] - n[2];
  const dev = Math.sqrt(e0 * e0 + e1 * e1 + e2 * e2);
  if (dev > 1e-6) throw new ProblemError(field(i, 't2'), `(n, t1, t2) must be right-handed and orthonormal (|t1×t2 − n| = ${dev.toExponential(2)})`);
}

/** Unit length within 1e-6 (a NaN length passes, as it did with the Math.hypot test). */
function isUnit(v: Vec3): boolean {
  return !(Math.abs(Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - 1) > 1e-6);
}

/**
 * Everything about an island's contact problem except the dense A: per-contact Jacobian blocks J (3×6 per
 * body, rows n, t1, t2) and M⁻¹Jᵀ, b with its decomposition, μ. Large islands are solved matrix-free from
 * these (solvers/pgsRows.ts); assembleProblem adds the dense A.
 */
export interface ContactJacobians {
  readonly contactCount: number;
  readonly size: number;
  readonly b: Float64Array;
  readonly mu: Float64Array;
  readonly rhs: RhsDecomposition;
  readonly contacts: readonly ContactMeta[];
  readonly physics: ProblemPhysics;
  /** M⁻¹Jᵀ blocks matching physics.jacobianA/B (18 numbers per contact; zero for static bodies). */
  readonly invMassJA: Float64Array;
  readonly invMassJB: Float64Array;
  readonly staticA: Uint8Array;
  readonly staticB: Uint8Array;
  /**
   * Each contact's body indices (ContactPoint.bodyA/bodyB; −1 for the world) as typed columns: what the block
   * loops read instead of the contact objects, whose shapes differ from caller to caller (a function reading them
   * from every caller was deoptimised over and over: 52 times in one `report` of half the 1000-box pile).
   */
  readonly bodyA: Int32Array;
  readonly bodyB: Int32Array;
  /** The ε of the assembly options: the dense A gets +εI, the matrix-free rows add the same ε. */
  readonly regularization: number;
}

export function assembleJacobians(bodies: readonly BodyState[], contacts: readonly ContactPoint[], options: Partial<AssemblyOptions> = {}): ContactJacobians {
  const opt: AssemblyOptions = { ...DEFAULT_ASSEMBLY, ...options };
  const C = contacts.length,
    n = 3 * C;
  if (C === 0) throw new ProblemError('contacts', 'at least one contact is required');
  for (let i = 0; i < C; i++) checkContact(contacts[i], i, bodies.length);
  // Every array first, then one loop per function (jacobianRows, rhsRows): V8 optimises a long loop on
  // stack replacement and deoptimised this function at each later, not yet executed, `new` (the world
  // step's big island went back to the interpreter on most calls; same pattern as pgsSweep.ts SweepOutcome).
  const JA = new Float64Array(18 * C),
    JB = new Float64Array(18 * C);
  const MJA = new Float64Array(18 * C),
    MJB = new Float64Array(18 * C);
  const staticA = new Uint8Array(C),
    staticB = new Uint8Array(C);
  const bodyA = new Int32Array(C),
    bodyB = new Int32Array(C);
  const velocity = new Float64Array(n),
    restitution = new Float64Array(n),
    bias = new Float64Array(n),
    speculative = new Float64Array(n),
    b = new Float64Array(n);
  const mu = new Float64Array(C);
  const metas: ContactMeta[] = new Array(C);
  const k: ContactJacobians = {
    contactCount: C,
    size: n,
    b,
    mu,
    rhs: { velocity, restitution, bias, speculative },
    contacts: metas,
    physics: { bodies, jacobianA: JA, jacobianB: JB },
    invMassJA: MJA,
    invMassJB: MJB,
    staticA,
    staticB,
    bodyA,
    bodyB,
    regularization: opt.regularization,
  };
  jacobianRows(bodies, contacts, k);
  rhsRows(bodies, contacts, opt, k, velocity, restitution, bias, speculative, metas);
  return k;
}

/** J and M⁻¹Jᵀ blocks, the body indices and the static flags of every contact, into k's arrays. */
function jacobianRows(bodies: readonly BodyState[], contacts: readonly ContactPoint[], k: ContactJacobians): void {
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const { invMassJA: MJA, invMassJB: MJB, staticA, staticB, bodyA, bodyB } = k;
  for (let i = 0; i < contacts.length; i++) {
    const c = contacts[i];
    bodyA[i] = c.bodyA;
    bodyB[i] = c.bodyB;
    staticA[i] = isStatic(bodies, c.bodyA) ? 1 : 0;
    staticB[i] = isStatic(bodies, c.bodyB) ? 1 : 0;
    if (!staticA[i]) {
      jacobianBlock(c, bodies[c.bodyA].x, 1, JA, 18 * i);
      applyInvMass(bodies[c.bodyA], JA, 18 * i, MJA, 18 * i);
    }
    if (!staticB[i]) {
      jacobianBlock(c, bodies[c.bodyB].x, -1, JB, 18 * i);
      applyInvMass(bodies[c.bodyB], JB, 18 * i, MJB, 18 * i);
    }
  }
}

/** Gap rates ġ = Jv, the parts of b and b itself, μ and the contact metas of every contact. */
function rhsRows(
  bodies: readonly BodyState[],
  contacts: readonly ContactPoint[],
  opt: AssemblyOptions,
  k: ContactJacobians,
  velocity: Float64Array,
  restitution: Float64Array,
  bias: Float64Array,
  speculative: Float64Array,
  metas: ContactMeta[],
): void {
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const { staticA, staticB, b, mu } = k;
  for (let i = 0; i < contacts.length; i++) {
    const c = contacts[i];
    // ġ = J v per row (the gap rate before the solve), into velocity (the meta's gapRate reads it): no scratch array
    for (let r = 0; r < 3; r++) {
      let s = 0;
      if (!staticA[i]) s += rowTimesVelocity(JA, 18 * i + 6 * r, bodies[c.bodyA]);
      if (!staticB[i]) s += rowTimesVelocity(JB, 18 * i + 6 * r, bodies[c.bodyB]);
      velocity[3 * i + r] = -s;
    }
    const g0 = -velocity[3 * i];
    const approach = -g0;
    const gap = c.gap ?? 0;
    // a speculative contact may approach by at most its gap (Catto GDC 2013); it does not bounce before it touches
    restitution[3 * i] = gap === 0 && approach > opt.restVelocityThreshold ? -c.restitution * g0 : 0;
    speculative[3 * i] = gap > 0 ? -gap / opt.dt : 0;
    bias[3 * i] = opt.baumgarte ? (opt.erp / opt.dt) * Math.max(0, c.penetration - opt.slop) : 0;
    for (let r = 0; r < 3; r++) b[3 * i + r] = velocity[3 * i + r] + restitution[3 * i + r] + bias[3 * i + r] + speculative[3 * i + r];
    mu[i] = c.mu;
    metas[i] = new AssembledContact(c, velocity, 3 * i);
  }
}

/**
 * A ContactMeta of an assembly: its gap rates are read from the rhs's velocity (ġ = −velocity) when asked,
 * so an island's assembly makes one small object per contact instead of an object and an array (both lived
 * through the world step; nothing in the step reads them).
 */
class AssembledContact implements ContactMeta {
  constructor(
    readonly contact: ContactPoint,
    private readonly velocity: Float64Array,
    private readonly offset: number,
  ) {}

  get gapRate(): Vec3 {
    const v = this.velocity,
      o = this.offset;
    return [-v[o], -v[o + 1], -v[o + 2]];
  }
}

/** Builds the ContactProblem (A, b, μ, b decomposition, Jacobian blocks) of one island. */
export function assembleProblem(bodies: readonly BodyState[], contacts: readonly ContactPoint[], options: Partial<AssemblyOptions> = {}): ContactProblem {
  const opt: AssemblyOptions = { ...DEFAULT_ASSEMBLY, ...options };
  return denseProblem(assembleJacobians(bodies, contacts, opt), opt.regularization);
}

/**
 * The ContactProblem of blocks already assembled (by assembleJacobians from these contacts): adds the dense
 * A = J M⁻¹ Jᵀ + εI (ε = regularization). For callers that also need the blocks themselves.
 */
export function denseProblem(k: ContactJacobians, regularization: number, byBody: ContactsByBody = contactsByBody(k)): ContactProblem {
  return problemFromDelassusBlocks(k, delassusBlocks(k, byBody, regularization));
}

/**
 * Each dynamic body's contacts, in contact order, as compressed rows: body d's entries are
 * entries[start[d] … start[d + 1]), each 2·contact + side (side 0: the contact's body a, 1: its body b).
 * Typed columns: the block loop then reads no contact object. Outside its diagonal, the A that denseProblem
 * assembles is zero except in the 3×3 blocks of two contacts listed under one body.
 */
export interface ContactsByBody {
  readonly start: Int32Array;
  readonly entries: Int32Array;
}

export function contactsByBody(k: ContactJacobians): ContactsByBody {
  const C = k.contactCount,
    { staticA, staticB, bodyA, bodyB } = k;
  const start = new Int32Array(k.physics.bodies.length + 1);
  for (let i = 0; i < C; i++) {
    if (!staticA[i]) start[bodyA[i] + 1]++;
    if (!staticB[i]) start[bodyB[i] + 1]++;
  }
  for (let d = 1; d < start.length; d++) start[d] += start[d - 1];
  const entries = new Int32Array(start[start.length - 1]);
  const next = start.slice(0, start.length - 1);
  for (let i = 0; i < C; i++) {
    if (!staticA[i]) entries[next[bodyA[i]]++] = 2 * i;
    if (!staticB[i]) entries[next[bodyB[i]]++] = 2 * i + 1;
  }
  return { start, entries };
}

function rowTimesVelocity(J: Float64Array, o: number, bd: BodyState): number {
  return J[o] * bd.v[0] + J[o + 1] * bd.v[1] + J[o + 2] * bd.v[2] + J[o + 3] * bd.omega[0] + J[o + 4] * bd.omega[1] + J[o + 5] * bd.omega[2];
}

/**
 * Δv = M⁻¹ Jᵀ λ per body as [dv(3), dω(3)] (N×6 row-major). Static bodies get zeros. With `into` the
 * changes are added to it (the world's one array per step: islands share no dynamic body).
 */
export function bodyVelocityChanges(p: ContactProblem, lambda: ArrayLike<number>, into?: Float64Array): Float64Array {
  if (!p.physics || !p.contacts) throw new Error('bodyVelocityChanges needs a problem assembled from physical data');
  const { bodies, jacobianA, jacobianB } = p.physics;
  const out = into ?? new Float64Array(6 * bodies.length);
  const metas = p.contacts;
  for (let i = 0; i < metas.length; i++) {
    const m = metas[i].contact;
    if (!isStatic(bodies, m.bodyA)) addImpulse(bodies, m.bodyA, jacobianA, i, lambda, out);
    if (!isStatic(bodies, m.bodyB)) addImpulse(bodies, m.bodyB, jacobianB, i, lambda, out);
  }
  return out;
}

/**
 * out[body] += M⁻¹ J_iᵀ λ_i for contact i's block J of one body: the impulse Jᵀλ summed over the rows n, t1, t2
 * in that order, then M⁻¹ (a module function with locals: the closure and scratch array it replaces were made
 * per call of bodyVelocityChanges, once per island and step; same operations in the same order).
 */
function addImpulse(bodies: readonly BodyState[], body: number, J: Float64Array, i: number, lambda: ArrayLike<number>, out: Float64Array): void {
  const o = 18 * i,
    l0 = lambda[3 * i],
    l1 = lambda[3 * i + 1],
    l2 = lambda[3 * i + 2];
  let i0 = 0,
    i1 = 0,
    i2 = 0,
    i3 = 0,
    i4 = 0,
    i5 = 0;
  i0 += J[o] * l0;
  i1 += J[o + 1] * l0;
  i2 += J[o + 2] * l0;
  i3 += J[o + 3] * l0;
  i4 += J[o + 4] * l0;
  i5 += J[o + 5] * l0;
  i0 += J[o + 6] * l1;
  i1 += J[o + 7] * l1;
  i2 += J[o + 8] * l1;
  i3 += J[o + 9] * l1;
  i4 += J[o + 10] * l1;
  i5 += J[o + 11] * l1;
  i0 += J[o + 12] * l2;
  i1 += J[o + 13] * l2;
  i2 += J[o + 14] * l2;
  i3 += J[o + 15] * l2;
  i4 += J[o + 16] * l2;
  i5 += J[o + 17] * l2;
  const bd = bodies[body],
    I = bd.invInertiaWorld,
    ob = 6 * body;
  out[ob] += bd.invMass * i0;
  out[ob + 1] += bd.invMass * i1;
  out[ob + 2] += bd.invMass * i2;
  out[ob + 3] += I[0] * i3 + I[1] * i4 + I[2] * i5;
  out[ob + 4] += I[3] * i3 + I[4] * i4 + I[5] * i5;
  out[ob + 5] += I[6] * i3 + I[7] * i4 + I[8] * i5;
}

/**
 * Δv = M⁻¹Jᵀλ per body (6 numbers: linear, angular) from assembled blocks (docs/physics.md "Contact model"); bodyCount is the
 * length of the body list the blocks were assembled from. Static bodies get zero. With `into` (6 per
 * body) the changes are added to it instead of a new array: islands share no dynamic body, so one zeroed
 * array serves every island of a frame.
 */
export function jacobianVelocityChanges(
  k: ContactJacobians,
  contacts: readonly ContactPoint[],
  lambda: ArrayLike<number>,
  bodyCount: number,
  into?: Float64Array,
): Float64Array {
  const dv = into ?? new Float64Array(6 * bodyCount);
  for (let c = 0; c < contacts.length; c++) {
    const l0 = lambda[3 * c],
      l1 = lambda[3 * c + 1],
      l2 = lambda[3 * c + 2];
    if (!k.staticA[c]) {
      const o = 6 * contacts[c].bodyA;
      for (let q = 0; q < 6; q++) dv[o + q] += k.invMassJA[18 * c + q] * l0 + k.invMassJA[18 * c + 6 + q] * l1 + k.invMassJA[18 * c + 12 + q] * l2;
    }
    if (!k.staticB[c]) {
      const o = 6 * contacts[c].bodyB;
      for (let q = 0; q < 6; q++) dv[o + q] += k.invMassJB[18 * c + q] * l0 + k.invMassJB[18 * c + 6 + q] * l1 + k.invMassJB[18 * c + 12 + q] * l2;
    }
  }
  return dv;
}
