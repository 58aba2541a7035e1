/**
 * A findings track: a thin lane under a time chart with one mark per cluster of findings (chartMath.ts
 * clusterMarkers), aligned with the chart's x axis — a count where several findings are close, the colour of
 * the most severe, a tooltip with their frames, and a click seeks to the first. It replaces the dashed
 * vertical line per finding that turned 52 findings into a red barcode over the data.
 */
import type { FindingView } from '../src/protocol/inspector.js';
import { clusterMarkers, type TrackCluster } from './chartMath.js';
import { el } from './dom.js';

/** Markers closer than this (CSS px) form one cluster. */
const CLUSTER_GAP_PX = 7;
const TRACK_HEIGHT = 16;

export interface TrackColors {
  readonly error: string;
  readonly warning: string;
  readonly info: string;
  readonly fg: string;
  readonly bg: string;
}

const RANK: Record<string, number> = { error: 2, warning: 1, info: 0 };

export class FindingsTrack {
  readonly canvas: HTMLCanvasElement;
  private findings: readonly FindingView[] = [];
  private clusters: TrackCluster[] = [];
  private frames: readonly number[] = [];

  constructor(
    parent: HTMLElement,
    private readonly seek: (index: number) => void,
  ) {
    const box = el('div', 'findings-track');
    box.title = 'findings along the session (a number counts close findings); click a mark to go to its frame';
    this.canvas = el('canvas');
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', 'findings track');
    box.append(this.canvas);
    parent.append(box);
    this.canvas.addEventListener('click', (e) => {
      const c = this.at(e.offsetX);
      if (c) this.seek(c.first);
    });
    this.canvas.addEventListener('mousemove', (e) => {
      const c = this.at(e.offsetX);
      this.canvas.title = c ? this.describe(c) : '';
      this.canvas.style.cursor = c ? 'pointer' : 'default';
    });
  }

  set(findings: readonly FindingView[], frames: readonly number[]): void {
    this.findings = findings;
    this.frames = frames;
  }

  /** Draws the marks for the chart's x mapping (session index → CSS px) between `left` and `right`. */
  draw(toPixel: (index: number) => number, left: number, right: number, colors: TrackColors): void {
    const c = this.canvas,
      dpr = window.devicePixelRatio || 1;
    const w = c.parentElement?.clientWidth ?? 0;
    if (w <= 0) return;
    c.style.width = `${w}px`;
    c.style.height = `${TRACK_HEIGHT}px`;
    if (c.width !== Math.round(w * dpr)) c.width = Math.round(w * dpr);
    if (c.height !== Math.round(TRACK_HEIGHT * dpr)) c.height = Math.round(TRACK_HEIGHT * dpr);
    const ctx = c.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, TRACK_HEIGHT);
    // the lane: a hairline from the chart area's left to its right
    ctx.strokeStyle = colors.fg;
    ctx.globalAlpha = 0.25;
    ctx.beginPath();
    ctx.moveTo(left, TRACK_HEIGHT / 2);
    ctx.lineTo(right, TRACK_HEIGHT / 2);
    ctx.stroke();
    ctx.globalAlpha = 1;
    this.clusters = clusterMarkers(
      this.findings.map((f) => ({ x: toPixel(f.index), index: f.index, rank: RANK[f.severity ?? 'error'] ?? 2 })),
      CLUSTER_GAP_PX,
    ).filter((k) => k.x >= left - 1 && k.x <= right + 1);
    ctx.font = `10px ${getComputedStyle(document.body).fontFamily}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (const k of this.clusters) {
      const color = k.rank >= 2 ? colors.error : k.rank === 1 ? colors.warning : colors.info;
      ctx.fillStyle = color;
      if (k.count === 1) {
        // a single finding: a small triangle pointing up at the chart
        ctx.beginPath();
        ctx.moveTo(k.x, 2);
        ctx.lineTo(k.x + 4, TRACK_HEIGHT - 3);
        ctx.lineTo(k.x - 4, TRACK_HEIGHT - 3);
        ctx.closePath();
        ctx.fill();
      } else {
        const label = String(k.count);
        const half = Math.max(6, ctx.measureText(label).width / 2 + 3);
        ctx.beginPath();
        ctx.roundRect(k.x - half, 1, 2 * half, TRACK_HEIGHT - 2, 4);
        ctx.fill();
        ctx.fillStyle = colors.bg;
        ctx.fillText(label, k.x, TRACK_HEIGHT / 2 + 0.5);
      }
    }
  }

  /** Clusters drawn (the webview tests read them). */
  get drawn(): readonly TrackCluster[] {
    return this.clusters;
  }

  private at(x: number): TrackCluster | undefined {
    let best: TrackCluster | undefined,
      d = CLUSTER_GAP_PX + 2;
    for (const k of this.clusters) {
      const dx = Math.abs(k.x - x);
      if (dx < d) {
        d = dx;
        best = k;
      }
    }
    return best;
  }

  private describe(k: TrackCluster): string {
    const fr = (i: number): number => this.frames[i] ?? i;
    const inside = this.findings.filter((f) => f.index >= k.first && f.index <= k.last);
    const names = [...new Set(inside.map((f) => f.mechanism))].join(', ');
    return k.count === 1
      ? `frame ${fr(k.first)}: ${names} — click to go there`
      : `${k.count} findings, frames ${fr(k.first)}–${fr(k.last)}: ${names} — click to go to frame ${fr(k.first)}`;
  }
}
