/**
 * Per-contact table of the current frame: virtualised — only the rows in view (plus one) are in the DOM,
 * recycled on scroll, so a frame with thousands of contacts costs the same as one with twenty. The table
 * is `position: sticky` inside its scroll box, followed by a spacer that gives the scroll box the height
 * of all rows. Headers sort (click again to reverse); clicking a row toggles its selection.
 *
 * Layout: each row is one line of monospace text — its cells are inline, padded to their column's width
 * in characters (the header cells are inline-blocks of the same width in `ch`). A frame change rewrites
 * every visible cell, and in a real table each changed cell is laid out on its own (~20 µs each, ~6 ms
 * for 16 rows × 16 columns); sixteen lines of inline text cost ~1 ms. Cells keep data-col = the
 * ContactView field ('bodies' for "A–B"). Numbers are shown in their column's scale for the frame (one SI
 * prefix and one number of decimals per column, ./format.ts), the unit is the header's second line and the
 * full value in SI units is the cell's title; nothing is cut (the box scrolls sideways when it is narrow).
 */
import type { ContactView } from '../src/protocol/inspector.js';
import type { CompareContact } from '../src/protocol/compare.js';

/** A row: the contact of run a and, in compare mode, its partner in run b (FrameView.compare.contacts). */
export type TableContact = ContactView & { readonly compare?: CompareContact };
import { fitCell } from './fixedWidth.js';
import { type ColumnScale, columnScale, full, inScale, vecInScale } from './format.js';
import { byId, el } from './dom.js';

interface Column {
  readonly col: string;
  /** Compare mode only (hidden unless the page compares two runs: body.comparing). */
  readonly compare?: boolean;
  readonly label: string;
  readonly title: string;
  /** Width in characters, including the one-space gap after the cell. */
  readonly width: number;
  readonly align: 'left' | 'right';
  /** Sort key. */
  readonly sort: (c: TableContact) => number | string;
  /**
   * Numeric columns: the SI unit (the header shows it with the prefix of the frame's column scale, '' for a
   * dimensionless column), the value, and the significant digits of the column's largest value.
   */
  readonly unit?: string;
  readonly value?: (c: TableContact) => number | null;
  readonly digits?: number;
  /** Other columns: cell text and title (`scale`: this column's scale, for the point). */
  readonly cell?: (c: ContactView, scale: ColumnScale) => [string, string];
  /** The values a vector column's scale is taken from. */
  readonly scaleValues?: (c: ContactView) => readonly number[];
}

/** A value of the partner contact in run b (null: not comparing, or the contact is in a only). */
function bOf(c: TableContact, k: 'lambdaN' | 'lambdaT' | 'depth'): number | null {
  return c.compare ? c.compare[k] : null;
}
/** b − a of a value (null without a partner). */
function delta(c: TableContact, k: 'lambdaN' | 'lambdaT' | 'depth', a: number): number | null {
  const b = bOf(c, k);
  return b === null ? null : b - a;
}

/** A numeric cell: "−187.7", "−1.000" or, below every prefix, "−1.85e-18" (9 characters), plus the gap. */
const NUMBER_WIDTH = 10;
/** 3 decimals, 3 coordinates: "−0.500, −0.500, 2.997". */
const VECTOR_WIDTH = 23;

const numeric = (unit: string, f: (c: TableContact) => number | null, digits = 4): Pick<Column, 'sort' | 'width' | 'align' | 'unit' | 'value' | 'digits'> => ({
  width: NUMBER_WIDTH,
  align: 'right',
  sort: (c) => f(c) ?? -Infinity,
  unit,
  value: f,
  digits,
});

