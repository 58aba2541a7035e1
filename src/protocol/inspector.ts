/**
 * Messages between the extension host and the inspector webview (plain types only; the validators that
 * check them on receipt are in ./validate.ts). Every request from the webview carries a `requestId`; the
 * host answers with the same id (or an `error` with it). Numbers missing in a source are `null`, never NaN.
 */

import type { HeatMap } from './heatMap.js';
import type { SceneFrame, SceneInfo, WhatIfContactScene } from './scene.js';
import type { ProblemView } from './problem.js';
import type { CompareView, CrossDirection, CrossWhatIfView, EnginesView, FrameCompare } from './compare.js';
import type { LiveAction, LiveUpdate } from './live.js';

/** 2: island A travels as heat-map levels (a Uint8Array) instead of numbers. */
export const PROTOCOL_VERSION = 2;

/** The engine's solver names (src/engine/solvers/types.ts), copied as plain data; a test keeps them equal. */
export type SolverName = 'pgs' | 'newton' | 'ipm' | 'coulomb';
export const SOLVER_NAMES: readonly SolverName[] = ['pgs', 'newton', 'ipm', 'coulomb'];
/** Largest what-if iteration budget (the engine's limit, src/engine/solvers/limits.ts; a test keeps them equal). */
export const MAX_SOLVER_ITERATIONS = 1_000_000;

/**
 * A contact's state from the physics of the step (src/session/contactState.ts): open (the gap opens
 * faster than the stabilisation allows, or no normal impulse), stick or slip (closed; slip speed ‖w_t‖).
 */
export type ContactState = 'open' | 'stick' | 'slip';
export type SolverStatus = 'converged' | 'max-iterations' | 'stalled' | 'failed';

/** What the inspector shows: a scenario simulated by our engine or a recording file. */
export interface SessionInfo {
  readonly title: string;
  readonly source: 'scenario' | 'recording';
  /** Path of the file (scene file or recording) shown in the header. */
  readonly file: string;
  readonly producer: string;
  readonly frameCount: number;
  readonly dt: number;
  readonly bodies: readonly string[];
}

/** One value per frame, columnar (index = session position 0 … frameCount − 1). */
export interface Timeline {
  readonly frame: readonly number[];
  readonly time: readonly number[];
  readonly contacts: readonly number[];
  readonly status: readonly SolverStatus[];
  readonly iterations: readonly (number | null)[];
  readonly residual: readonly (number | null)[];
  readonly kinetic: readonly number[];
  readonly potential: readonly number[];
  readonly total: readonly number[];
  /** Energy-ledger parts per frame (J), by name (e.g. normalWork, frictionWork, biasWork); may be empty. */
  readonly ledger: { readonly [part: string]: readonly (number | null)[] };
  /**
   * Energy injected per frame (J) by mechanism, from the diagnosis' ledger and counterfactual re-solves
   * (docs/physics.md, "Diagnosis"); 0 where a mechanism injected nothing. Absent in old sessions.
   */
  readonly injection?: { readonly [mechanism: string]: readonly number[] };
  /** κ(A) estimate of the frame's worst island (null: no contacts or no pre-solve state). */
  readonly kappa: readonly (number | null)[];
  /**
   * κ on the range of A of the same island (λmax over the smallest eigenvalue above the range threshold,
   * engine/conditioning.ts): finite where κ(A) is dominated by the null directions of coplanar or
   * duplicated contacts. Absent in old sessions.
   */
  readonly kappaRange?: readonly (number | null)[];
  readonly maxDepth: readonly number[];
}

