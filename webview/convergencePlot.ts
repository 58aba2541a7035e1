/**
 * The current frame's convergence curve: solver residual per iteration on a log axis, drawn straight on
 * its canvas. It changes with every frame, and one path plus a dozen labels cost well under 1 ms, where a
 * chart.js update (scale fitting, tick-label measuring) took 4–6 ms of the 16 ms frame budget.
 * Hovering shows the iteration and its residual. Sizes come from a ResizeObserver, so drawing never
 * reads layout.
 */
import { decadeAxis, decadeLabel, iterationTicks, samples, type Sample } from './convergenceAxes.js';
import { el } from './dom.js';

export interface PlotColors {
  readonly fg: string;
  readonly grid: string;
  readonly line: string;
  readonly font: string;
}

/** Dots on the points when there are at most this many. */
const DOT_LIMIT = 60;
/** Plot margins (CSS px) around the axis labels. */
const PAD = { top: 8, right: 12, bottom: 34, left: 10 };

export class ConvergencePlot {
  private readonly ctx: CanvasRenderingContext2D | null;
  private readonly tip = el('div', 'plot-tip');
  private colors: PlotColors;
  private points: Sample[] = [];
  private count = 0;
  private width = 0;
  private height = 0;
  private hover = -1;
  /** Plot area and axes of the last draw (for hover hit-testing). */
  private area = { left: 0, right: 0, top: 0, bottom: 0 };
  private lastIteration = 1;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    colors: PlotColors,
  ) {
    this.colors = colors;
    this.ctx = canvas.getContext('2d');
    this.tip.hidden = true;
    canvas.parentElement?.appendChild(this.tip);
    this.width = canvas.clientWidth;
    this.height = canvas.clientHeight;
    new ResizeObserver((entries) => {
      const r = entries[entries.length - 1].contentRect;
      if (r.width === this.width && r.height === this.height) return;
      this.width = r.width;
      this.height = r.height;
      this.draw();
    }).observe(canvas);
    canvas.addEventListener('mousemove', (e) => this.pointAt(e.offsetX));
    canvas.addEventListener('mouseleave', () => {
      this.hover = -1;
      this.tip.hidden = true;
      this.draw();
    });
  }

  setColors(colors: PlotColors): void {
    this.colors = colors;
    this.draw();
  }

  /** Shows a frame's residuals (index k = iteration k + 1; null or ≤ 0 = not drawn). */
  show(residuals: readonly (number | null)[]): void {
    this.points = samples(residuals);
    this.count = residuals.length;
    const pts = this.points;
    this.canvas.setAttribute(
      'aria-label',
      pts.length === 0
        ? this.count === 0
          ? 'no residuals recorded for this frame'
          : 'no positive residual to plot'
        : `residual ${pts[0].residual.toPrecision(3)} at iteration ${pts[0].iteration} to ${pts[pts.length - 1].residual.toPrecision(3)} at iteration ${pts[pts.length - 1].iteration}`,
    );
    this.hover = -1;
    this.tip.hidden = true;
    this.draw();
  }

  private draw(): void {
    const ctx = this.ctx,
      w = this.width,
      h = this.height;
    if (!ctx || w <= 0 || h <= 0) return;
    const dpr = window.devicePixelRatio || 1;
    const pw = Math.round(w * dpr),
      ph = Math.round(h * dpr);
    if (this.canvas.width !== pw) this.canvas.width = pw;
    if (this.canvas.height !== ph) this.canvas.height = ph;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const c = this.colors;
    ctx.font = `11px ${c.font}`;
    ctx.fillStyle = c.fg;
    if (this.points.length === 0) {
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText(this.canvas.getAttribute('aria-label') ?? '', w / 2, h / 2);
      return;
    }
    let min = Infinity,
      max = -Infinity;
    for (const p of this.points) {
      if (p.residual < min) min = p.residual;
      if (p.residual > max) max = p.residual;
    }
    const axis = decadeAxis(min, max);
    const labels: [number, string][] = [];
    for (let e = axis.lo; e <= axis.hi; e += axis.step) labels.push([e, decadeLabel(e)]);
    const labelW = Math.max(...labels.map(([, t]) => ctx.measureText(t).width));
    const left = PAD.left + 14 + labelW + 6,
      right = w - PAD.right,
      top = PAD.top,
      bottom = h - PAD.bottom;
    if (right - left < 20 || bottom - top < 20) return;
    this.area = { left, right, top, bottom };
    const last = Math.max(2, this.count);
    this.lastIteration = last;
    const x = (it: number): number => left + ((it - 1) / (last - 1)) * (right - left);
    const y = (r: number): number => bottom - ((Math.log10(r) - axis.lo) / (axis.hi - axis.lo)) * (bottom - top);

    // grid: every decade (labelled ones stronger) and the 2…9 minor lines when few decades are shown
    ctx.lineWidth = 1;
    ctx.strokeStyle = c.grid;
    ctx.beginPath();
    for (let e = axis.lo; e <= axis.hi; e++) {
      const py = Math.round(y(Math.pow(10, e))) + 0.5;
      ctx.moveTo(left, py);
      ctx.lineTo(right, py);
    }
    const ticks = iterationTicks(last, Math.max(2, Math.floor((right - left) / 50)));
    for (const t of ticks) {
      const px = Math.round(x(t)) + 0.5;
      ctx.moveTo(px, top);
      ctx.lineTo(px, bottom);
    }
    ctx.stroke();
    if (axis.hi - axis.lo <= 3) {
      ctx.save();
      ctx.globalAlpha = 0.35;
      ctx.beginPath();
      for (let e = axis.lo; e < axis.hi; e++)
        for (let m = 2; m <= 9; m++) {
          const py = Math.round(y(m * Math.pow(10, e))) + 0.5;
          ctx.moveTo(left, py);
          ctx.lineTo(right, py);
        }
      ctx.stroke();
      ctx.restore();
    }

    // labels and axis titles
    ctx.fillStyle = c.fg;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const [e, t] of labels) ctx.fillText(t, left - 6, y(Math.pow(10, e)));
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (const t of ticks) ctx.fillText(String(t), x(t), bottom + 4);
    ctx.fillText('iteration', (left + right) / 2, bottom + 18);
    ctx.save();
    ctx.translate(PAD.left + 5, (top + bottom) / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = 'middle';
    ctx.fillText('residual', 0, 0);
    ctx.restore();

    // the curve: a gap where an iteration has no positive residual
    ctx.strokeStyle = c.line;
    ctx.fillStyle = c.line;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    let prev = -1;
    for (const p of this.points) {
      if (p.iteration === prev + 1) ctx.lineTo(x(p.iteration), y(p.residual));
      else ctx.moveTo(x(p.iteration), y(p.residual));
      prev = p.iteration;
    }
    ctx.stroke();
    const dots = this.points.length <= DOT_LIMIT;
    for (let k = 0; k < this.points.length; k++) {
      const p = this.points[k];
      const r = k === this.hover ? 4 : dots ? 2 : 0;
      if (r > 0) {
        ctx.beginPath();
        ctx.arc(x(p.iteration), y(p.residual), r, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
  }

  /** Hover: the sample nearest to the pointer's x gets a marker and a tooltip. */
  private pointAt(offsetX: number): void {
    const { left, right, top } = this.area;
    if (this.points.length === 0 || right <= left) return;
    const it = 1 + ((offsetX - left) / (right - left)) * (this.lastIteration - 1);
    let best = 0;
    for (let k = 1; k < this.points.length; k++) if (Math.abs(this.points[k].iteration - it) < Math.abs(this.points[best].iteration - it)) best = k;
    if (best === this.hover) return;
    this.hover = best;
    const p = this.points[best];
    this.tip.textContent = `iteration ${p.iteration} · residual ${p.residual.toPrecision(6)}`;
    this.tip.style.left = `${Math.min(right - 150, Math.max(left, left + ((p.iteration - 1) / (this.lastIteration - 1)) * (right - left) + 8))}px`;
    this.tip.style.top = `${top}px`;
    this.tip.hidden = false;
    this.draw();
  }
}
