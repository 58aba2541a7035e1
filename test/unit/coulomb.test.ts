/**
 * The exact Coulomb friction solver (src/engine/solvers/coulomb.ts): its merit, the FCLIB test problem, the
 * oracle corpus, honest statuses, and a sliding box that stays on the ground where the convex model lifts it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { coulombMerit } from '../../src/engine/coulombMerit.js';
import type { ContactProblem } from '../../src/engine/problem.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { World } from '../../src/engine/world/world.js';
import { readFclibLocal } from '../../src/format/fclib.js';
import { parseOracleInstance } from '../../src/format/oracle.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { Diagnoser } from '../../src/session/diagnose.js';
import { close } from './helpers.js';
import { loadOracle, oracleAvailable, ORACLE_MISSING } from './oracle-corpus.js';
import { box, ground, scenario } from './world-helpers.js';

/** The bar for the Coulomb merit. */
const MERIT = 1e-8;
const ROOT = resolve(__dirname, '..', '..');
const COPY = join(ROOT, 'examples', 'problems', 'fclib-boxes-stack.json');
const HDF5 = resolve(process.env.CONTACT_LENS_FCLIB ?? join(ROOT, '..', 'shared', 'fclib', 'local_problem_test.hdf5'));

/** One contact, A = I, μ = 0.5, b = (1, 2, 0): it slides (|b_t| = 2 > μ b_n). */
function slidingContact(): ContactProblem {
  const A = new Float64Array(9);
  A[0] = A[4] = A[8] = 1;
  return { contactCount: 1, size: 3, A, b: Float64Array.from([1, 2, 0]), mu: Float64Array.from([0.5]), regularization: 0 };
}

/** Two sliding contacts whose normals are coupled (A_{n1 n2} = 0.5). */
function coupledSlidingPair(): ContactProblem {
  const A = new Float64Array(36);
  for (let i = 0; i < 6; i++) A[i * 6 + i] = 1;
  A[3] = A[18] = 0.5;
  return { contactCount: 2, size: 6, A, b: Float64Array.from([1, 2, 0.5, 1, 2, 0.5]), mu: Float64Array.from([0.5, 0.5]), regularization: 0 };
}

describe('Coulomb merit (FCLIB natural map)', () => {
  it('is 0 at the Coulomb solution of a sliding contact and > 0 at the convex (lifted) one', () => {
    const p = slidingContact();
    // Coulomb: w_n = 0 ⇒ λn = b_n = 1; sliding ⇒ λt = μλn = 0.5 along b_t.
    assert.equal(coulombMerit(p, Float64Array.from([1, 0.5, 0])), 0);
    // QP-SOCP: w_n = μ‖w_t‖ ⇒ λn − 1 = 0.5(2 − 0.5λn) ⇒ λn = 1.6, λt = 0.8 (docs/physics.md "The lift").
    const convex = Float64Array.from([1.6, 0.8, 0]);
    assert.ok(coulombMerit(p, convex) > 0.1, String(coulombMerit(p, convex)));
    assert.equal(coulombMerit(p, Float64Array.from([Number.NaN, 0, 0])), Number.POSITIVE_INFINITY);
  });
});

