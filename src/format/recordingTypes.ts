/**
 * Recording format, version 1 (with the optional format 1.1 fields), the types and constants (docs/recording-format.md;
 * schemas/recording-*.schema.json): the header, frames, contacts and solver records as read and written.
 */
import type { DeclaredConventions } from './conventions.js';
import type { Mat3, Quat, Vec3 } from '../engine/index.js';

export const RECORDING_FORMAT = 'contact-lens-recording';
export const RECORDING_VERSION = 1;
/** Tolerance on |n| = 1, |t1| = |t2| = 1, t·n = 0 and t1 × t2 = n (and |q| = 1 before a warning). */
export const UNIT_TOLERANCE = 1e-6;
/** |q| may deviate from 1 by up to this much (with a warning above UNIT_TOLERANCE); beyond it, an error. */
export const QUATERNION_ERROR_TOLERANCE = 1e-3;

// ─── types ──────────────────────────────────────────────────────────────────────────────────────────

/**
 * Our conventions (docs/physics.md "Conventions"): every header and frame in memory is in them. A file may declare others
 * (conventions.ts lists the accepted ones); the reader converts them on read and the header says so.
 */
export interface RecordingConventions {
  readonly up: 'z';
  readonly quaternion: 'wxyz';
  readonly normal: 'b-to-a';
  readonly impulse: 'per-step';
}

