/**
 * The inspector's timeline of a session, built one frame at a time in order: its rows (energy, status, κ of the
 * largest islands, depth), the contact columns, and the diagnosis' injection columns and findings — diagnosed
 * here, or (a live stream) elsewhere and added in order with addDiagnosis.
 */
import { assembleProblem, buildIslands, conditioning, DEFAULT_ASSEMBLY } from '../../engine/index.js';
import { toContactPoint, type RecordedFrame, type RecordingHeader } from '../../format/recording.js';
import { FINDING_HEADLINE_MAX, type FindingView, type SolverStatus, type Timeline } from '../../protocol/inspector.js';
import { ContactKeyTable } from '../../session/contactKeys.js';
import { type Diagnoser, type Finding, frameEnergyParts } from '../../session/diagnose.js';
import { solveTimeBodies } from '../../session/preSolve.js';
import { ContactColumns, type ContactRows, InjectedColumns, type InjectedRows } from './contactColumns.js';

/** Largest island (contacts) whose κ is computed in the timeline pass; larger islands are left out there. */
export const TIMELINE_KAPPA_MAX_CONTACTS = 40;
/** Islands per frame whose κ enters the timeline (the largest ones up to the size limit): bounded cost per frame. */
export const TIMELINE_KAPPA_ISLANDS = 4;

interface MutableTimeline {
  frame: number[];
  time: number[];
  contacts: number[];
  status: SolverStatus[];
  iterations: (number | null)[];
  residual: (number | null)[];
  kinetic: number[];
  potential: number[];
  total: number[];
  ledger: Record<string, (number | null)[]>;
  kappa: (number | null)[];
  kappaRange: (number | null)[];
  maxDepth: number[];
  injection?: Record<string, number[]>;
}

function emptyTimeline(): MutableTimeline {
  return {
    frame: [],
    time: [],
    contacts: [],
    status: [],
    iterations: [],
    residual: [],
    kinetic: [],
    potential: [],
    total: [],
    ledger: Object.create(null) as MutableTimeline['ledger'],
    kappa: [],
    kappaRange: [],
    maxDepth: [],
  };
  // (ledger has no prototype: a recording's energy key may be "constructor" or "toString")
}

const LEDGER_SKIP = new Set(['kinetic', 'potential', 'total', 'kineticLinear', 'kineticRotational']);
const finiteOrNull = (x: number | undefined): number | null => (x !== undefined && Number.isFinite(x) ? x : null);

/**
 * κ of the frame's worst island among its TIMELINE_KAPPA_ISLANDS largest islands of at most
 * TIMELINE_KAPPA_MAX_CONTACTS contacts (exact for those; the selected frame's view has every island).
 */
export function frameKappa(header: RecordingHeader, f: RecordedFrame, prev: RecordedFrame | undefined): { kappa: number | null; kappaRange: number | null } {
  const none = { kappa: null, kappaRange: null };
  if (f.contacts.length === 0) return none;
  const pre = solveTimeBodies(header, f, prev);
  if (!pre.ok) return none;
  const islands = buildIslands(
    header.bodies.length,
    f.contacts.map((c) => [c.a, c.b] as const),
    header.bodies.map((b) => b.static),
  );
  let worst: number | null = null,
    worstRange: number | null = null;
  const picked = islands
    .filter((isl) => isl.contacts.length <= TIMELINE_KAPPA_MAX_CONTACTS)
    .sort((a, b) => b.contacts.length - a.contacts.length)
    .slice(0, TIMELINE_KAPPA_ISLANDS);
  for (const isl of picked) {
    const p = assembleProblem(
      pre.bodies,
      isl.contacts.map((k) => toContactPoint(f.contacts[k])),
      { ...DEFAULT_ASSEMBLY, dt: header.dt },
    );
    const cond = conditioning(p.A, p.size, { regularization: p.regularization });
    worst = worst === null ? cond.kappa : Math.max(worst, cond.kappa);
    worstRange = worstRange === null ? cond.kappaRange : Math.max(worstRange, cond.kappaRange);
  }
  const shown = (k: number | null): number | null => (k !== null && Number.isFinite(k) ? k : k === null || Number.isNaN(k) ? null : Number.MAX_VALUE);
  return { kappa: shown(worst), kappaRange: shown(worstRange) };
}

/** The findings list's line: a finding's clause on one line, cut to the protocol's FINDING_HEADLINE_MAX characters. */
function listLine(clause: string): string {
  const line = clause.replace(/[\r\n]+/g, ' ');
  return line.length <= FINDING_HEADLINE_MAX ? line : `${line.slice(0, FINDING_HEADLINE_MAX - 1)}…`;
}

