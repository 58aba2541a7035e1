/**
 * The live side of one simulation worker (one inspector): listening for writers (Contact Lens: Listen for a
 * Live Engine) or following the recording the inspector opened as it grows. The writer shown is the first
 * one that connects while none is streaming; others that connect meanwhile are recorded to their own files
 * (never held at a break) and counted. Break conditions belong to the panel and outlive the writers: a new
 * run of the engine is armed as soon as it connects.
 */
import { LIVE_ENV } from '../../format/liveProtocol.js';
import type { InspectorModel } from '../model/inspectorModel.js';
import type { DiagnosisSettings } from '../worker/workerProtocol.js';
import { type LiveAction, type LiveState, NO_BREAK } from '../../protocol/live.js';
import { BreakController } from './breakController.js';
import { type FeedContext, LiveFeed, type LiveEvent, rowsOf, type StreamThreads } from './liveFeed.js';
import { DISARM_LINE, goLine } from '../../format/liveProtocol.js';
import type { Worker } from 'node:worker_threads';
import { startDiagnosisThread } from './diagnosisLink.js';
import { LiveIo, type WriterHooks, type WriterLink } from './liveIo.js';
import { loadMeter, type ThreadLoad } from './threadLoad.js';
import { startViewThread } from './viewLink.js';
import { warmModel, withWarmRecording } from './warmUp.js';
import type { FrameView, IslandConditioningView } from '../../protocol/inspector.js';

export interface Listening {
  readonly variable: string;
  readonly value: string;
  readonly folder: string;
}

export class LiveHub {
  /** The listener, on the live I/O thread (sockets and disk never wait for a diagnosis). */
  private listener: LiveIo | null = null;
  private feed: LiveFeed | null = null;
  /** The writer of the stream shown. */
  private conn: WriterLink | null = null;
  private readonly others = new Set<WriterLink>();
  private readonly breaks: BreakController;
  /** The model the panel shows (kept until a new writer's first frame replaces it). */
  private shown: InspectorModel | null = null;
  private connect: LiveState['connect'] | undefined;
  private pendingErrors: string[] = [];
  private readonly workerLoad = loadMeter('worker');
  /** Listening: the next stream's diagnosis and frame-view threads, started while no writer streams (null: none yet). */
  private spare: { diagnosis: Worker; views: Worker } | null = null;
  private closing = false;
  /** Loads were asked for: a new stream's diagnosis thread is metered from its start. */
  private metered = false;

  constructor(private readonly emit: (e: LiveEvent) => void) {
    this.breaks = new BreakController(
      (line) => this.conn?.send(line),
      () => {
        this.listener?.armNew(this.breaks.armsNewWriter);
        if (this.feed) this.feed.stateChanged();
        else this.emitWaiting();
      },
    );
  }

  /** The model of the session shown (frame views, series, what-ifs are answered from it). */
  get model(): InspectorModel | null {
    return this.shown;
  }

  async listen(folder: string, diagnosis: DiagnosisSettings): Promise<Listening> {
    if (this.listener) return { variable: LIVE_ENV, value: this.listener.value, folder };
    this.closing = false;
    this.listener = await LiveIo.start(
      { folder },
      {
        refused: (message) => this.problem(message),
        accepted: (c, armed) => this.accepted(c, armed, diagnosis),
      },
    );
    this.listener.armNew(this.breaks.armsNewWriter);
    this.startSpare();
    setImmediate(warmFeed);
    this.connect = { variable: LIVE_ENV, value: this.listener.value, folder };
    this.emitWaiting();
    return { variable: LIVE_ENV, value: this.listener.value, folder };
  }

  /** Follows the recording `model` was opened from, as it grows. */
  follow(model: InspectorModel, file: string, diagnosis: DiagnosisSettings): void {
    this.shown = model;
    this.feed?.close();
    this.feed = LiveFeed.forOpened(model, file, this.context('following', diagnosis));
    this.feed.kick();
  }

  /**
   * What the live session's threads cost since the last reset (the first call starts the meters): this worker
   * (reading, the model, frame views), the I/O thread and the stream's diagnosis thread (bench/live.ts).
   */
  async load(reset: boolean): Promise<ThreadLoad[]> {
    this.metered = true;
    const loads = await Promise.all([this.listener?.load(reset) ?? null, this.feed?.diagnosisLoad(reset) ?? null, this.feed?.viewsLoad(reset) ?? null]);
    return [this.workerLoad(reset), ...loads.filter((l): l is ThreadLoad => l !== null)];
  }

