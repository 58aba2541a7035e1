/**
 * `report` and `diagnose` of a large plain recording on two threads (src/cli/recordingReport.ts
 * reportRecordingParallel, session/stretch/): the report and the diagnosis must be the one-thread pass's to the last
 * digit, or the pass reads on alone. Recordings nobody here shaped (the independent planted set, real engines from
 * npm) and our own, split at several places. The stretch runs in this thread (inThisThread: no timing) after the
 * pass — its budget then known — or before it (its budget not yet known: taken as spent, which the pass checks); one
 * test in a real thread.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type ReportParallelOptions, reportRecording, reportRecordingParallel, type ReportOptions } from '../../src/cli/recordingReport.js';
import { reportStretch } from '../../src/cli/reportRows.js';
import { DEFAULT_COUNTERFACTUAL_TOTAL_WORK } from '../../src/session/diagnose.js';
import { inThisThread } from '../../src/session/stretch/stretchDiagnosis.js';
import { generatePlantedSet } from '../independent/generate.js';
import { recordPeer } from '../peers/recordPeer.js';
import { recordExample } from '../exampleRecording.js';

const ROOT = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-report-parallel-'));
// run before the pass, the stretch cannot wait for the pass's budget: it takes it as spent at once (speculateShare 0)
const split = (share: number, before = false): ReportParallelOptions => ({
  minBytes: 0,
  share,
  quietMs: 0,
  thread: () => inThisThread(reportStretch, { before }),
  ...(before ? { speculateShare: 0 } : {}),
});

/** The report and the diagnosis as `report --json` and `diagnose --json` print them (the re-solves' times left out). */
function printed(run: { report: unknown; diagnosis: unknown }): unknown {
  return JSON.parse(JSON.stringify({ report: run.report, diagnosis: run.diagnosis }, (k, v) => (k === 'ms' || k === 'timeMs' ? undefined : v)));
}

/** Reports `file` on one thread and split at `share`; asserts both print the same; returns how the split one read it. */
async function sameAsOneThread(file: string, share: number, options: ReportOptions = {}, before = false) {
  const one = reportRecording(file, { ...options, cache: { mode: 'off' } });
  one.reader.close();
  const two = await reportRecordingParallel(file, { ...options, cache: { mode: 'off' } }, split(share, before));
  two.reader.close();
  assert.deepStrictEqual(printed(two), printed(one), `${path.basename(file)} split at ${share} (${JSON.stringify(two.outcome)})`);
  return two.outcome;
}

