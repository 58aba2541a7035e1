/**
 * The inspector's five charts (chart.js, only the pieces registered below, animation off):
 *   energy       relative by default — ΔE, ΔK, ΔU since frame 0, the diagnosis' injections and the ledger
 *                parts summed since frame 0 (J), so a 0.3 J injection shows on a stack whose potential
 *                energy is 500 J; absolute
 *                (E, K, U and the per-frame ledger parts) on request; the findings as a track under it
 *   lambda       λn and ‖λt‖ (N·s per step) over time for the contacts selected in the table
 *   solver       iterations (left, linear) and final residual (right, log) per frame
 *   kappa        κ(A) of the worst island per frame (log)
 *   convergence  residual per iteration of the current frame (log) — ConvergencePlot, drawn directly
 *                because it changes with every frame
 * Time charts share x = session index, a cursor line at the current frame (frameCursor plugin) and
 * click-to-seek. Long series are decimated to min/max per bucket (≤ MAX_POINTS points per series).
 * Colours come from the computed --vscode-* CSS variables (re-read on theme change).
 */
import {
  BarController,
  BarElement,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  Tooltip,
  type ChartDataset,
  type Plugin,
} from 'chart.js';
import type { ContactSeries, FindingView, Timeline } from '../src/protocol/inspector.js';
import type { CompareView } from '../src/protocol/compare.js';
import { ConvergencePlot, type PlotColors } from './convergencePlot.js';
import { byId } from './dom.js';
import { frameTickLabel, frameTitle, roundFrameTicks } from './frameAxis.js';
import { alignedZeroRanges, relativeTo0 } from './chartMath.js';
import { FindingsTrack } from './findingsTrack.js';

Chart.register(LineController, LineElement, PointElement, BarController, BarElement, LinearScale, LogarithmicScale, Legend, Tooltip);

/** Most points drawn per series; longer series keep the min and max of each of MAX_POINTS/2 buckets. */
export const MAX_POINTS = 1000;

export interface XY {
  x: number;
  y: number;
}

/**
 * Min/max decimation: splits the samples into buckets and keeps each bucket's extreme values in x order,
 * so spikes (energy jumps, κ blow-ups) survive. Missing values (null, or ≤ 0 on a log axis) become NaN
 * (a gap). Series with ≤ maxPoints samples are returned as they are.
 */
export function decimate(xs: readonly number[], ys: readonly (number | null)[], maxPoints = MAX_POINTS, positiveOnly = false): XY[] {
  const n = Math.min(xs.length, ys.length);
  const val = (i: number): number => {
    const y = ys[i];
    return y === null || !Number.isFinite(y) || (positiveOnly && y <= 0) ? NaN : y;
  };
  const out: XY[] = [];
  if (n <= maxPoints) {
    for (let i = 0; i < n; i++) out.push({ x: xs[i], y: val(i) });
    return out;
  }
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  for (let b = 0; b < buckets; b++) {
    const lo = Math.floor((b * n) / buckets),
      hi = Math.floor(((b + 1) * n) / buckets);
    let iMin = -1,
      iMax = -1;
    for (let i = lo; i < hi; i++) {
      const y = val(i);
      if (Number.isNaN(y)) continue;
      if (iMin < 0 || y < val(iMin)) iMin = i;
      if (iMax < 0 || y > val(iMax)) iMax = i;
    }
    if (iMin < 0) {
      out.push({ x: xs[lo], y: NaN });
      continue;
    }
    const [a, c] = iMin <= iMax ? [iMin, iMax] : [iMax, iMin];
    out.push({ x: xs[a], y: val(a) });
    if (c !== a) out.push({ x: xs[c], y: val(c) });
  }
  return out;
}

interface CursorState {
  index: number;
  markers: readonly number[];
  overlay: HTMLCanvasElement;
}
/** Cursor state by chart canvas (known before the chart's first draw, which happens in its constructor). */
const cursors = new WeakMap<HTMLCanvasElement, CursorState>();
let cursorColor = '#888';
let markerColor = '#c33';

/**
 * Finding markers (dashed) are drawn into the chart; the current-frame cursor goes on a transparent
 * overlay canvas above it, so moving the cursor costs one line instead of a full chart redraw.
 */
