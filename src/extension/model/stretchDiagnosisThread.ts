/**
 * The thread that diagnoses the later stretch of a recording while the inspector's open reads the rest
 * (session/stretch/, ./parallelOpen.ts; bundle dist/stretchDiagnosis.js). One request, then messages until `end` or
 * `failed`.
 */
import { parentPort } from 'node:worker_threads';
import { serveStretch } from '../../session/stretch/stretchDiagnosis.js';
import { timelineStretch } from './timelineStretch.js';

if (!parentPort) throw new Error('stretchDiagnosisThread.ts must run in a worker thread');
serveStretch(parentPort, timelineStretch);
