/**
 * Scenario files (`*.scene.json`, docs/scene-format.md, schemas/scene.schema.json): one strict JSON object
 * `{ "$schema"?, "scenarios": [ … ] }` holding named scenarios → ScenarioDesc (engine/world/types.ts) plus
 * the expectations `contact-lens check` verifies.
 *
 * Every error is a SceneFormatError (a FormatError): "file: json.path: line L, column C: what is wrong and
 * how to fix it", with the range of the offending value for editor diagnostics. The rules here are the
 * schema's rules (test/unit/scene-format.test.ts keeps the two consistent) plus what a schema cannot say:
 * unique names, references to materials and bodies, and quaternion/normal normalisation.
 */
import { FormatError, MAX_DETAIL_CHARS, MAX_FIELD_CHARS, MAX_SHOWN_CHARS, quoteList, safeText, suggest } from './messages.js';
import {
  JsonSyntaxError,
  LineIndex,
  parseJsonWithPositions,
  scanLooseTokens,
  type JsonArray,
  type JsonMember,
  type JsonNode,
  type JsonObject,
  type SourceRange,
} from './jsonPositions.js';
import type { BodyDesc, CombineRule, FaultInjection, MaterialDesc, ScenarioDesc, ShapeDesc, StepConfig } from '../engine/world/types.js';
import { MAX_BACKTRACKS, MAX_SOLVER_ITERATIONS } from '../engine/solvers/limits.js';
import { SOLVER_NAMES, type PgsFrictionLaw, type SolveOptions, type SolverName } from '../engine/solvers/types.js';
import type { Quat } from '../engine/math/quat.js';
import type { Vec3 } from '../engine/math/vec3.js';

export type { SourceRange } from './jsonPositions.js';

export const SCENE_FILE_SUFFIX = '.scene.json';

// ---------------------------------------------------------------------------------------------------
// Public types

/** What `contact-lens check` verifies after running a scenario (docs/scene-format.md "Expectations"). */
export type Expectation =
  /** Total energy E = Σ ½m|v|² + ½ωᵀIω − m g·x of the dynamic bodies never rises from one frame to the next by more than toleranceJ (J). */
  | { readonly kind: 'energyNonIncreasing'; readonly toleranceJ: number }
  /** The deepest contact penetration over all frames is at most `meters` (m). */
  | { readonly kind: 'maxPenetration'; readonly meters: number }
  /** After the last frame ‖x_body − position‖ ≤ tolerance (m). */
  | { readonly kind: 'finalPosition'; readonly body: string; readonly position: Vec3; readonly tolerance: number }
  /** After the last frame ‖v_body − velocity‖ ≤ tolerance (m/s). */
  | { readonly kind: 'finalVelocity'; readonly body: string; readonly velocity: Vec3; readonly tolerance: number }
  /** No frame's solve ends with status "failed" (numerical breakdown). */
  | { readonly kind: 'noSolverFailures' }
  /** ‖Σ m v(frame) − Σ m v(0)‖ ≤ tolerance (N·s) for every frame (dynamic bodies). */
  | { readonly kind: 'momentumConserved'; readonly tolerance: number }
  /** After the last frame the body's linear speed ‖v‖ is at most `speed` (m/s). */
  | { readonly kind: 'bodyAtRest'; readonly body: string; readonly speed: number };

export type ExpectationKind = Expectation['kind'];

/** Per kind, the fields besides "kind" (all required). */
export const EXPECTATION_FIELDS: { readonly [K in ExpectationKind]: readonly string[] } = {
  energyNonIncreasing: ['toleranceJ'],
  maxPenetration: ['meters'],
  finalPosition: ['body', 'position', 'tolerance'],
  finalVelocity: ['body', 'velocity', 'tolerance'],
  noSolverFailures: [],
  momentumConserved: ['tolerance'],
  bodyAtRest: ['body', 'speed'],
};
export const EXPECTATION_KINDS = Object.keys(EXPECTATION_FIELDS) as readonly ExpectationKind[];

export interface ParsedScenario {
  /** Position in the file's "scenarios" array. */
  readonly index: number;
  readonly desc: ScenarioDesc;
  readonly description?: string;
  readonly expectations: readonly Expectation[];
  /** The scenario object, from "{" to "}" (1-based; endColumn exclusive). */
  readonly range: SourceRange;
  /** The scenario's "name" string value. */
  readonly nameRange: SourceRange;
  /** desc.bodies[i] ↔ bodyRanges[i] (the body object). */
  readonly bodyRanges: readonly SourceRange[];
  /** expectations[i] ↔ expectationRanges[i]. */
  readonly expectationRanges: readonly SourceRange[];
}

export type SceneWarningKind = 'fault-injection' | 'quaternion-normalized' | 'expectation';

export interface SceneWarning {
  readonly kind: SceneWarningKind;
  readonly file: string;
  /** JSON path, e.g. scenarios[0].faultInjection. */
  readonly field: string;
  readonly detail: string;
  readonly range: SourceRange;
  /** Name of the scenario the warning belongs to. */
  readonly scenario: string;
  /** "file: field: line L, column C: detail", as for errors. */
  readonly message: string;
}

