/**
 * youngGeneration — the inspector's first open of a recording in a worker thread (as the extension's simulation
 * worker runs it) at several sizes of V8's young generation (Worker resourceLimits.maxYoungGenerationSizeMb):
 * wall and CPU time of the open, the warm frame view of its busiest frame and the process's peak resident memory,
 * each size in a process of its own. The extension keeps V8's default (docs/benchmarks.md: a larger young
 * generation opens faster and views slower).
 *
 *   npx tsx bench/youngGeneration.ts RECORDING [MB …]      (default: V8's default and 192 MB, alternately, 3 times; 0 = V8's default)
 *
 * The findings and timeline digest must be the same at every size. Not a test: the figures go to
 * docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process';
import { buildSync } from 'esbuild';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { InspectorModel } from '../src/extension/model/inspectorModel.js';
import { machineInfo } from './common.js';

interface Run {
  readonly wallMs: number;
  readonly cpuMs: number;
  /** The frame view of the frame nearest 3 800 contacts once warm (median of 15, each read from disk), ms. */
  readonly viewMs: number;
  readonly findings: number;
  readonly digest: string;
}

/** In the worker: the open, timed. */
async function openInWorker(file: string): Promise<Run> {
  const t0 = performance.now(),
    c0 = process.cpuUsage();
  const m = await InspectorModel.fromRecording(file, {}, undefined, undefined, { mode: 'off' });
  const c = process.cpuUsage(c0);
  const wallMs = performance.now() - t0;
  const digest = createHash('sha256').update(JSON.stringify(m.findings)).update(JSON.stringify(m.timeline)).digest('hex').slice(0, 16);
  // the frame view, as when scrubbing: after views of 10 other frames, each time read from disk (9 other frames read)
  const contacts = m.timeline.contacts;
  let near = 0;
  for (let i = 1; i < contacts.length; i++) if (Math.abs(contacts[i] - 3800) < Math.abs(contacts[near] - 3800)) near = i;
  for (let j = 0, done = 0; done < 10 && j < contacts.length; j++) if (j !== near && ++done) m.frameView(j);
  const views: number[] = [];
  for (let k = 0; k < 15; k++) {
    m.forgetFrameViews();
    for (let j = 0, loaded = 0; loaded < 9 && j < contacts.length; j++) if (j !== near && ++loaded) m.session.frame(j);
    const v0 = performance.now();
    m.frameView(near);
    views.push(performance.now() - v0);
  }
  const viewMs = views.sort((a, b) => a - b)[7];
  const run = { wallMs, cpuMs: (c.user + c.system) / 1000, viewMs, findings: m.findings.length, digest };
  m.close();
  return run;
}

/** In a child process: one worker at `mb` (0: V8's default), its run and the process's peak resident memory. */
function child(file: string, mb: number): void {
  const options = { workerData: { file }, ...(mb > 0 ? { resourceLimits: { maxYoungGenerationSizeMb: mb } } : {}) };
  const w = __filename.endsWith('.ts')
    ? new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(__filename)});`, { eval: true, ...options })
    : new Worker(__filename, options);
  w.on('message', (run: Run) => {
    process.stdout.write(`${JSON.stringify({ ...run, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
    void w.terminate();
  });
  w.on('error', (e) => {
    throw e;
  });
}

function main(): void {
  const args = process.argv.slice(2);
  if (args[1] === '--child') return child(args[0], Number(args[2]));
  const [file, ...sizes] = args;
  if (!file) throw new Error('usage: npx tsx bench/youngGeneration.ts RECORDING [MB …]');
  const m = machineInfo();
  console.log(`Young generation — ${m.cpu} × ${m.cores}, ${m.platform}, Node ${m.node}, load ${m.loadAverage.toFixed(1)}, ${m.date}`);
  // the children run a bundle of this file, as the extension runs its worker (not the sources through tsx)
  const bundle = path.join(__dirname, '..', 'dist', 'bench-young-generation.js');
  buildSync({ entryPoints: [__filename], bundle: true, platform: 'node', outfile: bundle, logLevel: 'warning' });
  console.log(`  ${path.basename(file)}: the inspector's first open (cache off) in a worker thread, each size in a process of its own`);
  const runs = new Map<number, (Run & { maxRssMiB: number })[]>();
  for (const mb of sizes.length > 0 ? sizes.map(Number) : [0, 192, 0, 192, 0, 192]) {
    const r = spawnSync(process.execPath, [bundle, file, '--child', String(mb)], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
    const run = JSON.parse(r.stdout.trim().split('\n').pop()!) as Run & { maxRssMiB: number };
    runs.set(mb, [...(runs.get(mb) ?? []), run]);
    console.log(
      `    young generation ${mb > 0 ? `${mb} MB` : "V8's default"}: open ${(run.wallMs / 1000).toFixed(2)} s, CPU ${(run.cpuMs / 1000).toFixed(2)} s, peak RSS ${run.maxRssMiB.toFixed(0)} MiB, warm frame view ${run.viewMs.toFixed(1)} ms; ${run.findings} findings, digest ${run.digest}`,
    );
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [mb, rs] of runs)
    if (rs.length > 1)
      console.log(
        `  median of ${rs.length}, ${mb > 0 ? `${mb} MB` : "V8's default"}: open ${(median(rs.map((r) => r.wallMs)) / 1000).toFixed(2)} s, CPU ${(median(rs.map((r) => r.cpuMs)) / 1000).toFixed(2)} s, peak RSS ${median(rs.map((r) => r.maxRssMiB)).toFixed(0)} MiB, warm frame view ${median(rs.map((r) => r.viewMs)).toFixed(1)} ms`,
      );
}

if (isMainThread) main();
else
  void openInWorker((workerData as { file: string }).file).then((run) => {
    parentPort!.postMessage(run);
  });
