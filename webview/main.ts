/**
 * Inspector webview entry: wires the protocol connection to the views. Data flow:
 *   ready → init (session, timeline, findings) → seek(index) → frame → table, matrix, convergence, cursor.
 * A frame change (frame message received → every view updated) is timed with performance.now() and the
 * figures exposed as window.__inspectorStats (the webview tests read them).
 */
import {
  type FindingView,
  type FrameView,
  type HostMessage,
  type InspectorCommand,
  type SessionInfo,
  type SessionSource,
  type Timeline,
  withIslandConditioning,
} from '../src/protocol/inspector.js';
import type { ProblemView } from '../src/protocol/problem.js';
import { Charts } from './charts.js';
import { ContactTable } from './contactTable.js';
import { FindingsList } from './findingsList.js';
import { energyReadout, frameReadout } from './format.js';
import { byId } from './dom.js';
import { StatusLine } from './statusLine.js';
import { FoldingPanels } from './foldingPanels.js';
import { HostConnection } from './hostConnection.js';
import { MatrixView } from './matrixView.js';
import { ProblemPanel } from './problemPanel.js';
import { SceneView, type SceneViewState } from './sceneView/sceneView.js';
import { Timeline as TimelineControls } from './timeline.js';
import { button, checkbox, checkedOf, registerToolkit } from './toolkit.js';
import { WhatIfPanel } from './whatIfPanel.js';
import { ComparePanel } from './comparePanel.js';
import { LiveBar } from './liveBar.js';
import { appendRows, applyDiagnosisPatch, type LiveUpdate, rowsFrom } from '../src/protocol/live.js';

export interface InspectorStats {
  /** Last frame update (ms): frame message event → data deserialised, validated, every view updated, style and layout done. */
  lastFrameUpdateMs: number;
  maxFrameUpdateMs: number;
  frameUpdates: number;
  /** Session index of the last frame view rendered (−1: none yet). */
  lastIndex: number;
  staleFrames: number;
  invalidMessages: number;
  /** Live sessions: updates received, and frames in the timeline after the last one. */
  liveUpdates: number;
  liveFrames: number;
  /**
   * Split of the last frame update (ms): message data deserialised, validation + readouts, table, heat
   * maps, charts (convergence + cursors), style and layout.
   */
  lastFrameParts: { data: number; receive: number; table: number; matrix: number; charts: number; layout: number; scene: number };
}

declare global {
  interface Window {
    __inspectorStats: InspectorStats;
  }
}

const stats: InspectorStats = {
  lastFrameUpdateMs: 0,
  maxFrameUpdateMs: 0,
  frameUpdates: 0,
  lastIndex: -1,
  staleFrames: 0,
  invalidMessages: 0,
  liveUpdates: 0,
  liveFrames: 0,
  lastFrameParts: { data: 0, receive: 0, table: 0, matrix: 0, charts: 0, layout: 0, scene: 0 },
};
window.__inspectorStats = stats;

class InspectorPage {
  private readonly conn: HostConnection;
  private readonly timeline: TimelineControls;
  private readonly charts: Charts;
  private readonly table: ContactTable;
  private readonly matrix = new MatrixView();
  private readonly findingsList: FindingsList;
  private readonly whatIf: WhatIfPanel;
  private readonly scene: SceneView;
  private readonly folding: FoldingPanels;
  private readonly compare: ComparePanel;
  /** Problem-file mode (a file with no bodies and one frame), created on the first problem message. */
  private problem: ProblemPanel | undefined;
  private problemView: ProblemView | undefined;
  private findings: readonly FindingView[] = [];
  private readonly errorBanner = byId('error');
  private readonly readout = byId('frame-readout');
  private readonly energyValues = byId('energy-values');
  private readonly statusLine = new StatusLine(byId('frame-status'));
  private source: SessionSource | undefined;
  private info: SessionInfo | undefined;
  private data: Timeline | undefined;
  private view: FrameView | undefined;
  /** Contact indices to select when the frame at `index` arrives (a clicked finding). */
  private pendingSelection: { index: number; contacts: readonly number[] } | undefined;
  /** The contact the λ chart shows by itself until the user picks one (set once per session). */
  private autoKey: string | undefined;
  private autoLabel = '';
  private seriesRequest = -1;
  private readonly liveBar: LiveBar;

