/**
 * The simulation worker's handle on a live stream's frame-view thread (./viewThread.ts): tells it the frames the
 * worker read and their diagnoses, in order, and asks it for frame views and their pending conditioning.
 */
import type { Worker } from 'node:worker_threads';
import type { RecordingHeader } from '../../format/recording.js';
import type { FrameView, IslandConditioningView, SessionInfo } from '../../protocol/inspector.js';
import type { AppendedFrame } from '../../session/growingRecording.js';
import { startThread } from '../../session/threadScript.js';
import { LoadRequests, type ThreadLoad } from './threadLoad.js';
import type { ViewDiagnosis, ViewEvent, ViewRequest } from './viewMessages.js';

/**
 * A view thread started ahead of its stream, its frame-view code run once on a tiny recording (./warmUp.ts)
 * while the listener waits for a writer.
 */
export function startViewThread(): Worker {
  const worker = startThread('liveView', '../extension/live/viewThread');
  worker.unref();
  worker.postMessage({ op: 'warm' } satisfies ViewRequest);
  return worker;
}

export class ViewLink {
  private readonly worker: Worker;
  private closed = false;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(e: ViewEvent): void; reject(e: Error): void }>();
  private readonly loads = new LoadRequests();

  constructor(file: string, header: RecordingHeader, info: SessionInfo, thread?: Worker) {
    this.worker = thread ?? startViewThread();
    this.worker.on('message', (e: ViewEvent) => {
      if (e.type === 'load') return this.loads.answer(e.load);
      const p = this.pending.get(e.id);
      this.pending.delete(e.id);
      if (!p) return;
      if (e.type === 'error') p.reject(new Error(e.message));
      else p.resolve(e);
    });
    // a thread that failed answers nothing more: its stream's views are computed by the model again (alive)
    this.worker.on('error', (e) => this.fail(`the frame-view thread failed: ${e.message}`));
    this.worker.on('exit', () => this.fail('the frame-view thread ended'));
    this.post({ op: 'open', file, header, info });
  }

  private post(r: ViewRequest): void {
    if (!this.closed) this.worker.postMessage(r);
  }

  private fail(message: string): void {
    this.dead = true;
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
  }
  private dead = false;

  /** False once the thread failed, ended or was closed. */
  get alive(): boolean {
    return !this.dead && !this.closed;
  }

  append(frames: readonly AppendedFrame[]): void {
    if (frames.length) this.post({ op: 'append', frames });
  }

  diagnosed(results: readonly ViewDiagnosis[]): void {
    if (results.length) this.post({ op: 'diagnosed', results });
  }

  private request(r: { op: 'frame' | 'conditioning'; index: number }): Promise<ViewEvent> {
    if (!this.alive) return Promise.reject(new Error(this.closed ? 'the live stream was closed' : 'the frame-view thread ended'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ ...r, id });
    });
  }

  async frame(index: number): Promise<FrameView> {
    const e = await this.request({ op: 'frame', index });
    if (e.type !== 'frame') throw new Error(`the frame-view thread answered ${e.type} to a frame view`);
    return e.view;
  }

  async conditioning(index: number): Promise<readonly IslandConditioningView[]> {
    const e = await this.request({ op: 'conditioning', index });
    if (e.type !== 'conditioning') throw new Error(`the frame-view thread answered ${e.type} to a conditioning`);
    return e.islands;
  }

  /** The thread's load since the last reset (null once closed). */
  load(reset: boolean): Promise<ThreadLoad | null> {
    if (this.closed) return Promise.resolve(null);
    return this.loads.ask(() => this.post({ op: 'load', reset }));
  }

  close(): void {
    if (this.closed) return;
    this.fail('the live stream was closed');
    this.closed = true;
    this.loads.closeAll();
    void this.worker.terminate();
  }
}
