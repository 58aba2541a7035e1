/**
 * Real friction-contact problems as real codes write them: the Siconos test problems in FCLIB's local HDF5 layout
 * (../shared/fclib/siconos, or $CONTACT_LENS_FCLIB_DIR) are all read with W as given and solved by the exact Coulomb
 * solver to FCLIB's merit ≤ 1e-8; W's asymmetry and most negative eigenvalue are reported; the convex solvers say
 * what matrix they solved; statuses stay honest where no solver can meet the tolerance. Also the exact solver's
 * building blocks (the one-contact solver, the block-sparse product, block LU). Timing lives in bench/fclib.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../../src/cli/main.js';
import { projectCone } from '../../src/engine/cone.js';
import { coulombMerit } from '../../src/engine/coulombMerit.js';
import { blockRowsFromDense, blockRowsMulAdd, BlockRowsStorage } from '../../src/engine/math/blockRows.js';
import { analyseBlockPattern, blockSlot } from '../../src/engine/math/blockSparseCholesky.js';
import { BlockLu } from '../../src/engine/math/blockSparseLu.js';
import { makeProblem, type ContactProblem } from '../../src/engine/problem.js';
import { LocalCase, solveContact } from '../../src/engine/solvers/coulombLocal.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { readFclibLocal } from '../../src/format/fclib.js';
import { openProblemFile } from '../../src/session/problemFile.js';
import { writeFclib } from './fclibWriter.js';
import { rng as lcg } from '../rng.js';

const ROOT = resolve(__dirname, '..', '..');
const DIR = resolve(process.env.CONTACT_LENS_FCLIB_DIR ?? join(ROOT, '..', 'shared', 'fclib', 'siconos'));
const FILES = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith('.hdf5')) : [];
/** The bar on FCLIB's merit. */
const MERIT = 1e-8;

function capture(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [],
    err: string[] = [];
  return Promise.resolve(main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) })).then((code) => ({ code, out: out.join('\n'), err: err.join('\n') }));
}

describe('real FCLIB problems (Siconos test data, W as given)', () => {
  if (FILES.length === 0) {
    it.skip(`no FCLIB problems at ${DIR} (set CONTACT_LENS_FCLIB_DIR); the real-problem tests are skipped`, () => undefined);
    return;
  }
  it(`${DIR} holds the 14 shared problems`, () => assert.equal(FILES.length, 14, FILES.join(', ')));
  for (const f of FILES) {
    it(`${f}: read as given, coulomb converged at FCLIB merit ≤ ${MERIT}`, async function () {
      this.timeout(60000);
      const p = (await readFclibLocal(join(DIR, f), f)).matrix;
      assert.ok(p.asGiven, 'an FCLIB W is taken as given');
      const r = solve(p, { solver: 'coulomb' });
      assert.equal(r.status.kind, 'converged', r.status.kind === 'converged' ? '' : r.status.reason);
      assert.ok(r.merit.value <= MERIT, String(r.merit.value));
      // the status was decided on the merit of the dense problem (the solver's sparse product is bit-identical)
      assert.equal(coulombMerit(p, r.lambda), r.merit.value);
    });
  }

  it('reports W’s relative asymmetry and the most negative eigenvalue of its symmetric part', async function () {
    this.timeout(30000);
    const rover = await openProblemFile(join(DIR, 'Rover4396.hdf5'), 'Rover4396.hdf5');
    assert.ok(Math.abs(rover.asymmetry - 3.79e-5) < 0.01e-5, String(rover.asymmetry));
    assert.ok(rover.eigenRatio > 0, String(rover.eigenRatio));
    const confeti = await openProblemFile(join(DIR, 'Confeti-ex13-4contact-Fc3D-SBM.hdf5'), 'Confeti.hdf5');
    assert.equal(confeti.asymmetry, 0);
    assert.ok(confeti.eigenRatio < -1e-8 && confeti.eigenRatio > -1e-7, `λmin/λmax ${confeti.eigenRatio}`);
  });

  it('newton and ipm solve the symmetric part plus the smallest shift that makes it positive semidefinite, and say so', async function () {
    this.timeout(30000);
    const confeti = (await readFclibLocal(join(DIR, 'Confeti-ex13-4contact-Fc3D-SBM.hdf5'), 'Confeti')).matrix;
    const rover = (await readFclibLocal(join(DIR, 'Rover4396.hdf5'), 'Rover4396')).matrix;
    for (const solver of ['newton', 'ipm'] as const) {
      const c = solve(confeti, { solver });
      assert.equal(c.status.kind, 'converged');
      assert.ok(c.convexified && c.convexified.shift > 0 && c.convexified.shift < 1e-10, JSON.stringify(c.convexified));
      const r = solve(rover, { solver });
      assert.equal(r.status.kind, 'converged');
      assert.ok(r.convexified && r.convexified.shift === 0 && r.convexified.asymmetry > 1e-5, JSON.stringify(r.convexified));
      // pgs and coulomb use W itself
      assert.equal(solve(rover, { solver: 'pgs' }).convexified, undefined);
      assert.equal(solve(rover, { solver: 'coulomb' }).convexified, undefined);
    }
  });

  it('`contact-lens solve` prints the asymmetry and λmin/λmax beside κ and the rank, and the convex rows’ note', async function () {
    this.timeout(60000);
    const { code, out } = await capture(['solve', join(DIR, 'Confeti-ex13-4contact-Fc3D-SBM.hdf5')]);
    assert.equal(code, 0, out);
    assert.match(out, /^A: rank \d+ of 12 .*κ\(A\)/m);
    assert.match(out, /^A as given: ‖A − Aᵀ‖\/‖A‖ 0, λmin\/λmax of its symmetric part -[1-9]\.\d\de-8 /m);
    assert.match(out, /^ {2}newton: solved with the symmetric part of A plus \d\.\d+e-1\d·I: its smallest eigenvalue is −/m);
    assert.match(out, /^coulomb\s+Coulomb\s+converged/m); // the table names each solver's problem
  });
});

