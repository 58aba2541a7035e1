/**
 * The scenes of bench:solvers (bench/scenes.ts: a box on the ground, stacks of 3 and 12, a 50-box grid with
 * sliding contacts) are solved exactly by IPM and Newton: KKT max_rel ≤ 1e-10, status converged.
 */
import assert from 'node:assert/strict';
import { benchScenes } from '../../bench/scenes.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { kkt } from '../../src/engine/kkt.js';

describe("bench:solvers' scenes, exact solvers", () => {
  for (const scene of benchScenes())
    for (const solver of ['ipm', 'newton'] as const)
      it(`${solver} converges on ${scene.name} to KKT ≤ 1e-10 (checked independently)`, () => {
        const r = solve(scene.problem, { solver });
        assert.equal(r.status.kind, 'converged', `${scene.name} ${solver}: ${JSON.stringify(r.status)}`);
        const check = kkt(scene.problem, r.lambda);
        assert.ok(check.maxRel <= 1e-10, `${scene.name} ${solver}: KKT max_rel ${check.maxRel}`);
      });
});
