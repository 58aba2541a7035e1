/**
 * The per-contact energy ledger and the diagnosis built on it: the ledger agrees with the world's own
 * bookkeeping, masked and spread-out injections are found, the verdict does not follow the file's status
 * label, the convex model's lift is named, and writer bugs are reported as inconsistent recordings.
 */
import assert from 'node:assert/strict';
import { World } from '../../src/engine/world/world.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import type { RecordedContact, RecordedFrame, RecordingHeader } from '../../src/format/recording.js';
import { Diagnoser, diagnose } from '../../src/session/diagnose.js';
import { tangentBasis, type Vec3 } from '../../src/engine/math/vec3.js';
import type { ScenarioDesc } from '../../src/engine/world/types.js';
import { box, ground, scenario, sphere } from './world-helpers.js';
import { groundHeader } from '../groundHeader.js';

function record(desc: ScenarioDesc): { header: RecordingHeader; frames: RecordedFrame[]; world: ReturnType<World['step']>[]; e0: number } {
  const world = new World(desc);
  const e = world.energy();
  const header = headerFromWorld(world);
  const frames: RecordedFrame[] = [],
    recs: ReturnType<World['step']>[] = [];
  for (let k = 0; k < desc.frames; k++) {
    const r = world.step();
    recs.push(r);
    frames.push(frameFromWorld(world, r));
  }
  return { header, frames, world: recs, e0: e.kineticLinear + e.kineticRotational + e.potential };
}

describe('energy ledger per contact and channel', () => {
  for (const split of [false, true]) {
    it(`agrees with the world's own bookkeeping on every frame (box stack, ${split ? 'split impulse' : 'Baumgarte'}): contact work, position correction, integrator; unexplained 0`, () => {
      const bodies = [ground(), ...[0, 1, 2].map((i) => box(`b${i}`, [0.5, 0.5, 0.5], 1, [0.05 * i, 0, 0.49 + i * 0.99]))];
      const { header, frames, world, e0 } = record(scenario(bodies, { splitImpulse: split, solver: { solver: 'ipm' } }, [], 40));
      const d = new Diagnoser(header, {}, e0);
      frames.forEach((f, k) => {
        d.add(f);
        const L = d.lastLedger!,
          W = world[k].energy;
        const tol = 1e-9 * Math.max(1, Math.abs(W.total));
        assert.ok(Math.abs(L.delta - W.delta) < tol, `frame ${f.frame}: ΔE ${L.delta} vs ${W.delta}`);
        assert.ok(Math.abs(L.normal + L.friction - (W.normalWork + W.frictionWork + (split ? 0 : W.biasWork))) < 1e-9, `frame ${f.frame}: contact work`);
        assert.ok(
          Math.abs(L.positionCorrection - (split ? W.biasWork : 0)) < 1e-9,
          `frame ${f.frame}: position correction ${L.positionCorrection} vs ${split ? W.biasWork : 0}`,
        );
        assert.ok(Math.abs(L.integrator - W.integratorResidual) < 1e-9, `frame ${f.frame}: integrator ${L.integrator} vs ${W.integratorResidual}`);
        assert.ok(Math.abs(L.unexplained) < 1e-9, `frame ${f.frame}: unexplained ${L.unexplained}`);
        // the per-contact parts add up to the channel totals
        const sum = (L.contacts ?? []).reduce((a, c) => a + c.normalWork, 0);
        assert.ok(Math.abs(sum - L.normal) < 1e-12);
        for (const c of L.contacts ?? []) assert.ok(Math.abs(c.lawWork + c.stabilisation + c.excess - c.normalWork) < 1e-12);
      });
    });
  }

  it('free fall: the integrator channel is −½mg²Δt² per step exactly (semi-implicit Euler)', () => {
    const { header, frames, e0 } = record(scenario([ground(), sphere('s', 0.1, 2, [0, 0, 10])], {}, [], 10));
    const d = new Diagnoser(header, {}, e0);
    for (const f of frames) d.add(f);
    const dt = header.dt;
    for (const fd of d.frames) assert.ok(Math.abs(fd.ledger.integrator - -0.5 * 2 * 9.81 ** 2 * dt * dt) < 1e-9, `${fd.ledger.integrator}`);
  });
});

// --- hand-written recordings: point-like balls whose contact acts at the centre of mass ---
const dt = 1 / 60,
  g = 9.81;
