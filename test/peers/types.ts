/**
 * What every peer recorder (one module per real engine) provides: a simulation of a bundled scene
 * (scenes.ts) that, step by step, hands back what the recording format holds — post-step states, the
 * pre-solve velocities when the engine lets us know them, contacts and λ — already in our conventions.
 */
import type { RecordedBodyState, RecordedContact, RecordedPreState, RecordedSolverStatus } from '../../src/format/recording.js';
import type { PeerScene } from './scenes.js';

export type PeerEngineName = 'cannon' | 'rapier' | 'jolt' | 'mujoco' | 'bullet';
export const PEER_ENGINES: readonly PeerEngineName[] = ['cannon', 'rapier', 'jolt', 'mujoco', 'bullet'];

export interface RecorderOptions {
  /** Solver iterations (velocity iterations); the engine's default when absent. */
  readonly iterations?: number;
  /** Position correction / Baumgarte / ERP / soft-contact spring on (default) or off. */
  readonly stabilization?: boolean;
  /**
   * The status label written in every frame. Default: the engine's own verdict where it has a
   * convergence test (cannon-es), else "max-iterations" (a fixed iteration count proves nothing).
   */
  readonly status?: Extract<RecordedSolverStatus, 'converged' | 'max-iterations'>;
  /** Record only the first N frames of the scene (short test runs). */
  readonly frames?: number;
}

/** One engine step, in our conventions; body arrays include the ground (index 0, static). */
export interface PeerStep {
  readonly bodies: readonly RecordedBodyState[];
  readonly pre?: readonly RecordedPreState[];
  readonly contacts: readonly RecordedContact[];
  readonly lambda: readonly number[];
  readonly iterations: number;
  /** The engine's own convergence verdict, when it has one. */
  readonly converged?: boolean;
}

export interface PeerSimulation {
  /** Header `producer`. */
  readonly producer: { readonly name: string; readonly version: string };
  /** Header `solver`: what the engine really runs (name, iterations, stabilisation parameters, …). */
  readonly solver: { readonly name: string; readonly [key: string]: unknown };
  /** Header `x-lambda-source`: where λ comes from (read from the engine, or fitted), in words. */
  readonly lambdaSource: string;
  /** Header `solver.lambdaSource`: the same per component (docs/recording-format.md). */
  readonly lambdaOrigin: { readonly normal: 'solver' | 'fitted'; readonly tangent: 'solver' | 'fitted' | 'unavailable' };
  /** Header `x-pre-source`: how `pre` was obtained, or why it is absent. */
  readonly preSource: string;
  step(): PeerStep;
  dispose(): void;
}

export interface PeerEngine {
  readonly name: PeerEngineName;
  create(scene: PeerScene, options: RecorderOptions): Promise<PeerSimulation>;
}