/** A FormatError with the position of the offending value (field is a JSON path). */
export class SceneFormatError extends FormatError {
  readonly detail: string;
  constructor(
    file: string,
    field: string,
    detail: string,
    readonly range: SourceRange,
  ) {
    super(file, field, `line ${range.line}, column ${range.column}: ${detail}`);
    this.detail = safeText(detail, MAX_DETAIL_CHARS);
    this.name = 'SceneFormatError';
  }
  get line(): number {
    return this.range.line;
  }
  get column(): number {
    return this.range.column;
  }
}

/** Outline entry of scenarioRanges (names may be missing while the user types). */
export interface ScenarioOutline {
  readonly index: number;
  readonly name: string | null;
  readonly range: SourceRange;
  readonly nameRange?: SourceRange;
}

// ---------------------------------------------------------------------------------------------------
// Defaults (the schema's "default" values; the test checks they agree)

const freezeVec = (v: Vec3): Vec3 => Object.freeze([v[0], v[1], v[2]]) as unknown as Vec3;
/** Parsed descriptions never share (frozen) default arrays with SCENE_DEFAULTS or with each other. */
const copy3 = (v: Vec3): Vec3 => [v[0], v[1], v[2]];

export const SCENE_DEFAULTS = Object.freeze({
  /** Time step (s). */
  dt: 1 / 60,
  /** m/s², z up. */
  gravity: freezeVec([0, 0, -9.81]),
  solver: Object.freeze({ solver: 'coulomb' }) as SolveOptions,
  erp: 0.2,
  /** m */
  slop: 0.005,
  splitImpulse: false,
  softening: 0,
  /** m/s */
  restVelocityThreshold: 0.5,
  frictionCombine: 'geometric-mean' as CombineRule,
  restitutionCombine: 'geometric-mean' as CombineRule,
  warmStart: true,
  /** The implicit material every body uses unless it names another; a scenario may redefine "default". */
  material: Object.freeze({ name: 'default', friction: 0.5, restitution: 0 }) as MaterialDesc,
  orientation: Object.freeze([1, 0, 0, 0]) as unknown as Quat,
  velocity: freezeVec([0, 0, 0]),
  angularVelocity: freezeVec([0, 0, 0]),
  /** shape.plane.offset (m). */
  planeOffset: 0,
});

export const COMBINE_RULES: readonly CombineRule[] = ['geometric-mean', 'min', 'max', 'average'];
const SOLVERS: readonly SolverName[] = SOLVER_NAMES;
const FRICTION_LAWS: readonly PgsFrictionLaw[] = ['coulomb-disk', 'cone'];

const TOP_KEYS = ['$schema', 'scenarios'];
const SCENARIO_KEYS = [
  'name',
  'description',
  'dt',
  'frames',
  'gravity',
  'solver',
  'erp',
  'slop',
  'splitImpulse',
  'softening',
  'restVelocityThreshold',
  'frictionCombine',
  'restitutionCombine',
  'warmStart',
  'materials',
  'bodies',
  'expectations',
  'faultInjection',
];
/** Solver options per solver (besides "name"). */
export const SOLVER_OPTION_KEYS: { readonly [S in SolverName]: readonly string[] } = {
  pgs: ['maxIterations', 'tolerance', 'friction', 'warmStartFactor', 'diagonalScaling', 'regularization', 'fixedPointTolerance'],
  newton: ['maxIterations', 'tolerance', 'armijo', 'maxBacktracks'],
  ipm: ['maxIterations', 'tolerance'],
  coulomb: ['maxIterations', 'tolerance'],
};
const MATERIAL_KEYS = ['name', 'friction', 'restitution'];
const BODY_KEYS = ['name', 'shape', 'mass', 'static', 'position', 'orientation', 'velocity', 'angularVelocity', 'material'];
const SHAPE_KEYS = ['sphere', 'box', 'plane'];
const FAULT_KEYS = ['restitutionAsTarget'];
/** The fields each object accepts (the schema's "properties"; the test keeps them in step). */
export const SCENE_FIELD_NAMES = Object.freeze({
  file: TOP_KEYS,
  scenario: SCENARIO_KEYS,
  material: MATERIAL_KEYS,
  body: BODY_KEYS,
  shape: SHAPE_KEYS,
  sphere: ['radius'],
  box: ['halfExtents'],
  plane: ['normal', 'offset'],
  faultInjection: FAULT_KEYS,
});
/**
 * Largest number of frames a scenario may ask for: the inspector keeps a few numbers per frame in typed
 * arrays (10⁶ frames is 4.6 hours of simulated time at Δt = 1/60 s).
 */
export const MAX_SCENE_FRAMES = 1_000_000;
/** |‖q‖ − 1| above this gives a warning (the quaternion is normalised either way). */
const QUAT_UNIT_TOLERANCE = 1e-6;

// ---------------------------------------------------------------------------------------------------
// Validation helpers

interface Span {
  readonly start: number;
  readonly end: number;
}

interface NumRule {
  readonly min?: number;
  readonly exclusiveMin?: number;
  readonly max?: number;
  readonly integer?: boolean;
  /** Appended to range messages, e.g. "kg". */
  readonly unit?: string;
}

const join = (base: string, key: string): string => (base ? `${base}.${key}` : key);

