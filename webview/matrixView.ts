/**
 * The Delassus matrix A of each island of the current frame as a canvas heat map, with its conditioning
 * (κ, λmin/λmax, rank deficiency, method) and likely causes, or the reason when A was not sent.
 * Colour: the host sends A as signed log-magnitude levels (src/protocol/heatMap.ts); level → colour is one
 * lookup: red for a > 0, blue for a < 0, from the editor background (1e-6·max|a| and below) to full
 * colour (max|a|); 0 is the background, NaN/±∞ the warning colour. Lines every 3 rows/columns separate contacts (n, t1, t2 rows)
 * when a block is at least 6 px wide; the selected contacts' diagonal blocks are outlined.
 */
import { HEAT_DECADES, HEAT_NEGATIVE, HEAT_NON_FINITE, HEAT_STEPS, type HeatMap } from '../src/protocol/heatMap.js';
import { drawnIslands, type IslandView } from '../src/protocol/inspector.js';
import { num } from './format.js';
import { byId, el } from './dom.js';

/** Largest cell drawn (px): a 1-contact island stays a small 3×3 map instead of filling the panel. */
const MAX_CELL = 24;
/** Largest heat map side drawn (px); smaller islands get bigger cells. */
const MAX_SIDE = 360;

type RGB = [number, number, number];

function parseColor(css: string, fallback: RGB): RGB {
  const ctx = document.createElement('canvas').getContext('2d');
  if (!ctx || !css) return fallback;
  ctx.fillStyle = '#000000';
  ctx.fillStyle = css;
  const s = String(ctx.fillStyle);
  let m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(s);
  if (m) return [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)];
  m = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(s);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : fallback;
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || getComputedStyle(document.body).getPropertyValue(name).trim();
}

interface IslandBox {
  root: HTMLElement;
  title: HTMLElement;
  canvas: HTMLCanvasElement;
  stats: HTMLElement;
}

/**
 * κ(A) as text: ∞ for a singular A (a problem file sends null with λmax known; a recording's view sends
 * Number.MAX_VALUE), '–' when it is unknown.
 */
function kappaText(isl: IslandView): string {
  if (isl.conditioningPending) return '…';
  if ((isl.kappa === null && isl.lambdaMax !== null) || (isl.kappa !== null && isl.kappa >= Number.MAX_VALUE)) return '∞';
  return num(isl.kappa);
}

export class MatrixView {
  private readonly root = byId('matrix-view');
  private readonly boxes: IslandBox[] = [];
  private readonly more = el('div', 'island-more');
  private readonly scratch = document.createElement('canvas');
  /** One pixel per entry of A, reused while the island size stays the same. */
  private image: ImageData | undefined;
  private pixels = new Uint32Array(0);
  /** RGBA (little-endian Uint32) of each of the 256 heat-map levels. */
  private colors = new Uint32Array(256);
  private gridColor = 'rgba(128,128,128,0.5)';
  private selectColor = '#ffcc00';

  constructor() {
    this.root.appendChild(this.more);
    this.applyTheme();
  }

  /** Re-reads the theme colours (call on theme change, then redraw). */
  applyTheme(): void {
    const bg = parseColor(cssVar('--vscode-editor-background'), [30, 30, 30]);
    const red = parseColor(cssVar('--vscode-charts-red'), [241, 76, 76]);
    const blue = parseColor(cssVar('--vscode-charts-blue'), [55, 148, 255]);
    const warn = parseColor(cssVar('--vscode-editorWarning-foreground'), [204, 167, 0]);
    const rgba = (c: RGB, u: number): number => {
      const r = Math.round(bg[0] + (c[0] - bg[0]) * u),
        g = Math.round(bg[1] + (c[1] - bg[1]) * u),
        b = Math.round(bg[2] + (c[2] - bg[2]) * u);
      return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0; // RGBA bytes on little-endian
    };
    const t = new Uint32Array(256);
    t[0] = rgba(bg, 0);
    for (let k = 0; k <= HEAT_STEPS; k++) {
      t[1 + k] = rgba(red, k / HEAT_STEPS);
      t[HEAT_NEGATIVE + k] = rgba(blue, k / HEAT_STEPS);
    }
    t[HEAT_NON_FINITE] = rgba(warn, 1);
    this.colors = t;
    this.gridColor = cssVar('--vscode-editorWidget-border') || cssVar('--vscode-panel-border') || 'rgba(128,128,128,0.5)';
    this.selectColor = cssVar('--vscode-charts-yellow') || '#ffcc00';
  }

  /** Shows the islands; `selected` = frame contact indices to outline. */
  show(islands: readonly IslandView[], selected: ReadonlySet<number>): void {
    const order = drawnIslands(islands.map((isl) => isl.size));
    while (this.boxes.length < order.length) this.boxes.push(this.makeBox());
    order.forEach((k, j) => this.fill(this.boxes[j], k, islands[k], selected));
    for (let j = 0; j < this.boxes.length; j++) this.boxes[j].root.hidden = j >= order.length;
    const hiddenCount = islands.length - order.length;
    this.more.textContent = islands.length === 0 ? 'no contacts in this frame' : hiddenCount > 0 ? `+ ${hiddenCount} smaller islands not drawn` : '';
  }

