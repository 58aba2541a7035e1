/**
 * The diagnosis on real engines' recordings (test/peers/: cannon-es, Rapier, Jolt, MuJoCo, Bullet from npm).
 * The truth for each engine's stack comes from the controlled experiment in test/peers/README.md (re-runs
 * with more iterations / stabilisation off): cannon-es — its SPOOK position term; Jolt — the truncated
 * velocity solve; MuJoCo — the soft-contact spring; Bullet — Baumgarte (ERP) and the truncated solve;
 * Rapier — nothing rises at its defaults.
 */
import assert from 'node:assert/strict';
import { RecordingReader } from '../../src/format/recordingFile.js';
import type { RecordedFrame, RecordingHeader } from '../../src/format/recording.js';
import { Diagnoser, frameEnergy, type Finding } from '../../src/session/diagnose.js';
import { recordPeer, type RecordPeerOptions } from '../peers/recordPeer.js';
import { main } from '../../src/cli/main.js';
import type { PeerEngineName } from '../peers/types.js';
import type { SceneName } from '../peers/scenes.js';

async function load(engine: PeerEngineName, scene: SceneName, options: RecordPeerOptions = {}): Promise<{ header: RecordingHeader; frames: RecordedFrame[] }> {
  const file = await recordPeer(engine, scene, options);
  const r = RecordingReader.openSync(file);
  try {
    assert.equal(r.errorCount, 0, `${engine} ${scene}: skipped lines`);
    return { header: r.header, frames: Array.from({ length: r.frameCount }, (_, i) => r.frame(i)) };
  } finally {
    r.close();
  }
}

/** Diagnoses with every counterfactual re-solve allowed (the budgets bound the time, not the verdict tested here). */
function run(header: RecordingHeader, frames: readonly RecordedFrame[]): { findings: Finding[]; rising: number[] } {
  const d = new Diagnoser(header, { counterfactualTotalWork: Number.POSITIVE_INFINITY, counterfactualFrameWork: Number.POSITIVE_INFINITY });
  const rising: number[] = [];
  let prev: number | undefined;
  for (const f of frames) {
    const e = frameEnergy(header, f);
    if (prev !== undefined && e - prev > 1e-3) rising.push(f.frame);
    prev = e;
    d.add(f);
  }
  return { findings: d.findings, rising };
}

const relabel = (frames: readonly RecordedFrame[], status: 'converged' | 'max-iterations'): RecordedFrame[] =>
  frames.map((f) => ({ ...f, solver: { ...f.solver, status } }));

const TRUTH: Partial<Record<PeerEngineName, readonly string[]>> = {
  cannon: ['bias-injection', 'overlap-push-out'],
  jolt: ['non-converged-solve'],
  mujoco: ['bias-injection', 'overlap-push-out'],
  bullet: ['bias-injection', 'overlap-push-out', 'non-converged-solve'],
};

describe('diagnosis on real engines: the stack of 10 boxes', function () {
  this.timeout(300_000);
  for (const [engine, truth] of Object.entries(TRUTH) as [PeerEngineName, readonly string[]][]) {
    it(`${engine}: ≥ 95 % of frames rising > 1 mJ carry an injection finding whose largest mechanism is the experiment's (${truth.join(' / ')}), with the label "converged" and "max-iterations" alike; no restitution finding (e = 0)`, async () => {
      const { header, frames } = await load(engine, 'stack');
      const verdicts: string[][] = [];
      for (const status of ['converged', 'max-iterations'] as const) {
        const { findings, rising } = run(header, relabel(frames, status));
        assert.ok(rising.length > 20, `${engine}: the stack gains energy in ${rising.length} frames`);
        const inj = findings.filter((f) => f.kind === 'injection');
        const covered = rising.filter((fr) => inj.some((f) => f.frame === fr));
        assert.ok(covered.length >= 0.95 * rising.length, `${engine} (${status}): ${covered.length} of ${rising.length} rising frames carry a finding`);
        const agree = covered.filter((fr) => truth.includes(inj.filter((f) => f.frame === fr).sort((a, b) => b.joules - a.joules)[0].mechanism));
        assert.ok(agree.length >= 0.95 * rising.length, `${engine} (${status}): the largest mechanism agrees on ${agree.length} of ${rising.length}`);
        assert.deepEqual(
          findings.filter((f) => f.mechanism === 'restitution-overshoot').map((f) => f.frame),
          [],
          'no restitution finding where e = 0',
        );
        verdicts.push(inj.map((f) => `${f.frame} ${f.mechanism} ${f.joules.toPrecision(6)}`));
        // a fixed-iteration engine's label is named as a label (header solver.kind), never as a convergence claim
        const solveText = inj.find((f) => f.mechanism === 'non-converged-solve')?.explanation;
        if (solveText && header.solver?.kind === 'iterative-fixed')
          assert.match(solveText, /declares a fixed iteration count .*the label is not a convergence test/);
      }
      assert.deepEqual(verdicts[0], verdicts[1], 'the verdict does not follow the status label');
    });
  }

  it('bullet: the Baumgarte (ERP) part is named — the experiment: ERP 0 removes every rising frame', async () => {
    const { header, frames } = await load('bullet', 'stack');
    const { findings } = run(header, frames);
    const joules = new Map<string, number>();
    for (const f of findings.filter((x) => x.kind === 'injection')) joules.set(f.mechanism, (joules.get(f.mechanism) ?? 0) + f.joules);
    const ranked = [...joules].sort((a, b) => b[1] - a[1]);
    assert.equal(ranked[0]?.[0], 'bias-injection', ranked.map(([m, j]) => `${m} ${j.toFixed(3)}`).join(', '));
  });

  it('the controlled re-runs: Jolt with 100 iterations and cannon-es without its position term lose the finding', async () => {
    const jolt = await load('jolt', 'stack', { iterations: 100 });
    const j = run(jolt.header, jolt.frames);
    assert.ok(
      j.findings.filter((f) => f.mechanism === 'non-converged-solve').length <= 2,
      `${j.findings.filter((f) => f.mechanism === 'non-converged-solve').length} solve findings at 100 iterations`,
    );
    const cannon = await load('cannon', 'stack', { stabilization: false });
    const c = run(cannon.header, cannon.frames);
    assert.deepEqual(
      c.findings.filter((f) => f.mechanism === 'bias-injection' || f.mechanism === 'overlap-push-out').map((f) => `${f.frame} ${f.mechanism}`),
      [],
    );
    // without its position term the stack sinks into itself and cannon-es's two contact points per contact (the
    // format holds one) no longer explain the angular velocity change: the recording is reported inconsistent
    const inconsistent = c.findings.find((f) => f.kind === 'inconsistent');
    assert.ok(inconsistent, 'inconsistent recording reported');
    assert.match(inconsistent.explanation, /angular part/);
  });
});

