/**
 * A scenario as a frame source: simulated once, keeping columnar summaries and a checkpoint of the full world
 * state every `every` frames; a frame is re-simulated from the nearest checkpoint (or from the live cursor).
 * Why re-simulated frames are bit-identical to the first pass: the file comment of session.ts.
 *
 * Layer rule: imports engine and format only (no vscode, no DOM).
 */
import { type AssemblyOptions, assemblyOptions, type FrameRecord, type Quat, type ScenarioDesc, type Vec3, World, worstStatus } from '../engine/index.js';
import { SOLVER_STATUSES, type RecordedFrame, type RecordedSolverStatus, type RecordingHeader } from '../format/recording.js';
import { frameFromWorld, headerFromWorld } from '../format/worldRecording.js';
import type { FrameSource, SessionSummary } from './frameSource.js';

export interface ScenarioSessionOptions {
  /** Frames between checkpoints (default 100; ≥ 1). Re-simulating a frame costs at most this many steps. */
  readonly checkpointEvery?: number;
  /** Frames to simulate (default: the scenario's `frames`). */
  readonly frames?: number;
  /**
   * Called once per frame of the first simulation pass, in order, with the frame as a recording line
   * (summaries, diagnosis and progress are built in that same pass, without a second simulation).
   */
  readonly onFrame?: (index: number, frame: RecordedFrame) => void;
}

interface CacheEntry {
  readonly bodyA: number;
  readonly bodyB: number;
  readonly featureId?: string;
  readonly normal: Vec3;
}

/** Full world state after `done` frames, plus the warm-start cache content left by the last frame. */
interface Checkpoint {
  readonly done: number;
  readonly time: number;
  readonly frame: number;
  /** 13 numbers per body: x(3) q(4) v(3) w(3). */
  readonly state: Float64Array;
  readonly cacheContacts: readonly CacheEntry[];
  readonly cacheLambda: Float64Array;
}

export class ScenarioSource implements FrameSource {
  readonly kind = 'scenario' as const;
  readonly header: RecordingHeader;
  readonly frameCount: number;
  exact = true;
  private readonly checkpoints: Checkpoint[] = [];
  // Columnar summaries (no per-frame objects).
  private readonly time: Float64Array;
  private readonly frameNo: Float64Array;
  private readonly energy: Float64Array;
  private readonly maxDepth: Float64Array;
  private readonly contacts: Uint32Array;
  private readonly iterations: Uint32Array;
  private readonly status: Uint8Array;
  /** A world positioned after `liveDone` frames (re-simulation cursor). */
  private live: { world: World; done: number } | null = null;
  /** Steps re-simulated since creation (a cost figure for tests and benchmarks). */
  resimulatedSteps = 0;

  constructor(
    readonly desc: ScenarioDesc,
    readonly every: number,
    frames: number,
    onFrame?: ScenarioSessionOptions['onFrame'],
  ) {
    const world = new World(desc);
    this.header = headerFromWorld(world);
    const n = frames;
    this.time = new Float64Array(n);
    this.frameNo = new Float64Array(n);
    this.energy = new Float64Array(n);
    this.maxDepth = new Float64Array(n);
    this.contacts = new Uint32Array(n);
    this.iterations = new Uint32Array(n);
    this.status = new Uint8Array(n);
    this.checkpoints.push(this.capture(world, 0, null));
    for (let k = 0; k < n; k++) {
      const f = world.step();
      this.record(k, f);
      onFrame?.(k, frameFromWorld(world, f));
      if ((k + 1) % every === 0 && k + 1 < n) this.checkpoints.push(this.capture(world, k + 1, f));
    }
    this.frameCount = n;
    this.live = { world, done: n };
  }

  private record(k: number, f: FrameRecord): void {
    const status: RecordedSolverStatus = worstStatus(f.islands).kind;
    let iterations = 0,
      md = 0;
    for (const isl of f.islands) iterations = Math.max(iterations, isl.result.iterations);
    for (const c of f.contacts) if (c) md = Math.max(md, c.contact.penetration);
    this.time[k] = f.time;
    this.frameNo[k] = f.frame;
    this.energy[k] = f.energy.total;
    this.maxDepth[k] = md;
    this.contacts[k] = f.contacts.length;
    this.iterations[k] = iterations;
    this.status[k] = SOLVER_STATUSES.indexOf(status);
  }

  private capture(w: World, done: number, last: FrameRecord | null): Checkpoint {
    const state = new Float64Array(13 * w.bodies.length);
    w.bodies.forEach((b, i) => state.set([...b.x, ...b.q, ...b.v, ...b.w], 13 * i));
    const cacheContacts: CacheEntry[] = [];
    const lam: number[] = [];
    // The cache holds every contact that was in an island (World.step stores per island, in ascending
    // contact order within each island; a key's last writer is therefore the same in ascending frame order).
    if (last) {
      for (const fc of last.contacts) {
        if (!fc) continue;
        const c = fc.contact;
        cacheContacts.push(
          c.featureId === undefined
            ? { bodyA: c.bodyA, bodyB: c.bodyB, normal: c.normal }
            : { bodyA: c.bodyA, bodyB: c.bodyB, featureId: c.featureId, normal: c.normal },
        );
        lam.push(fc.lambda[0], fc.lambda[1], fc.lambda[2]);
      }
    }
    return { done, time: w.time, frame: w.frame, state, cacheContacts, cacheLambda: Float64Array.from(lam) };
  }

  private restore(cp: Checkpoint): World {
    const w = new World(this.desc);
    w.bodies.forEach((b, i) => {
      const s = cp.state,
        o = 13 * i;
      b.x = [s[o], s[o + 1], s[o + 2]];
      b.q = [s[o + 3], s[o + 4], s[o + 5], s[o + 6]] as Quat;
      b.v = [s[o + 7], s[o + 8], s[o + 9]];
      b.w = [s[o + 10], s[o + 11], s[o + 12]];
    });
    w.time = cp.time;
    w.frame = cp.frame;
    if (cp.cacheContacts.length > 0) w.restoreWarmStart(cp.cacheContacts, cp.cacheLambda);
    return w;
  }

  get checkpointCount(): number {
    return this.checkpoints.length;
  }

  summary(i: number): SessionSummary {
    return {
      index: i,
      frame: this.frameNo[i],
      time: this.time[i],
      contacts: this.contacts[i],
      status: SOLVER_STATUSES[this.status[i]],
      iterations: this.iterations[i],
      maxDepth: this.maxDepth[i],
      totalEnergy: this.energy[i],
    };
  }

  load(i: number): RecordedFrame {
    // Frame i is produced by the step that starts after i frames are done.
    const cp = this.checkpoints[Math.min(Math.floor(i / this.every), this.checkpoints.length - 1)];
    let live = this.live;
    if (!live || live.done > i || live.done < cp.done) live = { world: this.restore(cp), done: cp.done };
    let f: FrameRecord | null = null;
    while (live.done <= i) {
      f = live.world.step();
      live.done++;
      this.resimulatedSteps++;
    }
    this.live = live;
    return frameFromWorld(live.world, f!);
  }

  assembly(): { options: AssemblyOptions; notes: string[] } {
    const c = this.desc.config;
    const notes: string[] = [];
    if (c.softening > 0) notes.push(`the solved A also had softening γ = ${c.softening} on its normal diagonal; the A here does not`);
    if (c.faults.restitutionAsTarget)
      notes.push('fault injection restitutionAsTarget was on: the solved b had an extra −ġn on normal rows; the b here is the correct one');
    return { options: assemblyOptions(c), notes };
  }

  close(): void {
    this.live = null;
  }
}
