/**
 * Recording format, version 1 (docs/recording-format.md; schemas/recording-*.schema.json).
 *
 * JSON Lines, UTF-8: line 1 is the header (bodies, conventions, dt, gravity, solver), every further
 * non-blank line is one frame (post-step body states, pre-solve velocities, contacts, λ, solver status,
 * optional A and b, energy). Recordings are written by our engine AND by other engines, so everything is
 * validated and every error names the file, the line and the field:
 *   FormatError(file, "line 17: contacts[2].normal", "is not a unit vector …").
 *
 * Pure: no Node imports (the readers/writers that touch files are in recordingFile.ts).
 */
import { describeValue as describe, FormatError, hasUnsafeCharacters, MAX_DETAIL_CHARS, MAX_FIELD_CHARS, safeText, suggest } from './messages.js';
import type { BodyState, ContactPoint } from '../engine/problem.js';
import type { ShapeDesc } from '../engine/world/types.js';
import { quatToMat3 } from '../engine/math/quat.js';
import { mul, transpose, ZERO3, type Mat3 } from '../engine/math/mat3.js';
import type { Quat } from '../engine/math/quat.js';
import type { Vec3 } from '../engine/math/vec3.js';
import { CONVENTION_VALUES, conversions, convertFrame, convertHeader, type DeclaredConventions } from './conventions.js';

export const RECORDING_FORMAT = 'contact-lens-recording';
export const RECORDING_VERSION = 1;
/** Tolerance on |n| = 1, |t1| = |t2| = 1, t·n = 0 and t1 × t2 = n (and |q| = 1 before a warning). */
export const UNIT_TOLERANCE = 1e-6;
/** |q| may deviate from 1 by up to this much (with a warning above UNIT_TOLERANCE); beyond it, an error. */
export const QUATERNION_ERROR_TOLERANCE = 1e-3;

// ─── types ──────────────────────────────────────────────────────────────────────────────────────────

/**
 * Our conventions (DESIGN.md): every header and frame in memory is in them. A file may declare others
 * (conventions.ts lists the accepted ones); the reader converts them on read and the header says so.
 */
export interface RecordingConventions {
  readonly up: 'z';
  readonly quaternion: 'wxyz';
  readonly normal: 'b-to-a';
  readonly impulse: 'per-step';
}

