/**
 * One source of truth for the solver names (src/engine/solvers/types.ts): the protocol's copy, the scene
 * parser, package.json's setting enum and the scene schema all list exactly these names.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SOLVER_NAMES } from '../../src/engine/solvers/types.js';
import { SOLVER_NAMES as PROTOCOL_SOLVER_NAMES } from '../../src/protocol/inspector.js';
import { parseSceneFile } from '../../src/format/scene.js';

const ROOT = resolve(__dirname, '..', '..');
const json = (file: string): Record<string, unknown> => JSON.parse(readFileSync(resolve(ROOT, file), 'utf8'));

/** A one-ball scene whose solver block is `solver`. */
function sceneWith(solver: string): string {
  return JSON.stringify({
    scenarios: [
      {
        name: 's',
        frames: 1,
        solver: { name: solver },
        bodies: [
          { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, static: true },
          { name: 'ball', shape: { sphere: { radius: 0.1 } }, mass: 1, position: [0, 0, 0.1] },
        ],
      },
    ],
  });
}

describe('solver names: one source of truth', () => {
  it('the protocol lists the engine names in the same order', () => {
    assert.deepEqual([...PROTOCOL_SOLVER_NAMES], [...SOLVER_NAMES]);
  });

  it("package.json's contactLens.solver.default enum is 'scenario' plus the engine names", () => {
    const config = (json('package.json').contributes as { configuration: { properties: Record<string, { enum?: string[] }> } }).configuration;
    assert.deepEqual(config.properties['contactLens.solver.default'].enum, ['scenario', ...SOLVER_NAMES]);
  });

  it('the scene schema has one solver variant per engine name', () => {
    const solver = (json('schemas/scene.schema.json').definitions as Record<string, { oneOf: { title: string; properties: { name: { const: string } } }[] }>)
      .solver;
    assert.deepEqual(
      solver.oneOf.map((v) => v.properties.name.const),
      [...SOLVER_NAMES],
    );
    assert.deepEqual(
      solver.oneOf.map((v) => v.title),
      [...SOLVER_NAMES],
    );
  });

  it('the scene parser accepts every engine name and rejects another', () => {
    for (const name of SOLVER_NAMES) assert.equal(parseSceneFile(sceneWith(name), 's.scene.json').scenarios[0].desc.config.solver.solver, name);
    assert.throws(() => parseSceneFile(sceneWith('jacobi'), 's.scene.json'), /solver/);
  });
});
