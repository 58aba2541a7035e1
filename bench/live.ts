/**
 * Live sessions (docs/live-protocol.md), printed, never asserted:
 *  1. latency: a test engine streams box-stack-10 (600 frames at 60 Hz) through the TypeScript writer to the
 *     listener (the simulation worker's I/O thread, dist/liveIo.js), the worker's model (dist/worker.js; the
 *     diagnosis on its own thread, dist/liveDiagnosis.js, the frame views on another, dist/liveView.js) and the
 *     host's relay, with a webview stand-in that
 *     follows the newest frame the way the inspector does (one frame view per update, seeks coalesced).
 *     p50 / p95 / max from "sent" (just before writeFrame) to: the frame in the worker's model, the webview's
 *     message posted with it, its diagnosis at the host, a frame view of it or of a later frame. The webview's
 *     own drawing is measured by npm run test:webview (< 16 ms for 200 contacts) and is not in these figures.
 *  2. what writing costs: RecordingWriter.writeFrame per frame as on main (no live code), with no editor
 *     (this branch, CONTACT_LENS_LIVE unset), with an editor attached and no break armed, and with a break
 *     armed (one round trip per frame), against an editor stand-in that answers at once.
 *  3. the 1000-box pile (our engine's frames, replayed through the C++ writer, whose own cost is small) written
 *     live at 10 frames/s: the frames/s the engine reaches, how far the display and the diagnosis lag behind the
 *     writer, and the memory of the process (worker + relay) as the frames go by.
 *
 *   npm run bench:live [-- --quick] [--only latency,costs,pile] [--baseline DIST] [--rounds N] [--pile REC --pile-from K]
 *
 * --baseline DIST: another build's dist folder (e.g. a copy of main's, made with npm run build there): (1) and (3)
 * run with its worker too, interleaved with this build's (--rounds N times for (1)), so both see the same load.
 * --pile REC: the pile's frames (--pile-frames N, default 120, 40 with --quick) from an existing recording of examples/box-pile-1000.scene.json (frames K… with
 * --pile-from K: the busy ones, ≈ 5000 contacts from frame 75 on) instead of simulating them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { machineInfo } from './common.js';
import { spawn } from 'node:child_process';
import { cppReplayBinary, Engine, LiveWorker, ROOT, recordScenario, until, WORKER } from '../test/live/harness.js';
import { writeReplayTable } from '../test/live/replayTable.js';
import type { LiveTarget } from '../src/format/liveProtocol.js';
import { RecordingReader, RecordingWriter } from '../src/format/recordingFile.js';
import type { RecordedFrame } from '../src/format/recording.js';
import { ThreadLoadMeter, type ThreadLoad } from '../src/extension/live/threadLoad.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-bench-live-'));
const q = (xs: number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))];
};
const fmt = (x: number): string => x.toFixed(1);

/** The engine's "frame K sent T" / "frame K returned T" lines. */
function times(engine: Engine, what: 'sent' | 'returned'): Map<number, number> {
  const out = new Map<number, number>();
  for (const l of engine.lines) {
    const m = /^frame (\d+) (sent|returned) ([\d.]+)$/.exec(l);
    if (m && m[2] === what) out.set(Number(m[1]), Number(m[3]));
  }
  return out;
}

/**
 * The inspector's following, without a DOM (webview/main.ts liveUpdate): each update's rows reach the timeline
 * and the readout at once; a frame view of the newest frame is asked for at most every FOLLOW_VIEW_MS.
 */