export interface FindingView {
  /** Session position of the finding's frame. */
  readonly index: number;
  readonly frame: number;
  readonly time: number;
  readonly contacts: readonly number[];
  readonly mechanism: string;
  readonly joules: number;
  readonly explanation: string;
  /**
   * One line for the findings list (at most FINDING_HEADLINE_MAX characters), from the diagnosis; when absent
   * the webview derives one from the mechanism, frame, joules and the explanation's first clause.
   */
  readonly headline?: string;
  /** Lines of evidence shown when the finding is expanded (numbers, re-solves, references). */
  readonly evidence?: readonly string[];
  /** injection (energy entered), non-physical (no gain yet) or inconsistent (the recording's data). */
  readonly kind?: 'injection' | 'non-physical' | 'inconsistent';
  readonly severity?: 'error' | 'warning' | 'info';
  /** Joules each counterfactual exact re-solve saves in this frame (injections with a re-solve). */
  readonly counterfactual?: { readonly exactSolve: number; readonly noStabilisation: number; readonly restitutionLaw: number; readonly islands: number };
  /** The frame failed the recording consistency check. */
  readonly inconsistent?: boolean;
}

/** Longest FindingView.headline (characters). */
export const FINDING_HEADLINE_MAX = 120;

export interface ContactView {
  readonly index: number;
  /** Stable identity across frames: "a|b|feature". */
  readonly key: string;
  readonly island: number;
  readonly bodyA: string;
  readonly bodyB: string;
  readonly point: readonly [number, number, number];
  readonly normal: readonly [number, number, number];
  readonly depth: number;
  readonly mu: number;
  readonly e: number;
  readonly lambdaN: number;
  /** ‖(λt1, λt2)‖. */
  readonly lambdaT: number;
  readonly state: ContactState;
  /** Normal velocity before/after the impulse (m/s), null when the frame has no pre-solve state. */
  readonly vnBefore: number | null;
  readonly vnAfter: number | null;
  /** v⁺ − (−e·v⁻), positive = separates faster than the restitution law allows. */
  readonly excess: number | null;
  /** λt·v_t⁺ (J per step: positive means friction did work). */
  readonly frictionPower: number | null;
  /** The ERP/Baumgarte part of b_n (m/s), null when not re-assembled. */
  readonly biasVelocity: number | null;
  /** The impulse that bias alone gives this contact, m_eff·bias (N·s; exact for an isolated contact). */
  readonly biasImpulse: number | null;
  /** Friction-cone violation max(0, ‖λt‖ − μλn) (N·s). */
  readonly coneViolation: number;
  /** Energy this contact injected in this frame by the diagnosis (J, all mechanisms); absent in old sessions. */
  readonly injected?: number;
}

export interface IslandView {
  readonly contacts: readonly number[];
  /** Rows of A (3 per contact). */
  readonly size: number;
  /**
   * A as heat-map levels (./heatMap.ts) when size ≤ MAX_MATRIX_ROWS (else null, see `reason`) and the island is one
   * of those the matrix panel draws (drawnIslands; else null).
   */
  readonly heat: HeatMap | null;
  readonly kappa: number | null;
  readonly lambdaMin: number | null;
  readonly lambdaMax: number | null;
  readonly rankDeficiency: number | null;
  /** κ on the range of A (engine/conditioning.ts); absent in old sessions. */
  readonly kappaRange?: number | null;
  /** FCLIB's rank ratio rows/rank; absent in old sessions. */
  readonly rankRatio?: number | null;
  /** 'exact' or the estimate used. */
  readonly method: string | null;
  readonly causes: readonly string[];
  readonly reason?: string;
  /**
   * True while this island's conditioning is still being computed (its κ fields are null): a busy frame's view
   * is sent first and its larger islands' κ follow in a `conditioning` message.
   */
  readonly conditioningPending?: boolean;
}

/** The conditioning of island `island` of a frame view that was sent with it pending. */
export type IslandConditioningView = Pick<
  IslandView,
  'kappa' | 'lambdaMin' | 'lambdaMax' | 'rankDeficiency' | 'kappaRange' | 'rankRatio' | 'method' | 'causes'
> & {
  readonly island: number;
};

/** An island view with its conditioning filled in (the pending mark dropped). */
export function withConditioning(view: IslandView, c: IslandConditioningView): IslandView {
  const { conditioningPending: _pending, ...rest } = view;
  const { island: _island, ...cond } = c;
  return { ...rest, ...cond };
}

