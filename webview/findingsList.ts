/**
 * The diagnosis findings (energy gains): mechanism, joules, frame, contacts and explanation. Clicking one
 * seeks to its frame and selects its contacts.
 */
import type { FindingView } from '../src/protocol/inspector.js';
import { byId, el, num } from './format.js';

export class FindingsList {
  private readonly root = byId('findings');
  private readonly count = byId('findings-count');
  private items: HTMLElement[] = [];
  private findings: readonly FindingView[] = [];

  constructor(private readonly open: (f: FindingView) => void) {
    this.root.addEventListener('click', (e) => {
      const item = (e.target as HTMLElement).closest<HTMLElement>('.finding');
      const k = item ? Number(item.dataset.finding) : NaN;
      if (Number.isInteger(k) && this.findings[k]) this.open(this.findings[k]);
    });
  }

  set(findings: readonly FindingView[]): void {
    this.findings = findings;
    this.count.textContent = String(findings.length);
    this.items = findings.map((f, k) => {
      const item = el('div', 'finding');
      item.dataset.index = String(f.index);
      item.dataset.finding = String(k);
      item.tabIndex = 0;
      item.setAttribute('role', 'button');
      const head = el('div', 'finding-head');
      const kind = f.kind ?? 'injection';
      item.classList.add(`severity-${f.severity ?? 'error'}`, `kind-${kind}`);
      head.append(
        el('span', `badge ${f.severity ?? 'error'}`, kind === 'injection' ? (f.severity === 'warning' ? 'stabilisation' : 'injection') : kind),
        el('span', 'mechanism', f.mechanism),
        el('span', 'joules', kind === 'injection' ? `+${num(f.joules)} J` : ''),
        el('span', 'muted', `frame ${f.frame} · t = ${f.time.toFixed(4)} s · contacts ${f.contacts.join(', ') || '–'}`),
      );
      item.append(head, el('div', 'explanation', f.explanation));
      // the counterfactual re-solves are the centre of an injection finding: what each would have saved
      const cf = f.counterfactual;
      if (cf && cf.islands > 0) {
        item.append(
          el(
            'div',
            'counterfactual',
            `exact re-solve of the same problem saves ${num(cf.exactSolve)} J · without stabilisation ${num(cf.noStabilisation)} J · restitution law ${num(cf.restitutionLaw)} J`,
          ),
        );
      }
      if (f.inconsistent) item.append(el('div', 'inconsistent', "rests on inconsistent data: λ does not explain this frame's velocity change"));
      item.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          e.stopPropagation();
          this.open(f);
        }
      });
      return item;
    });
    this.root.replaceChildren(...(this.items.length ? this.items : [el('div', 'muted', 'no findings: no energy entered, nothing non-physical')]));
  }

  /** Marks the findings at session index i. */
  highlight(index: number): void {
    for (const it of this.items) it.classList.toggle('current', Number(it.dataset.index) === index);
  }
}
