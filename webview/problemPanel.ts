/**
 * The inspector's problem-file mode (src/protocol/problem.ts): a problem file has no bodies and one frame,
 * so the timeline, the charts over time, the findings and the scene are replaced by a header that says so,
 * the per-contact table shows μ, b and every solver's λn, ‖λt‖, w_n side by side, and the what-if panel
 * becomes the solver comparison (status, iterations, KKT max_rel, Coulomb merit, time). A file that could
 * not be opened shows its one-line message instead. The A heat map is the inspector's own MatrixView.
 */
import type { ProblemSolverView, ProblemView } from '../src/protocol/problem.js';
import { full, num } from './format.js';
import { byId, el } from './dom.js';

/** Significant digits in the problem tables (the full value is in each cell's title). */
const DIGITS = 4;

function cell(row: HTMLTableRowElement, x: number | null, col: string): void {
  const td = row.insertCell();
  td.textContent = num(x, DIGITS);
  td.title = full(x);
  td.dataset.col = col;
}

function th(row: HTMLTableRowElement, text: string, title: string, span = 1): void {
  const h = el('th', '', text);
  h.scope = span > 1 ? 'colgroup' : 'col';
  if (span > 1) h.colSpan = span;
  h.title = title;
  row.append(h);
}

/** "converged", "max-iterations" …, with the merit the status was decided on. */
function meritText(s: ProblemSolverView): string {
  return s.meritKind === 'coulomb' ? 'Coulomb merit' : 'KKT max_rel';
}

export class ProblemPanel {
  private readonly header = byId('problem-header');
  private readonly contactsBox: HTMLDivElement;
  private readonly contactsTable: HTMLTableElement;
  private readonly solversBox: HTMLDivElement;
  private readonly solversTable: HTMLTableElement;
  private readonly sceneNote: HTMLParagraphElement;

  constructor() {
    this.contactsBox = el('div', 'table-scroll problem-scroll');
    this.contactsBox.id = 'problem-contacts-scroll';
    this.contactsBox.tabIndex = 0; // arrow keys and Page Up/Down scroll the table
    this.contactsBox.setAttribute('aria-label', 'contacts of the problem');
    this.contactsTable = el('table', 'grid problem-table');
    this.contactsTable.id = 'problem-contacts';
    this.contactsBox.append(this.contactsTable);
    this.solversBox = el('div', 'problem-scroll');
    this.solversBox.id = 'problem-solvers-box';
    this.solversTable = el('table', 'grid problem-table');
    this.solversTable.id = 'problem-solvers';
    this.solversBox.append(this.solversTable);
    this.sceneNote = el('p', 'muted', 'no bodies in a problem file: a problem file holds A, b and μ of one frame, not the bodies that produced them');
    this.sceneNote.id = 'scene-empty';
  }

  /** Switches the page to problem mode (hides what needs bodies or frames) once. */
  private enter(): void {
    if (document.body.classList.contains('problem-mode')) return;
    document.body.classList.add('problem-mode');
    byId('panel-contacts').append(this.contactsBox);
    byId('whatif-panel').append(this.solversBox);
    byId('panel-scene').append(this.sceneNote);
    const whatIfTitle = byId('whatif-panel').querySelector('h2');
    if (whatIfTitle) whatIfTitle.textContent = 'What if… every solver on this problem';
    const matrixTitle = byId('panel-matrix').querySelector('h2');
    if (matrixTitle) matrixTitle.textContent = 'A matrix (W for FCLIB)';
    byId('timeline').hidden = true;
  }

  show(v: ProblemView): void {
    this.enter();
    document.body.classList.remove('problem-failed');
    byId('session-title').textContent = v.title;
    byId('session-meta').textContent =
      `problem file · ${v.format === 'fclib' ? 'FCLIB local problem (HDF5)' : 'JSON problem'} · ${v.file}${v.description ? ` · ${v.description.replace(/\s+/g, ' ')}` : ''}`;
    document.title = `Contact Lens: ${v.title}`;
    this.header.replaceChildren(el('div', 'problem-kind', 'problem file: no bodies, one frame'), this.sizes(v), ...v.notes.map((n) => el('div', 'muted', n)));
    this.header.classList.remove('bad');
    this.header.hidden = false;
    byId('contacts-count').textContent = `(${v.contacts})`;
    this.fillContacts(v);
    this.fillSolvers(v);
  }

