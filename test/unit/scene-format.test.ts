/**
 * Scenario files (*.scene.json): the bundled examples, defaults, source ranges for CodeLenses, one clear
 * error (JSON path + line/column) per kind of bad input, the never-throwing outline, and consistency of
 * schemas/scene.schema.json with the hand-written parser (a tiny draft-07 subset validator, no deps).
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FormatError } from '../../src/format/oracle.js';
import {
  EXPECTATION_FIELDS,
  parseSceneFile,
  scenarioRanges,
  SCENE_DEFAULTS,
  SCENE_FIELD_NAMES,
  SceneFormatError,
  SOLVER_OPTION_KEYS,
  type ParsedScenario,
} from '../../src/format/scene.js';
import { LineIndex, parseJsonWithPositions, JsonSyntaxError, scanLooseTokens } from '../../src/format/jsonPositions.js';

const ROOT = resolve(__dirname, '..', '..');
const EXAMPLES = join(ROOT, 'examples');
const SCHEMA = JSON.parse(readFileSync(join(ROOT, 'schemas', 'scene.schema.json'), 'utf8')) as Schema;
const exampleFiles = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.scene.json'))
  .sort();
const readExample = (f: string): string => readFileSync(join(EXAMPLES, f), 'utf8');

// ---------------------------------------------------------------------------------------------------
// Helpers

/** Removes the first "⟪" marker and returns the text plus the 1-based line/column where it was. */
function marked(src: string): { text: string; line: number; column: number } {
  const i = src.indexOf('⟪');
  assert.ok(i >= 0, 'test input has no ⟪ marker');
  const text = src.slice(0, i) + src.slice(i + 1);
  const p = new LineIndex(text).position(i);
  return { text, ...p };
}

function parseError(text: string, file = 'bad.scene.json'): SceneFormatError {
  try {
    parseSceneFile(text, file);
  } catch (e) {
    assert.ok(e instanceof SceneFormatError, `expected a SceneFormatError, got ${String(e)}`);
    assert.ok(e instanceof FormatError, 'a SceneFormatError is a FormatError');
    return e;
  }
  assert.fail('expected the parser to reject the input');
}

/** Asserts the error for the marked text: field path, position, and that the message says both. */
function expectError(src: string, field: string, detail: RegExp): SceneFormatError {
  const { text, line, column } = marked(src);
  const e = parseError(text);
  assert.equal(e.field, field, `field of: ${e.message}`);
  assert.deepEqual([e.line, e.column], [line, column], `position of: ${e.message}`);
  assert.ok(e.message.startsWith(`bad.scene.json: ${field}: line ${line}, column ${column}: `), e.message);
  assert.match(e.detail, detail);
  return e;
}

/** A small valid file with one scenario; `scenario` is spliced into the scenario object's text. */
function doc(scenario: string, extraScenarios = ''): string {
  return `{
  "scenarios": [
    {
      "name": "s",
      "frames": 10,
${scenario}
    }${extraScenarios}
  ]
}
`;
}
const GROUND = `{ "name": "ground", "shape": { "plane": { "normal": [0, 0, 1] } }, "static": true }`;
const BALL = `{ "name": "ball", "shape": { "sphere": { "radius": 0.5 } }, "mass": 1, "position": [0, 0, 1] }`;
const bodies = (...b: string[]): string => `      "bodies": [\n        ${b.join(',\n        ')}\n      ]`;

// ---------------------------------------------------------------------------------------------------
// A tiny JSON-Schema (draft-07 subset) validator: enough for schemas/scene.schema.json.

type Schema = boolean | { [k: string]: unknown };
type Obj = Record<string, unknown>;

function resolveRef(ref: string): Schema {
  assert.ok(ref.startsWith('#/'), `only local refs: ${ref}`);
  let s: unknown = SCHEMA;
  for (const part of ref.slice(2).split('/')) s = (s as Obj)[part];
  assert.ok(s !== undefined, `unresolved $ref ${ref}`);
  return s as Schema;
}

function typeOf(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  return typeof x;
}