export const COLUMNS: readonly Column[] = [
  {
    col: 'index',
    label: '#',
    title: 'contact index in the frame',
    width: 5,
    align: 'right',
    sort: (c) => c.index,
    cell: (c) => [String(c.index), `contact ${c.index} · key ${c.key} · island ${c.island}`],
  },
  {
    col: 'bodies',
    label: 'bodies',
    title: 'body A – body B',
    width: 12,
    align: 'left',
    sort: (c) => `${c.bodyA}–${c.bodyB}`,
    cell: (c) => [`${c.bodyA}–${c.bodyB}`, `${c.bodyA}–${c.bodyB}`],
  },
  {
    col: 'point',
    label: 'point x, y, z',
    title: 'contact point (world; the unit is in the header)',
    width: VECTOR_WIDTH,
    align: 'right',
    sort: (c) => c.point[2],
    unit: 'm',
    scaleValues: (c) => c.point,
    cell: (c, s) => [vecInScale(c.point, s), `${c.point.join(', ')} m`],
  },
  {
    col: 'normal',
    label: 'normal',
    title: 'contact normal (unit vector from b into a)',
    width: 21,
    align: 'right',
    sort: (c) => c.normal[2],
    cell: (c) => [vecInScale(c.normal, UNIT_VECTOR), c.normal.join(', ')],
  },
  { col: 'depth', label: 'depth', title: 'penetration depth', ...numeric('m', (c) => c.depth) },
  { col: 'mu', label: 'μ', title: 'friction coefficient', ...numeric('', (c) => c.mu, 3) },
  { col: 'e', label: 'e', title: 'restitution coefficient', ...numeric('', (c) => c.e, 3) },
  { col: 'lambdaN', label: 'λn', title: 'normal impulse', ...numeric('N·s', (c) => c.lambdaN) },
  { col: 'lambdaT', label: '‖λt‖', title: 'friction impulse magnitude', ...numeric('N·s', (c) => c.lambdaT) },
  // compare mode: the partner contact in run b (docs/compare.md), its λ and depth, and b − a
  {
    col: 'bLambdaN',
    compare: true,
    label: 'λn b',
    title: 'normal impulse of the matched contact in run b (— : the contact is in run a only)',
    ...numeric('N·s', (c) => bOf(c, 'lambdaN')),
  },
  { col: 'dLambdaN', compare: true, label: 'Δλn', title: 'λn of run b − λn of run a', ...numeric('N·s', (c) => delta(c, 'lambdaN', c.lambdaN)) },
  { col: 'bLambdaT', compare: true, label: '‖λt‖ b', title: 'friction impulse magnitude in run b', ...numeric('N·s', (c) => bOf(c, 'lambdaT')) },
  { col: 'dLambdaT', compare: true, label: 'Δ‖λt‖', title: '‖λt‖ of run b − ‖λt‖ of run a', ...numeric('N·s', (c) => delta(c, 'lambdaT', c.lambdaT)) },
  { col: 'dDepth', compare: true, label: 'Δdepth', title: 'penetration depth of run b − of run a', ...numeric('m', (c) => delta(c, 'depth', c.depth)) },
  {
    col: 'state',
    label: 'state',
    title:
      'open / stick / slip from the velocity after the step w: open when the gap opens faster than the stabilisation allows (or no normal impulse), slip when ‖w_t‖ > 1 mm/s',
    width: 6,
    align: 'left',
    sort: (c) => c.state,
    cell: (c) => [c.state, c.state],
  },
  { col: 'vnBefore', label: 'v⁻n', title: 'normal velocity before the impulse (< 0 approaching)', ...numeric('m/s', (c) => c.vnBefore) },
  { col: 'vnAfter', label: 'v⁺n', title: 'normal velocity after the impulse, w_n (> 0 separating)', ...numeric('m/s', (c) => c.vnAfter) },
  { col: 'excess', label: 'excess', title: 'v⁺ − (−e·v⁻): > 0 separates faster than restitution allows', ...numeric('m/s', (c) => c.excess) },
  { col: 'frictionPower', label: 'P fric', title: 'λt·vt⁺ (J per step): > 0 means friction did work', ...numeric('J', (c) => c.frictionPower) },
  {
    col: 'biasImpulse',
    label: 'λ bias',
    title: 'impulse from the ERP/Baumgarte bias alone, m_eff·b_bias (exact for an isolated contact)',
    ...numeric('N·s', (c) => c.biasImpulse),
  },
  {
    col: 'coneViolation',
    label: 'cone ex',
    title: 'friction-cone excess max(0, ‖λt‖ − μλn): > 0 breaks Coulomb friction',
    ...numeric('N·s', (c) => c.coneViolation),
  },
  {
    col: 'injected',
    label: 'injected',
    title: 'energy this contact injected in this frame, by the diagnosis (all mechanisms: docs/physics.md)',
    ...numeric('J', (c) => c.injected ?? null),
  },
];

/** A unit normal's components: 3 decimals. */
const UNIT_VECTOR: ColumnScale = { unit: '', factor: 1, decimals: 3 };
/** Widest "A–B" the bodies column grows to (characters, with the gap). */
const MAX_BODIES_WIDTH = 32;

const DEFAULT_ROW_HEIGHT = 22;

