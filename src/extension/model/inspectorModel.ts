/**
 * The inspector's data: a Session plus the per-frame timeline and the diagnosis, turned into protocol views
 * (src/protocol/inspector.ts). Pure: no vscode, no DOM — it runs in the simulation worker and in plain Node
 * tests. The timeline and the findings come from ONE streaming pass (the scenario's first simulation, or
 * one read of the recording); frame views, contact series and what-ifs are computed on demand.
 */
import { type FrameDetail, Session } from '../../session/session.js';
import { type AppendedFrame, GrowingRecording, type LinePlace } from '../../session/growingRecording.js';
import { RecordingReader } from '../../format/recordingFile.js';
import { Diagnoser, type DiagnosisOptions } from '../../session/diagnose.js';
import { contactKeyText } from '../../session/contactKeys.js';
import { ContactColumns, InjectedColumns } from './contactColumns.js';
import { notRecorded, solverKind, statusMeaning } from '../../session/solverDeclarations.js';
import { hypot2Exact, type ScenarioDesc } from '../../engine/index.js';
import { scenarioDiagnosis } from '../../session/diagnosisRun.js';
import type { CacheOptions } from '../../format/sidecarCache.js';
import type { RecordedFrame } from '../../format/recording.js';
import { withIslandConditioning } from '../../protocol/inspector.js';
import type {
  ContactSeries,
  ContactView,
  FindingView,
  FrameView,
  IslandConditioningView,
  SessionInfo,
  Timeline,
  WhatIfOptions,
  WhatIfView,
} from '../../protocol/inspector.js';
import { islandConditioning, islandViews, pendingIslands } from './islandViews.js';
import type { SceneInfo } from '../../protocol/scene.js';
import { sceneFrame, sceneInfo } from './sceneData.js';
import { type FrameDiagnosisResult, TimelineBuilder } from './timelineBuilder.js';
export { type FrameDiagnosisResult, TIMELINE_KAPPA_ISLANDS, TIMELINE_KAPPA_MAX_CONTACTS, TimelineBuilder, toFindingView } from './timelineBuilder.js';
import { contactState } from '../../session/contactState.js';
import { whatIfView } from './whatIfView.js';
import { finishParallelOpen, type InspectorParallelOptions, type InspectorStretch, PARALLEL_OPEN, timelineStretchThread } from './parallelOpen.js';
import { ParallelStretch, type ParallelOutcome } from '../../session/stretch/parallelStretch.js';

/** Checkpoint interval of inspector sessions: seeking re-simulates at most this many − 1 steps. */
export const INSPECTOR_CHECKPOINT_EVERY = 10;
export { SERIES_MAX_POINTS } from './contactColumns.js';
/**
 * Frame views kept (most recently used): going back to a frame costs nothing. A view of the 1000-box pile's
 * busiest frame (6558 contacts) holds ≈ 4 MiB of heap (its rows), a frame with 70 large islands ≈ 1.6 MiB of
 * heat maps: the cache stays within ≈ 25 MiB.
 */
export const FRAME_VIEW_CACHE_SIZE = 4;

export type Progress = (message: string, fraction: number | null) => void;

/** The inspector's section of a recording's sidecar cache, per diagnosis settings (they change the findings). */
const inspectorSection = (diagnosis: Partial<DiagnosisOptions>): string =>
  `inspector:${JSON.stringify(Object.entries(diagnosis).sort(([a], [b]) => a.localeCompare(b)))}`;

/** What the inspector's cache section holds besides its columns. */
interface InspectorCacheJson {
  readonly timeline: Timeline;
  readonly findings: FindingView[];
  readonly keys: readonly string[];
  readonly resolveBudgetFrame: number | null;
}

const finiteOrNull = (x: number | undefined): number | null => (x !== undefined && Number.isFinite(x) ? x : null);

export class InspectorModel {
  private constructor(
    readonly session: Session,
    /** frameCount grows with append() (a recording still being written). */
    public info: SessionInfo,
    readonly timeline: Timeline,
    readonly findings: FindingView[],
    /** Recording lines skipped while indexing (bad JSON, NaN, truncated last line), "file: line N: …". */
    readonly skipped: readonly string[],
    private readonly contactColumns: ContactColumns,
    private readonly injectedByContact: InjectedColumns = new InjectedColumns(),
    /** First frame whose islands the diagnosis left unsolved because its re-solve budget ran out (null: none). */
    private resolveBudgetFrame: number | null = null,
  ) {
    this.scene = sceneInfo(session.header);
  }

