/**
 * What one thread of a live session cost since its meter started (the worker op `liveLoad`, printed by
 * bench/live.ts): CPU time and time spent runnable but waiting for a CPU (Linux's /proc/thread-self/schedstat:
 * on a shared machine the second says how much of a latency is other processes' doing), the event loop's delay
 * (perf_hooks.monitorEventLoopDelay: how long a message to this thread may wait behind work already running)
 * and the V8 heap in use. Figures the system cannot give are null.
 */
import * as fs from 'node:fs';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

export interface ThreadLoad {
  readonly thread: string;
  /** Wall time the meter ran (ms). */
  readonly wallMs: number;
  /** CPU time of this thread (ms); null where the system does not say. */
  readonly cpuMs: number | null;
  /** Time this thread was runnable but not running (ms): CPUs busy with other work. */
  readonly waitMs: number | null;
  /** Event-loop delay (ms): median, 99th percentile, largest. */
  readonly delayP50: number;
  readonly delayP99: number;
  readonly delayMax: number;
  /** V8 heap in use now, and the heap's size (MiB). */
  readonly heapUsedMiB: number;
  readonly heapTotalMiB: number;
}

/** CPU and run-queue time of the calling thread (ms), or null off Linux. */
function schedStat(): { cpu: number; wait: number } | null {
  try {
    const [cpu, wait] = fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ').map(Number);
    return Number.isFinite(cpu) && Number.isFinite(wait) ? { cpu: cpu / 1e6, wait: wait / 1e6 } : null;
  } catch {
    return null;
  }
}

export class ThreadLoadMeter {
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 5 });
  private t0 = performance.now();
  private base = schedStat();

  constructor(readonly thread: string) {
    this.delay.enable();
  }

  /** The figures since the start (or the last reset). */
  read(): ThreadLoad {
    const s = schedStat();
    const h = getHeapStatistics();
    const ms = (ns: number): number => (Number.isFinite(ns) ? ns / 1e6 : 0);
    return {
      thread: this.thread,
      wallMs: performance.now() - this.t0,
      cpuMs: s && this.base ? s.cpu - this.base.cpu : null,
      waitMs: s && this.base ? s.wait - this.base.wait : null,
      delayP50: ms(this.delay.percentile(50)),
      delayP99: ms(this.delay.percentile(99)),
      delayMax: ms(this.delay.max),
      heapUsedMiB: h.used_heap_size / 2 ** 20,
      heapTotalMiB: h.total_heap_size / 2 ** 20,
    };
  }

  reset(): void {
    this.delay.reset();
    this.t0 = performance.now();
    this.base = schedStat();
  }

  stop(): void {
    this.delay.disable();
  }
}

/** A thread's answer to load requests: its meter, started by the first request (nothing runs before). */
export function loadMeter(thread: string): (reset: boolean) => ThreadLoad {
  let meter: ThreadLoadMeter | null = null;
  return (reset) => {
    if (!meter) meter = new ThreadLoadMeter(thread);
    else if (reset) meter.reset();
    return meter.read();
  };
}

/**
 * The host side of a live thread's load requests: each `ask` posts one request, the thread answers in order, and
 * `closeAll` answers whatever still waits with null (the thread ended).
 */
export class LoadRequests {
  private readonly waiting: ((l: ThreadLoad | null) => void)[] = [];

  ask(post: () => void): Promise<ThreadLoad | null> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      post();
    });
  }

  answer(l: ThreadLoad): void {
    this.waiting.shift()?.(l);
  }

  closeAll(): void {
    for (const r of this.waiting.splice(0)) r(null);
  }
}