const [t1, t2] = tangentBasis([0, 0, 1]);
interface Ball {
  readonly m: number;
  readonly pre: Vec3;
  readonly lambda: Vec3;
  readonly e?: number;
  readonly mu?: number;
}
function balls(
  list: readonly Ball[],
  status: RecordedFrame['solver']['status'] = 'converged',
  solver = 'acme',
): { header: RecordingHeader; frames: RecordedFrame[] } {
  const header = groundHeader(
    dt,
    g,
    list.map((b, i) => ({
      name: `ball${i}`,
      shape: { sphere: { radius: 0.1 } },
      mass: b.m,
      inertia: [0.004 * b.m, 0.004 * b.m, 0.004 * b.m] as Vec3,
      static: false,
    })),
    { name: solver, splitImpulse: true },
  );
  const x0 = (i: number): Vec3 => [3 * i, 0, 0.1];
  const still = { x: [0, 0, 0] as Vec3, q: [1, 0, 0, 0] as const, v: [0, 0, 0] as Vec3, w: [0, 0, 0] as Vec3 };
  const f0: RecordedFrame = {
    frame: 0,
    time: 0,
    bodies: [still, ...list.map((b, i) => ({ x: x0(i), q: [1, 0, 0, 0] as const, v: [b.pre[0], b.pre[1], b.pre[2] + g * dt] as Vec3, w: [0, 0, 0] as Vec3 }))],
    contacts: [],
    solver: { name: solver, status: 'converged', lambda: [] },
  };
  const contacts: RecordedContact[] = list.map((b, i) => ({
    a: i + 1,
    b: -1,
    point: x0(i),
    normal: [0, 0, 1],
    t1,
    t2,
    depth: 0,
    mu: b.mu ?? 0.5,
    e: b.e ?? 0,
    feature: 'p',
  }));
  const post = list.map(
    (b) => [0, 1, 2].map((k) => b.pre[k] + (b.lambda[0] * [0, 0, 1][k] + b.lambda[1] * t1[k] + b.lambda[2] * t2[k]) / b.m) as unknown as Vec3,
  );
  const f1: RecordedFrame = {
    frame: 1,
    time: dt,
    bodies: [
      still,
      ...list.map((_b, i) => ({
        x: [x0(i)[0] + dt * post[i][0], x0(i)[1] + dt * post[i][1], x0(i)[2] + dt * post[i][2]] as Vec3,
        q: [1, 0, 0, 0] as const,
        v: post[i],
        w: [0, 0, 0] as Vec3,
      })),
    ],
    pre: [
      { v: [0, 0, 0], w: [0, 0, 0], x: [0, 0, 0], q: [1, 0, 0, 0] },
      ...list.map((b, i) => ({ v: b.pre, w: [0, 0, 0] as Vec3, x: x0(i), q: [1, 0, 0, 0] as const })),
    ],
    contacts,
    solver: { name: solver, status, iterations: 10, lambda: list.flatMap((b) => [...b.lambda]) },
  };
  return { header, frames: [f0, f1] };
}

