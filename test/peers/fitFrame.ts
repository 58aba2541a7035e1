/**
 * λ of one recorded frame fitted to the engine's own velocity change (src/session/engines/fitLambda.ts), for
 * the Bullet recorder (the others live in src/session/engines/).
 */
import type { RecordingHeader } from '../../src/format/recording.js';
import { sceneHeader } from '../../src/session/engines/fitFrame.js';
import { peerEngineScene, type PeerScene } from './scenes.js';

export { fitFrameLambda } from '../../src/session/engines/fitFrame.js';

/** A header with the scene's bodies (masses, inertias): what preSolveBodyStates needs for the fit. */
export function peerFitHeader(scene: PeerScene, name: string): RecordingHeader {
  return sceneHeader(peerEngineScene(scene), name);
}