/** A session finding as the protocol carries it (index: the session position of its frame). */
export function toFindingView(x: Finding, index: number): FindingView {
  return {
    index,
    frame: x.frame,
    time: x.time,
    contacts: x.contacts,
    mechanism: x.mechanism,
    joules: x.joules,
    explanation: x.explanation,
    // the list shows mechanism, frame, contacts and joules itself: its one-line text is the summary (a law's
    // clause can be longer than the line: the evidence gives the law of each listed contact)
    headline: listLine(x.summary),
    evidence: x.evidence,
    kind: x.kind,
    severity: x.severity,
    ...(x.inconsistent ? { inconsistent: true } : {}),
    ...(x.counterfactual
      ? {
          counterfactual: {
            exactSolve: x.counterfactual.exactSolve,
            noStabilisation: x.counterfactual.noStabilisation,
            restitutionLaw: x.counterfactual.restitutionLaw,
            islands: x.counterfactual.islands,
          },
        }
      : {}),
  };
}

/** One frame's diagnosis as a live stream's diagnosis thread sends it (src/extension/live/diagnosisThread.ts). */
export interface FrameDiagnosisResult {
  /** Session position. */
  readonly index: number;
  readonly frame: number;
  /** Injected joules by mechanism. */
  readonly injected: readonly (readonly [string, number])[];
  /** Injected joules by contact index in the frame. */
  readonly byContact: readonly (readonly [number, number])[];
  /** The findings this frame added. */
  readonly findings: readonly FindingView[];
  /** The timeline's κ of the frame (null: not computed, the diagnosis was behind). */
  readonly kappa: number | null;
  readonly kappaRange: number | null;
  readonly resolveBudgetFrame: number | null;
}

/** Rows of a timeline built elsewhere from the same recording's later frames (TimelineBuilder.rowsFrom, appendRows). */
export interface TimelineRows {
  readonly t: Timeline;
  readonly contacts: ContactRows;
  readonly injected: InjectedRows;
}

/** The timeline's per-row columns (the ledger and injection records apart). */
const ROW_COLUMNS = [
  'frame',
  'time',
  'contacts',
  'status',
  'iterations',
  'residual',
  'kinetic',
  'potential',
  'total',
  'kappa',
  'kappaRange',
  'maxDepth',
] as const;

/** Appends m rows of named columns `more` to `cols` (n rows): columns in first-appearance order, `none` where a row has none. */
function appendNamed<T>(cols: Record<string, T[]>, n: number, more: Readonly<Record<string, readonly T[]>>, m: number, none: T): void {
  for (const name of Object.keys(cols)) {
    const o = more[name];
    for (let i = 0; i < m; i++) cols[name].push(o ? o[i] : none);
  }
  for (const name of Object.keys(more))
    if (cols[name] === undefined) {
      const col = new Array<T>(n).fill(none);
      for (let i = 0; i < m; i++) col.push(more[name][i]);
      cols[name] = col;
    }
}

