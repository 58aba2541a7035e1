/**
 * Recording format, validation: a frame from JSON.parse → RecordedFrame (the header: recordingHeaderValidate.ts;
 * the checks both share: recordingChecks.ts), on the shared field reader (fieldReader.ts ValueReader). Recordings are written by our engine AND by other
 * engines, so everything is checked and every error names the file, the line and the field:
 *   FormatError(file, "line 17: contacts[2].normal", "is not a unit vector …").
 * Unknown fields, unknown shapes, e > 1 and implausible inertias are warnings.
 */
import { MAX_DETAIL_CHARS, MAX_FIELD_CHARS, safeText } from './messages.js';
import { ValueReader, type FieldWarning, type JsonRecord } from './fieldReader.js';
import { parseJsonLine } from './recordingJson.js';
import { convertFrame, convertStates } from './conventions.js';
import {
  QUATERNION_ERROR_TOLERANCE,
  SOLVER_STATUSES,
  UNIT_TOLERANCE,
  type ParseFrameOptions,
  type RecordedBody,
  type RecordedBodyState,
  type RecordedContact,
  type RecordedExternalImpulse,
  type RecordedFrame,
  type RecordedInitialState,
  type RecordedManifold,
  type RecordedPreState,
  type RecordedSolver,
  type RecordingHeader,
  type SoftContactParameters,
} from './recordingTypes.js';
import { hypot3, hypot4, type Quat, type Vec3 } from '../engine/index.js';
import {
  bounded,
  checkPreEnergy,
  cross,
  dot,
  inBounds,
  kineticOverflows,
  largestMoment,
  readSoft,
  SOFT_KEYS,
  TOLERANCES,
  warnUnknownKeys,
} from './recordingChecks.js';
export { parseHeader, validateHeader } from './recordingHeaderValidate.js';
export { MAX_RECORDED_MAGNITUDE } from './recordingChecks.js';

// ─── frames ─────────────────────────────────────────────────────────────────────────────────────────

const FRAME_KEYS = ['frame', 'time', 'bodies', 'pre', 'contacts', 'solver', 'A', 'b', 'energy', 'manifolds', 'external'];
const STATE_KEYS = ['x', 'q', 'v', 'w'];
const PRE_KEYS = ['v', 'w', 'x', 'q'];
const CONTACT_KEYS = ['a', 'b', 'point', 'normal', 't1', 't2', 'depth', 'gap', 'mu', 'e', 'feature', 'soft'];
const MANIFOLD_KEYS = ['a', 'b', 'contacts', 'point', 'normal', 't1', 't2', 'lambda'];
const EXTERNAL_KEYS = ['body', 'impulse', 'angular', 'stage'];
const EXTERNAL_STAGES = ['before-solve', 'with-solve'] as const;
const SOLVER_KEYS = ['name', 'status', 'reason', 'iterations', 'residuals', 'lambda'];

/** Parses and validates one frame line (lineNo is 1-based, as an editor shows it). */
export function parseFrame(line: string, lineNo: number, file: string, header: RecordingHeader, options: ParseFrameOptions = {}): RecordedFrame {
  return frameFromValue(parseJsonLine(line, file, `line ${lineNo}: `), lineNo, file, header, options);
}

/** The frame of a frame line's parsed value (what parseFrame does after JSON.parse): validated, in our conventions. */
export function frameFromValue(raw: unknown, lineNo: number, file: string, header: RecordingHeader, options: ParseFrameOptions = {}): RecordedFrame {
  const f = validateFrame(raw, lineNo, file, header, options);
  return header.declared ? convertFrame(f, header.declared, header.dt) : f;
}

