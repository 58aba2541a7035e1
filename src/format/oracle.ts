/**
 * Reader for the friction-contact problem format of docs/problem-format.md (the oracle corpus's format): one JSON object with
 * A (row-major, incl. eps·I), b, mu, optional `physical` data and optional reference `solution`.
 * Every error names the file and the field.
 */
import {
  assembleProblem,
  type BodyState,
  checkPositiveSemidefinite,
  checkProblemFinite,
  type ContactPoint,
  type ContactProblem,
  makeProblem,
  type Mat3,
  MAX_PROBLEM_CONTACTS,
  ProblemError,
} from '../engine/index.js';
import { FormatError, MAX_FIELD_CHARS, safeText } from './messages.js';
import { ValueReader, type JsonRecord } from './fieldReader.js';

export { FormatError };

export interface OraclePhysical {
  readonly baumgarte: boolean;
  readonly erp: number;
  readonly dt: number;
  readonly eps: number;
  readonly bodies: readonly BodyState[];
  readonly contacts: readonly ContactPoint[];
}

export interface OracleSolution {
  readonly lambda: readonly number[];
  readonly w: readonly number[];
  readonly objective: number;
  readonly kktMaxRel: number;
  readonly lambdaUnique: boolean;
  readonly wRef: number;
  readonly lamRef: number;
  readonly deltaV?: readonly (readonly number[])[];
  readonly classes: readonly string[];
}

export interface OracleInstance {
  readonly id: string;
  readonly file: string;
  readonly eps: number;
  readonly matrix: ContactProblem;
  readonly physical: OraclePhysical | null;
  readonly solution: OracleSolution | null;
}

/** Parses JSON text (NaN/Infinity tokens are rejected by JSON.parse with a position). */
export function parseOracleInstance(text: string, file: string): OracleInstance {
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text); // a byte-order mark is allowed, as in scenes and recordings
  } catch (e) {
    throw new FormatError(file, '(json)', `malformed JSON: ${(e as Error).message}`);
  }
  const r = new ValueReader(file);
  const root = r.obj(raw, '(root)');
  if (Array.isArray(root.mu) && root.mu.length > MAX_PROBLEM_CONTACTS)
    r.fail(
      'mu',
      `has ${root.mu.length} contacts; our solvers hold A densely and take at most ${MAX_PROBLEM_CONTACTS} contacts (${3 * MAX_PROBLEM_CONTACTS} unknowns)`,
    );
  const mu = r.nums(root.mu, 'mu');
  const C = mu.length;
  const n = 3 * C;
  const b = r.nums(root.b, 'b', n);
  const A = r.nums(root.A, 'A', n * n);
  const eps = root.eps === undefined ? 0 : r.num(root.eps, 'eps');
  let matrix: ContactProblem;
  try {
    matrix = makeProblem({ A, b, mu, regularization: eps });
    checkPositiveSemidefinite(matrix.A, n);
  } catch (e) {
    if (e instanceof ProblemError) throw new FormatError(file, e.field, e.message.slice(e.field.length + 2));
    throw e;
  }
  const physical = root.physical === null || root.physical === undefined ? null : readPhysical(r, r.obj(root.physical, 'physical'), eps, C);
  const solution = root.solution === null || root.solution === undefined ? null : readSolution(r, r.obj(root.solution, 'solution'), n);
  const id = typeof root.id === 'string' ? safeText(root.id, MAX_FIELD_CHARS) : file.replace(/^.*[\\/]/, '').replace(/\.json$/, '');
  return { id, file, eps, matrix, physical, solution };
}

function readPhysical(r: ValueReader, p: JsonRecord, eps: number, C: number): OraclePhysical {
  const bodiesRaw = Array.from(r.arr(p.bodies, 'physical.bodies'));
  const bodies: BodyState[] = bodiesRaw.map((bv, i) => {
    const f = `physical.bodies[${i}]`;
    const bo = r.obj(bv, f);
    const invMass = r.num(bo.inv_mass, `${f}.inv_mass`);
    if (invMass < 0) r.fail(`${f}.inv_mass`, `is ${invMass}; inverse mass must be ≥ 0`);
    const I = r.nums(bo.inv_inertia_world, `${f}.inv_inertia_world`, 9);
    try {
      checkPositiveSemidefinite(I, 3, `${f}.inv_inertia_world`);
    } catch (e) {
      if (e instanceof ProblemError)
        r.fail(
          e.field,
          'is not positive semidefinite: an inverse inertia tensor R I⁻¹ Rᵀ has eigenvalues ≥ 0 (a negative entry on the diagonal, or off-diagonal entries too large)',
        );
      throw e;
    }
    return { invMass, invInertiaWorld: I as unknown as Mat3, x: r.vec3(bo.x, `${f}.x`), v: r.vec3(bo.v, `${f}.v`), omega: r.vec3(bo.omega, `${f}.omega`) };
  });
  const contactsRaw = Array.from(r.arr(p.contacts, 'physical.contacts', C));
  const contacts: ContactPoint[] = contactsRaw.map((cv, i) => {
    const f = `physical.contacts[${i}]`;
    const co = r.obj(cv, f);
    const bodyA = r.num(co.body_a, `${f}.body_a`),
      bodyB = r.num(co.body_b, `${f}.body_b`);
    return {
      bodyA,
      bodyB,
      point: r.vec3(co.point, `${f}.point`),
      normal: r.vec3(co.normal, `${f}.normal`),
      t1: r.vec3(co.t1, `${f}.t1`),
      t2: r.vec3(co.t2, `${f}.t2`),
      mu: r.num(co.mu, `${f}.mu`),
      restitution: r.num(co.e, `${f}.e`),
      penetration: r.num(co.penetration, `${f}.penetration`),
    };
  });
  return {
    baumgarte: r.bool(p.baumgarte, 'physical.baumgarte'),
    erp: r.num(p.erp, 'physical.erp'),
    dt: r.num(p.dt, 'physical.dt'),
    eps: p.eps === undefined ? eps : r.num(p.eps, 'physical.eps'),
    bodies,
    contacts,
  };
}

