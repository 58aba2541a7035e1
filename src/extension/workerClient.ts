/**
 * Host side of the simulation worker: typed requests, progress callbacks, cancellation (terminates the
 * worker: a simulation in progress cannot be interrupted otherwise), and errors that keep the FormatError
 * field so the caller can point at it. No vscode import: usable from plain Node tests.
 */
import { Worker } from 'node:worker_threads';
import { timedCallback } from './callbackTimes.js';
import type { WorkerEnvelope, WorkerReply, WorkerRequest, WorkerResults } from './worker/workerProtocol.js';
import type { LiveEvent } from './live/liveFeed.js';

export class WorkerRequestError extends Error {
  constructor(
    message: string,
    readonly field?: string,
    readonly file?: string,
  ) {
    super(message);
    this.name = 'WorkerRequestError';
  }
}

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  progress?: (message: string, fraction: number | null) => void;
}

export interface RequestOptions {
  readonly onProgress?: (message: string, fraction: number | null) => void;
  /** Aborting terminates the worker (all its pending requests reject with CancelledError). */
  readonly signal?: AbortSignal;
}

export class WorkerClient {
  private worker: Worker | null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly script: string) {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const w = new Worker(this.script);
    w.on(
      'message',
      timedCallback('worker reply', (m: WorkerReply) => {
        if (m.kind === 'event') {
          this.onEvent?.(m.event);
          return;
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        if (m.kind === 'progress') {
          p.progress?.(m.message, m.fraction);
          return;
        }
        this.pending.delete(m.id);
        if (m.kind === 'result') p.resolve(m.result);
        else p.reject(new WorkerRequestError(m.message, m.field, m.file));
      }),
    );
    w.on('error', (e) => this.failAll(e instanceof Error ? e : new Error(String(e))));
    w.on('exit', (code) => {
      if (this.worker === w) {
        this.worker = null;
        this.failAll(new Error(`simulation worker exited (code ${code})`));
      }
    });
    w.unref();
    return w;
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  /** Unrequested news from the worker (live sessions: src/extension/live/liveFeed.ts). */
  onEvent: ((e: LiveEvent) => void) | null = null;

  get alive(): boolean {
    return this.worker !== null;
  }

  request<K extends WorkerRequest['op']>(request: Extract<WorkerRequest, { op: K }>, options: RequestOptions = {}): Promise<WorkerResults[K]> {
    if (!this.worker) return Promise.reject(new Error('simulation worker is not running'));
    if (options.signal?.aborted) return Promise.reject(new CancelledError());
    const id = this.nextId++;
    return new Promise<WorkerResults[K]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, progress: options.onProgress });
      options.signal?.addEventListener(
        'abort',
        () => {
          this.failAll(new CancelledError());
          this.dispose();
        },
        { once: true },
      );
      this.worker!.postMessage({ id, request } satisfies WorkerEnvelope);
    });
  }

  dispose(): void {
    const w = this.worker;
    this.worker = null;
    this.failAll(new CancelledError());
    void w?.terminate();
  }
}
