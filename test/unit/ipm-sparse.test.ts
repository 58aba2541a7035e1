/** The sparse interior point (ipmSparse.ts) and its block-sparse Cholesky: same answers as the dense IPM, no dense A. */
import assert from 'node:assert/strict';
import { assembleJacobians, assembleProblem, DEFAULT_ASSEMBLY } from '../../src/engine/assembly.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { kktMatrixFree, SPARSE_IPM_FORCING, solveIpmSparse } from '../../src/engine/solvers/ipmSparse.js';
import { matrixFreeRows } from '../../src/engine/solvers/pgsRows.js';
import { analyseBlockPattern, blockSlot, factorBlockSparse, solveBlockSparse, type PivotRegularization } from '../../src/engine/math/blockSparseCholesky.js';
import { kkt, KktWorkspace } from '../../src/engine/kkt.js';
import { bodySpace } from '../../src/engine/solvers/bodySpace.js';
import { CONE_ORTHANT, CONE_SOC, ntStepToBoundary, ntStepToBoundaryAll } from '../../src/engine/solvers/ipmCones.js';
import { DENSE_ISLAND_LIMIT, solveIsland } from '../../src/engine/island/solveIsland.js';
import { boxPyramid, relDiff, rng, speculativePile, sphereColumn } from './island-builders.js';
import { baseConfig } from './world-helpers.js';

describe('step to the boundary over all blocks', () => {
  it('ntStepToBoundaryAll is the minimum of ntStepToBoundary over the blocks, bit for bit, and leaves the same directions', () => {
    const r = rng(29);
    const C = 400;
    const kind = new Int8Array(C),
      winv = new Float64Array(9 * C),
      nt = new Float64Array(3 * C),
      dx = new Float64Array(3 * C),
      u = new Float64Array(3 * C);
    for (let c = 0; c < C; c++) {
      kind[c] = c % 7 === 0 ? CONE_ORTHANT : CONE_SOC;
      for (let i = 0; i < 9; i++) winv[9 * c + i] = r();
      const t1 = r(),
        t2 = r();
      // interior points, some a rounding step from the boundary, one on it (no step: 0)
      nt[3 * c] = c === 5 ? Math.hypot(t1, t2) : Math.hypot(t1, t2) * (1 + (c % 3 === 0 ? 1e-12 : Math.abs(r())));
      nt[3 * c + 1] = t1;
      nt[3 * c + 2] = t2;
      for (let i = 0; i < 3; i++) {
        dx[3 * c + i] = r();
        u[3 * c + i] = r();
      }
    }
    for (const blocks of [C, 5, 1]) {
      const ex1 = new Float64Array(3 * C),
        ez1 = new Float64Array(3 * C),
        ex2 = new Float64Array(3 * C),
        ez2 = new Float64Array(3 * C);
      let expected = Infinity;
      for (let c = 0; c < blocks; c++) expected = Math.min(expected, ntStepToBoundary(winv, c, kind[c], dx, u, nt, ex1, ez1));
      const got = ntStepToBoundaryAll(winv, kind, blocks, dx, u, nt, ex2, ez2);
      assert.ok(Object.is(got, expected), `${blocks} blocks: ${got} vs ${expected}`);
      assert.deepEqual(ex2, ex1);
      assert.deepEqual(ez2, ez1);
    }
    assert.equal(ntStepToBoundaryAll(winv, kind, C, dx, u, nt, new Float64Array(3 * C), new Float64Array(3 * C)), 0, 'a block on the boundary allows no step');
  });
});