/** A frame view with the conditioning of its pending islands filled in (a `conditioning` message's islands). */
export function withIslandConditioning(view: FrameView, cs: readonly IslandConditioningView[]): FrameView {
  const islands = [...view.islands];
  for (const c of cs) if (islands[c.island]) islands[c.island] = withConditioning(islands[c.island], c);
  return { ...view, islands };
}

/** Largest island whose A is sent to the webview as a heat map (3 rows per contact). */
export const MAX_MATRIX_ROWS = 600;

/** At most this many islands are drawn in the matrix panel; the rest are listed as a count. */
export const MAX_DRAWN_ISLANDS = 12;

/**
 * The islands the matrix panel draws, in island order: the MAX_DRAWN_ISLANDS largest by rows (ties: the earlier
 * island). The host sends heat maps for these only; the webview draws these.
 */
export function drawnIslands(sizes: readonly number[]): number[] {
  return sizes
    .map((_, k) => k)
    .sort((a, b) => sizes[b] - sizes[a] || a - b)
    .slice(0, MAX_DRAWN_ISLANDS)
    .sort((a, b) => a - b);
}

export interface FrameView {
  readonly index: number;
  readonly frame: number;
  readonly time: number;
  readonly status: SolverStatus;
  readonly solver: string;
  readonly iterations: number | null;
  /** The solver's residual per iteration (convergence curve), possibly empty. */
  readonly residuals: readonly number[];
  readonly contacts: readonly ContactView[];
  readonly islands: readonly IslandView[];
  readonly notes: readonly string[];
  /** Body poses for the scene view (./scene.ts); absent when the host sends none. */
  readonly scene?: SceneFrame;
  /** Compare mode (./compare.ts): the other run's frame at the same time, per contact and as a ghost. */
  readonly compare?: FrameCompare;
}

export interface ContactSeries {
  readonly key: string;
  /** Session positions sampled (decimated for long sessions). */
  readonly index: readonly number[];
  /** null where the contact does not exist in that frame. */
  readonly lambdaN: readonly (number | null)[];
  readonly lambdaT: readonly (number | null)[];
}

export interface WhatIfOptions {
  readonly solver: SolverName;
  readonly maxIterations?: number;
  readonly tolerance?: number;
  readonly warmStart?: boolean;
}

export interface WhatIfContact {
  readonly index: number;
  readonly recordedN: number;
  readonly alternativeN: number;
  readonly recordedT: number;
  readonly alternativeT: number;
  /** Normal velocity after the impulse, w_n = ġn⁺ (m/s; > 0 separating): the convex model lifts a sliding contact (w_n = μ‖w_t‖), Coulomb's law does not (docs/physics.md). */
  readonly recordedWn: number;
  readonly alternativeWn: number;
  /** max |λ_alt − λ_rec| over the contact's three components. */
  readonly difference: number;
  /** For the scene view's what-if ghost (./scene.ts): the contact's post-step velocities. */
  readonly scene?: WhatIfContactScene;
}

export interface WhatIfView {
  readonly index: number;
  readonly options: WhatIfOptions;
  readonly contacts: readonly WhatIfContact[];
  /** kkt: the QP-SOCP's KKT max_rel; coulomb: the Coulomb merit (docs/physics.md) — each island's largest. */
  readonly recorded: { readonly kineticEnergyChange: number; readonly kkt: number; readonly coulomb: number };
  readonly alternative: {
    readonly kineticEnergyChange: number;
    readonly kkt: number;
    readonly coulomb: number;
    readonly status: string;
    readonly iterations: number;
  };
  readonly skipped: readonly string[];
}

/** Commands the extension forwards to the webview (keybindings, command palette). */
export type InspectorCommand =
  | { readonly name: 'step'; readonly delta: number }
  | { readonly name: 'goto'; readonly index: number }
  | { readonly name: 'togglePlay' }
  | { readonly name: 'finding'; readonly direction: 1 | -1 }
  | { readonly name: 'exportChart' }
  /** Export the scene view (3D) as PNG. */
  | { readonly name: 'exportSceneView' }
  /** Compare mode: go to the first divergence. */
  | { readonly name: 'divergence' };