describe('report and diagnose of a recording on two threads', function () {
  this.timeout(600_000);
  const files: string[] = [];
  let stack = '';
  // our 10-box stack under 10 PGS sweeps: re-solves in most frames; with the inspector's budget it runs out near frame 110
  let faulty = '';

  before(async () => {
    const planted = path.join(dir, 'planted');
    generatePlantedSet(planted);
    const plantedFiles = fs.readdirSync(planted).filter((f) => f.endsWith('.rec.jsonl'));
    files.push(...plantedFiles.filter((_, i) => i % 3 === 1).map((f) => path.join(planted, f)));
    for (const [engine, scene, name] of [
      ['cannon', 'stack', 'cannon-stack'],
      ['rapier', 'stack', 'rapier-stack'],
      ['mujoco', 'slide', 'mujoco-slide'],
    ] as const)
      files.push(await recordPeer(engine, scene, { out: path.join(dir, `${name}.rec.jsonl`) }));
    files.push(path.join(ROOT, 'examples', 'foreign-engine.rec.jsonl'));
    stack = recordExample(dir, 'box-stack-10', 'pgs', 240);
    files.push(stack);
    faulty = recordExample(dir, 'fault-pgs-too-few-iterations', 'pgs', 300);
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints exactly what one thread prints, on recordings nobody here shaped, wherever the cut falls', async () => {
    const kinds: Record<string, number> = {};
    for (const file of files)
      for (const share of [0.2, 0.5, 0.8]) {
        const o = await sameAsOneThread(file, share);
        kinds[o.kind] = (kinds[o.kind] ?? 0) + 1;
      }
    assert.ok((kinds['two-threads'] ?? 0) > (files.length * 3) / 2, JSON.stringify(kinds));
  });

  it('a stretch that needs the re-solve budget before the pass knows it takes it as spent: used when it ran out before the cut, else the pass reads on', async () => {
    const small = { diagnosis: { counterfactualTotalWork: DEFAULT_COUNTERFACTUAL_TOTAL_WORK } };
    const one = reportRecording(faulty, { ...small, cache: { mode: 'off' } });
    one.reader.close();
    const at = one.diagnosis.cost.exhaustedAt;
    assert.ok(at !== null && at > 60 && at < 240, `the budget runs out at frame ${at}`);
    // cut after it: the stretch's diagnosis without re-solves is the one-thread one
    const after = await sameAsOneThread(faulty, 0.8, small, true);
    assert.equal(after.kind, 'two-threads');
    assert.ok(after.kind === 'two-threads' && after.from > at, JSON.stringify(after));
    // cut before it: not used, with the reason
    const o = await sameAsOneThread(faulty, 0.2, small, true);
    assert.equal(o.kind, 'read-on');
    assert.equal(o.kind === 'read-on' ? o.why : '', 'the stretch took the re-solve budget as spent before it, and it was not');
    // known before the stretch needs it (the stretch run after the pass): handed over, used either way
    for (const share of [0.2, 0.8]) assert.equal((await sameAsOneThread(faulty, share, small)).kind, 'two-threads', `cut at ${share}`);
  });

  it('a recording that turns inconsistent after the cut (λ doubled from 80 % of its frames on): the consistency check found by the second thread is the one-thread one', async () => {
    const lines = fs.readFileSync(stack, 'utf8').split('\n');
    const from = Math.floor(lines.length * 0.8);
    const doubled = path.join(dir, 'doubled.rec.jsonl');
    const edit = (l: string): string => {
      const f = JSON.parse(l) as { solver?: { lambda?: number[] } };
      if (f.solver?.lambda) f.solver.lambda = f.solver.lambda.map((x) => 2 * x);
      return JSON.stringify(f);
    };
    fs.writeFileSync(doubled, lines.map((l, i) => (i >= from && l.trim() ? edit(l) : l)).join('\n'));
    const one = reportRecording(doubled, { cache: { mode: 'off' } });
    one.reader.close();
    assert.ok(one.diagnosis.consistency !== null && one.diagnosis.consistency.firstFrame > 0.5 * lines.length, JSON.stringify(one.diagnosis.consistency));
    assert.equal((await sameAsOneThread(doubled, 0.5)).kind, 'two-threads');
    assert.equal((await sameAsOneThread(doubled, 0.9)).kind, 'two-threads');
  });

  it('keeps one thread for the writer checks, a hook that sees every frame, and small recordings', async () => {
    assert.equal((await reportRecordingParallel(stack, { check: true, cache: { mode: 'off' } }, split(0.5))).outcome.kind, 'one-thread');
    assert.equal((await reportRecordingParallel(stack, { hook: () => undefined, cache: { mode: 'off' } }, split(0.5))).outcome.kind, 'one-thread');
    const big = { ...split(0.5), minBytes: fs.statSync(stack).size + 1 };
    assert.equal((await reportRecordingParallel(stack, { cache: { mode: 'off' } }, big)).outcome.kind, 'one-thread');
  });

  it('stores what a two-thread pass found in the sidecar cache: the next report reads no frame and prints the same', async () => {
    const copy = path.join(dir, 'cached.rec.jsonl');
    fs.copyFileSync(stack, copy);
    const cache = { mode: 'always' as const, dir: null };
    const first = await reportRecordingParallel(copy, { cache }, split(0.5));
    first.reader.close();
    assert.equal(first.outcome.kind, 'two-threads');
    const second = reportRecording(copy, { cache });
    second.reader.close();
    assert.ok(second.cached);
    assert.deepStrictEqual(printed(second), printed(first));
  });

  it('on a real second thread (bundle dist/reportStretch.js, or its source), prints what one thread prints', async () => {
    // a recording whose budget runs out before the cut: the real thread's stretch is used whether it takes the budget
    // from this thread (known by then) or as spent (needed earlier), so the outcome does not depend on timing
    const small = { diagnosis: { counterfactualTotalWork: DEFAULT_COUNTERFACTUAL_TOTAL_WORK }, cache: { mode: 'off' as const } };
    const real: ReportParallelOptions = { minBytes: 0, share: 0.8, quietMs: 0 };
    const one = reportRecording(faulty, small);
    one.reader.close();
    const two = await reportRecordingParallel(faulty, small, real);
    two.reader.close();
    assert.equal(two.outcome.kind, 'two-threads');
    assert.deepStrictEqual(printed(two), printed(one));
  });
});
