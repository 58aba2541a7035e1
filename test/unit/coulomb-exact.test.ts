/**
 * The counterfactual's exact Coulomb re-solve (session/diagnosis/continuation.ts coulombExact) on a sphere sliding
 * on the ground, where Coulomb's law has a closed form: the normal impulse stops the approach, λn = m·(−v_z⁻), and
 * friction slides at the cone's edge against the slip, λt = −μλn, leaving the slip v_x⁻ − μλn(1/m + r²/I).
 * De Saxcé's fixed point converges to it linearly: three steps stop far from it, and the last step's bound is no
 * error bound. The exact Coulomb solver finishes the re-solve.
 */
import assert from 'node:assert/strict';
import type { BodyState, ContactPoint } from '../../src/engine/index.js';
import { islandResolver, type IslandResolver } from '../../src/session/counterfactual.js';
import { coulombExact, DE_SAXCE_STEPS } from '../../src/session/diagnosis/continuation.js';

const m = 3,
  r = 0.15,
  I = 0.4 * m * r * r,
  mu = 0.3,
  vx = 4,
  vz = -0.1635;
const sphere: BodyState = {
  invMass: 1 / m,
  invInertiaWorld: [1 / I, 0, 0, 0, 1 / I, 0, 0, 0, 1 / I],
  x: [0, 0, r],
  v: [vx, 0, vz],
  omega: [0, 0, 0],
};
const contact: ContactPoint = {
  bodyA: 0,
  bodyB: -1,
  point: [0, 0, 0],
  normal: [0, 0, 1],
  t1: [1, 0, 0],
  t2: [0, 1, 0],
  mu,
  restitution: 0,
  penetration: 0,
};

function resolver(): IslandResolver {
  const out = islandResolver([sphere], [contact], 0.5, 1 / 60, [0, 0, -9.81], 3);
  if (!out.ok) throw new Error(out.reason);
  return out.value;
}

/** `steps` De Saxcé steps from sticking, as coulombExact takes them: the last E, slip and bound λn·μ·|Δslip|. */
function fixedPointSteps(res: IslandResolver, steps: number): { energy: number; slip: number; bound: number } {
  let slip = 0,
    energy = Number.NaN,
    bound = Number.NaN;
  for (let k = 0; k < steps; k++) {
    const b = Float64Array.from(res.lawB);
    b[0] -= mu * slip;
    const x = res.exactWithSlip(b);
    if (typeof x === 'string') throw new Error(x);
    energy = x.energy;
    bound = Math.abs(x.lambda[0] * mu * (x.slip[0] - slip));
    slip = x.slip[0];
  }
  return { energy, slip, bound };
}

describe("the counterfactual's exact Coulomb re-solve on a sliding sphere (closed form)", () => {
  const lambdaN = -m * vz;
  const exactLambda = Float64Array.of(lambdaN, -mu * lambdaN, 0);
  const exactSlip = vx - mu * lambdaN * (1 / m + (r * r) / I);

  it('the closed form is a solution: the resolver measures the slip it leaves', () => {
    // De Saxcé's fixed point run to its limit reaches the closed form's slip
    const { slip } = fixedPointSteps(resolver(), 30);
    assert.ok(Math.abs(slip - exactSlip) < 1e-5, `slip ${slip} against ${exactSlip}`);
  });

  it('three fixed-point steps stop farther from the exact E than their last bound; the Coulomb solver finishes at the exact E', () => {
    const res = resolver();
    const exactE = res.energy(exactLambda);
    // the cap alone
    const { energy: capped, bound } = fixedPointSteps(res, DE_SAXCE_STEPS);
    console.log(
      `      capped E ${capped.toFixed(4)} J (last step's bound ${(bound * 1e3).toFixed(1)} mJ), exact E ${exactE.toFixed(4)} J: ${((capped - exactE) * 1e3).toFixed(1)} mJ off`,
    );
    assert.ok(Math.abs(capped - exactE) > 2 * bound, `capped E ${capped} J, exact ${exactE} J, last bound ${bound} J`);
    const out = coulombExact(res, res.lawB, Float64Array.of(mu), Float64Array.of(0), 1e-4);
    if (typeof out === 'string') throw new Error(out);
    assert.equal(out.finished, true);
    assert.equal(out.openBound, 0);
    assert.ok(Math.abs(out.energy - exactE) <= 1e-6 * Math.abs(exactE), `E ${out.energy} J against the closed form's ${exactE} J`);
  });

  it('a fixed point that settles within its cap is not handed to the Coulomb solver', () => {
    const res = resolver();
    // from the exact slip the first step is the solution
    const out = coulombExact(res, res.lawB, Float64Array.of(mu), Float64Array.of(exactSlip), 1e-4);
    if (typeof out === 'string') throw new Error(out);
    assert.equal(out.finished, false);
    assert.equal(out.openBound, 0);
    assert.ok(Math.abs(out.energy - res.energy(exactLambda)) <= 1e-5 * Math.abs(out.energy));
  });
});
