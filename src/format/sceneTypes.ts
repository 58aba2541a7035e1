/**
 * Scenario files, the types and fixed data (docs/scene-format.md, schemas/scene.schema.json): what a
 * parsed scenario is (ParsedScenario, Expectation, SceneWarning, SceneFormatError), the defaults and the
 * field names each object accepts (test/unit/scene-format.test.ts keeps them in step with the schema).
 */
import { FormatError } from './messages.js';
import type { SourceRange } from './jsonPositions.js';
import {
  type CombineRule,
  type MaterialDesc,
  type PgsFrictionLaw,
  type Quat,
  type ScenarioDesc,
  type SolveOptions,
  SOLVER_NAMES,
  type SolverName,
  type Vec3,
} from '../engine/index.js';

export type { SourceRange } from './jsonPositions.js';

export const SCENE_FILE_SUFFIX = '.scene.json';

// ---------------------------------------------------------------------------------------------------
// Public types

/** What `contact-lens check` verifies after running a scenario (docs/scene-format.md "Expectations"). */
export type Expectation =
  /** Total energy E = Σ ½m|v|² + ½ωᵀIω − m g·x of the dynamic bodies never rises from one frame to the next by more than toleranceJ (J). */
  | { readonly kind: 'energyNonIncreasing'; readonly toleranceJ: number }
  /** The deepest contact penetration over all frames is at most `meters` (m). */
  | { readonly kind: 'maxPenetration'; readonly meters: number }
  /** After the last frame ‖x_body − position‖ ≤ tolerance (m). */
  | { readonly kind: 'finalPosition'; readonly body: string; readonly position: Vec3; readonly tolerance: number }
  /** After the last frame ‖v_body − velocity‖ ≤ tolerance (m/s). */
  | { readonly kind: 'finalVelocity'; readonly body: string; readonly velocity: Vec3; readonly tolerance: number }
  /** No frame's solve ends with status "failed" (numerical breakdown). */
  | { readonly kind: 'noSolverFailures' }
  /** ‖Σ m v(frame) − Σ m v(0)‖ ≤ tolerance (N·s) for every frame (dynamic bodies). */
  | { readonly kind: 'momentumConserved'; readonly tolerance: number }
  /** After the last frame the body's linear speed ‖v‖ is at most `speed` (m/s). */
  | { readonly kind: 'bodyAtRest'; readonly body: string; readonly speed: number }
  /** The scenario run twice does not diverge ("repeat"); "order": also not with each step's contacts shuffled. */
  | { readonly kind: 'deterministic'; readonly mode: 'repeat' | 'order' };

export type ExpectationKind = Expectation['kind'];

/** Per kind, the fields besides "kind" (all required). */
export const EXPECTATION_FIELDS: { readonly [K in ExpectationKind]: readonly string[] } = {
  energyNonIncreasing: ['toleranceJ'],
  maxPenetration: ['meters'],
  finalPosition: ['body', 'position', 'tolerance'],
  finalVelocity: ['body', 'velocity', 'tolerance'],
  noSolverFailures: [],
  momentumConserved: ['tolerance'],
  bodyAtRest: ['body', 'speed'],
  deterministic: ['mode'],
};
export const EXPECTATION_KINDS = Object.keys(EXPECTATION_FIELDS) as readonly ExpectationKind[];

export interface ParsedScenario {
  /** Position in the file's "scenarios" array. */
  readonly index: number;
  readonly desc: ScenarioDesc;
  readonly description?: string;
  readonly expectations: readonly Expectation[];
  /** The scenario object, from "{" to "}" (1-based; endColumn exclusive). */
  readonly range: SourceRange;
  /** The scenario's "name" string value. */
  readonly nameRange: SourceRange;
  /** desc.bodies[i] ↔ bodyRanges[i] (the body object). */
  readonly bodyRanges: readonly SourceRange[];
  /** expectations[i] ↔ expectationRanges[i]. */
  readonly expectationRanges: readonly SourceRange[];
}

export type SceneWarningKind = 'fault-injection' | 'quaternion-normalized' | 'expectation';

export interface SceneWarning {
  readonly kind: SceneWarningKind;
  readonly file: string;
  /** JSON path, e.g. scenarios[0].faultInjection. */
  readonly field: string;
  readonly detail: string;
  readonly range: SourceRange;
  /** Name of the scenario the warning belongs to. */
  readonly scenario: string;
  /** "file: field: line L, column C: detail", as for errors. */
  readonly message: string;
}

/** A FormatError with the position of the offending value (field is a JSON path). */
export class SceneFormatError extends FormatError {
  declare readonly range: SourceRange;
  constructor(file: string, field: string, detail: string, range: SourceRange) {
    super(file, field, detail, range);
    this.name = 'SceneFormatError';
  }
  get line(): number {
    return this.range.line;
  }
  get column(): number {
    return this.range.column;
  }
}

