/**
 * Breaks on a live engine (docs/live-protocol.md "Breaks"): decides, frame by frame, whether the engine waiting
 * after frame K may go on or stops there. A writer waits after a frame only while the editor has armed it, so
 * the controller arms the writer whenever something could stop it (a break condition, a pause asked for, a
 * step, a stop in progress) and disarms it otherwise: without a break the engine never waits for the editor.
 *
 * A frame matches when it is the first frame after a Pause or a Step, when its number reaches the break
 * frame, or when the diagnosis found there a finding of the chosen severity (or worse) and mechanism. The
 * engine stops at the first frame it waits on at or after the match — the matching frame itself whenever
 * the writer was armed before it was written (frames are diagnosed before the writer is answered).
 */
import { ARM_LINE, DISARM_LINE, goLine } from '../../format/liveProtocol.js';
import type { FindingView } from '../../protocol/inspector.js';
import { type BreakSettings, type LiveAction, NO_BREAK } from '../../protocol/live.js';

const RANK: Record<string, number> = { info: 1, warning: 2, error: 3 };

export interface BreakState {
  readonly paused: { readonly index: number; readonly frame: number; readonly reason: string } | null;
  readonly breakOn: BreakSettings;
  readonly pausePending: boolean;
}

export class BreakController {
  private settings: BreakSettings = NO_BREAK;
  /** Stop at the next frame diagnosed (Pause, or the frame after a Step). */
  private stopNext = false;
  private paused: { index: number; frame: number; reason: string } | null = null;
  /** The writer waits after this frame for an answer. */
  private waiting: number | null = null;
  /** Newest frame diagnosed (−1: none) and its session index. */
  private diagnosedFrame = -1;
  private diagnosedIndex = -1;
  /** The first matching frame the engine has not stopped at yet. */
  private pending: { frame: number; index: number; reason: string } | null = null;
  private armedSent = false;

  constructor(
    /** Sends one control line to the writer (without the newline). */
    private readonly send: (line: string) => void,
    /** The break state changed (paused, resumed, conditions). */
    private readonly changed: () => void,
  ) {}

  get state(): BreakState {
    return { paused: this.paused, breakOn: this.settings, pausePending: this.stopNext && !this.paused };
  }

  /** The user's action (the inspector's buttons and break fields). */
  apply(a: LiveAction): void {
    switch (a.action) {
      case 'pause':
        if (!this.paused) this.stopNext = true;
        break;
      case 'step':
        if (this.paused) {
          this.paused = null;
          this.stopNext = true; // the next frame stops again
          this.release();
        } else this.stopNext = true;
        break;
      case 'continue':
        this.stopNext = false;
        this.pending = null;
        if (this.paused) {
          this.paused = null;
          this.release();
        }
        break;
      case 'breakOn':
        this.settings = a.breakOn;
        break;
    }
    this.sync();
    this.changed();
  }

  /** Frame `frame` (session index `index`) was diagnosed; `findings` are the ones it added. */
  diagnosed(frame: number, index: number, findings: readonly FindingView[]): void {
    this.diagnosedFrame = frame;
    this.diagnosedIndex = index;
    if (!this.pending) {
      const reason = this.match(frame, findings);
      if (reason) this.pending = { frame, index, reason };
    }
    this.decide();
  }

  /** The writer waits after frame K (its `wait` line). */
  writerWaiting(frame: number): void {
    this.waiting = frame;
    this.decide();
  }

  /** The writer went away: nothing waits any more. */
  writerGone(): void {
    const was = this.paused !== null;
    this.waiting = null;
    this.paused = null;
    this.pending = null;
    this.armedSent = false;
    if (was) this.changed();
  }

  private match(frame: number, findings: readonly FindingView[]): string | null {
    if (this.stopNext) return 'paused';
    const s = this.settings;
    if (s.frame !== null && frame >= s.frame) {
      this.settings = { ...s, frame: null }; // a frame break is one-shot
      return `frame ${s.frame} reached`;
    }
    if (s.severity === 'off' && s.mechanism === null) return null;
    const min = s.severity === 'off' ? 0 : RANK[s.severity];
    const hit = findings.find((f) => (RANK[f.severity ?? 'warning'] ?? 0) >= min && (s.mechanism === null || f.mechanism === s.mechanism));
    return hit ? `${hit.severity ?? 'warning'} finding, ${hit.mechanism}: ${hit.headline ?? hit.mechanism}` : null;
  }

  private decide(): void {
    const k = this.waiting;
    if (k === null || this.diagnosedFrame < k || this.paused) return;
    const p = this.pending;
    if (p && p.frame <= k) {
      // the engine waits after frame k, so k is the newest frame diagnosed
      this.paused = {
        index: this.diagnosedIndex,
        frame: k,
        reason: p.frame === k || p.reason === 'paused' ? p.reason : `${p.reason} (at frame ${p.frame}; the engine first waited after frame ${k})`,
      };
      this.pending = null;
      this.stopNext = false;
      this.changed();
      return;
    }
    this.release();
  }

  private release(): void {
    if (this.waiting === null) return;
    const k = this.waiting;
    this.waiting = null;
    this.send(goLine(k));
  }

  /** Whether a writer that connects now is to be armed from its first frame (a condition set, a Pause asked for). */
  get armsNewWriter(): boolean {
    const s = this.settings;
    return this.stopNext || s.severity !== 'off' || s.mechanism !== null || s.frame !== null;
  }

  /** Arms the writer while anything could stop it, disarms it otherwise. */
  private sync(): void {
    const want = this.armsNewWriter || this.paused !== null;
    if (want === this.armedSent) return;
    this.armedSent = want;
    this.send(want ? ARM_LINE : DISARM_LINE);
  }

  /** A new writer connected (`armed`: its welcome came with an arm); arm or disarm it as the conditions say. */
  writerConnected(armed = false): void {
    this.armedSent = armed;
    this.waiting = null;
    this.paused = null;
    this.pending = null;
    this.diagnosedFrame = -1;
    this.sync();
  }
}