  private makeBox(): IslandBox {
    const root = el('div', 'island');
    const title = el('div', 'island-title');
    const canvas = el('canvas', 'heatmap');
    const stats = el('div', 'island-stats');
    root.append(title, canvas, stats);
    this.root.insertBefore(root, this.more);
    return { root, title, canvas, stats };
  }

  private fill(box: IslandBox, k: number, isl: IslandView, selected: ReadonlySet<number>): void {
    const n = isl.contacts.length;
    box.title.textContent = `island ${k} · ${n} contact${n === 1 ? '' : 's'} · A ${isl.size}×${isl.size}`;
    const lines: [string, string][] = [
      [`κ(A) ${kappaText(isl)} · λmin ${num(isl.lambdaMin)} · λmax ${num(isl.lambdaMax)}`, ''],
      [`rank deficiency ${isl.rankDeficiency ?? '–'} · method ${isl.method ?? (isl.conditioningPending ? 'computing…' : '–')}`, ''],
    ];
    if (isl.kappaRange !== undefined || isl.rankRatio !== undefined)
      lines.splice(1, 0, [`κ on range(A) ${num(isl.kappaRange ?? null)} · rank ratio rows/rank ${isl.rankRatio == null ? '–' : isl.rankRatio.toFixed(2)}`, '']);
    if (isl.heat) lines.push([`colour: log10 |a| from max |a| = ${num(isl.heat.maxAbs)} down ${HEAT_DECADES} decades (red > 0, blue < 0)`, 'scale']);
    if (isl.heat && isl.heat.nonFinite > 0) lines.push([`${isl.heat.nonFinite} entries of A are NaN or ±∞ (drawn in the warning colour)`, 'reason']);
    if (isl.reason) lines.push([`A not shown: ${isl.reason}`, 'reason']);
    // the same cause for many body pairs (a stack's coplanar faces) is said once, with its count
    const counts = new Map<string, number>();
    for (const c of isl.causes) counts.set(c, (counts.get(c) ?? 0) + 1);
    for (const [c, n] of counts) lines.push([`likely cause${n > 1 ? ` (${n}×)` : ''}: ${c}`, 'cause']);
    if (!isl.reason && isl.causes.length === 0 && !isl.conditioningPending) lines.push(['no conditioning problem found', '']);
    // lines are rewritten in place (a frame change usually changes only the numbers)
    const kids = box.stats.children;
    lines.forEach(([t, cls], j) => {
      const line = kids[j] ?? box.stats.appendChild(el('div'));
      if (line.className !== cls) line.className = cls;
      if (line.textContent !== t) line.textContent = t;
    });
    while (kids.length > lines.length) kids[kids.length - 1].remove();
    if (isl.heat && isl.size > 0 && isl.heat.levels.length === isl.size * isl.size) {
      box.canvas.hidden = false;
      const marked = isl.contacts.map((c, j) => (selected.has(c) ? j : -1)).filter((j) => j >= 0);
      this.draw(box.canvas, isl.heat, isl.size, marked);
    } else {
      box.canvas.hidden = true;
    }
  }

  private draw(canvas: HTMLCanvasElement, heat: HeatMap, size: number, marked: readonly number[]): void {
    const cell = Math.max(1, Math.min(MAX_CELL, Math.floor(MAX_SIDE / size)));
    const side = cell * size;
    if (canvas.width !== side) canvas.width = side;
    if (canvas.height !== side) canvas.height = side;
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    // one pixel per entry in a scratch canvas, then scaled up without smoothing
    if (this.scratch.width !== size) this.scratch.width = size;
    if (this.scratch.height !== size) this.scratch.height = size;
    const sctx = this.scratch.getContext('2d')!;
    if (!this.image || this.image.width !== size) {
      this.image = sctx.createImageData(size, size);
      this.pixels = new Uint32Array(this.image.data.buffer);
    }
    const img = this.image,
      px = this.pixels;
    const levels = heat.levels,
      colors = this.colors;
    for (let i = 0; i < levels.length; i++) px[i] = colors[levels[i]];
    if (cell === 1) {
      ctx.putImageData(img, 0, 0); // one pixel per entry: no scaling pass
    } else {
      sctx.putImageData(img, 0, 0);
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(this.scratch, 0, 0, side, side);
    }
    const block = 3 * cell;
    if (block >= 6) {
      ctx.strokeStyle = this.gridColor;
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (let b = block; b < side; b += block) {
        ctx.moveTo(b + 0.5, 0);
        ctx.lineTo(b + 0.5, side);
        ctx.moveTo(0, b + 0.5);
        ctx.lineTo(side, b + 0.5);
      }
      ctx.stroke();
    }
    if (marked.length) {
      ctx.strokeStyle = this.selectColor;
      ctx.lineWidth = Math.max(1, Math.min(3, block / 3));
      for (const j of marked) {
        ctx.strokeRect(j * block, j * block, block, block);
        // ticks on the edges locate the contact's rows and columns in big matrices
        ctx.fillStyle = this.selectColor;
        ctx.fillRect(j * block, 0, block, 4);
        ctx.fillRect(0, j * block, 4, block);
      }
    }
  }
}