  constructor() {
    this.conn = new HostConnection({
      message: (m, t0) => this.receive(m, t0),
      invalid: (text) => {
        stats.invalidMessages++;
        this.showError(text);
      },
    });
    this.timeline = new TimelineControls((i) => this.seek(i));
    this.liveBar = new LiveBar(
      (a) => this.conn.live(a),
      () => this.timeline.index >= (this.info?.frameCount ?? 0) - 1,
    );
    this.liveBar.mount(byId('timeline'));
    this.charts = new Charts((i) => this.timeline.goto(i));
    this.table = new ContactTable((keys) => this.selectionChanged(keys));
    this.findingsList = new FindingsList((f) => this.openFinding(f));
    this.whatIf = new WhatIfPanel(
      (o) => this.conn.whatIf(this.timeline.index, o),
      (i) => this.data?.frame[i] ?? i,
    );
    this.compare = new ComparePanel({
      goto: (i) => this.timeline.goto(i),
      crossWhatIf: (direction) => this.conn.crossWhatIf(this.timeline.index, direction),
      compareEngine: (engine) => this.conn.compareEngine(engine),
      frameOf: (i) => this.data?.frame[i] ?? i,
    });
    const absolute = checkbox('energy-absolute', 'absolute', false);
    absolute.title = 'show E, K, U in joules instead of their change since the first frame';
    absolute.addEventListener('change', () => this.charts.setEnergyRelative(!checkedOf(absolute)));
    byId('energy-tools').append(absolute);
    byId('frame-tools').append(
      button({ id: 'btn-export-json', label: 'JSON', title: 'Export this frame as JSON', onClick: () => this.conn.exportFrame(this.timeline.index, 'json') }),
      button({
        id: 'btn-export-csv',
        label: 'CSV',
        title: 'Export this frame’s contacts as CSV',
        onClick: () => this.conn.exportFrame(this.timeline.index, 'csv'),
      }),
    );
    const saved = this.conn.getState();
    this.folding = new FoldingPanels(document, Array.isArray(saved?.folded) ? saved.folded : [], () => this.saveState());
    this.scene = new SceneView(
      byId('panel-scene'),
      {
        pickContacts: (keys) => this.table.select(keys),
        stateChanged: () => this.saveState(),
        exportPng: (url) => this.conn.exportChart('scene', url),
      },
      saved?.sceneView as SceneViewState | undefined,
    );
    this.errorBanner.addEventListener('click', () => this.showError(''));
    new MutationObserver(() => {
      this.matrix.applyTheme();
      if (this.problemView) this.matrix.show([this.problemView.matrix], new Set());
      if (this.view) this.matrix.show(this.view.islands, this.selectedIndices());
    }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
    this.conn.start();
  }

  private receive(m: HostMessage, t0: number): void {
    switch (m.type) {
      case 'init':
        return this.init(m);
      case 'frame':
        return this.frame(m.view, t0);
      case 'conditioning': {
        // the shown frame's pending islands, computed after its view
        const v = this.view;
        if (!v || v.index !== m.index) return;
        this.view = withIslandConditioning(v, m.islands);
        return this.matrix.show(this.view.islands, this.selectedIndices());
      }
      case 'series':
        if (m.requestId === this.seriesRequest) this.charts.setSeries(m.series, this.labels());
        return;
      case 'whatIf':
        this.whatIf.show(m.requestId, m.result);
        return this.scene.setWhatIf(m.result.index === this.view?.index ? m.result : undefined);
      case 'command':
        return this.command(m.command);
      case 'progress':
        return this.progress(m.message, m.fraction);
      case 'error':
        this.whatIf.failed(m.requestId);
        this.compare.failed(m.requestId);
        return this.showError(m.message);
      case 'compare':
        this.compare.set(m.compare);
        this.timeline.setDivergence(m.compare?.divergence?.index ?? null);
        this.charts.setCompare(m.compare);
        // the current frame again, now with run b beside it
        if (this.info && this.info.frameCount > 0) this.conn.seek(this.timeline.index);
        return;
      case 'crossWhatIf':
        return this.compare.showCross(m.requestId, m.result);
      case 'engines':
        return this.compare.setEngines(m.engines);
      case 'problem':
        this.progress('', 1);
        this.problemView = m.view;
        (this.problem ??= new ProblemPanel()).show(m.view);
        this.scene.setScene(undefined, false);
        this.matrix.show([m.view.matrix], new Set());
        stats.frameUpdates++;
        stats.lastIndex = 0;
        return;
      case 'problemError':
        this.progress('', 1);
        this.problemView = undefined;
        (this.problem ??= new ProblemPanel()).showError(m.file, m.message);
        stats.frameUpdates++;
        return;
      case 'live':
        return this.liveUpdate(m);
    }
  }

  /**
   * A session that grows (./liveBar.ts): new rows go to the timeline and the findings at once, the charts are
   * redrawn at most every CHART_REDRAW_MS, and a view that showed the newest frame moves on to the new newest
   * (one frame view for a batch of frames: a flood is throttled for display); at a break it shows the frame
   * where the engine waits.
   */
  private liveUpdate(m: LiveUpdate): void {
    this.liveSeen = true;
    const t = this.data;
    const n = t?.frame.length ?? 0;
    const following = n === 0 || this.timeline.index >= n - 1;
    this.liveBar.update(m);
    stats.liveUpdates++;
    if (m.rows && t && this.info) {
      const rows = rowsFrom(m.rows, n);
      if (!rows) {
        if (m.rows.from > n) this.conn.ready(); // a gap: ask for the whole session again
      } else {
        appendRows(t, rows);
        this.info = { ...this.info, frameCount: t.frame.length };
        byId('session-meta').textContent = sessionMeta(this.info);
        stats.liveFrames = this.info.frameCount;
      }
    }
    // the diagnosis may come after its rows (it runs on a thread of its own): injection and findings on their own
    if (t && this.info && (m.rows || m.diagnosed || m.findings.length)) {
      if (m.diagnosed) applyDiagnosisPatch(t, m.diagnosed);
      const count = t.frame.length;
      const known = new Set(this.findings.map((f) => `${f.index}/${f.mechanism}/${f.contacts.join()}`));
      const fresh = m.findings.filter((f) => f.index < count && !known.has(`${f.index}/${f.mechanism}/${f.contacts.join()}`));
      if (fresh.length) {
        this.findings = [...this.findings, ...fresh];
        this.findingsList.set(this.findings);
      }
      this.timeline.grow(
        count,
        this.findings.map((f) => f.index),
      );
      this.scheduleCharts();
    }
    const count = this.info?.frameCount ?? 0;
    const paused = m.state.paused;
    if (paused && paused.frame !== this.pausedAt && paused.index < count) {
      this.pausedAt = paused.frame;
      this.timeline.goto(paused.index);
    } else if (!paused && following && count > n) this.followNewest(count - 1);
    if (!paused) this.pausedAt = -1;
    this.liveBar.render();
  }
  /** Frame number of the break shown (−1: none). */
  private pausedAt = -1;
  /** A live update has come: this page shows a live session. */
  private liveSeen = false;
  private chartTimer: number | undefined;
  private followTimer: number | undefined;
  private lastFollowSeek = 0;

  /**
   * Following: the slider and the readout move to the newest frame at once; its frame view (contacts, A, scene)
   * is asked for at most every FOLLOW_VIEW_MS, the newest one then (a flood does not queue frame views).
   */
  private followNewest(i: number): void {
    // an older frame view answered now would pull the view back to its frame (the e2e saw frame 24 at a break at 27)
    this.conn.supersedeSeeks();
    this.timeline.show(i);
    this.showReadouts(i);
    if (this.followTimer !== undefined) return;
    const wait = Math.max(0, FOLLOW_VIEW_MS - (performance.now() - this.lastFollowSeek));
    this.followTimer = window.setTimeout(() => {
      this.followTimer = undefined;
      this.lastFollowSeek = performance.now();
      this.seek(this.timeline.index);
    }, wait);
  }

  private scheduleCharts(): void {
    if (this.chartTimer !== undefined) return;
    this.chartTimer = window.setTimeout(() => {
      this.chartTimer = undefined;
      if (!this.data) return;
      this.charts.setTimeline(this.data, this.findings);
      this.charts.setCursor(this.timeline.index);
    }, CHART_REDRAW_MS);
  }

  private init(m: Extract<HostMessage, { type: 'init' }>): void {
    // (before this session replaces the old one: whether the page followed its newest frame)
    const wasFollowing = this.liveSeen && this.data !== undefined && this.timeline.index >= this.data.frame.length - 1;
    this.info = m.info;
    // a new session ends compare mode (the host sends `compare` again for it)
    this.compare.set(null);
    this.timeline.setDivergence(null);
    this.charts.setCompare(null);
    this.data = m.timeline;
    this.view = undefined;
    this.autoKey = undefined;
    this.findings = m.findings;
    const previous = this.source ?? this.conn.getState()?.source;
    this.scene.setScene(m.scene, previous !== undefined && sameSource(previous, m.source));
    this.source = m.source;
    byId('session-title').textContent = m.info.title;
    byId('session-meta').textContent = sessionMeta(m.info);
    document.title = `Contact Lens: ${m.info.title}`;
    this.progress('', 1);
    // a live session's page that followed the newest frame keeps following, and the break it showed is shown
    // again when the live state follows this init (the host re-sends it on ready)
    this.pausedAt = -1;
    const want = wasFollowing ? m.info.frameCount - 1 : m.index;
    const index = Math.min(Math.max(0, want), Math.max(0, m.info.frameCount - 1));
    this.timeline.configure(
      m.info.frameCount,
      m.findings.map((f) => f.index),
      m.settings.playbackFps,
      index,
    );
    this.charts.setTimeline(m.timeline, m.findings);
    this.findingsList.set(m.findings);
    const saved = this.conn.getState();
    const keys = saved && sameSource(saved.source, m.source) ? saved.selectedContacts : [];
    this.table.select(keys, false);
    if (keys.length) this.requestSeries(keys);
    else this.charts.setSeries([], new Map());
    if (m.info.frameCount > 0) this.seek(index);
    else this.readout.textContent = 'no frames';
    if (m.play && m.info.frameCount > 1 && !this.timeline.playing) this.timeline.togglePlay();
  }

  /** The user (or playback) moved to session index i: ask for the frame, update the cheap readouts now. */
  private seek(i: number): void {
    this.conn.seek(i);
    this.showReadouts(i);
    this.saveState();
    this.liveBar.render(); // following the newest frame, or scrubbed back
  }

  private showReadouts(i: number): void {
    const t = this.data,
      info = this.info;
    if (!t || !info || i >= t.frame.length) return;
    this.readout.textContent = frameReadout(t.frame[i], info.frameCount, t.time[i]);
    this.energyValues.textContent = energyReadout(t.kinetic[i], t.potential[i], t.total[i], t.total[0], t.frame[0]);
    this.energyValues.title = `E = ${t.total[i]} J · K = ${t.kinetic[i]} J · U = ${t.potential[i]} J (frame ${t.frame[i]}, full precision)`;
    this.findingsList.highlight(i);
  }

  private frame(v: FrameView, t0: number): void {
    if (!this.info) return;
    this.view = v;
    if (v.index !== this.timeline.index) this.timeline.show(v.index);
    this.showReadouts(v.index);
    this.readout.textContent = frameReadout(v.frame, this.info.frameCount, v.time);
    const t1 = performance.now();
    const fc = v.compare;
    this.table.setContacts(fc ? v.contacts.map((c, k) => ({ ...c, compare: fc.contacts[k] })) : v.contacts);
    this.compare.frame(fc, v.index);
    byId('contacts-count').textContent = `(${v.contacts.length})`;
    const pending = this.pendingSelection;
    if (pending && pending.index === v.index) {
      this.pendingSelection = undefined;
      const keys = v.contacts.filter((c) => pending.contacts.includes(c.index)).map((c) => c.key);
      if (keys.length) this.table.select(keys);
    } else if (this.table.selected.size === 0 && this.autoKey === undefined && v.contacts.length > 0) {
      // Nothing picked yet: plot the contact carrying the largest λn so the λ chart is not empty
      // (a chart default, not a selection: the table stays unselected until the user picks).
      const top = v.contacts.reduce((a, c) => (c.lambdaN > a.lambdaN ? c : a));
      this.autoKey = top.key;
      this.autoLabel = `#${top.index} ${top.bodyA}–${top.bodyB} (largest λn)`;
      this.requestSeries([top.key]);
    }
    const t2 = performance.now();
    this.matrix.show(v.islands, this.selectedIndices());
    const t3 = performance.now();
    this.charts.setConvergence(v.residuals);
    this.charts.setCursor(v.index);
    const t4 = performance.now();
    this.scene.setSelection(this.selectedIndices(), this.findingContacts(v.index), false);
    this.scene.clearWhatIf();
    this.scene.setFrame(v);
    const t4s = performance.now();
    this.statusLine.show(v);
    this.whatIf.clear();
    // Style and layout now (the browser would do them before the next paint anyway), so the figure is the
    // whole update and not only its script part.
    const t5 = performance.now();
    void document.body.offsetHeight;
    const t6 = performance.now();
    stats.lastFrameParts = {
      data: this.conn.lastDataMs,
      receive: t1 - t0 - this.conn.lastDataMs,
      table: t2 - t1,
      matrix: t3 - t2,
      charts: t4 - t3,
      layout: t6 - t5,
      scene: t4s - t4,
    };
    const ms = t6 - t0;
    stats.lastFrameUpdateMs = ms;
    stats.maxFrameUpdateMs = Math.max(stats.maxFrameUpdateMs, ms);
    stats.frameUpdates++;
    stats.lastIndex = v.index;
    stats.staleFrames = this.conn.staleFrames;
  }

  private command(c: InspectorCommand): void {
    switch (c.name) {
      case 'step':
        return this.timeline.step(c.delta);
      case 'goto':
        return this.timeline.goto(c.index);
      case 'togglePlay':
        return this.timeline.togglePlay();
      case 'finding':
        return this.timeline.finding(c.direction);
      case 'exportChart':
        return this.conn.exportChart('energy', this.charts.energyPng());
      case 'divergence':
        return this.timeline.gotoDivergence();
      case 'exportSceneView': {
        const url = this.scene.png();
        return url ? this.conn.exportChart('scene', url) : this.showError('the scene view has no picture (WebGL could not start)');
      }
      default:
        this.showError(`unknown command ${JSON.stringify((c as { name: unknown }).name)}`);
    }
  }

  private openFinding(f: FindingView): void {
    this.pendingSelection = { index: f.index, contacts: f.contacts };
    if (f.index === this.timeline.index && this.view?.index === f.index) {
      this.frame(this.view, performance.now());
    } else {
      this.timeline.goto(f.index);
    }
  }

  private selectionChanged(keys: readonly string[]): void {
    if (keys.length) this.requestSeries(keys);
    else {
      this.seriesRequest = -1;
      this.charts.setSeries([], new Map());
    }
    if (this.view) this.matrix.show(this.view.islands, this.selectedIndices());
    if (this.view) this.scene.setSelection(this.selectedIndices(), this.findingContacts(this.view.index));
    this.saveState();
  }

  /** Contacts named by the findings on session index i (highlighted in the scene view). */
  private findingContacts(i: number): Set<number> {
    return new Set(this.findings.filter((f) => f.index === i).flatMap((f) => f.contacts));
  }

  private requestSeries(keys: readonly string[]): void {
    this.seriesRequest = this.conn.series(keys);
  }

  private selectedIndices(): Set<number> {
    const out = new Set<number>();
    for (const c of this.view?.contacts ?? []) if (this.table.selected.has(c.key)) out.add(c.index);
    return out;
  }

  /** Legend labels for the λ chart: "#index A–B" in the current frame, else the key. */
  private labels(): Map<string, string> {
    const m = new Map<string, string>();
    for (const c of this.view?.contacts ?? []) if (this.table.selected.has(c.key)) m.set(c.key, `#${c.index} ${c.bodyA}–${c.bodyB}`);
    if (this.table.selected.size === 0 && this.autoKey !== undefined) m.set(this.autoKey, this.autoLabel);
    return m;
  }

  private saveState(): void {
    if (this.source)
      this.conn.setState({
        source: this.source,
        index: this.timeline.index,
        selectedContacts: [...this.table.selected],
        sceneView: { ...this.scene.state },
        folded: this.folding.folded,
      });
  }

  private showError(text: string): void {
    this.errorBanner.textContent = text;
    this.errorBanner.hidden = text === '';
  }

  private progress(message: string, fraction: number | null): void {
    const box = byId('progress');
    const done = message === '' || fraction === 1;
    box.hidden = done;
    byId('progress-text').textContent = message;
    const bar = byId<HTMLProgressElement>('progress-bar');
    if (fraction === null) bar.removeAttribute('value');
    else bar.value = fraction;
  }
}

/** Redraws of the time charts while a live session grows: at most one per this many ms. */
const CHART_REDRAW_MS = 200;
/** Frame views asked for while following a live session: at most one per this many ms (the newest frame). */
const FOLLOW_VIEW_MS = 50;

function sessionMeta(info: SessionInfo): string {
  return `${info.source} · ${info.producer} · ${info.frameCount} frames · dt = ${info.dt.toPrecision(4)} s · ${info.file}`;
}

function sameSource(a: SessionSource, b: SessionSource): boolean {
  return a.kind === b.kind && a.file === b.file && (a.kind !== 'scenario' || (b.kind === 'scenario' && a.scenario === b.scenario));
}

function start(): void {
  try {
    registerToolkit();
    new InspectorPage();
  } catch (err) {
    const e = document.getElementById('error');
    if (e) {
      e.textContent = `inspector failed to start: ${err instanceof Error ? err.message : String(err)}`;
      e.hidden = false;
    }
    throw err;
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
