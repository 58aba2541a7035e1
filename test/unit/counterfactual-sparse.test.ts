/** Counterfactual re-solves of islands beyond the dense re-solve limit: the sparse interior point, same energies. */
import assert from 'node:assert/strict';
import { assembleJacobians, denseProblem } from '../../src/engine/assembly.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { kkt } from '../../src/engine/kkt.js';
import { COUNTERFACTUAL_MAX_CONTACTS, COUNTERFACTUAL_REGULARIZATION, energyChange, islandResolver, potentialRows } from '../../src/session/counterfactual.js';
import { boxPyramid } from './island-builders.js';

const DT = 1 / 60,
  REST = 0.05,
  GRAVITY = [0, 0, -9.81];

describe('counterfactual re-solves beyond the dense limit', () => {
  const { bodies, contacts } = boxPyramid(6, 0.5); // 144 contacts
  const C = contacts.length;
  // a "recorded" λ that pushes too hard: 1.3 × the exact law solution's normal impulses
  const k = assembleJacobians(bodies, contacts, { dt: DT, baumgarte: false, restVelocityThreshold: REST, regularization: 0 });
  const law = denseProblem(k, COUNTERFACTUAL_REGULARIZATION);
  const exactLaw = solve(law, { solver: 'ipm', tolerance: 1e-10 });
  const recorded = Float64Array.from(exactLaw.lambda, (x, i) => (i % 3 === 0 ? 1.3 * x : x));

  it(`an island of ${C} contacts (> ${COUNTERFACTUAL_MAX_CONTACTS}) is re-solved, and its energies equal the dense re-solves'`, () => {
    assert.ok(C > COUNTERFACTUAL_MAX_CONTACTS);
    const out = islandResolver(bodies, contacts, REST, DT, GRAVITY, 2);
    assert.ok(out.ok, out.ok ? '' : out.reason);
    const r = out.value;
    assert.ok(r.sparse);
    const bStabIsland = Float64Array.from(r.lawB);
    for (let c = 0; c < C; c++) bStabIsland[3 * c] += 0.02;
    const lawE = r.exact(r.lawB),
      stabE = r.exact(bStabIsland);
    assert.ok(typeof lawE === 'number' && typeof stabE === 'number', `${lawE} ${stabE}`);
    const v = { law: lawE, stabilised: stabE, recorded: r.energy(recorded), recordedKkt: r.kkt(recorded, bStabIsland), work: r.work };
    // dense references to a tight tolerance (independent of the sparse code)
    const pe = potentialRows(k, GRAVITY, DT);
    const bStab = Float64Array.from(law.b);
    for (let c = 0; c < C; c++) bStab[3 * c] += 0.02;
    const stabilised = { ...law, b: bStab };
    const eLaw = energyChange(law, exactLaw.lambda, pe);
    const eStab = energyChange(stabilised, solve(stabilised, { solver: 'ipm', tolerance: 1e-10 }).lambda, pe);
    const eRec = energyChange(law, recorded, pe);
    const scale = Math.max(Math.abs(eLaw), Math.abs(eStab), Math.abs(eRec));
    for (const [name, got, want] of [
      ['law', v.law, eLaw],
      ['stabilised', v.stabilised, eStab],
      ['recorded', v.recorded, eRec],
    ] as const)
      assert.ok(Math.abs(got - want) <= 1e-5 * scale, `${name}: ${got} vs dense ${want}`);
    assert.ok(Math.abs(eRec - eLaw) > 1e-3 * scale && Math.abs(eStab - eLaw) > 1e-6 * scale, 'the three energies are distinct');
    const kr = kkt(stabilised, recorded).maxRel;
    assert.ok(Math.abs(v.recordedKkt - kr) <= 1e-6 * kr, `recorded KKT ${v.recordedKkt} vs ${kr}`);
    assert.ok(v.work > 0);
  });

  it('a sparse re-solve predicted to exceed the budget left is not started, and says so', () => {
    const out = islandResolver(bodies, contacts, REST, DT, GRAVITY, 2, 1e5);
    assert.equal(out.ok, false);
    assert.match(out.ok ? '' : out.reason, /exceed the re-solve budget left \(1\.0e\+5\)/);
  });
});