  /** The file could not be opened: its one line (file: field: detail) is the whole view. */
  showError(file: string, message: string): void {
    this.enter();
    document.body.classList.add('problem-failed');
    byId('session-title').textContent = file;
    byId('session-meta').textContent = 'problem file · could not be opened';
    document.title = `Contact Lens: ${file}`;
    const line = el('div', 'problem-error', message);
    line.id = 'problem-error';
    line.setAttribute('role', 'alert');
    this.header.replaceChildren(line, el('div', 'muted', 'fix the file (docs/problem-format.md lists the fields) and reopen it'));
    this.header.classList.add('bad');
    this.header.hidden = false;
  }

  private sizes(v: ProblemView): HTMLElement {
    const dl = el('dl', 'problem-sizes');
    dl.id = 'problem-sizes';
    const item = (key: string, label: string, value: string, title: string): void => {
      const dt = el('dt', '', label),
        dd = el('dd', '', value);
      dd.dataset.key = key;
      dt.title = dd.title = title;
      dl.append(dt, dd);
    };
    const m = v.matrix;
    item('contacts', 'contacts', String(v.contacts), 'C: friction contacts (3 unknowns each: λn, λt1, λt2)');
    item('unknowns', 'unknowns', String(v.unknowns), '3C: rows of A');
    item('rank', 'rank', String(v.rank), 'numerical rank of A (docs/physics.md "Conditioning")');
    item(
      'rankRatio',
      'rank ratio',
      v.rankRatio === null ? '–' : v.rankRatio.toFixed(2),
      'rows / rank, as FCLIB’s studies report it (Acary, Brémond & Huber 2018, §5)',
    );
    if (v.format === 'fclib') {
      item('asymmetry', 'asymmetry', num(v.asymmetry, 2), '‖A − Aᵀ‖/‖A‖ of W as the file wrote it (real codes write it slightly asymmetric)');
      item(
        'eigenRatio',
        'λmin/λmax',
        num(v.eigenRatio, 2),
        'of the symmetric part of A: below 0 when A is indefinite (newton and ipm then add the smallest shift that makes it positive semidefinite)',
      );
    }
    item('kappa', 'κ(A)', m.kappa === null ? '∞' : num(m.kappa, DIGITS), 'λmax / λmin: infinite when A is singular');
    item(
      'kappaRange',
      'κ on range(A)',
      num(m.kappaRange ?? null, DIGITS),
      'λmax over the smallest eigenvalue in the range of A (the null directions excluded)',
    );
    if (v.reference)
      item(
        'reference',
        v.reference.label,
        `KKT ${num(v.reference.kkt, 2)} · Coulomb ${num(v.reference.coulomb, 2)}`,
        'the file’s own reference solution checked against its problem: a small merit means it solves it',
      );
    return dl;
  }