export const CONVENTIONS: RecordingConventions = { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' };

/** A shape as written in the file: an object with exactly one key naming the kind. */
export type RecordedShape =
  | { readonly sphere: { readonly radius: number } }
  | { readonly box: { readonly halfExtents: Vec3 } }
  /** Static half-space {x : n·x ≤ offset}; n is the outward unit normal. */
  | { readonly plane: { readonly normal: Vec3; readonly offset: number } }
  /** A shape Contact Lens does not know (capsule, mesh, …): kept as written, `type` names it. */
  | { readonly other: { readonly type?: string; readonly [key: string]: unknown } };

export interface RecordedBody {
  readonly name: string;
  readonly shape: RecordedShape;
  /** kg; null for a static body (inverse mass 0, inverse inertia 0). */
  readonly mass: number | null;
  /**
   * Body-frame inertia about the centre of mass (kg·m²): 3 principal moments (the body axes are the
   * principal axes) or the full 3×3 tensor row-major. null (or absent in the file) for static bodies.
   */
  readonly inertia: Vec3 | Mat3 | null;
  /** true ⇔ mass is null. */
  readonly static: boolean;
}

/** Header `solver`: the engine's solver and its parameters, free-form (recommended keys in the docs). */
export interface RecordedSolverConfig {
  readonly name: string;
  readonly [parameter: string]: unknown;
}

export interface RecordingHeader {
  readonly format: typeof RECORDING_FORMAT;
  readonly version: typeof RECORDING_VERSION;
  readonly producer: { readonly name: string; readonly version?: string };
  readonly units: 'SI';
  readonly conventions: RecordingConventions;
  /** Time step (s), > 0. */
  readonly dt: number;
  /** m/s². */
  readonly gravity: Vec3;
  readonly bodies: readonly RecordedBody[];
  readonly solver?: RecordedSolverConfig;
  /**
   * The conventions the file declared when they differ from ours: the reader converted this header and
   * converts every frame (conventions.ts); `converted` says what, in words.
   */
  readonly declared?: DeclaredConventions;
  readonly converted?: readonly string[];
}

/** Post-step state of one body, world frame: centre of mass (m), orientation body → world, v (m/s), ω (rad/s). */
export interface RecordedBodyState {
  readonly x: Vec3;
  readonly q: Quat;
  readonly v: Vec3;
  readonly w: Vec3;
}

/**
 * The state the contact problem was built from: velocities after external forces, before the contact
 * solve; optionally the pose used for the contact geometry (default: the previous frame's post-step pose).
 */
export interface RecordedPreState {
  readonly v: Vec3;
  readonly w: Vec3;
  readonly x?: Vec3;
  readonly q?: Quat;
}

export interface RecordedContact {
  /** Body index (0-based, header order). */
  readonly a: number;
  /** Body index, or −1 for the static world. */
  readonly b: number;
  /** World-space contact point (m). */
  readonly point: Vec3;
  /** Unit normal pointing from b into a. */
  readonly normal: Vec3;
  /** Unit tangents with t1 × t2 = n. */
  readonly t1: Vec3;
  readonly t2: Vec3;
  /** Penetration depth (m), ≥ 0. */
  readonly depth: number;
  /** Combined friction coefficient, ≥ 0. */
  readonly mu: number;
  /** Combined restitution coefficient, ≥ 0 (> 1 is accepted with a warning). */
  readonly e: number;
  /** Stable feature id, to match contacts across frames. */
  readonly feature?: string;
}

export type RecordedSolverStatus = 'converged' | 'max-iterations' | 'stalled' | 'failed';
export const SOLVER_STATUSES: readonly RecordedSolverStatus[] = ['converged', 'max-iterations', 'stalled', 'failed'];

export interface RecordedSolver {
  readonly name: string;
  readonly status: RecordedSolverStatus;
  /** Why the solver did not converge (free text). */
  readonly reason?: string;
  readonly iterations?: number;
  /** The engine's own residual measure, one per iteration (the last is the final residual). */
  readonly residuals?: readonly number[];
  /** Impulses (N·s) in the 3C layout (λn, λt1, λt2) per contact. */
  readonly lambda: readonly number[];
}

export interface RecordedFrame {
  /** Step index, strictly increasing (gaps allowed). */
  readonly frame: number;
  /** Simulated time at the END of the step (s); strictly increasing. */
  readonly time: number;
  /** Post-step state, header order. */
  readonly bodies: readonly RecordedBodyState[];
  readonly pre?: readonly RecordedPreState[];
  readonly contacts: readonly RecordedContact[];
  readonly solver: RecordedSolver;
  /** The matrix the engine solved with, (3C)² row-major. */
  readonly A?: readonly number[];
  /** The right-hand side the engine solved with, 3C. */
  readonly b?: readonly number[];
  /** Free-form energies (J), e.g. kinetic, potential, total. */
  readonly energy?: { readonly [name: string]: number };
}

export interface ParseFrameOptions {
  /** The previous valid frame: its number and time must be strictly smaller. */
  readonly previous?: { readonly frame: number; readonly time: number };
  /** Non-fatal findings (unknown fields, e > 1, …); `field` has no line prefix. */
  readonly onWarning?: (field: string, detail: string) => void;
}

// ─── serialisation ──────────────────────────────────────────────────────────────────────────────────

/**
 * JSON text of a value, one line. Numbers use the shortest representation that round-trips (ECMAScript
 * Number → String), except −0, which JSON.stringify would write as 0. Non-finite numbers throw (JSON has
 * no NaN/Infinity). Typed arrays are written as arrays; undefined object members are left out.
 */
export function toJsonLine(value: unknown, path = '(root)'): string {
  const out: string[] = [];
  write(value, path, out);
  return out.join('');
}

function write(v: unknown, path: string, out: string[]): void {
  if (v === null) {
    out.push('null');
    return;
  }
  switch (typeof v) {
    case 'number':
      if (!Number.isFinite(v)) throw new RangeError(`${path}: ${v} is not a finite number; JSON cannot represent it`);
      out.push(Object.is(v, -0) ? '-0' : String(v));
      return;
    case 'string':
      out.push(JSON.stringify(v));
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
    case 'object': {
      if (Array.isArray(v) || isNumericView(v)) {
        const a = v as ArrayLike<unknown>;
        out.push('[');
        for (let i = 0; i < a.length; i++) {
          if (i > 0) out.push(',');
          const x = a[i];
          if (typeof x === 'number' && Number.isFinite(x)) out.push(Object.is(x, -0) ? '-0' : String(x));
          else write(x, `${path}[${i}]`, out);
        }
        out.push(']');
        return;
      }
      out.push('{');
      let first = true;
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (x === undefined) continue;
        if (!first) out.push(',');
        first = false;
        out.push(JSON.stringify(k), ':');
        write(x, path === '(root)' ? k : `${path}.${k}`, out);
      }
      out.push('}');
      return;
    }
    default:
      throw new TypeError(`${path}: cannot write a ${typeof v} to JSON`);
  }
}

function isNumericView(v: unknown): v is ArrayLike<number> {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

/**
 * The header as one line (no newline). Keys in the documented order, then the writer's top-level vendor
 * extensions (keys starting with "x-", docs/recording-format.md "How files are read"), which readers ignore.
 */
export function serializeHeader(h: RecordingHeader): string {
  const vendor = Object.entries(h as unknown as Record<string, unknown>).filter(([k]) => k.startsWith('x-'));
  return toJsonLine({
    format: h.format,
    version: h.version,
    producer: { name: h.producer.name, version: h.producer.version },
    units: h.units,
    conventions: { up: h.conventions.up, quaternion: h.conventions.quaternion, normal: h.conventions.normal, impulse: h.conventions.impulse },
    dt: h.dt,
    gravity: h.gravity,
    bodies: h.bodies.map((b) => ({ name: b.name, shape: b.shape, mass: b.mass, inertia: b.inertia, static: b.static })),
    solver: h.solver,
    ...Object.fromEntries(vendor),
  });
}

/** One frame as one line (no newline). Keys in the documented order. */
export function serializeFrame(f: RecordedFrame): string {
  return toJsonLine({
    frame: f.frame,
    time: f.time,
    bodies: f.bodies.map((s) => ({ x: s.x, q: s.q, v: s.v, w: s.w })),
    pre: f.pre?.map((p) => ({ v: p.v, w: p.w, x: p.x, q: p.q })),
    contacts: f.contacts.map((c) => ({
      a: c.a,
      b: c.b,
      point: c.point,
      normal: c.normal,
      t1: c.t1,
      t2: c.t2,
      depth: c.depth,
      mu: c.mu,
      e: c.e,
      feature: c.feature,
    })),
    solver: {
      name: f.solver.name,
      status: f.solver.status,
      reason: f.solver.reason,
      iterations: f.solver.iterations,
      residuals: f.solver.residuals,
      lambda: f.solver.lambda,
    },
    A: f.A,
    b: f.b,
    energy: f.energy,
  });
}

// ─── JSON parsing with NaN/Infinity detection ──────────────────────────────────────────────────────

const NONFINITE_MARK = '\u0000nonfinite:';
/** Tokens other engines write for non-finite numbers: JavaScript/Python (NaN, Infinity), C printf (nan, inf, -nan). */
const NONFINITE_TOKEN = /[-+]?(?:nan|infinity|inf)(?:\([^)]*\))?(?![A-Za-z0-9_])/iy;

