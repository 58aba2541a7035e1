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
import { BarController, BarElement, Chart, Legend, LinearScale, LineController, LineElement, LogarithmicScale, PointElement, Tooltip } from 'chart.js';
import type { ContactSeries, FindingView, Timeline } from '../src/protocol/inspector.js';
import type { CompareView } from '../src/protocol/compare.js';
import { ConvergencePlot, type PlotColors } from './convergencePlot.js';
import { byId } from './dom.js';
import { frameTickLabel, frameTitle, roundFrameTicks } from './frameAxis.js';
import { FindingsTrack } from './findingsTrack.js';
import { decimate, MAX_POINTS } from './chartDecimate.js';
import { cursors, drawCursor, frameCursor, setCursorColors, tracks } from './chartCursor.js';
import { cssVar, FAST_TICKS, type LineChart, type LineDataset, line, logTick, palette } from './chartStyle.js';
import { alignInjectionAxes, compareEnergy, energyDatasets, injectionDatasets } from './energyDatasets.js';

export { decimate, MAX_POINTS, type XY } from './chartDecimate.js';

Chart.register(LineController, LineElement, PointElement, BarController, BarElement, LinearScale, LogarithmicScale, Legend, Tooltip);

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
    setCursorColors(this.pal.cursor, this.pal.red);
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
      this.energy.data.datasets = energyDatasets(t, xs, this.pal, this.relative);
      const yTitle = (this.energy.options.scales!.y as { title: { text: string } }).title;
      yTitle.text = this.relative ? `change since frame ${t.frame[0] ?? 0} (J)` : 'J';
      this.injection.data.datasets = injectionDatasets(t, xs, this.pal) as unknown as LineDataset[];
      (this.injection.options.scales!.y as { stacked?: boolean }).stacked = true;
      (this.injection.options.scales!.x as { stacked?: boolean }).stacked = true;
      alignInjectionAxes(this.injection, t);
      const p = this.pal;
      this.solver.data.datasets = [
        line('iterations', decimate(xs, t.iterations), p.blue, { yAxisID: 'y' }),
        line('final residual', decimate(xs, t.residual, MAX_POINTS, true), p.orange, { yAxisID: 'y1' }),
        ...(this.compare
          ? [line('iterations (run b)', decimate(xs, this.compare.timeline.iterations), p.blue, { yAxisID: 'y', borderDash: [5, 3], borderWidth: 1 })]
          : []),
      ];
      if (this.compare) this.energy.data.datasets.push(...compareEnergy(this.compare.timeline, xs, this.pal, this.relative));
      this.kappa.data.datasets = [line('κ(A) worst island', decimate(xs, t.kappa, MAX_POINTS, true), p.purple)];
      // κ on the range of A (engine/conditioning.ts): the null directions of coplanar/duplicated contacts excluded.
      if (t.kappaRange) this.kappa.data.datasets.push(line('κ on range(A) worst island', decimate(xs, t.kappaRange, MAX_POINTS, true), p.blue));
    }
    this.fillLambda();
    for (const c of this.timeCharts()) c.update('none');
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
