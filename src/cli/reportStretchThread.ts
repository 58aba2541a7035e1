/**
 * The thread that reads a large recording's later stretch while `report` or `diagnose` reads the rest
 * (session/stretch/, ./reportRows.ts; bundle dist/reportStretch.js beside dist/cli.js). One request, then messages
 * until `end` or `failed`.
 */
import { parentPort } from 'node:worker_threads';
import { serveStretch } from '../session/stretch/stretchDiagnosis.js';
import { reportStretch } from './reportRows.js';

if (!parentPort) throw new Error('reportStretchThread.ts must run in a worker thread');
serveStretch(parentPort, reportStretch);
