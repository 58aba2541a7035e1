/**
 * What the diagnosis reports (docs/physics.md "Diagnosis"): findings, their mechanisms and severities, and the
 * options and budgets of a diagnosis. Types and constants only; the pipeline is diagnoser.ts.
 */
import type { WriterBug } from '../consistency.js';
import type { NonPhysicalKind, Severity } from '../nonPhysical.js';
import type { ContactLaw } from './lawFit.js';

export type InjectionMechanism =
  | 'restitution-overshoot'
  | 'bias-injection'
  | 'overlap-push-out'
  | 'friction-positive-work'
  | 'socp-separation'
  | 'non-converged-solve'
  | 'position-correction'
  | 'integrator-drift'
  | 'unattributed'
  | 'unattributed-gain';

/** Stabilisation mechanisms are design choices with bounded energy (warnings); the others are errors. */
export const MECHANISM_SEVERITY: Record<InjectionMechanism, Severity> = {
  'restitution-overshoot': 'error',
  'bias-injection': 'warning',
  'overlap-push-out': 'warning',
  'friction-positive-work': 'error',
  'socp-separation': 'error',
  'non-converged-solve': 'error',
  'position-correction': 'warning',
  'integrator-drift': 'error',
  unattributed: 'warning',
  'unattributed-gain': 'warning',
};

export type Mechanism = InjectionMechanism | NonPhysicalKind | 'inconsistent-recording' | 'blow-up';
export type FindingKind = 'injection' | 'non-physical' | 'inconsistent';
export type { Severity } from '../nonPhysical.js';

/** Joules one counterfactual re-solve saves (J), over the frame's re-solved islands. */
export interface CounterfactualSavings {
  /** Exact solve of the problem the impulses obey (the laws fitted per contact, the file's b when it holds one). */
  readonly exactSolve: number;
  /** What the re-solved islands gained above Newton's law, E(λ_rec) − E(law): the whole the shares split. */
  readonly aboveLaw: number;
  /** The same without the stabilisation term. */
  readonly noStabilisation: number;
  /** The restitution law −e·ġ⁻ in place of the target the contacts obeyed. */
  readonly restitutionLaw: number;
  /** The law the exact re-solves hold: Coulomb's (a Coulomb engine) or the convex QP-SOCP (a convex one). */
  readonly law: 'coulomb' | 'qp-socp';
  /**
   * Coulomb's law only: the largest change of E (J) the last De Saxcé fixed-point step still made where the step
   * cap stopped it before its tolerance and the exact Coulomb solver did not finish it either (continuation.ts
   * coulombExact); 0 when every re-solve met its tolerance.
   */
  readonly fixedPointOpen: number;
  /** Coulomb's law only: re-solves whose fixed point the exact Coulomb solver (coulomb.ts) finished after the cap. */
  readonly coulombFinished: number;
  /** Islands re-solved, and why others were not. */
  readonly islands: number;
  readonly skipped: readonly string[];
  readonly timeMs: number;
}

/**
 * Continuing the engine's own iteration from the recorded λ (projected Gauss–Seidel on the problem the impulses
 * obey): the evidence that a solve was truncated. `removed` of `excess` joules are gone after `sweeps` sweeps.
 */
export interface ContinuationEvidence {
  /** Sweeps after which the removal reached CONTINUATION_REMOVES of the excess (else the best checkpoint); 0: none removed. */
  readonly sweeps: number;
  /** Sweeps run in all (0: no continuation was run, e.g. a single contact off its law). */
  readonly ran: number;
  /** Islands summed. */
  readonly islands: number;
  /** Energy above the fitted problem's exact solution before continuing (J). */
  readonly excess: number;
  /** Of it, removed by the continuation (J). */
  readonly removed: number;
  /** Contacts whose law residual exceeds the tolerance (the spread of the residual over the island). */
  readonly spread: number;
  readonly islandContacts: number;
}

