/**
 * Every numeric example of the seeds, checked with the KKT checker. Where a seed's stated number is not
 * what its own problem yields, the test asserts the truth and its name says why.
 */
import assert from 'node:assert/strict';
import { assembleJacobians, assembleProblem, jacobianVelocityChanges, bodyVelocityChanges } from '../../src/engine/assembly.js';
import { makeProblem } from '../../src/engine/problem.js';
import { kkt, projectedGradientResidual } from '../../src/engine/kkt.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { choleskyWithFallback } from '../../src/engine/math/cholesky.js';
import { conditioning } from '../../src/engine/conditioning.js';
import type { SolveOptions } from '../../src/engine/solvers/types.js';
import { body, close, contact, diagonalProblem, staticBody } from './helpers.js';

/** The solvers that must reproduce exact QP-SOCP answers. PGS in cone mode has the same fixed points. */
const EXACT: SolveOptions[] = [
  { solver: 'newton' },
  { solver: 'ipm' },
  { solver: 'pgs', friction: 'cone', diagonalScaling: true, maxIterations: 20000, tolerance: 1e-10 },
];
/** λ accuracy expected of a solver: direct methods to rounding, PGS to what its residual test implies. */
const lamTol = (o: SolveOptions, scale = 1): number => (o.solver === 'pgs' ? 1e-5 : 1e-8) * scale;
const label = (o: SolveOptions): string => (o.solver === 'pgs' ? `pgs(${o.friction ?? 'coulomb-disk'})` : o.solver);

