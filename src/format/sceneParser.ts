/**
 * Scenario files, validation and conversion: the text of a `*.scene.json` file → ParsedScenario
 * (ScenarioDesc for the engine, expectations, source ranges) and warnings. Every error is a
 * SceneFormatError: "file: json.path: line L, column C: what is wrong and how to fix it". Besides the
 * schema's rules: unique names, references to materials and bodies, quaternion/normal normalisation.
 */
import { type FormatError, MAX_DETAIL_CHARS, MAX_FIELD_CHARS, quoteList, safeText } from './messages.js';
import { fieldPath, NodeReader, type NumRule, type Span } from './fieldReader.js';
import type { JsonNode, SourceRange } from './jsonPositions.js';
import {
  type BodyDesc,
  type FaultInjection,
  type MaterialDesc,
  MAX_BACKTRACKS,
  MAX_SOLVER_ITERATIONS,
  type Quat,
  type ScenarioDesc,
  type ShapeDesc,
  type SolveOptions,
  type StepConfig,
  type Vec3,
} from '../engine/index.js';
import {
  BODY_KEYS,
  COMBINE_RULES,
  copy3,
  EXPECTATION_FIELDS,
  EXPECTATION_KINDS,
  FAULT_KEYS,
  FRICTION_LAWS,
  MATERIAL_KEYS,
  MAX_SCENE_COORDINATE,
  MAX_SCENE_GRAVITY,
  MAX_SCENE_FRAMES,
  MAX_SCENE_LENGTH,
  QUAT_UNIT_TOLERANCE,
  SCENARIO_KEYS,
  SCENE_DEFAULTS,
  SCENE_FIELD_NAMES,
  SceneFormatError,
  SHAPE_KEYS,
  SOLVER_OPTION_KEYS,
  SOLVERS,
  TOP_KEYS,
  type Expectation,
  type ParsedScenario,
  type SceneWarning,
  type SceneWarningKind,
} from './sceneTypes.js';

// ---------------------------------------------------------------------------------------------------
// The reader: the shared field reader (fieldReader.ts) plus this format's warnings

class Ctx extends NodeReader {
  readonly warnings: SceneWarning[] = [];

  protected override error(field: string, detail: string, range: SourceRange): FormatError {
    return new SceneFormatError(this.file, field, detail, range);
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
  const root = ctx.parseRoot();
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
        `duplicate scenario name "${safeText(s.parsed.desc.name)}" (also at line ${ctx.lineOf(prev)}); names must be unique in a file`,
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
  const gravity = opt(
    'gravity',
    (n, ff) => ctx.vec3(n, ff, 'gravity [gx, gy, gz] in m/s²', { min: -MAX_SCENE_GRAVITY, max: MAX_SCENE_GRAVITY, unit: 'm/s²' }),
    copy3(SCENE_DEFAULTS.gravity),
  );
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
  const seen = new Map<string, Span>();
  a.items.forEach((item, i) => {
    const fi = `${f}[${i}]`;
    const o = ctx.object(item, fi, 'a material { "name", "friction", "restitution" }');
    const m = ctx.members(o, fi, MATERIAL_KEYS);
    const nameNode = ctx.required(m, o, fi, 'name', 'the material name that bodies refer to');
    const name = ctx.uniqueName(seen, nameNode, `${fi}.name`, (dup, line) => `duplicate material name "${dup}" (also at line ${line})`);
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
      fieldPath(f, second.key),
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
      const radius = ctx.number(ctx.required(sm, so, fk, 'radius', 'sphere radius in m, > 0'), `${fk}.radius`, {
        exclusiveMin: 0,
        max: MAX_SCENE_LENGTH,
        unit: 'm',
      });
      return { kind: 'sphere', radius };
    }
    case 'box': {
      const bo = ctx.object(inner, fk, 'box parameters { "halfExtents" }');
      const bm = ctx.members(bo, fk, SCENE_FIELD_NAMES.box);
      const halfExtents = ctx.vec3(
        ctx.required(bm, bo, fk, 'halfExtents', 'half side lengths [hx, hy, hz] in m, each > 0'),
        `${fk}.halfExtents`,
        'half extents [hx, hy, hz] in m',
        { exclusiveMin: 0, max: MAX_SCENE_LENGTH, unit: 'm' },
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
      const offset = offNode
        ? ctx.number(offNode.value, `${fk}.offset`, { min: -MAX_SCENE_COORDINATE, max: MAX_SCENE_COORDINATE, unit: 'm' })
        : SCENE_DEFAULTS.planeOffset;
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
  const seen = new Map<string, Span>();
  const materialNames = materials.map((mm) => mm.name);
  a.items.forEach((item, i) => {
    const fi = `${f}[${i}]`;
    const o = ctx.object(item, fi, 'a body { "name", "shape", "mass" or "static", "position", … }');
    const m = ctx.members(o, fi, BODY_KEYS);
    const nameNode = ctx.required(m, o, fi, 'name', 'the body name, unique in the scenario');
    const name = ctx.uniqueName(
      seen,
      nameNode,
      `${fi}.name`,
      (dup, line) => `duplicate body name "${dup}" (also at line ${line}); body names must be unique in a scenario`,
    );
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
      : ctx.vec3(ctx.required(m, o, fi, 'position', 'centre of mass [x, y, z] in m, world frame'), `${fi}.position`, 'a position [x, y, z] in m', {
          min: -MAX_SCENE_COORDINATE,
          max: MAX_SCENE_COORDINATE,
          unit: 'm',
        });
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
    const mat = m.get('material');
    const material = mat
      ? ctx.reference(
          mat.value,
          `${fi}.material`,
          materialNames,
          (bad, hint) => `unknown material "${bad}"${hint} (defined: ${quoteList(materialNames)}); add it to "materials"`,
        )
      : SCENE_DEFAULTS.material.name;
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
    const body = (): string =>
      ctx.reference(
        req('body', 'the name of a body in this scenario'),
        `${fi}.body`,
        bodyNames,
        (bad, hint) => `no body named "${bad}" in scenario "${safeText(desc.name)}"${hint}`,
      );
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
      case 'deterministic':
        e = {
          kind,
          mode: ctx.oneOf(req('mode', '"repeat" (run twice) or "order" (also with the contacts shuffled)'), `${fi}.mode`, ['repeat', 'order'] as const),
        };
        break;
    }
    expectations.push(e);
    expectationRanges.push(ctx.range(o));
  });
  return { expectations, expectationRanges };
}