/** Validates a frame object (parsed, or about to be written). Numeric arrays are returned as they are (no copy). */
export function validateFrame(raw: unknown, lineNo: number, file: string, header: RecordingHeader, options: ParseFrameOptions = {}): RecordedFrame {
  const c = new ValueReader(file, `line ${lineNo}: `);
  const onWarning = options.onWarning;
  const warn: FieldWarning | undefined = onWarning && ((field, detail) => onWarning(safeText(field, MAX_FIELD_CHARS), safeText(detail, MAX_DETAIL_CHARS)));
  const o = c.obj(raw, '');
  if (o.frame === undefined && o.format !== undefined) {
    c.fail('format', 'a second header: a recording has exactly one header, on line 1 (were two recordings concatenated?)');
  }
  warnUnknownKeys(o, FRAME_KEYS, '', warn);
  const frame = c.int(o.frame, 'frame', 0);
  const time = c.num(o.time, 'time');
  const prev = options.previous;
  if (prev && !(frame > prev.frame)) c.fail('frame', `is ${frame} after frame ${prev.frame}; frame numbers must strictly increase`);
  if (prev && !(time > prev.time)) c.fail('time', `is ${time} s after ${prev.time} s (frame ${prev.frame}); time must strictly increase`);
  const B = header.bodies.length;
  const bodiesRaw = c.arr(o.bodies, 'bodies', B, `body states (one per header body, in header order)`);
  const bodies: RecordedBodyState[] = new Array(B);
  const fast = options.namingOnly !== true;
  for (let i = 0; i < B; i++) bodies[i] = (fast ? fastState(bodiesRaw[i], warn) : null) ?? readState(c, bodiesRaw[i], `bodies[${i}]`, warn);
  let pre: RecordedPreState[] | undefined;
  if (o.pre !== undefined) {
    const preRaw = c.arr(o.pre, 'pre', B, 'pre-solve states (one per header body)');
    pre = new Array(B);
    for (let i = 0; i < B; i++) {
      const quick = fast ? fastPre(preRaw[i], header.bodies[i], warn) : null;
      if (quick !== null) {
        pre[i] = quick;
        continue;
      }
      const f = `pre[${i}]`;
      const s = c.obj(preRaw[i], f);
      const v = c.vec3(s.v, `${f}.v`),
        w = c.vec3(s.w, `${f}.w`);
      const x = s.x === undefined ? undefined : bounded(c, c.vec3(s.x, `${f}.x`), `${f}.x`, 'm'),
        q = s.q === undefined ? undefined : c.quat(s.q, `${f}.q`, TOLERANCES, warn);
      warnUnknownKeys(s, PRE_KEYS, f, warn);
      // object literals, not spreads: V8 gives spread-built objects slow property access, and the diagnosis
      // reads these for every body of every frame
      pre[i] = x !== undefined && q !== undefined ? { v, w, x, q } : x !== undefined ? { v, w, x } : q !== undefined ? { v, w, q } : { v, w };
      checkPreEnergy(c, pre[i], header.bodies[i], f);
    }
  }
  const contactsRaw = c.arr(o.contacts, 'contacts');
  const C = contactsRaw.length;
  const contacts: RecordedContact[] = new Array(C);
  for (let i = 0; i < C; i++) contacts[i] = (fast ? fastContact(contactsRaw[i], header, warn) : null) ?? readContact(c, contactsRaw[i], i, header, warn);
  const so = c.obj(o.solver, 'solver');
  warnUnknownKeys(so, SOLVER_KEYS, 'solver', warn);
  const name = c.str(so.name, 'solver.name');
  const status = c.oneOf(so.status, 'solver.status', SOLVER_STATUSES);
  const reason = so.reason === undefined ? undefined : c.str(so.reason, 'solver.reason');
  const iterations = so.iterations === undefined ? undefined : c.int(so.iterations, 'solver.iterations', 0);
  const residuals = so.residuals === undefined ? undefined : c.nums(so.residuals, 'solver.residuals');
  const lambda = bounded(c, c.nums(so.lambda, 'solver.lambda', 3 * C, `numbers (3C for C = ${C} contacts: λn, λt1, λt2 per contact)`), 'solver.lambda', 'N·s');
  const solver: RecordedSolver = {
    name,
    status,
    ...(reason !== undefined ? { reason } : {}),
    ...(iterations !== undefined ? { iterations } : {}),
    ...(residuals !== undefined ? { residuals } : {}),
    lambda,
  };
  let result: RecordedFrame = { frame, time, bodies, ...(pre ? { pre } : {}), contacts, solver };
  if (o.A !== undefined) result = { ...result, A: c.nums(o.A, 'A', 9 * C * C, `numbers ((3C)² row-major for C = ${C} contacts)`) };
  if (o.b !== undefined) result = { ...result, b: c.nums(o.b, 'b', 3 * C, `numbers (3C for C = ${C} contacts)`) };
  if (o.energy !== undefined) {
    const eo = c.obj(o.energy, 'energy');
    const energy: Record<string, number> = {};
    for (const [k, x] of Object.entries(eo)) energy[k] = c.num(x, `energy.${k}`);
    result = { ...result, energy };
  }
  if (o.manifolds !== undefined) {
    const mr = c.arr(o.manifolds, 'manifolds');
    const manifolds: RecordedManifold[] = new Array(mr.length);
    const owner = new Map<number, number>();
    for (let m = 0; m < mr.length; m++) manifolds[m] = readManifold(c, mr[m], m, contacts, header, owner, warn);
    result = { ...result, manifolds };
  }
  if (o.external !== undefined) {
    const er = c.arr(o.external, 'external');
    const external: RecordedExternalImpulse[] = new Array(er.length);
    const seen = new Set<number>();
    for (let k = 0; k < er.length; k++) external[k] = readExternal(c, er[k], k, header, seen, warn);
    result = { ...result, external };
  }
  return result;
}