describe('contact constraint examples (docs/physics.md "Contact model")', () => {
  it('§11.1 / §12.1 head-on elastic collision: A = 2, b = 6, λ = 3, velocities swap, KE 2.5 J kept', () => {
    const bodies = [body(1, 0.4, [0, 0, 0], [2, 0, 0]), body(1, 0.4, [3, 0, 0], [-1, 0, 0])];
    // docs/physics.md "Conventions": n points from b into a, so n = (−1, 0, 0) here (the seed writes A → B).
    const p = assembleProblem(bodies, [contact(0, 1, [1.5, 0, 0], [-1, 0, 0], 0, 1)], { regularization: 0, baumgarte: false });
    close(p.A[0], 2, 1e-15, 'A_nn');
    close(p.b[0], 6, 1e-15, 'b_n');
    for (const o of EXACT) {
      const r = solve(p, o);
      close(r.lambda[0], 3, 1e-9, `${label(o)} λn`);
      const dv = bodyVelocityChanges(p, r.lambda);
      close(2 + dv[0], -1, 1e-9, 'v_A⁺');
      close(-1 + dv[6], 2, 1e-9, 'v_B⁺');
      const ke = 0.5 * (2 + dv[0]) ** 2 + 0.5 * (-1 + dv[6]) ** 2;
      close(ke, 2.5, 1e-8, 'KE after');
    }
  });

  it('§11.2 / §12.2 glancing collision: A = 3.75, λ = 0.4, Δω_A = +0.6, Δω_B = −1.2 (B placed at (1,0,0): the stated (2,0,0) contradicts r_B = (−0.5,0.5,0) for one contact point)', () => {
    const bodies = [body(2, 2 / 6, [0, 0, 0], [1, 0, 0]), body(1, 1 / 6, [1, 0, 0])];
    const p = assembleProblem(bodies, [contact(0, 1, [0.5, 0.5, 0], [-1, 0, 0], 0, 0.5)], { regularization: 0, baumgarte: false });
    close(p.A[0], 3.75, 1e-12, 'A_nn');
    close(p.b[0], 1.5, 1e-15, 'b_n');
    for (const o of EXACT) {
      const r = solve(p, o);
      close(r.lambda[0], 0.4, 1e-9, `${label(o)} λn`);
      const dv = bodyVelocityChanges(p, r.lambda);
      close(dv[0], -0.2, 1e-9, 'Δv_A');
      close(dv[6], 0.4, 1e-9, 'Δv_B');
      close(dv[5], 0.6, 1e-9, 'Δω_A,z');
      close(dv[11], -1.2, 1e-9, 'Δω_B,z');
      close(2 * (1 + dv[0]) + 1 * dv[6], 2, 1e-12, 'momentum');
      // the same Δv from the assembled blocks (used by the diagnoser and the pre-state reconstruction)
      const cs = [contact(0, 1, [0.5, 0.5, 0], [-1, 0, 0], 0, 0.5)];
      const fromBlocks = jacobianVelocityChanges(assembleJacobians(bodies, cs, { regularization: 0, baumgarte: false }), cs, r.lambda, bodies.length);
      for (let q = 0; q < 12; q++) close(fromBlocks[q], dv[q], 1e-15, `blocks Δv[${q}]`);
    }
  });

  it('§11.3 / §12.3 resting contact: λ/Δt = m·g exactly (λ = 0.78480, the seed rounds to 0.785)', () => {
    const dt = 0.016;
    const bodies = [body(5, 0.833, [0, 0, 0.5], [0, 0, -9.81 * dt]), staticBody()];
    const p = assembleProblem(bodies, [contact(0, -1, [0, 0, 0], [0, 0, 1], 0.5, 0)], { regularization: 0, baumgarte: false, dt });
    for (const o of EXACT) {
      const r = solve(p, o);
      close(r.lambda[0] / dt, 5 * 9.81, 1e-7, `${label(o)} contact force`);
      const dv = bodyVelocityChanges(p, r.lambda);
      close(-9.81 * dt + dv[2], 0, 1e-9, 'v_z⁺');
    }
  });

  it('§12.4 PGS on the 2×2 system A = [[2, .5], [.5, 3]], b = (1, 1.5) reaches A⁻¹b = (0.391304…, 0.434783…)', () => {
    const A = new Float64Array(36);
    A[0] = 2;
    A[3] = 0.5;
    A[18] = 0.5;
    A[21] = 3;
    for (const i of [1, 2, 4, 5]) A[i * 6 + i] = 1;
    const p = makeProblem({ A, b: [1, 0, 0, 1.5, 0, 0], mu: [0, 0] });
    for (const o of [{ solver: 'pgs' } as const, ...EXACT]) {
      const r = solve(p, o);
      assert.equal(r.status.kind, 'converged', label(o));
      close(r.lambda[0], 2.25 / 5.75, 1e-6, `${label(o)} λ0`);
      close(r.lambda[3], 2.5 / 5.75, 1e-6, `${label(o)} λ1`);
    }
  });

  it('§12.5 separating contact (ġ_n = +2 m/s) gets λ = 0 and λ·w = 0', () => {
    const bodies = [body(1, 0.4, [0, 0, 0], [-1, 0, 0]), body(1, 0.4, [2, 0, 0], [1, 0, 0])];
    const p = assembleProblem(bodies, [contact(0, 1, [1, 0, 0], [-1, 0, 0], 0.5, 1)], { regularization: 0, baumgarte: false });
    for (const o of [{ solver: 'pgs' } as const, ...EXACT]) {
      const r = solve(p, o);
      assert.deepEqual(Array.from(r.lambda), [0, 0, 0], label(o));
      assert.equal(r.contactClass[0], 'separating');
      assert.ok(r.kkt.compAbs === 0);
    }
  });

  it('§12.6 two supports under a 10 kg body share the load: λ₁ = λ₂ = m·g·Δt/2 (regularised singular 2×2, and the full 3-D body)', () => {
    const dt = 0.016,
      m = 10;
    const A = new Float64Array(36);
    A[0] = 0.1 + 1e-6;
    A[3] = 0.1;
    A[18] = 0.1;
    A[21] = 0.1 + 1e-6;
    for (const i of [1, 2, 4, 5]) A[i * 6 + i] = 1;
    const matrix = makeProblem({ A, b: [9.81 * dt, 0, 0, 9.81 * dt, 0, 0], mu: [0, 0] });
    const bodies = [body(m, 10 / 6, [0, 0, 0.5], [0, 0, -9.81 * dt]), staticBody()];
    const physical = assembleProblem(bodies, [contact(0, -1, [-0.5, 0, 0], [0, 0, 1], 0.5), contact(0, -1, [0.5, 0, 0], [0, 0, 1], 0.5)], {
      baumgarte: false,
      dt,
    });
    // Matrix version: the exact split is g·Δt/(0.2 + 1e-6) (the seed's 1e-6 regularisation shifts it by 5e-6).
    for (const [p, each] of [
      [matrix, (9.81 * dt) / (0.2 + 1e-6)],
      [physical, (m * 9.81 * dt) / 2],
    ] as const) {
      for (const o of EXACT) {
        const r = solve(p, o);
        close(r.lambda[0] + r.lambda[3], 2 * each, 1e-6, `${label(o)} total impulse`);
        // The split is set by the 1e-6 regularisation alone; PGS converges along that direction at a rate
        // 1 − O(1e-5) per sweep, so only the direct solvers are held to the symmetric split.
        if (o.solver === 'pgs') continue;
        close(r.lambda[0], each, 1e-7, `${label(o)} λ1`);
        close(r.lambda[3], each, 1e-7, `${label(o)} λ2`);
      }
    }
  });
});

