/**
 * The webview's side of the protocol (src/protocol/inspector.ts): posts requests with increasing
 * requestIds, validates every received message (validateHostMessage) and drops stale frame replies.
 * VS Code delivers host messages as window 'message' events; acquireVsCodeApi() is the only host API.
 */
import type { HostMessage, WebviewMessage, WebviewState, WhatIfOptions } from '../src/protocol/inspector.js';
import type { CrossDirection } from '../src/protocol/compare.js';
import { validateHostMessage } from '../src/protocol/validate.js';
import type { LiveAction } from '../src/protocol/live.js';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export interface ConnectionHandlers {
  /**
   * A valid, current message; `receivedAt` is performance.now() when its event fired, before `event.data`
   * was read (Chromium deserialises the data lazily on that read, so the frame-update timing includes it).
   */
  readonly message: (m: HostMessage, receivedAt: number) => void;
  /** A message that failed validation (or a handler that threw): shown in the error banner. */
  readonly invalid: (text: string) => void;
}

export class HostConnection {
  private readonly api: VsCodeApi;
  private nextId = 1;
  /** requestId of the newest seek: frame replies with an older id are stale. */
  private latestSeek = 0;
  /** Frame replies dropped because a newer seek was already sent. */
  staleFrames = 0;
  /** Time to read the last message's data (Chromium deserialises it on that read), ms. */
  lastDataMs = 0;

  constructor(private readonly handlers: ConnectionHandlers) {
    this.api = acquireVsCodeApi();
  }

  /** Starts listening and tells the host the webview is ready (the host answers with `init`). */
  start(): void {
    window.addEventListener('message', (e: MessageEvent) => {
      const t = performance.now();
      const data: unknown = e.data;
      this.lastDataMs = performance.now() - t;
      this.receive(data, t);
    });
    this.post({ type: 'ready' });
  }

  private receive(data: unknown, receivedAt: number): void {
    let m: HostMessage;
    try {
      m = validateHostMessage(data);
    } catch (err) {
      this.handlers.invalid(err instanceof Error ? err.message : String(err));
      return;
    }
    if (m.type === 'frame' && m.requestId < this.latestSeek) {
      this.staleFrames++;
      return;
    }
    try {
      this.handlers.message(m, receivedAt);
    } catch (err) {
      this.handlers.invalid(`could not show ${m.type} message: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private post(m: WebviewMessage): void {
    this.api.postMessage(m);
  }

  /** Answers to every seek asked so far are stale from now on (the view moved on before asking again). */
  supersedeSeeks(): void {
    this.latestSeek = this.nextId++;
  }

  seek(index: number): number {
    const requestId = this.nextId++;
    this.latestSeek = requestId;
    this.post({ type: 'seek', requestId, index });
    return requestId;
  }

  series(keys: readonly string[]): number {
    const requestId = this.nextId++;
    this.post({ type: 'series', requestId, keys: [...keys] });
    return requestId;
  }

  whatIf(index: number, options: WhatIfOptions): number {
    const requestId = this.nextId++;
    this.post({ type: 'whatIf', requestId, index, options });
    return requestId;
  }

  exportChart(name: string, dataUrl: string): void {
    this.post({ type: 'exportChart', name, dataUrl });
  }

  /** Compare mode: one run's solver on the other run's problem of frame `index`. */
  crossWhatIf(index: number, direction: CrossDirection): number {
    const requestId = this.nextId++;
    this.post({ type: 'crossWhatIf', requestId, index, direction });
    return requestId;
  }

  compareEngine(engine: string): void {
    this.post({ type: 'compareEngine', engine });
  }

  /** Pause, step, continue or break conditions of a live writer (src/protocol/live.ts). */
  live(action: LiveAction): void {
    this.post({ type: 'live', action });
  }

  /** Asks the host for the whole session again (an init), e.g. when live rows arrived with a gap. */
  ready(): void {
    this.post({ type: 'ready' });
  }

  exportFrame(index: number, format: 'json' | 'csv'): void {
    this.post({ type: 'exportFrame', index, format });
  }

  getState(): WebviewState | undefined {
    const s = this.api.getState() as WebviewState | undefined | null;
    return s && typeof s === 'object' && s.source ? s : undefined;
  }

  /** Saved by VS Code with the panel; the host's serializer restores source + index after a reload. */
  setState(s: WebviewState): void {
    this.api.setState(s);
  }
}
