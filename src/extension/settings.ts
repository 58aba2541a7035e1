/** The `contactLens.*` settings (package.json contributes.configuration), read when needed. */
import * as vscode from 'vscode';
import { MAX_SOLVER_ITERATIONS, SOLVER_NAMES, type SolverName } from '../engine/index.js';
import type { DiagnosisSettings, SolverOverride } from './worker/workerProtocol.js';

const section = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('contactLens');

export function solverOverride(): SolverOverride {
  const c = section();
  const solver = c.get<string>('solver.default', 'scenario');
  const maxIterations = c.get<number | null>('solver.maxIterations', null);
  const tolerance = c.get<number | null>('solver.tolerance', null);
  return {
    ...((SOLVER_NAMES as readonly string[]).includes(solver) ? { solver: solver as SolverName } : {}),
    // the settings schema says 1 … MAX_SOLVER_ITERATIONS; a larger value is clamped (the engine cannot take it)
    ...(typeof maxIterations === 'number' && maxIterations >= 1 ? { maxIterations: Math.min(MAX_SOLVER_ITERATIONS, Math.floor(maxIterations)) } : {}),
    ...(typeof tolerance === 'number' && tolerance > 0 ? { tolerance } : {}),
  };
}

export function diagnosisSettings(): DiagnosisSettings {
  const c = section();
  const nonNeg = (k: string, d: number): number => {
    const v = c.get<number>(k, d);
    return typeof v === 'number' && v >= 0 ? v : d;
  };
  return {
    energyTolerance: nonNeg('diagnosis.energyTolerance', 1e-3),
    speedTolerance: nonNeg('diagnosis.speedTolerance', 1e-3),
    overlapDepth: nonNeg('diagnosis.overlapDepth', 0.02),
  };
}

export function playbackFps(): number {
  const v = section().get<number>('playback.fps', 30);
  return typeof v === 'number' && v >= 1 && v <= 240 ? v : 30;
}

/** Whether the inspector keeps a frame store beside a recording's cache (src/format/frameStore.ts). */
export function frameStoreEnabled(): boolean {
  return section().get<boolean>('recordings.frameStore', true) !== false;
}

export function checkOnSave(): boolean {
  return section().get<boolean>('checkOnSave', false) === true;
}
