/**
 * The inspector's problem view (src/extension/model/problemView.ts) and the worker's `openProblem`
 * (dist/worker.js through WorkerClient, as the extension host calls it): the FCLIB "Boxes Stack" problem
 * as the webview receives it, and bad files as one line naming the file and the field.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openProblemView } from '../../src/extension/model/problemView.js';
import { WorkerClient, WorkerRequestError } from '../../src/extension/workerClient.js';
import { PROTOCOL_VERSION, SOLVER_NAMES } from '../../src/protocol/inspector.js';
import { validateHostMessage } from '../../src/protocol/validate.js';
import type { ProblemView } from '../../src/protocol/problem.js';
import { parseOracleInstance } from '../../src/format/oracle.js';
import { writeFclib } from './fclibWriter.js';

const ROOT = resolve(__dirname, '..', '..');
const SCRIPT = resolve(ROOT, 'dist', 'worker.js');
const COPY = join(ROOT, 'examples', 'problems', 'fclib-boxes-stack.json');
const HDF5 = join(ROOT, 'examples', 'problems', 'fclib-boxes-stack.hdf5');

/** Every per-contact number is finite or null (the protocol never carries NaN). */
function assertNoNaN(v: ProblemView): void {
  const bad: string[] = [];
  JSON.stringify(v, (k, x: unknown) => {
    if (typeof x === 'number' && !Number.isFinite(x)) bad.push(k);
    return x;
  });
  assert.deepEqual(bad, [], 'non-finite numbers in the view');
}

