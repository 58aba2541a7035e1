/** The matrix-free PGS performs exactly the dense PGS iteration, without forming A. */
import assert from 'node:assert/strict';
import { assembleBlocks, assembleProblem } from '../../src/engine/assembly.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { solvePgsBlocks } from '../../src/engine/solvers/pgsBlocks.js';
import { kkt } from '../../src/engine/kkt.js';
import { body, contact, staticBody } from './helpers.js';
import type { ContactPoint } from '../../src/engine/problem.js';

function stack(levels: number): { bodies: ReturnType<typeof body>[]; contacts: ContactPoint[] } {
  const bodies = [staticBody()];
  const contacts: ContactPoint[] = [];
  for (let k = 0; k < levels; k++) {
    bodies.push(body(1 + k, (1 + k) / 6, [0.01 * k, 0, 0.5 + k], [0.05 * (k % 2), 0, -0.2]));
    for (const [x, y] of [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) contacts.push(contact(k + 1, k, [x + 0.01 * k, y, k], [0, 0, 1], 0.5, 0, 0.001 * (k % 3)));
  }
  return { bodies, contacts };
}

describe('matrix-free PGS (sequential impulses)', () => {
  for (const friction of ['coulomb-disk', 'cone'] as const) {
    it(`gives the same iterates as the dense PGS (${friction}) on a 6-box stack`, () => {
      const { bodies, contacts } = stack(6);
      const p = assembleProblem(bodies, contacts, { regularization: 0 });
      const k = assembleBlocks(bodies, contacts, { regularization: 0 });
      for (const maxIterations of [1, 7, 40]) { // (the dense PGS checks every sweep, the matrix-free one every 8: same iterates)
        const dense = solve(p, { solver: 'pgs', friction, maxIterations, tolerance: 0 });
        const free = solvePgsBlocks(k, { solver: 'pgs', friction, maxIterations, tolerance: 0 });
        let d = 0;
        for (let i = 0; i < p.size; i++) d = Math.max(d, Math.abs(dense.lambda[i] - free.lambda[i]));
        assert.ok(d <= 1e-12 * Math.max(1, ...Array.from(dense.lambda, Math.abs)), `max |Δλ| ${d} after ${maxIterations} sweeps`);
        assert.equal(free.iterations, dense.iterations);
        const kd = kkt(p, free.lambda);
        const last = free.history.residual[free.history.residual.length - 1];
        assert.ok(Math.abs(kd.maxRel - last) <= 1e-9 * Math.max(1, kd.maxRel), `matrix-free KKT ${last} vs dense ${kd.maxRel}`);
      }
    });
  }
});
