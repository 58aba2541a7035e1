/**
 * FCLIB local problems: the HDF5 reader (src/format/fclib.ts), `contact-lens solve file.hdf5`,
 * and the converted copy examples/problems/fclib-boxes-stack.json. The FCLIB test file is read from
 * $CONTACT_LENS_FCLIB or ../shared/fclib/local_problem_test.hdf5; when it is absent the tests read the JSON copy
 * (and say so in their titles) and write FCLIB files of their own from it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { conditioning } from '../../src/engine/conditioning.js';
import { projectCone } from '../../src/engine/cone.js';
import { kkt } from '../../src/engine/kkt.js';
import type { ContactProblem } from '../../src/engine/problem.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { IPM_DEFAULT_TOLERANCE } from '../../src/engine/solvers/ipm.js';
import { isHdf5, MAX_UNKNOWNS, readFclibLocal, type FclibPair } from '../../src/format/fclib.js';
import { parseOracleInstance } from '../../src/format/oracle.js';
import { writeFclib } from './fclibWriter.js';
import { runCliAsync as run } from '../cliRun.js';

const ROOT = resolve(__dirname, '..', '..');
const HDF5 = resolve(process.env.CONTACT_LENS_FCLIB ?? join(ROOT, '..', 'shared', 'fclib', 'local_problem_test.hdf5'));
const COPY = join(ROOT, 'examples', 'problems', 'fclib-boxes-stack.json');
const HAVE_HDF5 = existsSync(HDF5);
const SOURCE = HAVE_HDF5 ? 'the FCLIB HDF5 file' : 'the JSON copy examples/problems/fclib-boxes-stack.json (../shared/fclib absent)';

interface Loaded {
  problem: ContactProblem;
  solution: FclibPair | null;
}

/** The JSON copy: A, b, μ through our problem reader; FCLIB's /solution from the extra key `fclib`. */
function loadCopy(): Loaded {
  const text = readFileSync(COPY, 'utf8');
  const sol = (JSON.parse(text) as { fclib: { solution: { r: number[]; u: number[] } | null } }).fclib.solution;
  return { problem: parseOracleInstance(text, COPY).matrix, solution: sol && { r: Float64Array.from(sol.r), u: Float64Array.from(sol.u) } };
}

async function loadBoxesStack(): Promise<Loaded> {
  if (!HAVE_HDF5) return loadCopy();
  const p = await readFclibLocal(HDF5, HDF5);
  return { problem: p.matrix, solution: p.solution };
}

/** u = W r + q = Aλ − b (module comment of src/format/fclib.ts). */
function velocity(p: ContactProblem, r: ArrayLike<number>): Float64Array {
  const n = p.size,
    u = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = -p.b[i];
    for (let j = 0; j < n; j++) s += p.A[i * n + j] * r[j];
    u[i] = s;
  }
  return u;
}

/**
 * FCLIB's merit for Coulomb's law (Acary et al., "FCLIB: a collection of discrete 3D frictional contact problems",
 * 2014, §3; De Saxcé's modified velocity): ‖r − P_K(r − (u + μ‖u_t‖e_n))‖₂ / (1 + ‖q‖₂) with u = W r + q.
 */
function coulombMerit(p: ContactProblem, r: ArrayLike<number>): number {
  const u = velocity(p, r),
    t = new Float64Array(3);
  let e = 0,
    q2 = 0;
  for (let c = 0; c < p.contactCount; c++) {
    const o = 3 * c,
      ut = Math.hypot(u[o + 1], u[o + 2]);
    t[0] = r[o] - (u[o] + p.mu[c] * ut);
    t[1] = r[o + 1] - u[o + 1];
    t[2] = r[o + 2] - u[o + 2];
    projectCone(t, 0, p.mu[c], t);
    for (let k = 0; k < 3; k++) e += (r[o + k] - t[k]) ** 2;
  }
  for (let i = 0; i < p.size; i++) q2 += p.b[i] ** 2;
  return Math.sqrt(e) / (1 + Math.sqrt(q2));
}

const tmp = mkdtempSync(join(tmpdir(), 'contact-lens-fclib-'));