export const CONVENTIONS: RecordingConventions = { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' };

/** A shape as written in the file: an object with exactly one key naming the kind. */
export type RecordedShape =
  | { readonly sphere: { readonly radius: number } }
  | { readonly box: { readonly halfExtents: Vec3 } }
  /** Static half-space {x : n·x ≤ offset}; n is the outward unit normal. */
  | { readonly plane: { readonly normal: Vec3; readonly offset: number } }
  /** A shape Contact Lens does not know (capsule, mesh, …): kept as written, `type` names it. */
  | { readonly other: { readonly type?: string; readonly [key: string]: unknown } };

export interface RecordedBody {
  readonly name: string;
  readonly shape: RecordedShape;
  /** kg; null for a static body (inverse mass 0, inverse inertia 0). */
  readonly mass: number | null;
  /**
   * Body-frame inertia about the centre of mass (kg·m²): 3 principal moments (the body axes are the
   * principal axes) or the full 3×3 tensor row-major. null (or absent in the file) for static bodies.
   */
  readonly inertia: Vec3 | Mat3 | null;
  /** true ⇔ mass is null. */
  readonly static: boolean;
}

/** Header `solver`: the engine's solver and its parameters, free-form (recommended keys in the docs). */
export interface RecordedSolverConfig {
  readonly name: string;
  readonly [parameter: string]: unknown;
}

export interface RecordingHeader {
  readonly format: typeof RECORDING_FORMAT;
  readonly version: typeof RECORDING_VERSION;
  readonly producer: { readonly name: string; readonly version?: string };
  readonly units: 'SI';
  readonly conventions: RecordingConventions;
  /** Time step (s), > 0. */
  readonly dt: number;
  /** m/s². */
  readonly gravity: Vec3;
  readonly bodies: readonly RecordedBody[];
  readonly solver?: RecordedSolverConfig;
  /**
   * The conventions the file declared when they differ from ours: the reader converted this header and
   * converts every frame (conventions.ts); `converted` says what, in words.
   */
  readonly declared?: DeclaredConventions;
  readonly converted?: readonly string[];
  /**
   * Format 1.1: the bodies' state before the first recorded frame's step (the optional initial-state line,
   * line 2), so that the first step is diagnosed like any other. Filled by the reader, never by the header line.
   */
  readonly initial?: RecordedInitialState;
}

/** Format 1.1 initial-state line `{"initial": {"time"?, "bodies": [{x, q, v, w}, …]}}`: the state the first recorded step started from. */
export interface RecordedInitialState {
  /** Simulated time of this state (s), < the first frame's time; absent: the first frame's time − dt. */
  readonly time?: number;
  readonly bodies: readonly RecordedBodyState[];
}

/**
 * Format 1.1 soft-contact parameters in the canonical form (docs/recording-format.md "Soft contacts"): a
 * spring–damper on the penetration per unit effective mass, ẍ = k·depth − c·ġn: k in 1/s², c in 1/s.
 */
export interface SoftContactParameters {
  readonly k: number;
  readonly c: number;
}

/** Post-step state of one body, world frame: centre of mass (m), orientation body → world, v (m/s), ω (rad/s). */
export interface RecordedBodyState {
  readonly x: Vec3;
  readonly q: Quat;
  readonly v: Vec3;
  readonly w: Vec3;
}

/**
 * The state the contact problem was built from: velocities after external forces, before the contact
 * solve; optionally the pose used for the contact geometry (default: the previous frame's post-step pose).
 */
export interface RecordedPreState {
  readonly v: Vec3;
  readonly w: Vec3;
  readonly x?: Vec3;
  readonly q?: Quat;
}

export interface RecordedContact {
  /** Body index (0-based, header order). */
  readonly a: number;
  /** Body index, or −1 for the static world. */
  readonly b: number;
  /** World-space contact point (m). */
  readonly point: Vec3;
  /** Unit normal pointing from b into a. */
  readonly normal: Vec3;
  /** Unit tangents with t1 × t2 = n. */
  readonly t1: Vec3;
  readonly t2: Vec3;
  /** Penetration depth (m), ≥ 0. */
  readonly depth: number;
  /**
   * Speculative contact: the surfaces are still apart by this distance (m, > 0, depth then 0) and the
   * solver let them approach by at most gap/Δt (b_n gets −gap/Δt). Absent: touching or overlapping.
   */
  readonly gap?: number;
  /** Combined friction coefficient, ≥ 0. */
  readonly mu: number;
  /** Combined restitution coefficient, ≥ 0 (> 1 is accepted with a warning). */
  readonly e: number;
  /** Stable feature id, to match contacts across frames. */
  readonly feature?: string;
  /** Format 1.1: soft-contact parameters of this contact (overrides header solver.soft). */
  readonly soft?: SoftContactParameters;
}

/**
 * Format 1.1: a contact manifold whose friction is solved at one point with a twist row (Box2D v3, Rapier,
 * Jolt): rows t1, t2 at `point` and an angular row about n, J = [0, nᵀ] on a and [0, −nᵀ] on b.
 */
export interface RecordedManifold {
  readonly a: number;
  /** Body index or −1 (static world), as for contacts. */
  readonly b: number;
  /** Indices (frame order) of the contacts this manifold groups: all join a and b. */
  readonly contacts: readonly number[];
  /** World point of the friction rows (the manifold centre), m. */
  readonly point: Vec3;
  /** Unit normal from b into a and tangents with t1 × t2 = n. */
  readonly normal: Vec3;
  readonly t1: Vec3;
  readonly t2: Vec3;
  /** Impulses (λt1, λt2, λtwist): N·s, N·s, N·m·s (the twist spins a about +n relative to b). */
  readonly lambda: readonly [number, number, number];
}

/** Format 1.1: an impulse on a body besides gravity and contacts (forces × dt), world frame, about the centre of mass. */
export interface RecordedExternalImpulse {
  readonly body: number;
  /** N·s. */
  readonly impulse: Vec3;
  /** N·m·s (world frame); absent: 0. */
  readonly angular?: Vec3;
  /**
   * "before-solve" (default): applied in the velocity update before the contact solve, like gravity — `pre`
   * includes it; "with-solve": applied together with the contact impulses (joints, motors, impulses the engine
   * adds during its solve), so v⁺ − v⁻ = M⁻¹(Jᵀλ + p).
   */
  readonly stage: 'before-solve' | 'with-solve';
}

export type RecordedSolverStatus = 'converged' | 'max-iterations' | 'stalled' | 'failed';
export const SOLVER_STATUSES: readonly RecordedSolverStatus[] = ['converged', 'max-iterations', 'stalled', 'failed'];

export interface RecordedSolver {
  readonly name: string;
  readonly status: RecordedSolverStatus;
  /** Why the solver did not converge (free text). */
  readonly reason?: string;
  readonly iterations?: number;
  /** The engine's own residual measure, one per iteration (the last is the final residual). */
  readonly residuals?: readonly number[];
  /** Impulses (N·s) in the 3C layout (λn, λt1, λt2) per contact. */
  readonly lambda: readonly number[];
}

export interface RecordedFrame {
  /** Step index, strictly increasing (gaps allowed). */
  readonly frame: number;
  /** Simulated time at the END of the step (s); strictly increasing. */
  readonly time: number;
  /** Post-step state, header order. */
  readonly bodies: readonly RecordedBodyState[];
  readonly pre?: readonly RecordedPreState[];
  readonly contacts: readonly RecordedContact[];
  readonly solver: RecordedSolver;
  /** The matrix the engine solved with, (3C)² row-major. */
  readonly A?: readonly number[];
  /** The right-hand side the engine solved with, 3C. */
  readonly b?: readonly number[];
  /** Free-form energies (J), e.g. kinetic, potential, total. */
  readonly energy?: { readonly [name: string]: number };
  /** Format 1.1: manifold-level friction and twist rows. */
  readonly manifolds?: readonly RecordedManifold[];
  /** Format 1.1: impulses besides gravity and contacts, per body (only bodies that received one). */
  readonly external?: readonly RecordedExternalImpulse[];
}

export interface ParseFrameOptions {
  /** The previous valid frame: its number and time must be strictly smaller. */
  readonly previous?: { readonly frame: number; readonly time: number };
  /** Non-fatal findings (unknown fields, e > 1, …); `field` has no line prefix. */
  readonly onWarning?: (field: string, detail: string) => void;
  /**
   * Validate every body state and contact with the field-naming readers only, skipping the allocation-free
   * success path (recordingValidate.ts): the result must be the same either way (a differential test checks it).
   */
  readonly namingOnly?: boolean;
}
