/** The matrix-free PGS performs exactly the dense PGS iteration, without forming A. */
import assert from 'node:assert/strict';
import { assembleJacobians, assembleProblem } from '../../src/engine/assembly.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { solvePgsMatrixFree } from '../../src/engine/solvers/matrixFree.js';
import { runPgs } from '../../src/engine/solvers/pgs.js';
import { matrixFreeRows } from '../../src/engine/solvers/pgsRows.js';
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

  it('gives the same result with its reused working arrays as with new ones, after a larger island with other static sides', () => {
    // island 1: an 8-box stack on the ground (body 0, static, always body b); island 2: a 3-box stack whose
    // contacts name their bodies the other way round (the ground is body a: n, t2 negated), so each contact's
    // static side moves to where island 1 had a dynamic one in the same entries of the reused arrays
    const big = cornerStack(8);
    const small = cornerStack(3, 0.4);
    const swapped = small.contacts.map((c) => ({
      ...c,
      bodyA: c.bodyB,
      bodyB: c.bodyA,
      normal: [-c.normal[0], -c.normal[1], -c.normal[2]] as const,
      t2: [-c.t2[0], -c.t2[1], -c.t2[2]] as const,
    }));
    const opts: PgsOptions = { solver: 'pgs', maxIterations: 25, tolerance: 1e-12 };
    const k2 = (): ReturnType<typeof assembleJacobians> => assembleJacobians(small.bodies, swapped, { regularization: 0 });
    const fresh = runPgs(matrixFreeRows(k2(), 0.02), opts, undefined, 'matrix-free', 'doubling');
    solvePgsMatrixFree(assembleJacobians(big.bodies, big.contacts, { regularization: 0 }), opts, undefined, 0.05, undefined, 'doubling');
    const reused = solvePgsMatrixFree(k2(), opts, undefined, 0.02, undefined, 'doubling');
    assert.deepStrictEqual(reused.lambda, fresh.lambda);
    assert.deepStrictEqual(reused.w, fresh.w);
    assert.equal(reused.w.length, 3 * swapped.length);
    assert.deepStrictEqual(reused.history, fresh.history);
    assert.deepStrictEqual(reused.kkt, fresh.kkt);
    assert.equal(reused.iterations, fresh.iterations);
    assert.deepStrictEqual(reused.status, fresh.status);
  });
});
