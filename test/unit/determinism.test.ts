/**
 * `check`'s "deterministic" expectation: the scenario run twice must not diverge; with mode "order" also not with
 * each step's contacts shuffled — PGS (order-dependent sweeps) fails it with the frame and size, the direct solvers
 * pass (their λ split over a face's coplanar corners depends on the order, the bodies' impulses do not).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { World } from '../../src/engine/world/world.js';
import { checkDeterminism } from '../../src/session/compare/determinism.js';

const stack = (solver: string, expectations: unknown[]): string =>
  JSON.stringify({
    scenarios: [
      {
        name: `stack-${solver}`,
        frames: 40,
        solver: { name: solver, ...(solver === 'pgs' ? { maxIterations: 20 } : {}) },
        bodies: [
          { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, static: true },
          ...[0, 1, 2].map((i) => ({ name: `box-${i}`, shape: { box: { halfExtents: [0.5, 0.5, 0.5] } }, mass: 1, position: [0, 0, 0.5 + i] })),
        ],
        expectations,
      },
    ],
  });

describe('determinism: the "deterministic" expectation of check', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'contact-lens-det-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('parses mode "repeat" and "order"; a missing or unknown mode is one line naming the field', () => {
    const ok = parseSceneFile(stack('pgs', [{ kind: 'deterministic', mode: 'order' }]), 's.scene.json');
    assert.deepEqual(ok.scenarios[0].expectations, [{ kind: 'deterministic', mode: 'order' }]);
    assert.throws(() => parseSceneFile(stack('pgs', [{ kind: 'deterministic' }]), 's.scene.json'), /expectations\[0\]\.mode: .*missing required field "mode"/);
    assert.throws(() => parseSceneFile(stack('pgs', [{ kind: 'deterministic', mode: true }]), 's.scene.json'), /expectations\[0\]\.mode/);
  });

  it('a shuffled world lists the same contacts in another order; without a seed nothing changes', () => {
    const desc = parseSceneFile(stack('ipm', []), 's.scene.json').scenarios[0].desc;
    const plain = new World(desc).step(),
      again = new World(desc).step(),
      shuffled = new World(desc, { contactOrderSeed: 7 }).step();
    const keys = (f: typeof plain): string[] => f.contacts.map((c) => `${c.contact.bodyA}/${c.contact.bodyB}/${c.contact.featureId}`);
    assert.deepEqual(keys(again), keys(plain));
    assert.notDeepEqual(keys(shuffled), keys(plain));
    assert.deepEqual([...keys(shuffled)].sort(), [...keys(plain)].sort());
  });

  it('PGS: deterministic when run twice, not with the contacts shuffled (first frame, solve, how much); IPM passes both', () => {
    const pgs = parseSceneFile(stack('pgs', []), 's.scene.json').scenarios[0].desc;
    const r = checkDeterminism(pgs, 'order');
    assert.equal(r.repeat.firstDivergence, null);
    const f = r.shuffled!.firstDivergence!;
    assert.equal(f.frame, 0);
    assert.equal(f.kind, 'solve');
    assert.ok(r.shuffled!.growth.at(-1)!.x > 1e-6, 'the stacks end apart');
    const ipm = parseSceneFile(stack('ipm', []), 's.scene.json').scenarios[0].desc;
    const s = checkDeterminism(ipm, 'order');
    assert.equal(s.repeat.firstDivergence, null);
    assert.equal(s.shuffled!.firstDivergence, null);
  });

  it('check: exit 1 with the first divergence in the message and --json frame; exit 0 when deterministic', async () => {
    const file = join(dir, 'pgs.scene.json');
    writeFileSync(
      file,
      stack('pgs', [
        { kind: 'deterministic', mode: 'repeat' },
        { kind: 'deterministic', mode: 'order' },
      ]),
    );
    const out: string[] = [];
    const code = await main(['check', file, '--json'], { out: (l) => out.push(l), err: () => undefined });
    assert.equal(code, 1);
    const r = JSON.parse(out[0]) as { expectations: { ok: boolean; message: string; frame?: number }[] };
    assert.equal(r.expectations[0].ok, true);
    assert.match(r.expectations[0].message, /^run twice: no divergence in 40 frames$/);
    assert.equal(r.expectations[1].ok, false);
    assert.equal(r.expectations[1].frame, 0);
    assert.match(
      r.expectations[1].message,
      /^with the contacts shuffled: parts at frame 0 \(t = 0\.01667 s\): solve — lambda differs on \d+ contacts \(largest .* of its scale\); by frame 39 the states differ by .* m, .* m\/s$/,
    );
    const ipm = join(dir, 'ipm.scene.json');
    writeFileSync(ipm, stack('ipm', [{ kind: 'deterministic', mode: 'order' }]));
    assert.equal(await main(['check', ipm], { out: () => undefined, err: () => undefined }), 0);
  });
});
