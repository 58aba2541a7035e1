import assert from 'node:assert/strict';
import { conditioning, kappaOf, pivotedCholeskyRank, rankToleranceFor, RANK_TOLERANCE_RULE, type Conditioning } from '../../src/engine/conditioning.js';
import { symmetricEigenvalues } from '../../src/engine/math/eigen.js';
import { spectrumMatrix } from '../spectrumMatrix.js';

/** The assembler's default regularisation ε (ASSEMBLY_REGULARIZATION, docs/physics.md "Contact model"). */
const EPS = 1e-10;

// ─────────────────────────────── hand-built contact Jacobians ───────────────────────────────

type V3 = [number, number, number];
const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

interface Box {
  x: V3;
  invMass: number;
  invInertia: V3 /* diagonal, world = body frame */;
}

/** Solid box of half extents h and mass m at x (axis-aligned). */
function box(x: V3, h: V3, m: number): Box {
  const I: V3 = [(m / 3) * (h[1] ** 2 + h[2] ** 2), (m / 3) * (h[0] ** 2 + h[2] ** 2), (m / 3) * (h[0] ** 2 + h[1] ** 2)];
  return { x, invMass: 1 / m, invInertia: [1 / I[0], 1 / I[1], 1 / I[2]] };
}

interface Contact {
  p: V3;
  a: number;
  b: number /* −1 = static ground */;
}

const N: V3 = [0, 0, 1],
  T1: V3 = [1, 0, 0],
  T2: V3 = [0, 1, 0];

/**
 * A = J M⁻¹ Jᵀ + εI for contacts with normal +z and tangents x, y. Row for direction d on body a:
 * [d, r_a×d]; on body b: [−d, −(r_b×d)] (r = p − x). A is formed as J·(M⁻¹Jᵀ) row by row.
 */
function contactMatrix(bodies: Box[], contacts: Contact[], eps: number): { A: Float64Array; n: number } {
  const n = 3 * contacts.length,
    m = 6 * bodies.length;
  const J = new Float64Array(n * m);
  contacts.forEach((c, ci) => {
    [N, T1, T2].forEach((d, k) => {
      const row = (3 * ci + k) * m;
      for (const [body, sign] of [
        [c.a, 1],
        [c.b, -1],
      ] as const) {
        if (body < 0) continue;
        const r: V3 = [c.p[0] - bodies[body].x[0], c.p[1] - bodies[body].x[1], c.p[2] - bodies[body].x[2]];
        const rd = cross(r, d);
        for (let q = 0; q < 3; q++) {
          J[row + 6 * body + q] += sign * d[q];
          J[row + 6 * body + 3 + q] += sign * rd[q];
        }
      }
    });
  });
  const G = new Float64Array(n * m); // rows of J M⁻¹
  for (let i = 0; i < n; i++) {
    for (let bi = 0; bi < bodies.length; bi++) {
      for (let q = 0; q < 3; q++) {
        G[i * m + 6 * bi + q] = J[i * m + 6 * bi + q] * bodies[bi].invMass;
        G[i * m + 6 * bi + 3 + q] = J[i * m + 6 * bi + 3 + q] * bodies[bi].invInertia[q];
      }
    }
  }
  const A = new Float64Array(n * n);
  const nz: number[] = [];
  for (let i = 0; i < n; i++) {
    nz.length = 0;
    for (let c = 0; c < m; c++) if (J[i * m + c] !== 0) nz.push(c);
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (const c of nz) s += J[i * m + c] * G[j * m + c];
      A[i * n + j] = s;
    }
    A[i * n + i] += eps;
  }
  // J M⁻¹ Jᵀ is symmetric in exact arithmetic; make it exactly so.
  for (let i = 0; i < n; i++)
    for (let j = 0; j < i; j++) {
      const s = 0.5 * (A[i * n + j] + A[j * n + i]);
      A[i * n + j] = s;
      A[j * n + i] = s;
    }
  return { A, n };
}

const H: V3 = [0.5, 0.3, 0.2];
const corners = (x: V3, z: number): V3[] => [
  [x[0] - H[0], x[1] - H[1], z],
  [x[0] + H[0], x[1] - H[1], z],
  [x[0] + H[0], x[1] + H[1], z],
  [x[0] - H[0], x[1] + H[1], z],
];

/** One box (mass 2) resting on the ground on the first k of its 4 bottom corners. */
function boxOnGround(k: number, eps = EPS): { A: Float64Array; n: number } {
  const b = box([0, 0, H[2]], H, 2);
  return contactMatrix(
    [b],
    corners([0, 0, H[2]], 0)
      .slice(0, k)
      .map((p) => ({ p, a: 0, b: -1 })),
    eps,
  );
}

