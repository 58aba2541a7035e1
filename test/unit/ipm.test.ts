/**
 * Interior-point solver (src/engine/solvers/ipm.ts): the oracle corpus (../shared/oracle, FORMAT.md
 * "Recommended comparison" at direct-solver tolerances), the analytic known cases, the two-contact example below,
 * and structural edge cases (μ = 0, singular A, b = 0, 1e6 scaling between contacts).
 */
import assert from 'node:assert/strict';
import { solveIpm } from '../../src/engine/solvers/ipm.js';
import { kkt } from '../../src/engine/kkt.js';
import { projectCone } from '../../src/engine/cone.js';
import { assembleProblem } from '../../src/engine/assembly.js';
import { makeProblem, objective, type BodyState, type ContactPoint, type ContactProblem } from '../../src/engine/problem.js';
import type { AlgorithmOutput } from '../../src/engine/solvers/types.js';
import { tangentBasis, type Vec3 } from '../../src/engine/math/vec3.js';
import { loadOracle, oracleAvailable, ORACLE_MISSING } from './oracle-corpus.js';
import { rng } from '../rng.js';

/** Acceptance thresholds (task brief; FORMAT.md "Recommended comparison", direct-solver column). */
const OBJ_TOL = 1e-9; // |f − f*| ≤ OBJ_TOL·max(1, |f*|)
const KKT_TOL = 1e-8; // kkt().maxRel
const W_TOL = 1e-6; // ‖w − w*‖∞ ≤ W_TOL·w_ref
const LAM_TOL = 1e-6; // ‖λ − λ*‖∞ ≤ LAM_TOL·lam_ref where λ* is unique

const EPS = 1e-10;

function w(p: ContactProblem, lam: ArrayLike<number>): Float64Array {
  const n = p.size,
    out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = -p.b[i];
    for (let j = 0; j < n; j++) s += p.A[i * n + j] * lam[j];
    out[i] = s;
  }
  return out;
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function finite(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}

/** Checks shared by every solve: finite, primal feasible to rounding, consistent bookkeeping. */
function checkOutput(p: ContactProblem, out: AlgorithmOutput): void {
  assert.ok(finite(out.lambda), 'λ must be finite');
  const r = kkt(p, out.lambda);
  assert.ok(r.primalAbs <= 1e-13 * Math.max(r.lamRef, 1e-300), `λ outside the cones by ${r.primalAbs} (lam_ref ${r.lamRef})`);
  for (let c = 0; c < p.contactCount; c++) {
    if (p.mu[c] === 0) assert.ok(out.lambda[3 * c + 1] === 0 && out.lambda[3 * c + 2] === 0, `μ = 0 contact ${c} has tangential impulse`);
  }
  assert.equal(out.history.residual.length, out.iterations + 1, 'history has the start point plus one entry per iteration');
  assert.equal(out.history.objective.length, out.iterations + 1);
  assert.ok(finite(out.history.residual) && finite(out.history.objective), 'history must be finite');
  assert.ok(out.regularization >= 0 && Number.isFinite(out.regularization));
}

/** A = a·I (+ε) per coordinate, as in the known cases. */
function diagonal(a: number, b: number[], mu: number[]): ContactProblem {
  const n = b.length,
    A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) A[i * n + i] = a + EPS;
  return makeProblem({ A, b, mu, regularization: EPS });
}

/** A = BBᵀ + εI from a random m×n B (rank ≤ m). */
function randomProblem(seed: number, C: number, mu: number[], rank = 3 * C): ContactProblem {
  const r = rng(seed),
    n = 3 * C;
  const B = Array.from({ length: n * rank }, () => r() - 0.5);
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < rank; k++) s += B[i * rank + k] * B[j * rank + k];
      A[i * n + j] = s + (i === j ? EPS : 0);
    }
  const b = Array.from({ length: n }, () => 2 * (r() - 0.5));
  return makeProblem({ A, b, mu, regularization: EPS });
}

function body(mass: number, x: Vec3, v: Vec3, omega: Vec3 = [0, 0, 0]): BodyState {
  const I = mass / 6; // unit cube
  return { invMass: 1 / mass, invInertiaWorld: [1 / I, 0, 0, 0, 1 / I, 0, 0, 0, 1 / I], x, v, omega };
}

