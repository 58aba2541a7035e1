/** The heat-map wire encoding of A (src/protocol/heatMap.ts): signed log-magnitude levels, one byte each. */
import assert from 'node:assert/strict';
import { rng } from '../rng.js';
import { encodeHeatMap, HEAT_DECADES, HEAT_NEGATIVE, HEAT_NON_FINITE, HEAT_STEPS, HEAT_ZERO } from '../../src/protocol/heatMap.js';

describe('heat map encoding', () => {
  it('maps 0, the largest entry, one decade per 21 levels, the floor 1e-6·max and below, and the sign', () => {
    const A = Float64Array.from([0, 4, -4, 0.4, -4e-6, 4e-9, 2, -0.04]);
    const h = encodeHeatMap(A, 2); // only the leading 2×2 block
    assert.equal(h.levels.length, 4);
    assert.equal(h.maxAbs, 4);
    assert.deepEqual(Array.from(h.levels), [HEAT_ZERO, 1 + HEAT_STEPS, HEAT_NEGATIVE + HEAT_STEPS, 1 + HEAT_STEPS - HEAT_STEPS / HEAT_DECADES]);
    const full = encodeHeatMap(Float64Array.from([...A, 0]), 3);
    assert.deepEqual(Array.from(full.levels), [
      HEAT_ZERO,
      1 + HEAT_STEPS,
      HEAT_NEGATIVE + HEAT_STEPS,
      1 + HEAT_STEPS - HEAT_STEPS / HEAT_DECADES, // 0.4 = max/10: one decade down
      HEAT_NEGATIVE, // −4e-6 = −max·1e-6: the bottom of the scale
      1, // 4e-9 is below the scale: clamped to its bottom, still not "zero"
      1 + Math.round(HEAT_STEPS + (HEAT_STEPS / HEAT_DECADES) * Math.log10(0.5)),
      HEAT_NEGATIVE + HEAT_STEPS - (2 * HEAT_STEPS) / HEAT_DECADES,
      HEAT_ZERO,
    ]);
  });

  it('counts NaN and ±∞ as their own level and leaves them out of max|a|', () => {
    const h = encodeHeatMap(Float64Array.from([NaN, 2, Infinity, -Infinity]), 2);
    assert.equal(h.maxAbs, 2);
    assert.equal(h.nonFinite, 3);
    assert.deepEqual(Array.from(h.levels), [HEAT_NON_FINITE, 1 + HEAT_STEPS, HEAT_NON_FINITE, HEAT_NON_FINITE]);
  });

  it('an all-zero or all-NaN A has maxAbs 0 and no coloured level', () => {
    assert.deepEqual(Array.from(encodeHeatMap(new Float64Array(4), 2).levels), [0, 0, 0, 0]);
    const nan = encodeHeatMap(Float64Array.from([NaN, NaN, NaN, NaN]), 2);
    assert.equal(nan.maxAbs, 0);
    assert.deepEqual(Array.from(nan.levels), [HEAT_NON_FINITE, HEAT_NON_FINITE, HEAT_NON_FINITE, HEAT_NON_FINITE]);
  });
});

describe('heat map levels against Math.log10', () => {
  it('the table-based log10 gives the exact level for 100 000 random entries over 12 decades (except within 0.01 of a rounding tie)', () => {
    const r = rng(7);
    const n = 316,
      A = new Float64Array(n * n);
    for (let i = 0; i < A.length; i++) A[i] = (r() < 0.5 ? -1 : 1) * Math.pow(10, 3 - 12 * r());
    const h = encodeHeatMap(A, n);
    let checked = 0;
    for (let i = 0; i < A.length; i++) {
      const t = (Math.log10(Math.abs(A[i]) / h.maxAbs) + HEAT_DECADES) * (HEAT_STEPS / HEAT_DECADES);
      if (Math.abs(t - Math.floor(t) - 0.5) < 0.01) continue;
      const step = t <= 0 ? 0 : t >= HEAT_STEPS ? HEAT_STEPS : Math.round(t);
      assert.equal(h.levels[i], (A[i] > 0 ? 1 : HEAT_NEGATIVE) + step, `A[${i}] = ${A[i]}`);
      checked++;
    }
    assert.ok(checked > 95_000, `${checked}`);
  });
});
