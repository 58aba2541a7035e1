/**
 * Declared conventions converted on read (src/format/conventions.ts): a recording written y-up, with [x, y, z, w]
 * quaternions, normals from a into b, forces instead of impulses and ω in body coordinates reads back as its
 * native twin — the same frames to rounding and the same findings — on our own recording and on a real
 * engine's (cannon-es, test/peers/).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { parseSceneFile } from '../../src/format/scene.js';
import { World } from '../../src/engine/world/world.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { RecordingReader, RecordingWriter } from '../../src/format/recordingFile.js';
import { serializeFrame, serializeHeader, type RecordedFrame, type RecordingHeader } from '../../src/format/recording.js';
import { conversions, type DeclaredConventions } from '../../src/format/conventions.js';
import { Diagnoser } from '../../src/session/diagnose.js';
import { recordPeer } from '../peers/recordPeer.js';
import { main } from '../../src/cli/main.js';

const ROOT = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-conv-'));
const FOREIGN: DeclaredConventions = { up: 'y', quaternion: 'xyzw', normal: 'a-to-b', impulse: 'force', angularVelocity: 'body' };

// ours → the foreign conventions: the inverse of each conversion, written independently of conventions.ts
const H = Math.SQRT1_2;
const down = (v: readonly number[]): number[] => [v[0], v[2], -v[1]]; // z-up → y-up: inverse of (x, y, z) ↦ (x, −z, y)
/** (cos 45°, −sin 45°, 0, 0) ⊗ q, then stored [x, y, z, w]. */
const downQ = (q: readonly number[]): number[] => {
  const w = H * (q[0] + q[1]),
    x = H * (q[1] - q[0]),
    y = H * (q[2] + q[3]),
    z = H * (q[3] - q[2]);
  return [x, y, z, w];
};
/** R(q)ᵀ·v for q = [w, x, y, z]. */
const toBody = (q: readonly number[], v: readonly number[]): number[] => {
  const [w, x, y, z] = q;
  const R = [
    [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
    [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
    [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
  ];
  return [0, 1, 2].map((c) => R[0][c] * v[0] + R[1][c] * v[1] + R[2][c] * v[2]);
};
const neg = (v: readonly number[]): number[] => v.map((x) => -x);

function foreignHeader(h: RecordingHeader): unknown {
  const o = JSON.parse(serializeHeader(h));
  o.conventions = { ...FOREIGN };
  o.gravity = down(h.gravity);
  o.bodies = o.bodies.map((b: { shape: { plane?: { normal: number[] } } }) =>
    b.shape.plane ? { ...b, shape: { plane: { ...b.shape.plane, normal: down(b.shape.plane.normal) } } } : b,
  );
  return o;
}
function foreignFrame(f: RecordedFrame, dt: number): unknown {
  const o = JSON.parse(serializeFrame(f));
  o.bodies = f.bodies.map((s) => ({ x: down(s.x), q: downQ(s.q), v: down(s.v), w: toBody(s.q, s.w) })); // body coordinates: the same in both frames
  if (f.pre)
    o.pre = f.pre.map((p, i) => {
      const q = p.q ?? f.bodies[i].q;
      return { v: down(p.v), w: toBody(q, p.w), ...(p.x ? { x: down(p.x) } : {}), ...(p.q ? { q: downQ(p.q) } : {}) };
    });
  o.contacts = f.contacts.map((c) => ({ ...c, point: down(c.point), normal: neg(down(c.normal)), t1: neg(down(c.t1)), t2: down(c.t2) }));
  o.solver.lambda = f.solver.lambda.map((x, i) => (i % 3 === 2 ? -x : x) / dt);
  delete o.A; // a force-writing engine's A and b are its own and are not kept on read
  delete o.b;
  return o;
}

function writeTwin(header: RecordingHeader, frames: readonly RecordedFrame[], name: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, [JSON.stringify(foreignHeader(header)), ...frames.map((f) => JSON.stringify(foreignFrame(f, header.dt)))].join('\n') + '\n');
  return p;
}

function close(a: unknown, b: unknown, where: string): void {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)), `${where}: ${a} vs ${b}`);
  } else if (Array.isArray(a) && Array.isArray(b)) {
    assert.equal(a.length, b.length, where);
    a.forEach((x, i) => close(x, b[i], `${where}[${i}]`));
  } else if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = Object.keys(a).filter((k) => k !== 'A' && k !== 'b');
    assert.deepEqual(
      keys.sort(),
      Object.keys(b)
        .filter((k) => k !== 'A' && k !== 'b')
        .sort(),
      where,
    );
    for (const k of keys) close((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${where}.${k}`);
  } else assert.equal(a, b, where);
}

function findings(file: string): { mechanism: string; frame: number; contacts: readonly number[]; joules: number }[] {
  const r = RecordingReader.openSync(file);
  try {
    const d = new Diagnoser(r.header, { counterfactualTotalWork: Number.POSITIVE_INFINITY });
    for (let i = 0; i < r.frameCount; i++) d.add(r.frame(i));
    return d.findings.map((f) => ({ mechanism: f.mechanism, frame: f.frame, contacts: f.contacts, joules: f.joules }));
  } finally {
    r.close();
  }
}

function twinAgrees(native: string, twin: string): void {
  const a = RecordingReader.openSync(native),
    b = RecordingReader.openSync(twin);
  try {
    assert.equal(b.frameCount, a.frameCount);
    assert.deepEqual(b.header.converted, conversions(FOREIGN));
    close(b.header.gravity, a.header.gravity, 'gravity');
    for (let i = 0; i < a.frameCount; i++) close(b.frame(i), a.frame(i), `frame ${i}`);
  } finally {
    a.close();
    b.close();
  }
  const fa = findings(native),
    fb = findings(twin);
  assert.equal(fb.length, fa.length);
  fa.forEach((x, i) => {
    assert.equal(fb[i].mechanism, x.mechanism);
    assert.equal(fb[i].frame, x.frame);
    assert.deepEqual(fb[i].contacts, x.contacts);
    close(fb[i].joules, x.joules, `finding ${i} joules`);
  });
}

describe('declared conventions converted on read', () => {
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('our 10-box stack written y-up / xyzw / a-to-b / force / body ω reads and diagnoses as its native twin', () => {
    const scene = path.join(ROOT, 'examples', 'fault-pgs-too-few-iterations.scene.json');
    const desc = parseSceneFile(readFileSync(scene, 'utf8'), scene).scenarios[0].desc;
    const world = new World({ ...desc, frames: 90 });
    const header = headerFromWorld(world);
    const frames = Array.from({ length: 90 }, () => frameFromWorld(world, world.step()));
    const native = path.join(dir, 'native.rec.jsonl');
    const w = RecordingWriter.create(native, header);
    for (const f of frames) w.writeFrame({ ...f, A: undefined, b: undefined } as RecordedFrame);
    w.close();
    const twin = writeTwin(header, frames, 'twin.rec.jsonl');
    twinAgrees(native, twin);
    assert.ok(findings(native).length > 0, 'the stack has findings to compare');
  });
  it("a real engine's recording (cannon-es stack) converted to foreign conventions and back gives the same findings", async () => {
    const native = await recordPeer('cannon', 'stack', { frames: 120 });
    const r = RecordingReader.openSync(native);
    const frames = Array.from({ length: r.frameCount }, (_, i) => r.frame(i));
    const header = r.header;
    r.close();
    twinAgrees(native, writeTwin(header, frames, 'cannon-twin.rec.jsonl'));
  });
  it('report and the inspector header say what was converted', () => {
    const scene = path.join(ROOT, 'examples', 'box-stack-10.scene.json');
    const desc = parseSceneFile(readFileSync(scene, 'utf8'), scene).scenarios[0].desc;
    const world = new World({ ...desc, frames: 3 });
    const header = headerFromWorld(world);
    const frames = Array.from({ length: 3 }, () => frameFromWorld(world, world.step()));
    const twin = writeTwin(header, frames, 'small.rec.jsonl');
    const out: string[] = [];
    assert.equal(main(['report', twin], { out: (l) => out.push(l), err: () => {} }), 0);
    assert.ok(
      out.some((l) => l === `conventions converted on read: ${conversions(FOREIGN).join('; ')}`),
      out.join('\n'),
    );
    assert.match(conversions(FOREIGN).join('; '), /y-up → z-up; quaternions \[x, y, z, w\] → \[w, x, y, z\]; normals from a into b/);
  });
});
