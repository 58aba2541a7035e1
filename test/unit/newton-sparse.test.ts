/** The sparse semismooth Newton (naturalMapSparse.ts, newtonSparse.ts) and the sparse IPM's polish: the dense answers without the dense A. */
import assert from 'node:assert/strict';
import { assembleJacobians, assembleProblem, denseProblem } from '../../src/engine/assembly.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { solveNewtonSparse } from '../../src/engine/solvers/newtonSparse.js';
import { LOCAL_START_MAX_REL, NEWTON_DEFAULTS } from '../../src/engine/solvers/newton.js';
import { solveIpmSparse } from '../../src/engine/solvers/ipmSparse.js';
import { SparseNaturalMap } from '../../src/engine/solvers/naturalMapSparse.js';
import { naturalMapJacobian, polishDirection, PolishWorkspace } from '../../src/engine/solvers/polish.js';
import { kkt, KktWorkspace, kktInto } from '../../src/engine/kkt.js';
import { symmetricEigen3 } from '../../src/engine/math/symmetricEigen3.js';
import { coneProjectionJacobian } from '../../src/engine/cone.js';
import {
  assemblyOptions,
  DENSE_ISLAND_LIMIT,
  EXACT_DENSE_ISLAND_LIMIT,
  PGS_MATRIX_FREE_FROM,
  solveIsland,
  useMatrixFree,
} from '../../src/engine/island/solveIsland.js';
import { boxPyramid, relDiff, rng, speculativePile, sphereColumn } from './island-builders.js';
import { baseConfig } from './world-helpers.js';

describe('symmetric 3×3 eigendecomposition (Jacobi)', () => {
  it('reconstructs the cone projection Jacobian Π′ = U Θ Uᵀ with orthonormal U and θ in [0, 1]', () => {
    const r = rng(11);
    const P = new Float64Array(9),
      th = new Float64Array(3),
      U = new Float64Array(9);
    for (let t = 0; t < 300; t++) {
      coneProjectionJacobian(r(), r(), t % 5 === 0 ? 0 : r(), 0.1 + Math.abs(r()), P, 0);
      symmetricEigen3(P, 0, th, 0, U, 0);
      for (let i = 0; i < 3; i++) {
        assert.ok(th[i] >= -1e-14 && th[i] <= 1 + 1e-14, `θ = ${th[i]}`);
        for (let j = 0; j < 3; j++) {
          let rec = 0,
            orth = 0;
          for (let k = 0; k < 3; k++) {
            rec += U[3 * i + k] * th[k] * U[3 * j + k];
            orth += U[3 * k + i] * U[3 * k + j];
          }
          assert.ok(Math.abs(rec - P[3 * i + j]) < 1e-14, `Π′ entry ${i}${j}`);
          assert.ok(Math.abs(orth - (i === j ? 1 : 0)) < 1e-14, `UᵀU entry ${i}${j}`);
        }
      }
    }
  });
});

