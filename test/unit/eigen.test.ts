import assert from 'node:assert/strict';
import {
  estimateExtremeEigenvalues,
  lanczosExtremes,
  symmetricEigen,
  symmetricEigenvalues,
  symmetricEigenvaluesOverwriting,
  tridiagonalQL,
} from '../../src/engine/math/eigen.js';
import { lcg, spectrumMatrix } from '../spectrumMatrix.js';

function sortedCopy(x: ArrayLike<number>): number[] {
  return Array.from(x).sort((a, b) => a - b);
}

function assertSpectrum(got: Float64Array, want: ArrayLike<number>, relTol: number): void {
  const w = sortedCopy(want);
  assert.equal(got.length, w.length);
  const scale = Math.max(...w.map(Math.abs), Number.MIN_VALUE);
  for (let i = 0; i < w.length; i++) {
    assert.ok(Math.abs(got[i] - w[i]) <= relTol * scale, `λ[${i}] = ${got[i]}, want ${w[i]} (|err|/λmax = ${Math.abs(got[i] - w[i]) / scale})`);
  }
}

/** Geometric spectrum from lo to hi (inclusive), n values. */
function geometric(n: number, lo: number, hi: number): number[] {
  return Array.from({ length: n }, (_, i) => lo * (hi / lo) ** (i / (n - 1)));
}

