/**
 * A recording that grows while the inspector shows it: read as it is appended (RecordingFollower), each new
 * frame added to the session's index, the timeline and the diagnosis (InspectorModel.append: nothing already
 * read is read or diagnosed again), and the news sent to the extension host at most every UPDATE_MS, so a
 * flood of frames is throttled for display while every frame is still read and diagnosed. The file is the
 * queue: a live writer's lines are on disk before they are read here, so memory stays flat when the
 * diagnosis falls behind, and work is done in slices of at most SLICE_MS so the worker keeps answering.
 */
import * as fs from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { RecordingFollower, type FollowEvent, type FollowResume } from '../../format/recordingFollow.js';
import { LIVE_MAX_LINE_BYTES } from '../../format/liveProtocol.js';
import type { RecordingHeader } from '../../format/recording.js';
import { type AppendedFrame, appendedFrame, GrowingRecording } from '../../session/growingRecording.js';
import { Diagnoser, MECHANISM_SEVERITY } from '../../session/diagnose.js';
import { notRecorded } from '../../session/solverDeclarations.js';
import { type FrameDiagnosisResult, InspectorModel, TimelineBuilder } from '../model/inspectorModel.js';
import type { DiagnosisSettings, Opened } from '../worker/workerProtocol.js';
import type { FindingView, FrameView, IslandConditioningView, Timeline } from '../../protocol/inspector.js';
import { type DiagnosisPatch, type LiveState, type LiveUpdate, MAX_LIVE_ROWS, NO_BREAK, type TimelineRows } from '../../protocol/live.js';
import type { BreakController } from './breakController.js';
import { DiagnosisLink } from './diagnosisLink.js';
import type { ThreadLoad } from './threadLoad.js';
import { ViewLink } from './viewLink.js';
import type { ViewDiagnosis } from './viewMessages.js';

/** Threads started ahead of a writer's stream (LiveHub's spares), handed to its feed. */
export interface StreamThreads {
  /** The diagnosis thread (startDiagnosisThread). */
  readonly diagnosis?: Worker;
  /** The frame-view thread (startViewThread). */
  readonly views?: Worker;
}

/**
 * Shortest gap between two updates to the host while frames arrive (ms): a flood is sent in batches (at most
 * 100 updates a second), while a frame that comes later than that after the last update (a 60 Hz engine's
 * every frame) is sent in the same turn of the event loop that read it.
 */
export const UPDATE_MS = 10;

/**
 * How long news waits before it goes to the host (ms; 0: in this turn of the event loop): an urgent change (a
 * pause, new break settings, the stream's end) at once, frames at most every UPDATE_MS after the last update.
 */
export function updateDelay(now: number, lastUpdate: number, urgent: boolean): number {
  return urgent ? 0 : Math.max(0, UPDATE_MS - (now - lastUpdate));
}
/** Longest run of work before the worker's event loop gets a turn (ms). */
export const SLICE_MS = 25;
/** A followed file that has not grown for this long is shown as still (ms). */
export const STILL_AFTER_MS = 2000;
/** Errors kept to send (more are counted). */
const MAX_ERRORS_PER_UPDATE = 20;

/**
 * The worker's live events to the host. An update's `readAt` (not passed on to the webview) says when each of its
 * rows entered the worker's model (ms since the epoch): bench/live.ts times the path writer → model → webview.
 */
export type LiveEvent =
  | { readonly type: 'session'; readonly opened: Opened }
  | ({ readonly type: 'update'; readonly readAt?: readonly number[] } & Omit<LiveUpdate, 'type'>);

export interface FeedContext {
  readonly mode: 'listening' | 'following';
  readonly diagnosis: DiagnosisSettings;
  readonly emit: (e: LiveEvent) => void;
  /** Listening: how to connect, and the number of other writers (read when the state is sent). */
  readonly connect?: LiveState['connect'];
  readonly others?: () => number;
}

function openedOf(model: InspectorModel): Opened {
  return { info: model.info, timeline: model.timeline, findings: model.findings, skipped: model.skipped, scene: model.scene };
}

