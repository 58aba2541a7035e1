/**
 * The extension host's part of a live session (no vscode import: benchmarks and tests drive it in plain
 * Node): keeps the host's copy of the session (timeline rows and findings appended as they come, so the
 * status bar, Go to Frame and Next Finding see the new frames) and forwards each update to the webview.
 * Cheap by design: the worker did the parsing and the diagnosis, this appends columns and posts.
 */
import type { FindingView, HostMessage } from '../../protocol/inspector.js';
import { appendRows, applyDiagnosisPatch, type LiveState, type LiveUpdate } from '../../protocol/live.js';
import type { Opened } from '../worker/workerProtocol.js';
import type { LiveEvent } from './liveFeed.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class LiveRelay {
  private last: LiveState | null = null;
  private mechanisms: readonly string[] | undefined;

  constructor(private readonly post: (m: HostMessage) => void) {}

  /** The latest state (null before the first update). */
  get state(): LiveState | null {
    return this.last;
  }

  /** Applies an update to the host's copy of the session (if one is shown) and forwards it to the webview. */
  update(opened: Opened | null, e: Extract<LiveEvent, { type: 'update' }>): void {
    const { type: _type, readAt: _readAt, ...u } = e;
    if (opened) {
      const o = opened as Mutable<Opened>;
      if (u.rows) {
        appendRows(opened.timeline, u.rows);
        o.info = { ...opened.info, frameCount: opened.timeline.frame.length };
      }
      if (u.diagnosed) applyDiagnosisPatch(opened.timeline, u.diagnosed);
      if (u.findings.length) (o.findings as FindingView[]).push(...u.findings); // (the session's own array, from the worker's message)
    }
    this.last = u.state;
    if (u.mechanisms) this.mechanisms = u.mechanisms;
    this.post({ type: 'live', ...u } satisfies LiveUpdate);
  }

  /** After the webview (re)loaded and got its init: the state again, without rows (the init has them all). */
  resend(): void {
    if (!this.last) return;
    this.post({ type: 'live', findings: [], state: this.last, errors: [], ...(this.mechanisms ? { mechanisms: this.mechanisms } : {}) });
  }
}
