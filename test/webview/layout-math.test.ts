/**
 * Pure helpers of the webview, in Node: convergence-plot axes, the contact table's fixed-width cells, the number
 * formatter, the energy chart's aligned axes and findings track, the findings' headlines and the status line.
 */
import assert from 'node:assert/strict';
import { decadeAxis, iterationTicks, samples } from '../../webview/convergenceAxes.js';
import { fitCell } from '../../webview/fixedWidth.js';
import { frameTickLabel, frameTitle, roundFrameTicks } from '../../webview/frameAxis.js';
import { columnScale, energyReadout, inScale, joules, si, statusSummary, vecInScale } from '../../webview/format.js';
import { ALIGNED_INTERVALS, alignedZeroRanges, clusterMarkers, relativeTo0 } from '../../webview/chartMath.js';
import { findingHeadline, firstClause, shortText } from '../../webview/findingText.js';
import { FINDING_HEADLINE_MAX } from '../../src/protocol/inspector.js';

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

describe('number formatter (webview/format.ts): SI prefixes and the digits that fit', () => {
  it('one value: the prefix that puts it in [1, 1000), three significant digits, a real minus sign', () => {
    assert.equal(si(0.000371325, 'm'), '371 µm');
    assert.equal(si(0.1877, 'N·s'), '188 mN·s');
    assert.equal(si(-0.00324, 'm/s'), '−3.24 mm/s');
    assert.equal(si(-7.17, 'm/s'), '−7.17 m/s');
    assert.equal(si(999.96, 'J'), '1.00 kJ', 'rounding carries into the next prefix');
    assert.equal(si(1.85e-18, 'N·s'), '1.85e-18 N·s', 'below the prefixes: an exponent, in the base unit');
    assert.equal(si(0, 'J'), '0 J');
    assert.equal(si(null, 'J'), '–');
    assert.equal(si(0.5, ''), '0.500', 'dimensionless: no prefix');
  });

  it('a column: one prefix and one number of decimals (depths 2.725 and 0.371 mm), noise as ≈0, zero as 0', () => {
    const depth = columnScale([0.002725, 5.55e-17, 0, 0.000371325], 'm');
    assert.deepEqual(depth, { unit: 'mm', factor: 0.001, decimals: 3 });
    assert.deepEqual(
      [0.002725, 5.55e-17, 0, 0.000371325, null].map((x) => inScale(x, depth)),
      ['2.725', '≈0', '0', '0.371', '–'],
    );
    const lambda = columnScale([0.1877, 0.0934], 'N·s');
    assert.equal(lambda.unit, 'mN·s');
    assert.equal(inScale(0.1877, lambda), '187.7');
    // a column of numerical noise only (‖λt‖ of a frictionless stack): exponents, not "0.000002 pN·s"
    const noise = columnScale([1.85e-18, 2e-19], 'N·s');
    assert.equal(inScale(1.85e-18, noise), '1.85e-18');
    // points keep three decimals up to 9.999 m and the vector's zeros read as a vector
    const p = columnScale([-0.5, 9.497], 'm');
    assert.equal(vecInScale([-0.5, -0.5, 2.997], p), '−0.500, −0.500, 2.997');
    assert.equal(vecInScale([0, 0, 1], { unit: '', factor: 1, decimals: 3 }), '0.000, 0.000, 1.000');
  });

  it('energy readout: total, its change since the first frame, kinetic, potential', () => {
    assert.equal(energyReadout(0.430068, 489.821, 490.251, 490, 0), 'E 490.25 J · ΔE +251 mJ since frame 0 · kinetic 430.1 mJ · potential 489.8 J');
    assert.equal(joules(-0.301), '−301 mJ');
  });
});

