/**
 * Recording format 1.1 (docs/recording-format.md): the initial-state line, λ availability ("not recorded"),
 * soft-contact parameters, manifold friction and twist rows, external impulses — each read, validated, and
 * used by the diagnosis so that a file with the field gets a verdict the same file without it cannot give.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  type RecordedBody,
  parseFrame,
  parseHeader,
  serializeFrame,
  serializeHeader,
  serializeInitial,
  type RecordedBodyState,
  type RecordedFrame,
  type RecordingHeader,
} from '../../src/format/recording.js';
import { groundHeader } from '../groundHeader.js';
import { RecordingReader, RecordingWriter } from '../../src/format/recordingFile.js';
import { FormatError } from '../../src/format/messages.js';
import { Diagnoser, type Finding } from '../../src/session/diagnose.js';
import { softPushSpeed } from '../../src/session/frameLedger.js';
import { solveTimeBodies } from '../../src/session/preSolve.js';
import { main } from '../../src/cli/main.js';
import type { Vec3 } from '../../src/engine/math/vec3.js';

const dt = 1 / 60,
  g = 9.81;
const Q = [1, 0, 0, 0] as const;
const ZERO: Vec3 = [0, 0, 0];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-format11-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Ground plane + one body (a 1 kg sphere of radius 0.1, or a 1 kg cube of half size 0.5: both I = I₀·1). */
function header(shape: 'sphere' | 'box', solver: Record<string, unknown> = {}): RecordingHeader {
  const body: RecordedBody =
    shape === 'sphere'
      ? { name: 'ball', shape: { sphere: { radius: 0.1 } }, mass: 1, inertia: [0.004, 0.004, 0.004], static: false }
      : { name: 'crate', shape: { box: { halfExtents: [0.5, 0.5, 0.5] } }, mass: 1, inertia: [1 / 6, 1 / 6, 1 / 6], static: false };
  return groundHeader(dt, g, [body], { name: 'acme', splitImpulse: true, ...solver });
}
const still: RecordedBodyState = { x: ZERO, q: Q, v: ZERO, w: ZERO };
const state = (x: Vec3, v: Vec3, w: Vec3 = ZERO): RecordedBodyState => ({ x, q: Q, v, w });
const ballContact = (depth = 0, x = 0) => ({
  a: 1,
  b: -1,
  point: [x, 0, 0] as Vec3,
  normal: [0, 0, 1] as Vec3,
  t1: [1, 0, 0] as Vec3,
  t2: [0, 1, 0] as Vec3,
  depth,
  mu: 0.5,
  e: 0,
  feature: 'p',
});

function run(h: RecordingHeader, frames: readonly RecordedFrame[]): Diagnoser {
  const d = new Diagnoser(h, { counterfactualTotalWork: 1e9 });
  for (const f of frames) d.add(f);
  return d;
}
const mechanisms = (fs0: readonly Finding[], frame?: number): string[] => fs0.filter((f) => frame === undefined || f.frame === frame).map((f) => f.mechanism);

