/** Pure layout helpers of the webview, in Node: convergence-plot axes and the contact table's fixed-width cells. */
import assert from 'node:assert/strict';
import { decadeAxis, iterationTicks, samples } from '../../webview/convergenceAxes.js';
import { fitCell } from '../../webview/fixedWidth.js';

describe('convergence plot axes', () => {
  it('keeps the positive finite residuals with their 1-based iteration', () => {
    assert.deepEqual(samples([1, 0, null, 1e-3, NaN, -2, Infinity, 5e-9]), [
      { iteration: 1, residual: 1 }, { iteration: 4, residual: 1e-3 }, { iteration: 8, residual: 5e-9 },
    ]);
  });

  it('encloses the range in whole decades, exact powers of ten included, and labels ≤ 8 of them', () => {
    assert.deepEqual(decadeAxis(5e-9, 1), { lo: -9, hi: 0, step: 2 });
    assert.deepEqual(decadeAxis(1e-3, 1e-3), { lo: -3, hi: -2, step: 1 });
    assert.deepEqual(decadeAxis(2e-5, 3e-5), { lo: -5, hi: -4, step: 1 });
    assert.deepEqual(decadeAxis(1e-16, 1), { lo: -16, hi: 0, step: 2 });
    assert.deepEqual(decadeAxis(1e-6, 1e-2), { lo: -6, hi: -2, step: 1 });
  });

  it('puts x ticks on 1 and multiples of 1, 2 or 5 × 10^k, at most maxTicks of them', () => {
    assert.deepEqual(iterationTicks(2, 8), [1, 2]);
    assert.deepEqual(iterationTicks(6, 8), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(iterationTicks(40, 8), [1, 10, 20, 30, 40]);
    assert.deepEqual(iterationTicks(200, 5), [1, 50, 100, 150, 200]);
    for (const last of [3, 17, 50, 99, 1000, 12345]) assert.ok(iterationTicks(last, 6).length <= 6 + 1, `${last}`);
  });
});

describe('contact table cells', () => {
  it('pads to the column width (one space of gap), right- or left-aligned, and cuts long text with …', () => {
    assert.equal(fitCell('1.50000', 13, 'right'), '     1.50000 ');
    assert.equal(fitCell('sticking', 12, 'left'), 'sticking    ');
    assert.equal(fitCell('a-very-long-body-name–ground', 12, 'left'), 'a-very-lon… ');
    assert.equal(fitCell('-1.23456e-10', 13, 'right').length, 13);
  });
});
