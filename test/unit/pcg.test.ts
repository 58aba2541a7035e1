/** Preconditioned conjugate gradients (solvers/pcg.ts) on small SPD systems with known solutions. */
import assert from 'node:assert/strict';
import { PcgWorkspace, pcgSolve } from '../../src/engine/solvers/pcg.js';

/** A symmetric positive definite tridiagonal-plus-diagonal matrix of size n with diagonal entries spread over `spread` decades. */
function spdMatrix(n: number, spread: number): Float64Array {
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    a[i * n + i] = Math.pow(10, (spread * i) / (n - 1)) + 2;
    if (i + 1 < n) a[i * n + i + 1] = a[(i + 1) * n + i] = -1;
  }
  return a;
}
const matVec =
  (a: Float64Array, n: number) =>
  (v: Float64Array, out: Float64Array): void => {
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += a[i * n + j] * v[j];
      out[i] = s;
    }
  };

describe('preconditioned conjugate gradients', () => {
  const n = 40;
  const a = spdMatrix(n, 6);
  const xTrue = Float64Array.from({ length: n }, (_, i) => Math.sin(i + 1));
  const b = new Float64Array(n);
  matVec(a, n)(xTrue, b);
  const jacobi = (v: Float64Array, out: Float64Array): void => {
    for (let i = 0; i < n; i++) out[i] = v[i] / a[i * n + i];
  };

  it('reaches the tolerance on the true residual, and the solution, with a Jacobi preconditioner', () => {
    const x = new Float64Array(n);
    const out = pcgSolve(matVec(a, n), jacobi, b, x, 1e-12, 200, new PcgWorkspace(n));
    assert.ok(out.residual <= 1e-12, `residual ${out.residual}`);
    assert.ok(out.iterations <= n, `${out.iterations} steps`);
    // forward error ≤ κ(A) · relative residual, κ(A) ≈ 1e6 (diagonal over six decades)
    for (let i = 0; i < n; i++) assert.ok(Math.abs(x[i] - xTrue[i]) < 1e-6, `x[${i}] = ${x[i]} vs ${xTrue[i]}`);
  });

  it('takes no step when the preconditioner is the exact inverse of a diagonal system, and zero for b = 0', () => {
    const d = Float64Array.from({ length: n }, (_, i) => 1 + i);
    const A = (v: Float64Array, o: Float64Array): void => v.forEach((x, i) => (o[i] = d[i] * x));
    const M = (v: Float64Array, o: Float64Array): void => v.forEach((x, i) => (o[i] = x / d[i]));
    const rhs = Float64Array.from(d);
    const x = new Float64Array(n);
    M(rhs, x); // the caller's first guess: the preconditioner's solve
    const out = pcgSolve(A, M, rhs, x, 1e-14, 10, new PcgWorkspace(n));
    assert.equal(out.iterations, 0);
    assert.ok(out.residual <= 1e-14);
    const z = new Float64Array(n);
    assert.equal(pcgSolve(A, M, new Float64Array(n), z, 1e-14, 10, new PcgWorkspace(n)).residual, 0);
  });

  it('reports the residual honestly when the step budget is cut (no preconditioner, 3 steps)', () => {
    const x = new Float64Array(n);
    const id = (v: Float64Array, o: Float64Array): void => o.set(v);
    const out = pcgSolve(matVec(a, n), id, b, x, 1e-12, 3, new PcgWorkspace(n));
    assert.equal(out.iterations, 3);
    const r = new Float64Array(n);
    matVec(a, n)(x, r);
    let m = 0,
      bm = 0;
    for (let i = 0; i < n; i++) {
      m = Math.max(m, Math.abs(b[i] - r[i]));
      bm = Math.max(bm, Math.abs(b[i]));
    }
    assert.ok(out.residual > 1e-12);
    assert.ok(Math.abs(out.residual - m / bm) <= 1e-12 * (m / bm) + 1e-15, `${out.residual} vs ${m / bm}`);
  });
});