describe('format 1.1: initial-state line', () => {
  // a ball falling at 2 m/s hits the ground in the first recorded step and leaves at 1.5 m/s although e = 0
  const initial = { bodies: [still, state([0, 0, 0.1], [0, 0, -2])] };
  const vMinus = -2 - g * dt,
    vPlus = 1.5;
  const f0: RecordedFrame = {
    frame: 0,
    time: dt,
    bodies: [still, state([0, 0, 0.1 + vPlus * dt], [0, 0, vPlus])],
    contacts: [ballContact()],
    solver: { name: 'acme', status: 'converged', lambda: [vPlus - vMinus, 0, 0] },
  };
  const f1: RecordedFrame = {
    frame: 1,
    time: 2 * dt,
    bodies: [still, state([0, 0, 0.1 + vPlus * dt + (vPlus - g * dt) * dt], [0, 0, vPlus - g * dt])],
    contacts: [],
    solver: { name: 'acme', status: 'converged', lambda: [] },
  };

  function write(name: string, withInitial: boolean, frames: readonly RecordedFrame[]): string {
    const p = path.join(dir, name);
    const w = RecordingWriter.create(p, header('sphere'));
    if (withInitial) w.writeInitial(initial);
    for (const f of frames) w.writeFrame(f);
    w.close();
    return p;
  }

  it('is read as line 2 into header.initial and gives frame 0 an energy change and a finding the same file without it cannot give', () => {
    for (const withInitial of [true, false]) {
      const p = write(`bounce-${withInitial}.rec.jsonl`, withInitial, [f0, f1]);
      const r = RecordingReader.openSync(p);
      try {
        assert.equal(r.frameCount, 2);
        assert.equal(r.errorCount, 0);
        assert.equal(r.header.initial !== undefined, withInitial);
        // the reader dates an initial state without a time one step before the first frame, and the frame
        // view's solve state (session.ts, the inspector) takes it as frame 0's predecessor
        if (withInitial) assert.ok(Math.abs(r.header.initial!.time! - 0) < 1e-15);
        const pre0 = solveTimeBodies(r.header, r.frame(0));
        assert.equal(pre0.ok, withInitial);
        if (pre0.ok) assert.ok(Math.abs(pre0.bodies[1].v[2] - vMinus) < 1e-12, `reconstructed v⁻ ${pre0.bodies[1].v[2]}`);
        const d = run(r.header, [r.frame(0), r.frame(1)]);
        const first = d.frames[0].ledger;
        if (withInitial) {
          // ΔE of frame 0 = E(frame 0) − E(initial), both kinetic + potential
          const e0 = 0.5 * 4 + g * 0.1,
            e1 = 0.5 * vPlus * vPlus + g * (0.1 + vPlus * dt);
          assert.ok(Math.abs(first.delta - (e1 - e0)) < 1e-12, `ΔE ${first.delta}`);
          const inj = d.findings.filter((f) => f.frame === 0 && f.kind === 'injection');
          assert.ok(inj.length > 0, `frame 0 findings: ${mechanisms(d.findings, 0)}`);
          assert.deepEqual(inj[0].contacts, [0]);
        } else {
          assert.ok(Number.isNaN(first.delta));
          assert.deepEqual(mechanisms(d.findings, 0), []);
        }
      } finally {
        r.close();
      }
    }
  });

  it('gives frame 0 the velocity check: a λ written as a force is caught on frame 0 only with the line (pre without a pose needs the state before)', () => {
    const asForce: RecordedFrame = {
      ...f0,
      pre: [
        { v: ZERO, w: ZERO },
        { v: [0, 0, vMinus], w: ZERO },
      ],
      solver: { ...f0.solver, lambda: [(vPlus - vMinus) / dt, 0, 0] },
    };
    const withLine = run({ ...header('sphere'), initial }, [asForce]);
    const inc = withLine.findings.find((f) => f.mechanism === 'inconsistent-recording');
    assert.equal(inc?.frame, 0);
    assert.equal(inc?.writerBug, 'lambda-as-force');
    const without = run(header('sphere'), [asForce]);
    assert.equal(without.checkedFrames, 0);
    assert.ok(!without.findings.some((f) => f.mechanism === 'inconsistent-recording'));
  });

  it('is validated with one-line errors naming file, line and field; the frames after a bad line are still read', () => {
    const p = path.join(dir, 'bad-initial.rec.jsonl');
    const bad = JSON.parse(serializeInitial(initial));
    bad.initial.bodies[1].q = [1, 1, 0, 0];
    fs.writeFileSync(p, [serializeHeader(header('sphere')), JSON.stringify(bad), serializeFrame(f0), serializeFrame(f1)].join('\n') + '\n');
    const r = RecordingReader.openSync(p);
    try {
      assert.equal(r.frameCount, 2);
      assert.equal(r.header.initial, undefined);
      assert.equal(r.errors.length, 1);
      assert.match(r.errors[0].message, /bad-initial\.rec\.jsonl: line 2: initial\.bodies\[1\]\.q: /);
    } finally {
      r.close();
    }
    const p2 = path.join(dir, 'short-initial.rec.jsonl');
    fs.writeFileSync(p2, [serializeHeader(header('sphere')), JSON.stringify({ initial: { bodies: [still] } }), serializeFrame(f0)].join('\n') + '\n');
    const r2 = RecordingReader.openSync(p2);
    try {
      assert.match(r2.errors[0].message, /line 2: initial\.bodies: .*2/);
    } finally {
      r2.close();
    }
  });

  it('an initial state dated at or after the first frame is reported on its line and dropped; the frames stay', () => {
    const p = path.join(dir, 'late-initial.rec.jsonl');
    fs.writeFileSync(p, [serializeHeader(header('sphere')), serializeInitial({ ...initial, time: dt }), serializeFrame(f0)].join('\n') + '\n');
    const r = RecordingReader.openSync(p);
    try {
      assert.equal(r.frameCount, 1);
      assert.equal(r.header.initial, undefined);
      assert.match(
        r.errors[0].message,
        /late-initial\.rec\.jsonl: line 2: initial\.time: is 0\.01666\d* s, not before the first frame's time 0\.01666\d* s \(line 3\)/,
      );
    } finally {
      r.close();
    }
  });

  it('the writer refuses a second initial state, one after the first frame, and NaN naming the field', () => {
    const w = RecordingWriter.create(path.join(dir, 'twice.rec.jsonl'), header('sphere'));
    try {
      w.writeInitial(initial);
      assert.throws(() => w.writeInitial(initial), /line 3: initial: the initial state is written once/);
    } finally {
      w.close();
    }
    const w2 = RecordingWriter.create(path.join(dir, 'nan-initial.rec.jsonl'), header('sphere'));
    try {
      assert.throws(
        () => w2.writeInitial({ bodies: [still, state([0, 0, Number.NaN], ZERO)] }),
        (e: unknown) =>
          e instanceof FormatError && /nan-initial\.rec\.jsonl: line 2: .*initial\.bodies\[1\]\.x\[2\]: NaN is not a finite number/.test(e.message),
      );
      w2.writeFrame(f0);
      assert.throws(() => w2.writeInitial(initial), /line 3: initial: the initial state is written once, before the first frame/);
    } finally {
      w2.close();
    }
  });

  it('`contact-lens diagnose` and `report` read it from the file', () => {
    const p = write('cli-initial.rec.jsonl', true, [f0, f1]);
    const out: string[] = [];
    main(['report', p], { out: (l) => out.push(l), err: () => {} });
    assert.ok(
      out.some((l) => /initial state: recorded/.test(l)),
      out.join('\n'),
    );
    const diag: string[] = [];
    main(['diagnose', p, '--json'], { out: (l) => diag.push(l), err: () => {} });
    assert.match(diag.join('\n'), /"frame":0/);
  });
});