function describeNode(n: JsonNode): string {
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

class Ctx {
  readonly lines: LineIndex;
  readonly warnings: SceneWarning[] = [];
  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    this.lines = new LineIndex(text);
  }

  range(s: Span): SourceRange {
    return this.lines.range(s.start, s.end);
  }

  fail(s: Span, field: string, detail: string): never {
    throw new SceneFormatError(this.file, field, detail, this.range(s));
  }

  warn(kind: SceneWarningKind, s: Span, field: string, detail: string, scenario: string): void {
    const range = this.range(s);
    field = safeText(field, MAX_FIELD_CHARS);
    detail = safeText(detail, MAX_DETAIL_CHARS);
    this.warnings.push({
      kind,
      file: this.file,
      field,
      detail,
      range,
      scenario,
      message: `${safeText(this.file, 2 * MAX_FIELD_CHARS)}: ${field}: line ${range.line}, column ${range.column}: ${detail}`,
    });
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
      const f = join(field, m.key);
      const keySpan = { start: m.keyStart, end: m.keyEnd };
      if (!allowed.includes(m.key)) {
        const special = explain?.(m.key);
        if (special) this.fail(keySpan, f, special);
        const s = suggest(m.key, allowed);
        this.fail(keySpan, f, `unknown field "${safeText(m.key)}"${s ? `; did you mean "${safeText(s)}"?` : ''} (allowed here: ${quoteList(allowed)})`);
      }
      const prev = map.get(m.key);
      if (prev) this.fail(keySpan, f, `duplicate field "${safeText(m.key)}" (already given at line ${this.lines.position(prev.keyStart).line}); remove one`);
      map.set(m.key, m);
    }
    return map;
  }

  required(map: Map<string, JsonMember>, o: JsonObject, field: string, key: string, what: string): JsonNode {
    const m = map.get(key);
    if (!m) this.fail({ start: o.start, end: o.start + 1 }, join(field, key), `missing required field "${key}" (${what})`);
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

  name(n: JsonNode, field: string): string {
    const s = this.string(n, field, 'a name (a non-empty string)');
    if (s.trim() === '') this.fail(n, field, 'a name must not be empty');
    // names are printed (CLI, Test Explorer, panel titles): a control character could rewrite the terminal
    if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s))
      this.fail(n, field, `a name must not contain control characters or line breaks, got "${safeText(s)}"`);
    return s;
  }

  oneOf<T extends string>(n: JsonNode, field: string, values: readonly T[]): T {
    if (n.type !== 'string') this.fail(n, field, `expected one of ${quoteList(values)}, got ${describeNode(n)}`);
    if (!(values as readonly string[]).includes(n.value)) {
      const s = suggest(n.value, values);
      this.fail(n, field, `"${safeText(n.value)}" is not one of ${quoteList(values)}${s ? `; did you mean "${safeText(s)}"?` : ''}`);
    }
    return n.value as T;
  }

  numbers(n: JsonNode, field: string, len: number, what: string, each: NumRule = {}): number[] {
    const a = this.array(n, field, what);
    if (a.items.length !== len) this.fail(a, field, `expected ${what} with exactly ${len} numbers, got ${a.items.length}`);
    return a.items.map((x, i) => this.number(x, `${field}[${i}]`, each));
  }

  vec3(n: JsonNode, field: string, what = 'a vector [x, y, z]', each: NumRule = {}): Vec3 {
    const a = this.numbers(n, field, 3, what, each);
    return [a[0], a[1], a[2]];
  }
}

// ---------------------------------------------------------------------------------------------------
// The parser

/**
 * Parses and validates a scenario file. Throws SceneFormatError (a FormatError) on the first problem;
 * returns the scenarios and the warnings (fault injection in use, normalised quaternions, expectations
 * that cannot hold).
 */
export function parseSceneFile(text: string, file: string): { scenarios: ParsedScenario[]; warnings: SceneWarning[] } {
  const ctx = new Ctx(file, text);
  let root: JsonNode;
  try {
    root = parseJsonWithPositions(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) ctx.fail({ start: e.offset, end: Math.min(e.offset + 1, text.length) }, '(json)', `syntax error: ${e.detail}`);
    throw e;
  }
  const top = ctx.object(root, '(root)', 'the file to be an object { "scenarios": [ … ] }');
  const tm = ctx.members(top, '', TOP_KEYS);
  const schema = tm.get('$schema');
  if (schema) ctx.string(schema.value, '$schema', 'a schema URI or path (string)');
  const list = ctx.array(ctx.required(tm, top, '', 'scenarios', 'an array of one or more scenarios'), 'scenarios', 'an array of scenarios');
  if (list.items.length === 0) ctx.fail(list, 'scenarios', 'must hold at least one scenario');

  const scenarios: ParsedScenario[] = [];
  const names = new Map<string, JsonNode>();
  list.items.forEach((item, index) => {
    const s = parseScenario(ctx, item, index);
    const nameNode = s.nameNode;
    const prev = names.get(s.parsed.desc.name);
    if (prev)
      ctx.fail(
        nameNode,
        `scenarios[${index}].name`,
        `duplicate scenario name "${safeText(s.parsed.desc.name)}" (also at line ${ctx.lines.position(prev.start).line}); names must be unique in a file`,
      );
    names.set(s.parsed.desc.name, nameNode);
    scenarios.push(s.parsed);
  });
  return { scenarios, warnings: ctx.warnings };
}