  /** Body shapes for the scene view (sent with init). */
  readonly scene: SceneInfo;
  /** The streaming pass's state and the session's frame source, kept when the session can grow (append()). */
  private growth: { readonly builder: TimelineBuilder; readonly source: GrowingRecording } | null = null;

  /**
   * A model whose session grows (a recording still being written, src/session/growingRecording.ts): the timeline
   * and the diagnosis go on from `builder` (which has seen the source's frames), one append() per new frame.
   */
  static growing(source: GrowingRecording, info: SessionInfo, builder: TimelineBuilder, skipped: readonly string[] = []): InspectorModel {
    const m = new InspectorModel(
      Session.fromSource(source),
      info,
      builder.t,
      builder.findings(),
      skipped,
      builder.contacts,
      builder.injectedByContact,
      builder.resolveBudgetFrame,
    );
    m.growth = { builder, source };
    if (!builder.diagnoses) m.diagnosed = 0; // diagnosed elsewhere: applyDiagnosis brings each frame's
    return m;
  }

  /** True when append() can add frames (a plain recording, a live stream). */
  get canGrow(): boolean {
    return this.growth !== null;
  }

  /**
   * Adds the next frame, read from the file at `at`, to the session, the timeline and the diagnosis, and returns
   * the findings it added. Cached frame views stay valid: a frame's view depends only on it and the frames
   * before it, except for the re-solve budget note, which only appears on later frames.
   */
  append(f: RecordedFrame, at: LinePlace, options: { readonly kappa?: boolean } = {}): FindingView[] {
    if (!this.growth) throw new Error('this session does not grow');
    const b = this.growth.builder;
    this.growth.source.append(f, at);
    const k = b.findingCount;
    b.add(f, options.kappa ?? true);
    const added = b.findingsFrom(k);
    for (const x of added) this.findings.push(x);
    this.resolveBudgetFrame = b.resolveBudgetFrame;
    this.info = { ...this.info, frameCount: this.session.frameCount };
    return added;
  }
  /**
   * Adds the next frame to the session and the timeline without diagnosing it (a live stream, whose diagnosis
   * runs on a thread of its own: applyDiagnosis brings it in, in order). Its view is not cached until then.
   */
  appendUndiagnosed(f: RecordedFrame, at: LinePlace, options: { readonly kappa?: boolean } = {}): void {
    if (!this.growth) throw new Error('this session does not grow');
    this.growth.source.append(f, at);
    this.growth.builder.addRow(f, options.kappa ?? true);
    this.info = { ...this.info, frameCount: this.session.frameCount };
  }

  /**
   * Adds the next frame to the session only, as another thread read it (a live stream's frame views,
   * src/extension/live/viewThread.ts): this model answers frame views; its timeline stays the reading thread's.
   */
  appendIndexed(a: AppendedFrame): void {
    if (!this.growth) throw new Error('this session does not grow');
    this.growth.source.appendIndexed(a);
    this.info = { ...this.info, frameCount: this.session.frameCount };
  }

  /** Frames diagnosed so far (the first ones; the rest wait for applyDiagnosis). */
  get diagnosedCount(): number {
    return this.diagnosed ?? this.session.frameCount;
  }
  private diagnosed: number | null = null;

  /** The diagnosis of session position d.index (the next one not diagnosed), from the diagnosis thread. */
  applyDiagnosis(d: FrameDiagnosisResult): void {
    const b = this.nextDiagnosis(d.index);
    b.addDiagnosis(d.index, d.injected, new Map(d.byContact), d);
    for (const x of d.findings) this.findings.push(x);
    this.diagnosisApplied(d);
  }

  /**
   * What a frame view needs of the diagnosis of position d.index, for a model without rows (appendIndexed: a live
   * stream's frame-view thread): the injection by contact and the re-solve budget.
   */
  applyViewDiagnosis(d: Pick<FrameDiagnosisResult, 'index' | 'byContact' | 'resolveBudgetFrame'>): void {
    this.nextDiagnosis(d.index).injectedByContact.add(new Map(d.byContact));
    this.diagnosisApplied(d);
  }

  /** The timeline builder, once `index` is checked to be the next position not diagnosed. */
  private nextDiagnosis(index: number): TimelineBuilder {
    if (!this.growth) throw new Error('this session does not grow');
    const next = this.diagnosed ?? 0;
    if (index !== next) throw new Error(`diagnosis of position ${index} arrived, position ${next} was expected`);
    return this.growth.builder;
  }

