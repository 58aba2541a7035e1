/**
 * Session (src/session/session.ts): scenario sessions re-simulate frames from checkpoints bit-identically
 * (the warm-start cache is restored with each checkpoint), recording sessions read frames lazily, and
 * detail() re-assembles the island problems exactly as the engine assembled them.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSceneFile } from '../../src/format/scene.js';
import { World } from '../../src/engine/world/world.js';
import type { ScenarioDesc } from '../../src/engine/world/types.js';
import { assembleProblem } from '../../src/engine/assembly.js';
import { preSolveBodyStates, toContactPoint, type RecordedFrame } from '../../src/format/recording.js';
import { RecordingWriter } from '../../src/format/recordingFile.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { Session } from '../../src/session/session.js';
import { rng } from '../rng.js';

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');
const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-session-'));
after(() => fs.rmSync(tmpDir, { recursive: true, force: true }));

function scenario(file: string): ScenarioDesc {
  const p = path.join(EXAMPLES, file);
  return parseSceneFile(fs.readFileSync(p, 'utf8'), p).scenarios[0].desc;
}

/** The sequential run: every frame as a RecordedFrame (test only; a session never keeps these). */
function sequential(desc: ScenarioDesc, frames = desc.frames): RecordedFrame[] {
  const w = new World(desc);
  const out: RecordedFrame[] = [];
  for (let k = 0; k < frames; k++) out.push(frameFromWorld(w, w.step()));
  return out;
}