const FOLLOW_VIEW_MS = 50;
function follow(live: LiveWorker, inTimeline: Map<number, number>, viewed: Map<number, number>): () => number {
  let timer: NodeJS.Timeout | null = null,
    seen = 0,
    last = 0,
    busy = false,
    views = 0;
  const view = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    last = performance.now();
    try {
      const v = await live.client.request({ op: 'frame', index: live.frames.length - 1 });
      views++;
      const now = performance.timeOrigin + performance.now();
      for (let k = 0; k <= v.index; k++) if (!viewed.has(live.frames[k])) viewed.set(live.frames[k], now);
    } finally {
      busy = false;
    }
  };
  const previous = live.client.onEvent!;
  live.client.onEvent = (e) => {
    previous(e);
    const now = performance.timeOrigin + performance.now();
    for (; seen < live.frames.length; seen++) inTimeline.set(live.frames[seen], now);
    if (live.frames.length === 0 || timer) return;
    timer = setTimeout(
      () => {
        timer = null;
        void view();
      },
      Math.max(0, FOLLOW_VIEW_MS - (performance.now() - last)),
    );
  };
  return () => views;
}

/**
 * When each frame reached the worker's model (an update's readAt), and when the host learned it was diagnosed
 * (the state's diagnosed count), as the events come.
 */
function watchStages(live: LiveWorker): { model: Map<number, number>; diagnosed: Map<number, number> } {
  const model = new Map<number, number>(),
    diagnosed = new Map<number, number>();
  const previous = live.client.onEvent!;
  live.client.onEvent = (e) => {
    previous(e);
    if (e.type !== 'update') return;
    if (e.rows && e.readAt) e.rows.frame.forEach((k, i) => model.set(k, e.readAt![i]));
    const now = performance.timeOrigin + performance.now();
    const done = e.state.diagnosed ?? e.state.frames;
    for (let i = diagnosed.size; i < Math.min(done, live.frames.length); i++) diagnosed.set(live.frames[i], now);
  };
  return { model, diagnosed };
}

/**
 * Starts the meters of the live threads (the simulation worker, its I/O and diagnosis threads) and of this
 * process' main thread, which plays the extension host (relay and webview stand-in); returns their reader.
 */
async function meterThreads(live: LiveWorker): Promise<() => Promise<ThreadLoad[]>> {
  const host = new ThreadLoadMeter('host');
  await live.client.request({ op: 'liveLoad', reset: true });
  return async () => {
    const loads = [host.read(), ...(await live.client.request({ op: 'liveLoad', reset: false }))];
    host.stop();
    return loads;
  };
}

/**
 * One line per thread: CPU time (per frame), time it was runnable but waited for a CPU (other processes' share
 * of a shared machine), the event loop's delay, the heap in use.
 */
function printLoads(loads: readonly ThreadLoad[], frames: number): void {
  const ms = (x: number | null, per = 1): string => (x === null ? 'n/a' : `${(x / per).toFixed(x / per < 10 ? 2 : 0)} ms`);
  for (const l of loads)
    console.log(
      `   thread ${l.thread.padEnd(9)} CPU ${ms(l.cpuMs)} (${ms(l.cpuMs, frames)}/frame, ${l.cpuMs === null ? 'n/a' : ((100 * l.cpuMs) / l.wallMs).toFixed(0)}% of ${(l.wallMs / 1000).toFixed(1)} s), waited for a CPU ${ms(l.waitMs)}; event-loop delay p50 ${fmt(l.delayP50)} ms, p99 ${fmt(l.delayP99)} ms, max ${fmt(l.delayMax)} ms; heap ${l.heapUsedMiB.toFixed(0)} of ${l.heapTotalMiB.toFixed(0)} MiB`,
    );
}

/** "p50 … ms, p95 … ms" of the delays from `sent` to `at` (frames that have both). */
function delays(sent: Map<number, number>, at: Map<number, number>): string {
  const d = [...sent].filter(([k]) => at.has(k)).map(([k, t]) => at.get(k)! - t);
  return d.length ? `p50 ${fmt(q(d, 0.5))} ms, p95 ${fmt(q(d, 0.95))} ms, max ${fmt(Math.max(...d))} ms (${d.length} frames)` : 'none';
}

/** "p50 … ms, p95 … ms" of some delays. */
function p5095(d: readonly number[]): string {
  return d.length ? `p50 ${fmt(q([...d], 0.5))} ms, p95 ${fmt(q([...d], 0.95))} ms` : 'none';
}

