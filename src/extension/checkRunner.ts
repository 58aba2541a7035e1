/**
 * Runs scenario checks (simulate, check expectations, diagnose) in a simulation worker with a cancellable
 * progress notification, and records the outcomes (lens titles, Problems panel, Test Explorer).
 */
import * as vscode from 'vscode';
import { WorkerClient, CancelledError } from './workerClient.js';
import type { ScenarioCheck } from './worker/workerProtocol.js';
import { type CheckOutcomes, outcomePassed, outcomeTitle } from './checkOutcomes.js';
import { diagnosisSettings, solverOverride } from './settings.js';
import { fractionReporter } from './progress.js';

export interface CheckCommandResult {
  readonly scenario: string;
  readonly passed: boolean;
  readonly findings: number;
  readonly message: string;
  /** Frames the worker simulated and diagnosed. */
  readonly frames: number;
  /** The worker's time for the check (ms): simulation, expectations and diagnosis, off the host's event loop. */
  readonly workerMs: number;
}

export class CheckRunner {
  constructor(
    private readonly workerScript: string,
    private readonly outcomes: CheckOutcomes,
  ) {}

  /**
   * Checks one scenario (or all of the file when `scenario` is null). Resolves with the checks, or null when
   * cancelled; a parse error rejects (the caller shows it; the Problems panel already has it).
   */
  async check(doc: vscode.TextDocument, scenario: string | null, token?: vscode.CancellationToken): Promise<ScenarioCheck[] | null> {
    const worker = new WorkerClient(this.workerScript);
    const abort = new AbortController();
    const sub = token?.onCancellationRequested(() => abort.abort());
    const names = scenario !== null ? [scenario] : [];
    for (const n of names) this.outcomes.set(doc.uri, n, { state: 'running' });
    try {
      const checks = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Contact Lens: checking ${scenario ?? doc.uri.path.split('/').pop()}`, cancellable: true },
        (progress, ptoken) => {
          ptoken.onCancellationRequested(() => abort.abort());
          return worker.request(
            {
              op: 'check',
              file: doc.uri.fsPath || doc.uri.path,
              text: doc.getText(),
              scenario,
              diagnosis: diagnosisSettings(),
              override: solverOverride(),
            },
            { signal: abort.signal, onProgress: fractionReporter(progress) },
          );
        },
      );
      for (const c of checks) this.outcomes.set(doc.uri, c.scenario, { state: 'done', check: c });
      return [...checks];
    } catch (e) {
      for (const n of names) this.outcomes.set(doc.uri, n, { state: 'error', message: e instanceof CancelledError ? 'cancelled' : (e as Error).message });
      if (e instanceof CancelledError) return null;
      throw e;
    } finally {
      sub?.dispose();
      worker.dispose();
    }
  }

  static summary(c: ScenarioCheck): CheckCommandResult {
    return {
      scenario: c.scenario,
      passed: outcomePassed(c),
      findings: c.findings.length,
      message: outcomeTitle({ state: 'done', check: c }),
      frames: c.frames,
      workerMs: c.timeMs,
    };
  }
}
