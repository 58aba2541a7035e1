/**
 * A debugging session over a sequence of frames: a recording on disk, or a scenario simulated by our engine.
 *
 * Memory is bounded: a session never holds an array of full frames.
 *  - Recording (`Session.fromRecording`): only the RecordingReader's index and columnar summaries are kept;
 *    `frame(i)` reads and parses one line.
 *  - Scenario (`Session.fromScenario`): the scenario is simulated once; per frame a small columnar summary is
 *    kept, and every `checkpointEvery` frames (default 100) a checkpoint of the full world state. Any frame is
 *    recomputed by re-simulating from the nearest checkpoint at or before it (or from the live cursor, so
 *    stepping forward costs one world step).
 *  In both cases a small LRU (FRAME_CACHE_SIZE frames) keeps the most recently used RecordedFrames.
 *
 * Determinism of re-simulation (scenario sessions). A World's state is its bodies (x, q, v, w), time, frame
 * AND its warm-start contact cache (private to World). The broad phase's persistent sort order does not
 * matter (its pairs are returned sorted), and the solvers have no other state. So each checkpoint also keeps
 * the cache content of the frame before it: per contact (body pair, feature id, normal, λ). Restoring puts
 * exactly those entries into a fresh World's cache (World.restoreWarmStart). Frames re-simulated from a
 * checkpoint are then bit-identical to the first pass (asserted by test/unit/session.test.ts).
 *
 * `detail(i)` re-assembles each island's contact problem (A, b with its decomposition, μ) from the recorded
 * contacts and the pre-solve body states (format/recording.ts preSolveBodyStates), with its conditioning.
 *
 * Layer rule: imports engine and format only (no vscode, no DOM); Node's fs only via RecordingReader.
 */
import type { ScenarioDesc } from '../engine/index.js';
import type { RecordedFrame, RecordingHeader } from '../format/recording.js';
import { RecordingReader, type OpenOptions, type ReaderCacheOptions } from '../format/recordingFile.js';
import { type DetailOptions, type FrameDetail, frameDetail } from './frameDetail.js';
import { type FrameSource, RecordingSource, type SessionSummary } from './frameSource.js';
import { ScenarioSource, type ScenarioSessionOptions } from './scenarioSource.js';

// the session's types, where its callers have always imported them
export type { ContactRow, DetailOptions, FrameDetail, IslandDetail } from './frameDetail.js';
export { type FrameSource, recordingAssembly, type SessionSummary } from './frameSource.js';
export type { ScenarioSessionOptions } from './scenarioSource.js';

/** Default number of frames between two checkpoints of a scenario session. */
export const DEFAULT_CHECKPOINT_EVERY = 100;
/** RecordedFrames kept by the LRU (seek/step around a frame without re-reading or re-simulating). */
export const FRAME_CACHE_SIZE = 8;

// ─── the session ────────────────────────────────────────────────────────────────────────────────────

export class Session {
  private index = 0;
  /** LRU of recently loaded frames: Map iteration order is insertion order. */
  private readonly cache = new Map<number, RecordedFrame>();

  private constructor(private readonly source: FrameSource) {}

  /**
   * Opens a recording synchronously (indexes it once; keeps only the index). `validate: 'on-read'` indexes
   * with the byte scanner and validates each frame when it is read (OpenOptions.validate).
   */
  static fromRecording(file: string, options: Pick<OpenOptions, 'validate'> = {}): Session {
    return new Session(new RecordingSource(RecordingReader.openSync(file, options)));
  }

  /** Opens a recording asynchronously (progress, cancellation). */
  static async openRecording(file: string, options: OpenOptions & ReaderCacheOptions = {}): Promise<Session> {
    return new Session(new RecordingSource(await RecordingReader.open(file, options)));
  }

  /** A session over another frame source (a recording that is still being written: src/session/growingRecording.ts). */
  static fromSource(source: FrameSource): Session {
    return new Session(source);
  }

  /** Simulates the scenario once, keeping summaries and checkpoints (see the file comment). */
  static fromScenario(desc: ScenarioDesc, options: ScenarioSessionOptions = {}): Session {
    const every = options.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY;
    if (!Number.isInteger(every) || every < 1) throw new RangeError(`checkpointEvery must be an integer ≥ 1, got ${every}`);
    const frames = options.frames ?? desc.frames;
    if (!Number.isInteger(frames) || frames < 0) throw new RangeError(`frames must be an integer ≥ 0, got ${frames}`);
    return new Session(new ScenarioSource(desc, every, frames, options.onFrame));
  }

  get kind(): 'recording' | 'scenario' {
    return this.source.kind;
  }
  get header(): RecordingHeader {
    return this.source.header;
  }
  get frameCount(): number {
    return this.source.frameCount;
  }
  /** Index of the current frame. */
  get current(): number {
    return this.index;
  }
  /** false only when a scenario's warm-start cache could not be restored (re-simulated frames may then differ). */
  get exactReplay(): boolean {
    return this.source.exact;
  }
  /** The RecordingReader of a recording session (errors, warnings, indexMs), else null. */
  get reader(): RecordingReader | null {
    return this.source.reader ?? null;
  }
  /** Steps re-simulated so far (scenario sessions; 0 for recordings). */
  get resimulatedSteps(): number {
    return this.source instanceof ScenarioSource ? this.source.resimulatedSteps : 0;
  }
  get checkpointCount(): number {
    return this.source instanceof ScenarioSource ? this.source.checkpointCount : 0;
  }

  summary(i: number): SessionSummary {
    this.check(i);
    return this.source.summary(i);
  }

  *summaries(): IterableIterator<SessionSummary> {
    for (let i = 0; i < this.frameCount; i++) yield this.source.summary(i);
  }

  /** Frame i (read from disk or re-simulated; the last FRAME_CACHE_SIZE frames are cached). */
  frame(i: number): RecordedFrame {
    this.check(i);
    const hit = this.cache.get(i);
    if (hit) {
      this.cache.delete(i);
      this.cache.set(i, hit);
      return hit;
    }
    const f = this.source.load(i);
    this.cache.set(i, f);
    if (this.cache.size > FRAME_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as number);
    return f;
  }

  /** Moves to frame i (clamped to 0 … frameCount − 1) and returns it. */
  seek(i: number): RecordedFrame {
    if (this.frameCount === 0) throw new RangeError('the session has no frames');
    const j = Number.isFinite(i) ? Math.min(this.frameCount - 1, Math.max(0, Math.round(i))) : i > 0 ? this.frameCount - 1 : 0;
    const f = this.frame(j);
    this.index = j;
    return f;
  }

  /** Moves by delta frames (clamped) and returns the new current frame. */
  step(delta: number = 1): RecordedFrame {
    return this.seek(this.index + delta);
  }

  /** The current frame. */
  get currentFrame(): RecordedFrame {
    return this.seek(this.index);
  }

  /**
   * Per island: the contact problem re-assembled from the recorded contacts and the pre-solve state, its
   * conditioning, and per-contact rows with the recorded λ.
   */
  detail(i: number, detailOptions: DetailOptions = {}): FrameDetail {
    this.check(i);
    const f = this.frame(i);
    const previous = (): RecordedFrame | null => (i > 0 && this.source.summary(i - 1).frame === f.frame - 1 ? this.frame(i - 1) : null);
    return frameDetail({ index: i, header: this.header, frame: f, assembly: this.source.assembly(), previous }, detailOptions);
  }

  close(): void {
    this.cache.clear();
    this.source.close();
  }

  private check(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.frameCount) throw new RangeError(`frame index ${i} out of range 0…${this.frameCount - 1}`);
  }
}
