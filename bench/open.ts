/**
 * Inspector-open benchmark (prints, not a test):
 *   npx tsx bench/open.ts [recording.rec.jsonl ...] [--synthetic] [--profile]
 *
 * Times only what the extension's worker does when a recording opens in the inspector
 * (InspectorModel.fromRecording: index + timeline with κ + diagnosis), each in a child process of its own so
 * that the peak RSS is the open's. Without a file (or with --synthetic) it also writes the 10 000-frame
 * synthetic recording of bench/session.ts to os.tmpdir() (deleted afterwards). Prints per recording: wall and
 * CPU time with MiB/s, the findings count and a digest of the findings and the timeline (to compare builds:
 * run this file in a worktree of the other commit), and memory: the index's bytes, the largest frame line,
 * peak RSS and RSS before the open, the peaks of V8's heap and of external memory during the open, and what
 * the open keeps after a full collection (heap, array buffers). The issue 16 targets (open ≥ 60 MiB/s;
 * memory ≤ 1.5 × (index + one frame)) are printed MET or MISSED. `--profile` adds, from a second child run
 * under the sampling profiler, the open's top self-time functions. For a .cpuprofile file:
 * `node --import tsx --cpu-prof bench/open.ts FILE --child`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { InspectorModel } from '../src/extension/model/inspectorModel.js';
import { machineInfo, peakRssMiB, timedAsync, topSelfTimes } from './common.js';
import { writeSyntheticRecording } from './syntheticRecording.js';
import { type CacheOptions, sidecarPath } from '../src/format/sidecarCache.js';

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
}

const MiB = 2 ** 20;
/** Full collection when the child runs with --expose-gc (the figures of what the open keeps). */
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();

async function child(file: string, cached: boolean): Promise<void> {
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
  const cache: CacheOptions = cached ? { mode: 'always', dir: null } : { mode: 'off' };
  const opened = await timedAsync(() => InspectorModel.fromRecording(file, {}, undefined, undefined, cache));
  const c1 = process.cpuUsage(c0);
  clearInterval(sampler);
  const m = opened.value;
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
  };
  m.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

/** The open under the sampling profiler: its top self-time functions, one per line. */
async function profileChild(file: string): Promise<void> {
  const lines = await topSelfTimes(async () => (await InspectorModel.fromRecording(file)).close(), 14);
  process.stdout.write(JSON.stringify(lines) + '\n');
}

function runChild(file: string, mode: '--child' | '--profile-child', cached = false): string {
  const r = spawnSync(process.execPath, [...process.execArgv, '--expose-gc', __filename, file, mode, ...(cached ? ['--cached'] : [])], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').pop()!;
}

function report(file: string, label: string, profile: boolean): void {
  const size = fs.statSync(file).size,
    mib = size / MiB;
  console.log(`  recording ${label}: ${mib.toFixed(1)} MiB`);
  const res = JSON.parse(runChild(file, '--child')) as ChildResult;
  const wallRate = mib / (res.wallMs / 1000),
    cpuRate = mib / (res.cpuMs / 1000);
  console.log(
    `    open      ${res.wallMs.toFixed(0)} ms (${wallRate.toFixed(1)} MiB/s), CPU ${res.cpuMs.toFixed(0)} ms (${cpuRate.toFixed(1)} MiB/s); ${res.frames} frames, ${res.findings} findings, digest ${res.digest} — open ≥ 60 MiB/s ${wallRate >= 60 ? 'MET' : 'MISSED'} (wall), ${cpuRate >= 60 ? 'met' : 'missed'} in CPU time`,
  );
  const index = res.indexBytes / MiB,
    frame = res.largestLine / MiB,
    target = 1.5 * (index + frame),
    grew = res.peakRssMiB - res.rssBeforeMiB;
  console.log(
    `    memory    index ${index.toFixed(2)} MiB + largest frame line ${frame.toFixed(2)} MiB: target ≤ 1.5 × ${(index + frame).toFixed(2)} = ${target.toFixed(1)} MiB; peak RSS ${res.peakRssMiB.toFixed(0)} MiB, ${grew.toFixed(0)} MiB above the ${res.rssBeforeMiB.toFixed(0)} MiB before the open — ${grew <= target ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `              during the open: V8 heap used up to ${res.peakHeapMiB.toFixed(0)} MiB, external memory (array buffers, large strings) up to ${res.peakExternalMiB.toFixed(0)} MiB; kept after it (full collection): heap +${res.keptHeapMiB.toFixed(1)} MiB, array buffers +${res.keptArrayBuffersMiB.toFixed(1)} MiB`,
  );
  cachedOpens(file, mib, res.digest);
  if (profile) {
    console.log('    profile of the open (a second run under the sampling profiler), top self time:');
    for (const l of JSON.parse(runChild(file, '--profile-child')) as string[]) console.log(`      ${l}`);
  }
}

/**
 * With the recording's sidecar cache (docs/recording-format.md): the first open writes it (beside the recording,
 * removed afterwards unless it was there before), the second reads it. The findings and timeline must be the same.
 */
function cachedOpens(file: string, mib: number, digest: string): void {
  const sidecar = sidecarPath(file);
  const existed = fs.existsSync(sidecar);
  try {
    if (existed) console.log(`    (a cache is there already: ${sidecar}; the "first" open below reads it)`);
    const first = JSON.parse(runChild(file, '--child', true)) as ChildResult;
    const cacheMiB = (fs.statSync(sidecar, { throwIfNoEntry: false })?.size ?? 0) / MiB;
    const second = JSON.parse(runChild(file, '--child', true)) as ChildResult;
    const same = first.digest === digest && second.digest === digest ? 'same findings and timeline' : 'DIFFERENT findings or timeline';
    console.log(
      `    cached    first open ${first.wallMs.toFixed(0)} ms (${(mib / (first.wallMs / 1000)).toFixed(1)} MiB/s, writes the cache of ${cacheMiB.toFixed(1)} MiB), second open ${(second.wallMs / 1000).toFixed(2)} s (peak RSS ${second.peakRssMiB.toFixed(0)} MiB) — second open ≤ 2 s ${second.wallMs <= 2000 ? 'MET' : 'MISSED'}; ${same}`,
    );
  } finally {
    if (!existed) fs.rmSync(sidecar, { force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--child')) return child(args[0], args.includes('--cached'));
  if (args.includes('--profile-child')) return profileChild(args[0]);
  const files = args.filter((a) => !a.startsWith('--'));
  const profile = args.includes('--profile');
  const synthetic = files.length === 0 || args.includes('--synthetic');
  const mi = machineInfo();
  console.log(`Inspector open — ${mi.cpu} × ${mi.cores}, ${mi.platform}, Node ${mi.node}, load ${mi.loadAverage.toFixed(1)}, ${mi.date}`);
  for (const f of files) report(f, f, profile);
  if (synthetic) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-bench-open-'));
    try {
      const file = path.join(tmp, 'synthetic.rec.jsonl');
      writeSyntheticRecording(file);
      report(file, 'synthetic (bench/session.ts, 10 000 frames)', profile);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
}

void main();
