/**
 * The compare commands (docs/compare.md "In the editor"): Compare with… (the open inspector beside a recording),
 * the ⇄ Diff lens (a scenario run with two of our solvers), the ⚖ Compare engines lens (the scenario in five
 * engines, the table in the inspector) and Go to First Divergence.
 */
import * as vscode from 'vscode';
import type { OpenInspectors } from './openInspectors.js';
import type { SceneAnalyzer } from './sceneAnalysis.js';
import { isSceneFile } from './ranges.js';
import { solverOverride } from './settings.js';
import { SOLVER_NAMES, type SolverName } from '../protocol/inspector.js';

const isSolver = (s: unknown): s is SolverName => SOLVER_NAMES.includes(s as SolverName);

/** The scenario's own solver name as written in the text (the first "solver" block after its name), else coulomb. */
async function scenarioSolver(analyzer: SceneAnalyzer, doc: vscode.TextDocument, name: string): Promise<SolverName> {
  const outline = (await analyzer.analyze(doc)).outline.find((s) => s.name === name);
  if (!outline) return 'coulomb';
  const range = new vscode.Range(outline.range.line - 1, outline.range.column - 1, outline.range.endLine - 1, outline.range.endColumn - 1);
  const m = /"solver"\s*:\s*\{[^}]*"name"\s*:\s*"(\w+)"/.exec(doc.getText(range));
  return m && isSolver(m[1]) ? m[1] : 'coulomb';
}

export function registerCompareCommands(inspectors: OpenInspectors, analyzer: SceneAnalyzer): vscode.Disposable[] {
  const reg = (id: string, fn: (...args: never[]) => unknown): vscode.Disposable => vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown);
  const fail = (e: unknown): undefined => {
    void vscode.window.showErrorMessage(`Contact Lens: ${(e as Error).message}`);
    return undefined;
  };
  const scene = async (uri?: vscode.Uri, name?: string): Promise<{ doc: vscode.TextDocument; name: string } | null> => {
    const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
    if (!target || !isSceneFile(target) || typeof name !== 'string' || !name) {
      void vscode.window.showWarningMessage('Contact Lens: use the lens above a scenario of a *.scene.json file.');
      return null;
    }
    const doc = await vscode.workspace.openTextDocument(target);
    if (doc.isDirty) await doc.save();
    return { doc, name };
  };
  return [
    reg('contactLens.compareWith', async (uri?: vscode.Uri) => {
      const i = inspectors.current;
      if (!i) {
        void vscode.window.showInformationMessage('Contact Lens: open a recording or run a scenario first, then compare it with another recording.');
        return undefined;
      }
      const target =
        uri instanceof vscode.Uri
          ? uri
          : (
              await vscode.window.showOpenDialog({
                canSelectMany: false,
                filters: { 'Contact Lens recordings': ['jsonl', 'gz'] },
                openLabel: `Compare ${i.title} with`,
              })
            )?.[0];
      if (!target) return undefined;
      try {
        return await i.compareWith({ kind: 'recording', file: target.fsPath });
      } catch (e) {
        return fail(e);
      }
    }),
    reg('contactLens.diffScenario', async (uri?: vscode.Uri, name?: string, solverA?: string, solverB?: string) => {
      const s = await scene(uri, name);
      if (!s) return undefined;
      const a = isSolver(solverA) ? solverA : await scenarioSolver(analyzer, s.doc, s.name);
      const b = isSolver(solverB)
        ? solverB
        : ((await vscode.window.showQuickPick(
            SOLVER_NAMES.filter((x) => x !== a),
            { placeHolder: `Run "${s.name}" with ${a} and compare with…` },
          )) as SolverName | undefined);
      if (!b) return undefined;
      const i = inspectors.openScenario(s.doc.uri.fsPath, s.name, 0, false, a);
      try {
        await i.whenReady();
        return await i.compareWith({
          kind: 'scenario',
          file: s.doc.uri.fsPath,
          text: s.doc.getText(),
          scenario: s.name,
          solver: b,
          override: solverOverride(),
        });
      } catch (e) {
        return fail(e);
      }
    }),
    reg('contactLens.compareEngines', async (uri?: vscode.Uri, name?: string) => {
      const s = await scene(uri, name);
      if (!s) return undefined;
      const i = inspectors.openScenario(s.doc.uri.fsPath, s.name, 0);
      try {
        await i.whenReady();
        return await i.showEngines();
      } catch (e) {
        return fail(e);
      }
    }),
    reg('contactLens.goToDivergence', () => {
      const i = inspectors.current;
      if (!i?.comparison) {
        void vscode.window.showInformationMessage('Contact Lens: the inspector is not comparing two runs (Compare with…, or the ⇄ Diff lens).');
        return undefined;
      }
      const d = i.comparison.divergence;
      if (!d) {
        vscode.window.setStatusBarMessage('Contact Lens: the runs do not diverge', 3000);
        return undefined;
      }
      return { index: i.goto(d.index) };
    }),
  ];
}