describe(`FCLIB local problems, from ${SOURCE}`, () => {
  it(`reads the Boxes Stack problem: 144 unknowns, 48 contacts, A = W (W[0][0] = 100, W[0][1] = 8.35e-9), b = −q (q[0] = −0.004905), μ = 0.7, rank W = 72 — from ${SOURCE}`, async () => {
    const { problem: p } = await loadBoxesStack();
    assert.equal(p.size, 144);
    assert.equal(p.contactCount, 48);
    assert.equal(p.A[0], 100);
    assert.equal(p.A[1], 8.352906270848802e-9);
    assert.ok(Math.abs(p.A[144] - p.A[1]) <= 1e-12 * p.A[0]); // symmetric up to rounding (W[1][0] = 8.3529062708488e-9)
    assert.equal(p.b[0], 0.004904999642630031); // q[0] = −0.004904999642630031 in the file
    assert.ok(p.mu.every((m) => m === 0.7));
    assert.equal(conditioning(p.A, p.size).rank, 72); // "W has rank 72 of 144" (../shared/fclib/README.md)
    if (HAVE_HDF5) {
      // the bundled copy holds exactly the numbers of the file
      const copy = loadCopy().problem;
      assert.deepEqual(Array.from(copy.A), Array.from(p.A));
      assert.deepEqual(Array.from(copy.b), Array.from(p.b));
      assert.deepEqual(Array.from(copy.mu), Array.from(p.mu));
    }
  });

  it(`IPM solves it to its KKT tolerance, and its λ also meets Coulomb's law (FCLIB merit ≤ 1e-8: no contact slides) — from ${SOURCE}`, async () => {
    const { problem: p } = await loadBoxesStack();
    const r = solve(p, { solver: 'ipm' });
    assert.equal(r.status.kind, 'converged', r.status.kind === 'converged' ? '' : r.status.reason);
    const k = kkt(p, r.lambda);
    assert.ok(k.maxRel <= IPM_DEFAULT_TOLERANCE, `KKT max_rel ${k.maxRel}`);
    assert.ok(!r.contactClass.includes('sliding'), r.contactClass.join(','));
    assert.ok(coulombMerit(p, r.lambda) <= 1e-8, `merit ${coulombMerit(p, r.lambda)}`);
  });

  it(`the file's /solution is not a solution of u = W r + q: r = 0 while u ≠ q, and λ = 0 fails our KKT check (dual residual ≈ 1) — from ${SOURCE}`, async () => {
    const { problem: p, solution } = await loadBoxesStack();
    assert.ok(solution, 'the FCLIB test file has a /solution group');
    assert.ok(solution.r.every((x) => x === 0));
    const u = velocity(p, solution.r);
    const gap = Math.max(...u.map((x, i) => Math.abs(x - solution.u[i])));
    assert.ok(gap > 4e-3, `max |W r + q − u| = ${gap}`); // u(r = 0) = q, whose normal parts are −0.0049
    assert.ok(kkt(p, solution.r).dualRel > 0.99);
  });

  for (const storage of ['csr', 'csc', 'triplet'] as const) {
    it(`a problem written as FCLIB ${storage} reads back to the same A, b, μ`, async () => {
      const { problem: p } = await loadBoxesStack();
      const file = join(tmp, `round-${storage}.hdf5`);
      await writeFclib(file, p, { storage });
      const back = await readFclibLocal(file, file);
      assert.equal(back.storage, storage);
      assert.deepEqual(Array.from(back.matrix.A), Array.from(p.A));
      assert.deepEqual(Array.from(back.matrix.b), Array.from(p.b));
      assert.deepEqual(Array.from(back.matrix.mu), Array.from(p.mu));
    });
  }

  it('`contact-lens solve file.hdf5 --solver all` prints every solver’s status, iterations, KKT and time, as for JSON problems', async () => {
    const { problem: p } = await loadBoxesStack();
    const file = HAVE_HDF5 ? HDF5 : join(tmp, 'boxes.hdf5');
    if (!HAVE_HDF5) await writeFclib(file, p);
    const r = await run(['solve', file, '--solver', 'all']);
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.match(r.out[0], /: 48 contacts, 144 unknowns, from fclib$/);
    // rank 72 (FCLIB's rank ratio 2) and κ on the range from A's own eigenvalues (144 rows: exact)
    assert.match(r.out[1], /^A: rank 72 of 144 \(rank ratio 2\), κ\(A\) ∞, κ on the range 1\.51e\+5 \(exact-tridiagonal-ql;/);
    assert.match(r.out[3], /^solver\s+problem\s+status\s+iterations\s+merit of its problem\s+objective\s+QP-SOCP KKT\s+time$/);
    const ipm = r.out.find((l) => l.startsWith('ipm '));
    assert.match(ipm ?? '', /^ipm\s+QP-SOCP\s+converged\s+\d+\s+\d(\.\d+)?e-1\d \(KKT max_rel\)\s+-1\.444e-6\s+\d(\.\d+)?e-1\d\s+[\d.]+ ms$/);
    const coulomb = r.out.find((l) => l.startsWith('coulomb '));
    assert.match(coulomb ?? '', /^coulomb\s+Coulomb\s+converged\s+\d+\s+\d(\.\d+)?e-1\d \(Coulomb merit\)/);
    for (const s of ['pgs', 'newton'])
      assert.ok(
        r.out.some((l) => l.startsWith(`${s} `)),
        s,
      );
  });

  it('an FCLIB file is recognised by its HDF5 signature, whatever its extension', async () => {
    const { problem: p } = await loadBoxesStack();
    const file = join(tmp, 'looks-like.json');
    await writeFclib(file, p);
    assert.ok(isHdf5(readFileSync(file)));
    const r = await run(['solve', file, '--solver', 'ipm', '--json']);
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.equal((JSON.parse(r.out[0]) as { status: string; from: string }).from, 'fclib');
  });
});

describe('FCLIB bad input: one line naming the file and the dataset, exit code 2', () => {
  const expectBad = async (file: string, pattern: RegExp, extra: string[] = []): Promise<void> => {
    const r = await run(['solve', file, ...extra]);
    assert.equal(r.code, 2, r.out.join('\n'));
    assert.equal(r.out.length, 0);
    assert.equal(r.err.length, 1, r.err.join('\n'));
    assert.ok(!r.err[0].includes('\n'));
    assert.ok(r.err[0].includes(file), r.err[0]);
    assert.match(r.err[0], pattern);
  };

  it('a .hdf5 file that is not HDF5', async () => {
    const file = join(tmp, 'text.hdf5');
    writeFileSync(file, '{"mu": [0.5]}');
    await expectBad(file, /\(hdf5\): not an HDF5 file/);
  });

  it('a truncated HDF5 file: HDF5’s own reason, on one line', async () => {
    const { problem: p } = await loadBoxesStack();
    const whole = join(tmp, 'whole.hdf5');
    await writeFclib(whole, p);
    const file = join(tmp, 'truncated.hdf5');
    writeFileSync(file, readFileSync(whole).subarray(0, 4000));
    await expectBad(file, /\(hdf5\): cannot be opened as HDF5 \(truncated file/);
  });

  it('a missing dataset (/fclib_local/vectors/q)', async () => {
    const { problem: p } = await loadBoxesStack();
    const file = join(tmp, 'no-q.hdf5');
    await writeFclib(file, p, { omit: ['/fclib_local/vectors/q'] });
    await expectBad(file, /: \/fclib_local\/vectors\/q: missing dataset$/);
  });

  it('wrong sizes: q with 141 entries, W with 141 rows', async () => {
    const { problem: p } = await loadBoxesStack();
    const shortQ = join(tmp, 'short-q.hdf5');
    await writeFclib(shortQ, p, { q: Float64Array.from(p.b.subarray(0, 141)) });
    await expectBad(shortQ, /: \/fclib_local\/vectors\/q: has 141 entries, expected 144$/);
    const wrongM = join(tmp, 'wrong-m.hdf5');
    await writeFclib(wrongM, p, { m: 141 });
    await expectBad(wrongM, /: \/fclib_local\/W\/m: is 141, expected 3·C = 144/);
  });

  it('a column index out of range in W', async () => {
    const { problem: p } = await loadBoxesStack();
    const file = join(tmp, 'bad-index.hdf5');
    await writeFclib(file, p, { badIndex: true });
    await expectBad(file, /: \/fclib_local\/W\/i\[3\]: is 149, expected an index in \[0, 144\)$/);
  });

  it(`more contacts than the dense A can hold (${MAX_UNKNOWNS / 3 + 1}) is refused before W is read`, async () => {
    const h5wasm = await import('h5wasm/node');
    await h5wasm.ready;
    const file = join(tmp, 'huge.hdf5');
    const f = new h5wasm.File(file, 'w');
    f.create_group('fclib_local')
      .create_group('vectors')
      .create_dataset({ name: 'mu', data: new Float64Array(MAX_UNKNOWNS / 3 + 1).fill(0.5) });
    f.close();
    await expectBad(file, /: \/fclib_local\/vectors\/mu: declares 2001 entries; our solvers hold A densely and take at most 2000 contacts/);
  });

  it('--from physical on an FCLIB file (it has no physical data)', async () => {
    const { problem: p } = await loadBoxesStack();
    const file = join(tmp, 'physical.hdf5');
    await writeFclib(file, p);
    await expectBad(file, /no physical data/, ['--from', 'physical']);
  });

  it('the bundled dist/cli.js reads HDF5 (its h5wasm bundle sits next to it; built by npm test before the unit tests)', async function () {
    const cli = join(ROOT, 'dist', 'cli.js');
    if (!existsSync(cli)) this.skip();
    const { problem: p } = await loadBoxesStack();
    const file = join(tmp, 'dist.hdf5');
    await writeFclib(file, p);
    const ok = spawnSync(process.execPath, [cli, 'solve', file, '--solver', 'ipm', '--json'], { encoding: 'utf8', cwd: tmp });
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal((JSON.parse(ok.stdout.trim()) as { status: string }).status, 'converged');
    const text = join(tmp, 'dist-text.hdf5');
    writeFileSync(text, 'not HDF5');
    const bad = spawnSync(process.execPath, [cli, 'solve', text], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^contact-lens: .*text\.hdf5: \(hdf5\): not an HDF5 file/);
  });
});