/**
 * JSON.parse one line. When it fails, looks for NaN/Infinity/nan/inf tokens outside strings; if there are
 * any, the field holding the first one is reported; otherwise the JSON error is.
 */
export function parseJsonLine(text: string, file: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const marked = markNonFinite(text);
    if (marked !== null) {
      let v: unknown;
      try {
        v = JSON.parse(marked);
      } catch {
        v = undefined;
      }
      if (v !== undefined) {
        const hit = findMark(v);
        if (hit) {
          throw new FormatError(
            file,
            `${where}${hit.path || '(root)'}`,
            `is ${hit.token}, which is not a JSON number: the value was not finite when it was written (JSON has no NaN/Infinity; fix it at the source or write the frame with status "failed")`,
          );
        }
      }
    }
    throw new FormatError(file, `${where}(json)`, jsonErrorDetail(e as Error, text));
  }
}

function jsonErrorDetail(e: Error, text: string): string {
  const m = /at position (\d+)/.exec(e.message);
  const msg = e.message.length > 160 ? e.message.slice(0, 160) + '…' : e.message;
  if (/Unexpected end of JSON input|Unterminated string|end of (JSON|data)/i.test(e.message) || (m && Number(m[1]) >= text.trimEnd().length)) {
    return `malformed JSON: the line ends before the JSON value is complete (${msg})`;
  }
  return m ? `malformed JSON at column ${Number(m[1]) + 1}: ${msg}` : `malformed JSON: ${msg}`;
}

function markNonFinite(text: string): string | null {
  let out: string[] | null = null;
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22) {
      // string: skip to its closing quote
      i++;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c === 0x5c) i += 2;
        else if (c === 0x22) {
          i++;
          break;
        } else i++;
      }
      continue;
    }
    if (ch === 0x2d || ch === 0x2b || ch === 0x4e || ch === 0x6e || ch === 0x49 || ch === 0x69) {
      // - + N n I i
      const prev = i > 0 ? text[i - 1] : '';
      if (prev === '' || /[\s,:[]/.test(prev)) {
        NONFINITE_TOKEN.lastIndex = i;
        const m = NONFINITE_TOKEN.exec(text);
        if (m) {
          out ??= [];
          out.push(text.slice(last, i), JSON.stringify(NONFINITE_MARK + m[0]));
          i += m[0].length;
          last = i;
          continue;
        }
      }
    }
    i++;
  }
  if (!out) return null;
  out.push(text.slice(last));
  return out.join('');
}

/** Containers deeper than this are not searched for a non-finite token (the JSON error is reported instead). */
const MAX_MARK_DEPTH = 512;

/**
 * The first marked non-finite token in document order and its JSON path. Iterative with an explicit
 * stack and depth-bounded: a line of thousands of nested arrays cannot overflow the call stack.
 */
function findMark(root: unknown): { path: string; token: string } | null {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: root, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.startsWith(NONFINITE_MARK)) return { path, token: v.slice(NONFINITE_MARK.length) };
      continue;
    }
    if (v === null || typeof v !== 'object' || depth >= MAX_MARK_DEPTH) continue;
    const entries: [string, unknown][] = Array.isArray(v)
      ? v.map((x, i) => [`${path}[${i}]`, x])
      : Object.entries(v).map(([k, x]) => [path ? `${path}.${k}` : k, x]);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ v: entries[i][1], path: entries[i][0], depth: depth + 1 });
  }
  return null;
}

// ─── validation helpers ────────────────────────────────────────────────────────────────────────────

type Json = Record<string, unknown>;
type Warn = (field: string, detail: string) => void;

