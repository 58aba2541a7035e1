/**
 * recordPeer(engine, scene, options): runs a real engine on a bundled scene and writes a recording in our
 * format (docs/recording-format.md, version 1) into a temporary directory (or `out`); returns its path.
 * The header lists the ground (a static half-space z ≤ 0) as body 0, then the scene's bodies.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecordingWriter } from '../../src/format/recordingFile.js';
import type { RecordingHeader } from '../../src/format/recording.js';
import { peerScene, recordedBodies, type PeerScene, type SceneName } from './scenes.js';
import { loadPeerEngine } from './engines.js';
import type { PeerEngineName, PeerSimulation, RecorderOptions } from './types.js';

export interface RecordPeerOptions extends RecorderOptions {
  /** Output file (default: a new file in a fresh os.tmpdir() directory). Never overwritten. */
  readonly out?: string;
}

export function peerHeader(scene: PeerScene, sim: PeerSimulation, options: RecorderOptions): RecordingHeader {
  const bodies = recordedBodies(scene);
  const header: RecordingHeader & Record<string, unknown> = {
    format: 'contact-lens-recording',
    version: 1,
    producer: sim.producer,
    units: 'SI',
    conventions: { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' },
    dt: scene.dt,
    gravity: scene.gravity,
    bodies,
    // Also inside `solver` (free-form, kept by the reader): top-level x- fields are ignored when read.
    solver: { ...sim.solver, lambdaSource: sim.lambdaOrigin, 'x-lambda-source': sim.lambdaSource, 'x-pre-source': sim.preSource },
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

export async function recordPeer(engine: PeerEngineName, sceneName: SceneName, options: RecordPeerOptions = {}): Promise<string> {
  const scene = peerScene(sceneName);
  const eng = await loadPeerEngine(engine);
  const sim = await eng.create(scene, options);
  const suffix = [options.iterations !== undefined ? `it${options.iterations}` : '', options.stabilization === false ? 'nostab' : ''].filter(Boolean).join('-');
  const file =
    options.out ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-peers-')), `${engine}-${sceneName}${suffix ? '-' + suffix : ''}.rec.jsonl`);
  const w = RecordingWriter.create(file, peerHeader(scene, sim, options));
  try {
    const frames = Math.min(scene.frames, options.frames ?? scene.frames);
    for (let k = 0; k < frames; k++) {
      const s = sim.step();
      const status = options.status ?? (s.converged === true ? 'converged' : 'max-iterations');
      w.writeFrame({
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
      });
    }
  } finally {
    w.close();
    sim.dispose();
  }
  return file;
}
