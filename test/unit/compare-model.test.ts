/**
 * Compare mode's model (the worker side): newton against ipm on box-stack-10 — the first divergence and its kind,
 * the alignment, per contact a, b and Δ, b's bodies as a ghost, b's energies for the charts, the re-solves of one
 * run's frame with the other's solver; every view passes the protocol validators.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordBoxStack } from '../exampleRecording.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import { CompareModel, ownSolver } from '../../src/extension/model/compareModel.js';
import { Session } from '../../src/session/session.js';
import { validateHostMessage } from '../../src/protocol/validate.js';
import { POSE_STRIDE } from '../../src/protocol/scene.js';

describe('compare mode: the worker model (newton vs ipm on box-stack-10)', function () {
  this.timeout(120_000);
  let dir: string;
  let a: InspectorModel;
  let cmp: CompareModel;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'contact-lens-cmpmodel-'));
    const fa = recordBoxStack(dir, 'newton', 30),
      fb = recordBoxStack(dir, 'ipm', 30);
    a = await InspectorModel.fromRecording(fa);
    cmp = new CompareModel(a.session, Session.fromRecording(fb), { title: 'stack-ipm', file: fb });
  });
  after(() => {
    cmp?.close();
    a?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the view: the first divergence (frame 0, solve, run a closer), aligned frames, b’s energies, valid as a message', () => {
    const v = cmp.view;
    assert.equal(v.aligned.length, 30);
    assert.deepEqual(
      v.aligned,
      Array.from({ length: 30 }, (_, i) => i),
    );
    assert.ok(v.divergence);
    assert.equal(v.divergence.index, 0);
    assert.equal(v.divergence.kind, 'solve');
    assert.equal(v.divergence.contacts.length, 40);
    assert.ok(v.divergence.lines.some((l) => /run a solved it better/.test(l)));
    assert.ok(
      v.divergence.lines.some((l) => /same impulses/.test(l)),
      'the λ split over coplanar corners is named',
    );
    assert.match(v.summary, /^parts at frame 0 \(t = 0\.01667 s\): solve/);
    assert.ok(v.timeline.total.every((x) => x !== null && Math.abs(x - 490.5) < 0.01));
    assert.equal(v.growth[0] !== null, true);
    validateHostMessage({ type: 'compare', compare: v });
  });

  it('per frame: every contact of a with its partner in b (λ, Δ), no contact in one run only, b’s bodies as a ghost', () => {
    const view = a.frameView(0);
    const fc = cmp.frameCompare(0);
    assert.equal(fc.contacts.length, view.contacts.length);
    assert.ok(fc.contacts.every((c) => c.b !== null && c.lambdaN !== null));
    assert.deepEqual(fc.onlyB, []);
    const total = (xs: readonly (number | null)[]): number => xs.reduce<number>((s, x) => s + (x ?? 0), 0);
    // the same weight carried: Σλn equal, its split over the corners not
    const sa = total(view.contacts.map((c) => c.lambdaN)),
      sb = total(fc.contacts.map((c) => c.lambdaN));
    assert.ok(Math.abs(sa - sb) < 1e-8 * sa, `Σλn ${sa} vs ${sb}`);
    assert.ok(fc.ghost instanceof Float64Array && fc.ghost.length === POSE_STRIDE * 11);
    assert.ok(Number.isNaN(fc.ghost[0]), 'the ground has no ghost');
    assert.ok(Math.abs(fc.ghost[POSE_STRIDE * 10 + 2] - 9.5) < 1e-3, 'box-9 at its height');
    validateHostMessage({ type: 'frame', requestId: 1, view: { ...view, compare: fc } });
  });

  it('re-solves: b’s solver (ipm) on a’s problem, and a’s (newton) on b’s, beside the other run’s own λ', () => {
    assert.deepEqual(ownSolver(a.session.header)?.solver, 'newton');
    const r = cmp.crossWhatIf(0, 'b-with-a');
    assert.match(r.title, /^run b's solver \(ipm\) on run a's problem of frame 0$/);
    assert.equal(r.view.contacts.length, 40);
    assert.equal(r.otherN.length, 40);
    assert.ok(r.otherN.every((x) => x !== null));
    assert.ok(r.view.alternative.kkt < 1e-6, `ipm solves a's problem: ${r.view.alternative.kkt}`);
    const s = cmp.crossWhatIf(0, 'a-with-b');
    assert.match(s.title, /newton\) on run b's problem/);
    validateHostMessage({ type: 'crossWhatIf', requestId: 2, result: r });
  });
});