describe('block-sparse Cholesky', () => {
  for (const bs of [3, 6]) {
    it(`solves a random SPD block system on a grid graph like a dense solve (${bs}×${bs} blocks)`, () => {
      const side = 7,
        n = side * side,
        r = rng(bs);
      const ea: number[] = [],
        eb: number[] = [];
      for (let i = 0; i < side; i++)
        for (let j = 0; j < side; j++) {
          if (i + 1 < side) {
            ea.push(i * side + j);
            eb.push((i + 1) * side + j);
          }
          if (j + 1 < side) {
            ea.push(i * side + j);
            eb.push(i * side + j + 1);
          }
        }
      // K = Σ_edges G_eᵀ G_e + I with random G_e (bs × 2bs): symmetric positive definite
      const N = n * bs;
      const dense = new Float64Array(N * N);
      for (let i = 0; i < N; i++) dense[i * N + i] = 1;
      for (let e = 0; e < ea.length; e++) {
        const cols = [...Array(bs).keys()].map((k) => ea[e] * bs + k).concat([...Array(bs).keys()].map((k) => eb[e] * bs + k));
        const G = Array.from({ length: bs }, () => cols.map(() => r()));
        for (let p = 0; p < cols.length; p++)
          for (let q = 0; q < cols.length; q++) {
            let v = 0;
            for (let k = 0; k < bs; k++) v += G[k][p] * G[k][q];
            dense[cols[p] * N + cols[q]] += v;
          }
      }
      const sym = analyseBlockPattern(n, bs, ea, eb);
      const val = new Float64Array(bs * bs * sym.slots);
      const put = (a: number, b: number): void => {
        const { slot, transposed } = blockSlot(sym, a, b);
        for (let i = 0; i < bs; i++)
          for (let j = 0; j < bs; j++) {
            const v = dense[(a * bs + i) * N + b * bs + j];
            val[bs * bs * slot + (transposed ? bs * j + i : bs * i + j)] = v;
          }
      };
      for (let a = 0; a < n; a++) put(a, a);
      for (let e = 0; e < ea.length; e++) put(ea[e], eb[e]);
      assert.ok(factorBlockSparse(sym, val));
      const x = new Float64Array(N).map(() => r());
      const rhs = new Float64Array(N);
      for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) rhs[i] += dense[i * N + j] * x[j];
      const sol = Float64Array.from(rhs);
      solveBlockSparse(sym, val, sol, new Float64Array(N));
      assert.ok(relDiff(sol, x) < 1e-10, `relative error ${relDiff(sol, x)}`);
      // fill stays far below the dense lower triangle
      assert.ok(sym.slots < (n * (n + 1)) / 4, `${sym.slots} block slots for ${n} nodes`);
    });
  }
  it('rejects an indefinite matrix', () => {
    const sym = analyseBlockPattern(2, 3, [0], [1]);
    const val = new Float64Array(9 * sym.slots);
    for (let i = 0; i < 3; i++) {
      val[4 * i] = 1; // node 0 (or 1) diagonal
      val[9 + 4 * i] = 1;
      val[18 + 4 * i] = 2; // off-diagonal 2·I: [[I, 2I], [2I, I]] has eigenvalue −1
    }
    assert.equal(factorBlockSparse(sym, val), false);
  });
  it('regularises a pivot lost to cancellation inside a block of a positive definite matrix (Altman & Gondzio 1999)', () => {
    // one 2×2 block [[s, s], [s, s + 0.5]], s = 4e15 (exact in doubles): positive definite, but its second
    // pivot 0.5 is 1.25e-16 of its diagonal entry — at rounding level, like a sliding contact's barrier block
    const s = 4e15,
      floor = 1e-15;
    const sym = analyseBlockPattern(1, 2, [], []);
    const block = (): Float64Array => Float64Array.of(s, 0, s, s + 0.5);
    assert.equal(factorBlockSparse(sym, block()), false, 'without regularisation the pivot is rejected');
    const val = block();
    const reg: PivotRegularization = { floor, replaced: 0 };
    assert.ok(factorBlockSparse(sym, val, reg));
    assert.equal(reg.replaced, 1);
    // L Lᵀ is K with only the lost pivot raised to floor × its diagonal entry
    const [l00, , l10, l11] = val;
    assert.ok(Math.abs(l00 * l00 - s) <= 1 && Math.abs(l10 * l00 - s) <= 1, `L = ${val}`);
    const bump = l10 * l10 + l11 * l11 - (s + 0.5);
    assert.ok(Math.abs(bump - floor * (s + 0.5)) <= 1, `(1,1) entry changed by ${bump}, expected ${floor * (s + 0.5)}`);
    // solves with the regularised factor are finite (the caller refines them against K)
    const x = Float64Array.of(0, -0.5);
    solveBlockSparse(sym, val, x, new Float64Array(2));
    assert.ok(x.every(Number.isFinite));
  });
});

describe('body space of an island (bodySpace.ts)', () => {
  it("formed on another body space's pattern: the same B, bodies and symbolic analysis as a fresh one, bit for bit", () => {
    const { bodies, contacts } = boxPyramid(6, 0.5);
    const k = assembleJacobians(bodies, contacts);
    const r = rng(5);
    const scale = new Float64Array(k.size).map(() => 0.5 + r());
    const fresh = bodySpace(k, scale);
    const reused = bodySpace(k, scale, bodySpace(k));
    assert.deepEqual(reused.BA, fresh.BA);
    assert.deepEqual(reused.BB, fresh.BB);
    for (const f of ['ca', 'cb', 'slotA', 'slotB', 'slotAB', 'abTransposed'] as const) assert.deepEqual(reused[f], fresh[f], f);
    assert.equal(reused.N, fresh.N);
    assert.deepEqual(reused.sym.perm, fresh.sym.perm);
    assert.deepEqual(reused.sym.rowOf, fresh.sym.rowOf);
    // only B and the bodies' factors are new
    assert.ok(reused.bytes < fresh.bytes, `${reused.bytes} vs ${fresh.bytes} bytes`);
    assert.ok(fresh.BA.some((v) => v !== 0) && fresh.N > 0);
  });
});

