/**
 * The thread that diagnoses the later stretch of a recording while the open reads the rest (./stretchDiagnosis.ts,
 * ./parallelOpen.ts; bundle dist/stretchDiagnosis.js). One request, then messages until `end` or `failed`.
 */
import { parentPort } from 'node:worker_threads';
import { diagnoseStretch, type StretchEvent, type StretchRequest } from './stretchDiagnosis.js';

if (!parentPort) throw new Error('stretchDiagnosisThread.ts must run in a worker thread');
const port = parentPort;
const post = (e: StretchEvent): void => port.postMessage(e);

port.once('message', (r: StretchRequest) => {
  try {
    diagnoseStretch(r, {
      warmedUp: (first) => post({ type: 'warmedUp', first }),
      progress: (bytes) => post({ type: 'progress', bytes }),
      end: (result) => post({ type: 'end', result }),
    });
  } catch (e) {
    post({ type: 'failed', message: (e as Error).message });
  }
});