function readState(c: ValueReader, v: unknown, f: string, warn: FieldWarning | undefined): RecordedBodyState {
  const s = c.obj(v, f);
  const state = {
    x: bounded(c, c.vec3(s.x, `${f}.x`), `${f}.x`, 'm'),
    q: c.quat(s.q, `${f}.q`, TOLERANCES, warn),
    v: c.vec3(s.v, `${f}.v`),
    w: c.vec3(s.w, `${f}.w`),
  };
  warnUnknownKeys(s, STATE_KEYS, f, warn);
  return state;
}

/** True when the parsed JSON of a line is a format 1.1 initial-state line (an object with key "initial" and no "frame"). */
export function isInitialLine(raw: unknown): boolean {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'initial' in raw && !('frame' in raw);
}

/**
 * Validates a format 1.1 initial-state line `{"initial": {"time"?, "bodies": [{x, q, v, w}, …]}}` (line 2 of
 * the file) and converts it to our conventions when the header declared others.
 */
export function validateInitial(
  raw: unknown,
  lineNo: number,
  file: string,
  header: RecordingHeader,
  onWarning?: (field: string, detail: string) => void,
): RecordedInitialState {
  const c = new ValueReader(file, `line ${lineNo}: `);
  const warn: FieldWarning | undefined = onWarning && ((field, detail) => onWarning(safeText(field, MAX_FIELD_CHARS), safeText(detail, MAX_DETAIL_CHARS)));
  const o = c.obj(raw, '');
  warnUnknownKeys(o, ['initial'], '', warn);
  const io = c.obj(o.initial, 'initial');
  warnUnknownKeys(io, ['time', 'bodies'], 'initial', warn);
  const time = io.time === undefined ? undefined : c.num(io.time, 'initial.time');
  const B = header.bodies.length;
  const br = c.arr(io.bodies, 'initial.bodies', B, 'body states (one per header body, in header order)');
  const bodies: RecordedBodyState[] = new Array(B);
  for (let i = 0; i < B; i++) bodies[i] = readState(c, br[i], `initial.bodies[${i}]`, warn);
  const converted = header.declared ? convertStates(bodies, header.declared) : bodies;
  return time === undefined ? { bodies: converted } : { time, bodies: converted };
}

/** A right-handed unit frame (n, t1, t2) with t1 × t2 = n, named by its field prefix. */
function readFrameAxes(c: ValueReader, o: JsonRecord, f: string): { normal: Vec3; t1: Vec3; t2: Vec3 } {
  const normal = c.unit(o.normal, `${f}.normal`, TOLERANCES);
  const t1 = c.unit(o.t1, `${f}.t1`, TOLERANCES);
  const t2 = c.unit(o.t2, `${f}.t2`, TOLERANCES);
  const d1 = dot(t1, normal),
    d2 = dot(t2, normal);
  if (Math.abs(d1) > UNIT_TOLERANCE) c.fail(`${f}.t1`, `is not orthogonal to the normal (t1·n = ${d1.toExponential(2)})`);
  if (Math.abs(d2) > UNIT_TOLERANCE) c.fail(`${f}.t2`, `is not orthogonal to the normal (t2·n = ${d2.toExponential(2)})`);
  const x = cross(t1, t2);
  const dev = Math.max(Math.abs(x[0] - normal[0]), Math.abs(x[1] - normal[1]), Math.abs(x[2] - normal[2]));
  if (dev > UNIT_TOLERANCE) {
    c.fail(
      `${f}.t2`,
      dot(x, normal) < 0
        ? '(t1, t2, n) is left-handed: t1 × t2 = −n; swap t1 and t2 (and λt1, λt2) so that t1 × t2 = n'
        : `t1 × t2 must equal n (within ${UNIT_TOLERANCE.toExponential(0)}), off by ${dev.toExponential(2)}; t1 and t2 must be orthogonal`,
    );
  }
  return { normal, t1, t2 };
}

