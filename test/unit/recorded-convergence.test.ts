/**
 * The recording holds one residual per solver iteration (docs/recording-format.md `residuals`), so the
 * convergence plot's x axis (residual k at iteration k + 1) is right: on every bundled example, including
 * the islands solved matrix-free (pyramid-20, box-pile-1000).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseSceneFile } from '../../src/format/scene.js';
import { World } from '../../src/engine/world/world.js';
import { frameFromWorld } from '../../src/format/worldRecording.js';

const EXAMPLES = resolve(__dirname, '..', '..', 'examples');
/** Each scenario steps until this many frames needed the solver (or its frame count runs out). */
const SOLVED_FRAMES = 4;

describe('recorded convergence: iterations and residuals agree', () => {
  for (const f of readdirSync(EXAMPLES)
    .filter((x) => x.endsWith('.scene.json'))
    .sort()) {
    it(`${f}: every frame's residuals.length equals its iterations`, function () {
      this.timeout(120000);
      const path = join(EXAMPLES, f);
      const { scenarios } = parseSceneFile(readFileSync(path, 'utf8'), path);
      let solvedFrames = 0;
      for (const s of scenarios) {
        const world = new World(s.desc);
        let solvedHere = 0;
        for (let k = 0; k < s.desc.frames && solvedHere < SOLVED_FRAMES; k++) {
          const rec = frameFromWorld(world, world.step());
          assert.equal(
            rec.solver.residuals?.length,
            rec.solver.iterations,
            `${s.desc.name} frame ${rec.frame}: ${rec.solver.iterations} iterations, ${rec.solver.residuals?.length} residuals`,
          );
          if ((rec.solver.iterations ?? 0) > 0) {
            solvedFrames++;
            solvedHere++;
          }
        }
      }
      assert.ok(solvedFrames > 0, 'no frame needed a solver iteration: the check would be vacuous');
    });
  }
});
