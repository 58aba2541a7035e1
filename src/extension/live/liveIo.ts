/**
 * The simulation worker's handle on the live I/O thread (./liveIoThread.ts): starts it, and presents its
 * writers as WriterLinks (send a control line, close) with the listener's events, in the order they happened.
 * The thread's bundle is dist/liveIo.js beside dist/worker.js (session/threadScript.ts).
 */
import type { Worker } from 'node:worker_threads';
import { startThread } from '../../session/threadScript.js';
import type { IoEvent, IoRequest } from './ioMessages.js';
import type { ThreadLoad } from './threadLoad.js';

/** One writer, as the simulation worker sees it. */
export interface WriterLink {
  readonly id: number;
  /** The recording its lines are written to (by the I/O thread). */
  readonly file: string;
  /** Sends one control line (without the newline). */
  send(line: string): void;
  close(): void;
}

export interface WriterHooks {
  recorded(): void;
  waiting(frame: number): void;
  problem(message: string): void;
  closed(lostBytes: number, line: number): void;
}

export interface IoEvents {
  refused(message: string): void;
  /** `armed`: the welcome went with an arm. */
  accepted(link: WriterLink, armed: boolean): WriterHooks;
}

export class LiveIo {
  private readonly hooks = new Map<number, WriterHooks>();
  private stopped: (() => void) | null = null;
  private readonly loads: ((l: ThreadLoad) => void)[] = [];

  private constructor(
    private readonly worker: Worker,
    readonly value: string,
  ) {}

  /** Starts the I/O thread and its listener (127.0.0.1, a port the system picks, a fresh token). */
  static async start(options: { folder: string; maxLineBytes?: number; helloTimeoutMs?: number }, events: IoEvents): Promise<LiveIo> {
    const worker = startThread('liveIo', '../extension/live/liveIoThread');
    worker.unref();
    let io: LiveIo | null = null;
    const early: IoEvent[] = [];
    const value = await new Promise<string>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('message', (e: IoEvent) => {
        if (e.type === 'listening') return resolve(e.value);
        if (e.type === 'failed') return reject(new Error(e.message));
        if (io) io.event(e, events);
        else early.push(e);
      });
      worker.postMessage({ op: 'start', ...options } satisfies IoRequest);
    }).catch(async (e: Error) => {
      await worker.terminate();
      throw e;
    });
    io = new LiveIo(worker, value);
    for (const e of early) io.event(e, events);
    worker.on('error', (e) => events.refused(`the live listener failed: ${e.message}`));
    return io;
  }

  /** Whether writers that connect from now on are armed with their welcome. */
  armNew(armed: boolean): void {
    this.post({ op: 'armNew', armed });
  }

  private post(r: IoRequest): void {
    this.worker.postMessage(r);
  }

  private event(e: IoEvent, events: IoEvents): void {
    switch (e.type) {
      case 'refused':
        return events.refused(e.message);
      case 'accepted': {
        const link: WriterLink = {
          id: e.id,
          file: e.file,
          send: (line) => this.post({ op: 'send', id: e.id, line }),
          close: () => this.post({ op: 'close', id: e.id }),
        };
        this.hooks.set(e.id, events.accepted(link, e.armed));
        return;
      }
      case 'recorded':
        return this.hooks.get(e.id)?.recorded();
      case 'waiting':
        return this.hooks.get(e.id)?.waiting(e.frame);
      case 'problem':
        return this.hooks.get(e.id)?.problem(e.message);
      case 'closed': {
        const h = this.hooks.get(e.id);
        this.hooks.delete(e.id);
        return h?.closed(e.lostBytes, e.line);
      }
      case 'stopped':
        this.stopped?.();
        return;
      case 'load':
        this.loads.shift()?.(e.load);
        return;
      default:
        return;
    }
  }

  /** The I/O thread's load since the last reset. */
  load(reset: boolean): Promise<ThreadLoad> {
    return new Promise((resolve) => {
      this.loads.push(resolve);
      this.post({ op: 'load', reset });
    });
  }

  /** Closes every connection and the listener, and ends the thread. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 2000);
      this.stopped = () => {
        clearTimeout(t);
        resolve();
      };
      this.post({ op: 'stop' });
    });
    await this.worker.terminate();
  }
}
