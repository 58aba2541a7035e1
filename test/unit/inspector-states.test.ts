/**
 * What the inspector says about a contact and a recording's solver, decided from the physics and the header,
 * never invented: the contact state (open / stick / slip) from the post-step velocity w, and the re-solve's
 * position bias only when the header declares one (MuJoCo's soft contacts have no ERP).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contactState, OPEN_SPEED_TOLERANCE, SLIP_SPEED_TOLERANCE } from '../../src/session/contactState.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import { recordingAssembly } from '../../src/session/session.js';
import type { RecordingHeader } from '../../src/format/recording.js';

describe('contact state from the post-step velocity w', () => {
  const dt = 1 / 60;
  it('a contact leaving at 7.17 m/s is open, whatever its impulse (a λ label called it "sticking")', () => {
    // the fault scene's ball: 30 mm deep, it leaves at 7.17 m/s — 120 mm in one step
    assert.equal(contactState(11.75, 0, 0.5, { normal: 7.17, slip: 0, depth: 0.03, dt }), 'open');
    assert.equal(contactState(0.8, 0.4, 0.5, { normal: 7.17, slip: 2, depth: 0, dt }), 'open');
  });

  it('an overlap pushed out by an ERP bias or a soft spring, slower than it closes in the step, stays closed', () => {
    const depth = 0.00275;
    const bias = (0.2 / dt) * depth; // Baumgarte, erp 0.2: 33 mm/s
    assert.equal(contactState(0.05, 0, 0.5, { normal: bias, slip: 0, depth, dt }), 'stick');
    assert.equal(contactState(0.05, 0, 0.5, { normal: 0.05, slip: 0, depth, dt }), 'stick', 'MuJoCo’s spring at 5 cm/s: 0.8 mm of 2.75 mm');
    // parting within the step (w_n·Δt > depth + 1 mm/s·Δt): open
    assert.equal(contactState(0.05, 0, 0.5, { normal: depth / dt + 0.5 * OPEN_SPEED_TOLERANCE, slip: 0, depth, dt }), 'stick');
    assert.equal(contactState(0.05, 0, 0.5, { normal: depth / dt + 2 * OPEN_SPEED_TOLERANCE, slip: 0, depth, dt }), 'open');
  });

  it('closed contacts stick or slip by ‖w_t‖; no normal impulse is open', () => {
    assert.equal(contactState(0.1, 0.05, 0.5, { normal: 0, slip: 3, depth: 0, dt }), 'slip');
    assert.equal(contactState(0.1, 0.05, 0.5, { normal: 0, slip: 0.5 * SLIP_SPEED_TOLERANCE, depth: 0, dt }), 'stick');
    assert.equal(contactState(0, 0, 0.5, { normal: 0, slip: 0, depth: 0, dt }), 'open');
  });

  it('without kinematics (no pre-solve state) only λ is known: open at λn = 0, slip on the cone surface, else stick', () => {
    assert.equal(contactState(0, 0, 0.5, null), 'open');
    assert.equal(contactState(1, 0.5, 0.5, null), 'slip');
    assert.equal(contactState(1, 0.2, 0.5, null), 'stick');
  });
});

/** A recording header's solver block over the docs' one-box example. */
function header(solver: Record<string, unknown>): RecordingHeader {
  return {
    format: 'contact-lens-recording',
    version: 1,
    producer: { name: 'test' },
    units: 'SI',
    conventions: { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' },
    dt: 1 / 60,
    gravity: [0, 0, -9.81],
    bodies: [],
    solver: { name: 'x', ...solver },
  } as unknown as RecordingHeader;
}

describe('re-solve parameters from the recording header: declared or "not declared", never assumed', () => {
  it('MuJoCo (soft contacts, baumgarte false, no erp): no bias in b, and no "erp 0.2" in the notes', () => {
    const a = recordingAssembly(header({ contactModel: 'soft', baumgarte: false, soft: { k: 947.4, c: 63.2 } }));
    assert.equal(a.options.baumgarte, false);
    assert.equal(a.options.erp, 0);
    assert.ok(!a.notes.some((n) => /assumed|0\.2\b/.test(n)), a.notes.join(' | '));
    assert.ok(a.notes.some((n) => /soft contacts/.test(n)));
  });

  it('a header that declares nothing: "erp not declared", no bias; a declared erp 0.3 is used as it is', () => {
    const none = recordingAssembly(header({}));
    assert.equal(none.options.baumgarte, false);
    assert.ok(none.notes.some((n) => n === 'header solver.erp not declared: b is rebuilt without a position bias'));
    assert.ok(!none.notes.some((n) => /assumed/.test(n)), none.notes.join(' | '));
    const erp = recordingAssembly(header({ erp: 0.3, slop: 0.001, splitImpulse: false, restVelocityThreshold: 0.5 }));
    assert.deepEqual(
      { erp: erp.options.erp, slop: erp.options.slop, baumgarte: erp.options.baumgarte, rest: erp.options.restVelocityThreshold },
      { erp: 0.3, slop: 0.001, baumgarte: true, rest: 0.5 },
    );
    assert.equal(erp.notes.length, 1, erp.notes.join(' | ')); // only the note on how A is rebuilt
  });

  it('the inspector of a soft-contact recording: frame notes say so, its resting box has no bias impulse, states come from w', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-states-'));
    const file = join(dir, 'soft.rec.jsonl');
    const h = {
      ...header({ contactModel: 'soft', baumgarte: false }),
      bodies: [{ name: 'box', shape: { box: { halfExtents: [0.5, 0.5, 0.5] } }, mass: 1, inertia: [1 / 6, 1 / 6, 1 / 6], static: false }],
    };
    // frame 1: the box rests on the world (b = −1) through one contact; its soft spring pushes it up at 5 cm/s,
    // frame 2 at 15 cm/s: 2.5 mm in the step, more than the 1 mm overlap — it parts
    const frame = (k: number, vz: number) => ({
      frame: k,
      time: (k + 1) / 60,
      bodies: [{ x: [0, 0, 0.5], q: [1, 0, 0, 0], v: [0, 0, vz], w: [0, 0, 0] }],
      pre: [{ x: [0, 0, 0.5], q: [1, 0, 0, 0], v: [0, 0, -0.1635], w: [0, 0, 0] }],
      contacts: [{ a: 0, b: -1, point: [0, 0, 0], normal: [0, 0, 1], t1: [1, 0, 0], t2: [0, 1, 0], depth: 0.001, mu: 0.5, e: 0 }],
      solver: { name: 'x', status: 'converged', iterations: 1, lambda: [0.1635 + vz, 0, 0] },
    });
    writeFileSync(file, [h, frame(0, 0), frame(1, 0.05), frame(2, 0.15)].map((x) => JSON.stringify(x)).join('\n') + '\n');
    const m = await InspectorModel.fromRecording(file);
    try {
      const rest = m.frameView(0),
        push = m.frameView(1);
      assert.ok(!rest.notes.some((n) => /assumed|erp 0\.2/.test(n)), rest.notes.join(' | '));
      assert.ok(
        rest.notes.some((n) => /soft contacts/.test(n)),
        rest.notes.join(' | '),
      );
      assert.equal(rest.contacts[0].biasImpulse, 0, 'no ERP bias is invented');
      assert.equal(rest.contacts[0].state, 'stick');
      // w_n = +5 cm/s: the spring pushes the 1 mm overlap out by 0.8 mm in the step — still closed
      assert.ok(Math.abs(push.contacts[0].vnAfter! - 0.05) < 1e-9, `${push.contacts[0].vnAfter}`);
      assert.equal(push.contacts[0].state, 'stick');
      const part = m.frameView(2);
      assert.equal(part.contacts[0].state, 'open', `w_n ${part.contacts[0].vnAfter} m/s parts 1 mm within 1/60 s`);
    } finally {
      m.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('frame numbers: one rule, numbered from 0 (docs/recording-format.md "Frame numbers")', () => {
  it("a scenario's frames are 0, 1, 2 … like a recording's: frame k ends at (k + 1)·dt and is session index k", async () => {
    const { parseSceneFile } = await import('../../src/format/scene.js');
    const { readFileSync } = await import('node:fs');
    const file = join(__dirname, '..', '..', 'examples', 'fault-restitution-target.scene.json');
    const desc = parseSceneFile(readFileSync(file, 'utf8'), file).scenarios[0].desc;
    const m = InspectorModel.fromScenario(desc, file);
    try {
      const t = m.timeline;
      assert.deepEqual(t.frame.slice(0, 3), [0, 1, 2]);
      assert.ok(Math.abs(t.time[0] - desc.config.dt) < 1e-12, `frame 0 ends at dt: ${t.time[0]}`);
      t.frame.forEach((fr, i) => assert.equal(fr, i));
      for (const f of m.findings) assert.equal(f.index, f.frame, 'a finding at frame k is at session index k');
      assert.equal(m.frameView(5).frame, 5);
    } finally {
      m.close();
    }
  });
});