/** A tower of `count` boxes (masses 1..3 kg), each resting on 4 corners of the one below. */
function tower(count: number, eps = EPS): { A: Float64Array; n: number } {
  const bodies: Box[] = [];
  const contacts: Contact[] = [];
  for (let i = 0; i < count; i++) {
    const x: V3 = [0.01 * i, -0.02 * i, H[2] * (2 * i + 1)];
    bodies.push(box(x, H, 1 + (i % 3)));
    for (const p of corners(x, 2 * H[2] * i)) contacts.push({ p, a: i, b: i - 1 });
  }
  return contactMatrix(bodies, contacts, eps);
}

// ───────────────────────────────────────── helpers ─────────────────────────────────────────

function assertSane(c: Conditioning): void {
  for (const k of ['lambdaMin', 'lambdaMax', 'kappa', 'rank', 'rankDeficiency', 'rankTolerance'] as const) {
    assert.ok(!Number.isNaN(c[k]), `${k} is NaN`);
  }
  assert.equal(c.rank + c.rankDeficiency, c.n);
  assert.ok(c.kappa >= 1 || c.kappa === Infinity, `kappa ${c.kappa}`);
}

const close = (a: number, b: number, rel: number): boolean => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));

// ─────────────────────────────────────────── tests ───────────────────────────────────────────