class Check {
  constructor(
    readonly file: string,
    readonly where: string,
  ) {}
  fail(field: string, detail: string): never {
    throw new FormatError(this.file, `${this.where}${field || '(root)'}`, detail);
  }
  obj(v: unknown, field: string): Json {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(field, `expected an object, got ${describe(v)}`);
    return v as Json;
  }
  num(v: unknown, field: string): number {
    if (typeof v !== 'number' || !Number.isFinite(v)) this.notNumber(v, field);
    return v;
  }
  notNumber(v: unknown, field: string): never {
    if (v === null)
      this.fail(
        field,
        'expected a finite number, got null (writers such as serde_json and JSON.stringify write NaN and ±Infinity as null: the value was probably not finite)',
      );
    this.fail(field, `expected a finite number, got ${describe(v)}`);
  }
  int(v: unknown, field: string, min: number): number {
    const x = this.num(v, field);
    if (!Number.isSafeInteger(x)) this.fail(field, `expected an integer, got ${x}`);
    if (x < min) this.fail(field, `is ${x}, expected an integer ≥ ${min}`);
    return x;
  }
  str(v: unknown, field: string): string {
    if (typeof v !== 'string') this.fail(field, `expected a string, got ${describe(v)}`);
    return v;
  }
  bool(v: unknown, field: string): boolean {
    if (typeof v !== 'boolean') this.fail(field, `expected true or false, got ${describe(v)}`);
    return v;
  }
  arr(v: unknown, field: string, len?: number, what = 'entries'): ArrayLike<unknown> {
    if (!Array.isArray(v) && !isNumericView(v)) this.fail(field, `expected an array, got ${describe(v)}`);
    const a = v as ArrayLike<unknown>;
    if (len !== undefined && a.length !== len) this.fail(field, `expected ${len} ${what}, got ${a.length}`);
    return a;
  }
  /** Validates in place and returns the same array (no copy: A can hold millions of numbers). */
  nums(v: unknown, field: string, len?: number, what?: string): number[] {
    const a = this.arr(v, field, len, what);
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      if (typeof x !== 'number' || !Number.isFinite(x)) this.notNumber(x, `${field}[${i}]`);
    }
    return a as number[];
  }
  vec3(v: unknown, field: string): Vec3 {
    return this.nums(v, field, 3, 'numbers [x, y, z]') as unknown as Vec3;
  }
  unit(v: unknown, field: string): Vec3 {
    const a = this.vec3(v, field);
    const len = Math.hypot(a[0], a[1], a[2]);
    if (!(Math.abs(len - 1) <= UNIT_TOLERANCE)) {
      this.fail(
        field,
        len === 0
          ? 'is the zero vector, expected a unit vector'
          : `is not a unit vector: length ${len} (|length − 1| = ${Math.abs(len - 1).toExponential(2)} > ${UNIT_TOLERANCE.toExponential(0)})`,
      );
    }
    return a;
  }
  quat(v: unknown, field: string, warn: Warn | undefined): Quat {
    const q = this.nums(v, field, 4, 'numbers [w, x, y, z]') as unknown as Quat;
    const len = Math.hypot(q[0], q[1], q[2], q[3]);
    const dev = Math.abs(len - 1);
    if (!(dev <= QUATERNION_ERROR_TOLERANCE)) this.fail(field, `is not a unit quaternion: length ${len}`);
    if (dev > UNIT_TOLERANCE)
      warn?.(field, `quaternion length ${len} deviates from 1 by ${dev.toExponential(2)} (> ${UNIT_TOLERANCE.toExponential(0)}); normalised on use`);
    return q;
  }
  oneOf<T extends string>(v: unknown, field: string, allowed: readonly T[]): T {
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
      this.fail(field, `expected one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${describe(v)}`);
    }
    return v as T;
  }
}

/** Unknown keys: a warning (with a spelling suggestion); keys starting with "x-" are vendor extensions, silently ignored. */
function unknownKeys(o: Json, allowed: readonly string[], path: string, warn: Warn | undefined): void {
  if (!warn) return;
  for (const k of Object.keys(o)) {
    if (allowed.includes(k) || k.startsWith('x-')) continue;
    const near = suggest(k, allowed);
    warn(path ? `${path}.${k}` : k, `unknown field, ignored${near ? ` (did you mean "${near}"?)` : ''}; vendor extensions start with "x-"`);
  }
}

const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/**
 * A name that is only shown (producer, body): control characters (ANSI escapes, line breaks) are kept
 * visible as escapes (\u001b, \n) with a warning, so that printing it cannot rewrite a terminal.
 */
function label(s: string, field: string, warn: Warn): string {
  if (!hasUnsafeCharacters(s)) return s;
  warn(field, 'contains control characters; shown escaped');
  return safeText(s, s.length);
}

// ─── header ─────────────────────────────────────────────────────────────────────────────────────────

const HEADER_KEYS = ['format', 'version', 'producer', 'units', 'conventions', 'dt', 'gravity', 'bodies', 'solver'];
const BODY_KEYS = ['name', 'shape', 'mass', 'inertia', 'static'];

const CONVENTION_HINTS: Record<keyof DeclaredConventions, string> = {
  up: 'declare "z" (ours) or "y" (converted on read: (x, y, z) ↦ (x, −z, y), q ↦ (cos 45°, sin 45°, 0, 0) ⊗ q)',
  quaternion: 'declare "wxyz" (ours: scalar first, body → world) or "xyzw" (converted on read)',
  normal: 'declare "b-to-a" (ours: n from b into a, pushing a along +n) or "a-to-b" (Box2D: n from a into b, pushing b; converted on read)',
  impulse: 'declare "per-step" (ours: the impulse of the step, N·s) or "force" (λ·Δt on read)',
  angularVelocity: 'declare "world" (ours) or "body" (rotated to world on read)',
};

/** Parses and validates the header line. Unknown shapes, fields and suspicious inertias are warnings. */
export function parseHeader(line: string, file: string): { header: RecordingHeader; warnings: string[] } {
  const raw = parseJsonLine(line.trim(), file, 'line 1: ');
  return validateHeader(raw, file, { declared: true });
}

