/**
 * Drives the live machinery the way the extension does (test/unit/live-*.test.ts, bench/live.ts): the
 * simulation worker (dist/worker.js) through WorkerClient listening or following, its events collected, and
 * the test engines (TypeScript, C++, Python) started as separate processes with CONTACT_LENS_LIVE set.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorkerClient } from '../../src/extension/workerClient.js';
import type { LiveEvent } from '../../src/extension/live/liveFeed.js';
import type { DiagnosisSettings, Opened } from '../../src/extension/worker/workerProtocol.js';
import type { LiveAction, LiveState } from '../../src/protocol/live.js';
import type { HostMessage } from '../../src/protocol/inspector.js';
import { LiveRelay } from '../../src/extension/live/liveRelay.js';
import { timed } from '../../src/extension/callbackTimes.js';

export const ROOT = path.resolve(__dirname, '../..');
export const WORKER = path.join(ROOT, 'dist/worker.js');
export const DIAGNOSIS: DiagnosisSettings = { energyTolerance: 1e-3, speedTolerance: 1e-3, overlapDepth: 0.02 };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `ok` every 20 ms until it returns a value (not undefined/false) or the time is up (then throws `what`). */
export async function until<T>(ok: () => T | undefined | false, what: string, timeoutMs = 60_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = ok();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

export class LiveWorker {
  readonly client: WorkerClient;
  readonly events: { at: number; event: LiveEvent }[] = [];
  sessions: Opened[] = [];
  state: LiveState | null = null;
  errors: string[] = [];
  /** Frame numbers in the timeline of the newest session, in order (the session's first ones, then every row). */
  frames: number[] = [];
  value = '';
  private readonly keep = setInterval(() => undefined, 1000); // the worker is unref'd: keep the test process alive

  /** The host's part, as the inspector runs it: its copy of the session, updated by the relay (timed like the extension's callbacks). */
  opened: Opened | null = null;
  readonly posted: HostMessage[] = [];
  private readonly relay = new LiveRelay((m) => this.posted.push(m));

  /** `worker`: the simulation worker's bundle (default: this build's; benchmarks compare another build's). */
  constructor(worker = WORKER) {
    this.client = new WorkerClient(worker);
    this.client.onEvent = (event) => {
      this.events.push({ at: performance.timeOrigin + performance.now(), event });
      if (event.type === 'session') {
        this.sessions.push(event.opened);
        this.opened = event.opened;
        this.frames = [...event.opened.timeline.frame];
      } else {
        timed('live update', () => this.relay.update(this.opened, event));
        if (this.posted.length > 1000) this.posted.splice(0, this.posted.length - 1000);
        this.state = event.state;
        this.errors.push(...event.errors);
        if (event.rows) this.frames.push(...event.rows.frame);
      }
    };
  }

  async listen(folder: string): Promise<this> {
    const l = await this.client.request({ op: 'listen', folder, diagnosis: DIAGNOSIS });
    this.value = l.value;
    return this;
  }

  action(action: LiveAction): Promise<null> {
    return this.client.request({ op: 'live', action });
  }

  dispose(): void {
    clearInterval(this.keep);
    this.client.dispose();
  }
}

/** A test engine process: its stdout lines as they come. */
export class Engine {
  readonly lines: string[] = [];
  stderr = '';
  code: number | null = null;
  readonly exited: Promise<number>;
  private readonly proc: ChildProcess;

  /** CPU time of the engine process (ms), sampled every 250 ms while it runs (Linux; null elsewhere). */
  cpuMs: number | null = null;

  constructor(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv) {
    this.proc = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const sampler = setInterval(() => this.sampleCpu(), 250);
    sampler.unref();
    this.proc.on('exit', () => clearInterval(sampler));
    let buf = '';
    this.proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        this.lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
    this.proc.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    this.exited = new Promise((r) =>
      this.proc.on('exit', (code) => {
        this.code = code ?? -1;
        r(this.code);
      }),
    );
  }

  private sampleCpu(): void {
    try {
      // /proc/PID/stat: fields 14 and 15 (after the command's parenthesis) are user and system time in ticks of 10 ms
      const fields = fs.readFileSync(`/proc/${this.proc.pid}/stat`, 'latin1').split(') ')[1].split(' ');
      this.cpuMs = (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // gone, or not Linux
    }
  }

  returned(frame: number): boolean {
    return this.lines.includes(`frame ${frame} returned`) || this.lines.some((l) => l.startsWith(`frame ${frame} returned `));
  }

  kill(): void {
    this.proc.kill('SIGKILL');
  }
}

let cppReplay: string | undefined;
/** Builds test/live/replay.cpp once (g++ must be on PATH: CI has it). */
export function cppReplayBinary(dir: string): string {
  if (cppReplay) return cppReplay;
  const bin = path.join(dir, 'replay-cpp');
  const r = spawnSync(
    'g++',
    ['-std=c++17', '-O2', '-Wall', '-Wextra', '-Werror', `-I${path.join(ROOT, 'writers/cpp')}`, path.join(ROOT, 'test/live/replay.cpp'), '-o', bin],
    {
      encoding: 'utf8',
    },
  );
  if (r.error || r.status !== 0) throw new Error(`g++ test/live/replay.cpp failed: ${r.error?.message ?? r.stderr}`);
  cppReplay = bin;
  return bin;
}

export type WriterName = 'TypeScript' | 'C++' | 'Python';

/**
 * Starts a test engine writing `out` through a writer library; each replays `recording` (our world's frames of
 * `scene`/`scenario`), and the TypeScript one can simulate them with our world as it streams instead.
 */
export function startEngine(
  writer: WriterName,
  o: {
    scene: string;
    scenario: string;
    frames: number;
    recording: string;
    table: string;
    out: string;
    fps: number;
    env: NodeJS.ProcessEnv;
    dir: string;
    /** TypeScript: simulate with our world while streaming (default: replay `recording`, so the pace is the stream's). */
    simulate?: boolean;
  },
): Engine {
  switch (writer) {
    case 'TypeScript':
      return new Engine(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(ROOT, 'test/live/engine.ts'),
          o.scene,
          o.scenario,
          o.out,
          '--fps',
          String(o.fps),
          '--frames',
          String(o.frames),
          ...(o.simulate ? [] : ['--replay', o.recording]),
        ],
        o.env,
      );
    case 'C++':
      return new Engine(cppReplayBinary(o.dir), [o.table, o.out, String(o.fps)], o.env);
    case 'Python':
      return new Engine('python3', [path.join(ROOT, 'test/live/replay.py'), o.recording, o.out, String(o.fps)], o.env);
  }
}

export function sameBytes(a: string, b: string): boolean {
  return fs.readFileSync(a).equals(fs.readFileSync(b));
}

/** Our world's frames of a scenario, written to `out` without any live sink (the C++ and Python engines replay it). */
export function recordScenario(scene: string, scenario: string, frames: number, out: string): void {
  const { World } = require('../../src/engine/world/world.js') as typeof import('../../src/engine/world/world.js');
  const { parseSceneFile } = require('../../src/format/scene.js') as typeof import('../../src/format/scene.js');
  const { frameFromWorld, headerFromWorld } = require('../../src/format/worldRecording.js') as typeof import('../../src/format/worldRecording.js');
  const { RecordingWriter } = require('../../src/format/recordingFile.js') as typeof import('../../src/format/recordingFile.js');
  const desc = parseSceneFile(fs.readFileSync(scene, 'utf8'), scene).scenarios.find((s) => s.desc.name === scenario)!.desc;
  const world = new World({ ...desc, frames });
  const w = RecordingWriter.create(out, headerFromWorld(world), { force: true, live: false });
  for (let k = 0; k < frames; k++) w.writeFrame(frameFromWorld(world, world.step()));
  w.close();
}