describe('format 1.1: λ availability (header solver.lambdaSource)', () => {
  // a ball resting on the ground is thrown up at 2 m/s; the binding exposes no impulses, the file holds zeros
  const f0: RecordedFrame = {
    frame: 0,
    time: dt,
    bodies: [still, state([0, 0, 0.1], ZERO)],
    contacts: [ballContact()],
    solver: { name: 'acme', status: 'converged', lambda: [0, 0, 0] },
  };
  const f1: RecordedFrame = {
    frame: 1,
    time: 2 * dt,
    bodies: [still, state([0, 0, 0.1 + 2 * dt], [0, 0, 2])],
    pre: [
      { v: ZERO, w: ZERO, x: ZERO, q: Q },
      { v: [0, 0, -g * dt], w: ZERO, x: [0, 0, 0.1], q: Q },
    ],
    contacts: [ballContact()],
    solver: { name: 'acme', status: 'converged', lambda: [0, 0, 0] },
  };
  const unavailable = { lambdaSource: { normal: 'unavailable', tangent: 'unavailable' } };

  it('no conclusion from components that are not recorded: the gain is reported unattributed, no inconsistency, no mechanism', () => {
    const declared = run(header('sphere', unavailable), [f0, f1]);
    assert.deepEqual(mechanisms(declared.findings), ['unattributed-gain']);
    const gain = declared.findings[0];
    assert.equal(gain.frame, 1);
    assert.ok(Math.abs(gain.joules - (0.5 * 4 + g * 2 * dt)) < 1e-9, `${gain.joules}`);
    assert.match(gain.explanation, /not recorded/);
    // the same zeros read as data: the velocity check concludes the recording is inconsistent
    const undeclared = run(header('sphere'), [f0, f1]);
    assert.ok(mechanisms(undeclared.findings).includes('inconsistent-recording'), `${mechanisms(undeclared.findings)}`);
  });

  it('`report --check` says "not recorded" and does not check Δv = M⁻¹Jᵀλ', () => {
    const p = path.join(dir, 'no-lambda.rec.jsonl');
    fs.writeFileSync(
      p,
      [serializeHeader(header('sphere', { ...unavailable, kind: 'iterative-fixed' })), serializeFrame(f0), serializeFrame(f1)].join('\n') + '\n',
    );
    const out: string[] = [];
    main(['report', p, '--check'], { out: (l) => out.push(l), err: () => {} });
    const text = out.join('\n');
    assert.match(text, /λ: normal and friction impulses not recorded/);
    const json: string[] = [];
    main(['report', p, '--check', '--json'], { out: (l) => json.push(l), err: () => {} });
    const checks = JSON.parse(json[0]).checks as { name: string; outcome: string; detail: string }[];
    const vc = checks.find((c) => c.name === 'velocity change')!;
    assert.equal(vc.outcome, 'not checked');
    assert.match(vc.detail, /normal impulses are not recorded/);
    assert.match(checks.find((c) => c.name === 'solver declarations')!.detail, /normal unavailable \(not recorded\)/);
  });

  it('a malformed normal source is named by `report --check`', () => {
    const p = path.join(dir, 'bad-source.rec.jsonl');
    fs.writeFileSync(p, [serializeHeader(header('sphere', { lambdaSource: { normal: 'none', tangent: 'solver' } })), serializeFrame(f0)].join('\n') + '\n');
    const json: string[] = [];
    main(['report', p, '--check', '--json'], { out: (l) => json.push(l), err: () => {} });
    const sd = (JSON.parse(json[0]).checks as { name: string; outcome: string; detail: string }[]).find((c) => c.name === 'solver declarations')!;
    assert.equal(sd.outcome, 'failed');
    assert.match(sd.detail, /lambdaSource\.normal is "none"; expected "solver" or "fitted" \(or "unavailable" when the engine does not expose it\)/);
  });
});

