/**
 * What-if: re-solve the current frame with another solver / options (the host runs it) and show recorded
 * vs alternative side by side: λn and ‖λt‖ per contact with max|Δλ|, ΔKE (J) and the worst relative KKT
 * residual of both, the alternative's status and iterations, and the islands that could not be re-solved.
 */
import { MAX_SOLVER_ITERATIONS, SOLVER_NAMES, type SolverName, type WhatIfOptions, type WhatIfView } from '../src/protocol/inspector.js';
import { full, num } from './format.js';
import { byId, el } from './dom.js';
import { button, checkbox, checkedOf, dropdown, setDisabled, textField, controlValue } from './toolkit.js';

export class WhatIfPanel {
  private readonly result = byId('whatif-result');
  private readonly solver = dropdown('whatif-solver', SOLVER_NAMES, 'newton');
  private readonly maxIterations = textField('whatif-max-iterations', 'max iterations', 'default');
  private readonly tolerance = textField('whatif-tolerance', 'tolerance', 'default');
  private readonly warmStart = checkbox('whatif-warm-start', 'warm start', false);
  private readonly run: HTMLElement;
  private pendingId = -1;

  /**
   * `request` sends the whatIf message for the current frame and returns its requestId; `frameOf` gives
   * the frame number of a session index (what the readout and the findings show).
   */
  constructor(
    private readonly request: (options: WhatIfOptions) => number,
    private readonly frameOf: (index: number) => number,
  ) {
    this.run = button({ id: 'whatif-run', label: 'Re-solve frame', appearance: 'primary', onClick: () => this.submit() });
    const form = byId('whatif-form');
    const solverLabel = el('label', 'field-label', 'solver');
    solverLabel.htmlFor = 'whatif-solver';
    form.append(solverLabel, this.solver, this.maxIterations, this.tolerance, this.warmStart, this.run);
  }

  /** The options typed in the form; throws with a readable message for bad numbers. */
  options(): WhatIfOptions {
    const solver = controlValue(this.solver) as SolverName;
    if (!SOLVER_NAMES.includes(solver)) throw new Error(`solver must be one of ${SOLVER_NAMES.join(', ')}`);
    const o: { solver: SolverName; maxIterations?: number; tolerance?: number; warmStart?: boolean } = { solver, warmStart: checkedOf(this.warmStart) };
    const it = controlValue(this.maxIterations).trim();
    if (it) {
      const v = Number(it);
      if (!Number.isInteger(v) || v < 1 || v > MAX_SOLVER_ITERATIONS) throw new Error(`max iterations must be an integer from 1 to ${MAX_SOLVER_ITERATIONS}`);
      o.maxIterations = v;
    }
    const tol = controlValue(this.tolerance).trim();
    if (tol) {
      const v = Number(tol);
      if (!(Number.isFinite(v) && v > 0)) throw new Error('tolerance must be a number > 0');
      o.tolerance = v;
    }
    return o;
  }

  private submit(): void {
    let o: WhatIfOptions;
    try {
      o = this.options();
    } catch (err) {
      this.result.replaceChildren(el('div', 'whatif-error', (err as Error).message));
      return;
    }
    this.pendingId = this.request(o);
    setDisabled(this.run, true);
    this.result.replaceChildren(el('div', 'muted', `re-solving with ${o.solver}…`));
  }

  /** The host's answer (ignored unless it answers the latest request). */
  show(requestId: number, v: WhatIfView): void {
    if (requestId !== this.pendingId) return;
    setDisabled(this.run, false);
    const summary = el('table', 'whatif-summary');
    const head = summary.createTHead().insertRow();
    for (const h of ['', 'recorded', `${v.options.solver} (alternative)`]) head.appendChild(el('th', undefined, h));
    const body = summary.createTBody();
    const row = (label: string, a: string, b: string, ta = a, tb = b): void => {
      const tr = body.insertRow();
      tr.appendChild(el('th', undefined, label));
      const ca = el('td', undefined, a);
      ca.title = ta;
      const cb = el('td', undefined, b);
      cb.title = tb;
      tr.append(ca, cb);
    };
    row(
      'ΔKE (J)',
      num(v.recorded.kineticEnergyChange),
      num(v.alternative.kineticEnergyChange),
      full(v.recorded.kineticEnergyChange),
      full(v.alternative.kineticEnergyChange),
    );
    row('KKT residual (rel.)', num(v.recorded.kkt), num(v.alternative.kkt), full(v.recorded.kkt), full(v.alternative.kkt));
    // the convex model's residual above, Coulomb's law's below (docs/physics.md): a sliding contact cannot meet both
    row('Coulomb merit', num(v.recorded.coulomb), num(v.alternative.coulomb), full(v.recorded.coulomb), full(v.alternative.coulomb));
    row('status / iterations', 'recorded', `${v.alternative.status} / ${v.alternative.iterations}`);

    const table = el('table', 'whatif-contacts');
    const h2 = table.createTHead().insertRow();
    for (const h of ['#', 'λn rec', 'λn alt', '‖λt‖ rec', '‖λt‖ alt', 'wn rec', 'wn alt', 'max|Δλ|']) {
      const th = el('th', undefined, h);
      if (h.startsWith('wn'))
        th.title = 'normal velocity after the impulse (m/s, > 0 separating): the convex model lifts a sliding contact, Coulomb’s law does not';
      h2.appendChild(th);
    }
    const b2 = table.createTBody();
    for (const c of v.contacts) {
      const tr = b2.insertRow();
      tr.dataset.index = String(c.index);
      const cells: [string, number | null][] = [
        ['index', c.index],
        ['recordedN', c.recordedN],
        ['alternativeN', c.alternativeN],
        ['recordedT', c.recordedT],
        ['alternativeT', c.alternativeT],
        ['recordedWn', c.recordedWn],
        ['alternativeWn', c.alternativeWn],
        ['difference', c.difference],
      ];
      for (const [col, x] of cells) {
        const td = el('td', undefined, col === 'index' ? String(x) : num(x));
        td.dataset.col = col;
        td.title = full(x);
        tr.appendChild(td);
      }
    }
    const parts: HTMLElement[] = [el('div', 'whatif-title', `frame ${this.frameOf(v.index)}: recorded vs ${v.options.solver}`), summary, table];
    if (v.contacts.length === 0) parts.push(el('div', 'muted', 'no contact was re-solved'));
    for (const s of v.skipped) parts.push(el('div', 'reason', `skipped: ${s}`));
    this.result.replaceChildren(...parts);
  }

  /** An error answer to the pending request re-enables the button. */
  failed(requestId: number | null): void {
    if (requestId === this.pendingId) {
      setDisabled(this.run, false);
      this.result.replaceChildren();
    }
  }

  /** A new frame makes an old comparison misleading: clear it. */
  clear(): void {
    if (this.result.childElementCount) this.result.replaceChildren(el('div', 'muted', 'frame changed — re-solve to compare'));
  }
}