function ground(bodyA: number, point: Vec3, mu: number, penetration = 0): ContactPoint {
  const normal: Vec3 = [0, 0, 1];
  const [t1, t2] = tangentBasis(normal);
  return { bodyA, bodyB: -1, point, normal, t1, t2, mu, restitution: 0, penetration };
}

describe('IPM: oracle corpus (objective 1e-9, KKT 1e-8, w 1e-6·w_ref, unique λ 1e-6·lam_ref)', () => {
  if (!oracleAvailable()) {
    it.skip(ORACLE_MISSING, () => undefined);
    return;
  }
  const instances = loadOracle();
  const iterations: number[] = [];
  let worstKkt = 0,
    totalMs = 0;
  after(() => {
    if (iterations.length === 0) return;
    const s = [...iterations].sort((a, b) => a - b);
    console.log(
      `      IPM corpus: ${s.length} instances, iterations min ${s[0]} / median ${s[s.length >> 1]} / max ${s[s.length - 1]}, ` +
        `worst KKT max_rel ${worstKkt.toExponential(2)}, solver time ${totalMs.toFixed(0)} ms`,
    );
  });
  for (const inst of instances) {
    it(inst.id, () => {
      const p = inst.matrix,
        sol = inst.solution;
      assert.ok(sol, `${inst.id} has no reference solution`);
      const t0 = performance.now();
      const out = solveIpm(p, { solver: 'ipm' });
      totalMs += performance.now() - t0;
      iterations.push(out.iterations);
      checkOutput(p, out);
      const r = kkt(p, out.lambda);
      worstKkt = Math.max(worstKkt, r.maxRel);
      assert.notEqual(out.status.kind, 'failed', JSON.stringify(out.status));
      const f = objective(p, out.lambda);
      assert.ok(
        Math.abs(f - sol.objective) <= OBJ_TOL * Math.max(1, Math.abs(sol.objective)),
        `objective ${f} vs ${sol.objective} (rel ${(Math.abs(f - sol.objective) / Math.max(1, Math.abs(sol.objective))).toExponential(2)})`,
      );
      assert.ok(r.maxRel <= KKT_TOL, `KKT max_rel ${r.maxRel.toExponential(2)} (status ${JSON.stringify(out.status)})`);
      const dw = maxAbsDiff(w(p, out.lambda), sol.w);
      assert.ok(dw <= W_TOL * sol.wRef, `‖w − w*‖∞ = ${dw.toExponential(2)} > ${W_TOL}·${sol.wRef}`);
      if (sol.lambdaUnique) {
        const dl = maxAbsDiff(out.lambda, sol.lambda);
        assert.ok(dl <= LAM_TOL * sol.lamRef, `‖λ − λ*‖∞ = ${dl.toExponential(2)} > ${LAM_TOL}·${sol.lamRef}`);
      }
    });
  }
});