/** Validates a header object (parsed, or about to be written). */
export function validateHeader(raw: unknown, file: string, options: { readonly declared?: boolean } = {}): { header: RecordingHeader; warnings: string[] } {
  const where = 'line 1: ';
  const c = new Check(file, where);
  const warnings: string[] = [];
  const warn: Warn = (field, detail) =>
    warnings.push(`${safeText(file, 2 * MAX_FIELD_CHARS)}: ${where}${safeText(field, MAX_FIELD_CHARS)}: ${safeText(detail, MAX_DETAIL_CHARS)}`);
  const o = c.obj(raw, '');
  if (o.format !== RECORDING_FORMAT) {
    if ('frame' in o) c.fail('format', 'the first line must be the recording header, but it looks like a frame (the header is missing)');
    c.fail('format', `expected "${RECORDING_FORMAT}", got ${describe(o.format)}: this is not a Contact Lens recording header`);
  }
  const version = c.int(o.version, 'version', 1);
  if (version !== RECORDING_VERSION) c.fail('version', `is ${version}; this reader understands version ${RECORDING_VERSION} only (update Contact Lens)`);
  unknownKeys(o, HEADER_KEYS, '', warn);
  const po = c.obj(o.producer, 'producer');
  const producerName = label(c.str(po.name, 'producer.name'), 'producer.name', warn);
  if (producerName.trim() === '') c.fail('producer.name', 'must not be empty (name the engine that wrote the recording)');
  unknownKeys(po, ['name', 'version'], 'producer', warn);
  const producer =
    po.version === undefined ? { name: producerName } : { name: producerName, version: label(c.str(po.version, 'producer.version'), 'producer.version', warn) };
  if (o.units !== 'SI') c.fail('units', `expected "SI" (m, kg, s, N·s), got ${describe(o.units)}; convert before writing, we do not convert silently`);
  const co = c.obj(o.conventions, 'conventions');
  const declared = {} as Record<keyof DeclaredConventions, string>;
  for (const key of Object.keys(CONVENTION_VALUES) as (keyof DeclaredConventions)[]) {
    const values: readonly string[] = CONVENTION_VALUES[key];
    // angularVelocity is optional (format 1 files do not write it): world
    const v = co[key] === undefined && key === 'angularVelocity' ? 'world' : co[key];
    const ok = options.declared ? values.includes(v as string) : v === values[0];
    if (!ok)
      c.fail(
        `conventions.${key}`,
        options.declared
          ? `got ${describe(co[key])}: ${CONVENTION_HINTS[key]}`
          : `expected "${values[0]}", got ${describe(co[key])}: a writer writes our conventions (docs/recording-format.md, "Conventions")`,
      );
    declared[key] = v as string;
  }
  unknownKeys(co, Object.keys(CONVENTION_VALUES), 'conventions', warn);
  const dt = c.num(o.dt, 'dt');
  if (!(dt > 0)) c.fail('dt', `is ${dt}; the time step must be > 0 s`);
  const gravity = c.vec3(o.gravity, 'gravity');
  const bodiesRaw = c.arr(o.bodies, 'bodies');
  if (bodiesRaw.length === 0) c.fail('bodies', 'at least one body is required');
  const names = new Map<string, number>();
  const bodies: RecordedBody[] = [];
  for (let i = 0; i < bodiesRaw.length; i++) {
    const body = readBody(c, bodiesRaw[i], `bodies[${i}]`, warn);
    const prev = names.get(body.name);
    if (prev !== undefined) warn(`bodies[${i}].name`, `"${safeText(body.name)}" is also the name of bodies[${prev}]; names should be unique`);
    else names.set(body.name, i);
    bodies.push(body);
  }
  let header: RecordingHeader = {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    producer,
    units: 'SI',
    conventions: { ...CONVENTIONS },
    dt,
    gravity,
    bodies,
  };
  if (o.solver !== undefined) {
    const so = c.obj(o.solver, 'solver');
    const name = c.str(so.name, 'solver.name');
    header = { ...header, solver: { ...so, name } };
  }
  const d = declared as unknown as DeclaredConventions;
  const converted = conversions(d);
  if (converted.length) header = { ...convertHeader(header, d), declared: d, converted };
  return { header, warnings };
}

function readBody(c: Check, v: unknown, f: string, warn: Warn): RecordedBody {
  const o = c.obj(v, f);
  const name = label(c.str(o.name, `${f}.name`), `${f}.name`, warn);
  if (name === '') c.fail(`${f}.name`, 'must not be empty');
  unknownKeys(o, BODY_KEYS, f, warn);
  const shape = readShape(c, o.shape, `${f}.shape`, warn);
  const isStatic = c.bool(o.static, `${f}.static`);
  let mass: number | null = null;
  if (o.mass === null) {
    if (!isStatic) c.fail(`${f}.mass`, 'is null (a static body) but static is false; give the mass in kg or set static: true');
  } else {
    mass = c.num(o.mass, `${f}.mass`);
    if (mass === 0)
      c.fail(`${f}.mass`, 'is 0; write mass: null and static: true for a static body (mass 0 is how some engines mark static bodies; here it is explicit)');
    if (!(mass > 0)) c.fail(`${f}.mass`, `is ${mass}; mass must be > 0 kg (or null for a static body)`);
    if (isStatic) c.fail(`${f}.mass`, `is ${mass} but static is true; a static body has mass null (inverse mass 0)`);
  }
  if ('plane' in shape && !isStatic) c.fail(`${f}.static`, 'a plane is always static: set mass: null and static: true');
  let inertia: Vec3 | Mat3 | null = null;
  if (o.inertia === undefined || o.inertia === null) {
    if (!isStatic)
      c.fail(
        `${f}.inertia`,
        `is ${describe(o.inertia)}; a dynamic body needs its body-frame inertia: 3 principal moments or 9 numbers (row-major tensor), kg·m²`,
      );
  } else {
    const a = c.arr(o.inertia, `${f}.inertia`);
    if (a.length !== 3 && a.length !== 9)
      c.fail(`${f}.inertia`, `expected 3 principal moments or a 3×3 tensor (9 numbers, row-major), got ${a.length} numbers`);
    const I = c.nums(a, `${f}.inertia`);
    if (!isStatic) checkInertia(c, I, `${f}.inertia`);
    inertia = I as unknown as Vec3 | Mat3;
    if (!isStatic && mass !== null) inertiaPlausibility(shape, mass, I, `${f}.inertia`, warn);
  }
  return { name, shape, mass, inertia, static: isStatic };
}