describe('Session.fromScenario', () => {
  for (const [file, every] of [
    ['sphere-drop.scene.json', 100],
    ['sphere-drop.scene.json', 7],
    ['box-stack-10.scene.json', 100],
    ['box-stack-10.scene.json', 25],
  ] as const) {
    it(`${file}, checkpointEvery ${every}: random seeks return exactly the sequential run's frames (bodies, λ, everything)`, () => {
      const desc = scenario(file);
      const ref = sequential(desc);
      const s = Session.fromScenario(desc, { checkpointEvery: every });
      assert.equal(s.kind, 'scenario');
      assert.equal(s.frameCount, desc.frames);
      assert.equal(s.checkpointCount, Math.ceil(desc.frames / every));
      assert.ok(s.exactReplay, 'the warm-start cache is restored with every checkpoint');
      const r = rng(every * 1000 + desc.frames);
      const picks = [0, desc.frames - 1, every - 1, Math.min(every, desc.frames - 1)];
      for (let k = 0; k < 30; k++) picks.push(Math.floor(r() * desc.frames));
      for (const i of picks) {
        const f = s.seek(i);
        assert.equal(s.current, i);
        // Exact: deepStrictEqual compares every number with Object.is.
        assert.deepStrictEqual(f.bodies, ref[i].bodies, `frame index ${i}: bodies`);
        assert.deepStrictEqual(f.solver.lambda, ref[i].solver.lambda, `frame index ${i}: λ`);
        assert.deepStrictEqual(f, ref[i], `frame index ${i}`);
        const sum = s.summary(i);
        assert.equal(sum.frame, ref[i].frame);
        assert.equal(sum.time, ref[i].time);
        assert.equal(sum.contacts, ref[i].contacts.length);
        assert.equal(sum.totalEnergy, ref[i].energy!.total);
        assert.equal(sum.maxDepth, Math.max(0, ...ref[i].contacts.map((c) => c.depth)));
      }
      s.close();
    });
  }

  it('negative control: restoring box-stack-10 WITHOUT the warm-start cache changes λ (so the exactness above needs the cache)', () => {
    const desc = scenario('box-stack-10.scene.json');
    assert.equal(desc.config.warmStart, true);
    const a = new World(desc);
    for (let k = 0; k < 50; k++) a.step();
    const b = new World(desc);
    b.bodies.forEach((x, i) => {
      const y = a.bodies[i];
      x.x = y.x;
      x.q = y.q;
      x.v = y.v;
      x.w = y.w;
    });
    b.time = a.time;
    b.frame = a.frame;
    const fa = a.step(),
      fb = b.step();
    let dl = 0;
    fa.contacts.forEach((c, i) => {
      for (let r = 0; r < 3; r++) dl = Math.max(dl, Math.abs(c.lambda[r] - fb.contacts[i].lambda[r]));
    });
    assert.ok(dl > 0, 'a cold-started step differs (about 3e-6 N·s here, the PGS tolerance)');
  });

  it('step(±1) and seek clamp; stepping forward costs one world step', () => {
    const desc = scenario('box-stack-10.scene.json');
    const ref = sequential(desc, 120);
    const s = Session.fromScenario(desc, { frames: 120, checkpointEvery: 50 });
    assert.deepStrictEqual(s.seek(-5), ref[0]);
    assert.equal(s.current, 0);
    assert.deepStrictEqual(s.step(-1), ref[0]);
    for (let i = 1; i <= 60; i++) assert.deepStrictEqual(s.step(1), ref[i]);
    const before = s.resimulatedSteps;
    s.step(1);
    assert.equal(s.resimulatedSteps - before, 1, 'forward step continues the live world');
    assert.deepStrictEqual(s.step(-1), ref[60], 'from the LRU');
    assert.deepStrictEqual(s.seek(1e9), ref[119]);
    assert.equal(s.current, 119);
    assert.deepStrictEqual(s.step(+1), ref[119]);
    assert.throws(() => s.frame(120), RangeError);
    assert.throws(() => s.summary(-1), RangeError);
  });

  it('detail(): per island, b equals the b the engine solved with, A matches, conditioning and contact rows', () => {
    const desc = scenario('box-stack-10.scene.json');
    const s = Session.fromScenario(desc, { frames: 40, checkpointEvery: 10 });
    const w = new World(desc);
    for (let k = 0; k < 40; k++) {
      const rec = w.step();
      if (k % 13 !== 5) continue;
      const d = s.detail(k);
      assert.equal(d.frame, rec.frame);
      assert.equal(d.reason, undefined);
      assert.equal(d.islands.length, rec.islands.length);
      d.islands.forEach((isl, j) => {
        const direct = rec.islands[j];
        assert.ok(!direct.matrixFree && isl.problem);
        assert.deepStrictEqual(isl.contacts, direct.contacts);
        assert.deepStrictEqual(isl.b, direct.problem.b, 'b exactly');
        assert.deepStrictEqual(isl.rhs!.bias, direct.problem.rhs!.bias);
        assert.deepStrictEqual(isl.mu, direct.problem.mu);
        const A = isl.problem.A,
          A0 = direct.problem.A;
        const scale = Math.max(...A0.map(Math.abs));
        for (let q = 0; q < A.length; q++) assert.ok(Math.abs(A[q] - A0[q]) <= 1e-12 * scale, `A[${q}]`);
        assert.ok(isl.conditioning && isl.conditioning.n === isl.problem.size);
        assert.ok(isl.conditioning.lambdaMax > 0);
        assert.deepStrictEqual(Array.from(isl.lambda), Array.from(direct.result.lambda));
      });
      assert.equal(d.contacts.length, rec.contacts.length);
      d.contacts.forEach((c, q) => {
        assert.deepStrictEqual(c.lambda, rec.contacts[q].lambda);
        assert.equal(c.depth, rec.contacts[q].contact.penetration);
        assert.equal(c.island, rec.contacts[q].island);
        assert.equal(c.bodyB === 'ground' || c.bodyB.startsWith('box-'), true);
      });
    }
  });
});