describe('sparse interior point (no dense A)', () => {
  for (const mu of [0.6, 0.2, 0]) {
    it(`agrees with the dense IPM on a 40-sphere column, μ = ${mu} (λ to 1e-8 relative; unique solution)`, () => {
      const { bodies, contacts } = sphereColumn(40, mu, 7);
      const dense = solve(assembleProblem(bodies, contacts), { solver: 'ipm' });
      const sparse = solveIpmSparse(assembleJacobians(bodies, contacts), { solver: 'ipm' });
      assert.equal(dense.status.kind, 'converged');
      assert.equal(sparse.status.kind, 'converged');
      assert.ok(relDiff(sparse.lambda, dense.lambda) < 1e-8, `λ differs by ${relDiff(sparse.lambda, dense.lambda)}`);
    });
  }

  it('agrees with the dense IPM on a box pyramid of ≤ 200 contacts (w = Aλ − b and f to 1e-8; λ of coplanar contacts is not unique)', () => {
    const { bodies, contacts } = boxPyramid(6, 0.5);
    assert.ok(contacts.length <= DENSE_ISLAND_LIMIT);
    const p = assembleProblem(bodies, contacts);
    const dense = solve(p, { solver: 'ipm' });
    const sparse = solveIpmSparse(assembleJacobians(bodies, contacts), { solver: 'ipm' });
    assert.equal(sparse.status.kind, 'converged');
    // the matrix-free KKT report equals the dense checker's on the same λ
    const ref = kkt(p, sparse.lambda);
    assert.ok(Math.abs(ref.maxRel - sparse.kkt.maxRel) <= 1e-12 + 1e-6 * ref.maxRel, `${ref.maxRel} vs ${sparse.kkt.maxRel}`);
    assert.ok(relDiff(sparse.w, dense.w) < 1e-8 || Math.max(...sparse.w.map(Math.abs)) < 1e-9, `w differs by ${relDiff(sparse.w, dense.w)}`);
    assert.ok(Math.abs(sparse.objective - dense.objective) <= 1e-8 * Math.abs(dense.objective), `${sparse.objective} vs ${dense.objective}`);
  });

  it("from a warm start near the solution (a nearby problem's λ): converged in fewer iterations; from a far one, converged", () => {
    const { bodies, contacts } = boxPyramid(6, 0.5);
    const k = assembleJacobians(bodies, contacts);
    // the same island with the boxes sliding at 0.3 m/s, and its neighbour (a frame later, a De Saxcé step on)
    const sliding = { ...k, b: Float64Array.from(k.b, (v, i) => (i % 3 === 1 ? v + 0.3 : v)) };
    const neighbour = { ...sliding, b: Float64Array.from(sliding.b, (v, i) => (i % 3 === 0 ? v + 0.01 : v)) };
    const start = solveIpmSparse(neighbour, { solver: 'ipm' }).lambda;
    const cold = solveIpmSparse(sliding, { solver: 'ipm' }),
      warm = solveIpmSparse(sliding, { solver: 'ipm' }, 0, 'krylov', undefined, start);
    assert.equal(cold.status.kind, 'converged');
    assert.equal(warm.status.kind, 'converged');
    assert.ok(warm.iterations < cold.iterations, `warm ${warm.iterations} vs cold ${cold.iterations} iterations`);
    assert.equal(warm.history.residual.length, warm.iterations + 1);
    const far = solveIpmSparse(
      sliding,
      { solver: 'ipm' },
      0,
      'krylov',
      undefined,
      Float64Array.from(start, (v) => 100 * v + 10),
    );
    assert.equal(far.status.kind, 'converged');
    assert.ok(far.kkt.maxRel <= 1e-8, `far start: KKT ${far.kkt.maxRel}`);
    // its polish opens with the proximal endgame: one history entry per linear system (was one more: 35 for 33)
    assert.ok(far.polishSteps > 0);
    assert.equal(far.history.residual.length, far.iterations + 1);
  });

  it('converges on a 15-row box pyramid (900 contacts, 120 bodies) to KKT ≤ 1e-8 with memory linear in contacts', () => {
    const small = boxPyramid(8, 0.5),
      big = boxPyramid(15, 0.5);
    const outSmall = solveIpmSparse(assembleJacobians(small.bodies, small.contacts), { solver: 'ipm', tolerance: 1e-8 });
    const out = solveIpmSparse(assembleJacobians(big.bodies, big.contacts), { solver: 'ipm', tolerance: 1e-8 });
    assert.equal(big.contacts.length, 900);
    assert.equal(out.status.kind, 'converged', JSON.stringify(out.status));
    assert.ok(out.kkt.maxRel <= 1e-8);
    // bytes per contact grow far slower than the dense A's 9·8·C bytes per contact (a 2-D pyramid's factor fill is ~C log C)
    const perSmall = outSmall.memoryBytes / small.contacts.length,
      perBig = out.memoryBytes / big.contacts.length;
    assert.ok(perBig < 2 * perSmall, `${perSmall.toFixed(0)} → ${perBig.toFixed(0)} bytes per contact`);
    assert.ok(out.memoryBytes < 72 * big.contacts.length * big.contacts.length, `${out.memoryBytes} bytes`);
  });

  it('reports its status honestly: a cut iteration budget is "max-iterations" with the KKT residual above the tolerance', () => {
    const { bodies, contacts } = boxPyramid(8, 0.5);
    const out = solveIpmSparse(assembleJacobians(bodies, contacts), { solver: 'ipm', maxIterations: 3 });
    assert.equal(out.status.kind, 'max-iterations');
    assert.ok(out.kkt.maxRel > 1e-10);
    assert.equal(out.iterations, 3);
    // λ is primal feasible (every iterate is inside the cones)
    for (let c = 0; c < contacts.length; c++) assert.ok(Math.hypot(out.lambda[3 * c + 1], out.lambda[3 * c + 2]) <= 0.5 * out.lambda[3 * c] * (1 + 1e-12));
  });

  it('does not fail near the solution of a pile with speculative contacts: was "Newton system not positive definite" at KKT 2.7e-9, now converged ≤ 1e-10', () => {
    const { bodies, contacts } = speculativePile(8, 1);
    const out = solveIpmSparse(assembleJacobians(bodies, contacts), { solver: 'ipm' });
    assert.equal(contacts.length, 368);
    assert.equal(out.status.kind, 'converged', JSON.stringify(out.status));
    assert.ok(out.kkt.maxRel <= 1e-10, `KKT max_rel ${out.kkt.maxRel}`);
  });

  it('on speculative piles the status is "converged" exactly when KKT ≤ 1e-10, never "failed" (seeds 2–3, 204 contacts)', () => {
    for (const seed of [2, 3]) {
      const { bodies, contacts } = speculativePile(6, seed);
      const out = solveIpmSparse(assembleJacobians(bodies, contacts), { solver: 'ipm' });
      assert.notEqual(out.status.kind, 'failed', JSON.stringify(out.status));
      assert.equal(out.status.kind === 'converged', out.kkt.maxRel <= 1e-10, `${out.status.kind} at ${out.kkt.maxRel}`);
      assert.ok(out.kkt.maxRel < 1e-9, `seed ${seed}: KKT max_rel ${out.kkt.maxRel}`);
    }
  });

  it('converges on a speculative pile where the contact-space path stalled (KKT 1.3e-10 > 1e-10): PCG on the NT-scaled system, no contact-space factor', () => {
    const { bodies, contacts } = speculativePile(6, 2);
    const k = assembleJacobians(bodies, contacts);
    const before = solveIpmSparse(k, { solver: 'ipm' }, 0, 'contact-space');
    const out = solveIpmSparse(k, { solver: 'ipm' });
    assert.equal(contacts.length, 204);
    // its interior-point phase stalled above 1e-10 (1.3e-10); the natural-map polish (naturalMapSparse.ts) now finishes it
    assert.ok(before.polishSteps >= 1, `the contact-space path: ${before.status.kind} at ${before.kkt.maxRel} without a polish`);
    assert.ok(before.contactSpaceFrom >= 0);
    assert.equal(out.status.kind, 'converged', JSON.stringify(out.status));
    assert.ok(out.kkt.maxRel <= 1e-10, `KKT max_rel ${out.kkt.maxRel}`);
    assert.equal(out.contactSpaceFrom, -1, 'no contact-space factor');
    assert.ok(out.krylovFrom >= 0, 'PCG took over where Woodbury refinement missed its residual');
    assert.ok(out.inexactSolves <= out.newtonSolves && out.worstInexact <= SPARSE_IPM_FORCING);
    // same optimum: f and w = Aλ − b (λ of coplanar contacts is not unique)
    assert.ok(Math.abs(out.objective - before.objective) <= 1e-8 * Math.abs(before.objective), `${out.objective} vs ${before.objective}`);
    assert.ok(relDiff(out.w, before.w) < 1e-6, `w differs by ${relDiff(out.w, before.w)}`);
    // no contact-space fill: less memory than the path that factorised B Bᵀ + H
    assert.ok(out.memoryBytes < before.memoryBytes, `${out.memoryBytes} vs ${before.memoryBytes} bytes`);
  });

  it('ends the interior-point phase once τ is at rounding level and lets the polish finish (was: 30 interior-point iterations, the last ones at τ ≈ 1e-17; now 28)', () => {
    const { bodies, contacts } = speculativePile(6, 3);
    const out = solveIpmSparse(assembleJacobians(bodies, contacts), { solver: 'ipm' });
    assert.equal(contacts.length, 204);
    assert.equal(out.status.kind, 'converged', JSON.stringify(out.status));
    assert.ok(out.kkt.maxRel <= 1e-10, `KKT max_rel ${out.kkt.maxRel}`);
    const interior = out.iterations - out.polishSteps;
    assert.ok(interior <= 28, `${interior} interior-point iterations, ${out.polishSteps} polish steps`);
    // the polish did finish it: the interior-point phase alone ended above the tolerance
    assert.ok(out.polishSteps >= 1, `${out.polishSteps} polish steps`);
  });

  it("the polish's proximal endgame stops once its projected iterate meets the tolerance (was: 9 polish systems on this pile, the last two after KKT ≤ 1e-10; now 7)", () => {
    const { bodies, contacts } = speculativePile(6, 1);
    const k = assembleJacobians(bodies, contacts);
    const out = solveIpmSparse(k, { solver: 'ipm' });
    assert.equal(out.status.kind, 'converged', JSON.stringify(out.status));
    assert.ok(out.kkt.maxRel <= 1e-10, `KKT max_rel ${out.kkt.maxRel}`);
    assert.ok(out.polishSteps >= 1 && out.polishSteps <= 7, `${out.polishSteps} polish steps`);
    // the λ returned is the checker's converged point, recomputed from scratch
    const again = kktMatrixFree(matrixFreeRows(k, 0), out.lambda, new KktWorkspace(k.size)).maxRel;
    assert.ok(again <= 1e-10, `recomputed KKT max_rel ${again}`);
  });

  it('returns λ = 0, converged, when every contact separates', () => {
    const { bodies, contacts } = sphereColumn(5, 0.5, 3);
    const moving = bodies.map((b, i) => (i === 0 ? b : { ...b, v: [0, 0, 0.5 * i] as [number, number, number] }));
    const out = solveIpmSparse(assembleJacobians(moving, contacts, { ...DEFAULT_ASSEMBLY, baumgarte: false }), { solver: 'ipm' });
    assert.equal(out.status.kind, 'converged');
    assert.ok(out.lambda.every((x) => x === 0));
  });
});