function readSolution(r: ValueReader, s: JsonRecord, n: number): OracleSolution {
  const kk = r.obj(s.kkt, 'solution.kkt');
  const contacts = s.contacts === undefined ? [] : Array.from(r.arr(s.contacts, 'solution.contacts'));
  return {
    lambda: r.nums(s.lambda, 'solution.lambda', n),
    w: r.nums(s.w, 'solution.w', n),
    objective: r.num(s.objective, 'solution.objective'),
    kktMaxRel: r.num(kk.max_rel, 'solution.kkt.max_rel'),
    lamRef: r.num(kk.lam_ref, 'solution.kkt.lam_ref'),
    wRef: r.num(kk.w_ref, 'solution.kkt.w_ref'),
    lambdaUnique: r.bool(s.lambda_unique, 'solution.lambda_unique'),
    deltaV: s.delta_v === undefined ? undefined : Array.from(r.arr(s.delta_v, 'solution.delta_v')).map((row, i) => r.nums(row, `solution.delta_v[${i}]`, 6)),
    classes: contacts.map((c, i) => r.str(r.obj(c, `solution.contacts[${i}]`).class, `solution.contacts[${i}].class`)),
  };
}

/**
 * Rebuilds the problem from the physical data with the oracle's conventions: restitution applies at any
 * approach speed, separating rows included (threshold −∞), no slop, eps·I added (docs/problem-format.md, `physical`).
 */
export function assembleOraclePhysical(inst: OracleInstance): ContactProblem {
  const ph = inst.physical;
  if (!ph) throw new FormatError(inst.file, 'physical', 'this instance has no physical data (use --from matrix)');
  try {
    const p = assembleProblem(ph.bodies, ph.contacts, {
      dt: ph.dt,
      erp: ph.erp,
      baumgarte: ph.baumgarte,
      slop: 0,
      restVelocityThreshold: -Infinity,
      regularization: ph.eps,
    });
    // the same checks as the matrix path: finite data in range of double precision, PSD A
    checkProblemFinite(p);
    checkPositiveSemidefinite(p.A, p.size);
    return p;
  } catch (e) {
    if (e instanceof ProblemError) throw new FormatError(inst.file, `physical.${e.field}`, e.message.slice(e.field.length + 2));
    throw e;
  }
}

/**
 * Serialises a problem assembled from physical data into the same instance format (no reference solution),
 * so that any frame can be exported and re-solved with `contact-lens solve`.
 */
export function writeOracleInstance(id: string, p: ContactProblem, physical: Omit<OraclePhysical, 'bodies' | 'contacts' | 'eps'>): string {
  if (!p.physics || !p.contacts) throw new Error('writeOracleInstance needs a problem assembled from physical data');
  const bodies = p.physics.bodies.map((bd) => ({
    inv_mass: bd.invMass,
    inv_inertia_world: Array.from(bd.invInertiaWorld),
    x: bd.x,
    v: bd.v,
    omega: bd.omega,
    static: bd.invMass === 0 && bd.invInertiaWorld.every((x) => x === 0),
  }));
  const contacts = p.contacts.map(({ contact: c }) => ({
    body_a: c.bodyA,
    body_b: c.bodyB,
    point: c.point,
    normal: c.normal,
    t1: c.t1,
    t2: c.t2,
    mu: c.mu,
    e: c.restitution,
    penetration: c.penetration,
  }));
  const doc = {
    schema_version: 1,
    id,
    source: 'physical',
    scenario: id,
    num_contacts: p.contactCount,
    num_bodies: bodies.length,
    n: p.size,
    eps: p.regularization,
    A: Array.from(p.A),
    b: Array.from(p.b),
    mu: Array.from(p.mu),
    physical: { ...physical, eps: p.regularization, bodies, contacts },
    solution: null,
  };
  return JSON.stringify(doc, null, 1) + '\n';
}