/** Session info of a recording read as it grows (as InspectorModel.fromRecording builds it). */
function infoOf(file: string, h: RecordingHeader, frameCount: number): Opened['info'] {
  return {
    title: file.split(/[\\/]/).pop() ?? file,
    source: 'recording',
    file,
    producer: `${h.producer.name}${h.producer.version ? ` ${h.producer.version}` : ''}${h.converted?.length ? ` (converted on read: ${h.converted.join('; ')})` : ''}${notRecorded(h) ? ` (λ: ${notRecorded(h)})` : ''}`,
    frameCount,
    dt: h.dt,
    bodies: h.bodies.map((b) => b.name),
  };
}

/** The timeline rows [from, to) as a live update carries them. */
export function rowsOf(t: Timeline, from: number, to: number): TimelineRows {
  const s = <T>(a: readonly T[] | undefined): T[] => (a ? a.slice(from, to) : []);
  const cols = <T>(o: { readonly [k: string]: readonly T[] } | undefined): Record<string, T[]> => {
    const out: Record<string, T[]> = {};
    for (const [k, v] of Object.entries(o ?? {})) out[k] = v.slice(from, to);
    return out;
  };
  return {
    from,
    frame: s(t.frame),
    time: s(t.time),
    contacts: s(t.contacts),
    status: s(t.status),
    iterations: s(t.iterations),
    residual: s(t.residual),
    kinetic: s(t.kinetic),
    potential: s(t.potential),
    total: s(t.total),
    ledger: cols(t.ledger),
    injection: cols(t.injection),
    kappa: s(t.kappa),
    kappaRange: t.kappaRange ? s(t.kappaRange) : new Array<number | null>(to - from).fill(null),
    maxDepth: s(t.maxDepth),
  };
}

export class LiveFeed {
  private model: InspectorModel | null;
  private readonly follower: RecordingFollower;
  private queue: FollowEvent[] = [];
  private busy = false;
  private again = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private lastUpdate = 0;
  private sentRows = 0;
  private sentFindings = 0;
  private mechanismsSent = false;
  private errors: string[] = [];
  private errorCount = 0;
  private ended = false;
  private lastGrowth = 0;
  private readonly arrivals: number[] = [];
  /** Lines the file reader already reported (resumed feeds skip their messages). */
  private readonly reportedUpTo: number;
  private watcher: fs.FSWatcher | null = null;
  private poller: NodeJS.Timeout | null = null;
  /** A writer's stream: its diagnosis thread (null: frames are diagnosed here, as they are read). */
  private readonly diagnosis: DiagnosisLink | null = null;
  /** Diagnoses that came before this thread read their frames. */
  private readonly early: FrameDiagnosisResult[] = [];
  /** When each row not sent yet entered the model (ms since the epoch). */
  private readAt: number[] = [];
  /** Rows whose injection the host has in its final form (diagnosed when sent, or patched since). */
  private sentDiagnosed = 0;
  /** A writer's stream: its frame views' thread (from its first frame on; null: views are computed here). */
  private views: ViewLink | null = null;
  /** Frames read and not yet told to the view thread (they go with the next update, before the host sees them). */
  private viewFrames: AppendedFrame[] = [];

  private constructor(
    readonly file: string,
    private readonly ctx: FeedContext,
    model: InspectorModel | null,
    resume: FollowResume | undefined,
    reportedUpTo: number,
    /** Listening: the back-channel of the writer shown. */
    readonly breaks: BreakController | null,
    /** Listening: threads started ahead of the stream. */
    private readonly threads: StreamThreads = {},
  ) {
    this.model = model;
    this.reportedUpTo = reportedUpTo;
    this.follower = RecordingFollower.open(file, { resume, maxLineBytes: ctx.mode === 'listening' ? LIVE_MAX_LINE_BYTES : undefined });
    if (model) this.sentRows = model.timeline.frame.length;
    if (model) this.sentFindings = model.findings.length;
    this.sentDiagnosed = this.sentRows;
    if (breaks) {
      // a writer's stream: shown as it is read here, diagnosed on a thread of its own (it may lag, and catches up)
      this.diagnosis = new DiagnosisLink(
        file,
        ctx.diagnosis,
        LIVE_MAX_LINE_BYTES,
        {
          diagnosed: (r) => this.diagnosed(r),
          failed: (message) => this.problem(message),
        },
        threads.diagnosis,
      );
    }
  }