function checkInertia(c: Check, I: readonly number[], f: string): void {
  if (I.length === 3) {
    for (let k = 0; k < 3; k++) if (!(I[k] > 0)) c.fail(`${f}[${k}]`, `is ${I[k]}; principal moments of inertia must be > 0 kg·m²`);
    return;
  }
  const scale = Math.max(...I.map(Math.abs));
  for (const [i, j] of [
    [0, 1],
    [0, 2],
    [1, 2],
  ]) {
    if (Math.abs(I[3 * i + j] - I[3 * j + i]) > 1e-6 * scale)
      c.fail(`${f}[${3 * i + j}]`, `the inertia tensor is not symmetric: I[${i}][${j}] = ${I[3 * i + j]} but I[${j}][${i}] = ${I[3 * j + i]}`);
  }
  const m1 = I[0],
    m2 = I[0] * I[4] - I[1] * I[3],
    m3 = det3(I);
  if (!(m1 > 0 && m2 > 0 && m3 > 0)) c.fail(f, 'the inertia tensor is not positive definite (leading minors must be > 0)');
}

/** Warns when the inertia does not look like the solid shape of that mass (a common bug: inverse or world-frame inertia). */
function inertiaPlausibility(shape: RecordedShape, mass: number, I: readonly number[], f: string, warn: Warn): void {
  let expected: Vec3 | null = null;
  if ('sphere' in shape) {
    const i = 0.4 * mass * shape.sphere.radius ** 2;
    expected = [i, i, i];
  }
  if ('box' in shape) {
    const [a, b, c] = shape.box.halfExtents;
    expected = [(mass / 3) * (b * b + c * c), (mass / 3) * (a * a + c * c), (mass / 3) * (a * a + b * b)];
  }
  const diag = I.length === 3 ? I : [I[0], I[4], I[8]];
  const scale = Math.max(...diag);
  if (expected) {
    const off = I.length === 9 ? Math.max(Math.abs(I[1]), Math.abs(I[2]), Math.abs(I[5])) : 0;
    const rel = Math.max(...diag.map((x, k) => Math.abs(x - expected[k]) / expected[k]), off / expected[0]);
    if (rel > 1e-3) {
      warn(
        f,
        `differs from a solid ${'sphere' in shape ? 'sphere' : 'box'} of ${mass} kg (expected [${expected.map((x) => x.toPrecision(6)).join(', ')}] kg·m², off by ${(100 * rel).toPrecision(3)}%): fine for a hollow or composite body, but check that it is not the inverse inertia or a world-frame tensor`,
      );
    }
  } else if (
    I.length === 3 &&
    (diag[0] + diag[1] < diag[2] * (1 - 1e-9) || diag[0] + diag[2] < diag[1] * (1 - 1e-9) || diag[1] + diag[2] < diag[0] * (1 - 1e-9))
  ) {
    warn(f, `principal moments ${diag.join(', ')} violate the triangle inequality (no rigid body has them, scale ${scale}): inverse inertia?`);
  }
}

