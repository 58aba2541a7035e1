/**
 * Runs many recordings through runJob.ts: in worker threads (`--jobs N`, each worker one recording at a time,
 * the next file to whichever finishes first) or, with one job, in this thread. The outcomes come back in the
 * files' order whatever the order they finish in, so the summary and the tables do not depend on scheduling.
 * A progress bar on a terminal; a line every tenth of the way otherwise (CI logs).
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { type RunOutcome, type RunTask, runJob } from './runJob.js';
import type { Output } from './output.js';

/** What the worker threads run: this very file (the CLI bundle when built, the module under tsx in tests). */
const WORKER_FLAG = 'contactLensRunWorker';

function bar(done: number, total: number, t0: number): string {
  const width = 24,
    filled = Math.round((width * done) / Math.max(1, total));
  const s = (performance.now() - t0) / 1000;
  const eta = done > 0 ? (s / done) * (total - done) : NaN;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} recordings, ${s.toFixed(1)} s${done > 0 && done < total ? `, about ${eta.toFixed(0)} s left` : ''}`;
}

/**
 * A worker thread running this file. The built CLI is one CommonJS bundle that Node loads as it is; the TypeScript
 * module (tests and `tsx`) needs tsx's require hook in the thread, since Node does not hand a loader registered by
 * `--import` to worker threads.
 */
function startWorker(): Worker {
  const workerData = { [WORKER_FLAG]: true };
  if (!__filename.endsWith('.ts')) return new Worker(__filename, { workerData });
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(__filename)});`, { eval: true, workerData });
}

/** Runs every task; `label` names the command in the progress lines. */
export async function runAll(tasks: readonly RunTask[], jobs: number, io: Output, label: string): Promise<RunOutcome[]> {
  const out: RunOutcome[] = new Array(tasks.length);
  const t0 = performance.now();
  let done = 0,
    lastTenth = 0;
  const tick = (): void => {
    done++;
    if (io.progress) io.progress(bar(done, tasks.length, t0));
    else if (tasks.length >= 20 && Math.floor((10 * done) / tasks.length) > lastTenth) {
      lastTenth = Math.floor((10 * done) / tasks.length);
      io.err(`${label}: ${done}/${tasks.length} recordings (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    }
  };
  const n = Math.max(1, Math.min(jobs, tasks.length));
  if (n === 1) {
    for (let i = 0; i < tasks.length; i++) {
      out[i] = runJob(tasks[i]);
      tick();
      await new Promise((r) => setImmediate(r)); // Ctrl-C and the progress line get their turn
    }
  } else {
    let next = 0;
    const workers: Worker[] = [];
    try {
      await Promise.all(
        Array.from({ length: n }, () => {
          const w = startWorker();
          workers.push(w);
          return new Promise<void>((resolve, reject) => {
            let current = -1;
            const feed = (): void => {
              if (next >= tasks.length) {
                resolve();
                return;
              }
              current = next++;
              w.postMessage(tasks[current]);
            };
            w.on('message', (o: RunOutcome) => {
              out[current] = o;
              tick();
              feed();
            });
            w.on('error', reject);
            w.on('exit', (code) => (code === 0 || next >= tasks.length ? resolve() : reject(new Error(`a worker stopped (exit code ${code})`))));
            feed();
          });
        }),
      );
    } finally {
      await Promise.all(workers.map((w) => w.terminate()));
    }
  }
  io.progress?.('');
  return out;
}

// in a worker thread started by runAll: one task per message, one outcome back
if (!isMainThread && (workerData as Record<string, unknown> | null)?.[WORKER_FLAG]) {
  parentPort!.on('message', (task: RunTask) => parentPort!.postMessage(runJob(task)));
}