  /**
   * A live writer's recording, read from its first line as the listener writes it, diagnosed and its frame views
   * computed on threads of their own (`threads` if given, started now otherwise).
   */
  static forStream(file: string, ctx: FeedContext, breaks: BreakController | null, threads: StreamThreads = {}): LiveFeed {
    return new LiveFeed(file, ctx, null, undefined, 0, breaks, threads);
  }

  /**
   * A recording the inspector opened (model from InspectorModel.fromRecording), followed from where its reader
   * stopped: the file is watched, and what is appended is read on.
   */
  static forOpened(model: InspectorModel, file: string, ctx: FeedContext): LiveFeed {
    const reader = model.session.reader!;
    const n = reader.frameCount;
    const last = n > 0 ? reader.summary(n - 1) : null;
    // resume after the last frame line; lines after it (bad lines, an unfinished one) are read again, their
    // messages not repeated (the reader listed them)
    const reportedUpTo = Math.max(last?.line ?? 0, ...reader.errors.map((e) => e.line));
    const resume: FollowResume | undefined = last
      ? { offset: last.offset + last.length + 1, lines: last.line, header: reader.header, previous: { frame: last.frame, time: last.time }, frames: n }
      : undefined;
    const feed = new LiveFeed(file, ctx, n > 0 && model.canGrow ? model : null, resume, reportedUpTo, null);
    feed.watch();
    return feed;
  }

  /** The model of the session shown (null until a writer's first frame). */
  get current(): InspectorModel | null {
    return this.model;
  }

  /** Lines may have been appended: read them (soon, in slices). */
  kick(): void {
    if (this.closed) return;
    this.diagnosis?.kick();
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    setImmediate(() => this.pump());
  }

  /** The writer's connection closed (listening). */
  writerClosed(message: string | null): void {
    if (message) this.problem(message);
    this.kick();
    this.ended = true;
    this.breaks?.writerGone();
    this.scheduleUpdate(true);
  }

  /** A problem to show in the panel (one line). */
  problem(message: string): void {
    this.errorCount++;
    if (this.errors.length < MAX_ERRORS_PER_UPDATE) this.errors.push(message);
    this.scheduleUpdate(false);
  }

  /** Sends the state now (a pause, a resumed engine, new break settings). */
  stateChanged(): void {
    this.scheduleUpdate(true);
  }

  private watch(): void {
    try {
      this.watcher = fs.watch(this.file, () => this.kick());
      this.watcher.on('error', () => undefined);
    } catch {
      // no watcher (some file systems): the poll below still reads what is appended
    }
    this.poller = setInterval(() => {
      this.kick();
      if (this.ctx.mode === 'following' && this.lastGrowth > 0 && Date.now() - this.lastGrowth > STILL_AFTER_MS && !this.stillSent) {
        this.stillSent = true;
        this.scheduleUpdate(true);
      }
    }, 250);
    this.poller.unref();
  }
  private stillSent = false;

  private pump(): void {
    const t0 = performance.now();
    let dry = false;
    this.again = false;
    try {
      while (!this.closed && performance.now() - t0 < SLICE_MS) {
        if (this.queue.length === 0) {
          const before = this.follower.position;
          this.queue = this.follower.poll();
          if (this.follower.position > before) {
            this.lastGrowth = Date.now();
            this.stillSent = false;
          }
          if (this.queue.length === 0) {
            if (this.follower.position > before) continue; // part of a long line: read on
            dry = true; // everything on disk is read
            break;
          }
        }
        this.handle(this.queue.shift()!);
      }
    } catch (e) {
      this.problem(`${this.file}: ${(e as Error).message}`);
      this.queue = [];
    }
    // on until the file is read to its end (and again if more was announced meanwhile)
    if (!this.closed && (!dry || this.again)) {
      setImmediate(() => this.pump());
      return;
    }
    this.busy = false;
  }

  private handle(e: FollowEvent): void {
    switch (e.kind) {
      case 'header':
        for (const w of e.warnings) this.problem(`warning: ${w}`);
        return;
      case 'frame':
        return this.frame(e.frame, { offset: e.offset, length: e.length, line: e.line });
      case 'end':
        this.ended = true;
        this.scheduleUpdate(true);
        return;
      case 'skipped':
        if (e.line > this.reportedUpTo) this.problem(e.message);
        return;
      case 'fatal':
      case 'truncated':
        this.problem(e.message);
        this.ended = true;
        return;
      default:
        return;
    }
  }