function parseScenario(ctx: Ctx, node: JsonNode, index: number): { parsed: ParsedScenario; nameNode: JsonNode } {
  const f = `scenarios[${index}]`;
  const o = ctx.object(node, f, 'a scenario');
  const m = ctx.members(o, f, SCENARIO_KEYS);
  const nameNode = ctx.required(m, o, f, 'name', 'the scenario name, unique in the file');
  const name = ctx.name(nameNode, `${f}.name`);
  const opt = <T>(key: string, read: (n: JsonNode, field: string) => T, def: T): T => {
    const mm = m.get(key);
    return mm ? read(mm.value, `${f}.${key}`) : def;
  };
  const description = opt<string | undefined>('description', (n, ff) => ctx.string(n, ff), undefined);
  const dt = opt('dt', (n, ff) => ctx.number(n, ff, { exclusiveMin: 0, unit: 's' }), SCENE_DEFAULTS.dt);
  const frames = ctx.number(ctx.required(m, o, f, 'frames', 'number of steps to simulate, an integer ≥ 1'), `${f}.frames`, {
    integer: true,
    min: 1,
    max: MAX_SCENE_FRAMES,
  });
  const gravity = opt('gravity', (n, ff) => ctx.vec3(n, ff, 'gravity [gx, gy, gz] in m/s²'), copy3(SCENE_DEFAULTS.gravity));
  const solver = opt('solver', (n, ff) => parseSolver(ctx, n, ff), { ...SCENE_DEFAULTS.solver });
  const erp = opt('erp', (n, ff) => ctx.number(n, ff, { min: 0, max: 1 }), SCENE_DEFAULTS.erp);
  const slop = opt('slop', (n, ff) => ctx.number(n, ff, { min: 0, unit: 'm' }), SCENE_DEFAULTS.slop);
  const splitImpulse = opt('splitImpulse', (n, ff) => ctx.bool(n, ff), SCENE_DEFAULTS.splitImpulse);
  const softening = opt('softening', (n, ff) => ctx.number(n, ff, { min: 0 }), SCENE_DEFAULTS.softening);
  const restVelocityThreshold = opt('restVelocityThreshold', (n, ff) => ctx.number(n, ff, { min: 0, unit: 'm/s' }), SCENE_DEFAULTS.restVelocityThreshold);
  const frictionCombine = opt('frictionCombine', (n, ff) => ctx.oneOf(n, ff, COMBINE_RULES), SCENE_DEFAULTS.frictionCombine);
  const restitutionCombine = opt('restitutionCombine', (n, ff) => ctx.oneOf(n, ff, COMBINE_RULES), SCENE_DEFAULTS.restitutionCombine);
  const warmStart = opt('warmStart', (n, ff) => ctx.bool(n, ff), SCENE_DEFAULTS.warmStart);

  const materials = opt('materials', (n, ff) => parseMaterials(ctx, n, ff), [{ ...SCENE_DEFAULTS.material }]);
  const bodiesNode = ctx.required(m, o, f, 'bodies', 'an array of bodies');
  const { bodies, bodyRanges } = parseBodies(ctx, bodiesNode, `${f}.bodies`, materials, name);

  const faultMember = m.get('faultInjection');
  const faults = faultMember ? parseFaults(ctx, faultMember.value, `${f}.faultInjection`, name) : {};

  const config: StepConfig = {
    dt,
    gravity,
    solver,
    erp,
    slop,
    splitImpulse,
    softening,
    restVelocityThreshold,
    frictionCombine,
    restitutionCombine,
    warmStart,
    faults,
  };
  const desc: ScenarioDesc = { name, frames, config, materials, bodies };

  const expMember = m.get('expectations');
  const { expectations, expectationRanges } = expMember
    ? parseExpectations(ctx, expMember.value, `${f}.expectations`, desc)
    : { expectations: [], expectationRanges: [] };

  const parsed: ParsedScenario = {
    index,
    desc,
    expectations,
    range: ctx.range(o),
    nameRange: ctx.range(nameNode),
    bodyRanges,
    expectationRanges,
    ...(description !== undefined ? { description } : {}),
  };
  return { parsed, nameNode };
}

function parseSolver(ctx: Ctx, node: JsonNode, f: string): SolveOptions {
  const o = ctx.object(node, f, `solver settings { "name": ${SOLVERS.map((x) => `"${x}"`).join(' | ')}, … }`);
  const nameMember = o.members.find((mm) => mm.key === 'name');
  if (!nameMember) ctx.fail({ start: o.start, end: o.start + 1 }, `${f}.name`, `missing required field "name" (one of ${quoteList(SOLVERS)})`);
  const solver = ctx.oneOf(nameMember.value, `${f}.name`, SOLVERS);
  const allowed = ['name', ...SOLVER_OPTION_KEYS[solver]];
  const m = ctx.members(o, f, allowed, (key) => {
    const owners = SOLVERS.filter((s) => SOLVER_OPTION_KEYS[s].includes(key));
    return owners.length ? `"${key}" is an option of the ${owners.join('/')} solver, not of ${solver}; remove it or change "name"` : undefined;
  });
  const out: Record<string, unknown> = { solver };
  const num = (key: string, rule: NumRule): void => {
    const mm = m.get(key);
    if (mm) out[key] = ctx.number(mm.value, `${f}.${key}`, rule);
  };
  num('maxIterations', { integer: true, min: 1, max: MAX_SOLVER_ITERATIONS });
  num('tolerance', { exclusiveMin: 0 });
  if (solver === 'pgs') {
    const fr = m.get('friction');
    if (fr) out.friction = ctx.oneOf(fr.value, `${f}.friction`, FRICTION_LAWS);
    num('warmStartFactor', { min: 0, max: 1 });
    const ds = m.get('diagonalScaling');
    if (ds) out.diagonalScaling = ctx.bool(ds.value, `${f}.diagonalScaling`);
    num('regularization', { min: 0 });
    num('fixedPointTolerance', { min: 0 });
  } else if (solver === 'newton') {
    num('armijo', { exclusiveMin: 0, max: 0.5 });
    num('maxBacktracks', { integer: true, min: 0, max: MAX_BACKTRACKS });
  }
  return out as unknown as SolveOptions;
}

