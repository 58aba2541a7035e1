/**
 * Other physics engines run on a scene file's scenario (docs/compare.md "Other engines"): what every engine
 * recorder provides — a simulation of the scene that, step by step, hands back what the recording format holds
 * (post-step states, the pre-solve velocities, contacts and λ), already in our conventions, and how long the
 * engine's own step took. The engines are optional npm packages, loaded on demand (enginePackages.ts).
 */
import type { Quat } from '../../engine/index.js';
import type { Vec3 } from '../../engine/index.js';
import type { RecordedBodyState, RecordedContact, RecordedPreState, RecordedSolverStatus } from '../../format/recording.js';

/** The peer engines (our own engine is 'ours', run by the World itself). */
export type PeerEngineName = 'cannon' | 'rapier' | 'jolt' | 'mujoco';
export const PEER_ENGINE_NAMES: readonly PeerEngineName[] = ['cannon', 'rapier', 'jolt', 'mujoco'];
export type EngineName = 'ours' | PeerEngineName;
export const ENGINE_NAMES: readonly EngineName[] = ['ours', ...PEER_ENGINE_NAMES];

/** A body of an engine scene: every body of the scenario, in its order (static ones too). */
export interface EngineBody {
  readonly name: string;
  readonly shape:
    | { readonly box: { readonly halfExtents: Vec3 } }
    | { readonly sphere: { readonly radius: number } }
    /** Static half-space {x : n·x ≤ offset}. */
    | { readonly plane: { readonly normal: Vec3; readonly offset: number } };
  readonly static: boolean;
  /** kg (dynamic bodies; 0 for static ones). */
  readonly mass: number;
  /** Body-frame principal moments of the solid shape (kg·m²); zeros for static bodies. */
  readonly inertia: Vec3;
  readonly x: Vec3;
  readonly q: Quat;
  readonly v: Vec3;
  readonly w: Vec3;
  /** The body's own material coefficients (μ, e) before any combination. */
  readonly friction: number;
  readonly restitution: number;
}

/** A scene every engine can build: a scenario's bodies, time step, gravity, and μ, e combined per pair. */
export interface EngineScene {
  readonly name: string;
  readonly dt: number;
  readonly frames: number;
  readonly gravity: Vec3;
  readonly bodies: readonly EngineBody[];
  /** μ and e of a contact between bodies i and j, combined by the scenario's rules. */
  pair(i: number, j: number): { readonly mu: number; readonly e: number };
  /** One μ and one e for every pair (then every engine reproduces them exactly), or null. */
  readonly uniform: { readonly mu: number; readonly e: number } | null;
  /** The scenario's combination rules (docs/scene-format.md). */
  readonly frictionCombine: string;
  readonly restitutionCombine: string;
}

export interface RecorderOptions {
  /** Solver iterations (velocity iterations); the engine's default when absent. */
  readonly iterations?: number;
  /** Position correction / Baumgarte / ERP / soft-contact spring on (default) or off. */
  readonly stabilization?: boolean;
  /**
   * The status label written in every frame. Default: the engine's own verdict where it has a convergence
   * test (cannon-es, MuJoCo), else "max-iterations" (a fixed iteration count proves nothing).
   */
  readonly status?: Extract<RecordedSolverStatus, 'converged' | 'max-iterations'>;
  /** Record only the first N frames of the scene. */
  readonly frames?: number;
}

/** One engine step, in our conventions; body arrays follow the scene's bodies. */
export interface EngineStep {
  readonly bodies: readonly RecordedBodyState[];
  readonly pre?: readonly RecordedPreState[];
  readonly contacts: readonly RecordedContact[];
  readonly lambda: readonly number[];
  readonly iterations: number;
  /** The engine's own convergence verdict, when it has one. */
  readonly converged?: boolean;
  /** Wall time of the engine's own step (ms), without the recorder's conversion and λ fitting. */
  readonly stepMs: number;
}

export interface EngineSimulation {
  /** Header `producer`. */
  readonly producer: { readonly name: string; readonly version: string };
  /** Header `solver`: what the engine really runs (name, iterations, stabilisation parameters, …). */
  readonly solver: { readonly name: string; readonly [key: string]: unknown };
  /** Header `x-lambda-source`: where λ comes from (read from the engine, or fitted), in words. */
  readonly lambdaSource: string;
  /** Header `solver.lambdaSource`: the same per component (docs/recording-format.md). */
  readonly lambdaOrigin: { readonly normal: 'solver' | 'fitted'; readonly tangent: 'solver' | 'fitted' | 'unavailable' };
  /** Header `x-pre-source`: how `pre` was obtained. */
  readonly preSource: string;
  /** What the engine could not reproduce of the scene (material combination …), in words. */
  readonly notes: readonly string[];
  step(): EngineStep;
  dispose(): void;
}

export interface PeerEngine {
  readonly name: PeerEngineName;
  create(scene: EngineScene, options: RecorderOptions): Promise<EngineSimulation>;
}