describe('diagnosis on real engines: engines that do not inject get no finding', function () {
  this.timeout(300_000);
  for (const [engine, scene] of [
    ['rapier', 'stack'],
    ['rapier', 'bounce'],
    ['rapier', 'slide'],
    ['jolt', 'bounce'],
    ['jolt', 'slide'],
  ] as const) {
    it(`${engine} ${scene}: no injection finding${engine === 'rapier' ? ' and no error finding' : ''}`, async () => {
      const { header, frames } = await load(engine, scene);
      const { findings, rising } = run(header, frames);
      assert.equal(rising.length, 0);
      assert.deepEqual(
        findings
          .filter((f) => f.kind === 'injection' || (engine === 'rapier' && f.severity === 'error'))
          .map((f) => `${f.frame} ${f.mechanism} ${f.joules.toExponential(2)}`),
        [],
      );
    });
  }
});

describe('diagnosis on real engines: the bounce and the slide', function () {
  this.timeout(300_000);
  it("Bullet's bounce returns 0.55·v with e = 0.5: the Baumgarte push on the impact overlap is found although no frame gains energy", async () => {
    const { header, frames } = await load('bullet', 'bounce');
    const { findings, rising } = run(header, frames);
    assert.equal(rising.length, 0);
    const first = frames.find((f) => f.contacts.length > 0)!.frame;
    const f = findings.find((x) => x.kind === 'injection');
    assert.ok(f && (f.mechanism === 'overlap-push-out' || f.mechanism === 'bias-injection'), findings.map((x) => x.mechanism).join(','));
    assert.equal(f.frame, first);
  });
  it("MuJoCo's soft-contact bounce is the spring giving back what it stored — never a restitution bug", async () => {
    const { header, frames } = await load('mujoco', 'bounce');
    const { findings } = run(header, frames);
    const inj = findings.filter((f) => f.kind === 'injection');
    assert.ok(inj.length > 0);
    const joules = (m: string) => inj.filter((f) => f.mechanism === m).reduce((a, f) => a + f.joules, 0);
    assert.ok(
      joules('bias-injection') + joules('overlap-push-out') > 0.9 * inj.reduce((a, f) => a + f.joules, 0),
      inj.map((f) => `${f.frame} ${f.mechanism}`).join(','),
    );
  });
});

describe('diagnosis on real engines: report and diagnose agree', function () {
  this.timeout(600_000);
  const cli = (args: string[]): string[] => {
    const out: string[] = [];
    const code = main(args, { out: (l) => out.push(l), err: () => {} });
    assert.ok(code === 0 || code === 1, `${args.join(' ')}: exit ${code}`);
    return out;
  };
  for (const engine of ['cannon', 'jolt', 'mujoco', 'bullet', 'rapier'] as const)
    it(`${engine} stack: \`report\` prints the joules per mechanism of \`diagnose\`'s findings (one computation)`, async () => {
      const file = await recordPeer(engine, 'stack', {});
      const report = JSON.parse(cli(['report', file, '--json'])[0]) as { injected: Record<string, number> };
      const summed: Record<string, number> = {};
      for (const l of cli(['diagnose', file, '--json'])) {
        const f = JSON.parse(l) as { kind: string; mechanism: string; joules: number };
        if (f.kind === 'injection') summed[f.mechanism] = (summed[f.mechanism] ?? 0) + f.joules;
      }
      assert.deepEqual(Object.keys(report.injected).sort(), Object.keys(summed).sort());
      for (const [m, j] of Object.entries(summed))
        assert.ok(Math.abs(report.injected[m] - j) <= 1e-12 * Math.max(1, j), `${m}: report ${report.injected[m]} vs diagnose ${j}`);
    });
});