/** Two contacts, A = diag blocks with normals coupled, made asymmetric by `asym` (relative) in one off-diagonal entry. */
function twoContacts(asym: number): ContactProblem {
  const A = new Float64Array(36);
  for (let i = 0; i < 6; i++) A[i * 6 + i] = 2;
  A[3] = 0.5;
  A[18] = 0.5 * (1 + asym * 8);
  return makeProblem({ A, b: [1, 2, 0.5, 1, -1, 0.25], mu: [0.5, 0.3], asGiven: true });
}

describe('FCLIB W taken as given (files written by the test)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fclib-as-given-'));
  it('an asymmetric W is read (it was refused before) and coulomb solves it; a non-finite entry is refused, naming the dataset', async function () {
    this.timeout(30000);
    const p = twoContacts(1e-3);
    const file = join(dir, 'asym.hdf5');
    await writeFclib(file, p);
    const read = (await readFclibLocal(file, 'asym.hdf5')).matrix;
    assert.ok(read.asGiven && read.asGiven.asymmetry > 1e-4, JSON.stringify(read.asGiven));
    assert.deepEqual(Array.from(read.A), Array.from(p.A));
    const r = solve(read, { solver: 'coulomb' });
    assert.equal(r.status.kind, 'converged');
    const bad = { ...p, A: Float64Array.from(p.A, (x, i) => (i === 7 ? Number.NaN : x)) };
    const badFile = join(dir, 'nan.hdf5');
    await writeFclib(badFile, bad);
    await assert.rejects(readFclibLocal(badFile, 'nan.hdf5'), /^FormatError: nan\.hdf5: \/fclib_local\/W\/x\[\d+\]: is NaN, expected a finite number$/);
  });
});

describe('exact Coulomb solver: honest statuses', () => {
  it('W = −I has no Coulomb solution for q_n < 0: no "converged", the merit stays above the tolerance', () => {
    const A = new Float64Array(9);
    A[0] = A[4] = A[8] = -1;
    const p = makeProblem({ A, b: [1, 0.2, 0], mu: [0.5], asGiven: true });
    const r = solve(p, { solver: 'coulomb' });
    assert.notEqual(r.status.kind, 'converged');
    assert.ok(r.merit.value > 1e-3, String(r.merit.value));
    assert.equal(coulombMerit(p, r.lambda), r.merit.value);
  });

  it('a tolerance below rounding (1e-300) on a real-size problem ends as stalled or max-iterations with the merit reached', () => {
    const r = solve(twoContacts(0), { solver: 'coulomb', tolerance: 1e-300, maxIterations: 200 });
    assert.ok(r.status.kind === 'stalled' || r.status.kind === 'max-iterations', r.status.kind);
    assert.ok(r.merit.value > 0 && r.merit.value < 1e-12, String(r.merit.value));
    assert.ok(r.iterations <= 200);
  });
});