/** A finding: an energy injection, a non-physical behaviour, or an inconsistent recording. */
export interface Finding {
  readonly frame: number;
  readonly time: number;
  /** Contacts (frame order), ranked by joules for injections (at most LISTED_CONTACTS). */
  readonly contacts: readonly number[];
  readonly mechanism: Mechanism;
  readonly kind: FindingKind;
  readonly severity: Severity;
  /** Energy the mechanism injected in this frame (J); 0 for non-physical and consistency findings. */
  readonly joules: number;
  /** One line (< 120 characters): mechanism, frame, contacts, joules and the law the impulses obey. */
  readonly headline: string;
  /** The headline's last part alone: what happened, in one clause (e.g. the law the listed contact obeys). */
  readonly summary: string;
  /** The evidence, one sentence per line: the law fitted per contact, residuals, continuation, status, total. */
  readonly evidence: readonly string[];
  /** headline + evidence + the source in one paragraph (what the CLI and the Problems panel print). */
  readonly explanation: string;
  /** Per listed contact, its joules (same order as contacts); injections only. */
  readonly contactJoules?: readonly number[];
  /** Per listed contact, the law its impulse obeys (same order as contacts); injections only. */
  readonly laws?: readonly ContactLaw[];
  readonly counterfactual?: CounterfactualSavings;
  readonly continuation?: ContinuationEvidence;
  /** The frame's data failed the consistency check: the numbers rest on an inconsistent recording. */
  readonly inconsistent?: boolean;
  readonly writerBug?: WriterBug;
}

export interface DiagnosisOptions {
  /** Energy below this is not reported (J); applied to a frame's sum per mechanism, never per contact. */
  readonly energyTolerance: number;
  /** Normal-speed excess below this is rounding (m/s). */
  readonly speedTolerance: number;
  /** Approach speed below which restitution does not apply (m/s); default: the recording's solver setting, else 0.5. */
  readonly restVelocityThreshold?: number;
  /** ERP and slop of the position correction, if known (our recordings write them in header.solver). */
  readonly erp?: number;
  readonly slop?: number;
  /** A contact that appears with at least this depth is an initial overlap (m). */
  readonly overlapDepth: number;
  /** Counterfactual exact re-solves (default true). */
  readonly counterfactuals?: boolean;
  /**
   * Re-solve work (counterfactual.ts resolveWork units) allowed per frame before the rest of its islands are
   * skipped, and over the whole diagnosis (later frames rest on the ledger). Work, not time: the findings
   * of a recording are the same on every machine.
   */
  readonly counterfactualFrameWork?: number;
  /** Default DEFAULT_COUNTERFACTUAL_TOTAL_WORK (interactive); batch runs pass BATCH_COUNTERFACTUAL_TOTAL_WORK. */
  readonly counterfactualTotalWork?: number;
  /**
   * false: Diagnoser.frames stays empty and only lastFrame is kept (a caller that copies what it needs frame by
   * frame, like the inspector's open: 10 000 frames' per-contact maps were ~100 MiB of heap). Default true.
   */
  readonly keepFrames?: boolean;
}

/** Frame-level findings list at most this many contacts (the worst ones). */
export const LISTED_CONTACTS = 8;
/**
 * Re-solve work per frame and per diagnosis when a recording opens in the inspector (interactive): ≈ 0.1–0.2 s
 * and 1–1.7 s on a 2020s x86 core (30–56 ns per unit, printed by bench:diagnose and bench:inspector).
 */
export const DEFAULT_COUNTERFACTUAL_FRAME_WORK = 3e6;
export const DEFAULT_COUNTERFACTUAL_TOTAL_WORK = 30e6;
/** The same for a batch diagnosis (CLI `diagnose` and `report`, CI): ten times more, still bounded (≈ 10–17 s). */
export const BATCH_COUNTERFACTUAL_TOTAL_WORK = 300e6;

export const DEFAULT_DIAGNOSIS: DiagnosisOptions = { energyTolerance: 1e-3, speedTolerance: 1e-3, overlapDepth: 0.02 };
