/**
 * One field reader for every format (scene, recording, problem): typed fields named by their JSON path
 * (`bodies[3].inverseInertia[2]`), the expected type and range, "did you mean" for unknown keys and values
 * (messages.ts `suggest`, bounded to linear time in the input), and, for input parsed with positions
 * (jsonPositions.ts), the line and column of the offending value. Every failure is one FormatError.
 *
 * Two front ends over the same paths, suggestions and error type:
 *  - ValueReader reads values of JSON.parse (recording lines, problem files): path only.
 *  - NodeReader reads nodes of parseJsonWithPositions (scene files): path plus source range.
 */
import { describeValue, FormatError, MAX_SHOWN_CHARS, quoteList, safeText, suggest } from './messages.js';
import {
  JsonSyntaxError,
  LineIndex,
  parseJsonWithPositions,
  type JsonArray,
  type JsonMember,
  type JsonNode,
  type JsonObject,
  type SourceRange,
} from './jsonPositions.js';
import { hypot3, hypot4, type Quat, type Vec3 } from '../engine/index.js';

// ─── paths and suggestions ─────────────────────────────────────────────────────────────────────────

/** `base.key`, or `key` at the root. */
export const fieldPath = (base: string, key: string): string => (base ? `${base}.${key}` : key);
/** `base[i]`. */
export const itemPath = (base: string, i: number): string => `${base}[${i}]`;

/** `; did you mean "x"?` for the nearest candidate (messages.ts `suggest`), or '' when none is near. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const s = suggest(word, candidates);
  return s ? `; did you mean "${safeText(s)}"?` : '';
}

/** Keys of `keys` not in `allowed` (and not vendor extensions "x-…" when `vendorPrefix`), in order. */
export function unknownKeys(keys: readonly string[], allowed: readonly string[], vendorPrefix = false): string[] {
  return keys.filter((k) => !allowed.includes(k) && !(vendorPrefix && k.startsWith('x-')));
}

// ─── plain JSON values (JSON.parse) ────────────────────────────────────────────────────────────────

export type JsonRecord = Record<string, unknown>;
/** A non-fatal finding: (path, detail). */
export type FieldWarning = (field: string, detail: string) => void;

/** Tolerances of unit vectors and quaternions (ValueReader.unit, ValueReader.quat). */
export interface UnitTolerances {
  /** |‖v‖ − 1| allowed without complaint. */
  readonly unit: number;
  /** |‖q‖ − 1| above this is an error (between `unit` and this, a warning). */
  readonly quaternionError: number;
}

export const isNumericView = (v: unknown): v is ArrayLike<number> => ArrayBuffer.isView(v) && !(v instanceof DataView);

/**
 * Typed fields of a value from JSON.parse. `where` prefixes every path (a recording's "line 17: ").
 * Arrays are validated in place and returned as they are (A can hold millions of numbers).
 */
export class ValueReader {
  constructor(
    readonly file: string,
    readonly where = '',
  ) {}
  fail(field: string, detail: string): never {
    throw new FormatError(this.file, `${this.where}${field || '(root)'}`, detail);
  }
  obj(v: unknown, field: string): JsonRecord {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(field, `expected an object, got ${describeValue(v)}`);
    return v as JsonRecord;
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
    this.fail(field, `expected a finite number, got ${describeValue(v)}`);
  }
  int(v: unknown, field: string, min: number): number {
    const x = this.num(v, field);
    if (!Number.isSafeInteger(x)) this.fail(field, `expected an integer, got ${x}`);
    if (x < min) this.fail(field, `is ${x}, expected an integer ≥ ${min}`);
    return x;
  }
  str(v: unknown, field: string): string {
    if (typeof v !== 'string') this.fail(field, `expected a string, got ${describeValue(v)}`);
    return v;
  }
  bool(v: unknown, field: string): boolean {
    if (typeof v !== 'boolean') this.fail(field, `expected true or false, got ${describeValue(v)}`);
    return v;
  }
  arr(v: unknown, field: string, len?: number, what = 'entries'): ArrayLike<unknown> {
    if (!Array.isArray(v) && !isNumericView(v)) this.fail(field, `expected an array, got ${describeValue(v)}`);
    const a = v as ArrayLike<unknown>;
    if (len !== undefined && a.length !== len) this.fail(field, `expected ${len} ${what}, got ${a.length}`);
    return a;
  }
  /** Finite numbers, checked in place; the same array is returned (no copy). */
  nums(v: unknown, field: string, len?: number, what?: string): number[] {
    const a = this.arr(v, field, len, what);
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      if (typeof x !== 'number' || !Number.isFinite(x)) this.notNumber(x, itemPath(field, i));
    }
    return a as number[];
  }
  vec3(v: unknown, field: string): Vec3 {
    return this.nums(v, field, 3, 'numbers [x, y, z]') as unknown as Vec3;
  }
  /** A vector of length 1 within tol.unit. */
  unit(v: unknown, field: string, tol: UnitTolerances): Vec3 {
    const a = this.vec3(v, field);
    const len = hypot3(a[0], a[1], a[2]);
    if (!(Math.abs(len - 1) <= tol.unit)) {
      this.fail(
        field,
        len === 0
          ? 'is the zero vector, expected a unit vector'
          : `is not a unit vector: length ${len} (|length − 1| = ${Math.abs(len - 1).toExponential(2)} > ${tol.unit.toExponential(0)})`,
      );
    }
    return a;
  }
  /** A quaternion [w, x, y, z]: an error beyond tol.quaternionError, a warning beyond tol.unit. */
  quat(v: unknown, field: string, tol: UnitTolerances, warn: FieldWarning | undefined): Quat {
    const q = this.nums(v, field, 4, 'numbers [w, x, y, z]') as unknown as Quat;
    const len = hypot4(q[0], q[1], q[2], q[3]);
    const dev = Math.abs(len - 1);
    if (!(dev <= tol.quaternionError)) this.fail(field, `is not a unit quaternion: length ${len}`);
    if (dev > tol.unit)
      warn?.(field, `quaternion length ${len} deviates from 1 by ${dev.toExponential(2)} (> ${tol.unit.toExponential(0)}); normalised on use`);
    return q;
  }
  oneOf<T extends string>(v: unknown, field: string, allowed: readonly T[]): T {
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
      this.fail(field, `expected one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${describeValue(v)}`);
    }
    return v as T;
  }
}