  /** The view of frame i of the stream shown, from its frame-view thread (null: the shown model computes it). */
  frameView(i: number): Promise<FrameView> | null {
    return this.feed && this.feed.current === this.shown ? this.feed.frameView(i) : null;
  }

  /** The pending conditioning of frame i's view, from the frame-view thread (null: the shown model computes it). */
  conditioning(i: number): Promise<readonly IslandConditioningView[]> | null {
    return this.feed && this.feed.current === this.shown ? this.feed.conditioning(i) : null;
  }

  action(a: LiveAction): void {
    this.breaks.apply(a);
  }

  private context(mode: FeedContext['mode'], diagnosis: DiagnosisSettings): FeedContext {
    return {
      mode,
      diagnosis,
      emit: (e) => {
        if (e.type === 'session') this.shown = this.feed?.current ?? this.shown;
        this.emit(e);
      },
      connect: this.connect,
      others: () => this.others.size,
    };
  }

  private accepted(c: WriterLink, armed: boolean, diagnosis: DiagnosisSettings): WriterHooks {
    if (this.conn) {
      // another writer while one streams: recorded, never held, counted in the panel
      this.others.add(c);
      if (armed) c.send(DISARM_LINE);
      this.feed?.stateChanged();
      return {
        recorded: () => undefined,
        waiting: (frame) => c.send(goLine(frame)),
        problem: (message) => this.problem(`another writer (${c.file}): ${message}`),
        closed: () => {
          this.others.delete(c);
          this.feed?.stateChanged();
        },
      };
    }
    this.conn = c;
    this.feed?.close();
    const feed = LiveFeed.forStream(c.file, this.context('listening', diagnosis), this.breaks, this.takeSpare());
    this.feed = feed;
    if (this.metered) feed.meter();
    for (const e of this.pendingErrors) feed.problem(e);
    this.pendingErrors = [];
    this.breaks.writerConnected(armed);
    feed.stateChanged();
    return {
      recorded: () => feed.kick(),
      waiting: (frame) => this.breaks.writerWaiting(frame),
      problem: (message) => feed.problem(message),
      closed: (lostBytes, line) => {
        if (this.conn === c) this.conn = null;
        this.startSpare(); // for the next writer
        feed.writerClosed(
          lostBytes > 0
            ? `${c.file}: the writer disconnected in the middle of line ${line}: its ${lostBytes} bytes (one frame) are lost; every line before it is recorded`
            : null,
        );
      },
    };
  }

  /** Starts the next stream's diagnosis and frame-view threads while no writer streams (one pair at most). */
  private startSpare(): void {
    if (this.spare || !this.listener || this.closing) return;
    const spare = { diagnosis: startDiagnosisThread(), views: startViewThread() };
    for (const w of [spare.diagnosis, spare.views]) {
      w.on('error', () => undefined); // a spare that failed is not handed out (exit below)
      w.on('exit', () => {
        if (this.spare === spare) {
          this.spare = null;
          void spare.diagnosis.terminate();
          void spare.views.terminate();
        }
      });
    }
    this.spare = spare;
  }

  private takeSpare(): StreamThreads {
    const spare = this.spare ?? {};
    this.spare = null;
    return spare;
  }

  private problem(message: string): void {
    if (this.feed) this.feed.problem(message);
    else {
      this.pendingErrors.push(message);
      this.emitWaiting();
    }
  }

  /** Listening, no writer yet: the state the panel shows (how to connect, break conditions, refused connections). */
  private emitWaiting(): void {
    if (this.feed) return this.feed.stateChanged();
    if (!this.connect) return;
    const b = this.breaks.state;
    const errors = this.pendingErrors.splice(0);
    this.emit({
      type: 'update',
      findings: [],
      errors,
      state: {
        mode: 'listening',
        stream: 'waiting',
        connect: this.connect,
        frames: 0,
        rate: 0,
        paused: null,
        canBreak: false,
        breakOn: b.breakOn ?? NO_BREAK,
        pausePending: b.pausePending,
        others: this.others.size,
        unfinishedBytes: 0,
        errorCount: errors.length,
      },
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    const spare = this.takeSpare();
    void spare.diagnosis?.terminate();
    void spare.views?.terminate();
    this.feed?.close();
    this.feed = null;
    this.conn?.close();
    for (const c of this.others) c.close();
    await this.listener?.close();
    this.listener = null;
  }
}

/** This thread's part of a stream's first frames, run once while the listener waits: read, indexed, made rows. */
function warmFeed(): void {
  withWarmRecording((r) => {
    const m = warmModel(r);
    rowsOf(m.timeline, 0, r.frames.length);
    m.close();
  });
}
