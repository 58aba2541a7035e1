/**
 * The simulation worker's handle on a live stream's diagnosis thread (./diagnosisThread.ts): starts it on the
 * stream's recording, tells it when lines were appended, and hands each frame's diagnosis back in order.
 */
import type { Worker } from 'node:worker_threads';
import type { FrameDiagnosisResult } from '../model/timelineBuilder.js';
import type { DiagnosisSettings } from '../worker/workerProtocol.js';
import type { DiagnosisEvent, DiagnosisRequest } from './diagnosisMessages.js';
import { startThread } from './threadScript.js';

export class DiagnosisLink {
  private readonly worker: Worker;
  private closed = false;

  constructor(
    file: string,
    diagnosis: DiagnosisSettings,
    maxLineBytes: number,
    on: { diagnosed(r: FrameDiagnosisResult): void; failed(message: string): void },
  ) {
    this.worker = startThread('liveDiagnosis', 'diagnosisThread');
    this.worker.unref();
    this.worker.on('message', (e: DiagnosisEvent) => {
      if (this.closed) return;
      if (e.type === 'diagnosed') on.diagnosed(e.result);
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

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.worker.terminate();
  }
}