describe('sparse semismooth Newton (no dense A)', () => {
  it('its plain Newton direction equals the dense polish direction (J)Δ = −F on a 6-sphere column', () => {
    const { bodies, contacts } = sphereColumn(6, 0.6, 7);
    const p = assembleProblem(bodies, contacts);
    const n = p.size;
    const ref = solve(p, { solver: 'ipm' });
    const lam = ref.lambda.map((x, i) => x * (1 + 0.05 * Math.sin(i)));
    const nm = new SparseNaturalMap(assembleJacobians(bodies, contacts));
    assert.ok(nm.direction(lam));
    const pw = new PolishWorkspace(n, p.contactCount);
    const ws = new KktWorkspace(n);
    for (let c = 0; c < p.contactCount; c++) {
      const o = 3 * c;
      pw.rho[c] = 1 / Math.max(p.A[o * n + o], p.A[(o + 1) * n + o + 1], p.A[(o + 2) * n + o + 2]);
    }
    kktInto(p, lam, ws);
    naturalMapJacobian(p, lam, ws.w, pw);
    assert.ok(polishDirection(n, pw, 1));
    assert.ok(relDiff(nm.dl, pw.dl) < 1e-8, `directions differ by ${relDiff(nm.dl, pw.dl)}`);
  });

  for (const [name, build] of [
    ['40-sphere column, μ = 0.6', () => sphereColumn(40, 0.6, 7)],
    ['40-sphere column, μ = 0', () => sphereColumn(40, 0, 7)],
    ['box pyramid of 144 contacts', () => boxPyramid(6, 0.5)],
    ['speculative pile of 140 contacts (seed 1)', () => speculativePile(5, 1)],
    ['speculative pile of 140 contacts (seed 3)', () => speculativePile(5, 3)],
  ] as const) {
    it(`agrees with the dense Newton on a ${name} (f and w to 1e-8, KKT ≤ 1e-10 by the dense checker)`, () => {
      const { bodies, contacts } = build();
      assert.ok(contacts.length <= DENSE_ISLAND_LIMIT);
      const p = assembleProblem(bodies, contacts);
      const dense = solve(p, { solver: 'newton' });
      const sparse = solveNewtonSparse(assembleJacobians(bodies, contacts), { solver: 'newton' });
      assert.equal(dense.status.kind, 'converged');
      assert.equal(sparse.status.kind, 'converged', JSON.stringify(sparse.status));
      const independent = kkt(p, sparse.lambda).maxRel;
      assert.ok(independent <= 1e-10, `dense checker: KKT max_rel ${independent}`);
      // λ of coplanar contacts is not unique: compare the optimum's f and w = Aλ − b
      assert.ok(Math.abs(sparse.objective - dense.objective) <= 1e-8 * Math.abs(dense.objective), `${sparse.objective} vs ${dense.objective}`);
      assert.ok(relDiff(sparse.w, dense.w) < 1e-6 || Math.max(...sparse.w.map(Math.abs)) < 1e-9, `w differs by ${relDiff(sparse.w, dense.w)}`);
      if (name.startsWith('40-sphere'))
        assert.ok(relDiff(sparse.lambda, dense.lambda) < 1e-8, `λ differs by ${relDiff(sparse.lambda, dense.lambda)} (unique λ)`);
    });
  }

  it('converges warm-started from a perturbed solution of a 900-contact pyramid in the local phase', () => {
    const { bodies, contacts } = boxPyramid(15, 0.5);
    const k = assembleJacobians(bodies, contacts);
    const cold = solveNewtonSparse(k, { solver: 'newton' });
    assert.equal(cold.status.kind, 'converged');
    const warm = solveNewtonSparse(
      k,
      { solver: 'newton' },
      0,
      cold.lambda.map((x) => 1.01 * x),
    );
    assert.equal(warm.status.kind, 'converged', JSON.stringify(warm.status));
    assert.equal(warm.ipmIterations, -1, 'no interior-point phase');
    assert.ok(warm.iterations <= 3, `${warm.iterations} iterations`);
  });

  it('skips the local phase from a warm start far off (KKT max_rel > LOCAL_START_MAX_REL) and starts its interior point there', () => {
    const { bodies, contacts } = boxPyramid(15, 0.5);
    const k = assembleJacobians(bodies, contacts);
    const cold = solveNewtonSparse(k, { solver: 'newton' });
    // every λ doubled: the warm start's relative KKT residual is of order 1 (measured below)
    const far = cold.lambda.map((x) => 2 * x);
    const nm = new SparseNaturalMap(k);
    assert.ok(nm.merit(far.slice()) > LOCAL_START_MAX_REL, `start max_rel ${nm.merit(far.slice())}`);
    const warm = solveNewtonSparse(k, { solver: 'newton' }, 0, far);
    assert.equal(warm.status.kind, 'converged', JSON.stringify(warm.status));
    assert.equal(warm.localSteps, 0, 'no local Newton step');
    // the sparse interior point warm-started from the same λ: the same iterations and λ
    const opts = { solver: 'ipm', tolerance: NEWTON_DEFAULTS.tolerance, maxIterations: NEWTON_DEFAULTS.maxIterations } as const;
    const ipm = solveIpmSparse(k, opts, 0, 'krylov', undefined, far);
    assert.equal(warm.ipmIterations, ipm.iterations);
    assert.deepEqual(Array.from(warm.lambda), Array.from(ipm.lambda));
    const own = solveIpmSparse(k, opts, 0, 'krylov');
    assert.notDeepEqual(Array.from(warm.lambda), Array.from(own.lambda), 'not the interior point from its own start');
  });

  it('reports its status honestly: a budget of 1 iteration on a speculative pile is not "converged"', () => {
    const { bodies, contacts } = speculativePile(8, 1);
    const out = solveNewtonSparse(assembleJacobians(bodies, contacts), { solver: 'newton', maxIterations: 1 });
    assert.notEqual(out.status.kind, 'converged');
    assert.ok(out.kkt.maxRel > 1e-10);
    assert.ok(out.iterations <= 1);
  });
});