  private diagnosisApplied(d: Pick<FrameDiagnosisResult, 'index' | 'resolveBudgetFrame'>): void {
    this.resolveBudgetFrame = d.resolveBudgetFrame;
    this.diagnosed = d.index + 1;
    for (const mode of ['estimate', 'exact']) this.views.delete(`${d.index}/${mode}`);
  }

  /** LRU of frame views by "index/estimate|exact" (Map iteration order is insertion order). */
  private readonly views = new Map<string, FrameView>();

  /** Simulates a scenario (our engine) and diagnoses it in the same pass. */
  static fromScenario(desc: ScenarioDesc, file: string, diagnosis: Partial<DiagnosisOptions> = {}, progress?: Progress): InspectorModel {
    const probe = scenarioDiagnosis(desc, { ...diagnosis, keepFrames: false });
    const builder = new TimelineBuilder(probe.header, probe.diagnoser);
    const every = Math.max(1, Math.floor(desc.frames / 50));
    const session = Session.fromScenario(desc, {
      checkpointEvery: INSPECTOR_CHECKPOINT_EVERY,
      onFrame: (k, f) => {
        builder.add(f);
        if (progress && (k + 1) % every === 0) progress(`simulating ${desc.name}: frame ${k + 1} / ${desc.frames}`, (k + 1) / desc.frames);
      },
    });
    const info: SessionInfo = {
      title: desc.name,
      source: 'scenario',
      file,
      producer: 'contact-lens (this engine)',
      frameCount: session.frameCount,
      dt: session.header.dt,
      bodies: session.header.bodies.map((b) => b.name),
    };
    return new InspectorModel(session, info, builder.t, builder.findings(), [], builder.contacts, builder.injectedByContact, builder.resolveBudgetFrame);
  }