describe('IPM: analytic known cases (A = 0.1·I + εI, FORMAT.md table)', () => {
  // With A = αI the minimiser over K is the Euclidean projection of b/α onto K (FORMAT.md case notes).
  const cases: { name: string; b: number[]; mu: number; eps0: number[] }[] = [
    { name: '(a) frictionless', b: [1.5, 0, 0], mu: 0, eps0: [15, 0, 0] },
    { name: '(b) sticking', b: [1.5, -0.2, 0], mu: 0.5, eps0: [15, -2, 0] },
    { name: '(c) sliding 2-D', b: [1.5, -3, -4], mu: 0.3, eps0: [30 / 1.09, (-0.6 * 0.3 * 30) / 1.09, (-0.8 * 0.3 * 30) / 1.09] },
    { name: '(d) sliding', b: [1.5, -5, 0], mu: 0.5, eps0: [32, -16, 0] },
    { name: '(e) sliding, tiny b_n', b: [0.001, -5, 0], mu: 0.5, eps0: [20.008, -10.004, 0] },
    { name: '(f) sticking, small', b: [0.2013, 0.0671, 0], mu: 0.5, eps0: [2.013, 0.671, 0] },
  ];
  for (const c of cases) {
    it(`${c.name}: λ = Proj_K(b/(0.1 + ε)) to 1e-9 relative, ≈ ${c.eps0.map((v) => +v.toFixed(4)).join(', ')} (ε = 0)`, () => {
      const p = diagonal(0.1, c.b, [c.mu]);
      const out = solveIpm(p, { solver: 'ipm' });
      checkOutput(p, out);
      assert.equal(out.status.kind, 'converged', JSON.stringify(out.status));
      const exact = Float64Array.from(c.b, (v) => v / (0.1 + EPS));
      projectCone(exact, 0, c.mu, exact);
      const scale = Math.max(...exact.map(Math.abs));
      assert.ok(maxAbsDiff(out.lambda, exact) <= 1e-9 * scale, `λ = ${Array.from(out.lambda)} vs ${Array.from(exact)}`);
      assert.ok(maxAbsDiff(out.lambda, c.eps0) <= 1e-8 * scale, `λ = ${Array.from(out.lambda)} vs ε = 0 answer ${c.eps0}`);
      assert.ok(kkt(p, out.lambda).maxRel <= 1e-10);
    });
  }

  it('two contacts on one body (case g): A = 0.1[[I,I],[I,I]] + εI, μ = (0.8, 0.2) → λ0+λ1 = (15, −10, 0), ε-selected split (35/3, −28/3, 0), (10/3, −2/3, 0)', () => {
    const n = 6,
      A = new Float64Array(36);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i % 3 === j % 3) A[i * n + j] = 0.1 + (i === j ? EPS : 0);
    const p = makeProblem({ A, b: [1.5, -1, 0, 1.5, -1, 0], mu: [0.8, 0.2], regularization: EPS });
    const out = solveIpm(p, { solver: 'ipm' });
    checkOutput(p, out);
    assert.equal(out.status.kind, 'converged', JSON.stringify(out.status));
    const l = out.lambda;
    assert.ok(maxAbsDiff([l[0] + l[3], l[1] + l[4], l[2] + l[5]], [15, -10, 0]) <= 1e-7, `sum ${[l[0] + l[3], l[1] + l[4], l[2] + l[5]]}`);
    assert.ok(maxAbsDiff(l, [35 / 3, -28 / 3, 0, 10 / 3, -2 / 3, 0]) <= 1e-6, `split ${Array.from(l)}`);
    assert.ok(kkt(p, l).maxRel <= 1e-10);
    assert.ok(Math.abs(objective(p, l) - -16.249999988261113) <= 1e-12 * 16.25, `f = ${objective(p, l)}`);
  });
});