function readManifold(
  c: ValueReader,
  v: unknown,
  m: number,
  contacts: readonly RecordedContact[],
  header: RecordingHeader,
  owner: Map<number, number>,
  warn: FieldWarning | undefined,
): RecordedManifold {
  const f = `manifolds[${m}]`;
  const o = c.obj(v, f);
  const B = header.bodies.length;
  const a = c.num(o.a, `${f}.a`);
  if (!Number.isInteger(a) || a < 0 || a >= B) c.fail(`${f}.a`, `is ${a}, expected a body index 0…${B - 1}`);
  const b = c.num(o.b, `${f}.b`);
  if (!Number.isInteger(b) || b < -1 || b >= B) c.fail(`${f}.b`, `is ${b}, expected −1 (static world) or a body index 0…${B - 1}`);
  if (a === b) c.fail(`${f}.b`, `is ${b}, the same body as a; a manifold joins two different bodies`);
  const idx = c.nums(o.contacts, `${f}.contacts`);
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k];
    if (!Number.isInteger(i) || i < 0 || i >= contacts.length)
      c.fail(`${f}.contacts[${k}]`, `is ${i}, expected a contact index 0…${contacts.length - 1} of this frame`);
    if (contacts[i].a !== a || contacts[i].b !== b)
      c.fail(
        `${f}.contacts[${k}]`,
        `contact ${i} joins bodies ${contacts[i].a} and ${contacts[i].b}, but the manifold joins a = ${a} and b = ${b}; a manifold groups the contacts of one body pair`,
      );
    const prev = owner.get(i);
    if (prev !== undefined) c.fail(`${f}.contacts[${k}]`, `contact ${i} is already in manifolds[${prev}]; a contact belongs to at most one manifold`);
    owner.set(i, m);
  }
  const point = bounded(c, c.vec3(o.point, `${f}.point`), `${f}.point`, 'm');
  const axes = readFrameAxes(c, o, f);
  const lambda = bounded(c, c.nums(o.lambda, `${f}.lambda`, 3, 'numbers (λt1, λt2 in N·s and the twist impulse λtwist in N·m·s)'), `${f}.lambda`, 'N·s');
  warnUnknownKeys(o, MANIFOLD_KEYS, f, warn);
  return { a, b, contacts: idx, point, normal: axes.normal, t1: axes.t1, t2: axes.t2, lambda: [lambda[0], lambda[1], lambda[2]] };
}

