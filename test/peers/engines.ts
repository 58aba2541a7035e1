/**
 * The peer engines by name, loaded on demand (a missing or broken one is reported, never fatal to others):
 * cannon-es, Rapier, Jolt and MuJoCo are the runtime engines of src/session/engines/ (run here on the bundled
 * scenes), Bullet (ammo.js) is a recorder of its own, for tests only.
 */
import { peerEngine } from '../../src/session/engines/engines.js';
import { peerEngineScene } from './scenes.js';
import type { PeerEngine, PeerEngineName } from './types.js';

export async function loadPeerEngine(name: PeerEngineName): Promise<PeerEngine> {
  if (name === 'bullet') return (await import('./bullet.js')).bulletEngine;
  const engine = await peerEngine(name);
  return { name, create: (scene, options) => engine.create(peerEngineScene(scene), options) };
}
