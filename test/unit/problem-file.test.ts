/**
 * A problem file as one inspectable frame (src/session/problemFile.ts): the FCLIB "Boxes Stack" problem
 * opens with its sizes, κ on the range with the rank ratio, and every solver side by side; bad input is
 * one line naming the file and the field.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { compareSolvers, openProblemFile } from '../../src/session/problemFile.js';
import { SOLVER_NAMES } from '../../src/engine/solvers/types.js';
import { parseOracleInstance } from '../../src/format/oracle.js';
import { writeFclib } from './fclibWriter.js';

const ROOT = resolve(__dirname, '..', '..');
const HDF5 = resolve(process.env.CONTACT_LENS_FCLIB ?? join(ROOT, '..', 'shared', 'fclib', 'local_problem_test.hdf5'));
const COPY = join(ROOT, 'examples', 'problems', 'fclib-boxes-stack.json');

describe('problem files as one frame', () => {
  // without ../shared/fclib the HDF5 case reads an FCLIB file written from the JSON copy (fclibWriter.ts), never skipped
  const written = join(mkdtempSync(join(tmpdir(), 'cl-problem-fclib-')), 'boxes-stack.hdf5');
  const sources = [
    { path: COPY, what: 'the JSON copy' },
    existsSync(HDF5)
      ? { path: HDF5, what: 'the FCLIB HDF5 file' }
      : { path: written, what: 'an FCLIB HDF5 file written from the JSON copy (../shared/fclib absent)' },
  ];
  after(() => rmSync(dirname(written), { recursive: true, force: true }));
  before(async () => {
    if (!existsSync(HDF5)) await writeFclib(written, parseOracleInstance(readFileSync(COPY, 'utf8'), COPY).matrix);
  });
  for (const { path, what } of sources) {
    it(`${what} opens with 48 contacts, 144 unknowns, rank 72 (rank ratio 2) and a finite κ on the range`, async function () {
      this.timeout(60000);
      const p = await openProblemFile(path, path.split('/').pop());
      assert.equal(p.contactCount, 48);
      assert.equal(p.unknowns, 144);
      assert.equal(p.problem.A.length, 144 * 144);
      assert.equal(p.conditioning.rank, 72);
      assert.equal(p.conditioning.rankRatio, 2);
      assert.ok(Number.isFinite(p.conditioning.kappaRange) && p.conditioning.kappaRange >= 1, `κ_range ${p.conditioning.kappaRange}`);
      assert.ok(!Number.isFinite(p.conditioning.kappa) || p.conditioning.kappa > p.conditioning.kappaRange, 'κ(A) includes the null directions');
    });
  }

  it('every solver side by side, coulomb with its Coulomb merit meeting its tolerance', async function () {
    this.timeout(120000);
    const p = await openProblemFile(COPY);
    const rows = compareSolvers(p.problem);
    assert.deepEqual(
      rows.map((r) => r.solver),
      [...SOLVER_NAMES],
    );
    for (const r of rows) {
      assert.equal(r.lambda.length, 144);
      assert.equal(r.wNormal.length, 48);
    }
    const coulomb = rows.find((r) => r.solver === 'coulomb')!;
    assert.equal(coulomb.merit.problem, 'coulomb');
    assert.equal(coulomb.status, 'converged');
    assert.ok(coulomb.merit.value <= 1e-8, `merit ${coulomb.merit.value}`);
    // w_n ≥ 0 up to the merit: no contact approaches after the impulse
    for (const w of coulomb.wNormal) assert.ok(w >= -1e-6, `w_n ${w}`);
  });

  it('bad input: one line naming the file and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-problem-'));
    try {
      const cases: [string, string, RegExp][] = [
        ['missing.problem.json', '', /missing\.problem\.json: \(file\): cannot be read: ENOENT/],
        ['fake.hdf5', 'not hdf5 at all', /fake\.hdf5: \(hdf5\): not an HDF5 file/],
        ['bad.problem.json', '{"schema_version":1,"id":"x","num_contacts":1,"n":3,"A":[1,0,0,0,1,0,0,0,1],"b":[1,0,0],"mu":[-1]}', /bad\.problem\.json: .*mu/],
      ];
      for (const [name, text, re] of cases) {
        const path = join(dir, name);
        if (text) writeFileSync(path, text);
        await assert.rejects(openProblemFile(path, name), (e: Error) => re.test(e.message) && !e.message.includes('\n'));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