describe('diagnosis: masked and spread-out injections', () => {
  it("a restitution bug masked by another body's friction (the frame loses energy) is found at its frame and contact", () => {
    // ball 0: e = 0.5, approach 2 m/s, leaves at 3 m/s = (1+e)·v (+4 J above the law for 1 kg);
    // ball 1: 10 kg sliding at 3 m/s, friction stops it (−45 J): the frame's total falls
    const r = balls([
      { m: 1, pre: [0, 0, -2], lambda: [5, 0, 0], e: 0.5 },
      { m: 10, pre: [3, 0, -0.01], lambda: [0.1, -30 * t1[0], -30 * t2[0]], mu: 1 },
    ]);
    const d = new Diagnoser(r.header);
    r.frames.forEach((f) => d.add(f));
    assert.ok(d.frames[1].ledger.delta < -30, `the total falls: ${d.frames[1].ledger.delta}`);
    const f = d.findings.find((x) => x.mechanism === 'restitution-overshoot');
    assert.ok(f, d.findings.map((x) => x.mechanism).join(','));
    assert.equal(f.frame, 1);
    assert.deepEqual(f.contacts, [0]);
    assert.ok(Math.abs(f.joules - 0.5 * (9 - 1)) < 1e-6 * 4 + 0.5 * 2 * 9.81 * dt * 2, `joules ${f.joules}`);
    assert.match(f.explanation, /masked in the total/);
  });

  it('a frame gain spread over 100 contacts of 0.5 mJ each (each below the 1 mJ tolerance) is one finding of ≈ 50 mJ', () => {
    // 100 balls of 1 kg resting (approach 0.05 m/s, below the rest threshold), each pushed off at 0.0316 m/s: ½·0.0316² ≈ 0.5 mJ
    const up = Math.sqrt(2 * 5e-4);
    const list = Array.from({ length: 100 }, () => ({ m: 1, pre: [0, 0, -0.05] as Vec3, lambda: [0.05 + up, 0, 0] as Vec3 }));
    const found = diagnose(balls(list, 'max-iterations').header, balls(list, 'max-iterations').frames);
    const inj = found.filter((x) => x.kind === 'injection');
    assert.equal(inj.length, 1, inj.map((x) => x.mechanism).join(','));
    assert.equal(inj[0].frame, 1);
    assert.equal(inj[0].contacts.length, 8, 'lists the 8 largest');
    assert.match(inj[0].explanation, /Spread over 100 contacts/);
    // 100 one-contact islands pushed off above every law: no truncated solve (one contact alone is exact), no guess
    assert.equal(inj[0].mechanism, 'unattributed');
    // energy: kinetic ½·v² plus the potential the push-off adds through the position update (m·g·v·Δt) per ball
    const perBall = 0.5 * up * up + 9.81 * up * dt;
    assert.ok(Math.abs(inj[0].joules - 100 * perBall) < 1e-3 * 100 * perBall, `${inj[0].joules} vs ${100 * perBall}`);
  });

  it('the verdict follows the data, not the status label: "converged" and "max-iterations" give the same injection findings', () => {
    const list: Ball[] = [
      { m: 2, pre: [0, 0, -0.1], lambda: [2.2, 0, 0] },
      { m: 1, pre: [0, 0, -2], lambda: [2, 0, 0] },
    ];
    const a = diagnose(balls(list, 'converged').header, balls(list, 'converged').frames).filter((x) => x.kind === 'injection');
    const b = diagnose(balls(list, 'max-iterations').header, balls(list, 'max-iterations').frames).filter((x) => x.kind === 'injection');
    assert.ok(a.length > 0);
    assert.deepEqual(
      a.map((x) => [x.frame, x.mechanism, x.contacts, x.joules.toPrecision(9)]),
      b.map((x) => [x.frame, x.mechanism, x.contacts, x.joules.toPrecision(9)]),
    );
    // the 2 kg ball leaves at 1 m/s with e = 0 and no stabilisation: no law fits, and one contact alone is never a
    // truncated solve (it is exact in one sweep): unattributed, whatever the label says
    assert.equal(a.find((x) => x.contacts.includes(0))?.mechanism, 'unattributed');
    assert.match(a.find((x) => x.contacts.includes(0))!.explanation, /The file's solver status is "converged"/);
  });

  it('no restitution finding on a contact whose e is 0, even when it separates', () => {
    const found = diagnose(
      balls([{ m: 1, pre: [0, 0, -2], lambda: [3, 0, 0], e: 0 }]).header,
      balls([{ m: 1, pre: [0, 0, -2], lambda: [3, 0, 0], e: 0 }]).frames,
    );
    assert.ok(found.length > 0);
    assert.ok(!found.some((x) => x.mechanism === 'restitution-overshoot'), found.map((x) => x.mechanism).join(','));
  });
});

describe("diagnosis: the convex model's lift", () => {
  const slide = (solver: 'newton' | 'ipm' | 'pgs') =>
    scenario([ground(), box('box', [0.25, 0.25, 0.25], 1, [0, 0, 0.25], [5, 0, 0])], { solver: { solver }, splitImpulse: true }, [], 40);
  for (const solver of ['newton', 'ipm'] as const) {
    it(`${solver}: a box sliding at 5 m/s lifts off (w_n = μ‖w_t‖): a convex-lift finding at the first sliding frame on the box's contacts`, () => {
      const { header, frames, e0 } = record(slide(solver));
      const d = new Diagnoser(header, {}, e0);
      for (const f of frames) d.add(f);
      const lift = d.findings.filter((x) => x.mechanism === 'convex-lift');
      assert.ok(lift.length > 0, d.findings.map((x) => x.mechanism).join(','));
      const first = frames.find((f) => f.contacts.length > 0)!.frame;
      assert.equal(lift[0].frame, first);
      // frames are numbered from 0: frame k is frames[k]
      assert.ok(lift[0].contacts.length > 0 && lift[0].contacts.every((c) => c < frames[first].contacts.length));
      assert.match(lift[0].explanation, /μ‖v_t‖/);
      // the lift loses total energy: it is not an injection
      assert.ok(d.frames[first].ledger.delta < 0);
    });
  }
  it('pgs (Coulomb disk): the sliding box stays down, no convex-lift finding', () => {
    const { header, frames, e0 } = record(slide('pgs'));
    const d = new Diagnoser(header, {}, e0);
    for (const f of frames) d.add(f);
    assert.deepEqual(
      d.findings.filter((x) => x.mechanism === 'convex-lift'),
      [],
    );
  });
});

describe('recording consistency: writer bugs', () => {
  // a tilted box landing on a corner: linear and angular velocity changes
  const landing = () => {
    const b = box('box', [0.2, 0.3, 0.4], 2, [0, 0, 0.7], [0.5, 0, -2]);
    return scenario([ground(), { ...b, orientation: [0.961, 0.2, 0.15, 0.1] as const }], { solver: { solver: 'ipm' } }, [], 30);
  };
  const base = record(landing());
  const firstContact = base.frames.find((f) => f.contacts.length > 0)!.frame;

  it('the unmodified recording is consistent', () => {
    const d = new Diagnoser(base.header, {}, base.e0);
    for (const f of base.frames) d.add(f);
    assert.equal(d.consistency, null);
  });

  const cases: [string, (h: RecordingHeader, f: RecordedFrame) => [RecordingHeader, RecordedFrame], string][] = [
    ['λ written as a force (λ/Δt)', (h, f) => [h, { ...f, solver: { ...f.solver, lambda: f.solver.lambda.map((x) => x / h.dt) } }], 'lambda-as-force'],
    [
      'the normal written from a into b (n and the tangents reversed with it)',
      (h, f) => [
        h,
        {
          ...f,
          contacts: f.contacts.map((c) => ({ ...c, normal: [-c.normal[0], -c.normal[1], -c.normal[2]] as Vec3, t1: c.t2, t2: c.t1 })),
          solver: { ...f.solver, lambda: f.contacts.flatMap((_, i) => [f.solver.lambda[3 * i], f.solver.lambda[3 * i + 2], f.solver.lambda[3 * i + 1]]) },
        },
      ],
      'normal-row-flipped',
    ],
    [
      'the inverse inertia in the header',
      (h, f) => [
        { ...h, bodies: h.bodies.map((b) => (b.inertia && b.inertia.length === 3 ? { ...b, inertia: b.inertia.map((x) => 1 / x) as unknown as Vec3 } : b)) },
        f,
      ],
      'inverse-inertia',
    ],
  ];
  for (const [what, mutate, bug] of cases) {
    it(`${what} → inconsistent recording at the first contact frame, body 1, likely cause ${bug}`, () => {
      const frames: RecordedFrame[] = [];
      let header = base.header;
      for (const f of base.frames) {
        const [h, g2] = mutate(base.header, f);
        header = h;
        frames.push(g2);
      }
      const d = new Diagnoser(header, {}, base.e0);
      for (const f of frames) d.add(f);
      assert.ok(d.consistency, 'no inconsistency found');
      assert.equal(d.consistency.firstFrame, firstContact);
      assert.equal(d.consistency.body, 1);
      assert.equal(d.consistency.bug, bug, d.consistency.text);
      const f = d.findings.find((x) => x.kind === 'inconsistent')!;
      assert.equal(f.frame, firstContact);
      assert.equal(f.writerBug, bug);
      // findings on the inconsistent frames are marked
      for (const x of d.findings.filter((y) => y.kind !== 'inconsistent' && y.frame === firstContact)) assert.equal(x.inconsistent, true);
    });
  }
});

describe('CLI: diagnose and report on real-world problems', () => {
  const { mkdtempSync, rmSync, writeFileSync, readFileSync } = require('node:fs') as typeof import('node:fs');
  const { tmpdir } = require('node:os') as typeof import('node:os');
  const { join } = require('node:path') as typeof import('node:path');
  const { main } = require('../../src/cli/main.js') as typeof import('../../src/cli/main.js');
  const { serializeFrame, serializeHeader } = require('../../src/format/recording.js') as typeof import('../../src/format/recording.js');
  const cli = (args: string[]) => {
    const out: string[] = [],
      err: string[] = [];
    const code = main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err };
  };
  const dir = mkdtempSync(join(tmpdir(), 'cl-diag-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, header: RecordingHeader, frames: readonly RecordedFrame[], extra: string[] = []): string => {
    const file = join(dir, name);
    writeFileSync(file, [serializeHeader(header), ...frames.map(serializeFrame), ...extra].join('\n') + '\n');
    return file;
  };
  const landing = record(
    scenario(
      [ground(), { ...box('box', [0.2, 0.3, 0.4], 2, [0, 0, 0.7], [0.5, 0, -2]), orientation: [0.961, 0.2, 0.15, 0.1] as const }],
      { solver: { solver: 'ipm' } },
      [],
      30,
    ),
  );

  it('--json with most lines skipped still says so on stderr, and --fail-on skipped-lines exits 1', () => {
    const file = write(
      'mostly-bad.rec.jsonl',
      landing.header,
      landing.frames.slice(0, 3),
      Array.from({ length: 27 }, (_, i) => `{"frame": ${i + 10}, "oops": true}`),
    );
    const r = cli(['diagnose', file, '--json']);
    assert.equal(r.code, 0);
    assert.ok(
      r.err.some((l) => /skipped 27 of 30 frame lines/.test(l)),
      r.err.join('\n'),
    );
    assert.equal(cli(['diagnose', file, '--json', '--fail-on', 'skipped-lines']).code, 1);
    assert.equal(cli(['diagnose', file, '--fail-on', 'nonsense']).code, 2);
  });

  it('λ written as a force: diagnose reports the inconsistent recording (frame, body, cause) and --fail-on inconsistent exits 1; report prints the ledger', () => {
    const frames = landing.frames.map((f) => ({ ...f, solver: { ...f.solver, lambda: f.solver.lambda.map((x) => x / landing.header.dt) } }));
    const file = write('force.rec.jsonl', landing.header, frames);
    const r = cli(['diagnose', file, '--fail-on', 'inconsistent']);
    assert.equal(r.code, 1);
    const first = frames.find((f) => f.contacts.length > 0)!.frame;
    assert.ok(
      r.out.some((l) =>
        new RegExp(
          `inconsistent recording: \\d+ of \\d+ checked frames fail Δv = M⁻¹Jᵀλ, first at frame ${first}: body 1 \\(box\\).*λ looks like a force`,
        ).test(l),
      ),
      r.out.join('\n'),
    );
    const json = cli(['diagnose', file, '--json']).out.map((l) => JSON.parse(l) as { kind: string; writerBug?: string; frame: number });
    assert.ok(json.some((x) => x.kind === 'inconsistent' && x.writerBug === 'lambda-as-force' && x.frame === first));
    const rep = cli(['report', write('clean.rec.jsonl', landing.header, landing.frames)]);
    assert.equal(rep.code, 0);
    assert.ok(
      rep.out.some((l) =>
        /^energy ledger \(Σ over frames.*contact normal work [+-][0-9.]+(e[+-]\d+)? J, friction .*integrator .*unexplained by λ [+-]/.test(l),
      ),
      rep.out.join('\n'),
    );
    void readFileSync;
  });
});

describe('diagnosis: a diverging simulation', () => {
  it('ω = 1e300 from frame 20 on: one blow-up finding at frame 20, the frames before it analysed, no NaN joules anywhere', () => {
    const base = record(scenario([ground(), box('box', [0.25, 0.25, 0.25], 1, [0, 0, 0.25])], { solver: { solver: 'ipm' } }, [], 40));
    const frames = base.frames.map((f) =>
      f.frame >= 20 ? { ...f, bodies: f.bodies.map((b, i) => (i === 1 ? { ...b, w: [1e300, 1e300, 0] as Vec3 } : b)) } : f,
    );
    const d = new Diagnoser(base.header, {}, base.e0);
    for (const f of frames) d.add(f);
    const blow = d.findings.filter((f) => f.mechanism === 'blow-up');
    assert.equal(blow.length, 1);
    assert.equal(blow[0].frame, 20);
    assert.match(blow[0].explanation, /body 1 \(box\)/);
    for (const f of d.findings) assert.ok(Number.isFinite(f.joules), `${f.frame} ${f.mechanism}`);
    assert.equal(d.frames.length, 40);
  });
});