  /**
   * Opens a recording (ours or another engine's): ONE streaming pass indexes it and builds the timeline and the
   * diagnosis — or, when the recording's sidecar cache holds them for these diagnosis settings, no pass at all.
   */
  static async fromRecording(
    file: string,
    diagnosis: Partial<DiagnosisOptions> = {},
    progress?: Progress,
    signal?: AbortSignal,
    cache: CacheOptions = { mode: 'off' },
    parallelOpen: InspectorParallelOptions | null = PARALLEL_OPEN,
  ): Promise<InspectorModel> {
    let builder: TimelineBuilder | null = null;
    // a large plain recording's later stretch is read on a thread of its own (./parallelOpen.ts)
    let parallel: InspectorStretch | null = null;
    const split = (): InspectorStretch | null => parallel;
    const section = inspectorSection(diagnosis);
    const name = file.split(/[\\/]/).pop();
    const told = (read: number, total: number, where = ''): void =>
      progress?.(`reading ${name}: ${(read / 2 ** 20).toFixed(0)} / ${(total / 2 ** 20).toFixed(0)} MiB${where}`, total > 0 ? Math.min(1, read / total) : null);
    let reader: RecordingReader;
    try {
      reader = await RecordingReader.open(file, {
        signal,
        cache,
        needsFrames: (c) => !c.get(section),
        onProgress: (read, total) => told(read, total),
        onFrame: (_, f, header) => {
          if (!builder) {
            const diag = new Diagnoser(header, { ...diagnosis, keepFrames: false });
            builder = new TimelineBuilder(header, diag);
            parallel = parallelOpen ? ParallelStretch.start(file, header, diagnosis, diag, parallelOpen, timelineStretchThread, signal) : null;
            if (parallel) parallel.onProgress = (bytes, size) => told(bytes, Math.max(size, bytes), ' (the second half on a second thread)');
          }
          builder.add(f);
          split()?.diagnosedHere();
        },
        stretch: {
          cutAt: () => split()?.cutAt() ?? Number.POSITIVE_INFINITY,
          rest: (cut, indexed) => split()?.rest(cut, indexed) ?? Promise.resolve(null),
        },
      });
    } catch (e) {
      split()?.close();
      throw e;
    }
    const p = split();
    const finished = builder && p ? finishParallelOpen(p, builder) : undefined;
    const opened: ParallelOutcome = finished?.outcome ?? { kind: 'one-thread' };
    const source = new GrowingRecording(file, reader.header, reader);
    const session = Session.fromSource(source);
    const n = session.frameCount;
    const h = session.header;
    const info: SessionInfo = {
      title: file.split(/[\\/]/).pop() ?? file,
      source: 'recording',
      file,
      producer: `${h.producer.name}${h.producer.version ? ' ' + h.producer.version : ''}${h.converted?.length ? ` (converted on read: ${h.converted.join('; ')})` : ''}${notRecorded(h) ? ` (λ: ${notRecorded(h)})` : ''}`,
      frameCount: n,
      dt: h.dt,
      bodies: h.bodies.map((b) => b.name),
    };
    const skipped = reader.errors.map((e) => e.message);
    const kept = reader.fromCache ? reader.cache.get(section) : undefined;
    if (kept) {
      const j = kept.json as InspectorCacheJson;
      const a = kept.arrays as Record<string, Int32Array & Float64Array>;
      const contacts = ContactColumns.fromCache(j.keys, { key: a.key, ln: a.ln, lt: a.lt, frameStart: a.frameStart });
      const injected = InjectedColumns.fromCache({ contact: a.injContact, joules: a.injJoules, frameStart: a.injFrameStart });
      // the ledger and injection columns are keyed by the recording's own names: no prototype, as when built
      const noProto = <T extends object>(o: T | undefined): T | undefined => (o ? Object.assign(Object.create(null) as T, o) : o);
      const timeline = { ...j.timeline, ledger: noProto(j.timeline.ledger)!, ...(j.timeline.injection ? { injection: noProto(j.timeline.injection) } : {}) };
      return new InspectorModel(session, info, timeline, j.findings, skipped, contacts, injected, j.resolveBudgetFrame).buildingFrameStore(reader);
    }
    builder ??= new TimelineBuilder(session.header, new Diagnoser(session.header, { ...diagnosis, keepFrames: false }));
    const built = builder as TimelineBuilder;
    const findings = built.findings();
    const budgetFrame = finished ? finished.resolveBudgetFrame : built.resolveBudgetFrame;
    if (reader.cache.enabled) {
      const c = built.contacts.toCache(built.keyTexts());
      const inj = built.injectedByContact.toCache();
      const json: InspectorCacheJson = { timeline: built.t, findings, keys: c.keys, resolveBudgetFrame: budgetFrame };
      reader.cache.set(section, {
        json,
        arrays: { ...c.arrays, injContact: inj.contact, injJoules: inj.joules, injFrameStart: inj.frameStart },
      });
      reader.cache.save();
    }
    const m = new InspectorModel(session, info, built.t, findings, skipped, built.contacts, built.injectedByContact, budgetFrame);
    m.opened = opened;
    // a plain recording can be followed as it grows (append()); a compressed or cached one is shown as it was, and
    // so is one whose last frames were diagnosed on another thread (its diagnosis cannot go on here)
    if (!reader.compressed && opened.kind !== 'two-threads') m.growth = { builder: built, source };
    return m.buildingFrameStore(reader);
  }

  /**
   * Settles when the recording's frame store, built after the open (RecordingReader.buildFrameStore: when the cache
   * options ask for one and there is none yet), is in place: true when one was built. Frame reads parse their lines
   * until then; a view asked meanwhile waits for at most one frame of the build.
   */
  frameStoreReady: Promise<boolean> = Promise.resolve(false);
  /** How the open's diagnosis was made: on one thread or two (./parallelOpen.ts); one when it came from the cache. */
  opened: ParallelOutcome = { kind: 'one-thread' };
  private readonly storeAbort = new AbortController();

  private buildingFrameStore(reader: RecordingReader): this {
    this.frameStoreReady = reader.buildFrameStore({ signal: this.storeAbort.signal });
    return this;
  }

  /**
   * Everything the webview shows for frame i. The islands' κ is the fast estimate of
   * session/conditioningEstimate.ts unless `exactConditioning` asks for every island's eigenvalues.
   */
  frameView(i: number, options: { readonly exactConditioning?: boolean } = {}): FrameView {
    // a view depends only on the frame and on what the open computed (diagnosis, budget): cache it
    const key = `${i}/${options.exactConditioning ? 'exact' : 'estimate'}`;
    const hit = this.views.get(key);
    if (hit) {
      this.views.delete(key);
      this.views.set(key, hit);
      return hit;
    }
    const exact = options.exactConditioning === true;
    const d = this.session.detail(i, { conditioning: 'none' });
    const pending = pendingIslands(d, exact);
    const view = this.buildFrameView(i, d, pending, exact);
    // the detail's assembled A is kept for the pending islands' conditioning, asked for next
    this.pendingDetail = pending.includes(true) ? { key, detail: d } : null;
    if (i >= this.diagnosedCount) return view; // its injection is still to come
    this.views.set(key, view);
    if (this.views.size > FRAME_VIEW_CACHE_SIZE) this.views.delete(this.views.keys().next().value as string);
    return view;
  }

