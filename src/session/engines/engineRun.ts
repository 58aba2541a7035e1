/**
 * A scenario run in one engine, frame by frame, as recording lines (docs/recording-format.md): our World
 * ('ours') or a peer engine loaded on demand (engines.ts). Each frame comes with the engine's own step time.
 * `simulate --engine`, `compare`, the inspector's engine comparison and `diff` of two engines all start here.
 */
import type { ScenarioDesc } from '../../engine/world/types.js';
import { World } from '../../engine/world/world.js';
import type { RecordedFrame, RecordingHeader } from '../../format/recording.js';
import { frameFromWorld, headerFromWorld } from '../../format/worldRecording.js';
import { engineScene } from './engineScene.js';
import { peerEngine } from './engines.js';
import { sceneBodies } from './fitFrame.js';
import type { EngineName, EngineScene, EngineSimulation, RecorderOptions } from './types.js';

export interface EngineRun {
  readonly engine: EngineName;
  readonly header: RecordingHeader;
  /** Frames this run will produce. */
  readonly frames: number;
  /** What the engine could not reproduce of the scene, in words. */
  readonly notes: readonly string[];
  /** The next frame and the engine's step time (ms), or null after the last. */
  next(): { readonly frame: RecordedFrame; readonly stepMs: number } | null;
  dispose(): void;
}

/** The recording header of a peer engine's run of a scene (its solver block says what the engine runs and where λ comes from). */
export function engineHeader(scene: EngineScene, sim: EngineSimulation, options: RecorderOptions): RecordingHeader {
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

/** A peer engine's simulation of an engine scene, as recording frames. */
export async function startPeerRun(engine: Exclude<EngineName, 'ours'>, scene: EngineScene, options: RecorderOptions = {}): Promise<EngineRun> {
  const sim = await (await peerEngine(engine)).create(scene, options);
  const header = engineHeader(scene, sim, options);
  const frames = Math.min(scene.frames, options.frames ?? scene.frames);
  let k = 0;
  return {
    engine,
    header,
    frames,
    notes: sim.notes,
    next: () => {
      if (k >= frames) return null;
      const s = sim.step();
      const status = options.status ?? (s.converged === true ? 'converged' : 'max-iterations');
      const frame: RecordedFrame = {
        frame: k,
        time: (k + 1) * scene.dt,
        bodies: s.bodies,
        ...(s.pre ? { pre: s.pre } : {}),
        contacts: s.contacts,
        solver: {
          name: sim.solver.name,
          status,
          iterations: s.iterations,
          lambda: s.lambda,
          ...(status === 'max-iterations' ? { reason: maxIterationsReason(s.converged) } : {}),
        },
      };
      k++;
      return { frame, stepMs: s.stepMs };
    },
    dispose: () => sim.dispose(),
  };
}

/** Our engine's run of a scenario, as recording frames. */
export function startOurRun(desc: ScenarioDesc, frames = desc.frames): EngineRun {
  const world = new World(desc);
  let k = 0;
  return {
    engine: 'ours',
    header: headerFromWorld(world),
    frames,
    notes: [],
    next: () => {
      if (k >= frames) return null;
      const t0 = performance.now();
      const f = world.step();
      const stepMs = performance.now() - t0;
      k++;
      return { frame: frameFromWorld(world, f), stepMs };
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
