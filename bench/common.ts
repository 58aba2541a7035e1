/** What every benchmark prints first and how it reads its arguments (`--json`, `--quick`). */
import fs from 'node:fs';
import inspector from 'node:inspector';
import os from 'node:os';

export interface BenchArgs {
  readonly json: boolean;
  readonly quick: boolean;
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const known = new Set(['--json', '--quick']);
  for (const a of argv) if (!known.has(a)) throw new Error(`unknown argument ${a} (expected --json and/or --quick)`);
  return { json: argv.includes('--json'), quick: argv.includes('--quick') };
}

export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
  /** 1-minute load average when the benchmark started (other processes disturb the timings). */
  readonly loadAverage: number;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
    cores: cpus.length,
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    date: new Date().toISOString(),
    loadAverage: os.loadavg()[0],
  };
}

/** CPU time of this process (user + system, ms): beside the wall time, since other processes inflate the latter. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Wall and CPU time of fn. */
export function timed<T>(fn: () => T): { value: T; wallMs: number; cpuMs: number } {
  const c = cpuMs(),
    t = performance.now();
  const value = fn();
  return { value, wallMs: performance.now() - t, cpuMs: cpuMs() - c };
}

/** The same for an async fn (CPU time includes whatever else the process did meanwhile). */
export async function timedAsync<T>(fn: () => Promise<T>): Promise<{ value: T; wallMs: number; cpuMs: number }> {
  const c = cpuMs(),
    t = performance.now();
  const value = await fn();
  return { value, wallMs: performance.now() - t, cpuMs: cpuMs() - c };
}

/** "1234 ms (56.7 MiB/s), CPU 1000 ms (70.0 MiB/s)" for a pass over `bytes`. */
export function rate(bytes: number, t: { wallMs: number; cpuMs: number }): string {
  const mib = bytes / 2 ** 20;
  return `${t.wallMs.toFixed(0)} ms (${(mib / (t.wallMs / 1000)).toFixed(1)} MiB/s), CPU ${t.cpuMs.toFixed(0)} ms (${(mib / (t.cpuMs / 1000)).toFixed(1)} MiB/s)`;
}

/**
 * Disk-speed references for a file, read the way the indexer reads it (1 MiB chunks, lines split on \n):
 * the bytes alone, and JSON.parse of every line (what any JSON reader pays; the index before the scanner
 * paid it plus validation).
 */
export function diskReferences(file: string): { read: ReturnType<typeof timed<number>>; jsonParse: ReturnType<typeof timed<number>> } {
  const pass = (parse: boolean): number => {
    const fd = fs.openSync(file, 'r');
    const buf = Buffer.allocUnsafe(1 << 20);
    let pos = 0,
      lines = 0,
      rest: Buffer[] = [];
    try {
      for (;;) {
        const n = fs.readSync(fd, buf, 0, buf.length, pos);
        if (n === 0) break;
        pos += n;
        if (!parse) continue;
        let s = 0;
        for (let nl = buf.indexOf(10, s); nl >= 0 && nl < n; nl = buf.indexOf(10, s)) {
          const line = rest.length ? Buffer.concat([...rest, buf.subarray(s, nl)]) : buf.subarray(s, nl);
          rest = [];
          JSON.parse(line.toString('utf8'));
          lines++;
          s = nl + 1;
        }
        if (s < n) rest.push(Buffer.from(buf.subarray(s, n)));
      }
    } finally {
      fs.closeSync(fd);
    }
    return parse ? lines : pos;
  };
  const read = timed(() => pass(false));
  const jsonParse = timed(() => pass(true));
  return { read, jsonParse };
}

/** Peak resident set size of this process so far (MiB; Linux/macOS getrusage). */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * Runs fn under the V8 sampling profiler (node:inspector) and returns the top self-time functions: the
 * profile evidence a benchmark prints beside a missed target.
 */
export async function topSelfTimes(fn: () => Promise<unknown> | unknown, top = 12): Promise<string[]> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params: object = {}): Promise<unknown> =>
    new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  let profile: { nodes: { id: number; callFrame: { functionName: string; url: string } }[]; samples: number[]; timeDeltas: number[] };
  try {
    await fn();
  } finally {
    profile = ((await post('Profiler.stop')) as { profile: typeof profile }).profile;
    session.disconnect();
  }
  const dt = new Map<number, number>();
  profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const self = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    const ms = (dt.get(n.id) ?? 0) / 1000;
    total += ms;
    const file = String(n.callFrame.url).match(/([^/%]+\.[cm]?[jt]s)(?:%22|$|\?)/)?.[1] ?? '';
    const key = `${n.callFrame.functionName || '(anonymous)'}${file ? ` (${file})` : ''}`;
    self.set(key, (self.get(key) ?? 0) + ms);
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, ms]) => `${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${k}`);
}
