/**
 * The fused matrix-free sweep (pgsSweep.ts, packed contact rows) performs the same floating-point
 * operations as the generic sweep through PgsRows.rowTimes / changed on the 18-number Jacobian blocks:
 * λ and Δv agree bit for bit. And hypot2 (math/hypot.ts) stays within about an ulp of Math.hypot.
 */
import assert from 'node:assert/strict';
import { assembleJacobians } from '../../src/engine/assembly.js';
import { matrixFreeRows } from '../../src/engine/solvers/pgsRows.js';
import { sweepParams, sweepRows } from '../../src/engine/solvers/pgsSweep.js';
import { hypot2 } from '../../src/engine/math/hypot.js';
import { body, contact, staticBody } from './helpers.js';
import type { ContactPoint } from '../../src/engine/problem.js';

/** A leaning stack on the ground: static and dynamic sides, rotated contact frames, sliding and sticking. */
function stack(levels: number, mu: number): { bodies: ReturnType<typeof body>[]; contacts: ContactPoint[] } {
  const bodies = [staticBody()];
  const contacts: ContactPoint[] = [];
  for (let k = 0; k < levels; k++) {
    bodies.push(body(1 + 0.3 * k, (1 + k) / 6, [0.02 * k, 0.01 * k, 0.5 + k], [0.3 * (k % 2), -0.1, -0.4], [0.1, -0.2 * (k % 3), 0.05]));
    const s = Math.sin(0.05 * k),
      c = Math.cos(0.05 * k);
    for (const [x, y] of [
      [-0.5, -0.5],
      [0.5, -0.5],
      [0.5, 0.5],
      [-0.5, 0.5],
    ])
      contacts.push(contact(k + 1, k, [x + 0.02 * k, y, k], [s, 0, c], mu, 0.2 * (k % 2), 0.002 * (k % 3)));
  }
  return { bodies, contacts };
}

describe('fused matrix-free PGS sweep', () => {
  for (const mu of [0.6, 0]) {
    it(`gives the generic sweep's λ and Δv bit for bit (μ = ${mu}, warm-started, 12 sweeps)`, () => {
      const { bodies, contacts } = stack(7, mu);
      const k = assembleJacobians(bodies, contacts);
      const fused = matrixFreeRows(k, 0.01),
        generic = matrixFreeRows(k, 0.01);
      const n = k.size;
      const lf = new Float64Array(n),
        lg = new Float64Array(n);
      // a warm start with tangent impulses (removed by the μ = 0 branch) applied through `changed` in both
      for (let c = 0; c < k.contactCount; c++) {
        const l = [0.3 + 0.01 * c, 0.05 * Math.sin(c), -0.04 * Math.cos(c)];
        for (let r = 0; r < 3; r++) lf[3 * c + r] = lg[3 * c + r] = l[r];
        fused.changed(c, l[0], l[1], l[2]);
        generic.changed(c, l[0], l[1], l[2]);
      }
      const warm = Float64Array.from(lf);
      const pf = sweepParams(fused, 1e-9, null),
        pg = sweepParams(generic, 1e-9, null);
      const of = new Float64Array(2),
        og = new Float64Array(2);
      for (let sweep = 0; sweep < 12; sweep++) {
        fused.sweep(lf, pf, of);
        sweepRows(generic, lg, pg, og);
        assert.deepStrictEqual(lf, lg, `λ after sweep ${sweep + 1}`);
        assert.deepStrictEqual(fused.dv, generic.dv, `Δv after sweep ${sweep + 1}`);
        assert.deepStrictEqual(of, og, `max |Δλ|, max |λ| of sweep ${sweep + 1}`);
      }
      // the comparison is not vacuous: the sweeps moved the impulses away from the warm start
      assert.ok(lf.some((x, i) => Math.abs(x - warm[i]) > 1e-6));
    });
  }
});

describe('hypot2', () => {
  it('is within one ulp-scale relative error of Math.hypot over many magnitudes, and exact at the edges', () => {
    let worst = 0;
    for (let e = -140; e <= 140; e += 7) {
      for (let i = 0; i < 200; i++) {
        const x = (Math.sin(i * 12.9898 + e) * 2 - 1) * 10 ** e,
          y = Math.cos(i * 78.233 - e) * 10 ** (e + (i % 5) - 2);
        const h = Math.hypot(x, y);
        if (h > 0) worst = Math.max(worst, Math.abs(hypot2(x, y) - h) / h);
      }
    }
    assert.ok(worst <= 2 * Number.EPSILON, `worst relative difference ${worst}`);
    // outside the range of x² + y², the fallback is Math.hypot itself
    assert.equal(hypot2(3e200, 4e200), Math.hypot(3e200, 4e200));
    assert.equal(hypot2(3e-200, 4e-200), Math.hypot(3e-200, 4e-200));
    assert.equal(hypot2(0, 0), 0);
    assert.equal(hypot2(-0, -0), 0);
    assert.ok(Number.isNaN(hypot2(Number.NaN, 1)));
    assert.equal(hypot2(Number.POSITIVE_INFINITY, Number.NaN), Math.hypot(Number.POSITIVE_INFINITY, Number.NaN));
  });
});
