/** The named phases of projected Newton and the interior-point method, each tested alone. */
import assert from 'node:assert/strict';
import {
  applyWinv,
  CONE_ORTHANT,
  CONE_SOC,
  dualResidual,
  ntScaleAll,
  scaledProblem,
  shiftIntoCones,
  solveIpm,
  solveIpmFrom,
  warmInteriorStart,
} from '../../src/engine/solvers/ipm.js';
import { generatedStacks } from '../../bench/stacks.js';
import { kkt } from '../../src/engine/kkt.js';
import { objective } from '../../src/engine/problem.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { makeProblem } from '../../src/engine/problem.js';
import { rng } from '../rng.js';

/** A random symmetric positive definite n×n matrix (BᵀB + I/10). */
function spd(n: number, seed: number): Float64Array {
  const r = rng(seed),
    B = Array.from({ length: n * n }, () => r() - 0.5),
    A = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let s = i === j ? 0.1 : 0;
      for (let k = 0; k < n; k++) s += B[k * n + i] * B[k * n + j];
      A[i * n + j] = s;
    }
  return A;
}

describe('interior-point phases', () => {
  it('scaledProblem: P = D A D, |q|∞ = 1, and λ = κDx maps the standard cone onto K_μ; μ = 0 tangents pinned', () => {
    const A = spd(6, 3),
      b = [1.5, -0.2, 0.3, -0.7, 0.4, 0.1];
    const p = makeProblem({ A, b, mu: [0.4, 0], regularization: 0 });
    const s = scaledProblem(p);
    assert.deepEqual([...s.pinned], [0, 0, 0, 0, 1, 1]);
    for (let i = 0; i < 6; i++) {
      assert.ok(Math.abs(s.q[i] - (s.pinned[i] ? 0 : (-s.D[i] * b[i]) / s.kappa)) < 1e-15);
      for (let j = 0; j < 6; j++) {
        const e = s.pinned[i] || s.pinned[j] ? 0 : s.D[i] * A[i * 6 + j] * s.D[j];
        assert.ok(Math.abs(s.P[i * 6 + j] - e) < 1e-15);
      }
    }
    assert.ok(Math.abs(Math.max(...Array.from(s.q, Math.abs)) - 1) < 1e-15, 'q has unit size');
    // x on the boundary of the standard cone (x0 = ‖(x1, x2)‖) ⇒ λ on the boundary of K_μ (‖λt‖ = μλn)
    const x = [2, 1.2, 1.6],
      lam = x.map((v, i) => s.kappa * s.D[i] * v);
    assert.ok(Math.abs(Math.hypot(lam[1], lam[2]) - 0.4 * lam[0]) < 1e-12 * lam[0]);
    // scaled diagonal ≤ 1 (the larger of A_nn/μ², A_tt is mapped to 1)
    for (let i = 0; i < 4; i++) assert.ok(s.P[i * 6 + i] <= 1 + 1e-12, `P[${i}][${i}] = ${s.P[i * 6 + i]}`);
  });

  it('shiftIntoCones: a point outside is moved strictly inside every cone; a point well inside is left alone', () => {
    const kind = scaledProblem(makeProblem({ A: spd(6, 5), b: [1, 0, 0, 1, 0, 0], mu: [0.5, 0], regularization: 0 })).kind;
    const v = Float64Array.of(0.1, 1, 0, -2, 0, 0);
    shiftIntoCones(v, kind, 2);
    assert.ok(v[0] > Math.hypot(v[1], v[2]), `SOC interior: ${[...v.subarray(0, 3)]}`);
    assert.ok(v[3] > 0, `orthant interior: ${v[3]}`);
    const inside = Float64Array.of(5, 1, 0, 3, 0, 0),
      copy = Float64Array.from(inside);
    shiftIntoCones(inside, kind, 2);
    assert.deepEqual([...inside], [...copy]);
  });

  it('ntScaleAll: the scaled point is W⁻¹x and W⁻¹ maps it on to z (λ_NT = Wz = W⁻¹x), for a Lorentz cone and an orthant', () => {
    const kind = scaledProblem(makeProblem({ A: spd(6, 9), b: [1, 0, 0, 1, 0, 0], mu: [0.5, 0], regularization: 0 })).kind;
    const x = Float64Array.of(2, 0.7, -0.4, 3, 0, 0),
      z = Float64Array.of(1.5, -0.2, 0.9, 0.5, 0, 0);
    const winv = new Float64Array(18),
      nt = new Float64Array(6),
      a = new Float64Array(6),
      zz = new Float64Array(6);
    assert.equal(ntScaleAll(x, z, kind, 2, winv, nt), true);
    for (let c = 0; c < 2; c++) {
      applyWinv(winv, 9 * c, x, 3 * c, kind[c], a);
      applyWinv(winv, 9 * c, nt, 3 * c, kind[c], zz);
    }
    for (let i = 0; i < 6; i++) {
      assert.ok(Math.abs(a[i] - nt[i]) < 1e-12, `W⁻¹x[${i}] ${a[i]} vs λ_NT ${nt[i]}`);
      assert.ok(Math.abs(zz[i] - z[i]) < 1e-12, `W⁻¹λ_NT[${i}] ${zz[i]} vs z ${z[i]}`);
    }
    x[0] = 0.5; // outside Q³ (‖(0.7, −0.4)‖ > 0.5): not interior
    assert.equal(ntScaleAll(x, z, kind, 2, winv, nt), false);
  });

  it('dualResidual: r = Px + q − z (pinned rows 0) and τ = xᵀz / cones', () => {
    const s = scaledProblem(makeProblem({ A: spd(6, 11), b: [1, 0.2, -0.1, 0.5, 0.3, 0.3], mu: [0.5, 0], regularization: 0 }));
    const x = Float64Array.of(2, 0.7, -0.4, 3, 0, 0),
      z = Float64Array.of(1.5, -0.2, 0.9, 0.5, 0, 0),
      rx = new Float64Array(6),
      out = new Float64Array(2);
    dualResidual(s.P, s.q, x, z, s.pinned, 2, rx, out);
    for (let i = 0; i < 6; i++) {
      let e = 0;
      if (!s.pinned[i]) {
        for (let j = 0; j < 6; j++) e += s.P[i * 6 + j] * x[j];
        e += s.q[i] - z[i];
      }
      assert.ok(Math.abs(rx[i] - e) < 1e-14, `r[${i}]`);
    }
    assert.ok(Math.abs(out[0] - (2 * 1.5 + 0.7 * -0.2 + -0.4 * 0.9 + 3 * 0.5) / 2) < 1e-14, `τ ${out[0]}`);
    assert.ok(out[1] > 0 && Number.isFinite(out[1]));
  });

  it('warmInteriorStart: a cone point with smallest eigenvalue below the margin gets exactly the margin along e; one farther inside is left alone', () => {
    const kind = Int8Array.of(CONE_SOC, CONE_SOC, CONE_ORTHANT, CONE_ORTHANT);
    // on the boundary (eigenvalue 0), well inside (eigenvalue 2 − 0.5), outside (1 − 5), 1-D negative, 1-D inside
    const v = Float64Array.of(5, 3, 4, 2, 0.3, -0.4, -0.2, 0, 0, 0.7, 0, 0);
    warmInteriorStart(v, kind, 4, 0.1);
    const eig = (c: number): number => (kind[c] === CONE_ORTHANT ? v[3 * c] : v[3 * c] - Math.hypot(v[3 * c + 1], v[3 * c + 2]));
    assert.ok(Math.abs(eig(0) - 0.1) < 1e-14, `boundary point: ${eig(0)}`);
    assert.deepEqual([v[1], v[2]], [3, 4], 'only the axis component moves');
    assert.deepEqual([v[3], v[4], v[5]], [2, 0.3, -0.4], 'a point farther inside than the margin is unchanged');
    assert.ok(Math.abs(eig(2) - 0.1) < 1e-14, `1-D cone: ${eig(2)}`);
    assert.equal(v[9], 0.7);
    const outside = Float64Array.of(1, 3, 4);
    warmInteriorStart(outside, Int8Array.of(CONE_SOC), 1, 0.1);
    assert.ok(Math.abs(outside[0] - 5.1) < 1e-14, `outside point: ${outside[0]}`);
  });

  it("solveIpmFrom: from the previous frame's λ the interior point reaches the same solution (KKT ≤ 1e-10, same objective) in fewer iterations than from its own start", () => {
    let fewer = 0;
    const stacks = generatedStacks()
      .filter((s) => Array.from(s.problem.mu).some((m) => m > 0))
      .slice(0, 12);
    for (const s of stacks) {
      const prev = solve(s.previous, { solver: 'ipm' }).lambda;
      const warm = solveIpmFrom(s.problem, { solver: 'ipm' }, prev);
      const cold = solveIpm(s.problem, { solver: 'ipm' });
      assert.equal(warm.status.kind, 'converged', `${s.id}: ${JSON.stringify(warm.status)}`);
      assert.ok(kkt(s.problem, warm.lambda).maxRel <= 1e-10, s.id);
      const fw = objective(s.problem, warm.lambda),
        fc = objective(s.problem, cold.lambda);
      assert.ok(Math.abs(fw - fc) <= 1e-9 * Math.max(1, Math.abs(fc)), `${s.id}: f ${fw} vs ${fc}`);
      if (warm.iterations < cold.iterations) fewer++;
    }
    assert.ok(fewer >= stacks.length / 2, `fewer iterations on ${fewer} of ${stacks.length}`);
  });

  it('solveIpmFrom: a start of the wrong size is a RangeError naming the sizes', () => {
    const p = makeProblem({ A: spd(6, 3), b: [1, 0, 0, 1, 0, 0], mu: [0.5, 0.5], regularization: 0 });
    assert.throws(() => solveIpmFrom(p, { solver: 'ipm' }, new Float64Array(5)), /5 entries, expected 3·C = 6/);
  });
});
