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
import { engineFrame, engineHeader } from '../../src/session/engines/engineRun.js';
import { peerEngineScene, peerScene, type PeerScene, type SceneName } from './scenes.js';
import { loadPeerEngine } from './engines.js';
import type { PeerEngineName, PeerSimulation, RecorderOptions } from './types.js';

export interface RecordPeerOptions extends RecorderOptions {
  /** Output file (default: a new file in a fresh os.tmpdir() directory). Never overwritten. */
  readonly out?: string;
}

/** The header of a peer recording: engineHeader (src/session/engines/engineRun.ts) of the bundled scene, without scene notes. */
export function peerHeader(scene: PeerScene, sim: PeerSimulation, options: RecorderOptions): RecordingHeader {
  const { producer, solver, lambdaSource, lambdaOrigin, preSource } = sim;
  return engineHeader(peerEngineScene(scene), { producer, solver, lambdaSource, lambdaOrigin, preSource, notes: [] }, options);
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
      w.writeFrame(engineFrame(k, scene.dt, sim.solver.name, sim.step(), options));
    }
  } finally {
    w.close();
    sim.dispose();
  }
  return file;
}
