/**
 * Recording format, validation of the header line: format and version, producer, units, conventions, dt,
 * gravity, and the bodies (shapes, masses, inertias) on the shared field reader (fieldReader.ts). Errors name
 * the file and the field; unknown fields, unknown shapes and implausible inertias are warnings.
 */
import { describeValue, MAX_DETAIL_CHARS, MAX_FIELD_CHARS, safeText, suggest } from './messages.js';
import { ValueReader, type FieldWarning } from './fieldReader.js';
import { parseJsonLine } from './recordingJson.js';
import { CONVENTION_VALUES, conversions, convertHeader, type DeclaredConventions } from './conventions.js';
import { det3 } from './recordingConvert.js';
import { CONVENTIONS, RECORDING_FORMAT, RECORDING_VERSION, type RecordedBody, type RecordedShape, type RecordingHeader } from './recordingTypes.js';
import type { Mat3, Vec3 } from '../engine/index.js';
import { bounded, label, TOLERANCES, warnUnknownKeys, readSoft } from './recordingChecks.js';

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
  const c = new ValueReader(file, where);
  const warnings: string[] = [];
  const warn: FieldWarning = (field, detail) =>
    warnings.push(`${safeText(file, 2 * MAX_FIELD_CHARS)}: ${where}${safeText(field, MAX_FIELD_CHARS)}: ${safeText(detail, MAX_DETAIL_CHARS)}`);
  const o = c.obj(raw, '');
  if (o.format !== RECORDING_FORMAT) {
    if ('frame' in o) c.fail('format', 'the first line must be the recording header, but it looks like a frame (the header is missing)');
    c.fail('format', `expected "${RECORDING_FORMAT}", got ${describeValue(o.format)}: this is not a Contact Lens recording header`);
  }
  const version = c.int(o.version, 'version', 1);
  if (version !== RECORDING_VERSION) c.fail('version', `is ${version}; this reader understands version ${RECORDING_VERSION} only (update Contact Lens)`);
  warnUnknownKeys(o, HEADER_KEYS, '', warn);
  const po = c.obj(o.producer, 'producer');
  const producerName = label(c.str(po.name, 'producer.name'), 'producer.name', warn);
  if (producerName.trim() === '') c.fail('producer.name', 'must not be empty (name the engine that wrote the recording)');
  warnUnknownKeys(po, ['name', 'version'], 'producer', warn);
  const producer =
    po.version === undefined ? { name: producerName } : { name: producerName, version: label(c.str(po.version, 'producer.version'), 'producer.version', warn) };
  if (o.units !== 'SI') c.fail('units', `expected "SI" (m, kg, s, N·s), got ${describeValue(o.units)}; convert before writing, we do not convert silently`);
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
          ? `got ${describeValue(co[key])}: ${CONVENTION_HINTS[key]}`
          : `expected "${values[0]}", got ${describeValue(co[key])}: a writer writes our conventions (docs/recording-format.md, "Conventions")`,
      );
    declared[key] = v as string;
  }
  warnUnknownKeys(co, Object.keys(CONVENTION_VALUES), 'conventions', warn);
  const dt = c.num(o.dt, 'dt');
  if (!(dt > 0)) c.fail('dt', `is ${dt}; the time step must be > 0 s`);
  const gravity = bounded(c, c.vec3(o.gravity, 'gravity'), 'gravity', 'm/s²'); // g·m·x enters every potential energy
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
    // format 1.1: the header's soft-contact parameters (the default of every contact) are checked like a contact's
    if (so.soft !== undefined) readSoft(c, so.soft, 'solver.soft', warn);
    header = { ...header, solver: { ...so, name } };
  }
  const d = declared as unknown as DeclaredConventions;
  const converted = conversions(d);
  if (converted.length) header = { ...convertHeader(header, d), declared: d, converted };
  return { header, warnings };
}

function readBody(c: ValueReader, v: unknown, f: string, warn: FieldWarning): RecordedBody {
  const o = c.obj(v, f);
  const name = label(c.str(o.name, `${f}.name`), `${f}.name`, warn);
  if (name === '') c.fail(`${f}.name`, 'must not be empty');
  warnUnknownKeys(o, BODY_KEYS, f, warn);
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
        `is ${describeValue(o.inertia)}; a dynamic body needs its body-frame inertia: 3 principal moments or 9 numbers (row-major tensor), kg·m²`,
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

function checkInertia(c: ValueReader, I: readonly number[], f: string): void {
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
function inertiaPlausibility(shape: RecordedShape, mass: number, I: readonly number[], f: string, warn: FieldWarning): void {
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

function readShape(c: ValueReader, v: unknown, f: string, warn: FieldWarning): RecordedShape {
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
      warnUnknownKeys(s, ['radius'], p, warn);
      return { sphere: { radius } };
    }
    case 'box': {
      const s = c.obj(o.box, p);
      const halfExtents = c.vec3(s.halfExtents, `${p}.halfExtents`);
      for (let k = 0; k < 3; k++)
        if (!(halfExtents[k] > 0)) c.fail(`${p}.halfExtents[${k}]`, `is ${halfExtents[k]}; half extents must be > 0 m (half the edge length)`);
      warnUnknownKeys(s, ['halfExtents'], p, warn);
      return { box: { halfExtents } };
    }
    case 'plane': {
      const s = c.obj(o.plane, p);
      const normal = c.unit(s.normal, `${p}.normal`, TOLERANCES);
      const offset = c.num(s.offset, `${p}.offset`);
      warnUnknownKeys(s, ['normal', 'offset'], p, warn);
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
