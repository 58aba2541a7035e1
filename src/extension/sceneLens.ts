/**
 * CodeLenses above every scenario of a *.scene.json: ▶ Run, ⏯ Step, 🔍 Inspect, ⚡ Check (the outcome once a
 * check ran), ⇄ Diff (two solvers side by side) and ⚖ Compare engines (compareCommands.ts). Positions come from the lenient outline scanner of the format
 * layer (comments, half-typed text and edits are fine), run in the worker: typing is never blocked.
 */
import * as vscode from 'vscode';
import type { SceneAnalyzer } from './sceneAnalysis.js';
import type { SceneAnalysis } from './worker/workerProtocol.js';
import { recordCallbackTime } from './callbackTimes.js';
import { performance } from 'node:perf_hooks';
import { outcomeTitle, type CheckOutcomes } from './checkOutcomes.js';

export class SceneLensProvider implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly outcomes: CheckOutcomes,
    private readonly analyzer: SceneAnalyzer,
  ) {
    outcomes.onDidChange(() => this.changed.fire());
  }

  async provideCodeLenses(doc: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    let t0 = performance.now();
    const lenses: vscode.CodeLens[] = [];
    let outline: SceneAnalysis['outline'];
    const pending = this.analyzer.analyze(doc);
    recordCallbackTime('code lenses', performance.now() - t0);
    try {
      outline = (await pending).outline;
    } catch {
      return lenses;
    }
    t0 = performance.now();
    if (token.isCancellationRequested) return lenses;
    for (const s of outline) {
      const at = new vscode.Range(s.range.line - 1, s.range.column - 1, s.range.line - 1, s.range.column - 1);
      const args = [doc.uri, s.name];
      const outcome = this.outcomes.get(doc.uri, s.name);
      lenses.push(
        new vscode.CodeLens(at, {
          title: '▶ Run',
          command: 'contactLens.runScenario',
          arguments: args,
          tooltip: `Simulate "${s.name}" and play it in the inspector`,
        }),
        new vscode.CodeLens(at, {
          title: '⏯ Step',
          command: 'contactLens.stepScenario',
          arguments: args,
          tooltip: 'Simulate and open the inspector paused on the first frame, to step with ←/→',
        }),
        new vscode.CodeLens(at, {
          title: '🔍 Inspect',
          command: 'contactLens.inspectScenario',
          arguments: args,
          tooltip: 'Open the inspector at the first finding',
        }),
        new vscode.CodeLens(at, {
          title: outcome ? outcomeTitle(outcome) : '⚡ Check',
          command: 'contactLens.checkScenario',
          arguments: args,
          tooltip: 'Run the scenario, check its expectations and diagnose energy injection',
        }),
        new vscode.CodeLens(at, {
          title: '⇄ Diff',
          command: 'contactLens.diffScenario',
          arguments: args,
          tooltip: 'Run the scenario with two solvers and show where they part (compare mode of the inspector)',
        }),
        new vscode.CodeLens(at, {
          title: '⚖ Compare engines',
          command: 'contactLens.compareEngines',
          arguments: args,
          tooltip: 'Run the scenario in our engine, cannon-es, Rapier, Jolt and MuJoCo: one row per engine in the inspector',
        }),
      );
    }
    recordCallbackTime('code lenses', performance.now() - t0);
    return lenses;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
