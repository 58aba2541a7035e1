/**
 * The one way to run a diagnosis (docs/physics.md "Diagnosis"): of a scenario as our world simulates it, or of a
 * recording frame by frame. The CLI's `diagnose` and `report`, the inspector's worker and the Check lens all
 * build their Diagnoser here, so one recording gets one set of findings and one number per mechanism everywhere.
 */
import { type ScenarioDesc, World } from '../engine/index.js';
import type { RecordedFrame, RecordingHeader } from '../format/recording.js';
import { frameFromWorld, headerFromWorld } from '../format/worldRecording.js';
import { BATCH_COUNTERFACTUAL_TOTAL_WORK, Diagnoser, type DiagnosisOptions, type Finding, type InjectionMechanism } from './diagnose.js';

/** A batch diagnosis (CLI `diagnose` and `report`, CI): the larger re-solve budget; deterministic either way. */
export const BATCH_DIAGNOSIS: Partial<DiagnosisOptions> = { counterfactualTotalWork: BATCH_COUNTERFACTUAL_TOTAL_WORK };

/** A scenario's world before its first step, with the recording header of its frames and a Diagnoser for them. */
export interface ScenarioDiagnosis {
  readonly world: World;
  readonly header: RecordingHeader;
  readonly diagnoser: Diagnoser;
}

/** The world, header and Diagnoser of a scenario (its initial energy given, so the first frame's change is known). */
export function scenarioDiagnosis(desc: ScenarioDesc, options: Partial<DiagnosisOptions> = {}): ScenarioDiagnosis {
  const world = new World(desc);
  const header = headerFromWorld(world);
  return { world, header, diagnoser: new Diagnoser(header, options, world.totalEnergy()) };
}

/** Steps the scenario's world `frames` times (default: the scenario's), diagnosing each frame. */
export function diagnoseScenario(desc: ScenarioDesc, options: Partial<DiagnosisOptions> = {}, frames = desc.frames): ScenarioDiagnosis {
  const run = scenarioDiagnosis(desc, options);
  for (let k = 0; k < frames; k++) run.diagnoser.add(frameFromWorld(run.world, run.world.step()));
  return run;
}

/** What the diagnosis reads of an open recording. */
export interface FrameSource {
  readonly header: RecordingHeader;
  readonly frameCount: number;
  frame(i: number): RecordedFrame;
}

/** Diagnoses every frame of a recording, in order. */
export function diagnoseRecording(source: FrameSource, options: Partial<DiagnosisOptions> = {}): Diagnoser {
  const d = new Diagnoser(source.header, options);
  for (let i = 0; i < source.frameCount; i++) d.add(source.frame(i));
  return d;
}

/** Injected joules per mechanism, summed over the injection findings: the number `diagnose`, `report` and the inspector show. */
export function injectedByMechanism(findings: readonly Finding[]): Map<InjectionMechanism, number> {
  const out = new Map<InjectionMechanism, number>();
  for (const f of findings)
    if (f.kind === 'injection') out.set(f.mechanism as InjectionMechanism, (out.get(f.mechanism as InjectionMechanism) ?? 0) + f.joules);
  return out;
}
