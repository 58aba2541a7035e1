/**
 * A last resort for a read that never returns: HDF5 (C code in WebAssembly, run synchronously) can loop on
 * a damaged file, and nothing on the blocked main thread can stop it. A watchdog thread waits on a shared
 * flag (Atomics.wait, no event loop needed); if the read has not finished within the limit it writes one
 * line naming the file and the limit to stderr and ends the process (SIGKILL: exit status 137). Only the CLI
 * uses it: in the extension the worker is cancelled by terminating it.
 */
import { Worker } from 'node:worker_threads';
import { safePath } from '../format/messages.js';

/** Longest an HDF5 problem file may take to read (ms), h5wasm's start-up included. */
export const HDF5_READ_LIMIT_MS = 60_000;

const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.flag);
if (Atomics.wait(flag, 0, 0, workerData.ms) === 'timed-out') {
  require('node:fs').writeSync(2, workerData.message + '\\n');
  process.kill(process.pid, 'SIGKILL');
}`;

/** Runs `work`; if it has not settled within `ms`, the process ends with one line saying why. */
export async function withWatchdog<T>(file: string, ms: number, what: string, work: () => Promise<T>): Promise<T> {
  const flag = new SharedArrayBuffer(4);
  const message = `contact-lens: ${safePath(file)}: ${what} did not finish within ${ms / 1000} s (the file is damaged in a way that makes the HDF5 library loop); stopped`;
  const dog = new Worker(WATCHDOG, { eval: true, workerData: { flag, ms, message } });
  dog.unref();
  try {
    return await work();
  } finally {
    const f = new Int32Array(flag);
    Atomics.store(f, 0, 1);
    Atomics.notify(f, 0);
  }
}