describe('IPM: structural cases', () => {
  it('b = 0: returns λ = 0 exactly, converged, 0 iterations', () => {
    const p = randomProblem(1, 4, [0.5, 0, 1, 0.3]);
    const p0 = makeProblem({ A: p.A, b: new Float64Array(12), mu: p.mu, regularization: EPS });
    const out = solveIpm(p0, { solver: 'ipm' });
    checkOutput(p0, out);
    assert.equal(out.status.kind, 'converged');
    assert.equal(out.iterations, 0);
    assert.ok(out.lambda.every((v) => v === 0));
  });

  it('all contacts separating (−b ∈ K*): λ = 0 exactly', () => {
    const p = diagonal(0.1, [-1, 0.2, 0, -0.5, 0, 0], [0.5, 0]);
    const out = solveIpm(p, { solver: 'ipm' });
    assert.equal(out.status.kind, 'converged');
    assert.ok(out.lambda.every((v) => v === 0));
  });

  it('μ = 0 everywhere: matches brute-force enumeration of the LCP active sets, λt = 0', () => {
    for (let seed = 10; seed < 15; seed++) {
      const C = 5,
        p = randomProblem(seed, C, new Array(C).fill(0));
      const out = solveIpm(p, { solver: 'ipm' });
      checkOutput(p, out);
      assert.equal(out.status.kind, 'converged', JSON.stringify(out.status));
      // reference: the normal-only LCP 0 ≤ λn ⟂ A_nn λn − b_n ≥ 0 by enumeration of the 2^C active sets
      const ref = enumerateLcp(p);
      const ln = Array.from({ length: C }, (_, c) => out.lambda[3 * c]);
      assert.ok(maxAbsDiff(ln, ref) <= 1e-8 * Math.max(1, ...ref), `seed ${seed}: ${ln} vs ${ref}`);
      assert.ok(kkt(p, out.lambda).maxRel <= 1e-10);
    }
  });

  it('mixed μ (incl. 0) on random dense PD problems: KKT ≤ 1e-10, converged', () => {
    for (let seed = 20; seed < 30; seed++) {
      const r = rng(seed),
        C = 8;
      const mu = Array.from({ length: C }, () => [0, 0.1, 0.5, 1, 1.5][Math.floor(r() * 5)]);
      const p = randomProblem(seed, C, mu);
      const out = solveIpm(p, { solver: 'ipm' });
      checkOutput(p, out);
      assert.equal(out.status.kind, 'converged', `seed ${seed}: ${JSON.stringify(out.status)}`);
      assert.ok(kkt(p, out.lambda).maxRel <= 1e-10);
    }
  });

  it('singular A from duplicated contacts (4 box corners + exact duplicates): same w and objective as without duplicates', () => {
    const bodies = [body(2, [0, 0, 0.5], [0.4, -0.2, -1.5], [0.1, 0.3, 0.2])];
    const corners: Vec3[] = [
      [0.5, 0.5, 0],
      [0.5, -0.5, 0],
      [-0.5, 0.5, 0],
      [-0.5, -0.5, 0],
    ];
    const base = corners.map((pt) => ground(0, pt, 0.6, 0.01));
    const dup = [...base, base[0], base[2], base[2]];
    const opts = { restVelocityThreshold: 0 };
    const p = assembleProblem(bodies, base, opts);
    const pd = assembleProblem(bodies, dup, opts);
    const out = solveIpm(p, { solver: 'ipm' });
    const outd = solveIpm(pd, { solver: 'ipm' });
    for (const [prob, o] of [
      [p, out],
      [pd, outd],
    ] as const) {
      checkOutput(prob, o);
      assert.equal(o.status.kind, 'converged', JSON.stringify(o.status));
      assert.ok(kkt(prob, o.lambda).maxRel <= 1e-10);
    }
    // w and f are unique; duplicating a contact does not change the set of reachable impulses
    // (ε·I only moves f by ~ε‖λ‖²)
    const f = objective(p, out.lambda),
      fd = objective(pd, outd.lambda);
    assert.ok(Math.abs(f - fd) <= 1e-8 * Math.max(1, Math.abs(f)), `f ${f} vs ${fd}`);
    const wb = w(p, out.lambda),
      wd = w(pd, outd.lambda);
    const wref = Math.max(...Array.from(wb, Math.abs), ...Array.from(p.b, Math.abs));
    assert.ok(maxAbsDiff(wb, wd.subarray(0, 12)) <= 1e-6 * wref, 'w of the shared contacts');
    // the impulse of a duplicated pair equals... its share of the undetermined total: check the sums
    const tot = (l: Float64Array, k: number, idx: number[]) => idx.reduce((s, c) => s + l[3 * c + k], 0);
    for (let k = 0; k < 3; k++) {
      assert.ok(
        Math.abs(tot(out.lambda, k, [0, 1, 2, 3]) - tot(outd.lambda, k, [0, 1, 2, 3, 4, 5, 6])) <= 1e-6 * Math.max(...Array.from(out.lambda, Math.abs)),
        `total impulse component ${k}`,
      );
    }
  });

  it('1e6 scaling between contacts (block 1 of A scaled by 1e-6): never NaN, converged, λ equals the rescaled unscaled answer', () => {
    for (let seed = 40; seed < 45; seed++) {
      const C = 6,
        r = rng(seed);
      const mu = Array.from({ length: C }, () => [0, 0.3, 0.8, 1][Math.floor(r() * 4)]);
      const p = randomProblem(seed, C, mu, 9); // rank 9 < 18: also singular
      // S = diag(s_c) per contact with s = 1e-3 on contact 1: A' = SAS (block 1 × 1e-6), b' = Sb; K is
      // invariant under a positive per-contact scalar, so λ' = S⁻¹λ (ε is scaled too: A' keeps ε·S²).
      const n = 3 * C,
        s = new Float64Array(n).fill(1);
      for (let i = 3; i < 6; i++) s[i] = 1e-3;
      const A2 = new Float64Array(n * n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) A2[i * n + j] = s[i] * p.A[i * n + j] * s[j];
      const p2 = makeProblem({ A: A2, b: Array.from(p.b, (v, i) => s[i] * v), mu, regularization: EPS });
      const out = solveIpm(p, { solver: 'ipm' });
      const out2 = solveIpm(p2, { solver: 'ipm' });
      checkOutput(p, out);
      checkOutput(p2, out2);
      assert.equal(out2.status.kind, 'converged', `seed ${seed}: ${JSON.stringify(out2.status)}`);
      assert.ok(kkt(p2, out2.lambda).maxRel <= 1e-10);
      const f = objective(p, out.lambda),
        f2 = objective(p2, out2.lambda);
      assert.ok(Math.abs(f - f2) <= 1e-9 * Math.max(1, Math.abs(f)), `seed ${seed}: f ${f} vs ${f2}`);
      const w1 = w(p, out.lambda),
        w2 = w(p2, out2.lambda);
      const wref = Math.max(...Array.from(w1, Math.abs), ...Array.from(p.b, Math.abs));
      for (let i = 0; i < n; i++) assert.ok(Math.abs(w1[i] - w2[i] / s[i]) <= 1e-6 * wref, `seed ${seed}: w[${i}]`);
    }
  });

  it('status and iterate bookkeeping: budget exhaustion, a far warm start, history', () => {
    const p = randomProblem(7, 6, [0.5, 0.5, 0, 1, 0.2, 0.8]);
    const short = solveIpm(p, { solver: 'ipm', maxIterations: 2 });
    checkOutput(p, short);
    assert.equal(short.status.kind, 'max-iterations');
    assert.equal(short.iterations, 2);
    const zero = solveIpm(p, { solver: 'ipm', maxIterations: 0 });
    checkOutput(p, zero);
    assert.equal(zero.iterations, 0);
    const full = solveIpm(p, { solver: 'ipm' });
    const warm = solveIpm(
      p,
      { solver: 'ipm' },
      Float64Array.from({ length: 18 }, (_, i) => (i % 2 ? 1e6 : -3)),
    );
    // a start far off (1e6 N·s tangential impulses) costs iterations, not accuracy
    checkOutput(p, warm);
    assert.equal(warm.status.kind, 'converged');
    assert.ok(kkt(p, warm.lambda).maxRel <= 1e-10);
    assert.equal(full.status.kind, 'converged');
    const h = full.history.residual;
    assert.ok(h[h.length - 1] <= 1e-10 && h[h.length - 1] === kkt(p, full.lambda).maxRel, 'last history entry is the returned point');
    const loose = solveIpm(p, { solver: 'ipm', tolerance: 1e-4 });
    assert.equal(loose.status.kind, 'converged');
    assert.ok(loose.iterations < full.iterations && kkt(p, loose.lambda).maxRel <= 1e-4);
  });
});

