/**
 * Compare mode of the inspector (docs/compare.md "In the editor"): the session shown (run a) beside a second run
 * (b) on a shared timeline — where they first part and why, per contact a, b and Δ, b's bodies as a ghost in the
 * scene view, b's energy and iterations over a's charts, and re-solves of one run's frame with the other's
 * problem; and the table of one scenario in five engines. Plain types only (validated in ./validateCompare.ts).
 */
import type { WhatIfView } from './inspector.js';

export type DivergenceKind = 'contact-set' | 'problem' | 'solve' | 'state';
export const DIVERGENCE_KINDS: readonly DivergenceKind[] = ['contact-set', 'problem', 'solve', 'state'];

/** Sent once when compare mode starts (message `compare`); `null` ends it. */
export interface CompareView {
  /** Run b: its title, file (or scenario and solver), producer. */
  readonly b: { readonly title: string; readonly file: string; readonly producer: string; readonly frameCount: number; readonly dt: number };
  /** Per session index of a: the index of b's frame at the same time, or null (a frame of a only). */
  readonly aligned: readonly (number | null)[];
  /** The first divergence (a's session index), or null: the runs do not diverge. */
  readonly divergence: {
    readonly index: number;
    readonly frame: number;
    readonly time: number;
    readonly kind: DivergenceKind;
    readonly field: string;
    readonly bodies: readonly string[];
    /** Contacts involved, in b's frame. */
    readonly contacts: readonly number[];
    /** Every difference of that frame and the solve's merits, one line each. */
    readonly lines: readonly string[];
  } | null;
  /** The divergence in one line (or "no divergence in N frames"). */
  readonly summary: string;
  /** Per session index of a: the largest state difference relative to its scale (null before the divergence or without b). */
  readonly growth: readonly (number | null)[];
  /** b's energies and iterations per session index of a (null where b has no frame), for the charts. */
  readonly timeline: {
    readonly total: readonly (number | null)[];
    readonly kinetic: readonly (number | null)[];
    readonly potential: readonly (number | null)[];
    readonly iterations: readonly (number | null)[];
  };
  /** Header differences, how bodies were matched, frames in one run only. */
  readonly notes: readonly string[];
  /** Bodies (a's names) and the session index where each first differs. */
  readonly bodies: readonly { readonly body: string; readonly index: number }[];
}

/** One contact of a's frame beside its partner in b's (FrameView.compare.contacts, in a's contact order). */
export interface CompareContact {
  /** Index of the matched contact in b's frame, or null (the contact is in a only). */
  readonly b: number | null;
  readonly lambdaN: number | null;
  readonly lambdaT: number | null;
  readonly depth: number | null;
}

/** Per frame in compare mode (FrameView.compare). */
export interface FrameCompare {
  /** b's frame at the same time, or null. */
  readonly b: { readonly index: number; readonly frame: number; readonly time: number } | null;
  /** Per contact of a's frame (same order as FrameView.contacts). */
  readonly contacts: readonly CompareContact[];
  /** Contacts of b with no partner in a. */
  readonly onlyB: readonly { readonly index: number; readonly bodies: string; readonly lambdaN: number; readonly point: readonly [number, number, number] }[];
  /** b's bodies at a's body positions (POSE_STRIDE per a body; NaN: no partner): the scene view's ghost. */
  readonly ghost?: Float64Array;
}

export type CrossDirection = 'b-with-a' | 'a-with-b';

/** A re-solve of one run's frame with the other run's problem (message `crossWhatIf`). */
export interface CrossWhatIfView {
  readonly index: number;
  readonly direction: CrossDirection;
  /** What was solved, in words ("run b's solver (ipm) on run a's problem of frame 12"). */
  readonly title: string;
  /** `recorded` is the problem's own run's λ, `alternative` the other run's solver on it. */
  readonly view: WhatIfView;
  /** The other run's own recorded λ on the same contacts (null: not matched). */
  readonly otherN: readonly (number | null)[];
  readonly otherT: readonly (number | null)[];
  readonly notes: readonly string[];
}

/** One engine's row of a scenario's five-engine table (message `engines`). */
export interface EngineRowView {
  readonly engine: string;
  readonly title: string;
  readonly status: 'ok' | 'unavailable' | 'failed';
  readonly error?: string;
  readonly energyDrift: number | null;
  readonly injected: number | null;
  readonly injectedBy: readonly { readonly mechanism: string; readonly joules: number }[];
  readonly maxPenetration: number | null;
  readonly jitter: number | null;
  readonly coneViolations: number | null;
  readonly frictionFitted: boolean;
  readonly iterationsMean: number | null;
  readonly iterationsMax: number | null;
  readonly stepMs: number | null;
  /** Where the run first parts from ours ("frame 0: solve (lambda)"), "never", or null (ours / not run). */
  readonly divergence: string | null;
  /** Whether compare mode can open this run against the session. */
  readonly comparable: boolean;
}

export interface EnginesView {
  readonly scenario: string;
  readonly frames: number;
  readonly rows: readonly EngineRowView[];
  readonly notes: readonly string[];
}
