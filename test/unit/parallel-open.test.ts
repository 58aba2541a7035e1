/**
 * The inspector open with the diagnosis in a worker thread (src/extension/model/parallelDiagnosis.ts): the
 * same findings, timeline, per-contact injections and re-solve budget frame as the open on one thread.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseSceneFile } from '../../src/format/scene.js';
import { RecordingWriter } from '../../src/format/recordingFile.js';
import { World } from '../../src/engine/world/world.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import { diagnoseInWorker } from '../../src/extension/model/parallelDiagnosis.js';
import { diagnose } from '../../src/session/diagnose.js';
import { RecordingReader } from '../../src/format/recordingFile.js';

const ROOT = resolve(__dirname, '..', '..');

/** Everything an open computes that the webview or a later request reads. */
function outcome(m: InspectorModel): unknown {
  const inner = m as unknown as { injectedByContact: (ReadonlyMap<number, number> | null)[]; resolveBudgetFrame: number | null };
  return {
    findings: m.findings,
    timeline: m.timeline,
    skipped: m.skipped,
    injectedByContact: inner.injectedByContact.map((x) => (x ? [...x] : null)),
    resolveBudgetFrame: inner.resolveBudgetFrame,
    series: m.series([m.frameView(m.findings[0]?.index ?? 0).contacts[0]?.key ?? '0|-1|']),
  };
}

describe('parallel inspector open', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'contact-lens-parallel-open-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Our 10-box stack with too few PGS iterations (many findings), its re-solve budget small enough to run out. */
  let made: string | null = null;
  function recording(): string {
    if (made) return made;
    const path = resolve(ROOT, 'examples', 'fault-pgs-too-few-iterations.scene.json');
    const desc = parseSceneFile(readFileSync(path, 'utf8'), path).scenarios[0].desc;
    const world = new World(desc);
    const file = join(dir, 'stack.rec.jsonl');
    const w = RecordingWriter.create(file, headerFromWorld(world));
    for (let k = 0; k < 120; k++) w.writeFrame(frameFromWorld(world, world.step()));
    w.close();
    return (made = file);
  }

  it('gives the same findings, timeline, injections and budget frame as one thread', async () => {
    const file = recording();
    const options = { counterfactualTotalWork: 2e6 };
    const one = await InspectorModel.fromRecording(file, options, undefined, undefined, { parallel: false });
    const two = await InspectorModel.fromRecording(file, options, undefined, undefined, { parallel: true });
    try {
      assert.ok(one.findings.length > 10, `${one.findings.length} findings`);
      assert.ok((one as unknown as { resolveBudgetFrame: number | null }).resolveBudgetFrame !== null, 'the budget runs out');
      assert.deepEqual(outcome(two), outcome(one));
    } finally {
      one.close();
      two.close();
    }
  });

  it('the worker itself diagnoses the file as one thread does (no silent fall-back behind the comparison above)', async () => {
    const file = recording();
    const reader = RecordingReader.openSync(file);
    const frames = Array.from({ length: reader.frameCount }, (_, i) => reader.frame(i));
    const expected = diagnose(reader.header, frames, { counterfactualTotalWork: 2e6 });
    reader.close();
    const r = await diagnoseInWorker(file, { counterfactualTotalWork: 2e6 });
    assert.equal(r.injected.length, frames.length);
    assert.ok(expected.length > 10);
    assert.deepEqual(
      r.findings.map((f) => ({ ...f, counterfactual: f.counterfactual && { ...f.counterfactual, timeMs: 0 } })),
      expected.map((f) => ({ ...f, counterfactual: f.counterfactual && { ...f.counterfactual, timeMs: 0 } })),
    );
  });

  it('reports a bad file as the one-thread open does, and a cancelled open rejects', async () => {
    const bad = join(dir, 'bad.rec.jsonl');
    writeFileSync(bad, '{"format": "contact-lens-recording"\n');
    const err = async (parallel: boolean): Promise<string> =>
      InspectorModel.fromRecording(bad, {}, undefined, undefined, { parallel }).then(
        () => 'opened',
        (e: Error) => e.message,
      );
    const oneThread = await err(false);
    assert.match(oneThread, /bad\.rec\.jsonl/);
    assert.equal(await err(true), oneThread);
    const ac = new AbortController();
    ac.abort(new Error('cancelled by the user'));
    await assert.rejects(InspectorModel.fromRecording(recording(), {}, undefined, ac.signal, { parallel: true }), /cancelled by the user/);
  });
});
