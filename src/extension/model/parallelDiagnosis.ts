/**
 * The diagnosis of a recording in a worker thread, in parallel with the opening thread's index and timeline
 * (issue 16: "do the diagnosis in a worker in parallel with the index"). The Diagnoser is sequential — each
 * frame's findings depend on every earlier frame (contacts seen before, the non-physical tracks, the
 * counterfactual re-solve budget of the whole diagnosis) — so it is not split into frame ranges: the worker
 * runs the whole pass in frame order, exactly as one thread would, and the results are merged by frame
 * position. Each thread parses the lines it needs, so the CPU time grows by one parse of the file.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DiagnosisOptions, Finding, InjectionMechanism } from '../../session/diagnose.js';

/** What the diagnosis worker sends back: findings, and per frame position its injected joules. */
export interface DiagnosisWorkerResult {
  readonly findings: Finding[];
  /** Per frame position: joules per mechanism (null: none). */
  readonly injected: ([InjectionMechanism, number][] | null)[];
  /** Per frame position: injected joules per contact (frame order; null: none). */
  readonly byContact: ([number, number][] | null)[];
  /** First frame whose islands the re-solve budget left unsolved (null: none). */
  readonly exhaustedAt: number | null;
}

/** The diagnosis worker failed to start or to finish (the open then runs the diagnosis on its own thread). */
export class DiagnosisWorkerError extends Error {}

/**
 * A worker on the script beside this module: the bundle dist/diagnosisWorker.js, or under tsx (tests,
 * benchmarks) the .ts source, loaded through tsx's CommonJS hook registered in the worker's own thread.
 */
function startWorker(workerData: unknown): Worker {
  if (!__filename.endsWith('.ts')) return new Worker(path.join(__dirname, 'diagnosisWorker.js'), { workerData });
  const source = path.join(__dirname, 'diagnosisWorker.ts');
  return new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(source)});`, { eval: true, workerData });
}

/** Diagnoses `file` in a worker thread; the promise rejects with the worker's error (or the signal's reason). */
export function diagnoseInWorker(file: string, options: Partial<DiagnosisOptions>, signal?: AbortSignal): Promise<DiagnosisWorkerResult> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = startWorker({ file, options });
    } catch (e) {
      reject(new DiagnosisWorkerError(`${file}: the diagnosis worker could not start: ${(e as Error).message}`));
      return;
    }
    let settled = false;
    const done = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', abort);
      fn();
      void worker.terminate();
    };
    const abort = (): void => done(() => reject(signal!.reason));
    signal?.addEventListener('abort', abort, { once: true });
    worker.once('message', (m: DiagnosisWorkerResult | { error: string }) =>
      done(() => ('error' in m ? reject(new DiagnosisWorkerError(`${file}: diagnosis worker: ${m.error}`)) : resolve(m))),
    );
    worker.once('error', (e) => done(() => reject(new DiagnosisWorkerError(`${file}: diagnosis worker: ${e.message}`))));
    worker.once('exit', (code) => done(() => reject(new DiagnosisWorkerError(`${file}: the diagnosis worker exited (code ${code}) without a result`))));
  });
}
