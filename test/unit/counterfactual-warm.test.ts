/**
 * The counterfactual's dense re-solves from a warm λ (session/counterfactual.ts): the interior point starts from it
 * pushed inside the cones (ipm.ts); the energy is the exact solution's, to the re-solves' tolerance. De Saxcé's
 * first step starts cold, each later one from the previous step's λ.
 */
import assert from 'node:assert/strict';
import { islandResolver, type ExactSolution, type IslandResolver } from '../../src/session/counterfactual.js';
import { coulombExact } from '../../src/session/diagnosis/continuation.js';
import { boxPyramid } from './island-builders.js';

const DT = 1 / 60,
  REST = 0.05,
  GRAVITY = [0, 0, -9.81];

describe('counterfactual re-solves from a warm λ', () => {
  const { bodies, contacts } = boxPyramid(3, 0.5);
  const C = contacts.length;
  const fresh = (): IslandResolver => {
    const out = islandResolver(bodies, contacts, REST, DT, GRAVITY, 2);
    if (!out.ok) throw new Error(out.reason);
    return out.value;
  };
  // a De Saxcé step (session/diagnosis/continuation.ts): the boxes slide at 0.3 m/s; the first step's solution and
  // slip give the next step's b_n − μ‖w_t‖, whose solve starts from the first step's λ
  const sliding = Float64Array.from(fresh().lawB, (v, i) => (i % 3 === 1 ? v + 0.3 : v));
  const firstStep = (): { lambda: Float64Array; slip: Float64Array } => {
    const x = fresh().exactWithSlip(sliding);
    if (typeof x === 'string') throw new Error(x);
    return x;
  };
  const first = firstStep();
  const b = Float64Array.from(sliding, (v, i) => (i % 3 === 0 ? v - contacts[i / 3].mu * first.slip[i / 3] : v));
  const nearSolution = (): Float64Array => firstStep().lambda;

  it(`on a ${C}-contact pyramid, a start from a nearby solution gives the cold energy in fewer iterations`, () => {
    const cold = fresh(),
      warm = fresh();
    const xCold = cold.exactWithSlip(b),
      xWarm = warm.exactWithSlip(b, nearSolution());
    assert.ok(typeof xCold !== 'string' && typeof xWarm !== 'string', `${xCold} ${xWarm}`);
    const eCold = xCold.energy,
      eWarm = xWarm.energy;
    // both meet the KKT tolerance 1e-6 (COUNTERFACTUAL_TOLERANCE): their energies agree to about that, relatively
    assert.ok(Math.abs(eWarm - eCold) <= 1e-5 * Math.abs(eCold), `warm ${eWarm} J vs cold ${eCold} J`);
    assert.ok(warm.work <= 0.8 * cold.work, `work warm ${warm.work} vs cold ${cold.work}`);
  });

  it("De Saxcé's steps: the first starts cold, each later one from the previous step's λ", () => {
    const r = fresh();
    const warms: (Float64Array | undefined)[] = [],
      solutions: (ExactSolution | string)[] = [];
    const spy: IslandResolver = {
      ...r,
      exactWithSlip(bb, warm) {
        warms.push(warm);
        const x = r.exactWithSlip(bb, warm);
        solutions.push(x);
        return x;
      },
    };
    const mu = Float64Array.from(contacts, (c) => c.mu);
    const out = coulombExact(spy, sliding, mu, new Float64Array(C), 1e-9);
    assert.ok(typeof out !== 'string', String(out));
    assert.ok(warms.length >= 2, `${warms.length} steps`);
    assert.equal(warms[0], undefined);
    for (let k = 1; k < warms.length; k++) {
      const prev = solutions[k - 1];
      assert.ok(typeof prev !== 'string' && warms[k] === prev.lambda, `step ${k + 1} starts from step ${k}'s λ`);
    }
  });
});
