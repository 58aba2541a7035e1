/**
 * Inspector-open benchmark (prints, not a test):
 *   npx tsx bench/open.ts [recording.rec.jsonl[.gz] ...] [--synthetic] [--profile] [--base DIR]
 *
 * Times only what the extension's worker does when a recording opens in the inspector
 * (InspectorModel.fromRecording: index + timeline with κ + diagnosis), each in a child process of its own so
 * that the peak RSS is the open's. Without a file (or with --synthetic) it also writes the 10 000-frame
 * synthetic recording of bench/session.ts to os.tmpdir() (deleted afterwards). Prints per recording: wall and
 * CPU time with MiB/s, the findings count and a digest of the findings and the timeline (to compare builds),
 * memory (the index's bytes, the largest frame line, peak RSS and RSS before the open, the peaks of V8's heap
 * and of external memory during the open, what the open keeps after a full collection), then after the open
 * the frame view of the frame nearest 3 800 contacts (median of 3, read from disk each time; then the conditioning
 * of the islands it left pending, the `conditioning` message, when the build has it), the same view again once the
 * view's code is warm (after views of 10 other frames: scrubbing), and 100 random
 * frame reads (positioned read, inflate for a compressed file, parse or decode of the frame store), and the view's
 * own work (its frame already read: what builds compare whatever their reads cost). The first
 * open writes the recording's sidecar cache, then builds its frame store (timed apart: views and reads are
 * measured once it is in place), and a second process opens from them and measures the same frame view and reads
 * (cache and store are removed afterwards unless the cache was there).
 * `--base DIR` runs the same measurements first with the source of another checkout (e.g. a worktree of main:
 * `git worktree add --detach /tmp/base main && ln -s "$PWD/node_modules" /tmp/base/node_modules`), without a
 * cache, so that both builds are measured in the same minutes. The targets (open ≥ 100 MiB/s, second open ≤ 2 s,
 * frame view ≤ 30 ms, seek median ≤ 30 ms; memory ≤ 1.5 × (index + one frame)) are printed MET or MISSED.
 * Before the first open, `1 thread` is this checkout's open without its second thread (src/extension/model/parallelOpen.ts:
 * a plain recording of 32 MiB or more is read by two), without a cache; the line after each open says how it read.
 * Then `report`'s pass (report and diagnosis, as `contact-lens report` and `diagnose` run it, no cache) on one
 * thread and as the CLI runs it (a large plain recording on two: src/cli/recordingReport.ts), with a digest of what
 * they print (equal when the two-thread pass is exact).
 * `--profile` adds, from a further child run under the sampling profiler, the open's top self-time functions.
 * For a .cpuprofile file: `node --import tsx --cpu-prof bench/open.ts FILE --child`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { InspectorModel } from '../src/extension/model/inspectorModel.js';
import { machineInfo, peakRssMiB, timed, timedAsync, topSelfTimes } from './common.js';
import { writeSyntheticRecording } from './syntheticRecording.js';
import { type CacheOptions, sidecarPath } from '../src/format/sidecarCache.js';
import { REPORT_PARALLEL, reportRecordingParallel } from '../src/cli/recordingReport.js';

interface ChildResult {
  wallMs: number;
  cpuMs: number;
  peakRssMiB: number;
  rssBeforeMiB: number;
  findings: number;
  digest: string;
  frames: number;
  largestLine: number;
  indexBytes: number;
  /** Peaks sampled every 5 ms during the open (MiB). */
  peakHeapMiB: number;
  peakExternalMiB: number;
  /** After the open and a full collection, above the same figures before the open (MiB). */
  keptHeapMiB: number;
  keptArrayBuffersMiB: number;
  /** The frame view of the frame nearest 3 800 contacts (median of 3 from disk), and its contacts. */
  view: {
    frame: number;
    contacts: number;
    wallMs: number;
    cpuMs: number;
    pending: number;
    conditioningWallMs: number;
    conditioningCpuMs: number;
    /** The same view after views of 10 other frames (the view's code warm, as when scrubbing), median of 5. */
    warmWallMs?: number;
    warmCpuMs?: number;
    /**
     * The view's own work: the same view with its frame already read (not timed), the κ of its pending islands
     * computed between views as the webview asks for it; median of 20. Comparable between builds whatever their
     * frame reads cost (a `--base` open keeps no frame store).
     */
    ownWallMs?: number;
    ownCpuMs?: number;
  };
  /** 100 random frame reads after the open (sorted, ms). */
  seekWallMs: number[];
  seekCpuMs: number[];
  /** Frame reads served by the cache's frame store (absent: a build without one). */
  storeReads?: number;
  /** The frame store's build after the open (InspectorModel.frameStoreReady; absent: a build that writes it during the open). */
  storeBuild?: { built: boolean; wallMs: number; cpuMs: number };
  /** How the open read the recording (InspectorModel.opened; absent: a build without it). */
  opened?: string;
}

