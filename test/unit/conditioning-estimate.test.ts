import assert from 'node:assert/strict';
import { conditioning } from '../../src/engine/conditioning.js';
import { conditioningEstimate, ESTIMATE_MIN_ROWS, LAMBDA_MAX_STEPS, LAMBDA_MAX_TOLERANCE } from '../../src/session/conditioningEstimate.js';
import { lanczosExtremes } from '../../src/engine/math/eigen.js';

/** The assembler's default regularisation ε (ASSEMBLY_REGULARIZATION, docs/physics.md "Contact model"). */
const EPS = 1e-10;

/** A = J Jᵀ + εI with J n × m (rank min(n, m)), entries from a fixed LCG and spread over one decade. */
function gram(n: number, m: number, seed: number): Float64Array {
  let s = seed;
  const rand = (): number => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5;
  const J = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    // rows of unequal stiffness (one decade, as a mass ratio gives), λmax ≈ 1 as in a box pile: the rounding
    // term of the rank tolerance stays below ε (conditioning.ts RANK_TOLERANCE_RULE)
    const scale = 0.03 * 10 ** (i / n);
    for (let k = 0; k < m; k++) J[i * m + k] = scale * rand();
  }
  return gramPlusEps(J, n, m);
}

/** A = J Jᵀ + εI for the n × m row-major J. */
function gramPlusEps(J: Float64Array, n: number, m: number): Float64Array {
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let t = 0;
      for (let k = 0; k < m; k++) t += J[i * m + k] * J[j * m + k];
      A[i * n + j] = t + (i === j ? EPS : 0);
    }
  return A;
}

/**
 * An island-shaped A = J M⁻¹ Jᵀ + εI: each of the C contacts (3 rows) touches two of the B bodies (6 columns
 * each), so two contacts couple only through a shared body and most of A is exactly zero.
 */
function islandLike(C: number, B: number, seed: number): Float64Array {
  let s = seed;
  const rand = (): number => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5;
  const n = 3 * C,
    m = 6 * B;
  const J = new Float64Array(n * m);
  for (let c = 0; c < C; c++) {
    const a = c % B,
      b = (c * 7 + 3) % B === a ? (a + 1) % B : (c * 7 + 3) % B;
    for (let r = 0; r < 3; r++)
      for (let q = 0; q < 6; q++) {
        J[(3 * c + r) * m + 6 * a + q] = 0.1 * rand();
        J[(3 * c + r) * m + 6 * b + q] = 0.1 * rand();
      }
  }
  return gramPlusEps(J, n, m);
}

describe('conditioning estimate (frame view)', () => {
  it("gives the same λmax, bit for bit, from A's nonzeros as the dense product (before the sparse rows)", () => {
    const C = 40,
      n = 3 * C;
    const A = islandLike(C, 12, 9);
    let zeros = 0;
    for (const a of A) if (a === 0) zeros++;
    assert.ok(zeros > 0.3 * n * n, `${zeros} of ${n * n} entries are zero`);
    // the operator of the estimate before it kept only the nonzeros: every entry of each row, in order
    const dense = (x: Float64Array, y: Float64Array): void => {
      for (let i = 0; i < n; i++) {
        let t = 0;
        for (let j = 0; j < n; j++) t += A[i * n + j] * x[j];
        y[i] = t;
      }
    };
    const lz = lanczosExtremes(dense, n, { maxSteps: LAMBDA_MAX_STEPS, tolerance: LAMBDA_MAX_TOLERANCE });
    const est = conditioningEstimate(A, n, EPS);
    assert.equal(est.method, 'lanczos+pivoted-cholesky');
    assert.equal(est.rank, conditioning(A, n, { regularization: EPS }).rank);
    assert.ok(lz.converged);
    assert.equal(est.lambdaMax, lz.max);
  });

  it('matches the exact κ, λmax and rank of a rank-deficient island within 1e-3', () => {
    for (const [n, m] of [
      [99, 53],
      [150, 60],
    ]) {
      const A = gram(n, m, n);
      const est = conditioningEstimate(A, n, EPS);
      const ex = conditioning(A, n, { regularization: EPS });
      assert.equal(est.method, 'lanczos+pivoted-cholesky');
      assert.equal(ex.rank, m);
      assert.equal(est.rank, ex.rank);
      assert.equal(est.rankDeficiency, n - m);
      assert.ok(Math.abs(est.lambdaMax / ex.lambdaMax - 1) < 1e-3, `λmax ${est.lambdaMax} vs ${ex.lambdaMax}`);
      assert.ok(Math.abs(est.kappa / ex.kappa - 1) < 1e-3, `κ ${est.kappa} vs ${ex.kappa}`);
      // κ on the range: the pivot ratio is within the factor n of the exact one (Higham 2002 §10.3)
      assert.ok(est.kappaRange <= n * ex.kappaRange && ex.kappaRange <= n * est.kappaRange, `κ_range ${est.kappaRange} vs ${ex.kappaRange}`);
    }
  });

  it('gives full-rank and small islands the exact analysis (no bound on λmin there)', () => {
    const full = gram(80, 120, 3);
    assert.deepEqual(conditioningEstimate(full, 80, EPS), conditioning(full, 80, { regularization: EPS }));
    const small = gram(ESTIMATE_MIN_ROWS, 10, 4);
    assert.equal(conditioningEstimate(small, ESTIMATE_MIN_ROWS, EPS).method, 'exact-tridiagonal-ql');
  });

  it('leaves a matrix with a non-finite entry to conditioning() (NaN, never a number)', () => {
    const A = gram(60, 20, 5);
    A[7] = NaN;
    assert.ok(Number.isNaN(conditioningEstimate(A, 60, EPS).kappa));
  });
});