function parseMaterials(ctx: Ctx, node: JsonNode, f: string): MaterialDesc[] {
  const a = ctx.array(node, f, 'an array of materials');
  const out: MaterialDesc[] = [];
  const seen = new Map<string, JsonNode>();
  a.items.forEach((item, i) => {
    const fi = `${f}[${i}]`;
    const o = ctx.object(item, fi, 'a material { "name", "friction", "restitution" }');
    const m = ctx.members(o, fi, MATERIAL_KEYS);
    const nameNode = ctx.required(m, o, fi, 'name', 'the material name that bodies refer to');
    const name = ctx.name(nameNode, `${fi}.name`);
    const prev = seen.get(name);
    if (prev) ctx.fail(nameNode, `${fi}.name`, `duplicate material name "${safeText(name)}" (also at line ${ctx.lines.position(prev.start).line})`);
    seen.set(name, nameNode);
    const friction = ctx.number(ctx.required(m, o, fi, 'friction', 'Coulomb friction coefficient μ ≥ 0'), `${fi}.friction`, { min: 0 });
    const restitution = ctx.number(ctx.required(m, o, fi, 'restitution', 'coefficient of restitution e in [0, 1]'), `${fi}.restitution`, { min: 0, max: 1 });
    out.push({ name, friction, restitution });
  });
  if (!seen.has('default')) out.unshift({ ...SCENE_DEFAULTS.material });
  return out;
}

function parseShape(ctx: Ctx, node: JsonNode, f: string): ShapeDesc {
  const o = ctx.object(node, f, 'a shape: {"sphere": {…}}, {"box": {…}} or {"plane": {…}}');
  const m = ctx.members(o, f, SHAPE_KEYS);
  if (o.members.length === 0) ctx.fail(o, f, `empty shape: give exactly one of ${quoteList(SHAPE_KEYS)}, e.g. {"sphere": {"radius": 0.5}}`);
  if (o.members.length > 1) {
    const second = o.members[1];
    ctx.fail(
      { start: second.keyStart, end: second.keyEnd },
      join(f, second.key),
      `a shape has exactly one kind; found both "${o.members[0].key}" and "${second.key}"`,
    );
  }
  const kind = o.members[0].key;
  const inner = m.get(kind)!.value;
  const fk = `${f}.${kind}`;
  switch (kind) {
    case 'sphere': {
      const so = ctx.object(inner, fk, 'sphere parameters { "radius" }');
      const sm = ctx.members(so, fk, SCENE_FIELD_NAMES.sphere);
      const radius = ctx.number(ctx.required(sm, so, fk, 'radius', 'sphere radius in m, > 0'), `${fk}.radius`, { exclusiveMin: 0, unit: 'm' });
      return { kind: 'sphere', radius };
    }
    case 'box': {
      const bo = ctx.object(inner, fk, 'box parameters { "halfExtents" }');
      const bm = ctx.members(bo, fk, SCENE_FIELD_NAMES.box);
      const halfExtents = ctx.vec3(
        ctx.required(bm, bo, fk, 'halfExtents', 'half side lengths [hx, hy, hz] in m, each > 0'),
        `${fk}.halfExtents`,
        'half extents [hx, hy, hz] in m',
        { exclusiveMin: 0, unit: 'm' },
      );
      return { kind: 'box', halfExtents };
    }
    default: {
      const po = ctx.object(inner, fk, 'plane parameters { "normal", "offset" }');
      const pm = ctx.members(po, fk, SCENE_FIELD_NAMES.plane);
      const nNode = ctx.required(pm, po, fk, 'normal', 'outward unit normal [nx, ny, nz] of the half-space, non-zero');
      const n = ctx.vec3(nNode, `${fk}.normal`, 'a normal [nx, ny, nz]');
      const len = Math.hypot(n[0], n[1], n[2]);
      if (!(len > 1e-12)) ctx.fail(nNode, `${fk}.normal`, 'the plane normal must not be zero (it points out of the solid, e.g. [0, 0, 1] for the ground)');
      const offNode = pm.get('offset');
      const offset = offNode ? ctx.number(offNode.value, `${fk}.offset`, { unit: 'm' }) : SCENE_DEFAULTS.planeOffset;
      return { kind: 'plane', normal: [n[0] / len, n[1] / len, n[2] / len], offset };
    }
  }
}

