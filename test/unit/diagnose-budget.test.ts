/**
 * The exact re-solve budget is counted in work units (counterfactual.ts resolveWork), not milliseconds: the
 * same recording gets the same findings on any machine and under any load — a CI check must not flicker.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseSceneFile } from '../../src/format/scene.js';
import { World } from '../../src/engine/world/world.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import type { RecordedFrame } from '../../src/format/recording.js';
import { Diagnoser, type DiagnosisOptions } from '../../src/session/diagnose.js';
import { resolveWork, RESOLVE_ITERATION_OVERHEAD } from '../../src/session/counterfactual.js';

const ROOT = resolve(__dirname, '..', '..');
const s = parseSceneFile(readFileSync(join(ROOT, 'examples', 'fault-pgs-too-few-iterations.scene.json'), 'utf8'), 'stack').scenarios[0];
const world = new World(s.desc);
const e0 = world.energy();
const header = headerFromWorld(world);
const frames: RecordedFrame[] = [];
for (let k = 0; k < 120; k++) frames.push(frameFromWorld(world, world.step()));

function run(opt: Partial<DiagnosisOptions>): Diagnoser {
  const d = new Diagnoser(header, opt, e0.kineticLinear + e0.kineticRotational + e0.potential);
  for (const f of frames) d.add(f);
  return d;
}
/** Findings without the machine-dependent milliseconds. */
const stable = (d: Diagnoser): string => JSON.stringify(d.findings, (k, v) => (k === 'timeMs' ? undefined : v));

describe('exact re-solve budget in work units', () => {
  it('an island of C contacts solved in k iterations costs (k + 1)((3C)² + the per-iteration overhead) units', () => {
    assert.equal(resolveWork(40, 9), 10 * (120 * 120 + RESOLVE_ITERATION_OVERHEAD));
    // a 4-contact island's iteration is not 100× cheaper than a 40-contact one's: bench/resolveCost.ts prints the CPU ns per
    // unit by island size, flat (35–66 ns) with the overhead, 35–150 ns with (3C)² alone
    assert.ok(resolveWork(40, 0) / resolveWork(4, 0) < 30, `${resolveWork(40, 0) / resolveWork(4, 0)}`);
  });
  it('a small total budget stops the re-solves at a frame that does not depend on time; the rest rests on the ledger', () => {
    const full = run({ counterfactualTotalWork: Number.POSITIVE_INFINITY, counterfactualFrameWork: Number.POSITIVE_INFINITY });
    assert.ok(full.cost.islands > 10, `re-solved ${full.cost.islands} islands`);
    assert.equal(full.cost.exhaustedAt, null);
    const budget = full.cost.work / 4;
    const a = run({ counterfactualTotalWork: budget }),
      b = run({ counterfactualTotalWork: budget });
    assert.ok(a.cost.exhaustedAt !== null && a.cost.exhaustedAt > frames[0].frame, `exhausted at ${a.cost.exhaustedAt}`);
    assert.equal(b.cost.exhaustedAt, a.cost.exhaustedAt);
    assert.equal(b.cost.work, a.cost.work);
    assert.ok(a.cost.islands < full.cost.islands);
    assert.equal(stable(b), stable(a));
    // before the budget ran out the findings are those of the unlimited run; after it, only the ledger's
    // evidence remains (a truncated solve's share needs the exact re-solve), and the findings say so
    const framesOf = (d: Diagnoser, upTo = Infinity): number[] => [
      ...new Set(d.findings.filter((f) => f.kind === 'injection' && f.frame < upTo).map((f) => f.frame)),
    ];
    const cut = a.cost.exhaustedAt!;
    assert.deepEqual(framesOf(a, cut), framesOf(full, cut));
    const late = a.findings.find((f) => f.frame > a.cost.exhaustedAt! && f.counterfactual?.skipped.length);
    assert.ok(late, 'a finding after the budget ran out says why it was not re-solved');
    assert.match(late.counterfactual!.skipped.join(' '), /re-solve budget is used up/);
  });
});