describe('friction-cone examples (A = 0.1·I + 1e-10·I; docs/physics.md "The QP-SOCP and its KKT conditions")', () => {
  const ALL: SolveOptions[] = [...EXACT];

  it('Ex.1 frictionless: λ = (15, 0, 0), Newton in ≤ 2 iterations, v⁺ = 0.5 = −e·v⁻', () => {
    const p = diagonalProblem(0.1, [1.5, 0, 0], [0]);
    for (const o of ALL) close(solve(p, o).lambda[0], 15, 1e-6, label(o));
    const r = solve(p, { solver: 'newton' });
    assert.equal(r.status.kind, 'converged');
    assert.ok(r.iterations <= 2);
    close(-1 + r.lambda[0] / 10, 0.5, 1e-8, 'v⁺');
  });

  it('Ex.2 sticking: λ = (15, −2, 0) strictly inside the cone, Newton in 1 iteration', () => {
    const p = diagonalProblem(0.1, [1.5, -0.2, 0], [0.5]);
    for (const o of ALL) {
      const r = solve(p, o);
      close(r.lambda[0], 15, 1e-7, label(o));
      close(r.lambda[1], -2, 1e-7, label(o));
      close(r.lambda[2], 0, 1e-7, label(o));
      assert.equal(r.contactClass[0], 'sticking');
    }
    assert.equal(solve(p, { solver: 'newton' }).iterations, 1);
  });

  it('Ex.3 sliding: λ = Proj_K(λ_unc) = (30/1.09, −0.18·30/1.09, −0.24·30/1.09) on the cone surface', () => {
    const p = diagonalProblem(0.1, [1.5, -3, -4], [0.3]);
    const ln = 30 / 1.09;
    for (const o of ALL) {
      const r = solve(p, o);
      close(r.lambda[0], ln, 1e-6, label(o));
      close(r.lambda[1], -0.6 * 0.3 * ln, 1e-6, label(o));
      close(r.lambda[2], -0.8 * 0.3 * ln, 1e-6, label(o));
      close(Math.hypot(r.lambda[1], r.lambda[2]), 0.3 * r.lambda[0], 1e-6, 'on surface');
      assert.equal(r.contactClass[0], 'sliding');
    }
  });

  it('Ex.3 with sequential-impulse PGS (Coulomb disk law): stops at λ = (15, −2.7, −3.6), which is not the QP-SOCP optimum, and says so (status "stalled", never "converged")', () => {
    const p = diagonalProblem(0.1, [1.5, -3, -4], [0.3]);
    const r = solve(p, { solver: 'pgs' });
    close(r.lambda[0], 15, 1e-6, 'λn');
    close(r.lambda[1], -2.7, 1e-6, 'λt1');
    close(r.lambda[2], -3.6, 1e-6, 'λt2');
    assert.equal(r.status.kind, 'stalled');
    assert.ok(r.kkt.maxRel > 1e-2, `KKT residual ${r.kkt.maxRel}`);
  });

  it('Ex.4 two coupled contacts (μ = 0.8, 0.2): λ₀ + λ₁ = (15, −10, 0); the ε-selected split puts BOTH on their cone surfaces, (35/3, −28/3, 0) and (10/3, −2/3, 0) — the seed expects contact 0 strictly inside', () => {
    const n = 6,
      A = new Float64Array(36);
    for (let i = 0; i < 3; i++) {
      A[i * n + i] = 0.1 + 1e-10;
      A[(i + 3) * n + i + 3] = 0.1 + 1e-10;
      A[i * n + i + 3] = 0.1;
      A[(i + 3) * n + i] = 0.1;
    }
    const p = makeProblem({ A, b: [1.5, -1, 0, 1.5, -1, 0], mu: [0.8, 0.2], regularization: 1e-10 });
    for (const o of ALL) {
      const r = solve(p, o);
      close(r.lambda[0] + r.lambda[3], 15, 1e-5, `${label(o)} Σλn`);
      close(r.lambda[1] + r.lambda[4], -10, 1e-5, `${label(o)} Σλt1`);
      assert.ok(Math.hypot(r.lambda[1], r.lambda[2]) <= 0.8 * r.lambda[0] + 1e-9, 'contact 0 in its cone');
      assert.ok(Math.hypot(r.lambda[4], r.lambda[5]) <= 0.2 * r.lambda[3] + 1e-9, 'contact 1 in its cone');
      assert.ok(kkt(p, r.lambda).maxRel <= 1e-8, `${label(o)} KKT`);
      // The split is an ε = 1e-10 tie-break (κ ≈ 2e9): only the Newton solver resolves it to 1e-5; PGS and
      // the interior-point method stop once the KKT residual is met.
      if (o.solver !== 'newton') continue;
      close(r.lambda[0], 35 / 3, 1e-5, `${label(o)} λn,0`);
      close(r.lambda[1], -28 / 3, 1e-5, `${label(o)} λt1,0`);
      close(r.lambda[3], 10 / 3, 1e-5, `${label(o)} λn,1`);
      close(r.lambda[4], -2 / 3, 1e-5, `${label(o)} λt1,1`);
      close(Math.hypot(r.lambda[1], r.lambda[2]), 0.8 * r.lambda[0], 1e-5, 'contact 0 also on its surface');
      close(Math.hypot(r.lambda[4], r.lambda[5]), 0.2 * r.lambda[3], 1e-5, 'contact 1 on its surface');
    }
  });

  it('Ex.5 warm start: r⁰ = 3.578 cold and 0.1118 warm (eq. 11, ρ = 1); both reach (32, −16, 0); warm needs ≤ the cold iterations', () => {
    const p = diagonalProblem(0.1, [1.5, -5, 0], [0.5]);
    close(projectedGradientResidual(p, [0, 0, 0]), Math.hypot(3.2, 1.6), 1e-6, 'r⁰ cold');
    close(projectedGradientResidual(p, [31, -15.5, 0]), Math.hypot(0.1, 0.05), 1e-6, 'r⁰ warm');
    for (const o of ALL) {
      const cold = solve(p, o),
        warm = solve(p, o, [31, -15.5, 0]);
      for (const r of [cold, warm]) {
        close(r.lambda[0], 32, 1e-6, label(o));
        close(r.lambda[1], -16, 1e-6, label(o));
      }
      assert.ok(warm.iterations <= cold.iterations, `${label(o)}: warm ${warm.iterations} > cold ${cold.iterations}`);
    }
  });

  it('Ex.6 grazing contact b = (0.001, −5, 0): λ = (20.008, −10.004, 0), finite, on the surface', () => {
    const p = diagonalProblem(0.1, [0.001, -5, 0], [0.5]);
    for (const o of ALL) {
      const r = solve(p, o);
      close(r.lambda[0], 20.008, 1e-6, label(o));
      close(r.lambda[1], -10.004, 1e-6, label(o));
      assert.equal(r.status.kind, 'converged', label(o));
    }
  });

  it('Ex.7 incline at the friction angle: sticking λ = (2.013, 0.671, 0); sliding b = (0.2013, 0.2013, 0) gives λ = (2.4156, 1.2078, 0)', () => {
    const stick = diagonalProblem(0.1, [0.2013, 0.0671, 0], [0.5]);
    const slide = diagonalProblem(0.1, [0.2013, 0.2013, 0], [0.5]);
    for (const o of ALL) {
      const a = solve(stick, o),
        s = solve(slide, o);
      close(a.lambda[0], 2.013, 1e-6, label(o));
      close(a.lambda[1], 0.671, 1e-6, label(o));
      assert.ok(Math.abs(a.lambda[1]) / a.lambda[0] < 0.5);
      close(s.lambda[0], 2.4156, 1e-6, label(o));
      close(s.lambda[1], 1.2078, 1e-6, label(o));
      assert.ok(s.lambda[0] > a.lambda[0]);
    }
  });
});