describe('format 1.1: soft-contact parameters', () => {
  // a ball 1 cm deep in a persistent soft contact separates at `sep` after one step
  const depth = 0.01;
  const soft = { k: 1000, c: 2 * Math.sqrt(1000) };
  function frames(sep: number, perContact: boolean): RecordedFrame[] {
    const c = perContact ? { ...ballContact(depth), soft } : ballContact(depth);
    return [
      {
        frame: 0,
        time: dt,
        bodies: [still, state([0, 0, 0.1 - depth], ZERO)],
        contacts: [c],
        solver: { name: 'acme', status: 'converged', lambda: [g * dt, 0, 0] },
      },
      {
        frame: 1,
        time: 2 * dt,
        bodies: [still, state([0, 0, 0.1 - depth + sep * dt], [0, 0, sep])],
        pre: [
          { v: ZERO, w: ZERO, x: ZERO, q: Q },
          { v: [0, 0, -g * dt], w: ZERO, x: [0, 0, 0.1 - depth], q: Q },
        ],
        contacts: [c],
        solver: { name: 'acme', status: 'converged', lambda: [sep + g * dt, 0, 0] },
      },
    ];
  }
  const s = softPushSpeed(soft, depth, dt);

  it('the spring bound h·k·depth is above the implicit soft step from rest (Box2D v3), which it contains', () => {
    assert.ok(Math.abs(s - dt * soft.k * depth) < 1e-15);
    // implicit Euler: v⁺ = h(k·d⁺ − c·v⁺), d⁺ = d − h·v⁺ from v⁻ = 0
    const implicit = (dt * soft.k * depth) / (1 + dt * soft.c + dt * dt * soft.k);
    assert.ok(Math.abs(implicit - dt * (soft.k * (depth - dt * implicit) - soft.c * implicit)) < 1e-15);
    assert.ok(implicit < s);
    // damping stronger than 1/h (h·c > 1) reverses an approach a in an explicit step: v⁺ = −a + h(k·d + c·a)
    const stiff = { k: 1000, c: 90 },
      a = 0.2;
    assert.ok(Math.abs(softPushSpeed(stiff, depth, dt, a) - (-a + dt * (stiff.k * depth + stiff.c * a))) < 1e-15);
    assert.equal(softPushSpeed({ k: 1000, c: 30 }, depth, dt, a), dt * 1000 * depth); // h·c < 1: the damping only slows the approach
  });

  for (const where of ['header', 'contact'] as const) {
    it(`declared in the ${where}: a separation within the spring's reach is the spring's, one far above it is not`, () => {
      const h = header('sphere', where === 'header' ? { soft } : {});
      const within = run(h, frames(0.8 * s, where === 'contact'));
      assert.deepEqual(mechanisms(within.findings, 1), ['bias-injection']);
      assert.match(within.findings.find((f) => f.frame === 1)!.explanation, /declared soft contact's spring \(k = 1000 1\/s², c = 63\.25 1\/s/);
      // far above the spring's reach no law fits; one contact alone is never a truncated solve
      const beyond = run(h, frames(1, where === 'contact'));
      assert.ok(mechanisms(beyond.findings, 1).includes('unattributed'), `${mechanisms(beyond.findings, 1)}`);
    });
  }

  it('without parameters (contactModel "soft") any push-out is the spring\'s: the parameters are what tell the solve apart', () => {
    const beyond = run(header('sphere', { contactModel: 'soft' }), frames(1, false));
    assert.ok(!mechanisms(beyond.findings, 1).includes('unattributed'), `${mechanisms(beyond.findings, 1)}`);
  });

  it('negative or malformed parameters are refused naming the field', () => {
    assert.throws(
      () => parseHeader(serializeHeader(header('sphere', { soft: { k: -1, c: 0 } })), 'h.rec.jsonl'),
      (e: unknown) => e instanceof FormatError && /h\.rec\.jsonl: line 1: solver\.soft\.k: is -1/.test(e.message),
    );
    const h = header('sphere');
    const raw = JSON.parse(serializeFrame(frames(0.1, true)[1]));
    raw.contacts[0].soft.c = '63';
    assert.throws(() => parseFrame(JSON.stringify(raw), 5, 'f.rec.jsonl', h), /f\.rec\.jsonl: line 5: contacts\[0\]\.soft\.c: /);
  });
});

describe('format 1.1: manifold friction and twist rows', () => {
  // a unit cube on four corner contacts slides along x at 1 m/s and spins about z at 1 rad/s; its friction is
  // one manifold row pair at the centre of the face plus a twist row (Box2D v3, Rapier, Jolt)
  const corners: Vec3[] = [
    [-0.5, -0.5, 0],
    [0.5, -0.5, 0],
    [0.5, 0.5, 0],
    [-0.5, 0.5, 0],
  ];
  const contacts = corners.map((p, i) => ({
    a: 1,
    b: -1,
    point: p,
    normal: [0, 0, 1] as Vec3,
    t1: [1, 0, 0] as Vec3,
    t2: [0, 1, 0] as Vec3,
    depth: 0,
    mu: 0.5,
    e: 0,
    feature: `c${i}`,
  }));
  const ln = (g * dt) / 4;
  function frame(lt1: number, twist: number, withManifold: boolean): RecordedFrame {
    // by hand: Δv = λt1·t1/m; Δω = I⁻¹(r × t1·λt1 + n·λtwist), r = (0, 0, −0.5), r × t1 = (0, −0.5, 0), I⁻¹ = 6
    const v: Vec3 = [1 + lt1, 0, 0],
      w: Vec3 = [0, 6 * -0.5 * lt1, 1 + 6 * twist];
    return {
      frame: 1,
      time: 2 * dt,
      bodies: [still, state([v[0] * dt, 0, 0.5], v, w)],
      pre: [
        { v: ZERO, w: ZERO, x: ZERO, q: Q },
        { v: [1, 0, -g * dt], w: [0, 0, 1], x: [0, 0, 0.5], q: Q },
      ],
      contacts,
      solver: { name: 'acme', status: 'converged', lambda: contacts.flatMap(() => [ln, 0, 0]) },
      ...(withManifold
        ? {
            manifolds: [
              {
                a: 1,
                b: -1,
                contacts: [0, 1, 2, 3],
                point: [0, 0, 0] as Vec3,
                normal: [0, 0, 1] as Vec3,
                t1: [1, 0, 0] as Vec3,
                t2: [0, 1, 0] as Vec3,
                lambda: [lt1, 0, twist] as [number, number, number],
              },
            ],
          }
        : {}),
    };
  }
  const f0: RecordedFrame = {
    frame: 0,
    time: dt,
    bodies: [still, state([0, 0, 0.5], [1, 0, 0], [0, 0, 1])],
    contacts,
    solver: { name: 'acme', status: 'converged', lambda: contacts.flatMap(() => [ln, 0, 0]) },
  };

  it('Δv = M⁻¹Jᵀλ closes only with the manifold rows; their work is in the ledger (dissipative) and the ledger closes', () => {
    const h = header('box');
    const withRows = run(h, [f0, frame(-0.2, -0.05, true)]);
    assert.equal(withRows.checkedFrames, 1);
    assert.ok(!mechanisms(withRows.findings).includes('inconsistent-recording'), `${mechanisms(withRows.findings)}`);
    const L = withRows.frames[1].ledger;
    // exact work of the rows, λ·½(ġ⁻ + ġ⁺): the friction row's ġ = v_x − 0.5·ω_y goes from 1 to 0.8 − 0.5·0.6 = 0.5,
    // the twist row's ġ = ω_z from 1 to 0.7
    const expected = -0.2 * 0.5 * (1 + 0.5) + -0.05 * 0.5 * (1 + 0.7);
    assert.ok(Math.abs(L.manifold - expected) < 1e-12, `manifold work ${L.manifold} vs ${expected}`);
    assert.ok(Math.abs(L.unexplained) < 1e-12, `unexplained ${L.unexplained}`);
    const without = run(h, [f0, frame(-0.2, -0.05, false)]);
    assert.ok(mechanisms(without.findings).includes('inconsistent-recording'), `${mechanisms(without.findings)}`);
  });

  it('manifold friction that pushes along the slip is found as friction doing positive work, listed on its contacts', () => {
    const d = run(header('box'), [f0, frame(0.2, 0, true)]);
    const fr = d.findings.find((f) => f.mechanism === 'friction-positive-work');
    assert.ok(fr, `${mechanisms(d.findings)}`);
    assert.equal(fr.frame, 1);
    assert.deepEqual([...fr.contacts].sort(), [0, 1, 2, 3]);
  });

  it('a manifold must group contacts of its own body pair, once each; errors name the field', () => {
    const h = header('box');
    const f = frame(-0.2, -0.05, true);
    const bad = { ...f, manifolds: [{ ...f.manifolds![0], contacts: [0, 1, 1] }] };
    assert.throws(
      () => parseFrame(serializeFrame(bad), 3, 'm.rec.jsonl', h),
      /m\.rec\.jsonl: line 3: manifolds\[0\]\.contacts\[2\]: contact 1 is already in manifolds\[0\]/,
    );
    const left = { ...f, manifolds: [{ ...f.manifolds![0], t1: [0, 1, 0] as Vec3, t2: [1, 0, 0] as Vec3 }] };
    assert.throws(() => parseFrame(serializeFrame(left), 3, 'm.rec.jsonl', h), /line 3: manifolds\[0\]\.t2: \(t1, t2, n\) is left-handed/);
    const out = { ...f, manifolds: [{ ...f.manifolds![0], contacts: [7] }] };
    assert.throws(() => parseFrame(serializeFrame(out), 3, 'm.rec.jsonl', h), /manifolds\[0\]\.contacts\[0\]: is 7, expected a contact index 0…3/);
  });

  it('round-trips through the writer and is converted from declared conventions (a-to-b, force)', () => {
    const h = header('box');
    const f = frame(-0.2, -0.05, true);
    const back = parseFrame(serializeFrame(f), 2, 'x', h);
    assert.deepEqual(back.manifolds, f.manifolds);
    // the same frame as a Box2D-style engine writes it: n from a into b, λ as forces
    const foreign = JSON.parse(serializeHeader(h));
    foreign.conventions = { ...foreign.conventions, normal: 'a-to-b', impulse: 'force' };
    const fh = parseHeader(JSON.stringify(foreign), 'y').header;
    const raw = JSON.parse(serializeFrame(f));
    for (const c of raw.contacts) {
      c.normal = c.normal.map((x: number) => -x);
      c.t1 = c.t1.map((x: number) => -x);
    }
    raw.solver.lambda = raw.solver.lambda.map((x: number, i: number) => (i % 3 === 2 ? -x : x) / dt);
    const m = raw.manifolds[0];
    m.normal = m.normal.map((x: number) => -x);
    m.t1 = m.t1.map((x: number) => -x);
    m.lambda = [m.lambda[0] / dt, -m.lambda[1] / dt, m.lambda[2] / dt];
    const conv = parseFrame(JSON.stringify(raw), 2, 'y', fh);
    conv.manifolds![0].lambda.forEach((x, i) => assert.ok(Math.abs(x - f.manifolds![0].lambda[i]) < 1e-15));
    conv.manifolds![0].normal.forEach((x, i) => assert.ok(x === [0, 0, 1][i], `${x}`));
    const d = run(fh, [
      parseFrame(JSON.stringify({ ...JSON.parse(serializeFrame(f0)), solver: { ...raw.solver, lambda: raw.solver.lambda } }), 1, 'y', fh),
      conv,
    ]);
    assert.ok(!mechanisms(d.findings).includes('inconsistent-recording'), `${mechanisms(d.findings)}`);
  });
});

describe('format 1.1: external impulses', () => {
  // a ball in the air pushed up by 0.5 N·s each step (a thruster): energy from outside, not an injection
  const p: Vec3 = [0, 0, 0.5];
  function frames(withField: boolean, stage?: 'with-solve'): RecordedFrame[] {
    const out: RecordedFrame[] = [];
    let x = 5,
      v = 0;
    for (let k = 0; k < 6; k++) {
      v += -g * dt + p[2];
      x += v * dt;
      out.push({
        frame: k,
        time: (k + 1) * dt,
        bodies: [still, state([0, 0, x], [0, 0, v])],
        contacts: [],
        solver: { name: 'acme', status: 'converged', lambda: [] },
        ...(withField ? { external: [{ body: 1, impulse: p, stage: stage ?? 'before-solve' }] } : {}),
      });
    }
    return out;
  }

  it("with the field: no injection, the external channel holds the work and the integrator keeps semi-implicit Euler's −½mg²Δt²", () => {
    const d = run(header('sphere'), frames(true));
    assert.deepEqual(mechanisms(d.findings), []);
    const fr = frames(true);
    for (let k = 1; k < fr.length; k++) {
      const fd = d.frames[k];
      // the energy the push adds to the step: p·v_start + ½p²/m (v_start: the previous frame's velocity)
      const expected = p[2] * fr[k - 1].bodies[1].v[2] + 0.5 * p[2] * p[2];
      assert.ok(Math.abs(fd.ledger.external - expected) < 1e-12, `${fd.ledger.external} vs ${expected}`);
      assert.ok(Math.abs(fd.ledger.integrator - -0.5 * g * g * dt * dt) < 1e-9, `integrator ${fd.ledger.integrator}`);
    }
  });

  it("without it: the same motion is an injection (the integrator channel gains the thruster's work)", () => {
    const d = run(header('sphere'), frames(false));
    assert.ok(mechanisms(d.findings).includes('integrator-drift'), `${mechanisms(d.findings)}`);
  });

  it('an impulse applied with the solve is part of the velocity check: Δv = M⁻¹(Jᵀλ + p)', () => {
    // the ball's recorded pre-solve velocity, then the thruster's impulse during the solve, no contact
    const f = (withField: boolean): RecordedFrame => ({
      frame: 1,
      time: 2 * dt,
      bodies: [still, state([0, 0, 5 + 0.3 * dt], [0, 0, 0.3])],
      pre: [
        { v: ZERO, w: ZERO, x: ZERO, q: Q },
        { v: [0, 0, -0.2], w: ZERO, x: [0, 0, 5], q: Q },
      ],
      contacts: [],
      solver: { name: 'acme', status: 'converged', lambda: [] },
      ...(withField ? { external: [{ body: 1, impulse: p, stage: 'with-solve' as const }] } : {}),
    });
    const f0: RecordedFrame = {
      frame: 0,
      time: dt,
      bodies: [still, state([0, 0, 5], [0, 0, -0.2 + g * dt])],
      contacts: [],
      solver: { name: 'acme', status: 'converged', lambda: [] },
    };
    const withField = run(header('sphere'), [f0, f(true)]);
    assert.equal(withField.checkedFrames, 1);
    assert.deepEqual(mechanisms(withField.findings), []);
    assert.ok(Math.abs(withField.frames[1].ledger.unexplained) < 1e-12);
    const without = run(header('sphere'), [f0, f(false)]);
    assert.ok(mechanisms(without.findings).includes('inconsistent-recording'), `${mechanisms(without.findings)}`);
  });

  it('is validated: a static body, a second entry of the same stage and an unknown stage are refused naming the field', () => {
    const h = header('sphere');
    const f = frames(true)[0];
    const line = (external: unknown): string => JSON.stringify({ ...JSON.parse(serializeFrame(f)), external });
    assert.throws(
      () => parseFrame(line([{ body: 0, impulse: [0, 0, 1] }]), 4, 'e.rec.jsonl', h),
      /e\.rec\.jsonl: line 4: external\[0\]\.body: is 0 \(ground\), a static body/,
    );
    assert.throws(
      () =>
        parseFrame(
          line([
            { body: 1, impulse: [0, 0, 1] },
            { body: 1, impulse: [0, 0, 1] },
          ]),
          4,
          'e',
          h,
        ),
      /external\[1\]\.body: body 1 has a second "before-solve" entry/,
    );
    assert.throws(() => parseFrame(line([{ body: 1, impulse: [0, 0, 1], stage: 'after' }]), 4, 'e', h), /external\[0\]\.stage: /);
    // one entry per stage is fine
    const ok = parseFrame(
      line([
        { body: 1, impulse: [0, 0, 1] },
        { body: 1, impulse: [0, 0, 1], stage: 'with-solve' },
      ]),
      4,
      'e',
      h,
    );
    assert.equal(ok.external?.length, 2);
  });
});

/** A thruster-driven ball's recording (written by a writer library) opens with its initial state and diagnoses clean. */
function checkThruster(out: string): void {
  const rr = RecordingReader.openSync(out);
  try {
    assert.deepEqual([rr.errorCount, rr.warnings.length, rr.frameCount], [0, 0, 5]);
    assert.deepEqual(rr.header.initial?.bodies[1].x, [0, 0, 5]);
    const d = run(
      rr.header,
      Array.from({ length: 5 }, (_, i) => rr.frame(i)),
    );
    // frame 0 has its energy change thanks to the initial state; the thruster's work is external, not an injection
    assert.ok(Number.isFinite(d.frames[0].ledger.delta));
    assert.ok(Math.abs(d.frames[0].ledger.external - 0.125) < 1e-12, `${d.frames[0].ledger.external}`); // p·0 + ½p²/m
    assert.deepEqual(mechanisms(d.findings), []);
  } finally {
    rr.close();
  }
  const text: string[] = [];
  main(['report', out], { out: (l) => text.push(l), err: () => {} });
  assert.match(text.join('\n'), /initial state: recorded/);
  assert.match(text.join('\n'), /external impulses \+2\.\d+ J/);
}

describe('format 1.1 in the writer libraries: initial state and external impulses', () => {
  it('Python (writers/python): write_initial once, external_impulse per frame', () => {
    const out = path.join(dir, 'thruster-py.rec.jsonl');
    const script = `
import sys
sys.path.insert(0, ${JSON.stringify(path.resolve(__dirname, '../../writers/python'))})
from contact_lens_recorder import Recorder, RecordingError, body_state, external_impulse, plane, solver_result, sphere
rec = Recorder.create(sys.argv[1], dt=1/60, gravity=(0, 0, -9.81), bodies=[plane("ground", (0, 0, 1), 0.0), sphere("ball", 0.1, 1.0)])
z, q = (0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)
x, v = 5.0, 0.0
rec.write_initial([body_state(z, q, z, z), body_state((0, 0, x), q, (0, 0, v), z)])
try:
    rec.write_initial([body_state(z, q, z, z), body_state((0, 0, x), q, (0, 0, v), z)])
except RecordingError as e:
    print(e)
for k in range(5):
    v += -9.81 / 60 + 0.5
    x += v / 60
    rec.write_frame(frame=k, time=(k + 1) / 60, bodies=[body_state(z, q, z, z), body_state((0, 0, x), q, (0, 0, v), z)], contacts=[],
                    solver=solver_result("thruster", "converged", []), external=[external_impulse(1, (0, 0, 0.5))])
rec.close()
`;
    const r = spawnSync('python3', ['-c', script, out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /initial: the initial state is written once, before the first frame/);
    checkThruster(out);
  });

  it('C++ (writers/cpp): writeInitial once, Frame::external', () => {
    const src = path.join(dir, 'thruster.cpp'),
      bin = path.join(dir, 'thruster-cpp'),
      out = path.join(dir, 'thruster-cpp.rec.jsonl');
    fs.writeFileSync(src, CPP_THRUSTER);
    const cc = spawnSync(
      'g++',
      ['-std=c++17', '-O1', '-Wall', '-Wextra', '-pedantic', '-Werror', `-I${path.resolve(__dirname, '../../writers/cpp')}`, src, '-o', bin],
      { encoding: 'utf8' },
    );
    assert.equal(cc.status, 0, cc.stderr);
    const r = spawnSync(bin, [out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /initial: the initial state is written once, before the first frame/);
    checkThruster(out);
  });

  it('Rust (writers/rust): write_initial once, write_frame_with_external', function () {
    this.timeout(300_000);
    const proj = path.join(dir, 'thruster-rs'),
      out = path.join(dir, 'thruster-rs.rec.jsonl');
    fs.mkdirSync(path.join(proj, 'src'), { recursive: true });
    fs.writeFileSync(
      path.join(proj, 'Cargo.toml'),
      `[package]\nname = "thruster"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ncontact-lens-recorder = { path = ${JSON.stringify(path.resolve(__dirname, '../../writers/rust'))} }\n`,
    );
    fs.writeFileSync(path.join(proj, 'src/main.rs'), RUST_THRUSTER);
    const target = path.join(os.tmpdir(), 'contact-lens-writers-cargo-target');
    const cb = spawnSync('cargo', ['build', '--offline', '--quiet'], { cwd: proj, encoding: 'utf8', env: { ...process.env, CARGO_TARGET_DIR: target } });
    assert.equal(cb.status, 0, cb.stderr);
    const r = spawnSync(path.join(target, 'debug', 'thruster'), [out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /initial: the initial state is written once, before the first frame/);
    checkThruster(out);
  });
});

const CPP_THRUSTER = `#include "contact_lens_recorder.hpp"
#include <iostream>
namespace cl = contact_lens;
int main(int, char** argv) {
  cl::Header h;
  h.producerName = "thruster-cpp";
  h.dt = 1.0 / 60;
  h.gravity = {0, 0, -9.81};
  cl::Body ground = cl::Body::plane("ground", {0, 0, 1}, 0);
  cl::Body ball = cl::Body::sphere("ball", 0.1, 1);
  h.bodies = {ground, ball};
  auto rec = cl::Recorder::create(argv[1], h, true);
  double x = 5, v = 0;
  rec.writeInitial({cl::BodyState{}, cl::BodyState{{0, 0, x}, {1, 0, 0, 0}, {0, 0, v}, {}}});
  try { rec.writeInitial({cl::BodyState{}, cl::BodyState{}}); } catch (const cl::RecordingError& e) { std::cout << e.what() << "\\n"; }
  for (int k = 0; k < 5; ++k) {
    v += -9.81 / 60 + 0.5;
    x += v / 60;
    cl::Frame f;
    f.frame = k; f.time = (k + 1) / 60.0;
    f.bodies = {cl::BodyState{}, cl::BodyState{{0, 0, x}, {1, 0, 0, 0}, {0, 0, v}, {}}};
    f.solver.name = "thruster";
    cl::ExternalImpulse p; p.body = 1; p.impulse = {0, 0, 0.5};
    f.external = {p};
    rec.writeFrame(f);
  }
  rec.close();
}
`;

const RUST_THRUSTER = `use contact_lens_recorder::{Body, BodyState, ExternalImpulse, Frame, Header, Recorder, SolverResult, Stage, Status};
fn main() {
    let out = std::env::args().nth(1).unwrap();
    let header = Header {
        producer_name: "thruster-rs".into(), producer_version: String::new(), dt: 1.0 / 60.0, gravity: [0.0, 0.0, -9.81],
        bodies: vec![Body::plane("ground", [0.0, 0.0, 1.0], 0.0), Body::sphere("ball", 0.1, 1.0)],
        solver_name: String::new(), solver_params: vec![], solver_kind: String::new(),
    };
    let mut rec = Recorder::create(&out, &header, true).unwrap();
    let (mut x, mut v) = (5.0f64, 0.0f64);
    let ball = |x: f64, v: f64| BodyState { x: [0.0, 0.0, x], v: [0.0, 0.0, v], ..BodyState::default() };
    rec.write_initial(&[BodyState::default(), ball(x, v)]).unwrap();
    if let Err(e) = rec.write_initial(&[BodyState::default(), ball(x, v)]) { println!("{e}"); }
    for k in 0..5u64 {
        v += -9.81 / 60.0 + 0.5;
        x += v / 60.0;
        let f = Frame {
            frame: k, time: (k + 1) as f64 / 60.0, bodies: vec![BodyState::default(), ball(x, v)], pre: vec![], contacts: vec![],
            solver: SolverResult { name: "thruster".into(), status: Status::Converged, reason: None, iterations: None, residuals: vec![], lambda: vec![] },
            a_matrix: vec![], b_vector: vec![], energy: vec![],
        };
        let p = ExternalImpulse { body: 1, impulse: [0.0, 0.0, 0.5], angular: None, stage: Stage::BeforeSolve };
        rec.write_frame_with_external(&f, &[p]).unwrap();
    }
}
`;
