/**
 * The De Saxcé fixed point (coulombFixedPoint.ts), the exact Coulomb solver's last resort, on a problem nobody here
 * shaped: a Coulomb re-solve of the diagnosis of the 1000-box pile's recording (examples/box-pile-1000), an island
 * of 11 contacts where the hybrid of Gauss–Seidel and proximal Newton stalled from the diagnosis' De Saxcé steps.
 * Fixture: test/fixtures/islands/box-pile-1000-coulomb-fixed-point.json.gz (A, b, μ and the λ the re-solve started
 * from).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { makeProblem } from '../../src/engine/problem.js';
import { coulombMerit } from '../../src/engine/coulombMerit.js';
import { solveCoulomb, solveCoulombBlocks } from '../../src/engine/solvers/coulomb.js';
import { blockRowsFromDense } from '../../src/engine/math/blockRows.js';
import { solveCoulombFixedPoint } from '../../src/engine/solvers/coulombFixedPoint.js';
import { solveIpm } from '../../src/engine/solvers/ipm.js';
import { COUNTERFACTUAL_TOLERANCE } from '../../src/session/counterfactual.js';

interface ProblemFixture {
  readonly A: number[];
  readonly b: number[];
  readonly mu: number[];
  readonly start: number[];
}

const FIXTURE = resolve(__dirname, '..', 'fixtures', 'islands', 'box-pile-1000-coulomb-fixed-point.json.gz');
const f = JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as ProblemFixture;
const p = makeProblem({ A: Float64Array.from(f.A), b: Float64Array.from(f.b), mu: Float64Array.from(f.mu) });
const start = Float64Array.from(f.start);
const tol = COUNTERFACTUAL_TOLERANCE;

/** The plain iteration, every interior-point solve from its own point: the interior-point iterations it takes. */
function coldFixedPointIterations(steps: number): number {
  const C = p.contactCount;
  const shifted = Float64Array.from(p.b);
  let lambda: Float64Array = start,
    total = 0;
  for (let k = 0; k < steps; k++) {
    const u = new Float64Array(p.size);
    for (let i = 0; i < p.size; i++) {
      let s = -p.b[i];
      for (let j = 0; j < p.size; j++) s += p.A[i * p.size + j] * lambda[j];
      u[i] = s;
    }
    for (let c = 0; c < C; c++) shifted[3 * c] = p.b[3 * c] - p.mu[c] * Math.hypot(u[3 * c + 1], u[3 * c + 2]);
    const out = solveIpm({ ...p, b: shifted }, { solver: 'ipm' });
    total += out.iterations;
    lambda = out.lambda;
  }
  return total;
}

describe('the De Saxcé fixed point on an island of the 1000-box pile', () => {
  it('the exact Coulomb solver needs its last resort there: the hybrid alone stops above the tolerance', () => {
    // no last resort given: the hybrid with the whole budget
    const hybridOnly = solveCoulombBlocks(blockRowsFromDense(p.A, p.contactCount), p.b, p.mu, { solver: 'coulomb', tolerance: tol }, start, null);
    assert.notEqual(hybridOnly.status.kind, 'converged', 'the fixture no longer exercises the fixed point');
    const full = solveCoulomb(p, { solver: 'coulomb', tolerance: tol }, start);
    assert.equal(full.status.kind, 'converged');
    assert.ok(coulombMerit(p, full.lambda) <= tol);
  });

  it('converges with its later interior-point solves started from the previous λ, in fewer interior-point iterations than from their own point', () => {
    const out = solveCoulombFixedPoint(p, 100, tol, start);
    assert.equal(out.status.kind, 'converged', out.status.kind === 'converged' ? '' : out.status.reason);
    assert.ok(coulombMerit(p, out.lambda) <= tol);
    const solves = out.interiorPointSolves;
    assert.ok(solves >= 10, `${solves} interior-point solves: the fixture should need many fixed-point steps`);
    // the same number of plain fixed-point steps, each interior point from its own point (measured when the warm
    // start came in: 256 interior-point iterations in 28 solves against 395 from their own points)
    const cold = coldFixedPointIterations(solves);
    assert.ok(out.interiorPointIterations < 0.8 * cold, `${out.interiorPointIterations} interior-point iterations, ${cold} from their own points`);
  });
});
