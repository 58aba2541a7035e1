/**
 * Compare mode in the page (docs/compare.md "In the editor"): the banner under the timeline (run b, where the runs
 * first part and why, a button to go there), the compare panel (every difference of that frame, how the state
 * difference grows, when each body first differs, this frame's contacts in b only, and the re-solves of one run's
 * frame with the other's problem) and the five-engine table with a button per engine to compare with it.
 */
import type { CompareView, CrossDirection, CrossWhatIfView, EnginesView, FrameCompare } from '../src/protocol/compare.js';
import { byId, el } from './dom.js';
import { full, num } from './format.js';
import { button, setDisabled } from './toolkit.js';

export interface CompareHandlers {
  goto(index: number): void;
  /** Sends the crossWhatIf request for the current frame; returns its requestId. */
  crossWhatIf(direction: CrossDirection): number;
  compareEngine(engine: string): void;
  /** The frame number of a session index of run a. */
  frameOf(index: number): number;
}

/** Rows of the growth table: the divergence, then 1, 2, 4, 8 … frames later and the last (log spacing). */
function growthRows(growth: readonly (number | null)[], from: number): number[] {
  const out: number[] = [];
  for (let k = 0; from + k < growth.length; k = k === 0 ? 1 : 2 * k) out.push(from + k);
  if (growth.length - 1 > from && out[out.length - 1] !== growth.length - 1) out.push(growth.length - 1);
  return out.filter((i) => growth[i] !== null);
}

/** Two characters per decade of the relative difference above 1e-16 (the CLI's log bar). */
function bar(x: number): string {
  if (!(x > 0)) return '';
  return '█'.repeat(Math.round(2 * Math.max(0, Math.min(18, Math.log10(x) + 16))));
}

export class ComparePanel {
  private readonly banner = byId('compare-banner');
  private readonly panel = byId('panel-compare');
  private readonly body = byId('compare-body');
  private readonly frameBox = byId('compare-frame');
  private readonly result = byId('compare-whatif-result');
  private readonly buttons: HTMLElement[];
  private view: CompareView | null = null;
  private pending = -1;

  constructor(private readonly h: CompareHandlers) {
    this.buttons = [
      button({
        id: 'compare-b-with-a',
        label: "Re-solve with b's solver on a's problem",
        title: "run b's solver on run a's contact problem of this frame: does b's solver give a's λ? (then the runs' problems differ, not their solves)",
        onClick: () => this.request('b-with-a'),
      }),
      button({
        id: 'compare-a-with-b',
        label: "…a's solver on b's problem",
        title: "run a's solver on run b's contact problem of this frame",
        onClick: () => this.request('a-with-b'),
      }),
    ];
    byId('compare-whatif').append(...this.buttons);
  }

  get active(): CompareView | null {
    return this.view;
  }

  /** Compare mode starts (or, with null, ends). */
  set(c: CompareView | null): void {
    this.view = c;
    document.body.classList.toggle('comparing', c !== null);
    this.banner.hidden = c === null;
    this.panel.hidden = c === null;
    this.result.replaceChildren();
    if (!c) return;
    byId('compare-title').textContent = `with ${c.b.title}`;
    const d = c.divergence;
    const head = el('div');
    head.append(el('span', 'muted', `a: this session · b: ${c.b.title} (${c.b.producer}, ${c.b.frameCount} frames) · `));
    if (d) {
      head.append(
        el('span', undefined, `first divergence at frame ${d.frame} (t = ${num(d.time)} s): `),
        el('span', 'compare-kind', d.kind),
        el(
          'span',
          undefined,
          ` — ${d.field}${d.bodies.length ? ` · ${d.bodies.slice(0, 6).join(', ')}${d.bodies.length > 6 ? ` … (${d.bodies.length})` : ''}` : ''}`,
        ),
        button({
          id: 'compare-goto',
          label: 'Go to divergence (D)',
          title: 'jump to the first frame where the runs part',
          appearance: 'primary',
          onClick: () => this.h.goto(d.index),
        }),
      );
    } else head.append(el('span', 'compare-kind', c.summary));
    const summary = el('div', 'muted', c.summary);
    this.banner.replaceChildren(head, summary);
    const parts: HTMLElement[] = [];
    if (d) {
      parts.push(el('div', 'compare-lines', d.lines.join('\n')));
      const rows = growthRows(c.growth, d.index);
      const lines = ['frame     relative state difference (log bar: 2 characters per decade above 1e-16)'];
      for (const i of rows) lines.push(`${String(this.h.frameOf(i)).padEnd(10)}${num(c.growth[i]!).padEnd(11)}${bar(c.growth[i]!)}`);
      parts.push(el('div', 'growth', lines.join('\n')));
      if (c.bodies.length)
        parts.push(
          el(
            'div',
            'muted',
            `first differing frame per body: ${c.bodies
              .slice(0, 16)
              .map((b) => `${b.body} ${this.h.frameOf(b.index)}`)
              .join(', ')}${c.bodies.length > 16 ? ` … (${c.bodies.length})` : ''}`,
          ),
        );
    }
    for (const n of c.notes) parts.push(el('div', 'muted', n));
    this.body.replaceChildren(...parts);
  }