describe('coulomb solver', () => {
  it('one sliding contact: λ = (1, 0.5, 0), w_n = 0, converged on the Coulomb merit; ipm gives the lifted λ', () => {
    const r = solve(slidingContact(), { solver: 'coulomb' });
    assert.equal(r.status.kind, 'converged');
    assert.equal(r.merit.problem, 'coulomb');
    assert.ok(r.merit.value <= 1e-9, String(r.merit.value));
    close(r.lambda[0], 1, 1e-8, 'λn');
    close(r.lambda[1], 0.5, 1e-8, 'λt1');
    close(r.w[0], 0, 1e-8, 'w_n');
    // the same λ is not a KKT point of the QP-SOCP (the convex model's answer differs)
    assert.ok(r.kkt.maxRel > 1e-3, String(r.kkt.maxRel));
    const convex = solve(slidingContact(), { solver: 'ipm' });
    assert.equal(convex.merit.problem, 'qp-socp');
    close(convex.lambda[0], 1.6, 1e-8, 'convex λn');
    close(convex.w[0], 0.6, 1e-8, 'convex w_n = μ‖w_t‖');
  });

  it('stops honestly: one iteration is not enough for a sliding problem, non-finite data fail', () => {
    const p = parseOracleInstance(readFileSync(COPY, 'utf8'), COPY).matrix;
    // two sliding contacts whose normals are coupled (A_{n1 n2} = 0.5): one Gauss–Seidel sweep solves each contact
    // with the other one's old impulse, so one iteration cannot meet the tolerance (a lone contact can: its local
    // solve is exact, coulombLocal.ts)
    const coupled = coupledSlidingPair();
    const short = solve(coupled, { solver: 'coulomb', maxIterations: 1 });
    assert.notEqual(short.status.kind, 'converged');
    assert.ok(short.merit.value > 1e-9);
    const bad = solve({ ...p, b: p.b.map((x, i) => (i === 0 ? Number.POSITIVE_INFINITY : x)) }, { solver: 'coulomb' });
    assert.equal(bad.status.kind, 'failed');
  });

  it(`solves the FCLIB "Boxes Stack" problem (examples/problems/fclib-boxes-stack.json) to merit ≤ ${MERIT}`, () => {
    const p = parseOracleInstance(readFileSync(COPY, 'utf8'), COPY).matrix;
    const r = solve(p, { solver: 'coulomb' });
    assert.equal(r.status.kind, 'converged', r.status.kind === 'converged' ? '' : r.status.reason);
    assert.ok(r.merit.value <= MERIT && coulombMerit(p, r.lambda) === r.merit.value, String(r.merit.value));
  });

  it(`solves the FCLIB library's own HDF5 test file to merit ≤ ${MERIT}`, async function () {
    if (!existsSync(HDF5)) this.skip();
    this.timeout(20000);
    const p = (await readFclibLocal(HDF5, HDF5)).matrix;
    const r = solve(p, { solver: 'coulomb' });
    assert.equal(r.status.kind, 'converged');
    assert.ok(r.merit.value <= MERIT, String(r.merit.value));
  });

  it('warm solves of problems of several sizes in turn (buffers reused): the same λ each time, earlier results untouched', () => {
    const boxes = parseOracleInstance(readFileSync(COPY, 'utf8'), COPY).matrix;
    const coupled = coupledSlidingPair();
    // one contact that sticks (|b_t| = 0.1 < μ b_n): the same size as the sliding one, another solution
    const sticking: ContactProblem = { ...slidingContact(), b: Float64Array.from([1, 0.1, 0]) };
    const problems = [boxes, slidingContact(), coupled, boxes, coupled, slidingContact(), slidingContact(), sticking];
    const kept: { lambda: Float64Array; w: Float64Array; copy: Float64Array[] }[] = [];
    for (const p of problems) {
      const r = solve(p, { solver: 'coulomb' });
      assert.equal(r.status.kind, 'converged');
      kept.push({ lambda: r.lambda, w: r.w, copy: [Float64Array.from(r.lambda), Float64Array.from(r.w)] });
    }
    // a problem solved again, after others of other sizes, gives the same λ bit for bit
    assert.deepEqual(kept[3].copy, kept[0].copy);
    assert.deepEqual(kept[4].copy, kept[2].copy);
    assert.deepEqual(kept[6].copy, kept[1].copy);
    assert.notDeepEqual(kept[7].copy, kept[6].copy);
    // no result shares memory with a later solve's: every λ and w still holds what its solve returned
    for (const k of kept) assert.deepEqual([k.lambda, k.w], k.copy);
    // a warm start from the previous λ (as the inspector re-solves) converges at once to the same solution
    const again = solve(coupled, { solver: 'coulomb' }, kept[2].lambda);
    assert.equal(again.status.kind, 'converged');
    for (let i = 0; i < 6; i++) close(again.lambda[i], kept[2].copy[0][i], 1e-9, `λ[${i}]`);
    assert.deepEqual(kept[2].lambda, kept[2].copy[0]);
  });

  describe('the public oracle corpus', () => {
    if (!oracleAvailable()) {
      it.skip(ORACLE_MISSING, () => undefined);
      return;
    }
    it(`every instance to Coulomb merit ≤ ${MERIT}; sticking and frictionless instances keep the convex solution`, function () {
      this.timeout(60000);
      const failures: string[] = [];
      for (const inst of loadOracle()) {
        const r = solve(inst.matrix, { solver: 'coulomb' });
        if (!(r.merit.value <= MERIT) || r.status.kind !== 'converged') failures.push(`${inst.id}: ${r.status.kind} at ${r.merit.value.toExponential(2)}`);
        // where no contact slides (w_t = 0 or λ = 0 per contact), the convex and Coulomb problems coincide
        const ipm = solve(inst.matrix, { solver: 'ipm' });
        if (coulombMerit(inst.matrix, ipm.lambda) <= 1e-12) {
          const scale = Math.max(...Array.from(inst.matrix.b, Math.abs));
          for (let i = 0; i < r.w.length; i++) assert.ok(Math.abs(r.w[i] - ipm.w[i]) <= 1e-6 * scale, `${inst.id}: w[${i}] ${r.w[i]} vs ${ipm.w[i]}`);
        }
      }
      assert.deepEqual(failures, []);
    });
  });
});