describe('problem files in the inspector', function () {
  this.timeout(120_000);

  it('the FCLIB copy: 48 contacts, 144 unknowns, rank 72, A as a 144² heat map, κ on the range finite, every solver with λ and w_n per contact', async () => {
    const v = await openProblemView(COPY, 'fclib-boxes-stack.json');
    assert.equal(v.contacts, 48);
    assert.equal(v.unknowns, 144);
    assert.equal(v.rank, 72);
    assert.equal(v.rankRatio, 2);
    assert.equal(v.matrix.size, 144);
    assert.equal(v.matrix.heat!.levels.length, 144 * 144);
    assert.equal(v.matrix.rankDeficiency, 72);
    assert.equal(v.matrix.kappa, null, 'κ(A) of a rank-deficient W (ε = 0) is infinite: sent as null');
    assert.ok(v.matrix.kappaRange !== null && v.matrix.kappaRange! > 1 && v.matrix.kappaRange! < 1e8, `κ_range ${v.matrix.kappaRange}`);
    assert.match(v.matrix.causes.join(' '), /rank 72 of 144/);
    assert.equal(v.table.length, 48);
    assert.equal(v.table[0].mu, 0.7, 'μ from the file');
    assert.equal(v.reference, null, 'the JSON copy keeps FCLIB’s /solution under `fclib`, not as a solution');
    assert.deepEqual(
      v.solvers.map((s) => s.solver),
      [...SOLVER_NAMES],
    );
    for (const s of v.solvers) {
      for (const a of [s.lambdaN, s.lambdaT, s.wN]) assert.equal(a.length, 48);
      assert.equal(s.classes.separating + s.classes.sticking + s.classes.sliding, 48);
    }
    const coulomb = v.solvers.find((s) => s.solver === 'coulomb')!;
    assert.equal(coulomb.meritKind, 'coulomb');
    assert.equal(coulomb.status, 'converged');
    assert.ok(coulomb.coulomb! <= 1e-8, `Coulomb merit ${coulomb.coulomb}`);
    const ipm = v.solvers.find((s) => s.solver === 'ipm')!;
    assert.equal(ipm.meritKind, 'kkt');
    assert.equal(ipm.status, 'converged');
    assert.ok(ipm.kkt! <= 1e-8, `ipm KKT ${ipm.kkt}`);
    // the convex answer has no sliding contact, so it also meets Coulomb's law (docs/problem-format.md)
    assert.equal(ipm.classes.sliding, 0);
    assert.ok(ipm.coulomb! <= 1e-8, `ipm Coulomb merit ${ipm.coulomb}`);
    // λn of ipm and coulomb agree where both converged on a Coulomb solution with no sliding contact
    const sumN = (s: typeof ipm) => s.lambdaN.reduce<number>((a, x) => a + (x ?? 0), 0);
    assert.ok(Math.abs(sumN(ipm) - sumN(coulomb)) <= 1e-6 * sumN(ipm), `Σλn ipm ${sumN(ipm)} coulomb ${sumN(coulomb)}`);
    assertNoNaN(v);
    // what the webview receives passes its validator
    validateHostMessage({ type: 'problem', version: PROTOCOL_VERSION, view: v });
  });

  it('the HDF5 file through the worker: progress per solver, the same sizes, and FCLIB’s /solution checked (r = 0 does not solve its problem)', async () => {
    assert.ok(existsSync(SCRIPT), `${SCRIPT} is missing: run \`npm run build\` first`);
    const w = new WorkerClient(SCRIPT);
    try {
      const progress: string[] = [];
      const v = await w.request({ op: 'openProblem', path: HDF5, file: 'fclib-boxes-stack.hdf5' }, { onProgress: (m) => progress.push(m) });
      assert.equal(v.format, 'fclib');
      assert.equal(v.title, 'Boxes Stack');
      assert.equal(v.file, 'fclib-boxes-stack.hdf5');
      assert.deepEqual([v.contacts, v.unknowns, v.rank], [48, 144, 72]);
      assert.equal(v.matrix.heat!.levels.length, 144 * 144, 'the heat map crosses the worker boundary as a Uint8Array');
      assert.ok(v.matrix.heat!.levels instanceof Uint8Array);
      assert.ok(progress.filter((m) => m.startsWith('solved with')).length === 4, progress.join(' | '));
      assert.equal(v.reference?.label, 'FCLIB /solution');
      assert.ok(v.table.every((c) => c.reference?.lambdaN === 0));
      assert.ok(v.reference!.coulomb! > 1e-4, `FCLIB's /solution merit ${v.reference!.coulomb}`);
      assertNoNaN(v);
    } finally {
      w.dispose();
    }
  });

  it('an HDF5 file written from the JSON copy opens with the same numbers (no ../shared needed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-problem-view-'));
    try {
      const file = join(dir, 'written.hdf5');
      await writeFclib(file, parseOracleInstance(readFileSync(COPY, 'utf8'), COPY).matrix);
      const [a, b] = [await openProblemView(COPY, 'copy.json'), await openProblemView(file, 'written.hdf5')];
      assert.deepEqual([b.contacts, b.unknowns, b.rank], [a.contacts, a.unknowns, a.rank]);
      assert.deepEqual(b.matrix.heat!.levels, a.matrix.heat!.levels);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bad input through the worker: one line naming the file and the field, and the worker keeps serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-problem-bad-'));
    const w = new WorkerClient(SCRIPT);
    try {
      const good = readFileSync(HDF5);
      const cases: [string, string | Buffer, RegExp][] = [
        // a truncated HDF5 file: the signature is there, the rest is not
        ['corrupt.hdf5', good.subarray(0, 4000), /^corrupt\.hdf5: \(hdf5\): cannot be opened as HDF5/],
        ['text.hdf5', 'not hdf5 at all', /^text\.hdf5: \(hdf5\): not an HDF5 file/],
        [
          'wrong-mu.problem.json',
          '{"schema_version":1,"id":"x","num_contacts":1,"n":3,"A":[1,0,0,0,1,0,0,0,1],"b":[1,0,0],"mu":[-1]}',
          /^wrong-mu\.problem\.json: mu(\[0\])?: /,
        ],
        [
          'short-b.problem.json',
          '{"schema_version":1,"id":"x","num_contacts":1,"n":3,"A":[1,0,0,0,1,0,0,0,1],"b":[1,0],"mu":[0.5]}',
          /^short-b\.problem\.json: b: /,
        ],
        ['broken.problem.json', '{"A": [1, 2', /^broken\.problem\.json: \(json\): malformed JSON/],
      ];
      for (const [name, bytes, re] of cases) {
        const path = join(dir, name);
        writeFileSync(path, bytes);
        await assert.rejects(
          w.request({ op: 'openProblem', path, file: name }),
          (e: Error) => e instanceof WorkerRequestError && re.test(e.message) && !e.message.includes('\n') && e.file === name,
          name,
        );
      }
      assert.ok(w.alive, 'the worker survives bad input');
      const v = await w.request({ op: 'openProblem', path: COPY, file: 'fclib-boxes-stack.json' });
      assert.equal(v.unknowns, 144);
    } finally {
      w.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
