/**
 * The charts' look: colours from the computed --vscode-* CSS variables, axis tick options and labels, and
 * the line dataset every time series is drawn with (charts.ts).
 */
import type { Chart, ChartDataset } from 'chart.js';
import type { XY } from './chartDecimate.js';

/**
 * Tick options on every axis: a fixed label rotation and a small label sample spare chart.js measuring
 * every tick label on each update (the chart.js performance guide); labels here are short numbers.
 */
export const FAST_TICKS = { minRotation: 0, maxRotation: 0, sampleSize: 8 } as const;

const isPow10 = (v: number): boolean => {
  const e = Math.log10(v);
  return Math.abs(e - Math.round(e)) < 1e-9;
};

/** Log-axis ticks: powers of ten as 1e-6 etc.; a range inside one decade keeps plain 3-digit labels. */
export function logTick(value: number | string, index: number, ticks: readonly { value: number }[]): string {
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

export function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim() || getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

export interface Palette {
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

export function palette(): Palette {
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

export type LineDataset = ChartDataset<'line', XY[]>;
export type LineChart = Chart<'line', XY[]>;

export function line(label: string, data: XY[], color: string, extra: Partial<LineDataset> = {}): LineDataset {
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
