/**
 * The datasets of the energy and injection charts (charts.ts): the energy's change since frame 0 or its
 * absolute parts, run b's total in compare mode, the diagnosis' injections per mechanism as stacked bars
 * beside their cumulative sum, and the injection chart's two axes aligned at zero.
 */
import type { ChartDataset } from 'chart.js';
import type { CompareView } from '../src/protocol/compare.js';
import type { Timeline } from '../src/protocol/inspector.js';
import { decimate } from './chartDecimate.js';
import { alignedZeroRanges, relativeTo0 } from './chartMath.js';
import { type LineChart, type LineDataset, line, type Palette } from './chartStyle.js';
/**
 * Relative (default): ΔE, ΔK, ΔU since frame 0 and each ledger part summed since frame 0 — the energy's
 * story in joules gained or lost, at the scale of the injections. Absolute: E, K, U and the ledger parts per
 * frame.
 */
export function energyDatasets(t: Timeline, xs: number[], p: Palette, relative: boolean): LineDataset[] {
  const ledgerColors = [p.orange, p.purple, p.yellow, p.fg];
  const dashed = { borderWidth: 1, borderDash: [5, 3] };
  if (!relative)
    return [
      line('total E', decimate(xs, t.total), p.red, { borderWidth: 2 }),
      line('kinetic K', decimate(xs, t.kinetic), p.blue),
      line('potential U', decimate(xs, t.potential), p.green),
      ...Object.entries(t.ledger).map(([name, ys], k) => line(`${name} per frame`, decimate(xs, ys), ledgerColors[k % ledgerColors.length], dashed)),
    ];
  const cumulative = (ys: readonly (number | null)[]): number[] => {
    let acc = 0;
    return ys.map((y) => (acc += y !== null && Number.isFinite(y) ? y : 0));
  };
  // the diagnosis' injections summed since frame 0 on the same axis: how much of ΔE they account for
  const inj = Object.values(t.injection ?? {});
  let acc = 0;
  const injected = t.frame.map((_, i) => {
    for (const ys of inj) acc += Number.isFinite(ys[i]) ? ys[i] : 0;
    return acc;
  });
  return [
    line('ΔE total', decimate(xs, relativeTo0(t.total)), p.red, { borderWidth: 2 }),
    line('ΔK kinetic', decimate(xs, relativeTo0(t.kinetic)), p.blue),
    line('ΔU potential', decimate(xs, relativeTo0(t.potential)), p.green),
    ...(acc > 0 ? [line('Σ injected (diagnosis)', decimate(xs, injected), p.orange, { borderWidth: 2, borderDash: [6, 3] })] : []),
    ...Object.entries(t.ledger).map(([name, ys], k) => line(`Σ ${name}`, decimate(xs, cumulative(ys)), ledgerColors[k % ledgerColors.length], dashed)),
  ];
}

/** Run b's total energy over a's frames: its change since b's first frame (relative) or itself (absolute), dashed. */
export function compareEnergy(b: CompareView['timeline'], xs: number[], p: Palette, relative: boolean): LineDataset[] {
  const first = b.total.find((x) => x !== null) ?? 0;
  const total = relative ? b.total.map((x) => (x === null ? null : x - first)) : b.total;
  return [line(relative ? 'ΔE total (run b)' : 'total E (run b)', decimate(xs, total), p.red, { borderWidth: 2, borderDash: [6, 3] })];
}

/** The injection chart's two axes with their zeros on one grid line (chartMath.ts alignedZeroRanges). */
export function alignInjectionAxes(chart: LineChart, t: Timeline): void {
  const inj = Object.values(t.injection ?? {});
  let barMax = 0,
    acc = 0,
    rMin = 0,
    rMax = 0;
  const e0 = t.total[0] ?? 0;
  for (let i = 0; i < t.frame.length; i++) {
    let bar = 0;
    for (const ys of inj) {
      const y = ys[i] ?? 0;
      if (y > 0) bar += y;
      acc += y;
    }
    barMax = Math.max(barMax, bar);
    const rel = t.total[i] - e0;
    if (Number.isFinite(rel)) {
      rMin = Math.min(rMin, rel, acc);
      rMax = Math.max(rMax, rel, acc);
    }
  }
  const [left, right] = alignedZeroRanges({ min: 0, max: barMax }, { min: rMin, max: rMax });
  const scales = chart.options.scales as Record<string, { min?: number; max?: number; ticks?: { stepSize?: number } }>;
  for (const [id, r] of [
    ['y', left],
    ['y1', right],
  ] as const) {
    const s = scales[id];
    s.min = r.min;
    s.max = r.max;
    s.ticks = { ...s.ticks, stepSize: r.step };
  }
}

/**
 * The diagnosis made visible: per-frame injected joules by mechanism as stacked bars (only frames with an
 * injection, so 300 frames of 0 draw nothing), the cumulative injection and the total energy relative to
 * frame 0 on the right axis — a 0.01–0.3 J gain per frame on a 490 J stack is invisible in absolute energy.
 */
export function injectionDatasets(t: Timeline, xs: number[], p: Palette): ChartDataset[] {
  const colors: Record<string, string> = {
    'restitution-overshoot': p.red,
    'bias-injection': p.orange,
    'overlap-push-out': p.yellow,
    'position-correction': p.green,
    'friction-positive-work': p.purple,
    'socp-separation': p.blue,
    'non-converged-solve': p.fg,
    'integrator-drift': p.grid,
  };
  const inj = t.injection ?? {};
  const bars: ChartDataset[] = Object.entries(inj).map(
    ([m, ys]) =>
      ({
        type: 'bar',
        label: m,
        data: ys.flatMap((y, i) => (y > 0 ? [{ x: i, y }] : [])),
        backgroundColor: colors[m] ?? p.fg,
        borderWidth: 0,
        barThickness: 3,
        yAxisID: 'y',
        stack: 'injection',
        parsing: false,
        normalized: true,
      }) as unknown as ChartDataset,
  );
  const cumulative: (number | null)[] = [];
  let acc = 0;
  for (let i = 0; i < t.frame.length; i++) {
    for (const ys of Object.values(inj)) acc += ys[i] ?? 0;
    cumulative.push(acc);
  }
  const e0 = t.total[0] ?? 0;
  return [
    ...bars,
    line('cumulative injected', decimate(xs, cumulative), p.red, {
      yAxisID: 'y1',
      borderWidth: 2,
      stack: 'cumulative',
    } as Partial<LineDataset>) as unknown as ChartDataset,
    line(
      'E − E₀',
      decimate(
        xs,
        t.total.map((e) => e - e0),
      ),
      p.blue,
      { yAxisID: 'y1', borderWidth: 1, borderDash: [4, 3], stack: 'relative' } as Partial<LineDataset>,
    ) as unknown as ChartDataset,
  ];
}