  /** The current frame's compare data (b's frame, contacts in b only). */
  frame(fc: FrameCompare | undefined, index: number): void {
    if (!this.view) return;
    this.result.replaceChildren();
    if (!fc?.b) {
      this.frameBox.textContent = `frame ${this.h.frameOf(index)}: run b has no frame at this time`;
      for (const b of this.buttons) setDisabled(b, true);
      return;
    }
    for (const b of this.buttons) setDisabled(b, false);
    const unmatched = fc.contacts.filter((c) => c.b === null).length;
    const lines = [
      `this frame: b's frame ${fc.b.frame}; ${fc.contacts.length - unmatched} contacts matched, ${unmatched} only in a, ${fc.onlyB.length} only in b`,
    ];
    for (const c of fc.onlyB.slice(0, 8))
      lines.push(`  only in b: #${c.index} ${c.bodies} λn ${num(c.lambdaN)} N·s at (${c.point.map((x) => num(x)).join(', ')})`);
    if (fc.onlyB.length > 8) lines.push(`  … and ${fc.onlyB.length - 8} more`);
    this.frameBox.textContent = lines.join('\n');
  }

  private request(direction: CrossDirection): void {
    this.pending = this.h.crossWhatIf(direction);
    for (const b of this.buttons) setDisabled(b, true);
    this.result.replaceChildren(el('div', 'muted', 're-solving…'));
  }

  showCross(requestId: number, r: CrossWhatIfView): void {
    if (requestId !== this.pending) return;
    for (const b of this.buttons) setDisabled(b, false);
    const v = r.view;
    const [p, s] = r.direction === 'b-with-a' ? ['a', 'b'] : ['b', 'a'];
    const table = el('table');
    const head = table.createTHead().insertRow();
    for (const t of ['#', `λn ${p}`, `λn ${s}'s solver`, `λn ${s}`, `‖λt‖ ${p}`, `‖λt‖ ${s}'s solver`, `‖λt‖ ${s}`]) head.appendChild(el('th', undefined, t));
    const body = table.createTBody();
    v.contacts.forEach((c, k) => {
      const tr = body.insertRow();
      const cells: (number | null)[] = [c.recordedN, c.alternativeN, r.otherN[k], c.recordedT, c.alternativeT, r.otherT[k]];
      tr.appendChild(el('td', undefined, String(c.index)));
      for (const x of cells) {
        const td = el('td', undefined, x === null ? '—' : num(x));
        td.title = x === null ? 'no matched contact' : full(x);
        tr.appendChild(td);
      }
    });
    const merits = el(
      'div',
      'muted',
      `KKT residual: ${p}'s λ ${num(v.recorded.kkt)}, ${s}'s solver ${num(v.alternative.kkt)} (${v.alternative.status}, ${v.alternative.iterations} iterations) · Coulomb merit ${num(v.recorded.coulomb)} / ${num(v.alternative.coulomb)} · ΔKE ${num(v.recorded.kineticEnergyChange)} / ${num(v.alternative.kineticEnergyChange)} J`,
    );
    this.result.replaceChildren(el('div', 'whatif-title', r.title), merits, table, ...r.notes.map((n) => el('div', 'reason', n)));
  }

  failed(requestId: number | null): void {
    if (requestId !== this.pending) return;
    for (const b of this.buttons) setDisabled(b, false);
    this.result.replaceChildren();
  }

  /** The scenario in five engines: one row per engine, a button to compare with each run. */
  setEngines(e: EnginesView): void {
    const panel = byId('panel-engines');
    panel.hidden = false;
    byId('engines-title').textContent = `${e.scenario}, ${e.frames} frames`;
    const table = el('table');
    const head = table.createTHead().insertRow();
    for (const t of ['engine', 'ΔE J', 'injected J', 'max pen. mm', 'jitter', 'cone viol.', 'iter. mean/max', 'step ms', 'parts from ours', ''])
      head.appendChild(el('th', undefined, t));
    const body = table.createTBody();
    for (const r of e.rows) {
      const tr = body.insertRow();
      tr.dataset.engine = r.engine;
      const cell = (text: string, title = text): void => {
        const td = el('td', undefined, text);
        td.title = title;
        tr.appendChild(td);
      };
      cell(r.title, r.error ?? r.title);
      if (r.status !== 'ok') {
        cell(r.status, r.error ?? r.status);
        continue;
      }
      cell(num(r.energyDrift));
      cell(num(r.injected), r.injectedBy.map((x) => `${x.mechanism} ${num(x.joules)} J`).join(', ') || 'no injection found');
      cell(num(r.maxPenetration === null ? null : 1000 * r.maxPenetration));
      cell(String(r.jitter));
      cell(
        `${r.coneViolations}${r.frictionFitted ? '*' : ''}`,
        r.frictionFitted ? "friction fitted to the engine's velocity change: not the engine's cone" : 'contacts outside the friction cone',
      );
      cell(`${num(r.iterationsMean)} / ${r.iterationsMax}`);
      cell(num(r.stepMs));
      cell(r.divergence ?? '—');
      const td = el('td');
      if (r.comparable)
        td.append(button({ label: 'compare', title: `compare this session with ${r.title}'s run`, onClick: () => this.h.compareEngine(r.engine) }));
      tr.appendChild(td);
    }
    byId('engines-table').replaceChildren(table, ...e.notes.map((n) => el('div', 'muted', n)));
  }
}