describe('exact Coulomb solver: building blocks', () => {
  it('the one-contact solver meets the local Coulomb law to rounding on random blocks (asymmetric, any μ)', () => {
    const rng = lcg(11);
    const M = new Float64Array(9),
      r = new Float64Array(3),
      t = new Float64Array(3);
    let worst = 0,
      unsolved = 0;
    const counts = [0, 0, 0, 0];
    for (let k = 0; k < 2000; k++) {
      const B = Array.from({ length: 9 }, () => 2 * rng() - 1);
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 3; j++)
          M[3 * i + j] = B[3 * i] * B[3 * j] + B[3 * i + 1] * B[3 * j + 1] + B[3 * i + 2] * B[3 * j + 2] + (i === j ? 0.1 : 0) + 1e-3 * (rng() - 0.5);
      const q = [2 * rng() - 1.5, 4 * rng() - 2, 4 * rng() - 2];
      const mu = 1.2 * rng();
      r.fill(0);
      const c = solveContact(M, 0, q[0], q[1], q[2], mu, r, 0);
      counts[c]++;
      if (c === LocalCase.None) {
        unsolved++;
        continue;
      }
      const u = [0, 1, 2].map((i) => M[3 * i] * r[0] + M[3 * i + 1] * r[1] + M[3 * i + 2] * r[2] + q[i]);
      t[0] = r[0] - (u[0] + mu * Math.hypot(u[1], u[2]));
      t[1] = r[1] - u[1];
      t[2] = r[2] - u[2];
      projectCone(t, 0, mu, t);
      worst = Math.max(worst, Math.hypot(r[0] - t[0], r[1] - t[1], r[2] - t[2]) / (1 + Math.hypot(q[0], q[1], q[2])));
    }
    assert.ok(worst < 1e-12, `worst local merit ${worst}`);
    assert.ok(counts[LocalCase.TakeOff] > 0 && counts[LocalCase.Stick] > 0 && counts[LocalCase.Slide] > 0, counts.join(' '));
    assert.ok(unsolved < 5, `${unsolved} local problems without a valid case`);
  });

  it('the block-sparse product W x + q is bit-identical to the dense one', () => {
    const rng = lcg(5);
    const C = 7,
      n = 3 * C;
    const A = new Float64Array(n * n);
    for (let c = 0; c < C; c++)
      for (let d = 0; d < C; d++)
        if (c === d || rng() < 0.3) for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) A[(3 * c + i) * n + 3 * d + j] = rng() - 0.5;
    const W = blockRowsFromDense(A, C);
    assert.ok(W.rowPtr[C] < C * C, 'some blocks are zero');
    const x = Float64Array.from({ length: n }, () => rng() * 1e3 - 500),
      q = Float64Array.from({ length: n }, () => rng() - 0.5);
    const out = new Float64Array(n);
    blockRowsMulAdd(W, x, q, out);
    for (let i = 0; i < n; i++) {
      let s = q[i];
      for (let j = 0; j < n; j++) s += A[i * n + j] * x[j];
      assert.equal(out[i], s, `row ${i}`);
    }
  });

  it('block rows rebuilt in reused storage (a larger matrix before, a denser one after) give the product of fresh ones', () => {
    const rng = lcg(11);
    const matrix = (C: number, density: number): Float64Array => {
      const n = 3 * C;
      const A = new Float64Array(n * n);
      for (let c = 0; c < C; c++)
        for (let d = 0; d < C; d++)
          if (c === d || rng() < density) for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) A[(3 * c + i) * n + 3 * d + j] = rng() - 0.5;
      return A;
    };
    const storage = new BlockRowsStorage();
    // sizes and densities that make the storage grow, then hold stale entries past the new rows and blocks
    for (const [C, density] of [
      [9, 0.2],
      [2, 0.9],
      [5, 1],
      [12, 0.6],
      [1, 0],
      [6, 0.1],
    ] as const) {
      const A = matrix(C, density);
      const n = 3 * C;
      const x = Float64Array.from({ length: n }, () => rng() * 10 - 5),
        q = Float64Array.from({ length: n }, () => rng() - 0.5);
      const fresh = new Float64Array(n),
        reused = new Float64Array(n);
      blockRowsMulAdd(blockRowsFromDense(A, C), x, q, fresh);
      const W = blockRowsFromDense(A, C, storage);
      assert.equal(W.blocks, C);
      blockRowsMulAdd(W, x, q, reused);
      assert.deepEqual(reused, fresh, `C = ${C}`);
    }
  });

  it('block LU on a minimum-degree ordering solves a block-sparse non-symmetric system', () => {
    const rng = lcg(3);
    const N = 30,
      n = 3 * N;
    const edges: [number, number][] = [];
    for (let i = 0; i < N; i++) for (let j = 0; j < i; j++) if (rng() > 0.85) edges.push([i, j]);
    const s = analyseBlockPattern(
      N,
      3,
      edges.map((e) => e[0]),
      edges.map((e) => e[1]),
    );
    const lu = new BlockLu(s);
    const A = new Float64Array(n * n);
    const put = (a: number, b: number): void => {
      const { slot, transposed } = blockSlot(s, a, b);
      const place = BlockLu.place(slot, transposed);
      const arr = place & 1 ? lu.upper : lu.lower;
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 3; j++) {
          const v = rng() - 0.5 + (a === b && i === j ? 6 : 0);
          A[(3 * a + i) * n + 3 * b + j] = v;
          arr[9 * (place >> 1) + 3 * i + j] += v;
        }
    };
    for (let i = 0; i < N; i++) put(i, i);
    for (const [a, b] of edges) {
      put(a, b);
      put(b, a);
    }
    assert.ok(lu.factor());
    assert.equal(lu.shifted, 0);
    const x = Float64Array.from({ length: n }, () => rng() - 0.5);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) y[i] += A[i * n + j] * x[j];
    lu.solve(y);
    for (let i = 0; i < n; i++) assert.ok(Math.abs(y[i] - x[i]) < 1e-12, `x[${i}] ${y[i]} vs ${x[i]}`);
  });
});