describe('newton islands above the dense limit', () => {
  it('solveIsland solves a 368-contact speculative pile with newton itself: status converged, solver newton, KKT ≤ 1e-10', () => {
    const { bodies, contacts } = speculativePile(8, 1);
    assert.ok(contacts.length > DENSE_ISLAND_LIMIT);
    const cfg = baseConfig({ solver: { solver: 'newton' } });
    const dv = new Float64Array(6 * bodies.length);
    const out = solveIsland(bodies, contacts, [...contacts.keys()], cfg, undefined, dv);
    assert.equal(out.solve.result.solver, 'newton');
    assert.equal(out.solve.result.status.kind, 'converged', JSON.stringify(out.solve.result.status));
    assert.ok(out.solve.result.kkt.maxRel <= 1e-10);
    assert.ok(!JSON.stringify(out.solve.result.status).includes('instead of'));
  });
});

describe("the exact solvers' own dense limit", () => {
  it('ipm islands above EXACT_DENSE_ISLAND_LIMIT contacts skip the dense A; PGS, newton and coulomb keep their limits', () => {
    assert.ok(EXACT_DENSE_ISLAND_LIMIT < PGS_MATRIX_FREE_FROM && PGS_MATRIX_FREE_FROM < DENSE_ISLAND_LIMIT);
    const ipm = baseConfig({ solver: { solver: 'ipm' } });
    assert.equal(useMatrixFree(ipm, EXACT_DENSE_ISLAND_LIMIT), false);
    assert.equal(useMatrixFree(ipm, EXACT_DENSE_ISLAND_LIMIT + 1), true);
    const newton = baseConfig({ solver: { solver: 'newton' } });
    assert.equal(useMatrixFree(newton, DENSE_ISLAND_LIMIT), false);
    assert.equal(useMatrixFree(newton, DENSE_ISLAND_LIMIT + 1), true);
    const pgs = baseConfig({ solver: { solver: 'pgs' } });
    assert.equal(useMatrixFree(pgs, PGS_MATRIX_FREE_FROM), false);
    assert.equal(useMatrixFree(pgs, PGS_MATRIX_FREE_FROM + 1), true);
    const coulomb = baseConfig({ solver: { solver: 'coulomb' } });
    assert.equal(useMatrixFree(coulomb, DENSE_ISLAND_LIMIT), false);
    assert.equal(useMatrixFree(coulomb, DENSE_ISLAND_LIMIT + 1), true);
  });

  for (const solver of ['ipm'] as const) {
    it(`solveIsland solves a 140-contact speculative pile with ${solver} sparse: converged, KKT ≤ 1e-10 by the dense checker, w and f as the dense solve's to 1e-8`, () => {
      const { bodies, contacts } = speculativePile(5, 1);
      assert.ok(contacts.length > EXACT_DENSE_ISLAND_LIMIT && contacts.length <= DENSE_ISLAND_LIMIT);
      const cfg = baseConfig({ solver: { solver } });
      const out = solveIsland(bodies, contacts, [...contacts.keys()], cfg, undefined, new Float64Array(6 * bodies.length));
      assert.equal(out.solve.matrixFree, true);
      assert.equal(out.solve.result.solver, solver);
      assert.equal(out.solve.result.status.kind, 'converged', JSON.stringify(out.solve.result.status));
      // the dense problem of the same assembly (softening 0 in baseConfig)
      const k = assembleJacobians(bodies, contacts, assemblyOptions(cfg));
      const p = denseProblem(k, k.regularization);
      assert.ok(kkt(p, out.lambda).maxRel <= 1e-10, `dense checker: KKT max_rel ${kkt(p, out.lambda).maxRel}`);
      const dense = solve(p, { solver });
      // λ of coplanar contacts is not unique: compare the optimum's w = Aλ − b and f
      assert.ok(relDiff(out.solve.result.w, dense.w) < 1e-8, `w differs by ${relDiff(out.solve.result.w, dense.w)}`);
      const df = Math.abs(out.solve.result.objective - dense.objective) / Math.max(1, Math.abs(dense.objective));
      assert.ok(df < 1e-8, `f differs by ${df}`);
    });
  }
});

describe('sparse interior point: natural-map polish', () => {
  it('lifts the floor of speculative pile seed 3 (204 contacts): the interior point alone stalled at 2.26e-10, polished it converges ≤ 1e-10', () => {
    const { bodies, contacts } = speculativePile(6, 3);
    const k = assembleJacobians(bodies, contacts);
    const ipmOnly = solveIpmSparse(k, { solver: 'ipm' }); // polishSteps ≥ 1: its interior-point phase ended above 1e-10
    assert.equal(ipmOnly.status.kind, 'converged', JSON.stringify(ipmOnly.status));
    assert.ok(ipmOnly.polishSteps >= 1, 'the polish ran');
    assert.ok(ipmOnly.kkt.maxRel <= 1e-10, `KKT max_rel ${ipmOnly.kkt.maxRel}`);
    assert.ok(kkt(assembleProblem(bodies, contacts), ipmOnly.lambda).maxRel <= 1e-10, 'dense checker agrees');
  });
});