export class ContactTable {
  private readonly scroll = byId('contacts-scroll');
  private readonly table = byId<HTMLTableElement>('contacts-table');
  private readonly tbody: HTMLTableSectionElement;
  private readonly spacer: HTMLElement;
  private readonly headers: HTMLTableCellElement[] = [];
  /** Per column: its scale in the current frame (numeric columns and the point). */
  private scales: ColumnScale[] = COLUMNS.map(() => ({ unit: '', factor: 1, decimals: 3 }));
  /** Per column: its width in characters (the bodies column grows to the longest pair seen). */
  private readonly widths = COLUMNS.map((c) => c.width);
  private readonly pool: HTMLTableRowElement[] = [];
  private contacts: readonly TableContact[] = [];
  private order: number[] = [];
  private sortCol = 'index';
  private sortDir: 1 | -1 = 1;
  private rowHeight = 0;
  /** Height available for rows (px), measured on the first render and after a resize: reading layout on
   *  every frame change would force a synchronous reflow each time. */
  private viewH = 0;
  private rendered = { start: -1, count: -1 };
  /** scrollTop as of the last scroll event: reading it during a frame update would force a reflow. */
  private scrollTop = 0;
  readonly selected = new Set<string>();

  /** `onSelect` gets the selected keys after every change. */
  constructor(private readonly onSelect: (keys: readonly string[]) => void) {
    // explicit roles: the CSS lays the table out as lines of text, which hides its table semantics
    this.table.setAttribute('role', 'table');
    const thead = this.table.createTHead();
    const hr = thead.insertRow();
    hr.setAttribute('role', 'row');
    for (const c of COLUMNS) {
      const th = el('th', c.compare ? 'compare-col' : undefined, c.label);
      th.dataset.col = c.col;
      th.setAttribute('role', 'columnheader');
      th.style.width = `${c.width}ch`;
      th.style.textAlign = c.align;
      th.title = `${c.title} — click to sort`;
      // two lines: the label, and the unit with the frame's prefix (filled by setContacts)
      th.append(el('br'), el('span', 'unit', c.unit === undefined ? '' : c.unit || '–'));
      th.addEventListener('click', () => this.sortBy(c.col));
      hr.appendChild(th);
      this.headers.push(th);
    }
    this.tbody = this.table.tBodies[0] ?? this.table.createTBody();
    this.spacer = el('div', 'table-spacer');
    this.scroll.appendChild(this.spacer);
    this.scroll.addEventListener(
      'scroll',
      () => {
        this.scrollTop = this.scroll.scrollTop;
        this.render(false);
      },
      { passive: true },
    );
    new ResizeObserver(() => {
      this.viewH = 0;
      this.render(true);
    }).observe(this.scroll);
    this.tbody.addEventListener('click', (e) => {
      const tr = (e.target as HTMLElement).closest('tr');
      if (!tr || tr.dataset.index === undefined) return;
      const c = this.contacts[Number(tr.dataset.index)];
      if (c) this.toggle(c.key);
    });
    this.markSort();
  }

  /** The current frame's contacts (with their partners in run b in compare mode). */
  setContacts(contacts: readonly TableContact[]): void {
    this.contacts = contacts;
    this.rescale();
    this.sort();
    this.render(true);
  }

  /** The frame's column scales (one SI prefix and one number of decimals per column) and the bodies column's width. */
  private rescale(): void {
    const cs = this.contacts;
    COLUMNS.forEach((col, k) => {
      if (col.unit === undefined) return;
      const value = col.value;
      const vector = col.scaleValues;
      const s = value
        ? columnScale(
            cs.map((c) => value(c)),
            col.unit,
            col.digits,
          )
        : vector
          ? columnScale(
              cs.flatMap((c) => vector(c)),
              col.unit,
            )
          : this.scales[k];
      const old = this.scales[k];
      this.scales[k] = s;
      if (old.unit !== s.unit) (this.headers[k].querySelector('.unit') as HTMLElement).textContent = s.unit || '–';
    });
    const b = COLUMNS.findIndex((c) => c.col === 'bodies');
    let w = this.widths[b];
    for (const c of cs) w = Math.max(w, c.bodyA.length + c.bodyB.length + 2);
    w = Math.min(MAX_BODIES_WIDTH, w);
    if (w !== this.widths[b]) {
      this.widths[b] = w;
      this.headers[b].style.width = `${w}ch`;
    }
  }

  /** Replaces the selection (keys), e.g. restored state or a finding's contacts. */
  select(keys: readonly string[], notify = true): void {
    this.selected.clear();
    for (const k of keys) this.selected.add(k);
    this.render(true);
    if (notify) this.onSelect([...this.selected]);
  }