  /** The last frame view's detail when some of its islands' conditioning was left pending. */
  private pendingDetail: { readonly key: string; readonly detail: FrameDetail } | null = null;

  /**
   * The conditioning of the islands that frameView(i) left pending (empty when none), in island order; the
   * cached view gets it, so that the frame shown again is complete.
   */
  conditioning(i: number, options: { readonly exactConditioning?: boolean } = {}): IslandConditioningView[] {
    const exact = options.exactConditioning === true;
    const key = `${i}/${exact ? 'exact' : 'estimate'}`;
    const d = this.pendingDetail?.key === key ? this.pendingDetail.detail : this.session.detail(i, { conditioning: 'none' });
    const pending = pendingIslands(d, exact);
    const out: IslandConditioningView[] = [];
    for (let k = 0; k < d.islands.length; k++) {
      if (!pending[k]) continue;
      const c = islandConditioning(d.islands[k], exact);
      if (c) out.push({ island: k, ...c });
    }
    if (this.pendingDetail?.key === key) this.pendingDetail = null;
    const cached = this.views.get(key);
    if (cached && out.length > 0) this.views.set(key, withIslandConditioning(cached, out));
    return out;
  }

  /** Forgets the cached frame views (benchmarks time views computed from disk). */
  forgetFrameViews(): void {
    this.views.clear();
  }

  /**
   * The view of frame i from its detail d (Session.detail with conditioning 'none'): the islands' conditioning
   * computed here, exact or estimated, except for the islands `pending` leaves for later.
   */
  private buildFrameView(i: number, d: FrameDetail, pending: readonly boolean[], exact: boolean): FrameView {
    const s = this.session;
    const f = s.frame(i);
    // header.solver is free-form (docs/recording-format.md): only a finite number counts
    const rv = s.header.solver?.restVelocityThreshold;
    const rest = typeof rv === 'number' && Number.isFinite(rv) ? rv : 0.5;
    // per contact, as columns: its island's bias part of b_n (rhs decomposition of the re-assembled problem)
    // and its velocities before/after the impulse (from the same assembly); a contact between two static
    // bodies belongs to no island and moves at zero velocity whenever the frame's pre-solve state is known
    const C = d.contacts.length;
    const biasOf = new Float64Array(C).fill(NaN);
    const known = new Uint8Array(C); // 1: the contact's kinematics below are known
    const vnBefore = new Float64Array(C),
      gAfter = new Float64Array(3 * C),
      mEff = new Float64Array(C);
    for (const isl of d.islands) {
      const cs = isl.contacts,
        rhs = isl.rhs,
        kin = isl.kinematics;
      for (let j = 0; j < cs.length; j++) {
        const c = cs[j];
        if (rhs) biasOf[c] = rhs.bias[3 * j];
        if (kin) {
          known[c] = 1;
          vnBefore[c] = kin.gBefore[3 * j];
          gAfter[3 * c] = kin.gAfter[3 * j];
          gAfter[3 * c + 1] = kin.gAfter[3 * j + 1];
          gAfter[3 * c + 2] = kin.gAfter[3 * j + 2];
          mEff[c] = kin.mEff[j];
        }
      }
    }
    // a contact between two static bodies: no Jacobian, zero velocities and effective mass (the columns' zeros)
    if (!d.reason) for (let k = 0; k < C; k++) if (d.contacts[k].island < 0) known[k] = 1;
    const injected = this.injectedByContact.frame(i);
    const contacts: ContactView[] = new Array(C);
    for (let k = 0; k < C; k++) {
      const c = d.contacts[k];
      const ln = c.lambda[0],
        l1 = c.lambda[1],
        l2 = c.lambda[2];
      const lt = hypot2Exact(l1, l2);
      const g = known[k] === 1;
      const bias = biasOf[k];
      // open / stick / slip from the post-step velocity w = ġ⁺ when it is known (./contactState.ts)
      const state = contactState(
        ln,
        lt,
        c.mu,
        g ? { normal: gAfter[3 * k], slip: hypot2Exact(gAfter[3 * k + 1], gAfter[3 * k + 2]), depth: c.depth, dt: s.header.dt } : null,
      );
      const approach = g ? -vnBefore[k] : 0;
      const target = g ? (approach > rest ? c.e * approach : 0) : 0;
      contacts[k] = {
        index: k,
        key: contactKeyText(c),
        island: c.island,
        bodyA: c.bodyA,
        bodyB: c.bodyB,
        point: [c.point[0], c.point[1], c.point[2]],
        normal: [c.normal[0], c.normal[1], c.normal[2]],
        depth: c.depth,
        mu: c.mu,
        e: c.e,
        lambdaN: ln,
        lambdaT: lt,
        state,
        vnBefore: g ? vnBefore[k] : null,
        vnAfter: g ? gAfter[3 * k] : null,
        excess: g ? gAfter[3 * k] - target : null,
        frictionPower: g ? l1 * gAfter[3 * k + 1] + l2 * gAfter[3 * k + 2] : null,
        biasVelocity: Number.isNaN(bias) ? null : bias,
        biasImpulse: Number.isNaN(bias) || !g ? null : bias * mEff[k],
        coneViolation: Math.max(0, lt - c.mu * ln),
        injected: injected?.get(k) ?? 0,
      };
    }
    const islands = islandViews(d, pending, exact);
    return {
      index: i,
      frame: f.frame,
      time: f.time,
      status: f.solver.status,
      solver: f.solver.name,
      iterations: finiteOrNull(f.solver.iterations),
      residuals: (f.solver.residuals ?? []).filter((x) => Number.isFinite(x)),
      contacts,
      islands,
      notes: [
        ...d.notes,
        ...(solverKind(s.header) === 'iterative-fixed' ? [statusMeaning('iterative-fixed', f.solver.status)] : []),
        ...(this.resolveBudgetFrame !== null && f.frame >= this.resolveBudgetFrame
          ? [
              `diagnosis: the exact re-solve budget ran out at frame ${this.resolveBudgetFrame}; findings from there on rest on the energy ledger alone (the CLI's contact-lens diagnose re-solves ten times more)`,
            ]
          : []),
      ],
      scene: sceneFrame(this.scene.bodies.length, f),
    };
  }

