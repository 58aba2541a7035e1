/**
 * What one engine's run of a scenario measures, frame by frame (docs/compare.md "Comparing engines"): energy
 * drift (the total energy at the end minus at the start, kinetic + potential of the dynamic bodies), the deepest
 * penetration, friction-cone violations (‖λt‖ > μλn beyond the diagnosis' tolerance), iterations, and the engine's
 * own step time; with the diagnosis (diagnosisRun.ts: the energy injected per mechanism, jitter findings).
 */
import type { RecordedFrame, RecordingHeader } from '../../format/recording.js';
import { Diagnoser, frameEnergy, type DiagnosisOptions } from '../diagnose.js';
import { injectedByMechanism } from '../diagnosisRun.js';
import { CONE_TOLERANCE } from '../nonPhysical.js';
import { lambdaSource, type LambdaSource } from '../solverDeclarations.js';

export interface EngineStats {
  readonly frames: number;
  /** E(last frame) − E(start), J. */
  readonly energyDrift: number;
  /** Joules injected per mechanism (the diagnosis' injection findings), and their sum. */
  readonly injected: Readonly<Record<string, number>>;
  readonly injectedTotal: number;
  /** Deepest contact penetration of the run (m). */
  readonly maxPenetration: number;
  /** Jitter findings (λn of a resting contact alternating frame after frame). */
  readonly jitter: number;
  /** Contacts (summed over frames) whose friction impulse leaves the cone, and the largest excess ‖λt‖ − μλn (N·s). */
  readonly coneViolations: number;
  readonly maxConeViolation: number;
  /** Solver iterations per frame: mean and largest. */
  readonly iterationsMean: number;
  readonly iterationsMax: number;
  /** The engine's own step time per frame (ms), mean. */
  readonly stepMs: number;
  /** Where λ comes from (the header's solver.lambdaSource): fitted friction says nothing about the engine's cone. */
  readonly lambda: LambdaSource;
  /** Findings the diagnosis made, by kind. */
  readonly findings: { readonly injection: number; readonly nonPhysical: number; readonly inconsistent: number };
}

export class EngineStatsBuilder {
  private readonly diagnoser: Diagnoser;
  private frames = 0;
  private last = Number.NaN;
  private maxDepth = 0;
  private cone = 0;
  private maxCone = 0;
  private iterSum = 0;
  private iterMax = 0;
  private stepSum = 0;

  constructor(
    private readonly header: RecordingHeader,
    private readonly initialEnergy: number,
    diagnosis: Partial<DiagnosisOptions> = {},
  ) {
    this.diagnoser = new Diagnoser(header, { ...diagnosis, keepFrames: false }, initialEnergy);
  }

  add(f: RecordedFrame, stepMs: number): void {
    this.frames++;
    this.stepSum += stepMs;
    this.last = frameEnergy(this.header, f);
    const l = f.solver.lambda;
    f.contacts.forEach((c, i) => {
      this.maxDepth = Math.max(this.maxDepth, c.depth);
      const excess = Math.hypot(l[3 * i + 1], l[3 * i + 2]) - c.mu * l[3 * i];
      if (excess > CONE_TOLERANCE * Math.max(Math.abs(l[3 * i]), Number.MIN_VALUE)) {
        this.cone++;
        this.maxCone = Math.max(this.maxCone, excess);
      }
    });
    const it = f.solver.iterations ?? 0;
    this.iterSum += it;
    this.iterMax = Math.max(this.iterMax, it);
    this.diagnoser.add(f);
  }

  result(): EngineStats {
    const findings = this.diagnoser.findings;
    const injected = Object.fromEntries(injectedByMechanism(findings));
    const n = Math.max(1, this.frames);
    return {
      frames: this.frames,
      energyDrift: this.frames ? this.last - this.initialEnergy : 0,
      injected,
      injectedTotal: Object.values(injected).reduce((s, j) => s + j, 0),
      maxPenetration: this.maxDepth,
      jitter: findings.filter((x) => x.mechanism === 'jitter').length,
      coneViolations: this.cone,
      maxConeViolation: this.maxCone,
      iterationsMean: this.iterSum / n,
      iterationsMax: this.iterMax,
      stepMs: this.stepSum / n,
      lambda: lambdaSource(this.header),
      findings: {
        injection: findings.filter((x) => x.kind === 'injection').length,
        nonPhysical: findings.filter((x) => x.kind === 'non-physical').length,
        inconsistent: findings.filter((x) => x.kind === 'inconsistent').length,
      },
    };
  }
}
