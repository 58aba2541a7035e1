/**
 * The time charts' frame cursor and finding markers (a chart.js plugin): the dashed markers are drawn into
 * the chart, the current-frame cursor on a transparent overlay canvas above it; and the findings track under
 * a chart, drawn with the chart's x mapping.
 */
import type { Chart, Plugin } from 'chart.js';
import { cssVar, palette } from './chartStyle.js';
import type { FindingsTrack } from './findingsTrack.js';

interface CursorState {
  index: number;
  markers: readonly number[];
  overlay: HTMLCanvasElement;
}
/** Cursor state by chart canvas (known before the chart's first draw, which happens in its constructor). */
export const cursors = new WeakMap<HTMLCanvasElement, CursorState>();
let cursorColor = '#888';
let markerColor = '#c33';

/** The cursor's and the finding markers' colours (the theme's, set by Charts). */
export function setCursorColors(cursor: string, marker: string): void {
  cursorColor = cursor;
  markerColor = marker;
}

/**
 * Finding markers (dashed) are drawn into the chart; the current-frame cursor goes on a transparent
 * overlay canvas above it, so moving the cursor costs one line instead of a full chart redraw.
 */
export const frameCursor: Plugin<'line'> = {
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
export const tracks = new WeakMap<HTMLCanvasElement, FindingsTrack>();

export function drawCursor(chart: Chart): void {
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
