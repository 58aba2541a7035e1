/**
 * The diagnosis worker (worker_threads) of a parallel inspector open (parallelDiagnosis.ts): reads the
 * recording once more with the same RecordingReader (the same frames, the same skipped lines) and runs the
 * Diagnoser over every frame in order — the same sequential pass as an open on one thread, so the findings
 * are identical — while the opening thread indexes the file and builds the timeline. Posts one
 * DiagnosisWorkerResult, or { error } when the file cannot be read.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RecordingReader } from '../../format/recordingFile.js';
import { Diagnoser, type DiagnosisOptions } from '../../session/diagnose.js';
import type { DiagnosisWorkerResult } from './parallelDiagnosis.js';

async function run(): Promise<void> {
  const { file, options } = workerData as { file: string; options: Partial<DiagnosisOptions> };
  let d: Diagnoser | null = null;
  const injected: DiagnosisWorkerResult['injected'] = [];
  const byContact: DiagnosisWorkerResult['byContact'] = [];
  const reader = await RecordingReader.open(file, {
    onFrame: (_, f, header) => {
      d ??= new Diagnoser(header, options);
      d.add(f);
      // per frame only what the timeline keeps (the ledger is not sent: the inspector does not use it)
      const last = d.frames[d.frames.length - 1];
      injected.push(last.injected.size ? [...last.injected] : null);
      byContact.push(last.byContact.size ? [...last.byContact] : null);
      d.frames.length = 0;
    },
  });
  reader.close();
  const diag = d as Diagnoser | null;
  const result: DiagnosisWorkerResult = {
    findings: diag ? diag.findings : [],
    injected,
    byContact,
    exhaustedAt: diag ? diag.cost.exhaustedAt : null,
  };
  parentPort!.postMessage(result);
}

run().catch((e: unknown) => parentPort!.postMessage({ error: e instanceof Error ? e.message : String(e) }));