const frameCursor: Plugin<'line'> = {
  id: 'frameCursor',
  afterDatasetsDraw(chart) {
    const s = cursors.get(chart.canvas);
    const x = chart.scales.x;
    if (!s || !x || s.markers.length === 0) return;
    const { top, bottom, left, right } = chart.chartArea;
    const ctx = chart.ctx;
    ctx.save();
    ctx.lineWidth = 1;
    ctx.strokeStyle = markerColor;
    ctx.setLineDash([4, 3]);
    for (const m of s.markers) {
      const px = x.getPixelForValue(m);
      if (px < left || px > right) continue;
      ctx.beginPath();
      ctx.moveTo(px, top);
      ctx.lineTo(px, bottom);
      ctx.stroke();
    }
    ctx.restore();
  },
  afterDraw(chart) {
    drawCursor(chart as unknown as Chart);
    const track = tracks.get(chart.canvas);
    const x = chart.scales.x;
    if (track && x && chart.chartArea) {
      const p = palette();
      track.draw((i) => x.getPixelForValue(i), chart.chartArea.left, chart.chartArea.right, {
        error: p.red,
        warning: p.orange,
        info: p.blue,
        fg: p.fg,
        bg: cssVar('--vscode-editor-background', '#1e1e1e'),
      });
    }
  },
};
/** Findings tracks by chart canvas (drawn after the chart, with its x mapping). */
const tracks = new WeakMap<HTMLCanvasElement, FindingsTrack>();

function drawCursor(chart: Chart): void {
  const s = cursors.get(chart.canvas);
  const x = chart.scales.x;
  if (!s || !x || !chart.chartArea) return;
  const ov = s.overlay,
    dpr = chart.currentDevicePixelRatio || 1;
  const w = Math.round(chart.width * dpr),
    h = Math.round(chart.height * dpr);
  if (ov.width !== w) ov.width = w;
  if (ov.height !== h) ov.height = h;
  const ctx = ov.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const { top, bottom, left, right } = chart.chartArea;
  const px = x.getPixelForValue(s.index);
  if (!(px >= left && px <= right)) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.lineWidth = 2;
  ctx.strokeStyle = cursorColor;
  ctx.beginPath();
  ctx.moveTo(px, top);
  ctx.lineTo(px, bottom);
  ctx.stroke();
}

/**
 * Tick options on every axis: a fixed label rotation and a small label sample spare chart.js measuring
 * every tick label on each update (the chart.js performance guide); labels here are short numbers.
 */
const FAST_TICKS = { minRotation: 0, maxRotation: 0, sampleSize: 8 } as const;

const isPow10 = (v: number): boolean => {
  const e = Math.log10(v);
  return Math.abs(e - Math.round(e)) < 1e-9;
};