export interface ViewSettings {
  /** Frames per second during playback. */
  readonly playbackFps: number;
}

// ─── host → webview ─────────────────────────────────────────────────────────────────────────────────
export type HostMessage =
  /** `play`: start playback from `index` once shown (▶ Run). */
  | {
      readonly type: 'init';
      readonly version: number;
      readonly source: SessionSource;
      readonly info: SessionInfo;
      readonly timeline: Timeline;
      readonly findings: readonly FindingView[];
      readonly settings: ViewSettings;
      readonly index: number;
      readonly play?: boolean;
      readonly scene?: SceneInfo;
    }
  | { readonly type: 'frame'; readonly requestId: number; readonly view: FrameView }
  /** The pending islands' conditioning of frame view `index` (sent after its `frame` message). */
  | { readonly type: 'conditioning'; readonly index: number; readonly islands: readonly IslandConditioningView[] }
  | { readonly type: 'series'; readonly requestId: number; readonly series: readonly ContactSeries[] }
  | { readonly type: 'whatIf'; readonly requestId: number; readonly result: WhatIfView }
  | { readonly type: 'command'; readonly command: InspectorCommand }
  | { readonly type: 'progress'; readonly message: string; readonly fraction: number | null }
  | { readonly type: 'error'; readonly requestId: number | null; readonly message: string }
  /** A problem file (./problem.ts): replaces init/frame for a file with no bodies and one frame. */
  | { readonly type: 'problem'; readonly version: number; readonly view: ProblemView }
  /** A problem file that could not be opened: one line naming the file and the field. */
  | { readonly type: 'problemError'; readonly file: string; readonly message: string }
  /** Compare mode starts (./compare.ts) or, with null, ends. */
  | { readonly type: 'compare'; readonly compare: CompareView | null }
  | { readonly type: 'crossWhatIf'; readonly requestId: number; readonly result: CrossWhatIfView }
  /** The scenario in five engines (./compare.ts). */
  | { readonly type: 'engines'; readonly engines: EnginesView }
  /** A session that grows (./live.ts): new timeline rows, findings and the live state. */
  | LiveUpdate;

// ─── webview → host ─────────────────────────────────────────────────────────────────────────────────
export type WebviewMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'seek'; readonly requestId: number; readonly index: number }
  | { readonly type: 'series'; readonly requestId: number; readonly keys: readonly string[] }
  | { readonly type: 'whatIf'; readonly requestId: number; readonly index: number; readonly options: WhatIfOptions }
  | { readonly type: 'exportChart'; readonly name: string; readonly dataUrl: string }
  | { readonly type: 'exportFrame'; readonly index: number; readonly format: 'json' | 'csv' }
  /** Compare mode: re-solve one run's frame with the other run's problem. */
  | { readonly type: 'crossWhatIf'; readonly requestId: number; readonly index: number; readonly direction: CrossDirection }
  /** The engines table: compare the session with this engine's run. */
  | { readonly type: 'compareEngine'; readonly engine: string }
  /** Pause, step, continue or break conditions of a live writer (./live.ts). */
  | { readonly type: 'live'; readonly action: LiveAction };

/** Scene file + scenario name, or the recording path, that a panel shows. */
export type SessionSource =
  /** `solver`: run with this one of our solvers instead of the scenario's own (the ⇄ Diff lens's run a). */
  | { readonly kind: 'scenario'; readonly file: string; readonly scenario: string; readonly solver?: SolverName }
  | { readonly kind: 'recording'; readonly file: string };

/** What the webview keeps with setState (restored by the WebviewPanelSerializer after a reload). */
export interface WebviewState {
  /** Scene file + scenario name, or the recording path, that the panel shows. */
  readonly source: SessionSource;
  readonly index: number;
  readonly selectedContacts: readonly string[];
  /** The scene view's camera and options (webview/sceneView/), when it has been used. */
  readonly sceneView?: { readonly [key: string]: unknown };
  /** Ids of the panels folded to their title (webview/foldingPanels.ts). */
  readonly folded?: readonly string[];
}
