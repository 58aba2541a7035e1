import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseSceneFile } from '../../src/format/scene.js';
import { conditioning, DEFAULT_EXACT_LIMIT, RANGE_RELATIVE_THRESHOLD, rankToleranceFor } from '../../src/engine/conditioning.js';
import { symmetricEigenvalues } from '../../src/engine/math/eigen.js';
import type { ContactProblem } from '../../src/engine/problem.js';
import { Session } from '../../src/session/session.js';
import { bodySpaceConditioning, bodySpaceGram } from '../../src/session/bodySpaceConditioning.js';
import { ESTIMATE_MIN_ROWS, EXACT_ON_DEMAND_MAX_ROWS, exactIslandConditioning } from '../../src/session/conditioningEstimate.js';
import { assembleProblem } from '../../src/engine/assembly.js';
import { sphereColumn } from './island-builders.js';

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');

/** The exact analysis of A itself (conditioning.ts's exact rules on A's own eigenvalues), at any size. */
function exactOfA(p: ContactProblem): { lambdaMax: number; rank: number; lambdaMinRange: number } {
  const n = p.size;
  const ev = symmetricEigenvalues(p.A, n);
  const lambdaMax = ev[n - 1];
  const tol = rankToleranceFor(n, Math.max(Math.abs(ev[0]), Math.abs(lambdaMax)), p.regularization);
  const threshold = Math.max(tol, RANGE_RELATIVE_THRESHOLD * lambdaMax);
  let rank = 0;
  for (const v of ev) if (v > tol) rank++;
  return { lambdaMax, rank, lambdaMinRange: ev.find((v) => v > threshold) ?? 0 };
}

/** The islands above ESTIMATE_MIN_ROWS of a scenario's frame, as the frame view analyses them. */
function bigIslands(file: string, frame: number): ContactProblem[] {
  const p = path.join(EXAMPLES, file);
  const desc = parseSceneFile(fs.readFileSync(p, 'utf8'), p).scenarios[0].desc;
  const s = Session.fromScenario(desc, { frames: frame + 1 });
  return s
    .detail(frame, { conditioning: 'estimate' })
    .islands.map((isl) => isl.problem)
    .filter((q): q is ContactProblem => q !== null && q !== undefined && q.size > ESTIMATE_MIN_ROWS);
}

describe('body-space conditioning (frame view κ of large islands)', () => {
  for (const [file, frame] of [
    ['box-stack-10.scene.json', 1],
    ['box-stack-10.scene.json', 60],
    ['box-stack-10.scene.json', 299],
  ] as const) {
    it(`${file} frame ${frame}: rank, λmax and λmin on the range equal those of A's own eigenvalues`, function () {
      this.timeout(60_000);
      const islands = bigIslands(file, frame);
      assert.ok(islands.length > 0, 'the frame has an island above the exact-analysis size');
      for (const p of islands) {
        const g = bodySpaceConditioning(p, p.regularization);
        assert.ok(g !== null, `island of ${p.size} rows: the Gram is smaller than A`);
        const ex = exactOfA(p);
        assert.equal(g.method, 'exact-body-space-gram');
        assert.equal(g.rank, ex.rank, `rank of the island of ${p.size} rows`);
        assert.equal(g.lambdaMin, p.regularization, 'A has n − m eigenvalues ε exactly (n > m)');
        assert.ok(Math.abs(g.lambdaMax / ex.lambdaMax - 1) < 1e-9, `λmax ${g.lambdaMax} vs ${ex.lambdaMax}`);
        assert.ok(Math.abs(g.lambdaMinRange / ex.lambdaMinRange - 1) < 1e-6, `λmin⁺ ${g.lambdaMinRange} vs ${ex.lambdaMinRange}`);
      }
    });
  }

  it("on demand (Session.detail 'exact'), islands above conditioning()'s exact limit get their exact spectrum, not the Lanczos estimate", function () {
    this.timeout(120_000);
    // A 15-box stack: one island of 60 contacts (180 rows > DEFAULT_EXACT_LIMIT, 90 body columns: the Gram applies)
    const file = path.join(EXAMPLES, 'box-stack-10.scene.json');
    const desc = parseSceneFile(fs.readFileSync(file, 'utf8'), file).scenarios[0].desc;
    const top = desc.bodies.at(-1)!;
    const more = [10, 11, 12, 13, 14].map((k) => ({ ...top, name: `box-${k}`, position: [0, 0, k + 0.5] as typeof top.position }));
    const s = Session.fromScenario({ ...desc, bodies: [...desc.bodies, ...more] }, { frames: 3 });
    const islands = s.detail(2).islands.filter((isl) => isl.problem && isl.problem.size > DEFAULT_EXACT_LIMIT);
    assert.equal(islands.length, 1, 'the stack is one island above the exact limit');
    const [isl] = islands;
    const p = isl.problem!;
    const ex = exactOfA(p);
    assert.equal(p.size, 180);
    assert.equal(isl.conditioning!.method, 'exact-body-space-gram');
    assert.equal(isl.conditioning!.rank, ex.rank);
    assert.ok(Math.abs(isl.conditioning!.lambdaMinRange / ex.lambdaMinRange - 1) < 1e-6, `λmin⁺ ${isl.conditioning!.lambdaMinRange} vs ${ex.lambdaMinRange}`);
    assert.ok(Math.abs(isl.conditioning!.lambdaMax / ex.lambdaMax - 1) < 1e-9);
    const before = conditioning(p.A, p.size, { regularization: p.regularization }); // what 'exact' returned before
    console.log(
      `      15-box stack, 180 rows: κ on the range ${isl.conditioning!.kappaRange.toExponential(3)} (${isl.conditioning!.method}); conditioning()'s ${before.method} said ${before.kappaRange.toExponential(3)}`,
    );

    // A column of 50 spheres: 150 rows, 300 body columns (no Gram): A's own eigenvalues up to EXACT_ON_DEMAND_MAX_ROWS
    const col = sphereColumn(50, 0.5, 3);
    const q = assembleProblem(col.bodies, col.contacts);
    const c = exactIslandConditioning(q.A, q.size, q.regularization, q);
    const eq = exactOfA(q);
    assert.equal(c.method, 'exact-tridiagonal-ql');
    assert.equal(c.rank, eq.rank);
    assert.ok(Math.abs(c.lambdaMinRange / eq.lambdaMinRange - 1) < 1e-12 && Math.abs(c.lambdaMax / eq.lambdaMax - 1) < 1e-12);
    assert.ok(q.size <= EXACT_ON_DEMAND_MAX_ROWS);
  });

  it('steps aside for a body with an infinite inertia about an axis (its M⁻¹ has no Cholesky factor)', () => {
    const [p] = bigIslands('box-stack-10.scene.json', 60);
    const b = p.contacts![0].contact.bodyA;
    const bodies = p.physics!.bodies.map((bd, i) =>
      i === b ? { ...bd, invInertiaWorld: [0, 0, 0, 0, 1, 0, 0, 0, 1] as unknown as typeof bd.invInertiaWorld } : bd,
    );
    const locked = { ...p, physics: { ...p.physics!, bodies } };
    assert.notEqual(bodySpaceGram(p), null);
    assert.equal(bodySpaceGram(locked), null);
    assert.equal(bodySpaceConditioning(locked, p.regularization), null);
  });
});