describe('SOCP reformulation examples (Acary, Cadoux, Lemaréchal & Malick 2011)', () => {
  it('Ex.2 stick regime at μ = 1: A = 0.2·I, b = (0.0981, −0.04, 0) → λ = (0.4905, −0.2, 0) strictly inside the cone', () => {
    const p = diagonalProblem(0.2, [0.0981, -0.04, 0], [1], 0);
    for (const o of EXACT) {
      const r = solve(p, o);
      close(r.lambda[0], 0.4905, 1e-8, label(o));
      close(r.lambda[1], -0.2, 1e-8, label(o));
      close(r.lambda[2], 0, 1e-8, label(o));
      assert.ok(Math.hypot(r.lambda[1], r.lambda[2]) < r.lambda[0] - 1e-3);
    }
  });

  it('Ex.3 near-parallel contacts: κ(A) = 0.1999/0.0001 ≈ 1999, not 1e10, and A factorises WITHOUT regularisation (the seed expects Cholesky to fail); λn = 1/0.1999 each', () => {
    const n = 6,
      A = new Float64Array(36);
    for (let i = 0; i < 3; i++) {
      A[i * n + i] = 0.1;
      A[(i + 3) * n + i + 3] = 0.1;
      A[i * n + i + 3] = 0.0999;
      A[(i + 3) * n + i] = 0.0999;
    }
    const c = conditioning(A, n);
    close(c.kappa, 0.1999 / 0.0001, 1e-6 * 1999, 'κ');
    assert.equal(c.rankDeficiency, 0);
    const f = choleskyWithFallback(A, n, { tryUnshifted: true });
    assert.ok(f);
    assert.equal(f.regularization, 0);
    const p = makeProblem({ A, b: [1, 0, 0, 1, 0, 0], mu: [0.5, 0.5] });
    for (const o of EXACT) {
      const r = solve(p, o);
      close(r.lambda[0], 1 / 0.1999, lamTol(o, 5), label(o));
      close(r.lambda[3], 1 / 0.1999, lamTol(o, 5), label(o));
    }
  });

  it('Ex.3 GTest matrix (coupling 0.099999 on the normal rows only): κ = 0.199999/0.000001 ≈ 2.0e5 and it factorises without regularisation too', () => {
    const n = 6,
      A = new Float64Array(36);
    for (let i = 0; i < n; i++) A[i * n + i] = 0.1;
    A[3 * n + 0] = 0.099999;
    A[0 * n + 3] = 0.099999;
    const c = conditioning(A, n);
    close(c.kappa, 0.199999 / 0.000001, 1e-3 * 2e5, 'κ');
    assert.equal(choleskyWithFallback(A, n, { tryUnshifted: true })?.regularization, 0);
  });
});