function parseBodies(
  ctx: Ctx,
  node: JsonNode,
  f: string,
  materials: readonly MaterialDesc[],
  scenario: string,
): { bodies: BodyDesc[]; bodyRanges: SourceRange[] } {
  const a = ctx.array(node, f, 'an array of bodies');
  if (a.items.length === 0) ctx.fail(a, f, 'a scenario needs at least one body');
  const bodies: BodyDesc[] = [];
  const bodyRanges: SourceRange[] = [];
  const seen = new Map<string, JsonNode>();
  const materialNames = materials.map((mm) => mm.name);
  a.items.forEach((item, i) => {
    const fi = `${f}[${i}]`;
    const o = ctx.object(item, fi, 'a body { "name", "shape", "mass" or "static", "position", … }');
    const m = ctx.members(o, fi, BODY_KEYS);
    const nameNode = ctx.required(m, o, fi, 'name', 'the body name, unique in the scenario');
    const name = ctx.name(nameNode, `${fi}.name`);
    const prev = seen.get(name);
    if (prev)
      ctx.fail(
        nameNode,
        `${fi}.name`,
        `duplicate body name "${safeText(name)}" (also at line ${ctx.lines.position(prev.start).line}); body names must be unique in a scenario`,
      );
    seen.set(name, nameNode);
    const shape = parseShape(
      ctx,
      ctx.required(m, o, fi, 'shape', '{"sphere": {"radius"}}, {"box": {"halfExtents"}} or {"plane": {"normal", "offset"}}'),
      `${fi}.shape`,
    );
    const isPlane = shape.kind === 'plane';
    const massM = m.get('mass'),
      staticM = m.get('static');
    let mass: number | null;
    if (isPlane) {
      if (massM) ctx.fail({ start: massM.keyStart, end: massM.keyEnd }, `${fi}.mass`, 'planes are always static: remove "mass" and write "static": true');
      if (!staticM)
        ctx.fail({ start: o.start, end: o.start + 1 }, `${fi}.static`, 'missing required field "static" (planes are always static: write "static": true)');
    } else if (massM && staticM) {
      ctx.fail({ start: staticM.keyStart, end: staticM.keyEnd }, `${fi}.static`, 'give either "mass" (kg) or "static": true, not both');
    } else if (!massM && !staticM) {
      ctx.fail({ start: o.start, end: o.start + 1 }, `${fi}.mass`, 'missing required field "mass" (kg, > 0), or write "static": true for an immovable body');
    }
    if (staticM) {
      const s = ctx.bool(staticM.value, `${fi}.static`);
      if (!s) ctx.fail(staticM.value, `${fi}.static`, '"static" can only be true; for a dynamic body remove it and give "mass"');
      mass = null;
    } else {
      mass = ctx.number(massM!.value, `${fi}.mass`, { exclusiveMin: 0, unit: 'kg' });
    }
    const isStatic = mass === null;
    const forbid = (key: string, why: string): void => {
      const mm = m.get(key);
      if (mm) ctx.fail({ start: mm.keyStart, end: mm.keyEnd }, `${fi}.${key}`, why);
    };
    if (isPlane) {
      for (const key of ['position', 'orientation']) forbid(key, `a plane is placed by shape.plane.normal and offset (world frame); remove "${key}"`);
    }
    if (isStatic) {
      for (const key of ['velocity', 'angularVelocity']) forbid(key, `a static body does not move; remove "${key}" (or give it a "mass")`);
    }
    const position: Vec3 = isPlane
      ? [0, 0, 0]
      : ctx.vec3(ctx.required(m, o, fi, 'position', 'centre of mass [x, y, z] in m, world frame'), `${fi}.position`, 'a position [x, y, z] in m');
    let orientation: Quat = [1, 0, 0, 0];
    const qm = m.get('orientation');
    if (qm) {
      const q = ctx.numbers(qm.value, `${fi}.orientation`, 4, 'a quaternion [w, x, y, z]');
      const len = Math.hypot(q[0], q[1], q[2], q[3]);
      if (!(len > 1e-12)) ctx.fail(qm.value, `${fi}.orientation`, 'the quaternion is zero and cannot be normalised; use [1, 0, 0, 0] for no rotation');
      if (Math.abs(len - 1) > QUAT_UNIT_TOLERANCE) {
        ctx.warn(
          'quaternion-normalized',
          qm.value,
          `${fi}.orientation`,
          `quaternion has length ${len.toPrecision(8)}, not 1; it was normalised (orientation is [w, x, y, z])`,
          scenario,
        );
      }
      orientation = len === 1 ? [q[0], q[1], q[2], q[3]] : [q[0] / len, q[1] / len, q[2] / len, q[3] / len];
    }
    const vm = m.get('velocity'),
      wm = m.get('angularVelocity');
    const velocity = vm ? ctx.vec3(vm.value, `${fi}.velocity`, 'a velocity [vx, vy, vz] in m/s') : copy3(SCENE_DEFAULTS.velocity);
    const angularVelocity = wm
      ? ctx.vec3(wm.value, `${fi}.angularVelocity`, 'an angular velocity [ωx, ωy, ωz] in rad/s (world frame)')
      : copy3(SCENE_DEFAULTS.angularVelocity);
    let material = SCENE_DEFAULTS.material.name;
    const mat = m.get('material');
    if (mat) {
      material = ctx.name(mat.value, `${fi}.material`);
      if (!materialNames.includes(material)) {
        const s = suggest(material, materialNames);
        ctx.fail(
          mat.value,
          `${fi}.material`,
          `unknown material "${safeText(material)}"${s ? `; did you mean "${safeText(s)}"?` : ''} (defined: ${quoteList(materialNames)}); add it to "materials"`,
        );
      }
    }
    bodies.push({ name, shape, mass, position, orientation, velocity, angularVelocity, material });
    bodyRanges.push(ctx.range(o));
  });
  return { bodies, bodyRanges };
}