function det3(m: readonly number[]): number {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

function readShape(c: Check, v: unknown, f: string, warn: Warn): RecordedShape {
  const o = c.obj(v, f);
  const keys = Object.keys(o).filter((k) => !k.startsWith('x-'));
  if (keys.length !== 1) {
    c.fail(f, `expected an object with exactly one of "sphere", "box", "plane", "other", got ${keys.length ? keys.map((k) => `"${k}"`).join(', ') : 'none'}`);
  }
  const kind = keys[0];
  const p = `${f}.${kind}`;
  switch (kind) {
    case 'sphere': {
      const s = c.obj(o.sphere, p);
      const radius = c.num(s.radius, `${p}.radius`);
      if (!(radius > 0)) c.fail(`${p}.radius`, `is ${radius}; must be > 0 m`);
      unknownKeys(s, ['radius'], p, warn);
      return { sphere: { radius } };
    }
    case 'box': {
      const s = c.obj(o.box, p);
      const halfExtents = c.vec3(s.halfExtents, `${p}.halfExtents`);
      for (let k = 0; k < 3; k++)
        if (!(halfExtents[k] > 0)) c.fail(`${p}.halfExtents[${k}]`, `is ${halfExtents[k]}; half extents must be > 0 m (half the edge length)`);
      unknownKeys(s, ['halfExtents'], p, warn);
      return { box: { halfExtents } };
    }
    case 'plane': {
      const s = c.obj(o.plane, p);
      const normal = c.unit(s.normal, `${p}.normal`);
      const offset = c.num(s.offset, `${p}.offset`);
      unknownKeys(s, ['normal', 'offset'], p, warn);
      return { plane: { normal, offset } };
    }
    case 'other': {
      const s = c.obj(o.other, p);
      if (s.type !== undefined) c.str(s.type, `${p}.type`);
      warn(
        p,
        `${s.type === undefined ? 'a shape' : `shape "${safeText(String(s.type))}"`} unknown to Contact Lens: accepted; it is shown as a marker and its contacts are taken from the recording as they are`,
      );
      return { other: s };
    }
    default: {
      const s = c.obj(o[kind], p);
      const near = suggest(kind, ['sphere', 'box', 'plane']);
      warn(p, `unknown shape kind "${safeText(kind)}"${near ? ` (did you mean "${near}"?)` : ''}: accepted as {"other": {"type": "${safeText(kind)}", …}}`);
      return { other: { type: kind, ...s } };
    }
  }
}

// ─── frames ─────────────────────────────────────────────────────────────────────────────────────────

const FRAME_KEYS = ['frame', 'time', 'bodies', 'pre', 'contacts', 'solver', 'A', 'b', 'energy'];
const STATE_KEYS = ['x', 'q', 'v', 'w'];
const PRE_KEYS = ['v', 'w', 'x', 'q'];
const CONTACT_KEYS = ['a', 'b', 'point', 'normal', 't1', 't2', 'depth', 'mu', 'e', 'feature'];
const SOLVER_KEYS = ['name', 'status', 'reason', 'iterations', 'residuals', 'lambda'];

/** Parses and validates one frame line (lineNo is 1-based, as an editor shows it). */
export function parseFrame(line: string, lineNo: number, file: string, header: RecordingHeader, options: ParseFrameOptions = {}): RecordedFrame {
  const raw = parseJsonLine(line, file, `line ${lineNo}: `);
  const f = validateFrame(raw, lineNo, file, header, options);
  return header.declared ? convertFrame(f, header.declared, header.dt) : f;
}

/** Validates a frame object (parsed, or about to be written). Numeric arrays are returned as they are (no copy). */
export function validateFrame(raw: unknown, lineNo: number, file: string, header: RecordingHeader, options: ParseFrameOptions = {}): RecordedFrame {
  const c = new Check(file, `line ${lineNo}: `);
  const onWarning = options.onWarning;
  const warn: Warn | undefined = onWarning && ((field, detail) => onWarning(safeText(field, MAX_FIELD_CHARS), safeText(detail, MAX_DETAIL_CHARS)));
  const o = c.obj(raw, '');
  if (o.frame === undefined && o.format !== undefined) {
    c.fail('format', 'a second header: a recording has exactly one header, on line 1 (were two recordings concatenated?)');
  }
  unknownKeys(o, FRAME_KEYS, '', warn);
  const frame = c.int(o.frame, 'frame', 0);
  const time = c.num(o.time, 'time');
  const prev = options.previous;
  if (prev && !(frame > prev.frame)) c.fail('frame', `is ${frame} after frame ${prev.frame}; frame numbers must strictly increase`);
  if (prev && !(time > prev.time)) c.fail('time', `is ${time} s after ${prev.time} s (frame ${prev.frame}); time must strictly increase`);
  const B = header.bodies.length;
  const bodiesRaw = c.arr(o.bodies, 'bodies', B, `body states (one per header body, in header order)`);
  const bodies: RecordedBodyState[] = new Array(B);
  for (let i = 0; i < B; i++) {
    const f = `bodies[${i}]`;
    const s = c.obj(bodiesRaw[i], f);
    bodies[i] = { x: c.vec3(s.x, `${f}.x`), q: c.quat(s.q, `${f}.q`, warn), v: c.vec3(s.v, `${f}.v`), w: c.vec3(s.w, `${f}.w`) };
    unknownKeys(s, STATE_KEYS, f, warn);
  }
  let pre: RecordedPreState[] | undefined;
  if (o.pre !== undefined) {
    const preRaw = c.arr(o.pre, 'pre', B, 'pre-solve states (one per header body)');
    pre = new Array(B);
    for (let i = 0; i < B; i++) {
      const f = `pre[${i}]`;
      const s = c.obj(preRaw[i], f);
      const v = c.vec3(s.v, `${f}.v`),
        w = c.vec3(s.w, `${f}.w`);
      const x = s.x === undefined ? undefined : c.vec3(s.x, `${f}.x`),
        q = s.q === undefined ? undefined : c.quat(s.q, `${f}.q`, warn);
      unknownKeys(s, PRE_KEYS, f, warn);
      // object literals, not spreads: V8 gives spread-built objects slow property access, and the diagnosis
      // reads these for every body of every frame
      pre[i] = x !== undefined && q !== undefined ? { v, w, x, q } : x !== undefined ? { v, w, x } : q !== undefined ? { v, w, q } : { v, w };
    }
  }
  const contactsRaw = c.arr(o.contacts, 'contacts');
  const C = contactsRaw.length;
  const contacts: RecordedContact[] = new Array(C);
  for (let i = 0; i < C; i++) contacts[i] = readContact(c, contactsRaw[i], i, header, warn);
  const so = c.obj(o.solver, 'solver');
  unknownKeys(so, SOLVER_KEYS, 'solver', warn);
  const name = c.str(so.name, 'solver.name');
  const status = c.oneOf(so.status, 'solver.status', SOLVER_STATUSES);
  const reason = so.reason === undefined ? undefined : c.str(so.reason, 'solver.reason');
  const iterations = so.iterations === undefined ? undefined : c.int(so.iterations, 'solver.iterations', 0);
  const residuals = so.residuals === undefined ? undefined : c.nums(so.residuals, 'solver.residuals');
  const lambda = c.nums(so.lambda, 'solver.lambda', 3 * C, `numbers (3C for C = ${C} contacts: λn, λt1, λt2 per contact)`);
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
  return result;
}

function readContact(c: Check, v: unknown, i: number, header: RecordingHeader, warn: Warn | undefined): RecordedContact {
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
  const point = c.vec3(o.point, `${f}.point`);
  const normal = c.unit(o.normal, `${f}.normal`);
  const t1 = c.unit(o.t1, `${f}.t1`);
  const t2 = c.unit(o.t2, `${f}.t2`);
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
  const depth = c.num(o.depth, `${f}.depth`);
  if (depth < 0) c.fail(`${f}.depth`, `is ${depth}; depth is the penetration (m) and must be ≥ 0 (write 0 for touching or speculative contacts)`);
  const mu = c.num(o.mu, `${f}.mu`);
  if (mu < 0) c.fail(`${f}.mu`, `is ${mu}; friction coefficients must be ≥ 0`);
  const e = c.num(o.e, `${f}.e`);
  if (e < 0) c.fail(`${f}.e`, `is ${e}; restitution must be ≥ 0`);
  if (e > 1) warn?.(`${f}.e`, `restitution ${e} > 1 creates energy at every bounce`);
  if (warn && (b === -1 || header.bodies[b].static) && header.bodies[a].static) warn(f, 'joins two static bodies: its rows of A are zero and λ has no effect');
  unknownKeys(o, CONTACT_KEYS, f, warn);
  // object literals, not a spread: V8 gives spread-built objects slow property access (15× slower to read
  // on a 1000-box pile's 780 000 contacts), and every analysis reads every contact
  return o.feature === undefined
    ? { a, b, point, normal, t1, t2, depth, mu, e }
    : { a, b, point, normal, t1, t2, depth, mu, e, feature: c.str(o.feature, `${f}.feature`) };
}

// ─── helpers for consumers ─────────────────────────────────────────────────────────────────────────

/** The engine's shape description of a recorded shape, or null for an `other` shape. */
export function toShapeDesc(s: RecordedShape): ShapeDesc | null {
  if ('sphere' in s) return { kind: 'sphere', radius: s.sphere.radius };
  if ('box' in s) return { kind: 'box', halfExtents: s.box.halfExtents };
  if ('plane' in s) return { kind: 'plane', normal: s.plane.normal, offset: s.plane.offset };
  return null;
}

export function fromShapeDesc(s: ShapeDesc): RecordedShape {
  switch (s.kind) {
    case 'sphere':
      return { sphere: { radius: s.radius } };
    case 'box':
      return { box: { halfExtents: s.halfExtents } };
    case 'plane':
      return { plane: { normal: s.normal, offset: s.offset } };
  }
}

/** A recorded contact as the engine's ContactPoint. */
export function toContactPoint(c: RecordedContact): ContactPoint {
  // two literals instead of a spread: this runs for every contact of every frame in a diagnosis pass
  return c.feature === undefined
    ? { bodyA: c.a, bodyB: c.b, point: c.point, normal: c.normal, t1: c.t1, t2: c.t2, mu: c.mu, restitution: c.e, penetration: c.depth }
    : { bodyA: c.a, bodyB: c.b, point: c.point, normal: c.normal, t1: c.t1, t2: c.t2, mu: c.mu, restitution: c.e, penetration: c.depth, featureId: c.feature };
}

/** Body-frame inverse inertia tensor (row-major) of a dynamic body; zero for static bodies. */
export function inverseInertiaBody(b: RecordedBody): Mat3 {
  if (b.static || b.inertia === null) return ZERO3;
  const I = b.inertia;
  if (I.length === 3) return [1 / I[0], 0, 0, 0, 1 / I[1], 0, 0, 0, 1 / I[2]];
  const d = det3(I);
  return [
    (I[4] * I[8] - I[5] * I[7]) / d,
    (I[2] * I[7] - I[1] * I[8]) / d,
    (I[1] * I[5] - I[2] * I[4]) / d,
    (I[5] * I[6] - I[3] * I[8]) / d,
    (I[0] * I[8] - I[2] * I[6]) / d,
    (I[2] * I[3] - I[0] * I[5]) / d,
    (I[3] * I[7] - I[4] * I[6]) / d,
    (I[1] * I[6] - I[0] * I[7]) / d,
    (I[0] * I[4] - I[1] * I[3]) / d,
  ];
}

/**
 * The body states the frame's contact problem was built from, for re-assembling A and b:
 * velocities from `pre`; pose from `pre[i].x/q` when written, else from the previous frame's post-step
 * pose when that frame is frame − 1. Returns the reason when the frame cannot be re-assembled.
 */
export function preSolveBodyStates(
  header: RecordingHeader,
  frame: RecordedFrame,
  previous?: RecordedFrame,
): { readonly ok: true; readonly bodies: BodyState[] } | { readonly ok: false; readonly reason: string } {
  const pre = frame.pre;
  if (!pre)
    return {
      ok: false,
      reason: `frame ${frame.frame} has no "pre" velocities: the contact problem cannot be rebuilt (only the recorded A/b, if any, can be re-solved)`,
    };
  const prevOk = previous !== undefined && previous.frame === frame.frame - 1;
  const bodies: BodyState[] = [];
  for (let i = 0; i < header.bodies.length; i++) {
    const p = pre[i];
    let x = p.x,
      q = p.q;
    if (x === undefined || q === undefined) {
      if (!prevOk) return { ok: false, reason: `frame ${frame.frame}: pre[${i}] has no pose (x, q) and frame ${frame.frame - 1} is not in the recording` };
      x ??= previous.bodies[i].x;
      q ??= previous.bodies[i].q;
    }
    const hb = header.bodies[i];
    if (hb.static) {
      bodies.push({ invMass: 0, invInertiaWorld: ZERO3, x, v: p.v, omega: p.w });
      continue;
    }
    const l = Math.hypot(q[0], q[1], q[2], q[3]);
    const R = quatToMat3([q[0] / l, q[1] / l, q[2] / l, q[3] / l]);
    bodies.push({ invMass: 1 / (hb.mass as number), invInertiaWorld: mul(mul(R, inverseInertiaBody(hb)), transpose(R)), x, v: p.v, omega: p.w });
  }
  return { ok: true, bodies };
}