const MiB = 2 ** 20;
/** Full collection when the child runs with --expose-gc (the figures of what the open keeps). */
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();

/** The model class of this checkout, or of `--src DIR`'s (the same API: a worktree of another commit). */
async function modelClass(src: string | null): Promise<typeof InspectorModel> {
  if (src === null) return InspectorModel;
  const mod = (await import(path.join(path.resolve(src), 'src', 'extension', 'model', 'inspectorModel.ts'))) as { InspectorModel: typeof InspectorModel };
  return mod.InspectorModel;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** After the open: the frame view nearest 3 800 contacts and 100 random frame reads, each from disk. */
function viewsAndSeeks(m: InspectorModel): Pick<ChildResult, 'view' | 'seekWallMs' | 'seekCpuMs'> {
  const n = m.info.frameCount,
    contacts = m.timeline.contacts;
  let near = 0;
  for (let i = 1; i < n; i++) if (Math.abs(contacts[i] - 3800) < Math.abs(contacts[near] - 3800)) near = i;
  const reader = m.session.reader!;
  const wall: number[] = [],
    cpu: number[] = [],
    condWall: number[] = [],
    condCpu: number[] = [];
  // a build whose view leaves the larger islands' conditioning pending computes it next (the `conditioning` message)
  const later = (m as { conditioning?: (i: number) => readonly unknown[] }).conditioning?.bind(m);
  let pending = 0;
  for (let k = 0; k < 3; k++) {
    m.forgetFrameViews();
    // other frames into the session's cache, so that the view reads its frame from disk
    for (let j = 0, loaded = 0; j < n && loaded < 9; j++) {
      if (j === near) continue;
      m.session.frame(j);
      loaded++;
    }
    reader.frame((near + 1) % n); // and the reader's last inflated span elsewhere
    const v = timed(() => m.frameView(near));
    wall.push(v.wallMs);
    cpu.push(v.cpuMs);
    const c = timed(() => later?.(near).length ?? 0);
    pending = c.value;
    condWall.push(c.wallMs);
    condCpu.push(c.cpuMs);
  }
  // the same view once the view's code is warm, as when scrubbing: after views of 10 other frames, median of 5
  for (let j = 0, done = 0; j < n && done < 10; j++) {
    if (j === near) continue;
    m.frameView(j);
    later?.(j);
    done++;
  }
  const warmWall: number[] = [],
    warmCpu: number[] = [];
  for (let k = 0; k < 5; k++) {
    m.forgetFrameViews();
    for (let j = 0, loaded = 0; j < n && loaded < 9; j++) {
      if (j === near) continue;
      m.session.frame(j);
      loaded++;
    }
    const v = timed(() => m.frameView(near));
    warmWall.push(v.wallMs);
    warmCpu.push(v.cpuMs);
    later?.(near);
  }
  const ownWall: number[] = [],
    ownCpu: number[] = [];
  for (let k = 0; k < 20; k++) {
    m.forgetFrameViews();
    m.session.frame(near);
    const v = timed(() => m.frameView(near));
    ownWall.push(v.wallMs);
    ownCpu.push(v.cpuMs);
    later?.(near);
  }
  let seed = 11;
  const seekWallMs: number[] = [],
    seekCpuMs: number[] = [];
  for (let k = 0; k < 100; k++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const r = timed(() => reader.frame((seed >>> 8) % n));
    seekWallMs.push(r.wallMs);
    seekCpuMs.push(r.cpuMs);
  }
  return {
    view: {
      frame: near,
      contacts: contacts[near],
      wallMs: median(wall),
      cpuMs: median(cpu),
      pending,
      conditioningWallMs: median(condWall),
      conditioningCpuMs: median(condCpu),
      warmWallMs: median(warmWall),
      warmCpuMs: median(warmCpu),
      ownWallMs: median(ownWall),
      ownCpuMs: median(ownCpu),
    },
    seekWallMs: seekWallMs.sort((a, b) => a - b),
    seekCpuMs: seekCpuMs.sort((a, b) => a - b),
  };
}

async function child(file: string, cached: boolean, src: string | null, oneThread = false): Promise<void> {
  const Model = await modelClass(src);
  collect();
  const m0 = process.memoryUsage();
  const rssBeforeMiB = m0.rss / MiB;
  let peakHeap = m0.heapUsed,
    peakExternal = m0.external;
  // the open awaits each chunk read, so this samples between chunks
  const sampler = setInterval(() => {
    const u = process.memoryUsage();
    peakHeap = Math.max(peakHeap, u.heapUsed);
    peakExternal = Math.max(peakExternal, u.external);
  }, 5);
  const c0 = process.cpuUsage();
  const cache: CacheOptions = cached ? { mode: 'always', dir: null, frameStore: true } : { mode: 'off' };
  // --one-thread: this checkout's open without its second thread (parallelOpen.ts), for the same run's comparison
  const opened = await timedAsync(() =>
    oneThread ? Model.fromRecording(file, {}, undefined, undefined, cache, null) : Model.fromRecording(file, {}, undefined, undefined, cache),
  );
  const c1 = process.cpuUsage(c0);
  clearInterval(sampler);
  const m = opened.value;
  // the frame store is built after the open (views and reads are measured once it is in place)
  const ready = (m as { frameStoreReady?: Promise<boolean> }).frameStoreReady;
  const building = ready ? await timedAsync(() => ready) : null;
  const digest = createHash('sha256').update(JSON.stringify(m.findings)).update(JSON.stringify(m.timeline)).digest('hex').slice(0, 16);
  const reader = m.session.reader!;
  let largestLine = 0;
  for (let i = 0; i < m.info.frameCount; i++) largestLine = Math.max(largestLine, reader.summary(i).length);
  collect();
  const m1 = process.memoryUsage();
  const out: ChildResult = {
    wallMs: opened.wallMs,
    cpuMs: (c1.user + c1.system) / 1000,
    peakRssMiB: peakRssMiB(),
    rssBeforeMiB,
    findings: m.findings.length,
    digest,
    frames: m.info.frameCount,
    largestLine,
    indexBytes: reader.indexBytes,
    peakHeapMiB: peakHeap / MiB,
    peakExternalMiB: peakExternal / MiB,
    keptHeapMiB: (m1.heapUsed - m0.heapUsed) / MiB,
    keptArrayBuffersMiB: (m1.arrayBuffers - m0.arrayBuffers) / MiB,
    ...viewsAndSeeks(m),
    storeReads: (reader as { framesFromStore?: number }).framesFromStore,
    ...(building ? { storeBuild: { built: building.value, wallMs: building.wallMs, cpuMs: building.cpuMs } } : {}),
    ...(m.opened
      ? {
          opened:
            m.opened.kind === 'one-thread'
              ? 'one thread'
              : m.opened.kind === 'two-threads'
                ? `two threads, the second from frame ${m.opened.from}`
                : `two threads started, read on alone from frame ${m.opened.from}: ${m.opened.why}`,
        }
      : {}),
  };
  m.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

/** `report`'s pass (report and diagnosis, no cache) on one thread or, for a large plain recording, two. */
async function reportChild(file: string, oneThread: boolean): Promise<void> {
  const c0 = process.cpuUsage();
  const run = await timedAsync(() => reportRecordingParallel(file, { cache: { mode: 'off' } }, oneThread ? null : REPORT_PARALLEL));
  const c1 = process.cpuUsage(c0);
  const r = run.value;
  r.reader.close();
  const printed = JSON.stringify({ report: r.report, diagnosis: r.diagnosis }, (k, v) => (k === 'ms' || k === 'timeMs' ? undefined : v));
  const out: ReportChildResult = {
    wallMs: run.wallMs,
    cpuMs: (c1.user + c1.system) / 1000,
    peakRssMiB: peakRssMiB(),
    findings: r.diagnosis.findings.length,
    digest: createHash('sha256').update(printed).digest('hex').slice(0, 16),
    opened:
      r.outcome.kind === 'two-threads'
        ? `two threads, the second from frame ${r.outcome.from}`
        : r.outcome.kind === 'read-on'
          ? `read on alone from frame ${r.outcome.from}: ${r.outcome.why}`
          : 'one thread',
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

interface ReportChildResult {
  wallMs: number;
  cpuMs: number;
  peakRssMiB: number;
  findings: number;
  digest: string;
  opened: string;
}

/** `report` of the recording on one thread and as the CLI runs it, in the same minutes. */
function reportRows(file: string, mib: number): void {
  for (const [label, oneThread] of [
    ['report, 1 thread', true],
    ['report', false],
  ] as const) {
    const r = JSON.parse(runChild(file, '--report-child', false, null, oneThread)) as ReportChildResult;
    console.log(
      `    ${label.padEnd(17)} ${(r.wallMs / 1000).toFixed(2)} s (${(mib / (r.wallMs / 1000)).toFixed(1)} MiB/s), CPU ${(r.cpuMs / 1000).toFixed(2)} s, peak RSS ${r.peakRssMiB.toFixed(0)} MiB; ${r.findings} findings, report and diagnosis ${r.digest}; ${r.opened}`,
    );
  }
}

/** The open under the sampling profiler: its top self-time functions, one per line. */
async function profileChild(file: string): Promise<void> {
  const lines = await topSelfTimes(async () => (await InspectorModel.fromRecording(file)).close(), 14);
  process.stdout.write(JSON.stringify(lines) + '\n');
}

function runChild(file: string, mode: '--child' | '--profile-child' | '--report-child', cached = false, src: string | null = null, oneThread = false): string {
  const extra = [...(cached ? ['--cached'] : []), ...(src !== null ? ['--src', src] : []), ...(oneThread ? ['--one-thread'] : [])];
  const r = spawnSync(process.execPath, [...process.execArgv, '--expose-gc', __filename, file, mode, ...extra], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').pop()!;
}

/** One open's lines: time and rate, frame view, seeks. */
function printOpen(label: string, mib: number, res: ChildResult): void {
  const wallRate = mib / (res.wallMs / 1000),
    cpuRate = mib / (res.cpuMs / 1000);
  console.log(
    `    ${label.padEnd(9)} open ${res.wallMs.toFixed(0)} ms (${wallRate.toFixed(1)} MiB/s), CPU ${res.cpuMs.toFixed(0)} ms (${cpuRate.toFixed(1)} MiB/s of one core's time); ${res.frames} frames, ${res.findings} findings, digest ${res.digest}, peak RSS ${res.peakRssMiB.toFixed(0)} MiB — open ≥ 100 MiB/s ${wallRate >= 100 ? 'MET' : 'MISSED'} (wall), ${cpuRate >= 100 ? 'met' : 'missed'} in CPU time`,
  );
  if (res.opened) console.log(`              read on ${res.opened}`);
  const b = res.storeBuild;
  if (b)
    console.log(
      `              ${b.built ? `the frame store built after the open in ${(b.wallMs / 1000).toFixed(1)} s (CPU ${(b.cpuMs / 1000).toFixed(1)} s), frame reads parsing their lines meanwhile` : 'no frame store built after the open (one was there, or none is kept)'}`,
    );
  printReads(res);
}

/** The frame view and the 100 random frame reads after an open. */
function printReads(res: ChildResult): void {
  const q = (xs: number[], p: number): string => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(1);
  const seekMedian = Number(q(res.seekWallMs, 0.5));
  const store = res.storeReads === undefined ? '' : `; ${res.storeReads} reads decoded the frame store`;
  console.log(
    `              frame view of frame ${res.view.frame} (${res.view.contacts} contacts, from disk) ${res.view.wallMs.toFixed(1)} ms, CPU ${res.view.cpuMs.toFixed(1)} ms — ≤ 30 ms ${res.view.wallMs <= 30 ? 'MET' : 'MISSED'}${res.view.pending > 0 ? ` (then the conditioning of its ${res.view.pending} pending islands ${res.view.conditioningWallMs.toFixed(1)} ms, CPU ${res.view.conditioningCpuMs.toFixed(1)} ms)` : ''}; 100 random frame reads median ${q(res.seekWallMs, 0.5)} ms (CPU ${q(res.seekCpuMs, 0.5)} ms), p95 ${q(res.seekWallMs, 0.95)} ms, max ${res.seekWallMs[99].toFixed(1)} ms — median ≤ 30 ms ${seekMedian <= 30 ? 'MET' : 'MISSED'}${store}`,
  );
  const warm = res.view.warmWallMs;
  if (warm !== undefined)
    console.log(
      `              frame view of frame ${res.view.frame} again after views of 10 other frames (warm code, as when scrubbing; median of 5) ${warm.toFixed(1)} ms, CPU ${res.view.warmCpuMs!.toFixed(1)} ms — ≤ 30 ms ${warm <= 30 ? 'MET' : 'MISSED'}`,
    );
  const own = res.view.ownWallMs;
  if (own !== undefined)
    console.log(
      `              the view's own work (its frame already read, the κ of its pending islands between views; median of 20) ${own.toFixed(1)} ms, CPU ${res.view.ownCpuMs!.toFixed(1)} ms`,
    );
}

function report(file: string, label: string, profile: boolean, base: string | null): void {
  const size = fs.statSync(file).size,
    mib = size / MiB;
  console.log(`  recording ${label}: ${mib.toFixed(1)} MiB`);
  const baseDigest = base !== null ? JSON.parse(runChild(file, '--child', false, base)) : null;
  if (baseDigest) printOpen('base', mib, baseDigest as ChildResult);
  // this checkout on one thread, without a cache: what the second thread changes, in the same minutes
  const oneThread = JSON.parse(runChild(file, '--child', false, null, true)) as ChildResult;
  printOpen('1 thread', mib, oneThread);
  const sidecar = sidecarPath(file);
  const store = sidecar.replace(/\.clcache$/, '.clframes');
  const existed = fs.existsSync(sidecar);
  try {
    if (existed) console.log(`    (a cache is there already: ${sidecar}; the first open below reads it)`);
    const res = JSON.parse(runChild(file, '--child', true)) as ChildResult;
    printOpen('this', mib, res);
    const index = res.indexBytes / MiB,
      frame = res.largestLine / MiB,
      target = 1.5 * (index + frame),
      grew = res.peakRssMiB - res.rssBeforeMiB;
    console.log(
      `              memory: index ${index.toFixed(2)} MiB + largest frame line ${frame.toFixed(2)} MiB: target ≤ 1.5 × ${(index + frame).toFixed(2)} = ${target.toFixed(1)} MiB; peak RSS ${res.peakRssMiB.toFixed(0)} MiB, ${grew.toFixed(0)} MiB above the ${res.rssBeforeMiB.toFixed(0)} MiB before the open — ${grew <= target ? 'MET' : 'MISSED'}; during the open V8 heap up to ${res.peakHeapMiB.toFixed(0)} MiB, external up to ${res.peakExternalMiB.toFixed(0)} MiB; kept after it: heap +${res.keptHeapMiB.toFixed(1)} MiB, array buffers +${res.keptArrayBuffersMiB.toFixed(1)} MiB`,
    );
    const cacheMiB = (fs.statSync(sidecar, { throwIfNoEntry: false })?.size ?? 0) / MiB;
    const storeMiB = (fs.statSync(store, { throwIfNoEntry: false })?.size ?? 0) / MiB;
    const second = JSON.parse(runChild(file, '--child', true)) as ChildResult;
    const same = second.digest === res.digest && oneThread.digest === res.digest && (baseDigest === null || baseDigest.digest === res.digest);
    console.log(
      `    cached    the first open wrote a cache of ${cacheMiB.toFixed(1)} MiB and a frame store of ${storeMiB.toFixed(1)} MiB; second open ${(second.wallMs / 1000).toFixed(2)} s (CPU ${(second.cpuMs / 1000).toFixed(2)} s, peak RSS ${second.peakRssMiB.toFixed(0)} MiB) — ≤ 2 s ${second.wallMs <= 2000 ? 'MET' : 'MISSED'}; ${same ? 'the same findings and timeline' : 'DIFFERENT findings or timeline'}${baseDigest ? ' in every open (base included)' : ''}`,
    );
    printReads(second);
  } finally {
    if (!existed) {
      fs.rmSync(sidecar, { force: true });
      fs.rmSync(store, { force: true });
    }
  }
  reportRows(file, mib);
  if (profile) {
    console.log('    profile of the open (a further run under the sampling profiler), top self time:');
    for (const l of JSON.parse(runChild(file, '--profile-child')) as string[]) console.log(`      ${l}`);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const srcAt = args.indexOf('--src');
  if (args.includes('--child')) return child(args[0], args.includes('--cached'), srcAt >= 0 ? args[srcAt + 1] : null, args.includes('--one-thread'));
  if (args.includes('--profile-child')) return profileChild(args[0]);
  if (args.includes('--report-child')) return reportChild(args[0], args.includes('--one-thread'));
  const baseAt = args.indexOf('--base');
  const base = baseAt >= 0 ? args[baseAt + 1] : null;
  const files = args.filter((a, k) => !a.startsWith('--') && !(baseAt >= 0 && k === baseAt + 1));
  const profile = args.includes('--profile');
  const synthetic = files.length === 0 || args.includes('--synthetic');
  const mi = machineInfo();
  console.log(`Inspector open — ${mi.cpu} × ${mi.cores}, ${mi.platform}, Node ${mi.node}, load ${mi.loadAverage.toFixed(1)}, ${mi.date}`);
  for (const f of files) report(f, f, profile, base);
  if (synthetic) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-bench-open-'));
    try {
      const file = path.join(tmp, 'synthetic.rec.jsonl');
      writeSyntheticRecording(file);
      report(file, 'synthetic (bench/session.ts, 10 000 frames)', profile, base);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
}

void main();
