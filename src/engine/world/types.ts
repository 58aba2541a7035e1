/**
 * Descriptions of a scenario's world (what a scenario file or a recording header holds), shared by the
 * engine, the file formats and the session. Units SI; quaternions [w, x, y, z] body → world; z up.
 */
import type { Quat } from '../math/quat.js';
import type { Vec3 } from '../math/vec3.js';
import type { SolveOptions } from '../solvers/types.js';

export type ShapeDesc =
  | { readonly kind: 'sphere'; readonly radius: number }
  | { readonly kind: 'box'; readonly halfExtents: Vec3 }
  /** Static half-space {x : n·x ≤ offset}; its surface is n·x = offset, n points out of the solid. */
  | { readonly kind: 'plane'; readonly normal: Vec3; readonly offset: number };

export interface MaterialDesc {
  readonly name: string;
  /** Coulomb friction coefficient μ ≥ 0. */
  readonly friction: number;
  /** Coefficient of restitution e ∈ [0, 1]. */
  readonly restitution: number;
}

export interface BodyDesc {
  readonly name: string;
  readonly shape: ShapeDesc;
  /** Mass in kg, or null for a static body (inverse mass and inverse inertia 0; planes are always static). */
  readonly mass: number | null;
  readonly position: Vec3;
  readonly orientation: Quat;
  readonly velocity: Vec3;
  readonly angularVelocity: Vec3;
  /** Material name (see ScenarioDesc.materials); "default" when omitted. */
  readonly material: string;
}

/** How per-pair coefficients combine (docs/physics.md "Contact model": restitution by geometric mean; friction by the scene's rule). */
export type CombineRule = 'geometric-mean' | 'min' | 'max' | 'average';

/**
 * Deliberate faults, only for demonstrating and testing the diagnoser (an explicit, clearly named
 * `faultInjection` section of a scene, docs/scene-format.md); every use is reported as a warning.
 */
export interface FaultInjection {
  /** The "restitution as a target" fault (docs/physics.md): use −(1+e)·ġ⁻ as the TARGET velocity (b_n = −(2+e)·ġ_n⁻). */
  readonly restitutionAsTarget?: boolean;
}

export interface StepConfig {
  readonly dt: number;
  readonly gravity: Vec3;
  readonly solver: SolveOptions;
  /** Velocity-level position correction (Baumgarte 1972): bias (erp/dt)·max(0, depth − slop). */
  readonly erp: number;
  readonly slop: number;
  /** Split impulse (Catto 2006; docs/physics.md): the bias is solved separately and moves positions only. */
  readonly splitImpulse: boolean;
  /** Constraint softening γ ≥ 0 (docs/physics.md "Softening": 0 ≤ ġ + γλ ⊥ λ ≥ 0): γ is added to A's normal-row diagonal, b unchanged. */
  readonly softening: number;
  /** Approach speed below which restitution is ignored (m/s). */
  readonly restVelocityThreshold: number;
  readonly frictionCombine: CombineRule;
  readonly restitutionCombine: CombineRule;
  readonly warmStart: boolean;
  readonly faults: FaultInjection;
}

export interface ScenarioDesc {
  readonly name: string;
  readonly frames: number;
  readonly config: StepConfig;
  readonly materials: readonly MaterialDesc[];
  readonly bodies: readonly BodyDesc[];
}