/** Frames of the stream's start, whose figures are printed apart from the rest's (the cold start). */
const FIRST_FRAMES = 60;

async function latency(frames: number, source: string, build: Build): Promise<void> {
  const live = await new LiveWorker(build.worker).listen(path.join(tmp, 'latency'));
  const inTimeline = new Map<number, number>(),
    viewed = new Map<number, number>();
  const stages = watchStages(live);
  const views = follow(live, inTimeline, viewed);
  const loads = await meterThreads(live);
  const load0 = os.loadavg()[0];
  const out = path.join(tmp, 'latency-out.rec.jsonl');
  const engine = new Engine(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'test/live/engine.ts'), '', '', out, '--fps', '60', '--frames', String(frames), '--replay', source],
    { CONTACT_LENS_LIVE: live.value },
  );
  await engine.exited;
  await until(
    () => inTimeline.size >= frames && live.state?.stream === 'ended' && (live.state.diagnosed ?? frames) >= frames,
    'every frame in the timeline and diagnosed',
    300_000,
  );
  const threads = await loads();
  await new Promise((r) => setTimeout(r, 500));
  const sent = times(engine, 'sent'),
    returned = times(engine, 'returned');
  const row = [...sent].map(([k, t]) => inTimeline.get(k)! - t);
  const drawn = [...sent].filter(([k]) => viewed.has(k)).map(([k, t]) => viewed.get(k)! - t);
  const write = [...sent].map(([k, t]) => returned.get(k)! - t);
  console.log(
    `1. [${build.name}] box-stack-10, ${frames} frames at 60 Hz through the TypeScript writer (a replay of our engine's frames), load ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}:`,
  );
  const tenth = Math.ceil(row.length / 10);
  console.log(`   sent → in the worker's inspector model: ${delays(sent, stages.model)}`);
  console.log(
    `   sent → the webview's message posted (timeline and readout): p50 ${fmt(q(row, 0.5))} ms, p95 ${fmt(q(row, 0.95))} ms, max ${fmt(Math.max(...row))} ms (p50 by tenth of the run: ${Array.from({ length: 10 }, (_, i) => fmt(q(row.slice(i * tenth, (i + 1) * tenth), 0.5))).join(', ')})`,
  );
  console.log(
    `   sent → webview message, the first ${FIRST_FRAMES} frames: ${p5095(row.slice(0, FIRST_FRAMES))}; the rest: ${p5095(row.slice(FIRST_FRAMES))}; frame view drawn, first ${FIRST_FRAMES}: ${p5095([...sent].filter(([k]) => viewed.has(k) && k < FIRST_FRAMES).map(([k, t]) => viewed.get(k)! - t))}`,
  );
  console.log(`   sent → diagnosed (its injection and findings at the host; the diagnosis' own thread may lag): ${delays(sent, stages.diagnosed)}`);
  console.log(
    `   sent → a frame view of it or a newer frame drawn (contacts, A, scene; ${views()} views for ${frames} frames): p50 ${fmt(q(drawn, 0.5))} ms, p95 ${fmt(q(drawn, 0.95))} ms, max ${fmt(Math.max(...drawn))} ms`,
  );
  console.log(`   writeFrame with the editor attached (no break): p50 ${fmt(q(write, 0.5))} ms, p95 ${fmt(q(write, 0.95))} ms`);
  printLoads(threads, frames);
  console.log(`   the engine process (the TypeScript writer's test engine): CPU ${engineCpu(engine, frames)}`);
  live.dispose();
}

/** "N ms (M ms/frame)" of an engine process' CPU time. */
function engineCpu(engine: Engine, frames: number): string {
  return engine.cpuMs === null ? 'n/a' : `${engine.cpuMs.toFixed(0)} ms (${(engine.cpuMs / frames).toFixed(1)} ms/frame)`;
}