function validate(s: Schema, x: unknown, path = '$'): string[] {
  if (s === true) return [];
  if (s === false) return [`${path}: not allowed`];
  const errs: string[] = [];
  if (typeof s.$ref === 'string') errs.push(...validate(resolveRef(s.$ref), x, path));
  if (s.type !== undefined) {
    const t = typeOf(x);
    const ok = s.type === t || (s.type === 'integer' && typeof x === 'number' && Number.isInteger(x));
    if (!ok) return [...errs, `${path}: expected ${String(s.type)}, got ${t}`];
  }
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(x)) errs.push(`${path}: must be ${JSON.stringify(s.const)}`);
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(x))) errs.push(`${path}: not in enum`);
  if (typeof x === 'number') {
    if (typeof s.minimum === 'number' && !(x >= s.minimum)) errs.push(`${path}: < minimum ${s.minimum}`);
    if (typeof s.maximum === 'number' && !(x <= s.maximum)) errs.push(`${path}: > maximum ${s.maximum}`);
    if (typeof s.exclusiveMinimum === 'number' && !(x > s.exclusiveMinimum)) errs.push(`${path}: ≤ exclusiveMinimum ${s.exclusiveMinimum}`);
  }
  if (typeof x === 'string') {
    if (typeof s.minLength === 'number' && x.length < s.minLength) errs.push(`${path}: too short`);
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(x)) errs.push(`${path}: does not match ${s.pattern}`);
  }
  if (Array.isArray(x)) {
    if (typeof s.minItems === 'number' && x.length < s.minItems) errs.push(`${path}: fewer than ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && x.length > s.maxItems) errs.push(`${path}: more than ${s.maxItems} items`);
    if (s.items !== undefined) x.forEach((item, i) => errs.push(...validate(s.items as Schema, item, `${path}[${i}]`)));
  }
  if (typeOf(x) === 'object') {
    const o = x as Obj;
    const props = (s.properties ?? {}) as Record<string, Schema>;
    for (const r of (s.required ?? []) as string[]) if (!(r in o)) errs.push(`${path}: missing ${r}`);
    for (const [k, v] of Object.entries(o)) {
      if (k in props) errs.push(...validate(props[k], v, `${path}.${k}`));
      else if (s.additionalProperties === false) errs.push(`${path}.${k}: additional property`);
    }
  }
  if (Array.isArray(s.allOf)) for (const sub of s.allOf as Schema[]) errs.push(...validate(sub, x, path));
  if (Array.isArray(s.anyOf) && !(s.anyOf as Schema[]).some((sub) => validate(sub, x, path).length === 0)) errs.push(`${path}: matches no anyOf`);
  if (Array.isArray(s.oneOf)) {
    const results = (s.oneOf as Schema[]).map((sub) => validate(sub, x, path));
    const n = results.filter((r) => r.length === 0).length;
    if (n !== 1) errs.push(`${path}: matches ${n} of oneOf (${results.map((r) => r[0] ?? 'ok').join(' | ')})`);
  }
  if (s.not !== undefined && validate(s.not as Schema, x, path).length === 0) errs.push(`${path}: matches "not"`);
  if (s.if !== undefined) {
    const branch = validate(s.if as Schema, x, path).length === 0 ? s.then : s.else;
    if (branch !== undefined) errs.push(...validate(branch as Schema, x, path));
  }
  return errs;
}

const schemaErrors = (text: string): string[] => validate(SCHEMA, JSON.parse(text));

function parserAccepts(text: string): { ok: true } | { ok: false; error: SceneFormatError } {
  try {
    parseSceneFile(text, 'm.scene.json');
    return { ok: true };
  } catch (e) {
    if (e instanceof SceneFormatError) return { ok: false, error: e };
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------

describe('scene format: bundled examples', () => {
  const required = [
    'sphere-drop',
    'head-on-elastic',
    'glancing-collision',
    'resting-box',
    'box-stack-10',
    'pyramid-20',
    'box-slide-friction',
    'incline-friction-angle',
    'mass-ratio-stack',
    'box-pile-1000',
    'fault-restitution-target',
  ];

  it('has every required example file', () => {
    for (const r of required) assert.ok(exampleFiles.includes(`${r}.scene.json`), `examples/${r}.scene.json is missing`);
  });

  for (const f of exampleFiles) {
    it(`${f} parses, its outline equals the parse, and only fault files warn (about faults)`, () => {
      const text = readExample(f);
      const { scenarios, warnings } = parseSceneFile(text, `examples/${f}`);
      assert.ok(scenarios.length >= 1);
      for (const s of scenarios) {
        assert.ok(s.expectations.length >= 1, `${s.desc.name} has no expectations`);
        assert.ok(s.description && s.description.length > 20, `${s.desc.name} has no description`);
        assert.equal(s.bodyRanges.length, s.desc.bodies.length);
        assert.equal(s.expectationRanges.length, s.expectations.length);
      }
      const outline = scenarioRanges(text);
      assert.deepEqual(
        outline.map((o) => ({ name: o.name, range: o.range, nameRange: o.nameRange })),
        scenarios.map((s) => ({ name: s.desc.name, range: s.range, nameRange: s.nameRange })),
      );
      const isFault = f.includes('fault');
      // Fault files plant a fault either through a faultInjection section (one warning per scenario) or
      // through their configuration (e.g. too few PGS iterations; no warning needed).
      const injected = scenarios.map((s, i) => [s, i] as const).filter(([s]) => s.desc.config.faults.restitutionAsTarget);
      if (isFault) {
        assert.equal(warnings.length, injected.length, 'one warning per fault-injection scenario');
        for (const [k, w] of warnings.entries()) {
          const [sc, i] = injected[k];
          assert.equal(w.kind, 'fault-injection');
          assert.equal(w.field, `scenarios[${i}].faultInjection`);
          assert.equal(w.scenario, sc.desc.name);
          assert.match(w.message, /restitutionAsTarget/);
        }
      } else {
        assert.deepEqual(
          warnings.map((w) => w.message),
          [],
        );
        for (const s of scenarios) assert.deepEqual(s.desc.config.faults, {}, `${s.desc.name} must not inject faults`);
      }
    });
  }

  it('scenario names are unique across all example files (CLI --scenario and test ids stay unambiguous)', () => {
    const seen = new Map<string, string>();
    for (const f of exampleFiles) {
      for (const s of parseSceneFile(readExample(f), f).scenarios) {
        assert.ok(!seen.has(s.desc.name), `${s.desc.name} in ${f} and ${seen.get(s.desc.name)}`);
        seen.set(s.desc.name, f);
      }
    }
  });

  it('the specific examples are what the issue asks for', () => {
    const get = (f: string, name?: string): ParsedScenario => {
      const all = parseSceneFile(readExample(`${f}.scene.json`), f).scenarios;
      return name ? all.find((s) => s.desc.name === name)! : all[0];
    };
    const drop = get('sphere-drop');
    const ball = drop.desc.bodies.find((b) => b.shape.kind === 'sphere')!;
    const r = ball.shape.kind === 'sphere' ? ball.shape.radius : 0;
    assert.equal(ball.position[2] - r, 1, 'dropped from 1 m');
    assert.equal(drop.desc.materials.find((m) => m.name === ball.material)!.restitution, 0.5);

    const head = get('head-on-elastic');
    assert.deepEqual(head.desc.config.gravity, [0, 0, 0]);
    assert.ok(head.desc.materials.every((m) => m.name === 'default' || m.restitution === 1));
    assert.equal(head.desc.bodies[0].velocity[0], -head.desc.bodies[1].velocity[0]);

    const rest = get('resting-box');
    assert.equal(rest.desc.frames, 1000);
    assert.ok(rest.expectations.some((e) => e.kind === 'finalPosition' && e.tolerance <= 0.01));
    assert.ok(rest.expectations.some((e) => e.kind === 'energyNonIncreasing'));

    assert.equal(get('box-stack-10').desc.bodies.filter((b) => b.shape.kind === 'box').length, 10);
    const pyr = get('pyramid-20').desc.bodies.filter((b) => b.shape.kind === 'box');
    assert.equal(pyr.length, 210);
    assert.equal(pyr.filter((b) => b.position[2] === 0.5).length, 20, 'base of 20');

    const ratio = get('mass-ratio-stack')
      .desc.bodies.filter((b) => b.mass !== null)
      .map((b) => b.mass!);
    assert.equal(Math.max(...ratio) / Math.min(...ratio), 100);

    const pileText = readExample('box-pile-1000.scene.json');
    assert.ok(statSync(join(EXAMPLES, 'box-pile-1000.scene.json')).size < 500 * 1024, 'box-pile-1000 must stay below 500 KB');
    assert.equal(get('box-pile-1000').desc.bodies.filter((b) => b.shape.kind === 'box').length, 1000);
    assert.ok(pileText.length > 0);

    // Incline at the friction angle: plane normal tilted by atan(μ) and the box's bottom face (−z body) on it.
    const inc = get('incline-friction-angle', 'incline-at-friction-angle');
    const plane = inc.desc.bodies.find((b) => b.shape.kind === 'plane')!;
    const cube = inc.desc.bodies.find((b) => b.shape.kind === 'box')!;
    const mu = inc.desc.materials.find((m) => m.name === cube.material)!.friction;
    const n = plane.shape.kind === 'plane' ? plane.shape.normal : [0, 0, 0];
    assert.ok(Math.abs(Math.acos(n[2]) - Math.atan(mu)) < 1e-9, 'tilt = atan(μ)');
    const [w, x, y, z] = cube.orientation; // body z axis in world = third column of R(q)
    const bz = [2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)];
    assert.ok(Math.hypot(bz[0] - n[0], bz[1] - n[1], bz[2] - n[2]) < 1e-9, 'box rotated onto the plane');
    const h = cube.shape.kind === 'box' ? cube.shape.halfExtents[2] : 0;
    const dist = n[0] * cube.position[0] + n[1] * cube.position[1] + n[2] * cube.position[2] - (plane.shape.kind === 'plane' ? plane.shape.offset : 0);
    assert.ok(Math.abs(dist - h) < 1e-9, 'bottom face touches the plane');

    const glance = get('glancing-collision');
    const vf = glance.expectations.filter((e) => e.kind === 'finalVelocity');
    assert.equal(vf.length, 2);
    if (vf[0].kind === 'finalVelocity' && vf[1].kind === 'finalVelocity') {
      const [a, b] = [vf[0].velocity, vf[1].velocity];
      assert.ok(Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) < 1e-5, 'equal-mass elastic glancing: outgoing velocities perpendicular');
    }
  });
});

describe('scene format: defaults and conversion', () => {
  it('applies every default and produces exactly the engine types', () => {
    const { scenarios, warnings } = parseSceneFile(doc(bodies(GROUND, BALL)), 'min.scene.json');
    assert.deepEqual(warnings, []);
    const s = scenarios[0];
    assert.deepEqual(s.desc, {
      name: 's',
      frames: 10,
      config: {
        dt: 1 / 60,
        gravity: [0, 0, -9.81],
        solver: { solver: 'coulomb' },
        erp: 0.2,
        slop: 0.005,
        splitImpulse: false,
        softening: 0,
        restVelocityThreshold: 0.5,
        frictionCombine: 'geometric-mean',
        restitutionCombine: 'geometric-mean',
        warmStart: true,
        faults: {},
      },
      materials: [{ name: 'default', friction: 0.5, restitution: 0 }],
      bodies: [
        {
          name: 'ground',
          shape: { kind: 'plane', normal: [0, 0, 1], offset: 0 },
          mass: null,
          position: [0, 0, 0],
          orientation: [1, 0, 0, 0],
          velocity: [0, 0, 0],
          angularVelocity: [0, 0, 0],
          material: 'default',
        },
        {
          name: 'ball',
          shape: { kind: 'sphere', radius: 0.5 },
          mass: 1,
          position: [0, 0, 1],
          orientation: [1, 0, 0, 0],
          velocity: [0, 0, 0],
          angularVelocity: [0, 0, 0],
          material: 'default',
        },
      ],
    });
    assert.deepEqual(s.expectations, []);
    assert.equal(SCENE_DEFAULTS.dt, 1 / 60);
    assert.ok(Object.isFrozen(SCENE_DEFAULTS) && Object.isFrozen(SCENE_DEFAULTS.gravity) && Object.isFrozen(SCENE_DEFAULTS.material));
    for (const v of [s.desc.config.gravity, s.desc.bodies[1].velocity, s.desc.bodies[1].orientation, s.desc.materials[0], s.desc.config.solver]) {
      assert.ok(!Object.isFrozen(v), 'parsed descriptions do not share the frozen defaults');
    }
    assert.notEqual(s.desc.bodies[0].velocity, s.desc.bodies[1].velocity);
  });

  it('reads every explicit field, solver options, materials, shapes and expectations', () => {
    const text = doc(`      "dt": 0.01, "gravity": [0, -9.81, 0], "erp": 0.1, "slop": 0.001, "splitImpulse": true, "softening": 1e-6,
      "restVelocityThreshold": 0.2, "frictionCombine": "min", "restitutionCombine": "max", "warmStart": false,
      "solver": { "name": "pgs", "maxIterations": 30, "tolerance": 1e-8, "friction": "cone", "warmStartFactor": 0.9,
                  "diagonalScaling": true, "regularization": 1e-9, "fixedPointTolerance": 1e-12 },
      "materials": [{ "name": "default", "friction": 0.3, "restitution": 0.1 }, { "name": "ice", "friction": 0.01, "restitution": 0 }],
      "faultInjection": { "restitutionAsTarget": false },
      "description": "everything",
${bodies(
  GROUND.replace('[0, 0, 1] }', '[0, 0, 2], "offset": 1.5 }'),
  `{ "name": "b", "shape": { "box": { "halfExtents": [1, 2, 3] } }, "mass": 2.5, "position": [1, 2, 3], "orientation": [0, 0, 0, 1],
          "velocity": [1, 0, 0], "angularVelocity": [0, 0, 3], "material": "ice" }`,
)},
      "expectations": [
        { "kind": "energyNonIncreasing", "toleranceJ": 0.5 }, { "kind": "maxPenetration", "meters": 0.01 },
        { "kind": "finalPosition", "body": "b", "position": [1, 2, 3], "tolerance": 0.1 },
        { "kind": "finalVelocity", "body": "b", "velocity": [0, 0, 0], "tolerance": 0.2 },
        { "kind": "noSolverFailures" }, { "kind": "momentumConserved", "tolerance": 1e-3 }, { "kind": "bodyAtRest", "body": "b", "speed": 0.05 }
      ]`);
    const { scenarios, warnings } = parseSceneFile(text, 'full.scene.json');
    assert.deepEqual(schemaErrors(text), []);
    const s = scenarios[0];
    assert.equal(s.description, 'everything');
    assert.deepEqual(s.desc.config, {
      dt: 0.01,
      gravity: [0, -9.81, 0],
      erp: 0.1,
      slop: 0.001,
      splitImpulse: true,
      softening: 1e-6,
      restVelocityThreshold: 0.2,
      frictionCombine: 'min',
      restitutionCombine: 'max',
      warmStart: false,
      faults: { restitutionAsTarget: false },
      solver: {
        solver: 'pgs',
        maxIterations: 30,
        tolerance: 1e-8,
        friction: 'cone',
        warmStartFactor: 0.9,
        diagonalScaling: true,
        regularization: 1e-9,
        fixedPointTolerance: 1e-12,
      },
    });
    assert.deepEqual(
      s.desc.materials,
      [
        { name: 'default', friction: 0.3, restitution: 0.1 },
        { name: 'ice', friction: 0.01, restitution: 0 },
      ],
      'a redefined "default" replaces the implicit one',
    );
    assert.deepEqual(
      s.desc.bodies[0].shape,
      { kind: 'plane', normal: [0, 0, 1], offset: 1.5 },
      'normal normalised, offset kept (distance along the unit normal)',
    );
    assert.deepEqual(s.desc.bodies[1], {
      name: 'b',
      shape: { kind: 'box', halfExtents: [1, 2, 3] },
      mass: 2.5,
      position: [1, 2, 3],
      orientation: [0, 0, 0, 1],
      velocity: [1, 0, 0],
      angularVelocity: [0, 0, 3],
      material: 'ice',
    });
    assert.deepEqual(s.expectations, [
      { kind: 'energyNonIncreasing', toleranceJ: 0.5 },
      { kind: 'maxPenetration', meters: 0.01 },
      { kind: 'finalPosition', body: 'b', position: [1, 2, 3], tolerance: 0.1 },
      { kind: 'finalVelocity', body: 'b', velocity: [0, 0, 0], tolerance: 0.2 },
      { kind: 'noSolverFailures' },
      { kind: 'momentumConserved', tolerance: 1e-3 },
      { kind: 'bodyAtRest', body: 'b', speed: 0.05 },
    ]);
    // restitutionAsTarget: false is no fault; momentumConserved with gravity and a static plane cannot hold.
    assert.deepEqual(
      warnings.map((w) => [w.kind, w.field]),
      [['expectation', 'scenarios[0].expectations[5]']],
    );
  });

  it('reads the newton and ipm options', () => {
    const newton = parseSceneFile(
      doc(`      "solver": { "name": "newton", "maxIterations": 20, "tolerance": 1e-10, "armijo": 1e-4, "maxBacktracks": 8 },\n${bodies(BALL)}`),
      'n.scene.json',
    );
    assert.deepEqual(newton.scenarios[0].desc.config.solver, { solver: 'newton', maxIterations: 20, tolerance: 1e-10, armijo: 1e-4, maxBacktracks: 8 });
    const ipm = parseSceneFile(doc(`      "solver": { "name": "ipm", "tolerance": 1e-9 },\n${bodies(BALL)}`), 'i.scene.json');
    assert.deepEqual(ipm.scenarios[0].desc.config.solver, { solver: 'ipm', tolerance: 1e-9 });
  });

  it('normalises quaternions, warning only when |q| is off by more than 1e-6', () => {
    const q = (quat: string): ReturnType<typeof parseSceneFile> =>
      parseSceneFile(doc(bodies(BALL.replace('"position"', `"orientation": ${quat}, "position"`))), 'q.scene.json');
    const ok = q('[1, 0, 0, 0.001]'); // |q| − 1 = 5e-7
    assert.deepEqual(ok.warnings, []);
    const l = Math.hypot(1, 0.001);
    assert.deepEqual(ok.scenarios[0].desc.bodies[0].orientation, [1 / l, 0, 0, 0.001 / l]);
    const src = doc(bodies(BALL.replace('"position"', '"orientation": ⟪[2, 0, 0, 0], "position"')));
    const { text, line, column } = marked(src);
    const bad = parseSceneFile(text, 'q.scene.json');
    assert.deepEqual(bad.scenarios[0].desc.bodies[0].orientation, [1, 0, 0, 0]);
    assert.equal(bad.warnings.length, 1);
    const w = bad.warnings[0];
    assert.equal(w.kind, 'quaternion-normalized');
    assert.equal(w.field, 'scenarios[0].bodies[0].orientation');
    assert.deepEqual([w.range.line, w.range.column], [line, column]);
    assert.ok(w.message.startsWith(`q.scene.json: scenarios[0].bodies[0].orientation: line ${line}, column ${column}: `), w.message);
  });
});

describe('scene format: source ranges', () => {
  it('scenario, name, body and expectation ranges point at the right text', () => {
    for (const f of ['head-on-elastic.scene.json', 'resting-box.scene.json', 'box-slide-friction.scene.json']) {
      const text = readExample(f);
      const lines = text.split('\n');
      const idx = new LineIndex(text);
      const offset = (r: { line: number; column: number }): number => lines.slice(0, r.line - 1).reduce((n, l) => n + l.length + 1, 0) + r.column - 1;
      const slice = (r: { line: number; column: number; endLine: number; endColumn: number }): string =>
        text.slice(offset(r), offset({ line: r.endLine, column: r.endColumn }));
      for (const s of parseSceneFile(text, f).scenarios) {
        const nameLine = lines.findIndex((l) => l.includes(`"name": ${JSON.stringify(s.desc.name)}`)) + 1;
        assert.equal(s.nameRange.line, nameLine, `${s.desc.name}: name line`);
        assert.equal(slice(s.nameRange), JSON.stringify(s.desc.name));
        assert.equal(s.range.line, nameLine - 1, 'the scenario object opens on the line above its name');
        const obj = slice(s.range);
        assert.ok(obj.startsWith('{') && obj.endsWith('}'));
        assert.equal((JSON.parse(obj) as { name: string }).name, s.desc.name, 'the range covers exactly the scenario object');
        s.desc.bodies.forEach((b, i) => assert.equal((JSON.parse(slice(s.bodyRanges[i])) as { name: string }).name, b.name));
        s.expectations.forEach((e, i) => assert.equal((JSON.parse(slice(s.expectationRanges[i])) as { kind: string }).kind, e.kind));
        assert.deepEqual(idx.range(offset(s.range), offset({ line: s.range.endLine, column: s.range.endColumn })), s.range);
      }
    }
  });

  it('counts lines for \\n, \\r\\n and \\r and columns in UTF-16 units', () => {
    const idx = new LineIndex('ab\r\ncd\ref\ngé😀x');
    assert.deepEqual(idx.position(0), { line: 1, column: 1 });
    assert.deepEqual(idx.position(4), { line: 2, column: 1 });
    assert.deepEqual(idx.position(7), { line: 3, column: 1 });
    assert.deepEqual(idx.position(14), { line: 4, column: 5 }, 'the emoji is two UTF-16 units, as in VS Code');
    const crlf = doc(bodies(BALL)).replace(/\n/g, '\r\n').replace('"frames": 10', '"frames": ⟪-1');
    const { text, line, column } = marked(crlf);
    const e = parseError(text);
    assert.deepEqual([e.line, e.column], [line, column]);
    assert.equal(line, 5);
  });
});

describe('scene format: errors name the JSON path, line and column', () => {
  it('syntax errors: file, line and column of the offending character, with a hint', () => {
    const cases: [string, RegExp][] = [
      [doc(bodies(BALL)).replace('"frames": 10,', '"frames": 10 ⟪"x": 1,'), /expected ',' or '}' after the value of "frames".*missing comma/],
      ['{ "scenarios": [], ⟪}', /trailing comma before "}"/],
      [doc(bodies(BALL)).replace('      "frames"', '      ⟪// comment\n      "frames"'), /comments are not allowed/],
      [doc(bodies(BALL)).replace('"frames"', '⟪frames'), /property names must be double-quoted strings: write "frames"/],
      [doc(bodies(BALL)).replace('"name": "s"', '"name": ⟪\'s\''), /double quotes/],
      [doc(bodies(BALL)).replace('"name": "s"', '"name": ⟪"s'), /unterminated string/],
      [doc(bodies(BALL)).replace('"frames": 10', '"frames": ⟪NaN'), /NaN and Infinity are not JSON numbers/],
      [doc(bodies(BALL)).replace('"frames": 10', '"frames": ⟪010'), /leading zeros/],
      [doc(bodies(BALL)).replace('"frames": 10', '"frames": ⟪tru'), /unexpected word "tru"/],
      [doc(bodies(BALL)).replace('[0, 0, 1] }', '[0, 0, 1,⟪] }'), /trailing comma before "]"/],
      ['{ "scenarios": [ ⟪', /unexpected end of the file/],
      ['⟪', /unexpected end of the file: expected a value/],
      ['{ "scenarios": [] } ⟪x', /after the end of the JSON value/],
    ];
    for (const [src, detail] of cases) {
      const e = expectError(src, '(json)', detail);
      assert.match(e.detail, /^syntax error: /);
    }
  });

  it('wrong types', () => {
    expectError(doc(`      "dt": ⟪"fast",\n${bodies(BALL)}`), 'scenarios[0].dt', /expected a number \(s\), got a string \("fast"\)/);
    expectError(doc(`      "gravity": ⟪[0, -9.81],\n${bodies(BALL)}`), 'scenarios[0].gravity', /exactly 3 numbers, got 2/);
    expectError(doc(`      "gravity": [0, ⟪null, 0],\n${bodies(BALL)}`), 'scenarios[0].gravity[1]', /expected a number \(m\/s²\), got null/);
    expectError(doc(`      "warmStart": ⟪"yes",\n${bodies(BALL)}`), 'scenarios[0].warmStart', /expected true or false/);
    expectError(doc(`      "frictionCombine": ⟪"geometric",\n${bodies(BALL)}`), 'scenarios[0].frictionCombine', /not one of .*did you mean "geometric-mean"/);
    expectError(doc(bodies(BALL)).replace('"frames": 10', '"frames": ⟪2.5'), 'scenarios[0].frames', /expected an integer, got 2.5/);
    expectError(doc(bodies(BALL)).replace('"frames": 10', '"frames": ⟪1e400'), 'scenarios[0].frames', /finite/);
    expectError(doc(bodies(BALL.replace('{ "sphere": { "radius": 0.5 } }', '⟪[0.5]'))), 'scenarios[0].bodies[0].shape', /expected a shape/);
    expectError(doc(`      "bodies": ⟪{}`), 'scenarios[0].bodies', /expected an array of bodies/);
    expectError('⟪[]', '(root)', /expected the file to be an object/);
    expectError('{ "scenarios": ⟪[] }', 'scenarios', /at least one scenario/);
    expectError(`{ "$schema": ⟪1, "scenarios": [] }`, '$schema', /string/);
  });

  it('unknown fields point at the key and suggest the intended one', () => {
    expectError(
      doc(`      "materials": [{ "name": "m", "friction": 0.5, ⟪"restitusion": 0 }],\n${bodies(BALL)}`),
      'scenarios[0].materials[0].restitusion',
      /unknown field "restitusion"; did you mean "restitution"\?/,
    );
    expectError(doc(`      ⟪"graviy": [0, 0, 0],\n${bodies(BALL)}`), 'scenarios[0].graviy', /did you mean "gravity"/);
    expectError(doc(bodies(BALL.replace('"mass": 1', '"mass": 1, ⟪"colour": "red"'))), 'scenarios[0].bodies[0].colour', /unknown field "colour".*allowed here/);
    expectError(
      doc(`      "solver": { "name": "newton", ⟪"friction": "cone" },\n${bodies(BALL)}`),
      'scenarios[0].solver.friction',
      /"friction" is an option of the pgs solver, not of newton/,
    );
    expectError(
      doc(`      "faultInjection": { ⟪"restitutionTarget": true },\n${bodies(BALL)}`),
      'scenarios[0].faultInjection.restitutionTarget',
      /did you mean "restitutionAsTarget"/,
    );
    expectError(doc(`      "dt": 0.01, ⟪"dt": 0.02,\n${bodies(BALL)}`), 'scenarios[0].dt', /duplicate field "dt"/);
  });

  it('physical sanity', () => {
    expectError(doc(bodies(BALL.replace('"mass": 1', '"mass": ⟪-1'))), 'scenarios[0].bodies[0].mass', /must be > 0 kg, got -1/);
    expectError(doc(bodies(BALL.replace('"mass": 1', '"mass": ⟪0'))), 'scenarios[0].bodies[0].mass', /must be > 0 kg/);
    expectError(doc(bodies(BALL.replace('"radius": 0.5', '"radius": ⟪0'))), 'scenarios[0].bodies[0].shape.sphere.radius', /must be > 0 m/);
    expectError(
      doc(bodies(`{ "name": "b", "shape": { "box": { "halfExtents": [1, ⟪-2, 3] } }, "mass": 1, "position": [0, 0, 0] }`)),
      'scenarios[0].bodies[0].shape.box.halfExtents[1]',
      /must be > 0 m/,
    );
    expectError(doc(`      "dt": ⟪0,\n${bodies(BALL)}`), 'scenarios[0].dt', /must be > 0 s/);
    expectError(doc(`      "erp": ⟪1.5,\n${bodies(BALL)}`), 'scenarios[0].erp', /must be ≤ 1/);
    expectError(doc(bodies(BALL)).replace('"frames": 10', '"frames": ⟪0'), 'scenarios[0].frames', /must be ≥ 1/);
    expectError(
      doc(`      "materials": [{ "name": "m", "friction": ⟪-0.1, "restitution": 0 }],\n${bodies(BALL)}`),
      'scenarios[0].materials[0].friction',
      /must be ≥ 0/,
    );
    expectError(
      doc(`      "materials": [{ "name": "m", "friction": 0.5, "restitution": ⟪1.2 }],\n${bodies(BALL)}`),
      'scenarios[0].materials[0].restitution',
      /must be ≤ 1, got 1.2/,
    );
    expectError(
      doc(bodies(BALL.replace('"position"', '"orientation": ⟪[0, 0, 0, 0], "position"'))),
      'scenarios[0].bodies[0].orientation',
      /zero and cannot be normalised/,
    );
    expectError(doc(bodies(GROUND.replace('[0, 0, 1]', '⟪[0, 0, 0]'))), 'scenarios[0].bodies[0].shape.plane.normal', /must not be zero/);
    expectError(doc(`      "solver": { "name": "pgs", "maxIterations": ⟪0 },\n${bodies(BALL)}`), 'scenarios[0].solver.maxIterations', /must be ≥ 1/);
  });

  it('mass, static and planes', () => {
    expectError(doc(bodies(GROUND.replace('"static": true', '⟪"mass": 5'))), 'scenarios[0].bodies[0].mass', /planes are always static/);
    expectError(
      doc(bodies(GROUND.replace('"static": true', '"static": true, ⟪"position": [0, 0, 0]'))),
      'scenarios[0].bodies[0].position',
      /a plane is placed by shape.plane.normal/,
    );
    expectError(
      doc(bodies(BALL.replace('"mass": 1', '"mass": 1, ⟪"static": true'))),
      'scenarios[0].bodies[0].static',
      /either "mass" \(kg\) or "static": true, not both/,
    );
    expectError(doc(bodies(BALL.replace('"mass": 1', '"static": ⟪false'))), 'scenarios[0].bodies[0].static', /can only be true/);
    expectError(
      doc(bodies(BALL.replace('"mass": 1', '"static": true, ⟪"velocity": [1, 0, 0]'))),
      'scenarios[0].bodies[0].velocity',
      /a static body does not move/,
    );
    expectError(
      doc(bodies(BALL.replace('"sphere": { "radius": 0.5 }', '"sphere": { "radius": 0.5 }, ⟪"box": {}'))),
      'scenarios[0].bodies[0].shape.box',
      /exactly one kind; found both "sphere" and "box"/,
    );
    expectError(doc(bodies(BALL.replace('{ "sphere": { "radius": 0.5 } }', '⟪{}'))), 'scenarios[0].bodies[0].shape', /empty shape/);
  });

  it('cross references and unique names', () => {
    expectError(
      doc(
        `      "materials": [{ "name": "rubber", "friction": 1, "restitution": 0.8 }],\n${bodies(BALL.replace('"mass": 1', '"mass": 1, "material": ⟪"rubbr"'))}`,
      ),
      'scenarios[0].bodies[0].material',
      /unknown material "rubbr"; did you mean "rubber"\?/,
    );
    expectError(
      doc(bodies(BALL, BALL.replace('"name": "ball"', '"name": ⟪"ball"'))),
      'scenarios[0].bodies[1].name',
      /duplicate body name "ball" \(also at line 7\)/,
    );
    expectError(
      doc(`      "materials": [{ "name": "m", "friction": 1, "restitution": 0 }, { "name": ⟪"m", "friction": 1, "restitution": 0 }],\n${bodies(BALL)}`),
      'scenarios[0].materials[1].name',
      /duplicate material name "m"/,
    );
    const two = doc(bodies(BALL), `,\n    { "name": ⟪"s", "frames": 1, ${bodies(BALL).trim()} }`);
    expectError(two, 'scenarios[1].name', /duplicate scenario name "s" \(also at line 4\)/);
    expectError(
      doc(`${bodies(BALL)},\n      "expectations": [{ "kind": "bodyAtRest", "body": ⟪"bal", "speed": 0.1 }]`),
      'scenarios[0].expectations[0].body',
      /no body named "bal" in scenario "s"; did you mean "ball"\?/,
    );
    expectError(doc(`${bodies(BALL)},\n      "expectations": [{ "kind": ⟪"energyConserved" }]`), 'scenarios[0].expectations[0].kind', /not one of/);
    expectError(
      doc(`${bodies(BALL)},\n      "expectations": [⟪{ "kind": "maxPenetration" }]`),
      'scenarios[0].expectations[0].meters',
      /missing required field "meters"/,
    );
    expectError(
      doc(`${bodies(BALL)},\n      "expectations": [{ "kind": "noSolverFailures", ⟪"meters": 1 }]`),
      'scenarios[0].expectations[0].meters',
      /unknown field/,
    );
  });

  it('a fault-injection section is accepted with a warning naming the scenario and its position', () => {
    const { text, line, column } = marked(
      doc(
        `      "faultInjection": ⟪{ "restitutionAsTarget": true },\n${bodies(GROUND, BALL)}`,
        `,\n    { "name": "clean", "frames": 1, ${bodies(BALL).trim()} }`,
      ),
    );
    const { scenarios, warnings } = parseSceneFile(text, 'f.scene.json');
    assert.equal(scenarios.length, 2);
    assert.equal(warnings.length, 1, 'only the scenario that uses it');
    const w = warnings[0];
    assert.deepEqual([w.kind, w.field, w.scenario, w.range.line, w.range.column], ['fault-injection', 'scenarios[0].faultInjection', 's', line, column]);
    assert.match(w.message, /^f\.scene\.json: scenarios\[0\]\.faultInjection: line \d+, column \d+: scenario "s" injects a deliberate fault/);
    assert.deepEqual(scenarios[0].desc.config.faults, { restitutionAsTarget: true });
    assert.deepEqual(scenarios[1].desc.config.faults, {});
  });
});

describe('scene format: missing fields', () => {
  it('point at the "{" of the object that lacks them', () => {
    expectError(
      doc(bodies(BALL)).replace('    {\n      "name": "s",\n      "frames": 10,', '    ⟪{\n      "name": "s",'),
      'scenarios[0].frames',
      /missing required field "frames"/,
    );
    expectError(doc(bodies(BALL)).replace('      "name": "s",\n', '').replace('    {\n', '    ⟪{\n'), 'scenarios[0].name', /missing required field "name"/);
    expectError(doc('      "dt": 0.01').replace('    {\n      "name"', '    ⟪{\n      "name"'), 'scenarios[0].bodies', /missing required field "bodies"/);
    expectError(
      doc(bodies(BALL.replace(', "position": [0, 0, 1]', '').replace('{ "name": "ball"', '⟪{ "name": "ball"'))),
      'scenarios[0].bodies[0].position',
      /missing required field "position"/,
    );
    expectError(
      doc(bodies(BALL.replace('"mass": 1, ', '').replace('{ "name": "ball"', '⟪{ "name": "ball"'))),
      'scenarios[0].bodies[0].mass',
      /missing required field "mass".*or write "static": true/,
    );
    expectError(
      doc(bodies(GROUND.replace(', "static": true', '').replace('{ "name": "ground"', '⟪{ "name": "ground"'))),
      'scenarios[0].bodies[0].static',
      /planes are always static/,
    );
    expectError(
      doc(bodies(BALL.replace('"radius": 0.5', '').replace('"sphere": {', '"sphere": ⟪{'))),
      'scenarios[0].bodies[0].shape.sphere.radius',
      /missing required field "radius"/,
    );
    expectError(
      doc(`      "solver": ⟪{ "maxIterations": 3 },\n${bodies(BALL)}`),
      'scenarios[0].solver.name',
      /missing required field "name" \(one of "pgs", "newton", "ipm", "coulomb"\)/,
    );
    expectError(
      doc(`      "materials": [⟪{ "name": "m", "friction": 1 }],\n${bodies(BALL)}`),
      'scenarios[0].materials[0].restitution',
      /missing required field "restitution"/,
    );
    expectError('⟪{ }', 'scenarios', /missing required field "scenarios"/);
  });
});

describe('scene format: scenarioRanges (outline while typing) never throws', () => {
  it('every prefix of an example gives a well-formed outline; complete scenarios keep their final ranges', () => {
    for (const f of ['head-on-elastic.scene.json', 'sphere-drop.scene.json']) {
      const text = readExample(f);
      const full = parseSceneFile(text, f).scenarios;
      const idx = new LineIndex(text);
      const endOffset = (s: ParsedScenario): number => {
        const lines = text.split('\n');
        return lines.slice(0, s.range.endLine - 1).reduce((n, l) => n + l.length + 1, 0) + s.range.endColumn - 1;
      };
      for (let cut = 0; cut <= text.length; cut++) {
        const o = scenarioRanges(text.slice(0, cut));
        for (const s of o) {
          assert.ok(s.range.line >= 1 && s.range.column >= 1 && (s.range.endLine > s.range.line || s.range.endColumn >= s.range.column), `cut ${cut}`);
        }
        full.forEach((s, i) => {
          if (endOffset(s) <= cut) {
            assert.ok(o[i], `cut ${cut}: scenario ${i} missing`);
            assert.deepEqual([o[i].name, o[i].range, o[i].nameRange], [s.desc.name, s.range, s.nameRange], `cut ${cut}`);
          }
        });
        if (cut > 0 && cut % 97 === 0) assert.ok(idx.position(cut).line >= 1);
      }
    }
  });

  it('finds all scenarios when one in the middle is broken', () => {
    const text = `{
  "scenarios": [
    { "name": "first", "frames": 10 "bodies": [ { "name": "a", "mass": -, ] },
    { "name": "second", "frames": , "dt": "unterminated
    },
    // a comment
    { "frames": 3, "name": "third", "bodies": [ { "name": "x" } ] },
    { "bodies": [], "name"
  `;
    const o = scenarioRanges(text);
    assert.deepEqual(
      o.map((s) => s.name),
      ['first', 'second', 'third', null],
    );
    assert.deepEqual(
      o.map((s) => s.range.line),
      [3, 4, 7, 8],
    );
    assert.deepEqual(
      o.map((s) => s.nameRange?.line),
      [3, 4, 7, undefined],
    );
    assert.equal(o[2].nameRange!.column, text.split('\n')[6].indexOf('"third"') + 1);
    assert.equal(o[1].range.endLine, 5, 'the broken scenario still ends at its "}"');
    assert.throws(() => parseSceneFile(text, 'x.scene.json'), SceneFormatError);
  });

  it('ignores "name" keys of nested objects and handles odd input', () => {
    const o = scenarioRanges('{ "scenarios": [ { "bodies": [ { "name": "nested" } ], "name": "outer" } ], "name": "root" }');
    assert.deepEqual(
      o.map((s) => s.name),
      ['outer'],
    );
    for (const junk of [
      '',
      'null',
      '[',
      ']]]}}}',
      '{',
      '{"scenarios": {',
      '{"scenarios": [[[[',
      '"\\',
      '\u0000\uffff',
      '{ "scenarios": [ "x", 1, { } ] }',
      '['.repeat(100000),
      '{"scenarios":[' + '{'.repeat(50000),
      '/* open comment',
      '{ "scenarios" [ { "name": "no colon" } ] }',
    ]) {
      const r = scenarioRanges(junk);
      assert.ok(Array.isArray(r));
    }
    assert.deepEqual(
      scenarioRanges('{ "scenarios": [ "x", 1, { } ] }').map((s) => [s.index, s.name]),
      [[0, null]],
    );
    assert.deepEqual(scenarioRanges(undefined as unknown as string), []);
  });

  it('the strict parser rejects very deep nesting with a clear error instead of overflowing', () => {
    const e = parseError('{"scenarios": ' + '['.repeat(10000));
    assert.equal(e.field, '(json)');
    assert.match(e.detail, /nesting deeper than/);
  });
});

describe('scene format: JSON tokenizer', () => {
  it('records value positions and decodes strings and numbers exactly like JSON.parse', () => {
    const text = '\ufeff{ "a": [1, -2.5e-3, 0, 1E2, true, false, null], "s": "x\\n\\u00e9\\"\\\\\\/", "o": {} }';
    const n = parseJsonWithPositions(text);
    assert.equal(n.type, 'object');
    if (n.type !== 'object') return;
    assert.deepEqual(
      n.members.map((m) => [m.key, text.slice(m.keyStart, m.keyEnd), text.slice(m.value.start, m.value.end)]),
      [
        ['a', '"a"', '[1, -2.5e-3, 0, 1E2, true, false, null]'],
        ['s', '"s"', '"x\\n\\u00e9\\"\\\\\\/"'],
        ['o', '"o"', '{}'],
      ],
    );
    const plain = (x: typeof n): unknown => JSON.parse(JSON.stringify(x, (_k, v: unknown) => v));
    assert.ok(plain(n));
    const arr = n.members[0].value;
    assert.deepEqual(arr.type === 'array' ? arr.items.map((i) => ('value' in i ? i.value : null)) : [], [1, -2.5e-3, 0, 100, true, false, null]);
    assert.equal(n.members[1].value.type === 'string' ? n.members[1].value.value : '', JSON.parse('"x\\n\\u00e9\\"\\\\\\/"'));
    assert.throws(() => parseJsonWithPositions('{"a": "tab\there"}'), JsonSyntaxError);
    assert.throws(() => parseJsonWithPositions('{"a": "\\x"}'), /invalid escape/);
    assert.throws(() => parseJsonWithPositions('[1.]'), /digit after the decimal point/);
    assert.throws(() => parseJsonWithPositions('[-]'), /digit after "-"/);
    assert.throws(() => parseJsonWithPositions('[+1]'), /no leading "\+"/);
  });

  it('the loose scanner keeps going through anything', () => {
    const t = scanLooseTokens('{"a" : tru, /* c */ "b\\"c": [1 2] // x\n "open');
    assert.deepEqual(
      t.map((x) => x.kind),
      ['{', 'string', ':', 'literal', ',', 'string', ':', '[', 'literal', 'literal', ']', 'string'],
    );
    assert.equal(t[5].value, 'b"c');
    assert.equal(t[11].value, 'open');
  });

  it('parses the 1000-box pile quickly enough for the editor (figure printed, not timed)', () => {
    const text = readExample('box-pile-1000.scene.json');
    parseSceneFile(text, 'pile');
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) parseSceneFile(text, 'pile');
    const t1 = performance.now();
    for (let i = 0; i < 5; i++) scenarioRanges(text);
    const t2 = performance.now();
    console.log(
      `      box-pile-1000 (${(text.length / 1024).toFixed(0)} KB): parse+validate ${((t1 - t0) / 5).toFixed(1)} ms, scenarioRanges ${((t2 - t1) / 5).toFixed(1)} ms`,
    );
  });
});

describe('scene format: schemas/scene.schema.json agrees with the parser', () => {
  it('every example validates against the schema', () => {
    for (const f of exampleFiles) assert.deepEqual(schemaErrors(readExample(f)), [], f);
  });

  it('lists exactly the fields the parser accepts, with additionalProperties: false', () => {
    const defs = SCHEMA as {
      properties: Obj;
      definitions: Record<string, { properties: Obj; additionalProperties?: boolean; oneOf?: { properties: Obj; additionalProperties?: boolean }[] }>;
    };
    const keys = (o: Obj): string[] => Object.keys(o).sort();
    assert.deepEqual(keys(defs.properties), [...SCENE_FIELD_NAMES.file].sort());
    assert.equal((SCHEMA as Obj).additionalProperties, false);
    for (const [def, names] of [
      ['scenario', SCENE_FIELD_NAMES.scenario],
      ['material', SCENE_FIELD_NAMES.material],
      ['body', SCENE_FIELD_NAMES.body],
      ['faultInjection', SCENE_FIELD_NAMES.faultInjection],
    ] as const) {
      assert.deepEqual(keys(defs.definitions[def].properties), [...names].sort(), def);
      assert.equal(defs.definitions[def].additionalProperties, false, def);
    }
    const solverBranches = defs.definitions.solver.oneOf!;
    for (const b of solverBranches) {
      const name = (b.properties.name as { const: keyof typeof SOLVER_OPTION_KEYS }).const;
      assert.deepEqual(keys(b.properties), ['name', ...SOLVER_OPTION_KEYS[name]].sort(), `solver ${name}`);
      assert.equal(b.additionalProperties, false);
    }
    assert.deepEqual(solverBranches.map((b) => (b.properties.name as { const: string }).const).sort(), Object.keys(SOLVER_OPTION_KEYS).sort());
    const expBranches = defs.definitions.expectation.oneOf!;
    assert.deepEqual(expBranches.map((b) => (b.properties.kind as { const: string }).const).sort(), Object.keys(EXPECTATION_FIELDS).sort());
    for (const b of expBranches) {
      const kind = (b.properties.kind as { const: keyof typeof EXPECTATION_FIELDS }).const;
      assert.deepEqual(keys(b.properties), ['kind', ...EXPECTATION_FIELDS[kind]].sort(), kind);
      assert.equal(b.additionalProperties, false);
    }
    const shapeBranches = defs.definitions.shape.oneOf!;
    assert.deepEqual(shapeBranches.map((b) => Object.keys(b.properties)[0]).sort(), [...SCENE_FIELD_NAMES.shape].sort());
    for (const b of shapeBranches) {
      const k = Object.keys(b.properties)[0] as 'sphere' | 'box' | 'plane';
      assert.deepEqual(keys((b.properties[k] as { properties: Obj }).properties), [...SCENE_FIELD_NAMES[k]].sort(), k);
    }
  });

  it('every property has a description, and the schema defaults are SCENE_DEFAULTS', () => {
    const missing: string[] = [];
    const walk = (s: unknown, path: string): void => {
      if (s === null || typeof s !== 'object') return;
      const o = s as Obj;
      if (o.properties && typeof o.properties === 'object') {
        for (const [k, v] of Object.entries(o.properties as Obj)) {
          if (v === false) continue;
          const vv = v as Obj;
          const described = (x: Obj): boolean => typeof x.description === 'string' || (typeof x.$ref === 'string' && described(resolveRef(x.$ref) as Obj));
          if (!described(vv)) missing.push(`${path}.${k}`);
        }
      }
      for (const [k, v] of Object.entries(o)) if (k !== 'defaultSnippets' && k !== 'if' && k !== 'not') walk(v, `${path}/${k}`); // conditions declare nothing
    };
    walk(SCHEMA, '#');
    assert.deepEqual(missing, []);
    const sc = (SCHEMA as { definitions: { scenario: { properties: Record<string, { default?: unknown; $ref?: string }> } } }).definitions.scenario.properties;
    const def = (k: string): unknown => sc[k].default ?? (sc[k].$ref ? (resolveRef(sc[k].$ref!) as Obj).default : undefined);
    for (const k of [
      'dt',
      'gravity',
      'erp',
      'slop',
      'splitImpulse',
      'softening',
      'restVelocityThreshold',
      'frictionCombine',
      'restitutionCombine',
      'warmStart',
    ] as const) {
      assert.deepEqual(def(k), SCENE_DEFAULTS[k], k);
    }
    assert.deepEqual(def('solver'), { name: SCENE_DEFAULTS.solver.solver });
    const body = (SCHEMA as { definitions: { body: { properties: Record<string, { default?: unknown }> } } }).definitions.body.properties;
    assert.deepEqual(body.orientation.default, SCENE_DEFAULTS.orientation);
    assert.deepEqual(body.velocity.default, SCENE_DEFAULTS.velocity);
    assert.deepEqual(body.material.default, SCENE_DEFAULTS.material.name);
  });

  it('accepts and rejects the same documents (mutations of a rich valid file)', () => {
    const base = {
      scenarios: [
        {
          name: 's',
          description: 'd',
          dt: 0.01,
          frames: 5,
          gravity: [0, 0, -9.81],
          erp: 0.2,
          slop: 0.005,
          splitImpulse: false,
          softening: 0,
          restVelocityThreshold: 0.5,
          frictionCombine: 'min',
          restitutionCombine: 'average',
          warmStart: true,
          solver: {
            name: 'pgs',
            maxIterations: 10,
            tolerance: 1e-6,
            friction: 'cone',
            warmStartFactor: 0.9,
            diagonalScaling: false,
            regularization: 0,
            fixedPointTolerance: 0,
          },
          materials: [{ name: 'rubber', friction: 1, restitution: 0.5 }],
          bodies: [
            { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, static: true, material: 'rubber' },
            { name: 'wall', shape: { box: { halfExtents: [1, 1, 1] } }, static: true, position: [5, 0, 1], orientation: [1, 0, 0, 0] },
            {
              name: 'ball',
              shape: { sphere: { radius: 0.5 } },
              mass: 1,
              position: [0, 0, 1],
              orientation: [1, 0, 0, 0],
              velocity: [1, 0, 0],
              angularVelocity: [0, 0, 1],
              material: 'rubber',
            },
          ],
          expectations: [
            { kind: 'energyNonIncreasing', toleranceJ: 0 },
            { kind: 'maxPenetration', meters: 0.01 },
            { kind: 'finalPosition', body: 'ball', position: [0, 0, 0.5], tolerance: 0.1 },
            { kind: 'finalVelocity', body: 'ball', velocity: [0, 0, 0], tolerance: 0.1 },
            { kind: 'noSolverFailures' },
            { kind: 'momentumConserved', tolerance: 1 },
            { kind: 'bodyAtRest', body: 'ball', speed: 0.1 },
          ],
          faultInjection: { restitutionAsTarget: false },
        },
      ],
    };
    const baseText = JSON.stringify(base, null, 2);
    assert.ok(parserAccepts(baseText).ok);
    assert.deepEqual(schemaErrors(baseText), []);

    const replacements: unknown[] = ['x', '', -1, 0, 0.5, 1.5, 2, 3.7, true, false, null, [], [0, 0, 0], [1, 2, 3, 4], {}, 'pgs', 'geometric-mean', 'cone'];
    const mutants: { what: string; doc: unknown }[] = [];
    const clone = (): typeof base => JSON.parse(baseText) as typeof base;
    const visit = (v: unknown, path: (string | number)[]): void => {
      for (const r of replacements) {
        const d = clone();
        if (path.length === 0) continue;
        let p: unknown = d;
        for (const k of path.slice(0, -1)) p = (p as Obj)[k as string];
        (p as Obj)[path[path.length - 1] as string] = r;
        mutants.push({ what: `${path.join('.')} = ${JSON.stringify(r)}`, doc: d });
      }
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        for (const k of Object.keys(v)) {
          const d = clone();
          let p: unknown = d;
          for (const kk of path) p = (p as Obj)[kk as string];
          delete (p as Obj)[k];
          mutants.push({ what: `delete ${[...path, k].join('.')}`, doc: d });
          visit((v as Obj)[k], [...path, k]);
        }
        const d = clone();
        let p: unknown = d;
        for (const kk of path) p = (p as Obj)[kk as string];
        (p as Obj).extra = 1;
        mutants.push({ what: `add ${[...path, 'extra'].join('.')}`, doc: d });
      } else if (Array.isArray(v)) {
        v.forEach((x, i) => visit(x, [...path, i]));
      }
    };
    visit(base, []);
    let agreed = 0;
    const disagreements: string[] = [];
    for (const m of mutants) {
      const text = JSON.stringify(m.doc, null, 2);
      const p = parserAccepts(text);
      const s = schemaErrors(text);
      if (p.ok === (s.length === 0)) {
        agreed++;
        continue;
      }
      // Rules a JSON schema cannot state: references between names, uniqueness, non-zero vectors.
      if (!p.ok && /unknown material|no body named|duplicate|zero|must not be empty/.test(p.error.detail)) {
        agreed++;
        continue;
      }
      disagreements.push(`${m.what}: parser ${p.ok ? 'accepts' : `rejects (${p.error.message})`}, schema ${s.length ? `rejects (${s[0]})` : 'accepts'}`);
    }
    assert.deepEqual(disagreements, []);
    assert.ok(agreed > 1000, `only ${agreed} mutants`);
  });
});