describe('a 1 kg box sliding at 5 m/s on the ground (μ = 0.5)', () => {
  const slide = (solver: 'coulomb' | 'newton' | 'ipm') =>
    scenario([ground(), box('box', [0.25, 0.25, 0.25], 1, [0, 0, 0.25], [5, 0, 0])], { solver: { solver } }, [], 90);
  /** Highest centre height gain (m) and final x of the box over the run, and the islands' statuses. */
  function run(solver: 'coulomb' | 'newton' | 'ipm'): { gain: number; x: number; statuses: Set<string>; lift: number } {
    const desc = slide(solver);
    const world = new World(desc);
    const e = world.energy();
    const d = new Diagnoser(headerFromWorld(world), {}, e.kineticLinear + e.kineticRotational + e.potential);
    let top = -Infinity;
    const statuses = new Set<string>();
    for (let k = 0; k < desc.frames; k++) {
      const r = world.step();
      d.add(frameFromWorld(world, r));
      top = Math.max(top, world.bodies[1].x[2]);
      for (const isl of r.islands) statuses.add(isl.result.status.kind);
    }
    return { gain: top - 0.25, x: world.bodies[1].x[0], statuses, lift: d.findings.filter((f) => f.mechanism === 'convex-lift').length };
  }

  it('coulomb: stays on the ground (height gain < 1 mm), stops after v²/(2μg) = 2.55 m, every frame converged, no lift finding', () => {
    const r = run('coulomb');
    assert.ok(r.gain < 1e-3, `gain ${r.gain} m`);
    close(r.x, 25 / (2 * 0.5 * 9.81), 0.05, 'sliding distance');
    assert.deepEqual([...r.statuses], ['converged']);
    assert.equal(r.lift, 0);
  });

  for (const solver of ['newton', 'ipm'] as const) {
    it(`${solver} (convex QP-SOCP): still hops, by more than 10 cm (docs/physics.md "The lift")`, () => {
      const r = run(solver);
      assert.ok(r.gain > 0.1, `gain ${r.gain} m`);
      assert.ok(r.lift > 0);
    });
  }

  it('pgs (Coulomb disk) agrees with coulomb: friction opposite the slip at all four corners, the same stopping point to 1 mm', () => {
    const end = (solver: 'coulomb' | 'pgs'): number => {
      const world = new World(scenario([ground(), box('box', [0.5, 0.5, 0.5], 1, [0, 0, 0.5], [3, 0, 0])], { solver: { solver } }, [], 60));
      for (let k = 0; k < 60; k++) {
        const r = world.step();
        if (world.bodies[1].v[0] < 0.01) continue; // at rest the corners' static friction may twist (A is rank deficient)
        for (const c of r.contacts) {
          // sliding: λt ∥ −ġt⁺ (maximal dissipation), no sideways friction on a box sliding straight along x
          const lt = c.lambda[1] * c.contact.t1[1] + c.lambda[2] * c.contact.t2[1];
          assert.ok(Math.abs(lt) <= 1e-9 + 1e-6 * c.lambda[0], `${solver} frame ${k}: sideways friction ${lt}`);
        }
      }
      return world.bodies[1].x[0];
    };
    const xc = end('coulomb');
    close(end('pgs'), xc, 1e-3, 'pgs stopping point');
  });
});