/** Frictionless reference: all 2^C active sets of 0 ≤ λn ⟂ A_nn λn − b_n ≥ 0 (small C only). */
function enumerateLcp(p: ContactProblem): number[] {
  const C = p.contactCount,
    n = p.size;
  const a = (i: number, j: number) => p.A[3 * i * n + 3 * j];
  for (let mask = 0; mask < 1 << C; mask++) {
    const S = Array.from({ length: C }, (_, i) => i).filter((i) => mask & (1 << i));
    const m = S.length;
    // solve A_SS λ_S = b_S by Gaussian elimination with partial pivoting
    const M = S.map((i) => [...S.map((j) => a(i, j)), p.b[3 * i]]);
    let ok = true;
    for (let k = 0; k < m && ok; k++) {
      let piv = k;
      for (let i = k + 1; i < m; i++) if (Math.abs(M[i][k]) > Math.abs(M[piv][k])) piv = i;
      if (Math.abs(M[piv][k]) < 1e-14) {
        ok = false;
        break;
      }
      [M[k], M[piv]] = [M[piv], M[k]];
      for (let i = k + 1; i < m; i++) {
        const f = M[i][k] / M[k][k];
        for (let j = k; j <= m; j++) M[i][j] -= f * M[k][j];
      }
    }
    if (!ok) continue;
    const xs = new Array(m).fill(0);
    for (let i = m - 1; i >= 0; i--) {
      let s = M[i][m];
      for (let j = i + 1; j < m; j++) s -= M[i][j] * xs[j];
      xs[i] = s / M[i][i];
    }
    const lam = new Array(C).fill(0);
    S.forEach((i, k) => {
      lam[i] = xs[k];
    });
    if (lam.some((v) => v < -1e-12)) continue;
    let feasible = true;
    for (let i = 0; i < C && feasible; i++) {
      if (mask & (1 << i)) continue;
      let wi = -p.b[3 * i];
      for (let j = 0; j < C; j++) wi += a(i, j) * lam[j];
      if (wi < -1e-12) feasible = false;
    }
    if (feasible) return lam;
  }
  throw new Error('no LCP solution found');
}

