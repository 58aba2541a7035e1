/**
 * Where a session's frames come from: the FrameSource interface, a recording file's source, and the assembly
 * options a recording's header declares for re-solving its frames. (A scenario's source: scenarioSource.ts;
 * a recording that grows: growingRecording.ts; the session over any of them: session.ts.)
 *
 * Layer rule: imports engine and format only (no vscode, no DOM); Node's fs only via RecordingReader.
 */
import { type AssemblyOptions, DEFAULT_ASSEMBLY } from '../engine/index.js';
import type { RecordedFrame, RecordedSolverStatus, RecordingHeader } from '../format/recording.js';
import type { FrameSummary, RecordingReader } from '../format/recordingFile.js';
import { stabilisationModel } from './frameLedger.js';

export interface SessionSummary {
  /** Position in the session (0 … frameCount − 1). */
  readonly index: number;
  /** Frame number as recorded, or as the World numbers it (from 0: docs/recording-format.md "Frame numbers"). */
  readonly frame: number;
  readonly time: number;
  readonly contacts: number;
  readonly status: RecordedSolverStatus;
  readonly iterations?: number;
  /** Largest penetration depth (0 without contacts). */
  readonly maxDepth: number;
  /** Total energy (J) after the step; scenario sessions only (recording summaries do not keep energies). */
  readonly totalEnergy?: number;
  /** Largest λn (recording sessions; the reader's index keeps it). */
  readonly maxLambdaN?: number;
  /** Last solver residual, when recorded. */
  readonly finalResidual?: number;
}

/** Where a session's frames come from (a recording file, a scenario simulated on demand, a recording that grows). */
export interface FrameSource {
  readonly kind: 'recording' | 'scenario';
  readonly header: RecordingHeader;
  readonly frameCount: number;
  readonly exact: boolean;
  summary(i: number): SessionSummary;
  /** Frame i, and the frame before it when it is cheap (for preSolveBodyStates). */
  load(i: number): RecordedFrame;
  assembly(): { options: AssemblyOptions; notes: string[] };
  close(): void;
  /** The file reader behind a recording source (errors, warnings, indexMs). */
  readonly reader?: RecordingReader;
}

export class RecordingSource implements FrameSource {
  readonly kind = 'recording' as const;
  readonly exact = true;
  constructor(readonly reader: RecordingReader) {}
  get header(): RecordingHeader {
    return this.reader.header;
  }
  get frameCount(): number {
    return this.reader.frameCount;
  }
  summary(i: number): SessionSummary {
    return readerSummary(i, this.reader.summary(i));
  }
  load(i: number): RecordedFrame {
    return this.reader.frame(i);
  }
  assembly(): { options: AssemblyOptions; notes: string[] } {
    return recordingAssembly(this.header);
  }
  close(): void {
    this.reader.close();
  }
}

/** A frame of a recording's index as the session's summary at session index i (iterations and residual when recorded). */
export function readerSummary(i: number, s: FrameSummary): SessionSummary {
  const out: SessionSummary = {
    index: i,
    frame: s.frame,
    time: s.time,
    contacts: s.contacts,
    status: s.status,
    maxDepth: s.maxDepth,
    maxLambdaN: s.maxLambdaN,
  };
  const extra: { iterations?: number; finalResidual?: number } = {};
  if (s.iterations !== undefined) extra.iterations = s.iterations;
  if (s.finalResidual !== undefined) extra.finalResidual = s.finalResidual;
  return { ...out, ...extra };
}

/**
 * The assembly options for re-solving a recording's frame, from its header `solver` (docs/recording-format.md
 * "Re-solving a frame"), and notes on what the header does not declare. Nothing is invented: the position
 * bias (ERP/Δt)·max(0, depth − slop) goes into b only when the header declares an erp > 0 (its stabilisation
 * model, frameLedger.ts stabilisationModel); a header with soft contacts (MuJoCo's solref), no Baumgarte, split
 * impulses or no erp at all gets a b without it, and its notes say "not declared" rather than assume a value.
 */
export function recordingAssembly(header: RecordingHeader): { options: AssemblyOptions; notes: string[] } {
  const s = (header.solver ?? {}) as Record<string, unknown>;
  const notes: string[] = [];
  const declared = (key: string): number | undefined => {
    const v = s[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  };
  const model = stabilisationModel(header);
  const bias = model.source === 'declared-bias';
  const slop = declared('slop');
  if (model.source === 'declared-soft')
    notes.push('soft contacts (header solver): b is rebuilt without a position bias; the spring–damper that pushes overlaps apart is not in it');
  else if (model.source === 'undeclared') notes.push('header solver.erp not declared: b is rebuilt without a position bias');
  else if (model.source === 'declared-none') notes.push('header solver declares no position bias (baumgarte false, splitImpulse or erp 0): none in b');
  if (bias && typeof s.splitImpulse !== 'boolean')
    notes.push(`header solver.splitImpulse not declared: the bias of the declared erp ${model.erp}, (erp/Δt)·max(0, depth − slop), is taken as part of b`);
  if (bias && slop === undefined) notes.push('header solver.slop not declared: the bias acts from zero depth');
  const rest = declared('restVelocityThreshold');
  if (rest === undefined) notes.push('header solver.restVelocityThreshold not declared: restitution applies at every approach speed');
  notes.push(
    `A = J M⁻¹ Jᵀ + εI (ε = ${DEFAULT_ASSEMBLY.regularization}) rebuilt from the header masses/inertias; engine-specific terms (softening, CFM) are not included`,
  );
  return {
    options: {
      dt: header.dt,
      erp: bias ? model.erp : 0,
      slop: slop ?? 0,
      baumgarte: bias,
      restVelocityThreshold: rest ?? 0,
      regularization: DEFAULT_ASSEMBLY.regularization,
    },
    notes,
  };
}