  private fillContacts(v: ProblemView): void {
    const t = this.contactsTable;
    t.replaceChildren();
    const head = t.createTHead();
    const groups = head.insertRow(),
      cols = head.insertRow();
    th(groups, '', '', 4);
    th(cols, '#', 'contact index (unknowns 3i, 3i+1, 3i+2)');
    th(cols, 'μ', 'friction coefficient');
    th(cols, 'b_n', 'b_n (= −q_n in FCLIB), m/s');
    th(cols, '‖b_t‖', 'tangential part of b, m/s');
    const hasRef = v.reference !== null;
    if (hasRef) {
      th(groups, v.reference!.label, 'the file’s reference solution', 3);
      th(cols, 'λn', 'reference λn, N·s');
      th(cols, '‖λt‖', 'reference ‖λt‖, N·s');
      th(cols, 'w_n', 'reference w_n = (Aλ − b)_n, m/s');
    }
    for (const s of v.solvers) {
      th(groups, s.solver, `${s.solver}: ${s.status} after ${s.iterations} iterations`, 3);
      th(cols, 'λn', `${s.solver}: normal impulse, N·s`);
      th(cols, '‖λt‖', `${s.solver}: friction impulse magnitude, N·s`);
      th(cols, 'w_n', `${s.solver}: normal velocity after the impulse (Aλ − b)_n, m/s; > 0 separating`);
    }
    const body = t.createTBody();
    for (const c of v.table) {
      const r = body.insertRow();
      r.dataset.contact = String(c.index);
      const idx = r.insertCell();
      idx.textContent = String(c.index);
      cell(r, c.mu, 'mu');
      cell(r, c.bN, 'bN');
      cell(r, c.bT, 'bT');
      if (hasRef) {
        cell(r, c.reference?.lambdaN ?? null, 'ref-lambdaN');
        cell(r, c.reference?.lambdaT ?? null, 'ref-lambdaT');
        cell(r, c.reference?.wN ?? null, 'ref-wN');
      }
      for (const s of v.solvers) {
        cell(r, s.lambdaN[c.index], `${s.solver}-lambdaN`);
        cell(r, s.lambdaT[c.index], `${s.solver}-lambdaT`);
        cell(r, s.wN[c.index], `${s.solver}-wN`);
      }
    }
  }

  private fillSolvers(v: ProblemView): void {
    const t = this.solversTable;
    t.replaceChildren();
    const head = t.createTHead().insertRow();
    th(head, 'solver', 'pgs, newton, ipm: the convex QP-SOCP; coulomb: Coulomb’s law (docs/physics.md)');
    th(head, 'status', '“converged” only when the solver’s own merit meets its tolerance');
    th(head, 'iterations', '');
    th(head, 'KKT max_rel', 'KKT residual of the convex QP-SOCP (what pgs, newton and ipm stop on)');
    th(head, 'Coulomb merit', 'FCLIB’s natural-map merit of Coulomb’s law (what coulomb stops on)');
    th(head, 'objective', '½λᵀAλ − bᵀλ');
    th(head, 'time (ms)', 'wall time of the solve');
    th(head, 'sep / stick / slide', 'contacts separating, sticking and sliding in the answer');
    const body = t.createTBody();
    for (const s of v.solvers) {
      const r = body.insertRow();
      r.dataset.solver = s.solver;
      r.className = s.status === 'converged' ? '' : 'bad';
      const name = r.insertCell();
      name.textContent = s.solver;
      const st = r.insertCell();
      st.textContent = s.matrixNote ? `${s.status} *` : s.status;
      st.dataset.col = 'status';
      st.title = `decided on the ${meritText(s)}${s.matrixNote ? `; ${s.matrixNote}` : ''}`;
      const it = r.insertCell();
      it.textContent = String(s.iterations);
      it.dataset.col = 'iterations';
      cell(r, s.kkt, 'kkt');
      cell(r, s.coulomb, 'coulomb');
      r.cells[s.meritKind === 'coulomb' ? 4 : 3].classList.add('decides');
      cell(r, s.objective, 'objective');
      const time = r.insertCell();
      time.textContent = s.timeMs.toFixed(1);
      time.dataset.col = 'time';
      const cls = r.insertCell();
      cls.textContent = `${s.classes.separating} / ${s.classes.sticking} / ${s.classes.sliding}`;
      cls.dataset.col = 'classes';
    }
    const foot = el('div', 'muted hint', 'underlined: the merit the status was decided on; hover a number for its full value');
    foot.id = 'problem-solvers-hint';
    this.solversBox.querySelector('#problem-solvers-hint')?.remove();
    this.solversBox.querySelector('#problem-matrix-notes')?.remove();
    this.solversBox.append(foot);
    const noted = v.solvers.filter((s) => s.matrixNote);
    if (noted.length) {
      // * newton, ipm: solved with the symmetric part of A …
      const notes = el('div', 'muted hint', `* ${noted.map((s) => s.solver).join(', ')}: ${noted[0].matrixNote}`);
      notes.id = 'problem-matrix-notes';
      this.solversBox.append(notes);
    }
  }
}