describe('symmetricEigenvalues (Householder + implicit QL)', () => {
  it('returns the sorted diagonal of a diagonal matrix', () => {
    const d = [3, -1, 0, 7.5, 2, 2];
    const n = d.length;
    const A = new Float64Array(n * n);
    d.forEach((v, i) => {
      A[i * n + i] = v;
    });
    assert.deepEqual(Array.from(symmetricEigenvalues(A, n)), sortedCopy(d));
  });

  it('matches the 2×2 closed form', () => {
    for (const [a, b, c] of [
      [2, 1, 3],
      [1, 0.999, 1],
      [-4, 1e-8, 5],
      [1e-12, 3, 1e-12],
      [5, 0, 5],
    ]) {
      const m = 0.5 * (a + c),
        r = Math.hypot(0.5 * (a - c), b);
      const got = symmetricEigenvalues(Float64Array.of(a, b, b, c), 2);
      const scale = Math.max(Math.abs(m - r), Math.abs(m + r));
      assert.ok(Math.abs(got[0] - (m - r)) <= 1e-15 * scale && Math.abs(got[1] - (m + r)) <= 1e-15 * scale, `${a},${b},${c}: ${got}`);
    }
  });

  it('handles n = 1, n = 0 and the zero matrix', () => {
    assert.deepEqual(Array.from(symmetricEigenvalues(Float64Array.of(-2.5), 1)), [-2.5]);
    assert.equal(symmetricEigenvalues(new Float64Array(0), 0).length, 0);
    assert.deepEqual(Array.from(symmetricEigenvalues(new Float64Array(16), 4)), [0, 0, 0, 0]);
  });

  it('uses the symmetric part of a non-symmetric input', () => {
    const got = symmetricEigenvalues(Float64Array.of(2, 3, 1, 2), 2); // sym part [[2,2],[2,2]]
    assertSpectrum(got, [0, 4], 1e-15);
  });

  it('symmetricEigenvaluesOverwriting gives the same values bit for bit, working in its input (no copy)', () => {
    const rnd = lcg(5);
    for (const n of [1, 2, 7, 40]) {
      const A = Float64Array.from({ length: n * n }, () => rnd() - 0.5); // not symmetric: its symmetric part counts
      const expected = symmetricEigenvalues(A, n);
      const work = Float64Array.from(A);
      assert.deepEqual(symmetricEigenvaluesOverwriting(work, n), expected, `n = ${n}`);
      if (n > 1)
        assert.ok(
          work.some((x, k) => x !== A[k]),
          'the input was the work matrix',
        );
    }
  });

  it('returns NaN (without throwing) for non-finite input', () => {
    const got = symmetricEigenvalues(Float64Array.of(1, NaN, NaN, 1), 2);
    assert.ok(got.every(Number.isNaN));
    assert.ok(symmetricEigenvalues(Float64Array.of(Infinity, 0, 0, 1), 2).every(Number.isNaN));
  });

  for (const n of [10, 60, 120]) {
    it(`recovers the spectrum of Q·diag·Qᵀ for n = ${n} to 1e-12·λmax`, () => {
      const rnd = lcg(n);
      const lambda = Array.from({ length: n }, () => 10 * rnd()); // indefinite, spread
      lambda[1] = lambda[0];
      lambda[5] = lambda[4]; // repeated eigenvalues
      assertSpectrum(symmetricEigenvalues(spectrumMatrix(lambda, n + 1), n), lambda, 1e-12);
      const psd = geometric(n, 1e-10, 3); // PSD, κ = 3e10
      assertSpectrum(symmetricEigenvalues(spectrumMatrix(psd, n + 2), n), psd, 1e-12);
    });
  }

  it('is scale invariant (tiny and huge matrices)', () => {
    const lambda = [1, 2, 3, 4, 5, 6];
    for (const s of [1e-150, 1e150]) {
      const A = spectrumMatrix(
        lambda.map((x) => x * s),
        3,
      );
      assertSpectrum(
        symmetricEigenvalues(A, 6),
        lambda.map((x) => x * s),
        1e-13,
      );
    }
  });

  it('symmetricEigen returns orthonormal eigenvectors with small residuals (n = 60)', () => {
    const n = 60;
    const rnd = lcg(11);
    const lambda = Array.from({ length: n }, () => rnd());
    const A = spectrumMatrix(lambda, 12);
    const { values, vectors } = symmetricEigen(A, n);
    assertSpectrum(values, lambda, 1e-13);
    let maxRes = 0,
      maxOrth = 0;
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let k = 0; k < n; k++) s += A[i * n + k] * vectors[k * n + j];
        maxRes = Math.max(maxRes, Math.abs(s - values[j] * vectors[i * n + j]));
      }
      for (let k = 0; k <= j; k++) {
        let s = 0;
        for (let i = 0; i < n; i++) s += vectors[i * n + j] * vectors[i * n + k];
        maxOrth = Math.max(maxOrth, Math.abs(s - (j === k ? 1 : 0)));
      }
    }
    assert.ok(maxRes < 1e-13, `residual ${maxRes}`);
    assert.ok(maxOrth < 1e-13, `orthogonality ${maxOrth}`);
  });

  it('tridiagonalQL reproduces the 1-D Laplacian spectrum 2 − 2cos(kπ/(n+1))', () => {
    const n = 50;
    const d = new Float64Array(n).fill(2),
      e = new Float64Array(n).fill(-1);
    tridiagonalQL(d, e, n);
    const want = Array.from({ length: n }, (_, k) => 2 - 2 * Math.cos(((k + 1) * Math.PI) / (n + 1)));
    assertSpectrum(d, want, 1e-14);
  });

  it('timing: exact n = 120 (printed, not asserted)', () => {
    const n = 120;
    const A = spectrumMatrix(geometric(n, 1e-6, 10), 5);
    symmetricEigenvalues(A, n); // warm-up (JIT)
    const reps = 20;
    const t0 = performance.now();
    for (let r = 0; r < reps; r++) symmetricEigenvalues(A, n);
    const tValues = (performance.now() - t0) / reps;
    const t1 = performance.now();
    for (let r = 0; r < reps; r++) symmetricEigen(A, n);
    const tVectors = (performance.now() - t1) / reps;
    console.log(`      exact QL n = 120: values ${tValues.toFixed(2)} ms, values+vectors ${tVectors.toFixed(2)} ms`);
    assert.ok(tValues < 1000); // sanity only
  });
});