describe('energy chart helpers (webview/chartMath.ts)', () => {
  it('relative series: ΔE since the first frame', () => {
    assert.deepEqual(
      relativeTo0([490, 490.3, null, 489.9]).map((x) => (x === null ? null : Number(x.toFixed(6)))),
      [0, 0.3, null, -0.1],
    );
  });

  it('two axes get their zeros on one grid line: bars ≥ 0 on the left, E − E₀ dipping below zero on the right', () => {
    const [l, r] = alignedZeroRanges({ min: 0, max: 0.35 }, { min: -3.2, max: 3 });
    for (const a of [l, r]) {
      assert.ok(Number.isInteger(-a.min / a.step) && Number.isInteger(a.max / a.step), `zero is a tick: ${JSON.stringify(a)}`);
      assert.equal(Math.round((a.max - a.min) / a.step), ALIGNED_INTERVALS);
    }
    // the same fraction of each axis lies below zero
    assert.equal(-l.min / (l.max - l.min), -r.min / (r.max - r.min));
    assert.ok(l.max >= 0.35 && r.max >= 3 && r.min <= -3.2, `${JSON.stringify(l)} ${JSON.stringify(r)}`);
    // nothing below zero on either axis: zero at the bottom of both
    const [a, b] = alignedZeroRanges({ min: 0, max: 2 }, { min: 0, max: 50 });
    assert.equal(a.min, 0);
    assert.equal(b.min, 0);
  });

  it('findings track: 52 findings in 40 neighbouring frames become a few counted marks, not a barcode', () => {
    const px = (i: number) => 10 + 2 * i; // 300 frames on 600 px
    const markers = [
      ...Array.from({ length: 47 }, (_, k) => ({ x: px(1 + k), index: 1 + k, rank: 1 })),
      { x: px(100), index: 100, rank: 2 },
      { x: px(101), index: 101, rank: 1 },
      { x: px(120), index: 120, rank: 1 },
      { x: px(180), index: 180, rank: 1 },
      { x: px(250), index: 250, rank: 0 },
    ];
    const c = clusterMarkers(markers, 7);
    assert.deepEqual(
      c.map((k) => [k.count, k.first, k.last, k.rank]),
      [
        [47, 1, 47, 1],
        [2, 100, 101, 2],
        [1, 120, 120, 1],
        [1, 180, 180, 1],
        [1, 250, 250, 0],
      ],
    );
  });
});

describe('findings list headlines (webview/findingText.ts)', () => {
  const base = {
    index: 1,
    frame: 1,
    time: 0.0333,
    contacts: [0, 1, 2, 3],
    mechanism: 'bias-injection',
    joules: 0.00944373,
    kind: 'injection' as const,
    explanation:
      '0.00944 J from the position correction: contact #0 separates at 0.0501 m/s; the restitution law’s target is 0.00 m/s (e = 0, approach 0.327 m/s); the separation above it is within the declared soft contact’s spring …',
  };
  it('without a headline: mechanism, frame, joules and the first clause of the explanation (its joules not repeated)', () => {
    assert.equal(firstClause(base.explanation), 'from the position correction');
    assert.equal(findingHeadline(base), 'bias-injection · frame 1 · +9.44 mJ · from the position correction');
  });
  it("the diagnosis' headline when it gives one; never longer than FINDING_HEADLINE_MAX", () => {
    assert.equal(shortText({ ...base, headline: 'soft-contact spring pushed #0 out at 5.0 cm/s' }), 'soft-contact spring pushed #0 out at 5.0 cm/s');
    const long = findingHeadline({ ...base, headline: 'x'.repeat(300) });
    assert.equal(long.length, FINDING_HEADLINE_MAX);
    assert.ok(long.endsWith('…'));
  });
});

describe('frame status line (webview/format.ts statusSummary)', () => {
  it('one compact line with singular and plural right', () => {
    const v = { solver: 'pgs', status: 'converged' as const, iterations: 1, contacts: [{}] as never[], islands: [{}, {}] as never[] };
    assert.equal(statusSummary(v), 'solver pgs · converged · 1 iteration · 1 contact · 2 islands');
    assert.equal(statusSummary({ ...v, iterations: null }), 'solver pgs · converged · iterations not recorded · 1 contact · 2 islands');
  });
});