/** ms per frame of writing `frames` with a writer made by `create` (file in tmp, validation on, as engines use it). */
function writeCost(frames: readonly RecordedFrame[], create: (file: string) => { writeFrame(f: RecordedFrame): void; close(): void }): number {
  const file = path.join(tmp, `cost-${Math.random().toString(36).slice(2)}.rec.jsonl`);
  const w = create(file);
  const t0 = performance.now();
  for (const f of frames) w.writeFrame(f);
  w.close();
  const ms = (performance.now() - t0) / frames.length;
  fs.rmSync(file);
  return ms;
}

/**
 * An editor stand-in in its own process that answers at once and diagnoses nothing, so that the figures are the
 * writer's own cost: "welcome", then "arm" when asked, and "go K" for every "wait K"; recording lines are dropped.
 */
const STUB_EDITOR = `
const net = require('node:net');
const arm = process.argv[1] === 'arm';
const srv = net.createServer((s) => {
  s.setNoDelay(true);
  let rest = '';
  s.on('data', (d) => {
    const text = rest + d.toString('latin1');
    let start = 0;
    for (let i = text.indexOf('\\n'); i >= 0; i = text.indexOf('\\n', start)) {
      if (text.startsWith('{"live":"hello"', start)) s.write('{"live":"welcome","version":1}\\n' + (arm ? '{"live":"arm"}\\n' : ''));
      else if (text.startsWith('{"live":"wait"', start)) s.write('{"live":"go","frame":' + JSON.parse(text.slice(start, i)).frame + '}\\n');
      start = i + 1;
    }
    rest = text.slice(start);
  });
  s.on('error', () => {});
});
srv.listen(0, '127.0.0.1', () => console.log(srv.address().port));
`;

