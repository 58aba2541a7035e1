/**
 * The diagnosis findings as one-line headlines that expand: each line shows the kind, the mechanism, the
 * frame, the contacts, the joules and a short text (the finding's `headline`, else the first clause of its
 * explanation); a click or Enter seeks to its frame, selects its contacts and unfolds the full explanation,
 * its evidence lines and its counterfactual re-solves. A dozen findings fit in the panel at once.
 */
import type { FindingView } from '../src/protocol/inspector.js';
import { si } from './format.js';
import { byId, el } from './dom.js';
import { badgeText, energy, findingHeadline, shortText } from './findingText.js';

export class FindingsList {
  private readonly root = byId('findings');
  private readonly count = byId('findings-count');
  private items: HTMLElement[] = [];
  private findings: readonly FindingView[] = [];

  constructor(private readonly open: (f: FindingView) => void) {
    this.root.addEventListener('click', (e) => {
      const head = (e.target as HTMLElement).closest<HTMLElement>('.finding-head');
      const item = head?.parentElement;
      const k = item ? Number(item.dataset.finding) : NaN;
      if (item && Number.isInteger(k) && this.findings[k]) this.activate(item, this.findings[k]);
    });
  }

  set(findings: readonly FindingView[]): void {
    this.findings = findings;
    this.count.textContent = String(findings.length);
    this.items = findings.map((f, k) => this.item(f, k));
    this.root.replaceChildren(...(this.items.length ? this.items : [el('div', 'muted', 'no findings: no energy entered, nothing non-physical')]));
  }

  /** Marks the findings at session index i. */
  highlight(index: number): void {
    for (const it of this.items) it.classList.toggle('current', Number(it.dataset.index) === index);
  }

  /** A click or Enter on a finding: seek to it and unfold it; on an unfolded one, fold it again. */
  private activate(item: HTMLElement, f: FindingView): void {
    const expanded = item.classList.contains('expanded');
    if (!expanded) this.open(f);
    this.setExpanded(item, !expanded);
  }

  private setExpanded(item: HTMLElement, on: boolean): void {
    item.classList.toggle('expanded', on);
    item.querySelector('.finding-head')?.setAttribute('aria-expanded', String(on));
    const body = item.querySelector<HTMLElement>('.finding-body');
    if (body) body.hidden = !on;
    // the unfolded text in view inside the list (the list scrolls, not the page)
    if (on && body) {
      const list = this.root.getBoundingClientRect(),
        b = item.getBoundingClientRect();
      if (b.bottom > list.bottom) this.root.scrollTop += Math.min(b.bottom - list.bottom, b.top - list.top);
    }
  }

  private item(f: FindingView, k: number): HTMLElement {
    const item = el('div', 'finding');
    item.dataset.index = String(f.index);
    item.dataset.finding = String(k);
    const kind = f.kind ?? 'injection';
    item.classList.add(`severity-${f.severity ?? 'error'}`, `kind-${kind}`);
    const head = el('div', 'finding-head');
    head.tabIndex = 0;
    head.setAttribute('role', 'button');
    head.setAttribute('aria-expanded', 'false');
    head.title = `${findingHeadline(f)} — click or Enter: go to the frame and show the whole finding`;
    head.append(
      el('span', 'chevron', '▸'),
      el('span', `badge ${f.severity ?? 'error'}`, badgeText(f)),
      el('span', 'mechanism', f.mechanism),
      el('span', 'frame', `frame ${f.frame}`),
      el('span', 'contacts', f.contacts.length ? `#${f.contacts.slice(0, 4).join(',')}${f.contacts.length > 4 ? `…+${f.contacts.length - 4}` : ''}` : ''),
      el('span', 'joules', energy(f)),
      el('span', 'short', shortText(f)),
    );
    head.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        e.stopPropagation();
        this.activate(item, f);
      }
    });
    const body = el('div', 'finding-body');
    body.hidden = true;
    body.append(el('div', 'meta muted', `frame ${f.frame} · t = ${f.time.toFixed(4)} s · contacts ${f.contacts.join(', ') || '–'}`));
    // the evidence lines, one per fact, when the diagnosis gave them (the explanation is their run-on text)
    if (f.evidence?.length) {
      const ul = el('ul', 'explanation evidence');
      for (const line of f.evidence) ul.append(el('li', undefined, line));
      body.append(ul);
    } else body.append(el('div', 'explanation', f.explanation));
    // the counterfactual re-solves are the centre of an injection finding: what each would have saved
    const cf = f.counterfactual;
    if (cf && cf.islands > 0) {
      body.append(
        el(
          'div',
          'counterfactual',
          `exact re-solve of the same problem saves ${si(cf.exactSolve, 'J')} · without stabilisation ${si(cf.noStabilisation, 'J')} · restitution law ${si(cf.restitutionLaw, 'J')}`,
        ),
      );
    }
    if (f.inconsistent) body.append(el('div', 'inconsistent', "rests on inconsistent data: λ does not explain this frame's velocity change"));
    item.append(head, body);
    return item;
  }
}
