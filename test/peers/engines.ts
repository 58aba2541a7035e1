/** The peer engines by name, loaded on demand (a missing or broken one is reported, never fatal to others). */
import type { PeerEngine, PeerEngineName } from './types.js';

export async function loadPeerEngine(name: PeerEngineName): Promise<PeerEngine> {
  switch (name) {
    case 'cannon':
      return (await import('./cannon.js')).cannonEngine;
    case 'rapier':
      return (await import('./rapier.js')).rapierEngine;
    case 'jolt':
      return (await import('./jolt.js')).joltEngine;
    case 'mujoco':
      return (await import('./mujoco.js')).mujocoEngine;
    case 'bullet':
      return (await import('./bullet.js')).bulletEngine;
  }
}
