/** The simulation worker (dist/worker.js) driven through WorkerClient, as the extension host does. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { WorkerClient, type WorkerRequestError, CancelledError } from '../../src/extension/workerClient.js';
import type { DiagnosisSettings } from '../../src/extension/worker/workerProtocol.js';

const ROOT = resolve(__dirname, '..', '..');
const SCRIPT = resolve(ROOT, 'dist', 'worker.js');
const diagnosis: DiagnosisSettings = { energyTolerance: 1e-3, speedTolerance: 1e-3, overlapDepth: 0.02 };
const example = (f: string) => {
  const file = resolve(ROOT, 'examples', f);
  return { file, text: readFileSync(file, 'utf8') };
};

describe('simulation worker', function () {
  this.timeout(120_000);
  before(() => assert.ok(existsSync(SCRIPT), `${SCRIPT} is missing: run \`npm run build\` first`));

  it('opens a scenario, reports progress, serves frames and what-ifs', async () => {
    const w = new WorkerClient(SCRIPT);
    try {
      const progress: number[] = [];
      const o = await w.request(
        { op: 'openScenario', ...example('sphere-drop.scene.json'), scenario: 'sphere-drop', diagnosis, override: {} },
        {
          onProgress: (_, f) => {
            if (f !== null) progress.push(f);
          },
        },
      );
      assert.equal(o.info.title, 'sphere-drop');
      // Baumgarte's push-out of the 3 cm impact overlap is reported as a warning; a clean bounce has no error finding
      assert.equal(o.findings.filter((f) => f.severity === 'error').length, 0, 'a clean bounce has no error findings');
      assert.ok(progress.length >= 10 && progress.at(-1)! >= 0.99, `progress ${progress.length}`);
      const hit = o.timeline.contacts.findIndex((c) => c > 0);
      const v = await w.request({ op: 'frame', index: hit });
      assert.equal(v.contacts.length, o.timeline.contacts[hit]);
      const alt = await w.request({ op: 'whatIf', index: hit, options: { solver: 'ipm' } });
      assert.equal(alt.contacts.length, v.contacts.length);
    } finally {
      w.dispose();
    }
  });

  it('checks a fault file: expectations fail and the finding names the mechanism; the override changes the solver', async () => {
    const w = new WorkerClient(SCRIPT);
    try {
      const [c] = await w.request({
        op: 'check',
        ...example('fault-restitution-target.scene.json'),
        scenario: 'fault-restitution-target-sphere',
        diagnosis,
        override: {},
      });
      assert.equal(c.expectations.find((x) => x.kind === 'energyNonIncreasing')!.ok, false);
      assert.equal(c.findings[0].mechanism, 'restitution-overshoot');
      assert.equal(c.range.line, 4);
      const all = await w.request({ op: 'check', ...example('sphere-drop.scene.json'), scenario: null, diagnosis, override: { solver: 'ipm' } });
      assert.ok(
        all.length >= 2 && all.every((x) => x.findings.every((f) => f.severity !== 'error') && x.expectations.every((e) => e.ok)),
        JSON.stringify(all.map((x) => [x.expectations, x.findings.map((f) => f.mechanism)])),
      );
    } finally {
      w.dispose();
    }
  });

  it('a bad scene file or scenario name is an error naming the file and field; the worker keeps serving', async () => {
    const w = new WorkerClient(SCRIPT);
    try {
      const bad = '{ "scenarios": [ { "name": "x", "frames": 10, "bodies": [ { "name": "b", "shape": { "sphere": { "radius": 0.1 } }, "mass": -1 } ] } ] }';
      await assert.rejects(
        w.request({ op: 'check', file: '/tmp/bad.scene.json', text: bad, scenario: null, diagnosis, override: {} }),
        (e: WorkerRequestError) => e.file === '/tmp/bad.scene.json' && /mass/.test(e.field ?? '') && /bad\.scene\.json/.test(e.message),
      );
      await assert.rejects(
        w.request({ op: 'openScenario', ...example('sphere-drop.scene.json'), scenario: 'nope', diagnosis, override: {} }),
        (e: WorkerRequestError) => e.field === 'scenarios' && /no scenario named "nope"/.test(e.message),
      );
      await assert.rejects(w.request({ op: 'frame', index: 0 }), /no session is open/);
      const ok = await w.request({ op: 'check', ...example('resting-box.scene.json'), scenario: null, diagnosis, override: {} });
      assert.ok(ok.length > 0);
    } finally {
      w.dispose();
    }
  });

  it('cancelling terminates a long simulation at once', async () => {
    const w = new WorkerClient(SCRIPT);
    const abort = new AbortController();
    const t0 = Date.now();
    const p = w.request({ op: 'openScenario', ...example('pyramid-20.scene.json'), scenario: 'pyramid-20', diagnosis, override: {} }, { signal: abort.signal });
    setTimeout(() => abort.abort(), 300);
    await assert.rejects(p, (e) => e instanceof CancelledError);
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    assert.equal(w.alive, false);
  });
});
