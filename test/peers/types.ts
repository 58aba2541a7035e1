/**
 * What every peer recorder (one module per real engine) provides: a simulation of a bundled scene
 * (scenes.ts) that, step by step, hands back what the recording format holds — post-step states, the
 * pre-solve velocities when the engine lets us know them, contacts and λ — already in our conventions.
 */
import type { EngineSimulation, EngineStep, RecorderOptions } from '../../src/session/engines/types.js';
import type { PeerScene } from './scenes.js';

export type PeerEngineName = 'cannon' | 'rapier' | 'jolt' | 'mujoco' | 'bullet';
export const PEER_ENGINES: readonly PeerEngineName[] = ['cannon', 'rapier', 'jolt', 'mujoco', 'bullet'];
export type { RecorderOptions };

/** One engine step, in our conventions; body arrays include the ground (index 0, static). Bullet does not time its step. */
export type PeerStep = Omit<EngineStep, 'stepMs'>;

/** A peer's simulation: the runtime engines' (src/session/engines/types.ts) without scene notes, its steps without timing. */
export interface PeerSimulation extends Omit<EngineSimulation, 'notes' | 'step'> {
  step(): PeerStep;
}

export interface PeerEngine {
  readonly name: PeerEngineName;
  create(scene: PeerScene, options: RecorderOptions): Promise<PeerSimulation>;
}
