/**
 * The world step's PGS measures the exact KKT residual after sweeps 1, 2, 4, 8, … and the last one only
 * (pgs.ts ResidualSweeps 'doubling'; docs/physics.md "PGS"): same iterates as measuring every sweep, the
 * measured entries equal to the every-sweep curve, and the status decided on the exact KKT of the result.
 */
import assert from 'node:assert/strict';
import { assembleJacobians, assembleProblem } from '../../src/engine/assembly.js';
import { solvePgsMatrixFree } from '../../src/engine/solvers/matrixFree.js';
import { kkt } from '../../src/engine/kkt.js';
import { cornerStack } from './helpers.js';
import { frameFromWorld } from '../../src/format/worldRecording.js';
import { World } from '../../src/engine/world/world.js';
import { box, ground, scenario } from './world-helpers.js';

describe("PGS residual schedule 'doubling' (world step)", () => {
  it('measures after sweeps 0, 1, 2, 4, 8, 16 and the last, with the every-sweep values and the same λ', () => {
    const { bodies, contacts } = cornerStack(8);
    const k = assembleJacobians(bodies, contacts, { regularization: 0 });
    const opts = { solver: 'pgs' as const, maxIterations: 21, tolerance: 1e-14 };
    const every = solvePgsMatrixFree(k, opts);
    const sparse = solvePgsMatrixFree(assembleJacobians(bodies, contacts, { regularization: 0 }), opts, undefined, 0, undefined, 'doubling');
    assert.equal(every.iterations, 21);
    assert.equal(sparse.iterations, 21);
    assert.deepStrictEqual(Array.from(sparse.history.iterations ?? []), [0, 1, 2, 4, 8, 16, 21]);
    assert.equal(every.history.iterations, undefined, "'every' keeps the one-entry-per-sweep history");
    sparse.history.iterations!.forEach((it, j) => assert.equal(sparse.history.residual[j], every.history.residual[it], `sweep ${it}`));
    assert.deepStrictEqual(sparse.lambda, every.lambda);
    assert.equal(sparse.status.kind, every.status.kind);
    // the final entry is the exact KKT of the returned λ on A
    const p = assembleProblem(bodies, contacts, { regularization: 0 });
    const exact = kkt(p, sparse.lambda).maxRel;
    const last = sparse.history.residual[sparse.history.residual.length - 1];
    assert.ok(Math.abs(last - exact) <= 1e-9 * Math.max(1, exact), `${last} vs ${exact}`);
  });

  it('reports converged only at a measured sweep whose exact KKT meets the tolerance', () => {
    const { bodies, contacts } = cornerStack(3, 0); // frictionless: the PGS fixed point is the KKT point
    const opts = { solver: 'pgs' as const, maxIterations: 200, tolerance: 1e-6 };
    const every = solvePgsMatrixFree(assembleJacobians(bodies, contacts, { regularization: 0 }), opts);
    const sparse = solvePgsMatrixFree(assembleJacobians(bodies, contacts, { regularization: 0 }), opts, undefined, 0, undefined, 'doubling');
    assert.equal(every.status.kind, 'converged');
    assert.equal(sparse.status.kind, 'converged');
    const its = sparse.history.iterations!;
    assert.equal(its[its.length - 1], sparse.iterations);
    // converged at the first measured sweep at or after the every-sweep solve's (or at its fixed point)
    assert.ok(sparse.iterations >= every.iterations, `${sparse.iterations} ≥ ${every.iterations}`);
    assert.ok(sparse.history.residual[its.length - 1] <= 1e-6);
    assert.ok(sparse.kkt.maxRel <= 1e-6);
  });

  it("the world's large PGS island records the schedule, and its recording holds each measurement until the next", () => {
    // 12 stacked unit boxes: 48 contacts in one island, beyond PGS_MATRIX_FREE_FROM (matrix-free, the world's schedule)
    const boxes = Array.from({ length: 12 }, (_, k) => box(`b${k}`, [0.5, 0.5, 0.5], 1, [0.02 * (k % 3), 0, 0.5 + k]));
    const world = new World(scenario([ground(), ...boxes], { solver: { solver: 'pgs', maxIterations: 10, tolerance: 0 } }));
    world.step();
    const f = world.step();
    const isl = f.islands.find((s) => s.contacts.length > 32);
    assert.ok(isl?.matrixFree, `one matrix-free island (${f.islands.map((s) => s.contacts.length).join(', ')} contacts)`);
    const h = isl.result.history;
    assert.deepStrictEqual(Array.from(h.iterations ?? []), [0, 1, 2, 4, 8, 10]);
    const rec = frameFromWorld(world, f);
    assert.equal(rec.solver.iterations, 10);
    const held = [1, 2, 2, 4, 4, 4, 4, 8, 8, 10].map((it) => h.residual[h.iterations!.indexOf(it)]);
    assert.deepStrictEqual(rec.solver.residuals, held);
  });
});