  private frame(f: Parameters<InspectorModel['append']>[0], at: { offset: number; length: number; line: number }): void {
    if (!this.model) {
      const header = this.follower.header!;
      const source = new GrowingRecording(this.file, header);
      source.append(f, at);
      const builder = new TimelineBuilder(header, this.diagnosis ? null : new Diagnoser(header, { ...this.ctx.diagnosis, keepFrames: false }));
      builder.add(f, !this.diagnosis);
      this.model = InspectorModel.growing(source, infoOf(this.file, header, 1), builder);
      if (this.diagnosis) {
        // a writer's stream: its frame views on a thread of their own, which knows this frame before the host does
        this.views = new ViewLink(this.file, header, infoOf(this.file, header, 0), this.threads.views);
        this.views.append([appendedFrame(f, at)]);
        if (this.metered) void this.views.load(true);
      }
      this.sentRows = 1;
      this.sentDiagnosed = this.diagnosis ? 0 : 1;
      this.sentFindings = this.model.findings.length;
      this.ctx.emit({ type: 'session', opened: openedOf(this.model) });
      if (!this.diagnosis) this.breaks?.diagnosed(f.frame, 0, this.model.findings);
    } else if (this.diagnosis) {
      // its κ comes with its diagnosis (a conditioning estimate costs more than reading the frame)
      this.model.appendUndiagnosed(f, at, { kappa: false });
      if (this.views) this.viewFrames.push(appendedFrame(f, at));
    } else {
      const added = this.model.append(f, at, { kappa: this.queue.length === 0 });
      this.breaks?.diagnosed(f.frame, this.model.timeline.frame.length - 1, added);
    }
    this.readAt.push(performance.timeOrigin + performance.now());
    this.applyEarly();
    const now = Date.now();
    this.arrivals.push(now);
    if (this.arrivals.length > 256) this.arrivals.splice(0, this.arrivals.length - 256);
    this.scheduleUpdate(false);
  }

  /** A frame's diagnosis from the diagnosis thread (in order; its frame may not be read here yet). */
  private diagnosed(r: FrameDiagnosisResult): void {
    if (this.closed) return;
    this.early.push(r);
    this.applyEarly();
  }

  private applyEarly(): void {
    const m = this.model;
    if (!m) return;
    let k = 0;
    const toViews: ViewDiagnosis[] = [];
    for (; k < this.early.length && this.early[k].index < m.session.frameCount; k++) {
      const r = this.early[k];
      m.applyDiagnosis(r);
      this.breaks?.diagnosed(r.frame, r.index, r.findings);
      toViews.push({ index: r.index, byContact: r.byContact, resolveBudgetFrame: r.resolveBudgetFrame });
    }
    if (k === 0) return;
    this.views?.diagnosed(toViews);
    this.early.splice(0, k);
    this.scheduleUpdate(false);
  }

