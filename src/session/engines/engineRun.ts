/**
 * A scenario run in one engine, frame by frame, as recording lines (docs/recording-format.md): our World
 * ('ours') or a peer engine loaded on demand (engines.ts). Each frame comes with the engine's own step time.
 * `simulate --engine`, `compare`, the inspector's engine comparison and `diff` of two engines all start here.
 */
import type { ScenarioDesc } from '../../engine/index.js';
import { World } from '../../engine/index.js';
import type { RecordedFrame, RecordingHeader } from '../../format/recording.js';
import { frameFromWorld, headerFromWorld } from '../../format/worldRecording.js';
import { BLOW_UP_SPEED, blowUpOf, type BlowUp } from '../runScenario.js';
import { engineScene } from './engineScene.js';
import { peerEngine } from './engines.js';
import { sceneBodies } from './fitFrame.js';
import type { EngineName, EngineScene, EngineSimulation, EngineStep, RecorderOptions } from './types.js';

export interface EngineRun {
  readonly engine: EngineName;
  readonly header: RecordingHeader;
  /** Frames this run will produce. */
  readonly frames: number;
  /** What the engine could not reproduce of the scene, in words. */
  readonly notes: readonly string[];
  /** The next frame and the engine's step time (ms), or null after the last (or once the run blew up). */
  next(): { readonly frame: RecordedFrame; readonly stepMs: number } | null;
  /** Set when the run stopped early because its state blew up (that frame is not returned: it cannot be recorded). */
  readonly blowUp: BlowUp | null;
  dispose(): void;
}

/**
 * Whether a recorded frame's state has blown up (the check runScenario.ts's blowUpOf makes on our World, here on
 * any engine's post-step states): a dynamic body's position or velocity not finite, or beyond BLOW_UP_SPEED.
 */
export function recordedBlowUp(header: RecordingHeader, frame: RecordedFrame): BlowUp | null {
  for (const [i, b] of frame.bodies.entries()) {
    if (header.bodies[i]?.static) continue;
    const name = header.bodies[i]?.name ?? String(i);
    const state = [...b.x, ...b.v, ...b.w];
    if (!state.every(Number.isFinite)) return { frame: frame.frame, reason: `body ${i} (${name}) has a non-finite position or velocity` };
    if (Math.hypot(b.v[0], b.v[1], b.v[2], b.w[0], b.w[1], b.w[2]) > BLOW_UP_SPEED)
      return { frame: frame.frame, reason: `body ${i} (${name}) moves faster than ${BLOW_UP_SPEED}` };
    if (Math.hypot(b.x[0], b.x[1], b.x[2]) > BLOW_UP_SPEED)
      return { frame: frame.frame, reason: `body ${i} (${name}) is farther than ${BLOW_UP_SPEED} m from the origin` };
  }
  return null;
}

/** What a recording header says of an engine's simulation. */
export type EngineHeaderInfo = Pick<EngineSimulation, 'producer' | 'solver' | 'lambdaSource' | 'lambdaOrigin' | 'preSource' | 'notes'>;

/** The recording header of a peer engine's run of a scene (its solver block says what the engine runs and where λ comes from). */
export function engineHeader(scene: EngineScene, sim: EngineHeaderInfo, options: RecorderOptions): RecordingHeader {
  const header: RecordingHeader & Record<string, unknown> = {
    format: 'contact-lens-recording',
    version: 1,
    producer: sim.producer,
    units: 'SI',
    conventions: { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' },
    dt: scene.dt,
    gravity: scene.gravity,
    bodies: sceneBodies(scene),
    // Also inside `solver` (free-form, kept by the reader): top-level x- fields are ignored when read.
    solver: {
      ...sim.solver,
      lambdaSource: sim.lambdaOrigin,
      'x-lambda-source': sim.lambdaSource,
      'x-pre-source': sim.preSource,
      ...(sim.notes.length ? { 'x-scene-notes': sim.notes } : {}),
    },
    'x-scene': scene.name,
    'x-lambda-source': sim.lambdaSource,
    'x-pre-source': sim.preSource,
    'x-status-label': options.status ?? 'engine',
  };
  return header;
}

/** The frame's `reason` when it is labelled max-iterations: what the engine's own verdict was. */
function maxIterationsReason(converged: boolean | undefined): string {
  if (converged === undefined) return 'fixed iteration count, no convergence test';
  return converged ? 'label set by the recorder (status option); the engine met its own tolerance' : 'iteration limit reached';
}

/**
 * Step k (0-based) of an engine's simulation as a recording frame: its status is the recorder's label when
 * options.status is set, else the engine's own verdict ("max-iterations" with the reason when it has none).
 */
export function engineFrame(k: number, dt: number, solverName: string, s: Omit<EngineStep, 'stepMs'>, options: RecorderOptions): RecordedFrame {
  const status = options.status ?? (s.converged === true ? 'converged' : 'max-iterations');
  return {
    frame: k,
    time: (k + 1) * dt,
    bodies: s.bodies,
    ...(s.pre ? { pre: s.pre } : {}),
    contacts: s.contacts,
    solver: {
      name: solverName,
      status,
      iterations: s.iterations,
      lambda: s.lambda,
      ...(status === 'max-iterations' ? { reason: maxIterationsReason(s.converged) } : {}),
    },
  };
}

/** A peer engine's simulation of an engine scene, as recording frames. */
export async function startPeerRun(engine: Exclude<EngineName, 'ours'>, scene: EngineScene, options: RecorderOptions = {}): Promise<EngineRun> {
  const sim = await (await peerEngine(engine)).create(scene, options);
  const header = engineHeader(scene, sim, options);
  const frames = Math.min(scene.frames, options.frames ?? scene.frames);
  let k = 0;
  let blowUp: BlowUp | null = null;
  return {
    engine,
    header,
    frames,
    notes: sim.notes,
    get blowUp() {
      return blowUp;
    },
    next: () => {
      if (k >= frames || blowUp) return null;
      const s = sim.step();
      const frame = engineFrame(k, scene.dt, sim.solver.name, s, options);
      k++;
      blowUp = recordedBlowUp(header, frame);
      return blowUp ? null : { frame, stepMs: s.stepMs };
    },
    dispose: () => sim.dispose(),
  };
}

/** Our engine's run of a scenario, as recording frames. */
export function startOurRun(desc: ScenarioDesc, frames = desc.frames): EngineRun {
  const world = new World(desc);
  let k = 0;
  let blowUp: BlowUp | null = null;
  return {
    engine: 'ours',
    header: headerFromWorld(world),
    frames,
    notes: [],
    get blowUp() {
      return blowUp;
    },
    next: () => {
      if (k >= frames || blowUp) return null;
      const t0 = performance.now();
      const f = world.step();
      const stepMs = performance.now() - t0;
      k++;
      blowUp = blowUpOf(world, f); // its frame holds non-finite numbers, which a recording cannot
      return blowUp ? null : { frame: frameFromWorld(world, f), stepMs };
    },
    dispose: () => {
      /* nothing held */
    },
  };
}

/** A scenario run in the named engine (frames: the scenario's unless given). */
export function startEngineRun(engine: EngineName, desc: ScenarioDesc, options: RecorderOptions = {}): Promise<EngineRun> {
  if (engine === 'ours') return Promise.resolve(startOurRun(desc, Math.min(desc.frames, options.frames ?? desc.frames)));
  return startPeerRun(engine, engineScene(desc), options);
}
