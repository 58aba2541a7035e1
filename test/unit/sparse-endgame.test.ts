/**
 * The sparse solvers' proximal endgame (naturalMapSparse.ts proximalStep) on a world-step island where the
 * interior point ends near nearly degenerate contacts: sliding contacts inside their cone by ~1e-9 with a slip
 * of ~4e-9, where the natural map's own Newton step asks w = 0 and every projected line-search point is worse.
 * Fixture: test/fixtures/islands/pyramid-20-stalled-ipm.json.gz — the bodies and contact points of the largest
 * island (1600 contacts) of the 5th ipm world step of examples/pyramid-20 after 30 PGS settle steps, with the
 * step's assembly options (assembleJacobians rebuilds the island's Jacobians bit for bit). Before the endgame
 * the sparse interior point stopped there at KKT max_rel 1.7e-9 ("stalled").
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type AssemblyOptions, assembleJacobians, type ContactJacobians } from '../../src/engine/assembly.js';
import type { BodyState, ContactPoint } from '../../src/engine/problem.js';
import { IPM_DEFAULT_TOLERANCE } from '../../src/engine/solvers/ipm.js';
import { kktMatrixFree, solveIpmSparse } from '../../src/engine/solvers/ipmSparse.js';
import { KktWorkspace } from '../../src/engine/kkt.js';
import { solveNewtonSparse } from '../../src/engine/solvers/newtonSparse.js';
import { matrixFreeRows } from '../../src/engine/solvers/pgsRows.js';

interface IslandFixture {
  readonly softening: number;
  readonly options: AssemblyOptions;
  readonly bodies: BodyState[];
  readonly contacts: ContactPoint[];
}

const FIXTURE = resolve(__dirname, '..', 'fixtures', 'islands', 'pyramid-20-stalled-ipm.json.gz');

function loadIsland(): { k: ContactJacobians; softening: number } {
  const f = JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString('utf8')) as IslandFixture;
  return { k: assembleJacobians(f.bodies, f.contacts, f.options), softening: f.softening };
}

describe('sparse solvers: proximal endgame on a stalled pyramid-20 island', () => {
  const { k, softening } = loadIsland();

  it('the fixture is the 1600-contact island, not yet solved by λ = 0', () => {
    assert.equal(k.contactCount, 1600);
    const rel = kktMatrixFree(matrixFreeRows(k, softening), new Float64Array(k.size), new KktWorkspace(k.size)).maxRel;
    assert.ok(rel > 1e-3, `KKT max_rel of λ = 0 is ${rel}`);
  });

  it('the sparse interior point converges (KKT max_rel ≤ 1e-10) after its interior-point phase stops near 1.7e-9', () => {
    const out = solveIpmSparse(k, { solver: 'ipm' }, softening);
    assert.equal(out.status.kind, 'converged', out.status.kind === 'converged' ? '' : out.status.reason);
    assert.ok(out.kkt.maxRel <= IPM_DEFAULT_TOLERANCE, `KKT max_rel ${out.kkt.maxRel}`);
    // the interior-point phase alone ends above the tolerance: the polish (with the endgame) did the rest
    assert.ok(out.polishSteps >= 2, `${out.polishSteps} polish steps`);
    const r = out.history.residual;
    assert.ok(r[r.length - 1 - out.polishSteps] > 1e-9, `KKT max_rel before the polish ${r[r.length - 1 - out.polishSteps]}`);
    // the returned λ is checked again from scratch by the checker
    const again = kktMatrixFree(matrixFreeRows(k, softening), out.lambda, new KktWorkspace(k.size)).maxRel;
    assert.ok(again <= IPM_DEFAULT_TOLERANCE, `recomputed KKT max_rel ${again}`);
  });

  it('hands the endgame to the polish instead of factorising the contact-space matrix (was: contact-space factor from iteration 23)', () => {
    const out = solveIpmSparse(k, { solver: 'ipm' }, softening);
    assert.equal(out.status.kind, 'converged', out.status.kind === 'converged' ? '' : out.status.reason);
    assert.equal(out.contactSpaceFrom, -1, `contact-space factor from iteration ${out.contactSpaceFrom}`);
    // the explicit 'contact-space' option still takes that path, to the same optimum (λ of coplanar contacts is not unique)
    const cs = solveIpmSparse(k, { solver: 'ipm' }, softening, 'contact-space');
    assert.ok(cs.contactSpaceFrom >= 0);
    assert.ok(Math.abs(out.objective - cs.objective) <= 1e-8 * Math.abs(cs.objective), `${out.objective} vs ${cs.objective}`);
  });

  it('the sparse Newton (whose globalisation is that interior point) converges too', () => {
    const out = solveNewtonSparse(k, { solver: 'newton' }, softening);
    assert.equal(out.status.kind, 'converged', out.status.kind === 'converged' ? '' : out.status.reason);
    assert.ok(out.kkt.maxRel <= IPM_DEFAULT_TOLERANCE, `KKT max_rel ${out.kkt.maxRel}`);
  });
});