function parseFaults(ctx: Ctx, node: JsonNode, f: string, scenario: string): FaultInjection {
  const o = ctx.object(node, f, 'fault-injection switches { "restitutionAsTarget": true }');
  const m = ctx.members(o, f, FAULT_KEYS);
  const out: { restitutionAsTarget?: boolean } = {};
  const r = m.get('restitutionAsTarget');
  if (r) out.restitutionAsTarget = ctx.bool(r.value, `${f}.restitutionAsTarget`);
  if (out.restitutionAsTarget) {
    ctx.warn(
      'fault-injection',
      o,
      f,
      `scenario "${scenario}" injects a deliberate fault: restitutionAsTarget uses −(1+e)·ġ⁻ as the target velocity (docs/physics.md "Restitution as a target": b_n = −(2+e)·ġ_n⁻), which adds energy at every bounce`,
      scenario,
    );
  }
  return out;
}

function parseExpectations(ctx: Ctx, node: JsonNode, f: string, desc: ScenarioDesc): { expectations: Expectation[]; expectationRanges: SourceRange[] } {
  const a = ctx.array(node, f, 'an array of expectations { "kind": …, … }');
  const expectations: Expectation[] = [];
  const expectationRanges: SourceRange[] = [];
  const bodyNames = desc.bodies.map((b) => b.name);
  a.items.forEach((item, i) => {
    const fi = `${f}[${i}]`;
    const o = ctx.object(item, fi, 'an expectation { "kind": …, … }');
    const kindM = o.members.find((mm) => mm.key === 'kind');
    if (!kindM) ctx.fail({ start: o.start, end: o.start + 1 }, `${fi}.kind`, `missing required field "kind" (one of ${quoteList(EXPECTATION_KINDS)})`);
    const kind = ctx.oneOf(kindM.value, `${fi}.kind`, EXPECTATION_KINDS);
    const fields = EXPECTATION_FIELDS[kind];
    const m = ctx.members(o, fi, ['kind', ...fields]);
    const req = (key: string, what: string): JsonNode => ctx.required(m, o, fi, key, what);
    const body = (): string => {
      const n = req('body', 'the name of a body in this scenario');
      const b = ctx.name(n, `${fi}.body`);
      if (!bodyNames.includes(b)) {
        const s = suggest(b, bodyNames);
        ctx.fail(n, `${fi}.body`, `no body named "${safeText(b)}" in scenario "${safeText(desc.name)}"${s ? `; did you mean "${safeText(s)}"?` : ''}`);
      }
      return b;
    };
    const nonNeg = (key: string, what: string, unit: string): number => ctx.number(req(key, what), `${fi}.${key}`, { min: 0, unit });
    let e: Expectation;
    switch (kind) {
      case 'energyNonIncreasing':
        e = { kind, toleranceJ: nonNeg('toleranceJ', 'allowed energy increase per frame in J, ≥ 0', 'J') };
        break;
      case 'maxPenetration':
        e = { kind, meters: nonNeg('meters', 'largest allowed penetration depth in m, ≥ 0', 'm') };
        break;
      case 'finalPosition': {
        const b = body();
        const position = ctx.vec3(req('position', 'expected final position [x, y, z] in m'), `${fi}.position`, 'a position [x, y, z] in m');
        e = { kind, body: b, position, tolerance: nonNeg('tolerance', 'allowed distance in m, ≥ 0', 'm') };
        break;
      }
      case 'finalVelocity': {
        const b = body();
        const velocity = ctx.vec3(req('velocity', 'expected final velocity [vx, vy, vz] in m/s'), `${fi}.velocity`, 'a velocity [vx, vy, vz] in m/s');
        e = { kind, body: b, velocity, tolerance: nonNeg('tolerance', 'allowed velocity error in m/s, ≥ 0', 'm/s') };
        break;
      }
      case 'noSolverFailures':
        e = { kind };
        break;
      case 'momentumConserved': {
        e = { kind, tolerance: nonNeg('tolerance', 'allowed change of total linear momentum in N·s, ≥ 0', 'N·s') };
        const g = desc.config.gravity;
        const hasStatic = desc.bodies.some((b) => b.mass === null);
        if (g[0] !== 0 || g[1] !== 0 || g[2] !== 0 || hasStatic) {
          ctx.warn(
            'expectation',
            o,
            fi,
            `momentum is not conserved in this scenario (${hasStatic ? 'static bodies push back' : 'gravity is non-zero'}); this expectation will fail`,
            desc.name,
          );
        }
        break;
      }
      case 'bodyAtRest':
        e = { kind, body: body(), speed: nonNeg('speed', 'largest allowed final speed in m/s, ≥ 0', 'm/s') };
        break;
    }
    expectations.push(e);
    expectationRanges.push(ctx.range(o));
  });
  return { expectations, expectationRanges };
}