describe('Session.fromRecording', () => {
  const desc = scenario('box-stack-10.scene.json');
  const N = 90;
  const file = path.join(tmpDir, 'box-stack.rec.jsonl');
  const noPre = path.join(tmpDir, 'box-stack-nopre.rec.jsonl');
  /** The engine's own b per frame and island, kept while writing (the "direct" assembly). */
  const directB: Float64Array[][] = [];
  const ref: RecordedFrame[] = [];

  before(() => {
    const w = new World(desc);
    const wr = RecordingWriter.create(file, headerFromWorld(w));
    const wr2 = RecordingWriter.create(noPre, headerFromWorld(w));
    for (let k = 0; k < N; k++) {
      const rec = w.step();
      const f = frameFromWorld(w, rec);
      wr.writeFrame(f);
      const { pre: _pre, ...rest } = f;
      wr2.writeFrame(rest);
      ref.push(f);
      directB.push(rec.islands.map((isl) => (isl.matrixFree ? isl.jacobians.b : isl.problem.b)));
    }
    wr.close();
    wr2.close();
  });

  it('seek/step/summary read the frames back exactly', () => {
    const s = Session.fromRecording(file);
    assert.equal(s.kind, 'recording');
    assert.equal(s.frameCount, N);
    assert.equal(s.reader!.errorCount, 0);
    const r = rng(42);
    for (let k = 0; k < 25; k++) {
      const i = Math.floor(r() * N);
      const f = s.seek(i);
      assert.deepStrictEqual(f.bodies, ref[i].bodies);
      assert.deepStrictEqual(f.solver.lambda, ref[i].solver.lambda);
      const sum = s.summary(i);
      assert.equal(sum.frame, ref[i].frame);
      assert.equal(sum.contacts, ref[i].contacts.length);
      assert.equal(sum.status, ref[i].solver.status);
      assert.equal(sum.totalEnergy, undefined);
    }
    s.seek(10);
    assert.equal(s.step(1).frame, ref[11].frame);
    assert.equal(s.step(-1).frame, ref[10].frame);
    assert.equal(s.seek(-3).frame, ref[0].frame);
    assert.equal(s.step(-1).frame, ref[0].frame);
    assert.equal(s.seek(N + 10).frame, ref[N - 1].frame);
    assert.equal(s.current, N - 1);
    assert.equal([...s.summaries()].length, N);
    s.close();
  });

  it("detail(): the re-assembled b equals the engine's b and a direct assembleProblem on preSolveBodyStates", () => {
    const s = Session.fromRecording(file);
    let checked = 0;
    for (let i = 0; i < N; i += 7) {
      const d = s.detail(i);
      assert.equal(d.reason, undefined);
      assert.equal(d.islands.length, directB[i].length);
      const f = ref[i];
      const pre = preSolveBodyStates(s.header, f);
      assert.ok(pre.ok);
      d.islands.forEach((isl, j) => {
        assert.ok(isl.problem, isl.reason);
        assert.deepStrictEqual(Array.from(isl.b!), Array.from(directB[i][j]), `frame ${i} island ${j}: b`);
        const direct = assembleProblem(
          pre.bodies,
          isl.contacts.map((c) => toContactPoint(f.contacts[c])),
          d.assembly,
        );
        assert.deepStrictEqual(isl.problem.b, direct.b);
        assert.deepStrictEqual(isl.problem.A, direct.A);
        assert.ok(isl.conditioning!.kappa >= 1);
        checked++;
      });
      d.contacts.forEach((c, q) => {
        assert.equal(c.mu, f.contacts[q].mu);
        assert.equal(c.e, f.contacts[q].e);
        assert.deepStrictEqual(c.lambda, f.solver.lambda.slice(3 * q, 3 * q + 3));
      });
    }
    assert.ok(checked > 0);
    s.close();
  });

  it('detail() without "pre" explains why the problem cannot be rebuilt', () => {
    const s = Session.fromRecording(noPre);
    const i = ref.findIndex((f) => f.contacts.length > 0);
    const d = s.detail(i);
    assert.match(d.reason!, /no "pre" velocities/);
    assert.ok(d.islands.length > 0);
    for (const isl of d.islands) {
      assert.equal(isl.problem, null);
      assert.equal(isl.reason, d.reason);
    }
    assert.equal(d.contacts.length, ref[i].contacts.length);
    s.close();
  });

  it('the foreign example opens; detail rebuilds frames whose pose comes from the previous frame', () => {
    const s = Session.fromRecording(path.join(EXAMPLES, 'foreign-engine.rec.jsonl'));
    assert.equal(s.frameCount, 6);
    assert.equal(s.header.producer.name, 'acme-physics');
    assert.equal(s.detail(0).islands.length, 0, 'frame 0 has no contacts');
    for (let i = 2; i < s.frameCount; i++) {
      const d = s.detail(i);
      assert.equal(d.reason, undefined, d.reason);
      assert.ok(d.islands.length === 1 && d.islands[0].problem);
      assert.ok(
        d.notes.some((n) => /splitImpulse/.test(n)),
        'assumption about the bias is reported',
      );
      const c = d.islands[0].conditioning!;
      assert.ok(Number.isFinite(c.lambdaMax) && c.n === 3 * d.contacts.length);
      // b_n = −ġn⁻ + bias: the crate falls at pre v_z, the ground is still; restitution 0.
      const vz = s.frame(i).pre![1].v[2];
      const b = d.islands[0].b!;
      const p = d.islands[0].problem!;
      for (let k = 0; k < d.contacts.length; k++) assert.ok(Math.abs(b[3 * k] - p.rhs!.bias[3 * k] - -p.contacts![k].gapRate[0]) < 1e-15);
      if (i === 2) assert.ok(Math.abs(p.contacts![0].gapRate[0] - vz) < 1e-12, 'normal (0,0,1): ġn = v_z of the crate');
    }
    s.close();
  });
});
