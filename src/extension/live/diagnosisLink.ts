/**
 * The simulation worker's handle on a live stream's diagnosis thread (./diagnosisThread.ts): starts it on the
 * stream's recording, tells it when lines were appended, and hands each frame's diagnosis back in order.
 */
import type { Worker } from 'node:worker_threads';
import type { FrameDiagnosisResult } from '../model/timelineBuilder.js';
import type { DiagnosisSettings } from '../worker/workerProtocol.js';
import type { DiagnosisEvent, DiagnosisRequest } from './diagnosisMessages.js';
import { startThread } from '../../session/threadScript.js';
import { LoadRequests, type ThreadLoad } from './threadLoad.js';

/**
 * A diagnosis thread started ahead of its stream: its code is loaded, compiled and run once (./warmUp.ts) while
 * the listener waits for a writer, not in the first moments of the stream, when that work would compete for the
 * CPU with the frames shown.
 */
export function startDiagnosisThread(): Worker {
  const worker = startThread('liveDiagnosis', '../extension/live/diagnosisThread');
  worker.unref();
  worker.postMessage({ op: 'warm' } satisfies DiagnosisRequest); // its code run once before the stream's first frame
  return worker;
}

export class DiagnosisLink {
  private readonly worker: Worker;
  private closed = false;
  private readonly loads = new LoadRequests();

  constructor(
    file: string,
    diagnosis: DiagnosisSettings,
    maxLineBytes: number,
    on: { diagnosed(r: FrameDiagnosisResult): void; failed(message: string): void },
    /** A thread from startDiagnosisThread() that no stream used yet (default: one started now). */
    thread?: Worker,
  ) {
    this.worker = thread ?? startDiagnosisThread();
    this.worker.on('message', (e: DiagnosisEvent) => {
      if (this.closed) return;
      if (e.type === 'diagnosed') on.diagnosed(e.result);
      else if (e.type === 'load') this.loads.answer(e.load);
      else on.failed(e.message);
    });
    this.worker.on('error', (e) => {
      if (!this.closed) on.failed(`${file}: the diagnosis thread failed: ${e.message}`);
    });
    this.post({ op: 'start', file, diagnosis, maxLineBytes });
  }

  private post(r: DiagnosisRequest): void {
    this.worker.postMessage(r);
  }

  /** Lines were appended to the recording. */
  kick(): void {
    if (!this.closed) this.post({ op: 'kick' });
  }

  /** The thread's load since the last reset (null once closed). */
  load(reset: boolean): Promise<ThreadLoad | null> {
    if (this.closed) return Promise.resolve(null);
    return this.loads.ask(() => this.post({ op: 'load', reset }));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.loads.closeAll();
    void this.worker.terminate();
  }
}