/** Log-axis ticks: powers of ten as 1e-6 etc.; a range inside one decade keeps plain 3-digit labels. */
function logTick(value: number | string, index: number, ticks: readonly { value: number }[]): string {
  const v = Number(value);
  if (!ticks.some((t) => isPow10(t.value))) {
    // inside one decade the log scale crowds ticks at the low end: drop a label closer than 6 % of the
    // axis (in log units) to the previous one
    const lo = Math.log10(ticks[0].value),
      span = Math.log10(ticks[ticks.length - 1].value) - lo;
    if (index > 0 && span > 0 && (Math.log10(v) - Math.log10(ticks[index - 1].value)) / span < 0.06) return '';
    return v.toPrecision(3);
  }
  return isPow10(v) ? `1e${Math.round(Math.log10(v))}` : '';
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim() || getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

interface Palette {
  fg: string;
  grid: string;
  blue: string;
  red: string;
  green: string;
  yellow: string;
  orange: string;
  purple: string;
  cursor: string;
}

function palette(): Palette {
  return {
    fg: cssVar('--vscode-foreground', '#888'),
    grid: cssVar('--vscode-editorWidget-border', cssVar('--vscode-panel-border', 'rgba(128,128,128,0.35)')),
    blue: cssVar('--vscode-charts-blue', '#3794ff'),
    red: cssVar('--vscode-charts-red', '#f14c4c'),
    green: cssVar('--vscode-charts-green', '#89d185'),
    yellow: cssVar('--vscode-charts-yellow', '#cca700'),
    orange: cssVar('--vscode-charts-orange', '#d18616'),
    purple: cssVar('--vscode-charts-purple', '#b180d7'),
    cursor: cssVar('--vscode-editorCursor-foreground', cssVar('--vscode-focusBorder', '#007fd4')),
  };
}

type LineDataset = ChartDataset<'line', XY[]>;
type LineChart = Chart<'line', XY[]>;

function line(label: string, data: XY[], color: string, extra: Partial<LineDataset> = {}): LineDataset {
  // series with gaps (contacts that exist in few frames) get dots, else isolated values would be invisible
  const dots = data.length <= 400 && data.some((p) => Number.isNaN(p.y));
  return {
    label,
    data,
    borderColor: color,
    backgroundColor: color,
    borderWidth: 1.5,
    pointRadius: dots ? 2 : 0,
    pointHoverRadius: 3,
    spanGaps: false,
    parsing: false,
    normalized: true,
    ...extra,
  } as LineDataset;
}

export class Charts {
  readonly energy: LineChart;
  /** Injected joules per frame by mechanism (stacked bars), cumulative injection and E − E₀ (lines, right axis). */
  readonly injection: LineChart;
  readonly lambda: LineChart;
  readonly solver: LineChart;
  readonly kappa: LineChart;
  private readonly convergence: ConvergencePlot;
  private pal = palette();
  private frameCount = 1;
  private timeline: Timeline | undefined;
  private findings: readonly FindingView[] = [];
  private series: readonly ContactSeries[] = [];
  private labels = new Map<string, string>();
  /** Energy chart: changes since frame 0 (default) or absolute energies. */
  private relative = true;
  private readonly energyTrack: FindingsTrack;
  private readonly injectionTrack: FindingsTrack;
  /** Compare mode: run b's series over a's frames (dashed), the divergence marked on every time chart. */
  private compare: CompareView | null = null;

  /** `seek` is called with the session index under a click on a time chart. */
  constructor(private readonly seek: (index: number) => void) {
    this.applyDefaults();
    this.energy = this.timeChart('energy-chart', 'ΔE since frame 0 (J)', false);
    this.injection = this.timeChart('injection-chart', 'J injected per frame', false, false, 'J (cumulative, E − E₀)');
    this.energyTrack = new FindingsTrack(byId('panel-energy'), seek);
    this.injectionTrack = new FindingsTrack(byId('panel-injection'), seek);
    tracks.set(this.energy.canvas, this.energyTrack);
    tracks.set(this.injection.canvas, this.injectionTrack);
    this.lambda = this.timeChart('lambda-chart', 'N·s', false);
    this.solver = this.timeChart('solver-chart', 'iterations', false, true);
    this.kappa = this.timeChart('kappa-chart', 'κ(A)', true);
    this.convergence = new ConvergencePlot(byId<HTMLCanvasElement>('convergence-chart'), this.plotColors());
    // VS Code switches themes by changing the body class and the --vscode-* variables.
    new MutationObserver(() => this.applyTheme()).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  }

  private applyDefaults(): void {
    Chart.defaults.color = this.pal.fg;
    Chart.defaults.borderColor = this.pal.grid;
    Chart.defaults.font.family = cssVar('--vscode-font-family', 'sans-serif');
    Chart.defaults.font.size = 11;
    cursorColor = this.pal.cursor;
    markerColor = this.pal.red;
  }

  private common() {
    return {
      animation: false as const,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'nearest' as const, intersect: false, axis: 'x' as const },
      plugins: { legend: { labels: { boxWidth: 12, boxHeight: 2 } }, tooltip: { enabled: true } },
    };
  }

  private timeChart(id: string, yTitle: string, logY: boolean, secondLogAxis = false, secondLinearAxis?: string): LineChart {
    const common = this.common();
    const tooltip = {
      ...common.plugins.tooltip,
      callbacks: {
        title: (items: readonly { parsed: { x: number | null } }[]) =>
          items.length && this.timeline ? frameTitle(items[0].parsed.x ?? -1, this.timeline.frame, this.timeline.time) : '',
      },
    };
    const canvas = byId<HTMLCanvasElement>(id);
    const overlay = document.createElement('canvas');
    overlay.className = 'chart-cursor';
    overlay.setAttribute('aria-hidden', 'true');
    canvas.parentElement?.appendChild(overlay);
    cursors.set(canvas, { index: 0, markers: [], overlay });
    const chart: LineChart = new Chart(canvas, {
      type: 'line',
      data: { datasets: [] },
      options: {
        ...common,
        plugins: { ...common.plugins, tooltip },
        onClick: (evt) => {
          const v = chart.scales.x.getValueForPixel(evt.x ?? 0);
          if (v !== undefined && Number.isFinite(v)) this.seek(Math.round(v));
        },
        scales: {
          x: {
            type: 'linear',
            min: 0,
            max: 1,
            title: { display: true, text: 'frame' },
            ticks: { ...FAST_TICKS, precision: 0, callback: (v) => frameTickLabel(Number(v), this.timeline?.frame ?? []) },
            afterBuildTicks: (axis) => {
              axis.ticks = roundFrameTicks(
                axis.ticks.map((t) => t.value),
                this.timeline?.frame ?? [],
              ).map((value) => ({ value }));
            },
          },
          y: {
            type: logY ? 'logarithmic' : 'linear',
            position: 'left',
            title: { display: true, text: yTitle },
            ticks: logY ? { ...FAST_TICKS, callback: logTick } : FAST_TICKS,
          },
          ...(secondLogAxis
            ? {
                y1: {
                  type: 'logarithmic' as const,
                  position: 'right' as const,
                  title: { display: true, text: 'residual' },
                  grid: { drawOnChartArea: false },
                  ticks: { ...FAST_TICKS, callback: logTick },
                },
              }
            : {}),
          ...(secondLinearAxis
            ? {
                y1: {
                  type: 'linear' as const,
                  position: 'right' as const,
                  title: { display: true, text: secondLinearAxis },
                  grid: { drawOnChartArea: false },
                  ticks: FAST_TICKS,
                },
              }
            : {}),
        },
      },
      plugins: [frameCursor],
    });
    return chart;
  }

  /** Energy chart: relative to frame 0 (true, the default) or absolute energies. */
  setEnergyRelative(relative: boolean): void {
    if (relative === this.relative) return;
    this.relative = relative;
    this.rebuild();
  }

  get energyRelative(): boolean {
    return this.relative;
  }

  /** New session: rebuilds every time series. */
  setTimeline(t: Timeline, findings: readonly FindingView[]): void {
    this.timeline = t;
    this.findings = findings;
    this.frameCount = t.frame.length;
    this.rebuild();
  }

  /** Compare mode (or null): run b's energy and iterations over a's, the first divergence marked. */
  setCompare(c: CompareView | null): void {
    this.compare = c;
    const marker = c?.divergence ? [c.divergence.index] : [];
    for (const chart of this.timeCharts()) cursors.get(chart.canvas)!.markers = marker;
    this.rebuild();
  }

  /** λ series for the selected contacts; `labels` maps key → legend label (e.g. "#3 ball–ground"). */
  setSeries(series: readonly ContactSeries[], labels: Map<string, string>): void {
    this.series = series;
    this.labels = labels;
    this.fillLambda();
    this.lambda.update('none');
  }

  /** The current frame's convergence curve (residual per iteration). */
  setConvergence(residuals: readonly (number | null)[]): void {
    this.convergence.show(residuals);
  }

  /** Moves the cursor of every time chart to session index i (overlay only: no chart redraw). */
  setCursor(index: number): void {
    for (const c of this.timeCharts()) {
      const s = cursors.get(c.canvas)!;
      if (s.index === index) continue;
      s.index = index;
      drawCursor(c as unknown as Chart);
    }
  }

  /** PNG data URL of the energy chart (Export Chart). */
  energyPng(): string {
    return this.energy.canvas.toDataURL('image/png');
  }

  applyTheme(): void {
    this.pal = palette();
    this.applyDefaults();
    this.convergence.setColors(this.plotColors());
    for (const c of this.timeCharts()) {
      for (const s of Object.values(c.options.scales ?? {})) {
        if (!s) continue;
        if (s.ticks) s.ticks.color = this.pal.fg;
        if (s.grid) s.grid.color = this.pal.grid;
        const title = (s as { title?: { color?: string } }).title;
        if (title) title.color = this.pal.fg;
      }
      if (c.options.plugins?.legend?.labels) c.options.plugins.legend.labels.color = this.pal.fg;
    }
    this.rebuild();
  }

  private plotColors(): PlotColors {
    return { fg: this.pal.fg, grid: this.pal.grid, line: this.pal.blue, font: cssVar('--vscode-font-family', 'sans-serif') };
  }

  private timeCharts(): LineChart[] {
    return [this.energy, this.injection, this.lambda, this.solver, this.kappa];
  }

  private rebuild(): void {
    const t = this.timeline;
    const max = Math.max(1, this.frameCount - 1);
    for (const c of this.timeCharts()) {
      const x = c.options.scales!.x!;
      x.min = 0;
      x.max = max;
    }
    // findings go on the tracks under the energy charts, not as vertical lines over the data
    this.energyTrack.set(this.findings, t?.frame ?? []);
    this.injectionTrack.set(
      this.findings.filter((f) => (f.kind ?? 'injection') === 'injection'),
      t?.frame ?? [],
    );
    if (t) {
      const xs = t.frame.map((_, i) => i);
      this.energy.data.datasets = this.energyDatasets(t, xs);
      const yTitle = (this.energy.options.scales!.y as { title: { text: string } }).title;
      yTitle.text = this.relative ? `change since frame ${t.frame[0] ?? 0} (J)` : 'J';
      this.injection.data.datasets = this.injectionDatasets(t, xs) as unknown as LineDataset[];
      (this.injection.options.scales!.y as { stacked?: boolean }).stacked = true;
      (this.injection.options.scales!.x as { stacked?: boolean }).stacked = true;
      this.alignInjectionAxes(t);
      const p = this.pal;
      this.solver.data.datasets = [
        line('iterations', decimate(xs, t.iterations), p.blue, { yAxisID: 'y' }),
        line('final residual', decimate(xs, t.residual, MAX_POINTS, true), p.orange, { yAxisID: 'y1' }),
        ...(this.compare
          ? [line('iterations (run b)', decimate(xs, this.compare.timeline.iterations), p.blue, { yAxisID: 'y', borderDash: [5, 3], borderWidth: 1 })]
          : []),
      ];
      if (this.compare) this.energy.data.datasets.push(...this.compareEnergy(xs));
      this.kappa.data.datasets = [line('κ(A) worst island', decimate(xs, t.kappa, MAX_POINTS, true), p.purple)];
      // κ on the range of A (engine/conditioning.ts): the null directions of coplanar/duplicated contacts excluded.
      if (t.kappaRange) this.kappa.data.datasets.push(line('κ on range(A) worst island', decimate(xs, t.kappaRange, MAX_POINTS, true), p.blue));
    }
    this.fillLambda();
    for (const c of this.timeCharts()) c.update('none');
  }

  /**
   * Relative (default): ΔE, ΔK, ΔU since frame 0 and each ledger part summed since frame 0 — the energy's
   * story in joules gained or lost, at the scale of the injections. Absolute: E, K, U and the ledger parts per
   * frame.
   */
  private energyDatasets(t: Timeline, xs: number[]): LineDataset[] {
    const p = this.pal;
    const ledgerColors = [p.orange, p.purple, p.yellow, p.fg];
    const dashed = { borderWidth: 1, borderDash: [5, 3] };
    if (!this.relative)
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
  private compareEnergy(xs: number[]): LineDataset[] {
    const b = this.compare!.timeline;
    const first = b.total.find((x) => x !== null) ?? 0;
    const total = this.relative ? b.total.map((x) => (x === null ? null : x - first)) : b.total;
    return [line(this.relative ? 'ΔE total (run b)' : 'total E (run b)', decimate(xs, total), this.pal.red, { borderWidth: 2, borderDash: [6, 3] })];
  }

  /** The injection chart's two axes with their zeros on one grid line (chartMath.ts alignedZeroRanges). */
  private alignInjectionAxes(t: Timeline): void {
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
    const scales = this.injection.options.scales as Record<string, { min?: number; max?: number; ticks?: { stepSize?: number } }>;
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
  private injectionDatasets(t: Timeline, xs: number[]): ChartDataset[] {
    const p = this.pal;
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

  private fillLambda(): void {
    const p = this.pal;
    const colors = [p.blue, p.red, p.green, p.orange, p.purple, p.yellow];
    this.lambda.data.datasets = this.series.flatMap((s, k) => {
      const label = this.labels.get(s.key) ?? s.key;
      const color = colors[k % colors.length];
      return [
        line(`λn ${label}`, decimate(s.index, s.lambdaN), color),
        line(`‖λt‖ ${label}`, decimate(s.index, s.lambdaT), color, { borderDash: [4, 3], borderWidth: 1 }),
      ];
    });
  }
}