async function stubEditor(arm: boolean): Promise<{ target: LiveTarget; stop: () => void }> {
  const p = spawn(process.execPath, ['-e', STUB_EDITOR, arm ? 'arm' : 'free'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((r) => p.stdout!.once('data', (d: Buffer) => r(Number(d.toString().trim()))));
  return { target: { address: { kind: 'tcp', host: '127.0.0.1', port }, token: '0'.repeat(32) }, stop: () => p.kill() };
}

async function costs(source: string): Promise<void> {
  const r = RecordingReader.openSync(source);
  const frames = Array.from({ length: r.frameCount }, (_, i) => r.frame(i));
  const header = r.header;
  r.close();
  // main's writer, read from the main worktree when there is one (the code before the live sink)
  const mainFile = '/work/main/src/format/recordingFile.ts';
  const mainWriter = fs.existsSync(mainFile) ? ((await import(mainFile)) as { RecordingWriter: typeof RecordingWriter }).RecordingWriter : null;
  const free = await stubEditor(false),
    armed = await stubEditor(true);
  const rows: Record<string, number[]> = { main: [], none: [], attached: [], armed: [] };
  for (let round = 0; round < 7; round++) {
    if (mainWriter) rows.main.push(writeCost(frames, (f) => mainWriter.create(f, header)));
    rows.none.push(writeCost(frames, (f) => RecordingWriter.create(f, header, { live: 'environment' })));
    rows.attached.push(writeCost(frames, (f) => RecordingWriter.create(f, header, { live: free.target })));
    rows.armed.push(writeCost(frames, (f) => RecordingWriter.create(f, header, { live: armed.target })));
  }
  free.stop();
  armed.stop();
  const med = (xs: number[]): string => (xs.length ? `${fmt(q(xs, 0.5) * 1000)} µs` : 'n/a (no /work/main)');
  console.log(
    `2. RecordingWriter.writeFrame per frame (box-stack-10's frames ≈ 21 KB, median of 7 runs of ${frames.length}, an editor stand-in that answers at once): main (no live code) ${med(rows.main)}; this branch without CONTACT_LENS_LIVE ${med(rows.none)}; editor attached, no break ${med(rows.attached)}; break armed (a round trip per frame) ${med(rows.armed)}`,
  );
}

/** The pile's frames as a recording and the C++ replay's table (simulated, or cut from an existing recording). */
function pileSource(frames: number, from: string | null, first: number): { source: string; table: string } {
  const source = path.join(tmp, 'pile.rec.jsonl'),
    table = path.join(tmp, 'pile.table');
  if (fs.existsSync(table)) return { source, table };
  const t0 = performance.now();
  if (from) cutRecording(from, first, frames, source);
  else recordScenario(path.join(ROOT, 'examples/box-pile-1000.scene.json'), 'box-pile-1000', frames, source);
  writeReplayTable(source, table);
  const mib = fs.statSync(source).size / 2 ** 20;
  console.log(
    `3. the 1000-box pile: ${frames} frames of our engine (${mib.toFixed(0)} MiB, ${from ? `frames ${first}… of ${from}` : `simulated in ${((performance.now() - t0) / 1000).toFixed(0)} s`}), written live at 10 frames/s through the C++ writer:`,
  );
  return { source, table };
}

/** The header and frames [first, first + n) of a recording, as a recording. */
function cutRecording(file: string, first: number, n: number, out: string): void {
  const r = RecordingReader.openSync(file);
  const w = RecordingWriter.create(out, r.header, { force: true, live: false });
  for (let i = first; i < Math.min(r.frameCount, first + n); i++) w.writeFrame(r.frame(i));
  w.close();
  r.close();
}

async function pile(frames: number, build: Build, from: string | null, first: number): Promise<void> {
  const { table } = pileSource(frames, from, first);
  console.log(`   [${build.name}]`);
  const live = await new LiveWorker(build.worker).listen(path.join(tmp, 'pile'));
  const stages = watchStages(live);
  const loads = await meterThreads(live);
  const load0 = os.loadavg()[0];
  const arrived = new Map<number, number>();
  let seen = 0;
  const rss: string[] = [];
  const previous = live.client.onEvent!;
  live.client.onEvent = (e) => {
    previous(e);
    const now = performance.timeOrigin + performance.now();
    for (; seen < live.frames.length; seen++) arrived.set(live.frames[seen], now);
  };
  const out = path.join(tmp, 'pile-out.rec.jsonl');
  const engine = new Engine(cppReplayBinary(tmp), [table, out, '10'], { CONTACT_LENS_LIVE: live.value });
  const sample = (): number => process.memoryUsage().rss / 2 ** 20;
  const heaps: string[] = [];
  const sampler = setInterval(() => {
    rss.push(`${live.frames.length}: ${sample().toFixed(0)}`);
    void live.client.request({ op: 'liveLoad', reset: false }).then(
      (ls) => {
        const m = process.memoryUsage();
        heaps.push(
          `${live.frames.length}: ${ls.map((l) => l.heapUsedMiB.toFixed(0)).join('/')} (${(m.heapUsed / 2 ** 20).toFixed(0)}, ${(m.arrayBuffers / 2 ** 20).toFixed(0)})`,
        );
      },
      () => undefined,
    );
  }, 2000);
  await engine.exited;
  await until(
    () => live.frames.length >= frames && live.state?.stream === 'ended' && (live.state.diagnosed ?? frames) >= frames,
    'the pile diagnosed',
    900_000,
  );
  clearInterval(sampler);
  const threads = await loads();
  rss.push(`${live.frames.length}: ${sample().toFixed(0)}`);
  const sent = times(engine, 'sent'),
    returned = times(engine, 'returned');
  const lag = [...sent].map(([k, t]) => arrived.get(k)! - t);
  const span = (Math.max(...sent.values()) - Math.min(...sent.values())) / 1000;
  const position = new Map(live.frames.map((k, i) => [k, i]));
  const busy = [...sent].filter(([k]) => (live.opened?.timeline.contacts[position.get(k) ?? -1] ?? 0) > 0).map(([k, t]) => arrived.get(k)! - t);
  console.log(
    `   ${(frames / span).toFixed(1)} frames/s written (load ${load0.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}); sent → in the host's timeline (the webview's message posted): p50 ${fmt(q(lag, 0.5))} ms, p95 ${fmt(q(lag, 0.95))} ms, max ${fmt(Math.max(...lag))} ms; frames with contacts (${busy.length}) p50 ${fmt(q(busy, 0.5))} ms; first ten p50 ${fmt(q(lag.slice(0, 10), 0.5))} ms, last ten p50 ${fmt(q(lag.slice(-10), 0.5))} ms`,
  );
  console.log(`   sent → in the worker's model: ${delays(sent, stages.model)}; sent → diagnosed: ${delays(sent, stages.diagnosed)}`);
  console.log(`   resident memory of this process (worker + relay), MiB, by frames received: ${rss.join(' · ')}`);
  console.log(
    `   V8 heap in use (MiB) of the worker / I/O / diagnosis threads (this thread's, which prepared the pile and plays the host; buffers outside the heaps), by frames received: ${heaps.join(' · ')}`,
  );
  const write = [...sent].map(([k, t]) => returned.get(k)! - t);
  console.log(
    `   writeFrame (the C++ writer: its file and the socket to the editor): p50 ${fmt(q(write, 0.5))} ms, p95 ${fmt(q(write, 0.95))} ms; the engine process' CPU ${engineCpu(engine, frames)}`,
  );
  printLoads(threads, frames);
  live.dispose();
}

/** A build whose worker the live parts run: this one's, or --baseline's. */
interface Build {
  readonly name: string;
  readonly worker: string;
}

function benchArgs(argv: readonly string[]): {
  quick: boolean;
  only: Set<string>;
  builds: Build[];
  rounds: number;
  pile: string | null;
  pileFrom: number;
  pileFrames: number;
} {
  const value = (name: string): string | null => {
    const i = argv.indexOf(name);
    if (i < 0) return null;
    if (i + 1 >= argv.length) throw new Error(`${name} needs a value`);
    return argv[i + 1];
  };
  const known = new Set(['--quick', '--only', '--baseline', '--rounds', '--pile', '--pile-from', '--pile-frames']);
  argv.forEach((a, i) => {
    if (a.startsWith('--') && !known.has(a)) throw new Error(`unknown argument ${a} (expected ${[...known].join(', ')})`);
    if (!a.startsWith('--') && !(i > 0 && known.has(argv[i - 1]) && argv[i - 1] !== '--quick')) throw new Error(`unexpected argument ${a}`);
  });
  const baseline = value('--baseline');
  const builds: Build[] = [{ name: 'this build', worker: WORKER }];
  if (baseline) {
    const worker = path.resolve(baseline, 'worker.js');
    if (!fs.existsSync(worker)) throw new Error(`--baseline ${baseline}: no worker.js there (give a dist folder built with npm run build)`);
    builds.unshift({ name: `baseline ${baseline}`, worker });
  }
  return {
    quick: argv.includes('--quick'),
    only: new Set((value('--only') ?? 'latency,costs,pile').split(',')),
    builds,
    rounds: Number(value('--rounds') ?? 1),
    pile: value('--pile'),
    pileFrom: Number(value('--pile-from') ?? 0),
    pileFrames: Number(value('--pile-frames') ?? (argv.includes('--quick') ? 40 : 120)),
  };
}

async function main(): Promise<void> {
  const args = benchArgs(process.argv.slice(2));
  const m = machineInfo();
  console.log(`bench:live · ${m.cpu} × ${m.cores} · Node ${m.node} · ${m.platform} · ${m.date} · load ${m.loadAverage.toFixed(2)}`);
  const stack = path.join(tmp, 'stack.rec.jsonl');
  const frames = args.quick ? 200 : 600;
  recordScenario(path.join(ROOT, 'examples/box-stack-10.scene.json'), 'box-stack-10', frames, stack);
  // builds interleaved, so that each sees the same load
  if (args.only.has('latency')) for (let r = 0; r < args.rounds; r++) for (const b of args.builds) await latency(frames, stack, b);
  if (args.only.has('costs')) await costs(stack);
  if (args.only.has('pile')) for (const b of args.builds) await pile(args.pileFrames, b, args.pile, args.pileFrom);
  console.log(`load at the end ${os.loadavg()[0].toFixed(2)}`);
  fs.rmSync(tmp, { recursive: true, force: true });
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
