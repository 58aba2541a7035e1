/**
 * A live thread's scheduling priority. On a busy machine the threads that keep a stream moving — the I/O thread,
 * which drains the writer's socket (a writer whose socket is full waits in writeFrame), and the worker, which shows
 * the frames — should get a CPU before the diagnosis, which may lag and catches up (the recording on disk is its
 * queue, so memory stays flat). Linux keeps a nice value per thread: setpriority on the thread's own id
 * (/proc/thread-self) lowers this thread only. Elsewhere nothing changes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

/**
 * Nice value added to a live stream's diagnosis thread: CFS gives a thread at nice 5 about a third of the CPU share
 * of one at nice 0 when both are runnable (the kernel's sched_prio_to_weight table: 335 against 1024), and the
 * whole CPU when nothing else runs.
 */
export const DIAGNOSIS_NICE = 5;

/** Raises this thread's nice value by `by` (lowers its priority); returns the new value, or null where it cannot. */
export function lowerThisThread(by: number): number | null {
  try {
    const self = fs.readlinkSync('/proc/thread-self'); // "PID/task/TID"
    const tid = Number(self.slice(self.lastIndexOf('/') + 1));
    if (!Number.isInteger(tid) || tid <= 0) return null;
    const nice = Math.min(19, os.getPriority(tid) + by);
    os.setPriority(tid, nice);
    return os.getPriority(tid);
  } catch {
    return null; // not Linux, or not allowed: the thread keeps its priority
  }
}