  toggle(key: string): void {
    if (this.selected.has(key)) this.selected.delete(key);
    else this.selected.add(key);
    this.render(true);
    this.onSelect([...this.selected]);
  }

  sortBy(col: string): void {
    if (this.sortCol === col) this.sortDir = this.sortDir === 1 ? -1 : 1;
    else {
      this.sortCol = col;
      this.sortDir = 1;
    }
    this.markSort();
    this.sort();
    this.render(true);
  }

  private markSort(): void {
    for (const th of this.headers) {
      th.classList.toggle('sorted-asc', th.dataset.col === this.sortCol && this.sortDir === 1);
      th.classList.toggle('sorted-desc', th.dataset.col === this.sortCol && this.sortDir === -1);
      th.setAttribute('aria-sort', th.dataset.col !== this.sortCol ? 'none' : this.sortDir === 1 ? 'ascending' : 'descending');
    }
  }

  private sort(): void {
    const col = COLUMNS.find((c) => c.col === this.sortCol) ?? COLUMNS[0];
    const keys = this.contacts.map(col.sort);
    const dir = this.sortDir;
    this.order = this.contacts.map((_, i) => i);
    this.order.sort((a, b) => {
      const x = keys[a],
        y = keys[b];
      const d = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return d !== 0 ? dir * d : a - b;
    });
  }

  /** Shows the rows in view; `force` re-fills them even if the visible range did not change. */
  private render(force: boolean): void {
    const n = this.order.length;
    const rowH = this.rowHeight || DEFAULT_ROW_HEIGHT;
    if (this.viewH <= 0) this.viewH = Math.max(0, this.scroll.clientHeight - (this.table.tHead?.offsetHeight ?? rowH));
    const viewH = Math.max(rowH, this.viewH);
    const visible = Math.min(n, Math.ceil(viewH / rowH) + 1);
    const start = Math.max(0, Math.min(Math.floor(this.scrollTop / rowH), n - visible));
    if (!force && start === this.rendered.start && visible === this.rendered.count) return;
    this.rendered = { start, count: visible };
    while (this.pool.length < visible) this.pool.push(this.makeRow());
    const rows = this.tbody.rows;
    for (let r = 0; r < visible; r++) {
      const tr = this.pool[r];
      this.fillRow(tr, this.contacts[this.order[start + r]]);
      if (rows[r] !== tr) this.tbody.insertBefore(tr, rows[r] ?? null);
    }
    while (this.tbody.rows.length > visible) this.tbody.deleteRow(-1);
    // total scroll height = header + n rows: the sticky table holds `visible` rows, the spacer the rest
    this.spacer.style.height = `${(n - visible) * rowH}px`;
    if (!this.rowHeight && visible > 0) {
      const h = this.pool[0].offsetHeight;
      if (h > 0) {
        this.rowHeight = h;
        if (h !== rowH) this.render(true);
      }
    }
  }

  private makeRow(): HTMLTableRowElement {
    const tr = document.createElement('tr');
    tr.setAttribute('role', 'row');
    for (const c of COLUMNS) {
      const td = document.createElement('td');
      td.dataset.col = c.col;
      if (c.compare) td.className = 'compare-col';
      td.setAttribute('role', 'cell');
      td.appendChild(document.createTextNode(''));
      tr.appendChild(td);
    }
    return tr;
  }

  private fillRow(tr: HTMLTableRowElement, c: TableContact): void {
    tr.dataset.index = String(c.index);
    tr.classList.toggle('selected', this.selected.has(c.key));
    tr.classList.toggle('state-slip', c.state === 'slip');
    tr.classList.toggle('state-open', c.state === 'open');
    tr.classList.toggle('excess', c.excess !== null && c.excess > 1e-3);
    tr.classList.toggle('only-a', c.compare !== undefined && c.compare.b === null);
    const cells = tr.cells;
    for (let k = 0; k < COLUMNS.length; k++) {
      const col = COLUMNS[k];
      const scale = this.scales[k];
      const [text, title] = col.value ? [inScale(col.value(c), scale), `${full(col.value(c))}${col.unit ? ` ${col.unit}` : ''}`] : col.cell!(c, scale);
      const td = cells[k];
      const shown = fitCell(text, this.widths[k], col.align);
      const node = td.firstChild as Text;
      if (node.data !== shown) node.data = shown;
      if (td.title !== title) td.title = title;
    }
  }
}