describe('conditioning', () => {
  it('documents its rank rule', () => {
    assert.match(RANK_TOLERANCE_RULE, /ε/);
    assert.equal(rankToleranceFor(12, 0, 1e-10), 1e-10 * (1 + 1e-3));
    assert.equal(kappaOf(0, 0), Infinity);
    assert.equal(kappaOf(-1, 2), Infinity);
    assert.equal(kappaOf(2, 2), 1);
  });

  it('seed example 0.1·[[1, 0.999], [0.999, 1]] ⊗ I₃: κ = 0.1999/0.0001 ≈ 1999 on both paths', () => {
    const M = [
      [0.1, 0.0999],
      [0.0999, 0.1],
    ];
    const A = new Float64Array(36);
    for (let a = 0; a < 2; a++) for (let b = 0; b < 2; b++) for (let i = 0; i < 3; i++) A[(3 * a + i) * 6 + 3 * b + i] = M[a][b];
    for (const exactLimit of [120, 0]) {
      const c = conditioning(A, 6, { exactLimit, regularization: 0 });
      assertSane(c);
      assert.equal(c.method, exactLimit ? 'exact-tridiagonal-ql' : 'lanczos+inverse-iteration');
      assert.ok(close(c.lambdaMax, 0.1999, 1e-12), `${c.lambdaMax}`);
      assert.ok(close(c.lambdaMin, 0.0001, 1e-10), `${c.lambdaMin}`);
      assert.ok(close(c.kappa, 1999, 1e-9), `${c.kappa}`);
      assert.equal(c.rank, 6);
    }
  });

  it('box on 4 coplanar ground contacts: A has 12 rows but rank 6 (exact and estimate paths)', () => {
    const { A, n } = boxOnGround(4);
    assert.equal(n, 12);
    for (const exactLimit of [120, 0]) {
      const c = conditioning(A, n, { exactLimit, regularization: EPS });
      assertSane(c);
      assert.equal(c.rank, 6, `${c.method}: rank ${c.rank}`);
      assert.equal(c.rankDeficiency, 6);
      assert.ok(Math.abs(c.lambdaMin - EPS) < 1e-14, `λmin ${c.lambdaMin}`);
      assert.ok(close(c.kappa, c.lambdaMax / EPS, 1e-4), `κ ${c.kappa}`);
      assert.ok(c.rankTolerance > EPS && c.rankTolerance < 1.01 * EPS);
    }
    // The exact spectrum: 6 eigenvalues at ε, the 7th well above the tolerance.
    const ev = symmetricEigenvalues(A, n);
    assert.ok(ev[5] < 1.0001 * EPS && ev[6] > 1e-3, `${Array.from(ev)}`);
  });

  it('κ on the range of A: finite on the 4-corner box (the 6 ε-directions excluded), rank ratio 2', () => {
    const { A, n } = boxOnGround(4);
    const ev = symmetricEigenvalues(A, n);
    const exact = conditioning(A, n, { regularization: EPS });
    assert.ok(exact.kappa > 1e9, `full κ ${exact.kappa}`);
    assert.ok(close(exact.lambdaMinRange, ev[6], 1e-12), `λmin on range ${exact.lambdaMinRange} vs ${ev[6]}`);
    assert.ok(close(exact.kappaRange, ev[11] / ev[6], 1e-12), `κ_range ${exact.kappaRange}`);
    assert.ok(exact.kappaRange < 1e4, `κ_range ${exact.kappaRange}`);
    assert.equal(exact.rankRatio, 2);
    assert.ok(exact.rangeThreshold >= exact.rankTolerance && exact.rangeThreshold < ev[6]);
    // Estimate path: pivot ratio of the pivoted Cholesky, within a factor n of the exact range κ.
    const est = conditioning(A, n, { regularization: EPS, exactLimit: 0 });
    assert.equal(est.rankRatio, 2);
    assert.ok(
      est.kappaRange >= 1 && est.kappaRange <= n * exact.kappaRange && est.kappaRange * n >= exact.kappaRange,
      `estimate ${est.kappaRange} vs ${exact.kappaRange}`,
    );
  });

  it('κ on the range equals κ for a full-rank A and is finite (not ε-dominated) on a 14-box tower', () => {
    const full = conditioning(spectrumMatrix([1, 2, 3, 4, 5, 10], 6), 6);
    assert.ok(close(full.kappaRange, full.kappa, 1e-12) && close(full.kappa, 10, 1e-9));
    assert.equal(full.rankRatio, 1);
    const { A, n } = tower(14);
    const exact = conditioning(A, n, { exactLimit: 1000, regularization: EPS });
    const ev = symmetricEigenvalues(A, n);
    assert.ok(close(exact.kappaRange, ev[n - 1] / ev[n - 84], 1e-9), `κ_range ${exact.kappaRange} vs ${ev[n - 1] / ev[n - 84]}`);
    assert.ok(exact.kappaRange < 1e-6 * exact.kappa, `κ_range ${exact.kappaRange} vs κ ${exact.kappa}`);
    assert.equal(exact.rankRatio, 2);
  });

  it('rank of J M⁻¹ Jᵀ for 1, 2, 3, 4 contacts on one box is 3, 5, 6, 6', () => {
    const want = [3, 5, 6, 6];
    for (let k = 1; k <= 4; k++) {
      const { A, n } = boxOnGround(k);
      for (const exactLimit of [120, 0]) {
        const c = conditioning(A, n, { exactLimit, regularization: EPS });
        assertSane(c);
        assert.equal(c.rank, want[k - 1], `${k} contacts (${c.method}): rank ${c.rank} of ${n}`);
      }
    }
  });

  it('without regularisation the singular box matrix has rank 6 and κ = ∞ or ≥ 1e13', () => {
    const { A, n } = boxOnGround(4, 0);
    for (const exactLimit of [120, 0]) {
      const c = conditioning(A, n, { exactLimit });
      assertSane(c);
      assert.equal(c.rank, 6);
      assert.ok(c.kappa === Infinity || c.kappa > 1e13, `κ ${c.kappa}`);
      assert.ok(Math.abs(c.lambdaMin) < 1e-12, `λmin ${c.lambdaMin}`);
    }
  });

  it('tower of 14 boxes (n = 168 > exactLimit): estimate path agrees with the exact path, rank 84', () => {
    const { A, n } = tower(14);
    assert.equal(n, 168);
    const exact = conditioning(A, n, { exactLimit: 1000, regularization: EPS });
    const est = conditioning(A, n, { regularization: EPS });
    assertSane(exact);
    assertSane(est);
    assert.equal(exact.method, 'exact-tridiagonal-ql');
    assert.equal(est.method, 'lanczos+inverse-iteration');
    assert.equal(exact.rank, 84);
    assert.equal(est.rank, 84);
    assert.ok(close(est.lambdaMax, exact.lambdaMax, 1e-8), `λmax ${est.lambdaMax} vs ${exact.lambdaMax}`);
    // λmin = ε exactly in exact arithmetic, but κ ≈ 3e11 here: both paths can only resolve it to
    // O(u·λmax) ≈ 1e-14 absolute, i.e. ~1e-4 relative (the 1e-6 agreement holds for κ ≲ 1e8 below).
    assert.ok(Math.abs(exact.lambdaMin - EPS) < 1e-3 * EPS, `exact λmin ${exact.lambdaMin}`);
    assert.ok(Math.abs(est.lambdaMin - EPS) < 1e-3 * EPS, `estimated λmin ${est.lambdaMin}`);
    assert.ok(close(est.kappa, exact.kappa, 1e-3));
  });

  for (const [name, n, lambda] of [
    ['well-conditioned', 160, Array.from({ length: 160 }, (_, i) => 1 + i / 40)],
    ['κ ≈ 1e8', 190, Array.from({ length: 190 }, (_, i) => 1e-8 * 1e8 ** (i / 189))],
  ] as const) {
    it(`estimate path agrees with the exact path (${name}, n = ${n})`, () => {
      const A = spectrumMatrix([...lambda], n);
      const exact = conditioning(A, n, { exactLimit: 1000 });
      const est = conditioning(A, n);
      assertSane(exact);
      assertSane(est);
      assert.ok(close(est.lambdaMax, exact.lambdaMax, 1e-8), `λmax ${est.lambdaMax} vs ${exact.lambdaMax}`);
      assert.ok(close(est.lambdaMin, exact.lambdaMin, 1e-6), `λmin ${est.lambdaMin} vs ${exact.lambdaMin}`);
      assert.ok(close(exact.lambdaMin, lambda[0], 1e-6) && close(exact.lambdaMax, lambda[n - 1], 1e-12));
      assert.equal(exact.rank, n);
      assert.equal(est.rank, n);
    });
  }

  it('estimate path finds a planted null space (n = 150, rank 120)', () => {
    const n = 150;
    const lambda = Array.from({ length: n }, (_, i) => (i < 30 ? 0 : 0.01 + i / n));
    const A = spectrumMatrix(lambda, 9);
    for (let i = 0; i < n; i++) A[i * n + i] += EPS;
    const est = conditioning(A, n, { regularization: EPS });
    const exact = conditioning(A, n, { regularization: EPS, exactLimit: n });
    assertSane(est);
    assert.equal(exact.rank, 120);
    assert.equal(est.rank, 120);
    assert.ok(close(est.lambdaMin, EPS, 1e-4), `${est.lambdaMin}`);
  });

  it('n = 1', () => {
    for (const exactLimit of [120, 0]) {
      const c = conditioning(Float64Array.of(3), 1, { exactLimit });
      assertSane(c);
      assert.deepEqual([c.lambdaMin, c.lambdaMax, c.kappa, c.rank], [3, 3, 1, 1]);
      const reg = conditioning(Float64Array.of(EPS), 1, { exactLimit, regularization: EPS });
      assertSane(reg);
      assert.equal(reg.rank, 0); // only ε holds this direction
      assert.equal(reg.kappa, 1);
      const neg = conditioning(Float64Array.of(-1), 1, { exactLimit });
      assertSane(neg);
      assert.equal(neg.kappa, Infinity);
    }
  });

  it('zero matrix: λ = 0, κ = ∞, rank 0, no NaN (both paths)', () => {
    for (const n of [1, 5, 130]) {
      for (const exactLimit of [120, 0]) {
        const c = conditioning(new Float64Array(n * n), n, { exactLimit });
        assertSane(c);
        assert.deepEqual([c.lambdaMin, c.lambdaMax, c.kappa, c.rank, c.rankDeficiency], [0, 0, Infinity, 0, n]);
      }
    }
  });

  it('n = 0 and non-finite input do not throw', () => {
    const empty = conditioning(new Float64Array(0), 0);
    assert.deepEqual([empty.kappa, empty.rank, empty.rankDeficiency], [1, 0, 0]);
    const bad = conditioning(Float64Array.of(1, NaN, NaN, 1), 2);
    assert.ok(Number.isNaN(bad.lambdaMax) && Number.isNaN(bad.kappa));
  });

  it('pivotedCholeskyRank counts independent directions', () => {
    const { A, n } = boxOnGround(4, 0);
    assert.equal(pivotedCholeskyRank(A, n, 0, 1e-12), 6);
    assert.equal(pivotedCholeskyRank(new Float64Array(9), 3, 0, 0), 0);
  });

  it('timing: exact n = 120 and estimate n = 600 (printed, not asserted)', () => {
    const t120 = tower(10).A; // n = 120
    conditioning(t120, 120, { regularization: EPS }); // warm-up
    let t0 = performance.now();
    const c120 = conditioning(t120, 120, { regularization: EPS });
    const exactMs = performance.now() - t0;
    const big = tower(50); // n = 600
    t0 = performance.now();
    const c600 = conditioning(big.A, big.n, { regularization: EPS });
    const estMs = performance.now() - t0;
    console.log(`      exact n = 120 (tower of 10): ${exactMs.toFixed(1)} ms, rank ${c120.rank}, κ ${c120.kappa.toExponential(3)}`);
    console.log(`      estimate n = 600 (tower of 50): ${estMs.toFixed(1)} ms, rank ${c600.rank}, κ ${c600.kappa.toExponential(3)}`);
    assertSane(c600);
    assert.equal(c600.rank, 300);
  });
});