// ─── positioned JSON nodes (parseJsonWithPositions) ───────────────────────────────────────────────

/** Offsets into the text, end exclusive (a node, a key, or any other piece of text). */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** Range rules of a number (NodeReader.number). */
export interface NumRule {
  readonly min?: number;
  readonly exclusiveMin?: number;
  readonly max?: number;
  readonly integer?: boolean;
  /** Appended to range messages, e.g. "kg". */
  readonly unit?: string;
}

/** What a positioned node is, for "expected …, got X" messages (never more than MAX_SHOWN_CHARS of a string). */
export function describeNode(n: JsonNode): string {
  switch (n.type) {
    case 'object':
      return 'an object';
    case 'array':
      return `an array of ${n.items.length}`;
    case 'string':
      return `a string ("${safeText(n.value, MAX_SHOWN_CHARS)}")`;
    case 'number':
      return `the number ${n.value}`;
    case 'boolean':
      return String(n.value);
    case 'null':
      return 'null';
  }
}

/**
 * Typed fields of positioned JSON: every failure carries the path and the line/column range of the
 * offending text. Subclasses choose the error class (`error`) and may collect warnings.
 */
export class NodeReader {
  readonly lines: LineIndex;
  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    this.lines = new LineIndex(text);
  }

  /** The error thrown by `fail` (a FormatError with a range). */
  protected error(field: string, detail: string, range: SourceRange): FormatError {
    return new FormatError(this.file, field, detail, range);
  }

  range(s: Span): SourceRange {
    return this.lines.range(s.start, s.end);
  }

  fail(s: Span, field: string, detail: string): never {
    throw this.error(field, detail, this.range(s));
  }

  /** The text parsed with positions; a syntax error fails at its offset with path "(json)". */
  parseRoot(): JsonNode {
    try {
      return parseJsonWithPositions(this.text);
    } catch (e) {
      if (e instanceof JsonSyntaxError) this.fail({ start: e.offset, end: Math.min(e.offset + 1, this.text.length) }, '(json)', `syntax error: ${e.detail}`);
      throw e;
    }
  }

  /** The 1-based line where `s` starts (for "already given at line L"). */
  lineOf(s: Span): number {
    return this.lines.position(s.start).line;
  }

  object(n: JsonNode, field: string, what: string): JsonObject {
    if (n.type !== 'object') this.fail(n, field, `expected ${what} (a JSON object {…}), got ${describeNode(n)}`);
    return n;
  }

  array(n: JsonNode, field: string, what: string): JsonArray {
    if (n.type !== 'array') this.fail(n, field, `expected ${what} (a JSON array […]), got ${describeNode(n)}`);
    return n;
  }

  /**
   * The members of an object by key; rejects unknown keys (with a suggestion) and duplicate keys.
   * `explain` may give a better message for a key that is known elsewhere (e.g. a PGS option on Newton).
   */
  members(o: JsonObject, field: string, allowed: readonly string[], explain?: (key: string) => string | undefined): Map<string, JsonMember> {
    const map = new Map<string, JsonMember>();
    for (const m of o.members) {
      const f = fieldPath(field, m.key);
      const keySpan = { start: m.keyStart, end: m.keyEnd };
      if (!allowed.includes(m.key)) {
        const special = explain?.(m.key);
        if (special) this.fail(keySpan, f, special);
        this.fail(keySpan, f, `unknown field "${safeText(m.key)}"${didYouMean(m.key, allowed)} (allowed here: ${quoteList(allowed)})`);
      }
      const prev = map.get(m.key);
      if (prev) this.fail(keySpan, f, `duplicate field "${safeText(m.key)}" (already given at line ${this.lines.position(prev.keyStart).line}); remove one`);
      map.set(m.key, m);
    }
    return map;
  }

  /** The value of a required member; a missing one fails at the object's "{". */
  required(map: Map<string, JsonMember>, o: JsonObject, field: string, key: string, what: string): JsonNode {
    const m = map.get(key);
    if (!m) this.fail({ start: o.start, end: o.start + 1 }, fieldPath(field, key), `missing required field "${key}" (${what})`);
    return m.value;
  }

  number(n: JsonNode, field: string, rule: NumRule = {}): number {
    const unit = rule.unit ? ` ${rule.unit}` : '';
    if (n.type !== 'number')
      this.fail(n, field, `expected ${rule.integer ? 'an integer' : 'a number'}${unit ? ` (${rule.unit})` : ''}, got ${describeNode(n)}`);
    const v = n.value;
    if (!Number.isFinite(v)) this.fail(n, field, `${v} is too large: expected a finite number`);
    if (rule.integer && !Number.isInteger(v)) this.fail(n, field, `expected an integer, got ${v}`);
    if (rule.exclusiveMin !== undefined && !(v > rule.exclusiveMin)) this.fail(n, field, `must be > ${rule.exclusiveMin}${unit}, got ${v}`);
    if (rule.min !== undefined && !(v >= rule.min)) this.fail(n, field, `must be ≥ ${rule.min}${unit}, got ${v}`);
    if (rule.max !== undefined && !(v <= rule.max)) this.fail(n, field, `must be ≤ ${rule.max}${unit}, got ${v}`);
    return v;
  }

  bool(n: JsonNode, field: string): boolean {
    if (n.type !== 'boolean') this.fail(n, field, `expected true or false, got ${describeNode(n)}`);
    return n.value;
  }

  string(n: JsonNode, field: string, what = 'a string'): string {
    if (n.type !== 'string') this.fail(n, field, `expected ${what}, got ${describeNode(n)}`);
    return n.value;
  }

  /** A non-empty name without control characters (names are printed: CLI, Test Explorer, panel titles). */
  name(n: JsonNode, field: string): string {
    const s = this.string(n, field, 'a name (a non-empty string)');
    if (s.trim() === '') this.fail(n, field, 'a name must not be empty');
    // a control character could rewrite the terminal
    if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s))
      this.fail(n, field, `a name must not contain control characters or line breaks, got "${safeText(s)}"`);
    return s;
  }

  /** A name (as `name`) not yet in `seen`, then added to it; `duplicate(name, line of the first)` words the failure. */
  uniqueName(seen: Map<string, Span>, n: JsonNode, field: string, duplicate: (name: string, firstLine: number) => string): string {
    const s = this.name(n, field);
    const prev = seen.get(s);
    if (prev) this.fail(n, field, duplicate(safeText(s), this.lineOf(prev)));
    seen.set(s, n);
    return s;
  }

  /** A name that must be one of `defined`; `unknown` words the failure, `didYouMean` is appended to it. */
  reference(n: JsonNode, field: string, defined: readonly string[], unknown: (name: string, suggestion: string) => string): string {
    const s = this.name(n, field);
    if (!defined.includes(s)) this.fail(n, field, unknown(safeText(s), didYouMean(s, defined)));
    return s;
  }

  oneOf<T extends string>(n: JsonNode, field: string, values: readonly T[]): T {
    if (n.type !== 'string') this.fail(n, field, `expected one of ${quoteList(values)}, got ${describeNode(n)}`);
    if (!(values as readonly string[]).includes(n.value))
      this.fail(n, field, `"${safeText(n.value)}" is not one of ${quoteList(values)}${didYouMean(n.value, values)}`);
    return n.value as T;
  }

  numbers(n: JsonNode, field: string, len: number, what: string, each: NumRule = {}): number[] {
    const a = this.array(n, field, what);
    if (a.items.length !== len) this.fail(a, field, `expected ${what} with exactly ${len} numbers, got ${a.items.length}`);
    return a.items.map((x, i) => this.number(x, itemPath(field, i), each));
  }

  vec3(n: JsonNode, field: string, what = 'a vector [x, y, z]', each: NumRule = {}): Vec3 {
    const a = this.numbers(n, field, 3, what, each);
    return [a[0], a[1], a[2]];
  }
}
