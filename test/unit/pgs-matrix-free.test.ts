/** The matrix-free PGS performs exactly the dense PGS iteration, without forming A. */
import assert from 'node:assert/strict';
import { assembleJacobians, assembleProblem } from '../../src/engine/assembly.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { solvePgsMatrixFree } from '../../src/engine/solvers/matrixFree.js';
import { kkt } from '../../src/engine/kkt.js';
import { cornerStack } from './helpers.js';
import type { ContactProblem } from '../../src/engine/problem.js';
import type { PgsOptions } from '../../src/engine/solvers/types.js';

/** Constraint softening as the world applies it to the dense A: γ on each normal diagonal (docs/physics.md). */
function softened(p: ContactProblem, gamma: number): ContactProblem {
  const A = Float64Array.from(p.A);
  for (let c = 0; c < p.contactCount; c++) A[3 * c * p.size + 3 * c] += gamma;
  return { ...p, A };
}

interface Variant {
  readonly name: string;
  readonly mu?: number;
  readonly opts?: Partial<PgsOptions>;
  readonly warm?: boolean;
  readonly softening?: number;
}
const VARIANTS: readonly Variant[] = [
  { name: 'plain' },
  { name: 'μ = 0', mu: 0 },
  { name: 'warm start × 0.9', warm: true, opts: { warmStartFactor: 0.9 } },
  { name: 'softening γ = 0.05', softening: 0.05 },
  { name: 'diagonal scaling', opts: { diagonalScaling: true } },
  { name: 'regularisation ε = 1e-3', opts: { regularization: 1e-3 } },
];

/** A plausible warm start (the dense solution after 30 sweeps, perturbed so the projection matters). */
function warmStartFor(p: ContactProblem, friction: PgsOptions['friction']): Float64Array {
  const w = solve(p, { solver: 'pgs', friction, maxIterations: 30, tolerance: 0 }).lambda;
  return w.map((x, i) => x * (1 + 0.3 * Math.sin(i)) + (i % 3 === 1 ? 0.05 : 0));
}

describe('matrix-free PGS (sequential impulses)', () => {
  for (const friction of ['coulomb-disk', 'cone'] as const) {
    for (const v of VARIANTS) {
      it(`gives the same iterates and status as the dense PGS (${friction}, ${v.name}) on a 6-box stack`, () => {
        const { bodies, contacts } = cornerStack(6, v.mu ?? 0.5);
        const gamma = v.softening ?? 0;
        const p = softened(assembleProblem(bodies, contacts, { regularization: 0 }), gamma);
        const k = assembleJacobians(bodies, contacts, { regularization: 0 });
        const warm = v.warm ? warmStartFor(p, friction) : undefined;
        for (const maxIterations of [1, 7, 40]) {
          const opts: PgsOptions = { solver: 'pgs', friction, maxIterations, tolerance: 0, ...v.opts };
          const dense = solve(p, opts, warm);
          const free = solvePgsMatrixFree(k, opts, warm, gamma);
          let d = 0;
          for (let i = 0; i < p.size; i++) d = Math.max(d, Math.abs(dense.lambda[i] - free.lambda[i]));
          assert.ok(d <= 1e-12 * Math.max(1, ...Array.from(dense.lambda, Math.abs)), `max |Δλ| ${d} after ${maxIterations} sweeps`);
          assert.equal(free.iterations, dense.iterations);
          assert.equal(free.status.kind, dense.status.kind);
          const kd = kkt(p, free.lambda);
          const last = free.history.residual[free.history.residual.length - 1];
          assert.ok(Math.abs(kd.maxRel - last) <= 1e-9 * Math.max(1, kd.maxRel), `matrix-free KKT ${last} vs dense ${kd.maxRel}`);
          // every sweep's residual, in both storages: history[k] after k sweeps
          assert.equal(free.history.residual.length, free.iterations + 1);
          assert.equal(dense.history.residual.length, dense.iterations + 1);
          free.history.residual.forEach((r, j) => {
            const e = dense.history.residual[j];
            assert.ok(Math.abs(r - e) <= 1e-9 * Math.max(1, e), `residual after ${j} sweeps: matrix-free ${r} vs dense ${e}`);
          });
        }
      });
    }
  }
});
