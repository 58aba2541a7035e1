/** What-if re-solves: the correct solve of a frame with a planted fault shows the energy the fault added. */
import assert from 'node:assert/strict';
import { Session } from '../../src/session/session.js';
import { whatIf } from '../../src/session/whatIf.js';
import { box, ground, scenario, sphere } from './world-helpers.js';
import { denseProblem } from '../../src/engine/assembly.js';
import { DENSE_ISLAND_LIMIT } from '../../src/engine/island/solveIsland.js';
import { coulombMerit } from '../../src/engine/coulombMerit.js';
import { kkt } from '../../src/engine/kkt.js';

describe('what-if re-solve', () => {
  it('re-solving the fault frame of the P2 bug with Newton gives λn·(1+e)/(2+e) and less kinetic energy; recorded vs alternative KKT are reported', () => {
    const mats = [{ name: 'bouncy', friction: 0.5, restitution: 0.5 }];
    const desc = scenario(
      [ground('bouncy'), sphere('ball', 0.1, 1, [0, 0, 1.1], [0, 0, 0], 'bouncy')],
      { dt: 1 / 240, erp: 0, splitImpulse: true, faults: { restitutionAsTarget: true } },
      mats,
      150,
    );
    const s = Session.fromScenario(desc);
    let impact = -1;
    for (let i = 0; i < s.frameCount; i++)
      if (s.summary(i).contacts > 0) {
        impact = i;
        break;
      }
    assert.ok(impact >= 0);
    const w = whatIf(s, impact, { solver: 'newton' });
    assert.equal(w.islands.length, 1);
    const isl = w.islands[0];
    const ratio = isl.alternative.lambda[0] / isl.recorded.lambda[0];
    assert.ok(Math.abs(ratio - 1.5 / 2.5) < 1e-6, `λn ratio ${ratio}`);
    assert.ok(isl.alternative.kineticEnergyChange < isl.recorded.kineticEnergyChange - 1, 'the correct solve removes energy the fault added');
    assert.ok(isl.alternative.kktMaxRel <= 1e-9);
    assert.ok(isl.recorded.kktMaxRel > 0.1, 'the recorded λ is not a solution of the (correct) contact problem');
    s.close();
  });

  it('a sliding box recorded with ipm (convex: it lifts) re-solved with coulomb: less normal impulse, w_n = 0, each λ meets only its own law', () => {
    const desc = scenario([ground(), box('box', [0.25, 0.25, 0.25], 1, [0, 0, 0.25], [5, 0, 0])], { solver: { solver: 'ipm' } }, [], 3);
    const s = Session.fromScenario(desc);
    const frame = [0, 1, 2].find((i) => s.summary(i).contacts > 0)!;
    const isl = whatIf(s, frame, { solver: 'coulomb' }).islands[0];
    assert.equal(isl.alternative.result.status.kind, 'converged');
    assert.ok(isl.alternative.coulombMerit <= 1e-9 && isl.recorded.coulombMerit > 1e-3, `${isl.alternative.coulombMerit} vs ${isl.recorded.coulombMerit}`);
    assert.ok(isl.recorded.kktMaxRel <= 1e-8 && isl.alternative.kktMaxRel > 1e-3, `${isl.recorded.kktMaxRel} vs ${isl.alternative.kktMaxRel}`);
    let nRec = 0,
      nAlt = 0;
    for (let c = 0; c < isl.contacts.length; c++) {
      nRec += isl.recorded.lambda[3 * c];
      nAlt += isl.alternative.lambda[3 * c];
      assert.ok(Math.abs(isl.alternative.gapAfter[3 * c]) < 1e-6, `contact ${c}: ġn⁺ = ${isl.alternative.gapAfter[3 * c]}`);
    }
    assert.ok(nAlt < nRec, `Σλn coulomb ${nAlt} < ipm ${nRec} (the convex model pushes the box up)`);
    s.close();
  });

  it('an island beyond the dense limit (a 56-box stack, 224 contacts) is re-solved without A, not skipped, and its figures equal the dense evaluation', () => {
    const boxes = Array.from({ length: 56 }, (_, k) => box(`b${k}`, [0.25, 0.25, 0.25], 1, [0, 0, 0.25 + 0.5 * k]));
    const desc = scenario([ground(), ...boxes], { solver: { solver: 'pgs', maxIterations: 5 } }, [], 3);
    const s = Session.fromScenario(desc);
    const frame = [0, 1, 2].find((i) => s.summary(i).contacts > DENSE_ISLAND_LIMIT)!;
    assert.ok(frame !== undefined, 'a frame with more contacts than the dense limit');
    const detail = s.detail(frame);
    const big = detail.islands.find((isl) => isl.contacts.length > DENSE_ISLAND_LIMIT)!;
    assert.equal(big.problem, null);
    const w = whatIf(s, frame, { solver: 'newton', tolerance: 1e-9 });
    assert.deepEqual(w.skipped, [], 'no island skipped');
    const isl = w.islands.find((x) => x.contacts.length === big.contacts.length)!;
    assert.equal(isl.alternative.result.solver, 'newton');
    assert.equal(isl.alternative.result.status.kind, 'converged', JSON.stringify(isl.alternative.result.status));
    assert.ok(isl.alternative.kktMaxRel <= 1e-9, `${isl.alternative.kktMaxRel}`);
    assert.ok(isl.recorded.kktMaxRel > 1e3 * isl.alternative.kktMaxRel, `5 PGS sweeps ${isl.recorded.kktMaxRel}`);
    // the matrix-free figures against the dense problem of the same Jacobians (independent of the solvers)
    const p = denseProblem(big.jacobians!, big.jacobians!.regularization);
    for (const alt of [isl.recorded, isl.alternative]) {
      const lam = alt.lambda,
        n = p.size;
      let dke = 0,
        gmax = 0;
      for (let i = 0; i < n; i++) {
        let t = -p.regularization * lam[i];
        for (let j = 0; j < n; j++) t += p.A[i * n + j] * lam[j];
        const g = -p.rhs!.velocity[i] + t;
        gmax = Math.max(gmax, Math.abs(g - alt.gapAfter[i]));
        dke += lam[i] * (-p.rhs!.velocity[i] + 0.5 * t);
      }
      assert.ok(gmax <= 1e-9, `ġ⁺ differs by ${gmax}`);
      assert.ok(Math.abs(dke - alt.kineticEnergyChange) <= 1e-9 * Math.max(1, Math.abs(dke)), `ΔKE ${alt.kineticEnergyChange} vs ${dke}`);
      const k = kkt(p, lam).maxRel;
      assert.ok(Math.abs(k - alt.kktMaxRel) <= 1e-6 * k + 1e-14, `KKT ${alt.kktMaxRel} vs ${k}`);
      const cm = coulombMerit(p, lam);
      assert.ok(Math.abs(cm - alt.coulombMerit) <= 1e-6 * cm + 1e-14, `Coulomb merit ${alt.coulombMerit} vs ${cm}`);
    }
    s.close();
  });
});