function readExternal(
  c: ValueReader,
  v: unknown,
  k: number,
  header: RecordingHeader,
  seen: Set<number>,
  warn: FieldWarning | undefined,
): RecordedExternalImpulse {
  const f = `external[${k}]`;
  const o = c.obj(v, f);
  const B = header.bodies.length;
  const body = c.num(o.body, `${f}.body`);
  if (!Number.isInteger(body) || body < 0 || body >= B) c.fail(`${f}.body`, `is ${body}, expected a body index 0…${B - 1}`);
  if (header.bodies[body].static) c.fail(`${f}.body`, `is ${body} (${safeText(header.bodies[body].name)}), a static body: an impulse cannot move it`);
  const stage = o.stage === undefined ? 'before-solve' : c.oneOf(o.stage, `${f}.stage`, EXTERNAL_STAGES);
  const key = 2 * body + (stage === 'with-solve' ? 1 : 0);
  if (seen.has(key)) c.fail(`${f}.body`, `body ${body} has a second "${stage}" entry; sum the impulses of one body into one entry per stage`);
  seen.add(key);
  const impulse = bounded(c, c.vec3(o.impulse, `${f}.impulse`), `${f}.impulse`, 'N·s');
  const angular = o.angular === undefined ? undefined : bounded(c, c.vec3(o.angular, `${f}.angular`), `${f}.angular`, 'N·m·s');
  // the energy ledger multiplies impulses with velocities and inverse masses: an impulse whose own kinetic
  // energy |p|²/2m (|L|²/2I) overflows cannot enter it (1e308 gave ledgers of −∞ J and misattributed findings)
  const info = header.bodies[body];
  const overflows = (v: readonly number[], inertia: number | null): boolean =>
    inertia !== null && inertia > 0 && !Number.isFinite((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / (2 * inertia));
  const tooLarge = (what: string, energy: string): string =>
    `is so large that the energy it gives body ${body} (${energy}) is not a finite number; ${what} is force × Δt per step (docs/recording-format.md "External impulses")`;
  if (overflows(impulse, info.mass)) c.fail(`${f}.impulse`, tooLarge('an impulse', '|p|²/2m'));
  if (angular && overflows(angular, smallestMoment(info.inertia))) c.fail(`${f}.angular`, tooLarge('an angular impulse', '|L|²/2I'));
  warnUnknownKeys(o, EXTERNAL_KEYS, f, warn);
  return angular === undefined ? { body, impulse, stage } : { body, impulse, angular, stage };
}

/** Smallest principal moment of a body's inertia (3 moments or a 3×3 tensor's diagonal), or null. */
function smallestMoment(inertia: RecordedBody['inertia']): number | null {
  if (inertia === null) return null;
  return inertia.length === 3 ? Math.min(inertia[0], inertia[1], inertia[2]) : Math.min(inertia[0], inertia[4], inertia[8]);
}

function readContact(c: ValueReader, v: unknown, i: number, header: RecordingHeader, warn: FieldWarning | undefined): RecordedContact {
  const f = `contacts[${i}]`;
  const o = c.obj(v, f);
  const B = header.bodies.length;
  const a = c.num(o.a, `${f}.a`);
  if (!Number.isInteger(a) || a < 0 || a >= B) {
    c.fail(
      `${f}.a`,
      a === -1 ? 'is −1, but only b may be the static world (−1): swap a and b, negate n and t1, and negate λt2' : `is ${a}, expected a body index 0…${B - 1}`,
    );
  }
  const b = c.num(o.b, `${f}.b`);
  if (!Number.isInteger(b) || b < -1 || b >= B) c.fail(`${f}.b`, `is ${b}, expected −1 (static world) or a body index 0…${B - 1}`);
  if (a === b) c.fail(`${f}.b`, `is ${b}, the same body as a; a contact joins two different bodies`);
  const point = bounded(c, c.vec3(o.point, `${f}.point`), `${f}.point`, 'm');
  const { normal, t1, t2 } = readFrameAxes(c, o, f);
  const depth = c.num(o.depth, `${f}.depth`);
  if (depth < 0)
    c.fail(
      `${f}.depth`,
      `is ${depth}; depth is the penetration (m) and must be ≥ 0 (write 0 for touching or speculative contacts, and the distance of a speculative one as "gap")`,
    );
  const gap = o.gap === undefined ? 0 : c.num(o.gap, `${f}.gap`);
  if (gap < 0) c.fail(`${f}.gap`, `is ${gap}; gap is the distance (m) between the surfaces of a speculative contact and must be ≥ 0`);
  if (gap > 0 && depth > 0)
    c.fail(`${f}.gap`, `is ${gap} while depth is ${depth}; a contact is either apart (gap) or overlapping (depth): write 0 for the other`);
  const mu = c.num(o.mu, `${f}.mu`);
  if (mu < 0) c.fail(`${f}.mu`, `is ${mu}; friction coefficients must be ≥ 0`);
  const e = c.num(o.e, `${f}.e`);
  if (e < 0) c.fail(`${f}.e`, `is ${e}; restitution must be ≥ 0`);
  if (e > 1) warn?.(`${f}.e`, `restitution ${e} > 1 creates energy at every bounce`);
  if (warn && (b === -1 || header.bodies[b].static) && header.bodies[a].static) warn(f, 'joins two static bodies: its rows of A are zero and λ has no effect');
  warnUnknownKeys(o, CONTACT_KEYS, f, warn);
  // object literals, not a spread: V8 gives spread-built objects slow property access, and every analysis
  // reads every contact (a 1000-box pile has 780 000)
  const feature = o.feature === undefined ? undefined : c.str(o.feature, `${f}.feature`);
  const soft = o.soft === undefined ? undefined : readSoft(c, o.soft, `${f}.soft`, warn);
  if (gap === 0 && feature === undefined && soft === undefined) return { a, b, point, normal, t1, t2, depth, mu, e };
  // the optional fields are added to the literal (property additions keep V8's fast properties; a spread does not)
  const out: { -readonly [K in keyof RecordedContact]: RecordedContact[K] } = { a, b, point, normal, t1, t2, depth, mu, e };
  if (gap > 0) out.gap = gap;
  if (feature !== undefined) out.feature = feature;
  if (soft !== undefined) out.soft = soft;
  return out;
}

// ─── the success path without field names ──────────────────────────────────────────────────────────
// A seek parses one frame line; the pile's busiest has 6558 contacts and 1000 bodies. readContact and
// readState build a field path (`contacts[17].normal`) for every check, whether it fails or not. The
// functions below make the same checks on the same values with no string, closure or array built, and
// return null as soon as anything is off (a failed check, a warning due, an unusual representation such
// as a typed array); the caller then runs the naming reader on that item, which throws or warns exactly
// as before. So what is accepted, refused and warned about is decided by the naming readers alone: a
// fast path either agrees with them or steps aside.

/** A JSON object (not null, not an array): ValueReader.obj's test. */
const isRecord = (v: unknown): v is JsonRecord => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A plain array of 3 finite numbers (ValueReader.vec3 also takes typed arrays: those go the naming way). */
const isVec3 = (v: unknown): v is Vec3 => Array.isArray(v) && v.length === 3 && Number.isFinite(v[0]) && Number.isFinite(v[1]) && Number.isFinite(v[2]);

/**
 * |‖v‖ − 1| ≤ tol decided from s = ‖v‖² when that is sure, without Math.hypot (~70 ns a call; a busy frame has
 * ~10⁴ unit vectors and quaternions): |‖v‖ − 1| = |s − 1| / (1 + ‖v‖) ≤ |s − 1| / (2 − tol), so |s − 1| ≤ tol
 * (s computed within a few ulps, ≪ tol) means ‖v‖ is within tol/2 of 1 and Math.hypot's test passes too.
 * False means "not sure": the caller then makes Math.hypot's test, so exactly the same vectors pass as before.
 */
const surelyNearUnit = (s: number, tol: number): boolean => Math.abs(s - 1) <= tol;

/** ValueReader.unit's test: the same vectors pass (Math.hypot decides unless surelyNearUnit). */
const isUnit = (v: unknown): v is Vec3 =>
  isVec3(v) && (surelyNearUnit(v[0] * v[0] + v[1] * v[1] + v[2] * v[2], UNIT_TOLERANCE) || Math.abs(hypot3(v[0], v[1], v[2]) - 1) <= UNIT_TOLERANCE);

/**
 * A quaternion that ValueReader.quat accepts without a warning: 4 finite numbers with |‖q‖ − 1| within
 * the error tolerance, and within the unit tolerance when a warning could be due.
 */
function isQuietQuat(v: unknown, warn: FieldWarning | undefined): v is Quat {
  if (!Array.isArray(v) || v.length !== 4) return false;
  const w = v[0],
    x = v[1],
    y = v[2],
    z = v[3];
  if (!Number.isFinite(w) || !Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) return false;
  // within both tolerances (UNIT_TOLERANCE < QUATERNION_ERROR_TOLERANCE) for sure, or Math.hypot decides
  if (surelyNearUnit(w * w + x * x + y * y + z * z, UNIT_TOLERANCE)) return true;
  const dev = Math.abs(hypot4(w, x, y, z) - 1);
  return dev <= QUATERNION_ERROR_TOLERANCE && (warn === undefined || dev <= UNIT_TOLERANCE);
}

/** True when warnUnknownKeys would warn about a key of o (only asked when warnings are collected). */
function hasUnknownKey(o: JsonRecord, allowed: readonly string[]): boolean {
  // for…in with the own-key test (Object.keys' keys) and no key array per object: the open checks every contact
  for (const k in o) if (!allowed.includes(k) && !k.startsWith('x-') && Object.hasOwn(o, k)) return true;
  return false;
}

/** readState's value when it would pass silently, else null. */
function fastState(v: unknown, warn: FieldWarning | undefined): RecordedBodyState | null {
  if (!isRecord(v)) return null;
  const x = v.x,
    q = v.q,
    vel = v.v,
    w = v.w;
  if (!isVec3(x) || !inBounds(x) || !isQuietQuat(q, warn) || !isVec3(vel) || !isVec3(w)) return null;
  if (warn && hasUnknownKey(v, STATE_KEYS)) return null;
  return { x, q, v: vel, w };
}

/** A pre-solve state as validateFrame builds it when it would pass silently, else null. */
function fastPre(v: unknown, body: RecordedBody, warn: FieldWarning | undefined): RecordedPreState | null {
  if (!isRecord(v)) return null;
  const vel = v.v,
    w = v.w,
    x = v.x,
    q = v.q;
  if (!isVec3(vel) || !isVec3(w) || kineticOverflows(vel, body.mass) || kineticOverflows(w, largestMoment(body.inertia))) return null;
  if (x !== undefined && !(isVec3(x) && inBounds(x))) return null;
  if (q !== undefined && !isQuietQuat(q, warn)) return null;
  if (warn && hasUnknownKey(v, PRE_KEYS)) return null;
  return x !== undefined && q !== undefined ? { v: vel, w, x, q } : x !== undefined ? { v: vel, w, x } : q !== undefined ? { v: vel, w, q } : { v: vel, w };
}

/** readContact's value when it would pass silently, else null (the same checks, in readContact's terms). */
function fastContact(v: unknown, header: RecordingHeader, warn: FieldWarning | undefined): RecordedContact | null {
  if (!isRecord(v)) return null;
  const B = header.bodies.length;
  const a = v.a,
    b = v.b;
  if (typeof a !== 'number' || !Number.isInteger(a) || a < 0 || a >= B) return null;
  if (typeof b !== 'number' || !Number.isInteger(b) || b < -1 || b >= B || a === b) return null;
  const point = v.point,
    normal = v.normal,
    t1 = v.t1,
    t2 = v.t2;
  if (!isVec3(point) || !inBounds(point) || !isUnit(normal) || !isUnit(t1) || !isUnit(t2)) return null;
  // readFrameAxes: t1·n, t2·n and t1 × t2 − n, with the same arithmetic
  const d1 = t1[0] * normal[0] + t1[1] * normal[1] + t1[2] * normal[2],
    d2 = t2[0] * normal[0] + t2[1] * normal[1] + t2[2] * normal[2];
  if (!(Math.abs(d1) <= UNIT_TOLERANCE) || !(Math.abs(d2) <= UNIT_TOLERANCE)) return null;
  const cx = t1[1] * t2[2] - t1[2] * t2[1],
    cy = t1[2] * t2[0] - t1[0] * t2[2],
    cz = t1[0] * t2[1] - t1[1] * t2[0];
  if (!(Math.max(Math.abs(cx - normal[0]), Math.abs(cy - normal[1]), Math.abs(cz - normal[2])) <= UNIT_TOLERANCE)) return null;
  const depth = v.depth,
    mu = v.mu,
    e = v.e;
  if (!Number.isFinite(depth) || !Number.isFinite(mu) || !Number.isFinite(e)) return null;
  if ((depth as number) < 0 || (mu as number) < 0 || (e as number) < 0) return null;
  let gap = 0;
  if (v.gap !== undefined) {
    if (!Number.isFinite(v.gap) || (v.gap as number) < 0) return null;
    gap = v.gap as number;
    if (gap > 0 && (depth as number) > 0) return null;
  }
  const feature = v.feature;
  if (feature !== undefined && typeof feature !== 'string') return null;
  let soft: SoftContactParameters | undefined;
  if (v.soft !== undefined) {
    const s = v.soft;
    if (!isRecord(s) || !Number.isFinite(s.k) || !Number.isFinite(s.c) || (s.k as number) < 0 || (s.c as number) < 0) return null;
    if (warn && hasUnknownKey(s, SOFT_KEYS)) return null;
    soft = { k: s.k as number, c: s.c as number };
  }
  if (warn) {
    // the warnings readContact gives: e > 1, a contact between two static bodies, unknown keys
    if ((e as number) > 1 || ((b === -1 || header.bodies[b].static) && header.bodies[a].static) || hasUnknownKey(v, CONTACT_KEYS)) return null;
  }
  const depthN = depth as number,
    muN = mu as number,
    eN = e as number;
  if (gap === 0 && feature === undefined && soft === undefined) return { a, b, point, normal, t1, t2, depth: depthN, mu: muN, e: eN };
  const out: { -readonly [K in keyof RecordedContact]: RecordedContact[K] } = { a, b, point, normal, t1, t2, depth: depthN, mu: muN, e: eN };
  if (gap > 0) out.gap = gap;
  if (feature !== undefined) out.feature = feature;
  if (soft !== undefined) out.soft = soft;
  return out;
}
