/**
 * The Delassus matrix A of each island of the current frame as a canvas heat map, with its conditioning
 * (κ, λmin/λmax, rank deficiency, method) and likely causes, or the reason when A was not sent.
 * Colour: signed log-magnitude, u = clamp((log10(|a|/max|a|) + DECADES) / DECADES, 0, 1), red for a > 0,
 * blue for a < 0, editor background for 0. Lines every 3 rows/columns separate contacts (n, t1, t2 rows)
 * when a block is at least 6 px wide; the selected contacts' diagonal blocks are outlined.
 */
import type { IslandView } from '../src/protocol/inspector.js';
import { byId, el, num } from './format.js';

/** Magnitude range of the colour scale (orders of magnitude below max|a|). */
const DECADES = 6;
/** Largest cell drawn (px): a 1-contact island stays a small 3×3 map instead of filling the panel. */
const MAX_CELL = 24;
/** Largest heat map side drawn (px); smaller islands get bigger cells. */
const MAX_SIDE = 360;
/** At most this many islands are drawn (largest first); the rest are listed as a count. */
const MAX_ISLANDS = 12;

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

interface IslandBox { root: HTMLElement; title: HTMLElement; canvas: HTMLCanvasElement; stats: HTMLElement }

export class MatrixView {
  private readonly root = byId('matrix-view');
  private readonly boxes: IslandBox[] = [];
  private readonly more = el('div', 'island-more');
  private readonly scratch = document.createElement('canvas');
  /** One float64 and its two 32-bit halves (little-endian: [1] holds sign, exponent, high mantissa). */
  private readonly bits = new Float64Array(1);
  private readonly bitsHi = new Uint32Array(this.bits.buffer);
  /** 256-entry RGBA lookup tables (little-endian Uint32) for positive and negative entries. */
  private pos: Uint32Array = new Uint32Array(256);
  private neg: Uint32Array = new Uint32Array(256);
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
    const lut = (c: RGB): Uint32Array => {
      const t = new Uint32Array(256);
      for (let i = 0; i < 256; i++) {
        const u = i / 255;
        const r = Math.round(bg[0] + (c[0] - bg[0]) * u), g = Math.round(bg[1] + (c[1] - bg[1]) * u), b = Math.round(bg[2] + (c[2] - bg[2]) * u);
        t[i] = (255 << 24) | (b << 16) | (g << 8) | r; // RGBA bytes on little-endian
      }
      return t;
    };
    this.pos = lut(red);
    this.neg = lut(blue);
    this.gridColor = cssVar('--vscode-editorWidget-border') || cssVar('--vscode-panel-border') || 'rgba(128,128,128,0.5)';
    this.selectColor = cssVar('--vscode-charts-yellow') || '#ffcc00';
  }

  /** Shows the islands; `selected` = frame contact indices to outline. */
  show(islands: readonly IslandView[], selected: ReadonlySet<number>): void {
    const order = islands.map((_, k) => k).sort((a, b) => islands[b].size - islands[a].size).slice(0, MAX_ISLANDS);
    order.sort((a, b) => a - b);
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
    const lines: string[] = [
      `κ(A) ${num(isl.kappa)} · λmin ${num(isl.lambdaMin)} · λmax ${num(isl.lambdaMax)}`,
      `rank deficiency ${isl.rankDeficiency ?? '–'} · method ${isl.method ?? '–'}`,
    ];
    if (isl.reason) lines.push(`A not shown: ${isl.reason}`);
    for (const c of isl.causes) lines.push(`likely cause: ${c}`);
    if (!isl.reason && isl.causes.length === 0) lines.push('no conditioning problem found');
    box.stats.replaceChildren(...lines.map((t) => el('div', t.startsWith('likely cause') ? 'cause' : t.startsWith('A not shown') ? 'reason' : undefined, t)));
    if (isl.A && isl.size > 0 && isl.A.length === isl.size * isl.size) {
      box.canvas.hidden = false;
      const marked = isl.contacts.map((c, j) => (selected.has(c) ? j : -1)).filter((j) => j >= 0);
      this.draw(box.canvas, isl.A, isl.size, marked);
    } else {
      box.canvas.hidden = true;
    }
  }

  private draw(canvas: HTMLCanvasElement, A: readonly number[], size: number, marked: readonly number[]): void {
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
    const img = sctx.createImageData(size, size);
    const px = new Uint32Array(img.data.buffer);
    let maxAbs = 0;
    for (let i = 0; i < A.length; i++) { const a = Math.abs(A[i]); if (a > maxAbs) maxAbs = a; }
    const zero = this.pos[0];
    if (maxAbs > 0 && Number.isFinite(maxAbs)) {
      // u = 255·(log10(|a|/max) + DECADES)/DECADES with log2 read from the float's exponent and mantissa
      // bits (piecewise-linear, error < 0.03 decades ≈ one colour step): 360 000 entries in ~1 ms.
      const f64 = this.bits, hi = this.bitsHi;
      const inv = 1 / maxAbs, scale = (255 / DECADES) * Math.LOG10E * Math.LN2, offset = 255;
      for (let i = 0; i < A.length; i++) {
        const a = A[i];
        if (a === 0 || !(a === a) || a === Infinity || a === -Infinity) { px[i] = zero; continue; }
        f64[0] = (a < 0 ? -a : a) * inv;
        const h = hi[1];
        const log2 = ((h >>> 20) - 1023) + (h & 0xfffff) / 1048576;
        const u = log2 * scale + offset;
        const idx = u <= 0 ? 0 : u >= 255 ? 255 : u | 0;
        px[i] = a > 0 ? this.pos[idx] : this.neg[idx];
      }
    } else {
      px.fill(zero);
    }
    sctx.putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.scratch, 0, 0, side, side);
    const block = 3 * cell;
    if (block >= 6) {
      ctx.strokeStyle = this.gridColor;
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (let b = block; b < side; b += block) {
        ctx.moveTo(b + 0.5, 0); ctx.lineTo(b + 0.5, side);
        ctx.moveTo(0, b + 0.5); ctx.lineTo(side, b + 0.5);
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
        ctx.fillRect(j * block, 0, block, 4); ctx.fillRect(0, j * block, 4, block);
      }
    }
  }
}