describe('solveIsland above the dense limit', () => {
  for (const [solver, softening] of [
    ['ipm', 0],
    ['newton', 0],
    ['ipm', 0.01],
  ] as const) {
    it(`solves a ${solver} island of 900 contacts with its own sparse solver, not PGS (softening γ = ${softening})`, () => {
      const { bodies, contacts } = boxPyramid(15, 0.5);
      assert.ok(contacts.length > DENSE_ISLAND_LIMIT);
      const cfg = baseConfig({ solver: { solver }, softening });
      const dv = new Float64Array(6 * bodies.length);
      const out = solveIsland(bodies, contacts, [...contacts.keys()], cfg, undefined, dv);
      assert.equal(out.solve.result.solver, solver);
      assert.equal(out.solve.matrixFree, true);
      assert.equal(out.solve.result.status.kind, 'converged', JSON.stringify(out.solve.result.status));
      assert.ok(out.solve.result.kkt.maxRel <= 1e-10);
      // the impulses stop the boxes sinking: ġn⁺ + γλn ≥ 0 (softened contacts give way by γλn; docs/physics.md "Softening")
      for (let c = 0; c < contacts.length; c++) {
        const g = out.gapAfter[3 * c] + softening * out.lambda[3 * c];
        assert.ok(g >= -1e-6, `contact ${c}: ġn⁺ + γλn = ${g}`);
      }
    });
  }
});