  private scheduleUpdate(now: boolean): void {
    if (this.closed || this.soon) return;
    const wait = updateDelay(performance.now(), this.lastUpdate, now);
    if (this.timer && wait > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, wait);
      return;
    }
    // at the end of this turn (after the rest of the frames read with this one): a timer of 0 ms would let the
    // thread sleep and wait for a CPU again, which on a busy machine costs more than the frame's own work
    this.soon = setImmediate(() => {
      this.soon = null;
      this.flush();
    });
  }
  private soon: NodeJS.Immediate | null = null;

  /** The live state as the panel shows it. */
  state(): LiveState {
    const b = this.breaks?.state;
    const now = Date.now();
    const rate = this.arrivals.filter((t) => now - t <= 1000).length;
    const stream: LiveState['stream'] =
      this.ctx.mode === 'following'
        ? this.ended
          ? 'ended'
          : now - this.lastGrowth > STILL_AFTER_MS
            ? 'still'
            : 'growing'
        : b?.paused
          ? 'paused'
          : this.ended
            ? 'ended'
            : this.model || this.follower.position > 0
              ? 'streaming'
              : 'waiting';
    return {
      mode: this.ctx.mode,
      stream,
      ...(this.ctx.connect ? { connect: this.ctx.connect } : {}),
      recording: this.file,
      frames: this.model?.timeline.frame.length ?? 0,
      ...(this.diagnosis ? { diagnosed: this.model?.diagnosedCount ?? 0 } : {}),
      rate,
      paused: b?.paused ?? null,
      canBreak: this.breaks !== null && !this.ended,
      breakOn: b?.breakOn ?? NO_BREAK,
      pausePending: b?.pausePending ?? false,
      others: this.ctx.others?.() ?? 0,
      unfinishedBytes: this.follower.unfinishedBytes,
      errorCount: this.errorCount,
    };
  }

  private flush(): void {
    if (this.closed) return;
    this.lastUpdate = performance.now();
    const m = this.model;
    const n = m?.timeline.frame.length ?? 0;
    const to = Math.min(n, this.sentRows + MAX_LIVE_ROWS);
    const rows = m && to > this.sentRows ? rowsOf(m.timeline, this.sentRows, to) : undefined;
    // findings of the rows sent only: a finding never names a frame the panel does not have yet
    const findings: FindingView[] = [];
    if (m) {
      while (this.sentFindings < m.findings.length && m.findings[this.sentFindings].index < to) findings.push(m.findings[this.sentFindings++]);
    }
    const diagnosed = this.diagnosedPatch(m, to);
    // the first row of a session went with the session itself
    const readAt = this.readAt.splice(0, this.readAt.length - ((m?.timeline.frame.length ?? 0) - to));
    this.sentRows = m ? to : 0;
    this.views?.append(this.viewFrames.splice(0));
    const errors = this.errors;
    this.errors = [];
    this.ctx.emit({
      type: 'update',
      ...(rows ? { rows } : {}),
      ...(diagnosed ? { diagnosed } : {}),
      ...(rows ? { readAt: readAt.slice(-rows.frame.length) } : {}),
      findings,
      state: this.state(),
      errors,
      ...(this.mechanismsSent ? {} : { mechanisms: Object.keys(MECHANISM_SEVERITY) }),
    });
    this.mechanismsSent = true;
    if (m && to < m.timeline.frame.length) this.scheduleUpdate(false);
  }

  /** The injection of rows already sent whose diagnosis came since (rows up to `to` are sent with this update). */
  private diagnosedPatch(m: InspectorModel | null, to: number): DiagnosisPatch | undefined {
    if (!m) return undefined;
    const done = Math.min(m.diagnosedCount, to);
    const from = this.sentDiagnosed,
      end = Math.min(done, this.sentRows);
    this.sentDiagnosed = Math.max(this.sentDiagnosed, done);
    if (end <= from) return undefined;
    const injection: Record<string, number[]> = {};
    for (const [k, col] of Object.entries(m.timeline.injection ?? {})) injection[k] = col.slice(from, end);
    const t = m.timeline;
    return { from, injection, kappa: t.kappa.slice(from, end), kappaRange: (t.kappaRange ?? []).slice(from, end) };
  }

  /** Meters this stream's threads from now on (the frame-view thread's from its start, with the first frame). */
  meter(): void {
    this.metered = true;
    void this.diagnosis?.load(true);
    void this.views?.load(true);
  }
  private metered = false;

  /** The load of the stream's diagnosis thread (null: none). */
  diagnosisLoad(reset: boolean): Promise<ThreadLoad | null> {
    return this.diagnosis?.load(reset) ?? Promise.resolve(null);
  }

  /** The load of the stream's frame-view thread (null: none yet). */
  viewsLoad(reset: boolean): Promise<ThreadLoad | null> {
    return this.views?.load(reset) ?? Promise.resolve(null);
  }

  /** The view of frame i, computed on the stream's frame-view thread (null: none; the model computes it). */
  frameView(i: number): Promise<FrameView> | null {
    return this.views?.alive ? this.views.frame(i) : null;
  }

  /** The pending conditioning of frame i's view, from the frame-view thread (null: none). */
  conditioning(i: number): Promise<readonly IslandConditioningView[]> | null {
    return this.views?.alive ? this.views.conditioning(i) : null;
  }

  close(): void {
    this.closed = true;
    this.diagnosis?.close();
    this.views?.close();
    if (!this.views) void this.threads.views?.terminate(); // a spare no frame used
    if (this.timer) clearTimeout(this.timer);
    if (this.soon) clearImmediate(this.soon);
    if (this.poller) clearInterval(this.poller);
    this.watcher?.close();
    this.follower.close();
  }
}