// ---------------------------------------------------------------------------------------------------
// Outline for CodeLens (never throws)

interface Frame {
  readonly kind: '{' | '[';
  readonly start: number;
  readonly role: 'root' | 'scenarios' | 'scenario' | 'other';
  /** Last token end inside the container (for unclosed containers). */
  lastEnd: number;
  /** Object state: the current key and whether ':' has been seen after it. */
  currentKey: string | undefined;
  pendingKey: string | undefined;
  awaitingValue: boolean;
  outline?: { index: number; name: string | null; nameStart?: number; nameEnd?: number };
}

/**
 * Names and ranges of the scenarios of a possibly half-typed or invalid file, for CodeLenses: a
 * lenient bracket-matching scan over the tokens (comments, missing commas, bad values and unclosed
 * strings are tolerated; a mismatched bracket closes the nearest matching container). Never throws;
 * for a valid file the ranges equal parseSceneFile's.
 */
export function scenarioRanges(text: string): ScenarioOutline[] {
  try {
    return scanOutline(String(text ?? ''));
  } catch {
    return [];
  }
}

function scanOutline(text: string): ScenarioOutline[] {
  const tokens = scanLooseTokens(text);
  const lines = new LineIndex(text);
  const out: { index: number; name: string | null; start: number; end: number; nameStart?: number; nameEnd?: number }[] = [];
  const stack: Frame[] = [];
  let scenarioCount = 0;
  let rootSeen = false;

  const close = (fr: Frame, end: number): void => {
    if (fr.role === 'scenario' && fr.outline) {
      const o = fr.outline;
      out.push({ index: o.index, name: o.name, start: fr.start, end, nameStart: o.nameStart, nameEnd: o.nameEnd });
    }
    const parent = stack[stack.length - 1];
    if (parent) parent.lastEnd = Math.max(parent.lastEnd, end);
  };

  for (const tok of tokens) {
    const top = stack[stack.length - 1];
    switch (tok.kind) {
      case '{':
      case '[': {
        if (!top && rootSeen) break; // text after the root value: ignore
        const key = top && top.kind === '{' && top.awaitingValue ? top.currentKey : undefined;
        let role: Frame['role'] = 'other';
        if (!top) {
          rootSeen = true;
          role = tok.kind === '{' ? 'root' : 'other';
        } else if (top.role === 'root' && tok.kind === '[' && key === 'scenarios') role = 'scenarios';
        else if (top.role === 'scenarios' && tok.kind === '{') role = 'scenario';
        if (top) {
          top.awaitingValue = false;
          top.pendingKey = undefined;
          top.lastEnd = tok.end;
        }
        const fr: Frame = { kind: tok.kind, start: tok.start, role, lastEnd: tok.end, currentKey: undefined, pendingKey: undefined, awaitingValue: false };
        if (role === 'scenario') fr.outline = { index: scenarioCount++, name: null };
        stack.push(fr);
        break;
      }
      case '}':
      case ']': {
        const want = tok.kind === '}' ? '{' : '[';
        let k = stack.length - 1;
        while (k >= 0 && stack[k].kind !== want) k--;
        if (k < 0) break; // stray closer: ignore
        // Containers above the match were never closed: they end at their last token.
        while (stack.length - 1 > k) {
          const fr = stack.pop()!;
          close(fr, fr.lastEnd);
        }
        const fr = stack.pop()!;
        close(fr, tok.end);
        break;
      }
      case ':':
        if (top && top.kind === '{' && top.pendingKey !== undefined) {
          top.currentKey = top.pendingKey;
          top.pendingKey = undefined;
          top.awaitingValue = true;
        }
        if (top) top.lastEnd = tok.end;
        break;
      case ',':
        if (top) {
          top.currentKey = undefined;
          top.pendingKey = undefined;
          top.awaitingValue = false;
          top.lastEnd = tok.end;
        }
        break;
      case 'string':
        if (!top) break;
        top.lastEnd = tok.end;
        if (top.kind === '{') {
          if (top.awaitingValue) {
            if (top.role === 'scenario' && top.currentKey === 'name' && top.outline && top.outline.nameStart === undefined) {
              top.outline.name = tok.value ?? '';
              top.outline.nameStart = tok.start;
              top.outline.nameEnd = tok.end;
            }
            top.awaitingValue = false;
          } else {
            top.pendingKey = tok.value;
          }
        }
        break;
      case 'literal':
        if (top) {
          top.lastEnd = tok.end;
          top.awaitingValue = false;
          top.pendingKey = undefined;
        }
        break;
    }
  }
  while (stack.length) {
    const fr = stack.pop()!;
    close(fr, fr.lastEnd);
  }
  out.sort((a, b) => a.index - b.index);
  return out.map((s) => ({
    index: s.index,
    name: s.name,
    range: lines.range(s.start, s.end),
    ...(s.nameStart !== undefined ? { nameRange: lines.range(s.nameStart, s.nameEnd!) } : {}),
  }));
}