describe("IPM: refinement 'shifted' (the diagnosis' exact re-solves, KKT 1e-6)", () => {
  if (!oracleAvailable()) {
    it.skip(ORACLE_MISSING, () => undefined);
    return;
  }
  it('meets the same tolerance as the default refinement on every oracle instance, objective and w within it', () => {
    const tol = 1e-6;
    let n = 0,
      sameIterations = 0;
    for (const inst of loadOracle()) {
      const p = inst.matrix;
      const always = solveIpm(p, { solver: 'ipm', tolerance: tol });
      const shifted = solveIpm(p, { solver: 'ipm', tolerance: tol, refinement: 'shifted' });
      checkOutput(p, shifted);
      assert.equal(shifted.status.kind, always.status.kind, `${inst.id}: ${JSON.stringify(shifted.status)} vs ${JSON.stringify(always.status)}`);
      if (always.status.kind !== 'converged') continue;
      n++;
      if (shifted.iterations === always.iterations) sameIterations++;
      const r = kkt(p, shifted.lambda);
      assert.ok(r.maxRel <= tol, `${inst.id}: KKT max_rel ${r.maxRel.toExponential(2)}`);
      const fa = objective(p, always.lambda),
        fs = objective(p, shifted.lambda);
      assert.ok(Math.abs(fs - fa) <= 10 * tol * Math.max(1, Math.abs(fa)), `${inst.id}: objective ${fs} vs ${fa}`);
      const dw = maxAbsDiff(w(p, shifted.lambda), w(p, always.lambda));
      assert.ok(dw <= 10 * tol * Math.max(r.wRef, 1e-300), `${inst.id}: ‖Δw‖∞ ${dw.toExponential(2)} (w_ref ${r.wRef})`);
    }
    assert.ok(n > 0, 'some instance converged');
    console.log(`      refinement 'shifted': ${n} converged instances, ${sameIterations} with the same iteration count as 'always'`);
  });
});

describe('interior point from a warm start (Gondzio shift)', () => {
  // the solution of a nearby problem (b moved by 1 %) as the start: a frame's warm-start cache, a De Saxcé step
  const p = randomProblem(11, 8, [0.5, 0.5, 0, 1, 0.2, 0.8, 0.3, 0.6]);
  const near = { ...p, b: Float64Array.from(p.b, (v, i) => v * (1 + 0.01 * Math.sin(i))) };
  const start = solveIpm(near, { solver: 'ipm' }).lambda;

  it('starts there: converged to the tolerance in fewer iterations than the cold start', () => {
    const cold = solveIpm(p, { solver: 'ipm' }),
      warm = solveIpm(p, { solver: 'ipm' }, start);
    checkOutput(p, warm);
    assert.equal(warm.status.kind, 'converged');
    assert.ok(kkt(p, warm.lambda).maxRel <= 1e-10);
    assert.ok(warm.iterations < cold.iterations, `warm ${warm.iterations} vs cold ${cold.iterations} iterations`);
    assert.equal(warm.history.residual.length, warm.iterations + 1);
  });
});