describe('Baumgarte form and the restitution target (docs/physics.md "Contact model")', () => {
  it('P1: the bias is velocity-level (ERP/Δt)·depth: ERP 0.2, Δt 1/60, depth 1 cm → b_n = 0.12 m/s; ERP = α·Δt²: α = 100 → 0.0256 at Δt = 0.016 s, ERP 0.2 → α = 781.25', () => {
    const bodies = [body(1, 1, [0, 0, 0.5]), staticBody()];
    const p = assembleProblem(bodies, [contact(0, -1, [0, 0, 0], [0, 0, 1], 0, 0, 0.01)], { erp: 0.2, dt: 1 / 60, slop: 0 });
    close(p.rhs!.bias[0], 0.12, 1e-15, 'bias');
    close(p.b[0], 0.12, 1e-15, 'b_n');
    close(100 * 0.016 ** 2, 0.0256, 1e-15, 'ERP from α');
    close(0.2 / 0.016 ** 2, 781.25, 1e-9, 'α from ERP');
    const withSlop = assembleProblem(bodies, [contact(0, -1, [0, 0, 0], [0, 0, 1], 0, 0, 0.01)], { erp: 0.2, dt: 1 / 60, slop: 0.004 });
    close(withSlop.b[0], 0.2 * 60 * 0.006, 1e-15, 'bias with slop');
  });

  it('P2: RHS −(1+e)·ġ⁻ gives v⁺ = −e·v⁻ (KE × e² = 0.64); using −(1+e)·ġ⁻ as the TARGET gives v⁺ = (1+e)·|v⁻| (KE × 3.24, the "rocket ball")', () => {
    const e = 0.8,
      v = -3,
      m = 2;
    const bodies = [body(m, 1, [0, 0, 0.5], [0, 0, v]), staticBody()];
    const p = assembleProblem(bodies, [contact(0, -1, [0, 0, 0], [0, 0, 1], 0, e)], { regularization: 0, baumgarte: false });
    close(p.b[0], -(1 + e) * v, 1e-15, 'b_n');
    close(p.rhs!.restitution[0] + p.rhs!.velocity[0], p.b[0], 0, 'decomposition');
    const good = solve(p, { solver: 'newton' });
    const vPlus = v + bodyVelocityChanges(p, good.lambda)[2];
    close(vPlus, -e * v, 1e-9, 'v⁺');
    close(vPlus ** 2 / v ** 2, e * e, 1e-9, 'KE ratio');
    // The bug: target = −(1+e)·ġ⁻, so b = target − ġ⁻.
    const buggyB = Array.from(p.b);
    buggyB[0] = -(1 + e) * v - v;
    const bad = solve(makeProblem({ A: p.A, b: buggyB, mu: p.mu }), { solver: 'newton' });
    const vBad = v + bad.lambda[0] / m;
    close(vBad, -(1 + e) * v, 1e-9, 'buggy v⁺');
    close(vBad ** 2 / v ** 2, (1 + e) ** 2, 1e-9, 'buggy KE ratio 3.24');
  });
});