describe('Lanczos / shift-and-invert estimates', () => {
  it('lanczosExtremes is exact on a small operator (Krylov space exhausted)', () => {
    const lambda = [1, 2, 3, 4, 5];
    const A = spectrumMatrix(lambda, 3);
    const r = lanczosExtremes((x, y) => {
      for (let i = 0; i < 5; i++) {
        let s = 0;
        for (let j = 0; j < 5; j++) s += A[i * 5 + j] * x[j];
        y[i] = s;
      }
    }, 5);
    assert.ok(r.converged);
    assert.ok(Math.abs(r.max - 5) < 1e-13 && Math.abs(r.min - 1) < 1e-13, `${r.min} ${r.max}`);
  });

  const cases: { name: string; n: number; lambda: number[] }[] = [
    { name: 'well-conditioned (uniform spectrum in [1, 10])', n: 150, lambda: Array.from({ length: 150 }, (_, i) => 1 + (9 * i) / 149) },
    {
      name: 'well-conditioned (random spectrum in [0.5, 2])',
      n: 200,
      lambda: (() => {
        const r = lcg(3);
        return Array.from({ length: 200 }, () => 1.25 + 0.75 * r());
      })(),
    },
    { name: 'κ ≈ 1e8 (geometric spectrum)', n: 180, lambda: geometric(180, 1e-8, 1) },
    { name: 'κ ≈ 1e8 (clustered ends)', n: 200, lambda: Array.from({ length: 200 }, (_, i) => (i < 100 ? 1e-8 * (1 + i / 100) : 1 - (i - 100) / 1000)) },
  ];
  for (const c of cases) {
    it(`agrees with the exact path on n = ${c.n}, ${c.name}`, () => {
      const A = spectrumMatrix(c.lambda, c.n + 17);
      const exact = symmetricEigenvalues(A, c.n);
      const est = estimateExtremeEigenvalues(A, c.n);
      const lmin = exact[0],
        lmax = exact[c.n - 1];
      const errMax = Math.abs(est.lambdaMax - lmax) / lmax;
      const errMin = Math.abs(est.lambdaMin - lmin) / lmin;
      assert.ok(errMax <= 1e-8, `λmax ${est.lambdaMax} vs ${lmax} (rel ${errMax})`);
      assert.ok(errMin <= 1e-6, `λmin ${est.lambdaMin} vs ${lmin} (rel ${errMin})`);
      assert.ok(est.factorised);
      assert.ok(est.lambdaMaxErrorBound >= 0 && est.lambdaMaxErrorBound <= 1e-8 * lmax);
    });
  }

  it('handles n = 1, the zero matrix, a singular PSD matrix and an indefinite matrix', () => {
    const one = estimateExtremeEigenvalues(Float64Array.of(4), 1);
    assert.equal(one.lambdaMax, 4);
    assert.ok(Math.abs(one.lambdaMin - 4) < 1e-15);
    const zero = estimateExtremeEigenvalues(new Float64Array(25), 5);
    assert.equal(zero.lambdaMin, 0);
    assert.equal(zero.lambdaMax, 0);
    // Rank-2 PSD 150×150 (no regularisation): λmin = 0 up to rounding.
    const n = 150;
    const lam = new Array<number>(n).fill(0);
    lam[n - 1] = 2;
    lam[n - 2] = 1;
    const sing = estimateExtremeEigenvalues(spectrumMatrix(lam, 5), n);
    assert.ok(Math.abs(sing.lambdaMax - 2) < 1e-12, `${sing.lambdaMax}`);
    assert.ok(Math.abs(sing.lambdaMin) < 1e-12, `${sing.lambdaMin}`);
    // Indefinite: λmin = −1 must come out negative (Cholesky fails up to the largest shift).
    const ind = geometric(n, 0.1, 3);
    ind[0] = -1;
    const e = estimateExtremeEigenvalues(spectrumMatrix(ind, 6), n);
    assert.ok(!e.factorised);
    assert.ok(e.lambdaMin < 0, `${e.lambdaMin}`);
    assert.ok(Math.abs(e.lambdaMax - 3) < 1e-10);
  });

  it('returns NaN (without throwing) for non-finite input', () => {
    const e = estimateExtremeEigenvalues(Float64Array.of(1, 0, 0, NaN), 2);
    assert.ok(Number.isNaN(e.lambdaMin) && Number.isNaN(e.lambdaMax));
  });
});
