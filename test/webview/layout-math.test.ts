/** Pure layout helpers of the webview, in Node: convergence-plot axes and the contact table's fixed-width cells. */
import assert from 'node:assert/strict';
import { decadeAxis, iterationTicks, samples } from '../../webview/convergenceAxes.js';
import { fitCell } from '../../webview/fixedWidth.js';
import { frameTickLabel, frameTitle, roundFrameTicks } from '../../webview/frameAxis.js';

describe('convergence plot axes', () => {
  it('keeps the positive finite residuals with their 1-based iteration', () => {
    assert.deepEqual(samples([1, 0, null, 1e-3, NaN, -2, Infinity, 5e-9]), [
      { iteration: 1, residual: 1 },
      { iteration: 4, residual: 1e-3 },
      { iteration: 8, residual: 5e-9 },
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

describe('time-chart frame axis', () => {
  // a foreign recording that logged every third step: indices 0…3 are frames 3, 6, 9, 12
  const frames = [3, 6, 9, 12],
    times = [0.05, 0.1, 0.15, 0.2];
  it("labels session indices with the recording's frame numbers, nothing between or outside them", () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((i) => frameTickLabel(i, frames)),
      ['3', '6', '9', '12'],
    );
    assert.equal(frameTickLabel(1.5, frames), '');
    assert.equal(frameTickLabel(-1, frames), '');
    assert.equal(frameTickLabel(4, frames), '');
  });
  it('titles a tooltip with the frame number and its time', () => {
    assert.equal(frameTitle(2, frames, times), 'frame 9 · t = 0.1500 s');
    assert.equal(frameTitle(7, frames, times), '');
  });
});

describe('time-chart round frame ticks', () => {
  const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  it('frames 1…180 with index ticks 0, 20, … 160, 179: frame labels 1, 20, 40, … 160, 180', () => {
    const frames = oneTo(180);
    const ticks = roundFrameTicks([0, 20, 40, 60, 80, 100, 120, 140, 160, 179], frames);
    assert.deepEqual(
      ticks.map((i) => frames[i]),
      [1, 20, 40, 60, 80, 100, 120, 140, 160, 180],
    );
  });
  it('a recording of every third step gets multiples of 30; a tick whose round frame is missing stays', () => {
    const frames = Array.from({ length: 100 }, (_, i) => 3 * (i + 1)); // 3, 6, … 300
    const ticks = roundFrameTicks([0, 10, 20, 30, 40, 99], frames);
    // span 30 frames, stride 3 → step 30: frame 3 stays (0 is not recorded), 33→30, 63→60, 93→90, 123→120, 300
    assert.deepEqual(
      ticks.map((i) => frames[i]),
      [3, 30, 60, 90, 120, 300],
    );
    const odd = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89]; // irregular: a round frame that is missing keeps its tick
    assert.deepEqual(
      roundFrameTicks([0, 4, 9], odd).map((i) => odd[i]),
      [1, 8, 89],
    );
    const six = Array.from({ length: 100 }, (_, i) => 6 * i); // 0, 6, … 594: multiples of 30 are recorded
    assert.deepEqual(
      roundFrameTicks([0, 10, 20, 99], six).map((i) => six[i]),
      [0, 60, 120, 594],
    );
  });
  it('never repeats or reorders ticks and leaves degenerate input alone', () => {
    const frames = oneTo(5);
    assert.deepEqual(roundFrameTicks([0, 1, 2, 3, 4], frames), [0, 1, 2, 3, 4]);
    assert.deepEqual(roundFrameTicks([0], frames), [0]);
    assert.deepEqual(roundFrameTicks([0, 1], [7, 7]), [0, 1]);
  });
});