/** Outline entry of scenarioRanges (names may be missing while the user types). */
export interface ScenarioOutline {
  readonly index: number;
  readonly name: string | null;
  readonly range: SourceRange;
  readonly nameRange?: SourceRange;
}

// ---------------------------------------------------------------------------------------------------
// Defaults (the schema's "default" values; the test checks they agree)

const freezeVec = (v: Vec3): Vec3 => Object.freeze([v[0], v[1], v[2]]) as unknown as Vec3;
/** Parsed descriptions never share (frozen) default arrays with SCENE_DEFAULTS or with each other. */
export const copy3 = (v: Vec3): Vec3 => [v[0], v[1], v[2]];

export const SCENE_DEFAULTS = Object.freeze({
  /** Time step (s). */
  dt: 1 / 60,
  /** m/s², z up. */
  gravity: freezeVec([0, 0, -9.81]),
  solver: Object.freeze({ solver: 'coulomb' }) as SolveOptions,
  erp: 0.2,
  /** m */
  slop: 0.005,
  splitImpulse: false,
  softening: 0,
  /** m/s */
  restVelocityThreshold: 0.5,
  frictionCombine: 'geometric-mean' as CombineRule,
  restitutionCombine: 'geometric-mean' as CombineRule,
  warmStart: true,
  /** The implicit material every body uses unless it names another; a scenario may redefine "default". */
  material: Object.freeze({ name: 'default', friction: 0.5, restitution: 0 }) as MaterialDesc,
  orientation: Object.freeze([1, 0, 0, 0]) as unknown as Quat,
  velocity: freezeVec([0, 0, 0]),
  angularVelocity: freezeVec([0, 0, 0]),
  /** shape.plane.offset (m). */
  planeOffset: 0,
});

export const COMBINE_RULES: readonly CombineRule[] = ['geometric-mean', 'min', 'max', 'average'];
export const SOLVERS: readonly SolverName[] = SOLVER_NAMES;
export const FRICTION_LAWS: readonly PgsFrictionLaw[] = ['coulomb-disk', 'cone'];

export const TOP_KEYS = ['$schema', 'scenarios'];
export const SCENARIO_KEYS = [
  'name',
  'description',
  'dt',
  'frames',
  'gravity',
  'solver',
  'erp',
  'slop',
  'splitImpulse',
  'softening',
  'restVelocityThreshold',
  'frictionCombine',
  'restitutionCombine',
  'warmStart',
  'materials',
  'bodies',
  'expectations',
  'faultInjection',
];
/** Solver options per solver (besides "name"). */
export const SOLVER_OPTION_KEYS: { readonly [S in SolverName]: readonly string[] } = {
  pgs: ['maxIterations', 'tolerance', 'friction', 'warmStartFactor', 'diagonalScaling', 'regularization', 'fixedPointTolerance'],
  newton: ['maxIterations', 'tolerance', 'armijo', 'maxBacktracks'],
  ipm: ['maxIterations', 'tolerance'],
  coulomb: ['maxIterations', 'tolerance'],
};
export const MATERIAL_KEYS = ['name', 'friction', 'restitution'];
export const BODY_KEYS = ['name', 'shape', 'mass', 'static', 'position', 'orientation', 'velocity', 'angularVelocity', 'material'];
export const SHAPE_KEYS = ['sphere', 'box', 'plane'];
export const FAULT_KEYS = ['restitutionAsTarget'];
/** The fields each object accepts (the schema's "properties"; the test keeps them in step). */
export const SCENE_FIELD_NAMES = Object.freeze({
  file: TOP_KEYS,
  scenario: SCENARIO_KEYS,
  material: MATERIAL_KEYS,
  body: BODY_KEYS,
  shape: SHAPE_KEYS,
  sphere: ['radius'],
  box: ['halfExtents'],
  plane: ['normal', 'offset'],
  faultInjection: FAULT_KEYS,
});
/**
 * Largest number of frames a scenario may ask for: the inspector keeps a few numbers per frame in typed
 * arrays (10⁶ frames is 4.6 hours of simulated time at Δt = 1/60 s).
 */
export const MAX_SCENE_FRAMES = 1_000_000;
/**
 * Largest shape size (a sphere's radius, a box's half extent, in m) and largest |coordinate| of a body's
 * position or a plane's offset (m). Contacts are resolved to ~1e-3 m (the contact margin), which a double
 * keeps up to ~1e12; far beyond that a 1.5 KB scene (a half extent of 1.2e29) took 15 s to check.
 */
export const MAX_SCENE_LENGTH = 1e6;
export const MAX_SCENE_COORDINATE = 1e9;
/** Largest |component| of a scene's gravity (m/s²): 10⁵ g, far beyond any physical scene, far within what a recording holds. */
export const MAX_SCENE_GRAVITY = 1e6;
/** |‖q‖ − 1| above this gives a warning (the quaternion is normalised either way). */
export const QUAT_UNIT_TOLERANCE = 1e-6;
