/** The scene view's data (src/extension/model/sceneData.ts, src/protocol/scene.ts) from scenarios and foreign recordings. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseSceneFile } from '../../src/format/scene.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import { RecordingReader } from '../../src/format/recordingFile.js';
import { POSE_STRIDE } from '../../src/protocol/scene.js';
import { PROTOCOL_VERSION } from '../../src/protocol/inspector.js';
import { ProtocolError, validateHostMessage } from '../../src/protocol/validate.js';

const ROOT = resolve(__dirname, '..', '..');
const FOREIGN = resolve(ROOT, 'examples/foreign-engine.rec.jsonl');

describe('scene view data', () => {
  it('a scenario: shapes from the scene file, poses and friction vectors per frame consistent with the contact table', () => {
    const path = resolve(ROOT, 'examples/box-slide-friction.scene.json');
    const desc = parseSceneFile(readFileSync(path, 'utf8'), path).scenarios[0].desc;
    const model = InspectorModel.fromScenario(desc, path);
    const written = (JSON.parse(readFileSync(path, 'utf8')) as { scenarios: { bodies: { name: string; static?: boolean; shape: object }[] }[] }).scenarios[0]
      .bodies;
    assert.deepEqual(
      model.scene.bodies.map((b) => [b.name, b.static, b.shape.kind]),
      written.map((b) => [b.name, b.static ?? false, Object.keys(b.shape)[0]]),
    );
    const i = model.timeline.contacts.findIndex((c) => c > 0);
    const v = model.frameView(i);
    const f = model.session.frame(i);
    assert.equal(v.scene!.poses.length, POSE_STRIDE * desc.bodies.length);
    f.bodies.forEach((b, k) => assert.deepEqual(Array.from(v.scene!.poses.subarray(POSE_STRIDE * k, POSE_STRIDE * (k + 1))), [...b.x, ...b.q]));
    // the friction vector's length is the table's ‖λt‖, and it lies in the tangent plane (⊥ n)
    let sliding = 0;
    v.contacts.forEach((c, k) => {
      const t = Array.from(v.scene!.friction.subarray(3 * k, 3 * k + 3));
      assert.ok(Math.abs(Math.hypot(...t) - c.lambdaT) <= 1e-12 * Math.max(1, c.lambdaT), `contact ${k}: ‖friction‖ vs λt`);
      assert.ok(Math.abs(t[0] * c.normal[0] + t[1] * c.normal[1] + t[2] * c.normal[2]) <= 1e-12 * Math.max(1, c.lambdaT), `contact ${k}: friction ⊥ n`);
      if (c.lambdaT > 0) sliding++;
    });
    assert.ok(sliding > 0, 'the sliding box has friction impulses');
    // our engine records the pre-step pose of every body: sent as prePoses
    f.pre!.forEach((b, k) => assert.deepEqual(Array.from(v.scene!.prePoses!.subarray(POSE_STRIDE * k, POSE_STRIDE * (k + 1))), [...b.x!, ...b.q!]));
  });

  it('a foreign recording with a shape we do not draw: kept as an "other" marker with its type; poses as recorded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-scene-'));
    try {
      const lines = readFileSync(FOREIGN, 'utf8').trim().split('\n');
      const header = JSON.parse(lines[0]);
      header.bodies[1].shape = { other: { type: 'capsule', radius: 0.1, halfHeight: 0.2 } };
      const file = join(dir, 'capsule.rec.jsonl');
      writeFileSync(file, [JSON.stringify(header), ...lines.slice(1)].join('\n') + '\n');
      const model = await InspectorModel.fromRecording(file);
      try {
        assert.deepEqual(model.scene.bodies, [
          { name: 'ground', static: true, shape: { kind: 'plane', normal: [0, 0, 1], offset: 0 } },
          { name: 'crate', static: false, shape: { kind: 'other', type: 'capsule' } },
        ]);
        const reader = RecordingReader.openSync(FOREIGN);
        try {
          const recorded = reader.frame(3);
          const v = model.frameView(3);
          assert.deepEqual(Array.from(v.scene!.poses.subarray(POSE_STRIDE, 2 * POSE_STRIDE)), [...recorded.bodies[1].x, ...recorded.bodies[1].q]);
          assert.equal(recorded.pre?.every((p) => p.x && p.q) ?? false, v.scene!.prePoses !== undefined, 'prePoses exactly when the recording has pre x and q');
          validateHostMessage({ type: 'frame', requestId: 1, view: v });
        } finally {
          reader.close();
        }
      } finally {
        model.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('what-if: the recorded post-step contact velocity along n is the frame view’s v⁺ (two independent computations)', () => {
    const path = resolve(ROOT, 'examples/fault-restitution-target.scene.json');
    const model = InspectorModel.fromScenario(parseSceneFile(readFileSync(path, 'utf8'), path).scenarios[0].desc, path);
    const i = model.findings[0].index;
    const v = model.frameView(i);
    const w = model.whatIf(i, { solver: 'ipm' });
    assert.equal(w.contacts.length, v.contacts.length);
    for (const c of w.contacts) {
      const n = v.contacts[c.index].normal;
      const along = (x: readonly number[]): number => x[0] * n[0] + x[1] * n[1] + x[2] * n[2];
      const vn = v.contacts[c.index].vnAfter!;
      assert.ok(
        Math.abs(along(c.scene!.recordedVelocity) - vn) <= 1e-9 * Math.max(1, Math.abs(vn)),
        `contact ${c.index}: ${along(c.scene!.recordedVelocity)} vs v⁺ ${vn}`,
      );
      // the re-solve on the correct b (docs/physics.md "Contact model": b_n = −(1 + e)·ġ⁻ + bias) leaves at −e·ġ⁻ + bias for this
      // single contact: slower than the planted fault's recorded rebound
      const ct = v.contacts[c.index],
        target = -ct.e * ct.vnBefore! + ct.biasVelocity!;
      assert.ok(
        Math.abs(along(c.scene!.alternativeVelocity) - target) <= 1e-4 * Math.abs(target),
        `alternative v⁺ ${along(c.scene!.alternativeVelocity)} vs −e·v⁻ + bias ${target}`,
      );
      assert.ok(along(c.scene!.alternativeVelocity) < along(c.scene!.recordedVelocity));
    }
  });

  it('the protocol rejects a bad scene with the field named', () => {
    const path = resolve(ROOT, 'examples/fault-restitution-target.scene.json');
    const model = InspectorModel.fromScenario(parseSceneFile(readFileSync(path, 'utf8'), path).scenarios[0].desc, path);
    const i = model.findings[0].index;
    const v = model.frameView(i);
    const frame = (scene: unknown): unknown => ({ type: 'frame', requestId: 1, view: { ...v, scene } });
    const field = (m: unknown): string => {
      try {
        validateHostMessage(m);
        return 'accepted';
      } catch (e) {
        assert.ok(e instanceof ProtocolError, String(e));
        return e.field;
      }
    };
    assert.equal(field(frame(v.scene)), 'accepted');
    assert.equal(field(frame({ poses: v.scene!.poses, friction: new Float64Array(3 * v.contacts.length + 3) })), 'view.scene.friction');
    assert.equal(field(frame({ poses: Array.from(v.scene!.poses), friction: v.scene!.friction })), 'view.scene.poses');
    assert.equal(field(frame({ poses: new Float64Array(POSE_STRIDE + 1), friction: v.scene!.friction })), 'view.scene.poses');
    assert.equal(field(frame({ ...v.scene, prePoses: new Float64Array(POSE_STRIDE) })), 'view.scene.prePoses');
    const init = (scene: unknown): unknown => ({
      type: 'init',
      version: PROTOCOL_VERSION,
      source: { kind: 'scenario', file: path, scenario: 'x' },
      info: model.info,
      timeline: model.timeline,
      findings: model.findings,
      settings: { playbackFps: 30 },
      index: 0,
      scene,
    });
    assert.equal(field(init(model.scene)), 'accepted');
    assert.equal(field(init({ bodies: [{ name: 'ball', static: false, shape: { kind: 'cylinder' } }] })), 'scene.bodies[0].shape.kind');
    assert.equal(field(init({ bodies: [{ name: 'ball', shape: { kind: 'sphere', radius: 1 } }] })), 'scene.bodies[0].static');
  });
});
