/**
 * Requests between the extension host and the simulation worker (a worker_threads Worker running
 * dist/worker.js, the same engine in-process but off the host's event loop). Plain types only.
 */
import type { SolverName } from '../../engine/index.js';
import type { SceneInfo } from '../../protocol/scene.js';
import type { ProblemView } from '../../protocol/problem.js';
import type {
  ContactSeries,
  FindingView,
  FrameView,
  IslandConditioningView,
  SessionInfo,
  Timeline,
  WhatIfOptions,
  WhatIfView,
} from '../../protocol/inspector.js';
import type { LiveAction } from '../../protocol/live.js';
import type { LiveEvent } from '../live/liveFeed.js';
import type { Listening } from '../live/liveHub.js';
import type { ThreadLoad } from '../live/threadLoad.js';
import type { CompareView, CrossDirection, CrossWhatIfView, EnginesView } from '../../protocol/compare.js';

/** The second run of compare mode: a recording, the open scenario with another of our solvers, or an engine of the engines table. */
export type CompareRun =
  | { readonly kind: 'recording'; readonly file: string }
  | {
      readonly kind: 'scenario';
      readonly file: string;
      readonly text: string;
      readonly scenario: string;
      readonly solver: SolverName;
      readonly override: SolverOverride;
    }
  | { readonly kind: 'engine'; readonly engine: string };

export interface DiagnosisSettings {
  readonly energyTolerance: number;
  readonly speedTolerance: number;
  readonly overlapDepth: number;
}

/** Overrides applied to every scenario's solver block (the `contactLens.solver.*` settings). */
export interface SolverOverride {
  readonly solver?: SolverName;
  readonly maxIterations?: number;
  readonly tolerance?: number;
}

export interface ExpectationOutcome {
  readonly kind: string;
  readonly ok: boolean;
  readonly message: string;
  readonly frame?: number;
  /** Index into the scenario's expectations (for the range in the scene file). */
  readonly index: number;
}

/** 1-based, endColumn exclusive (format/jsonPositions SourceRange). */
export interface TextRange {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

export interface ScenarioCheck {
  readonly scenario: string;
  /** The scenario object and its expectations in the scene file. */
  readonly range: TextRange;
  readonly expectationRanges: readonly TextRange[];
  readonly frames: number;
  readonly timeMs: number;
  readonly expectations: readonly ExpectationOutcome[];
  readonly findings: readonly FindingView[];
  /** Total energy after the last frame minus before the first (J). */
  readonly energyChange: number;
}

export type WorkerRequest =
  | {
      readonly op: 'openScenario';
      readonly file: string;
      readonly text: string;
      readonly scenario: string;
      readonly diagnosis: DiagnosisSettings;
      readonly override: SolverOverride;
    }
  /** `follow`: go on reading what is appended to the file (a recording still being written), as live events. */
  | {
      readonly op: 'openRecording';
      readonly file: string;
      readonly diagnosis: DiagnosisSettings;
      readonly follow?: boolean;
      readonly cacheDir?: string | null;
      /** Keep the cache's frame store (contactLens.recordings.frameStore; default true). */
      readonly frameStore?: boolean;
    }
  /** Listen for live writers (docs/live-protocol.md); their recordings go to `folder`. */
  | { readonly op: 'listen'; readonly folder: string; readonly diagnosis: DiagnosisSettings }
  /** Pause, step, continue, break conditions of the live writer shown. */
  | { readonly op: 'live'; readonly action: LiveAction }
  | { readonly op: 'stopLive' }
  /** What the live session's threads cost since the last `reset` (benchmarks; the first request starts the meters). */
  | { readonly op: 'liveLoad'; readonly reset: boolean }
  /** A problem file (docs/problem-format.md) read from `path`; `file` is the name messages use. */
  | { readonly op: 'openProblem'; readonly path: string; readonly file: string }
  | { readonly op: 'frame'; readonly index: number }
  /** The conditioning of the islands that frame `index`'s view left pending. */
  | { readonly op: 'conditioning'; readonly index: number }
  | { readonly op: 'series'; readonly keys: readonly string[] }
  | { readonly op: 'whatIf'; readonly index: number; readonly options: WhatIfOptions }
  | { readonly op: 'exportFrame'; readonly index: number; readonly format: 'json' | 'csv' }
  | { readonly op: 'analyzeScene'; readonly file: string; readonly text: string }
  | { readonly op: 'compareWith'; readonly run: CompareRun }
  | { readonly op: 'crossWhatIf'; readonly index: number; readonly direction: CrossDirection }
  /** The scenario in every engine (recordings in a temporary folder, kept for compareWith engine). */
  | { readonly op: 'engines'; readonly file: string; readonly text: string; readonly scenario: string; readonly override: SolverOverride }
  | {
      readonly op: 'check';
      readonly file: string;
      readonly text: string;
      readonly scenario: string | null;
      readonly diagnosis: DiagnosisSettings;
      readonly override: SolverOverride;
    };

export interface Opened {
  readonly info: SessionInfo;
  readonly timeline: Timeline;
  readonly findings: readonly FindingView[];
  readonly skipped: readonly string[];
  /** Body shapes for the scene view. */
  readonly scene: SceneInfo;
}

/** A scene file as the editor needs it: lens positions, problems, and the scenarios that are tests. */
export interface SceneAnalysis {
  /** Named scenarios with their object ranges (lenient scan: works on half-typed text). */
  readonly outline: readonly { readonly name: string; readonly range: TextRange }[];
  readonly problems: readonly { readonly range: TextRange; readonly message: string; readonly severity: 'error' | 'warning' | 'info' }[];
  /** Scenarios with expectations (from the parser; from the outline when the file does not parse). */
  readonly tests: readonly { readonly name: string; readonly range: TextRange }[];
}

export interface WorkerResults {
  analyzeScene: SceneAnalysis;
  openScenario: Opened;
  openRecording: Opened;
  openProblem: ProblemView;
  frame: FrameView;
  conditioning: readonly IslandConditioningView[];
  series: readonly ContactSeries[];
  whatIf: WhatIfView;
  exportFrame: string;
  check: readonly ScenarioCheck[];
  compareWith: CompareView;
  crossWhatIf: CrossWhatIfView;
  engines: EnginesView;
  listen: Listening;
  live: null;
  stopLive: null;
  liveLoad: readonly ThreadLoad[];
}

/** host → worker */
export interface WorkerEnvelope {
  readonly id: number;
  readonly request: WorkerRequest;
}

/** worker → host */
export type WorkerReply =
  | { readonly id: number; readonly kind: 'result'; readonly result: unknown }
  | { readonly id: number; readonly kind: 'error'; readonly message: string; readonly field?: string; readonly file?: string }
  | { readonly id: number; readonly kind: 'progress'; readonly message: string; readonly fraction: number | null }
  /** Unrequested news of a live session (id 0): a new session, or new frames, findings and state. */
  | { readonly id: 0; readonly kind: 'event'; readonly event: LiveEvent };
