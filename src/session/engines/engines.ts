/**
 * The peer engines by name, each module loaded on demand (its npm package is loaded when the engine is created:
 * enginePackages.ts), so a missing engine is reported when it is asked for and never stops the others.
 */
import type { PeerEngine, PeerEngineName } from './types.js';

export async function peerEngine(name: PeerEngineName): Promise<PeerEngine> {
  switch (name) {
    case 'cannon':
      return (await import('./cannon.js')).cannonEngine;
    case 'rapier':
      return (await import('./rapier.js')).rapierEngine;
    case 'jolt':
      return (await import('./jolt.js')).joltEngine;
    case 'mujoco':
      return (await import('./mujoco.js')).mujocoEngine;
  }
}
