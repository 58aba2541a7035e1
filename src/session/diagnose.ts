/**
 * The energy-injection diagnosis (docs/physics.md "Diagnosis"), one import for the CLI, the inspector and the
 * tests: the pipeline is src/session/diagnosis/diagnoser.ts, the law fit lawFit.ts, the attribution
 * attribution.ts, the wording wording.ts.
 */
export { Diagnoser, diagnose, type FrameDiagnosis, type MidwayAssumptions } from './diagnosis/diagnoser.js';
export { frameEnergy, frameEnergyParts } from './diagnosis/frameEnergy.js';
export {
  BATCH_COUNTERFACTUAL_TOTAL_WORK,
  DEFAULT_COUNTERFACTUAL_FRAME_WORK,
  DEFAULT_COUNTERFACTUAL_TOTAL_WORK,
  DEFAULT_DIAGNOSIS,
  LISTED_CONTACTS,
  MECHANISM_SEVERITY,
  type ContinuationEvidence,
  type CounterfactualSavings,
  type DiagnosisOptions,
  type Finding,
  type FindingKind,
  type InjectionMechanism,
  type Mechanism,
  type Severity,
} from './diagnosis/findings.js';
export type { ContactLaw, NormalLaw, FrictionRegime } from './diagnosis/lawFit.js';
export type { DiagnosisCost } from './diagnosis/attribution.js';