  /** λn and ‖λt‖ over time for the contacts with these keys (sampled to SERIES_MAX_POINTS frames). */
  series(keys: readonly string[]): ContactSeries[] {
    return this.contactColumns.series(keys, this.session.frameCount);
  }

  /** Re-solves frame i with another solver/options and compares with what was recorded. */
  whatIf(i: number, options: WhatIfOptions): WhatIfView {
    return whatIfView(this.session, i, options);
  }

  /** Frame i as JSON (the whole view) or CSV (one row per contact). */
  exportFrame(i: number, format: 'json' | 'csv'): string {
    if (format === 'json') {
      // the whole view with every island's exact conditioning and its A at full precision instead of the heat
      // map's colour levels; one exact detail serves both. The scene view's poses stay out (solver data only).
      const detail = this.session.detail(i, { conditioning: 'none' });
      const { scene: _scene, ...v } = this.buildFrameView(
        i,
        detail,
        detail.islands.map(() => false),
        true,
      );
      const islands = v.islands.map(({ heat: _heat, ...isl }, k) => {
        const p = detail.islands[k].problem;
        return { ...isl, A: p ? Array.from(p.A.subarray(0, p.size * p.size)) : null };
      });
      return JSON.stringify({ ...v, islands }, null, 2) + '\n';
    }
    // CSV: the contact rows, which do not depend on the conditioning: the view as shown (usually cached)
    const v = this.frameView(i);
    const cols: (keyof ContactView)[] = [
      'index',
      'bodyA',
      'bodyB',
      'depth',
      'mu',
      'e',
      'lambdaN',
      'lambdaT',
      'state',
      'vnBefore',
      'vnAfter',
      'excess',
      'frictionPower',
      'biasVelocity',
      'biasImpulse',
      'coneViolation',
    ];
    const lines = [['frame', 'time', ...cols, 'px', 'py', 'pz', 'nx', 'ny', 'nz'].join(',')];
    for (const c of v.contacts) {
      const cell = (x: unknown): string => (x === null ? '' : typeof x === 'string' && /[",\n]/.test(x) ? `"${x.replace(/"/g, '""')}"` : String(x));
      lines.push([v.frame, v.time, ...cols.map((k) => c[k]), ...c.point, ...c.normal].map(cell).join(','));
    }
    return lines.join('\n') + '\n';
  }

  close(): void {
    this.storeAbort.abort();
    this.views.clear();
    this.pendingDetail = null;
    this.session.close();
  }
}