/** Accumulates the timeline, the contact columns and the diagnosis, one frame at a time, in order. */
export class TimelineBuilder {
  readonly t = emptyTimeline();
  readonly contacts: ContactColumns;
  /** Per session position: injected joules per contact. */
  readonly injectedByContact = new InjectedColumns();
  /** null: the frames are diagnosed elsewhere (a live stream's diagnosis thread) and come back through addDiagnosis. */
  private readonly diag: Diagnoser | null;
  private prev: RecordedFrame | undefined;
  /** Findings of rows diagnosed on another thread (appendFindings), after the diagnoser's own. */
  private readonly appended: FindingView[] = [];
  /** `diag` is built with keepFrames: false (timelineDiagnosis): what the model needs of each frame is copied in add(). */
  constructor(
    private readonly header: RecordingHeader,
    diag: Diagnoser | null,
  ) {
    this.diag = diag;
    this.contacts = new ContactColumns(diag?.keys ?? new ContactKeyTable());
  }
  /** The frame's row, its contacts and its diagnosis. */
  add(f: RecordedFrame, kappa = true): void {
    this.addRow(f, kappa);
    if (!this.diag) return;
    this.diag.add(f);
    const last = this.diag.lastFrame!;
    this.addDiagnosis(this.t.frame.length - 1, last.injected, last.byContact);
  }
  /** The frame's row and contacts; its injection columns stay 0 until addDiagnosis. */
  addRow(f: RecordedFrame, kappa = true): void {
    const t = this.t,
      n = t.frame.length;
    const { kinetic, potential, total } = frameEnergyParts(this.header, f);
    t.frame.push(f.frame);
    t.time.push(f.time);
    t.contacts.push(f.contacts.length);
    t.status.push(f.solver.status);
    t.iterations.push(finiteOrNull(f.solver.iterations));
    const res = f.solver.residuals;
    t.residual.push(res?.length ? finiteOrNull(res[res.length - 1]) : null);
    t.kinetic.push(kinetic);
    t.potential.push(potential);
    t.total.push(total);
    for (const [name, v] of Object.entries(f.energy ?? {})) {
      if (LEDGER_SKIP.has(name)) continue;
      (t.ledger[name] ??= new Array<number | null>(n).fill(null)).push(finiteOrNull(v));
    }
    for (const col of Object.values(t.ledger)) if (col.length === n) col.push(null);
    // a live session that falls behind skips the timeline's κ (the frame's own view always has its islands' κ)
    const k = kappa ? frameKappa(this.header, f, this.prev) : { kappa: null, kappaRange: null };
    t.kappa.push(k.kappa);
    t.kappaRange.push(k.kappaRange);
    t.maxDepth.push(f.contacts.reduce((m, c) => Math.max(m, c.depth), 0));
    this.contacts.add(f);
    const inj = (t.injection ??= Object.create(null) as Record<string, number[]>);
    for (const col of Object.values(inj)) col.push(0);
    this.prev = f;
  }
  /**
   * The diagnosis of row i (rows are diagnosed in order): injected joules by mechanism and by contact index.
   */
  addDiagnosis(
    i: number,
    injected: Iterable<readonly [string, number]>,
    byContact: ReadonlyMap<number, number>,
    kappa?: { readonly kappa: number | null; readonly kappaRange: number | null },
  ): void {
    if (kappa) {
      this.t.kappa[i] = kappa.kappa;
      this.t.kappaRange[i] = kappa.kappaRange;
    }
    this.injectedByContact.add(byContact);
    const inj = (this.t.injection ??= Object.create(null) as Record<string, number[]>);
    for (const [m, j] of injected) (inj[m] ??= new Array<number>(this.t.frame.length).fill(0))[i] = Number.isFinite(j) ? j : 0;
  }
  /** Findings of rows diagnosed on another thread (src/extension/model/parallelOpen.ts), in order, after the diagnoser's. */
  appendFindings(views: readonly FindingView[]): void {
    for (const v of views) this.appended.push(v);
  }
  /**
   * Rows `from` … (the frames before them a warm-up that another timeline has), with the injection columns of
   * `mechanisms` only, in that order: those the diagnosis reported in these rows, in the order it first did (a
   * column the warm-up alone made is not the other timeline's).
   */
  rowsFrom(from: number, mechanisms: readonly string[]): TimelineRows {
    const t = this.t;
    const sliced = (cols: Readonly<Record<string, readonly unknown[]>>): Record<string, unknown[]> => {
      const out = Object.create(null) as Record<string, unknown[]>;
      for (const [name, col] of Object.entries(cols)) out[name] = col.slice(from);
      return out;
    };
    const rows = sliced(Object.fromEntries(ROW_COLUMNS.map((k) => [k, t[k]]))) as unknown as Timeline;
    const texts = this.keyTexts();
    return {
      t: {
        ...rows,
        ledger: sliced(t.ledger) as Timeline['ledger'],
        injection: sliced(Object.fromEntries(mechanisms.map((m) => [m, t.injection?.[m] ?? []]))) as Timeline['injection'],
      },
      contacts: this.contacts.rowsFrom(from, (id) => texts[id]),
      injected: this.injectedByContact.rowsFrom(from),
    };
  }
  /** Appends another timeline's rowsFrom() of the frames after this one's (their contacts keyed in this one's table). */
  appendRows(r: TimelineRows): void {
    const t = this.t,
      n = t.frame.length,
      m = r.t.frame.length;
    for (const k of ROW_COLUMNS) {
      const col = t[k] as unknown[],
        more = (r.t[k] ?? []) as readonly unknown[];
      for (let i = 0; i < m; i++) col.push(more[i]);
    }
    appendNamed(t.ledger, n, r.t.ledger, m, null);
    appendNamed((t.injection ??= Object.create(null) as Record<string, number[]>), n, r.t.injection ?? {}, m, 0);
    const keys = this.diag?.keys;
    if (!keys) throw new Error('this timeline keys no contacts');
    this.contacts.append(r.contacts, (text) => keys.idOfText(text) ?? -1);
    this.injectedByContact.append(r.injected);
  }
  /** False: the frames are diagnosed elsewhere (addDiagnosis). */
  get diagnoses(): boolean {
    return this.diag !== null;
  }
  get resolveBudgetFrame(): number | null {
    return this.diag?.cost.exhaustedAt ?? null;
  }
  /** The contact keys' texts by id (what the contact columns refer to). */
  keyTexts(): string[] {
    const k = this.diag?.keys;
    return k ? Array.from({ length: k.size }, (_, i) => k.text(i)) : [];
  }
  findings(): FindingView[] {
    if (!this.diag) return [];
    const byFrame = new Map<number, number>();
    this.t.frame.forEach((fr, i) => {
      if (!byFrame.has(fr)) byFrame.set(fr, i);
    });
    return [...this.diag.findings.map((x) => toFindingView(x, byFrame.get(x.frame) ?? 0)), ...this.appended];
  }
  /** Findings found so far (the diagnosis' count). */
  get findingCount(): number {
    return this.diag?.findings.length ?? 0;
  }
  /** The findings from the k-th on, as views (a growing session: the ones its last frames added). */
  findingsFrom(k: number): FindingView[] {
    const frames = this.t.frame;
    const indexOf = (fr: number): number => {
      // frames strictly increase: binary search, newest first
      let lo = 0,
        hi = frames.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (frames[mid] === fr) return mid;
        if (frames[mid] < fr) lo = mid + 1;
        else hi = mid - 1;
      }
      return 0;
    };
    return (this.diag?.findings ?? []).slice(k).map((x) => toFindingView(x, indexOf(x.frame)));
  }
}
