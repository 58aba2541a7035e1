/** The "Contact Lens" commands (package.json contributes.commands). */
import * as vscode from 'vscode';
import type { SceneAnalyzer } from './sceneAnalysis.js';
import type { OpenInspectors } from './openInspectors.js';
import { CheckRunner, type CheckCommandResult } from './checkRunner.js';
import { isSceneFile, toRange } from './ranges.js';
import { RECORDING_VIEW_TYPE } from './inspectorPanel.js';
import { FCLIB_VIEW_TYPE, PROBLEM_VIEW_TYPE } from './problemInspector.js';
import { SOLVER_NAMES } from '../protocol/inspector.js';

/** The scene document and scenario a command acts on: its arguments, else the editor and cursor, else a pick. */
async function resolveScenario(analyzer: SceneAnalyzer, uri?: vscode.Uri, name?: string): Promise<{ doc: vscode.TextDocument; name: string } | null> {
  const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
  if (!target || !isSceneFile(target)) {
    void vscode.window.showWarningMessage('Contact Lens: open a *.scene.json file (or use the lens above a scenario).');
    return null;
  }
  const doc = await vscode.workspace.openTextDocument(target);
  if (typeof name === 'string' && name) return { doc, name };
  const outline = (await analyzer.analyze(doc)).outline;
  if (outline.length === 0) {
    void vscode.window.showWarningMessage(`Contact Lens: ${target.fsPath} has no named scenario.`);
    return null;
  }
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.uri.toString() === target.toString()) {
    const under = outline.find((s) => toRange(s.range).contains(editor.selection.active));
    if (under) return { doc, name: under.name };
  }
  if (outline.length === 1) return { doc, name: outline[0].name };
  const pick = await vscode.window.showQuickPick(
    outline.map((s) => s.name),
    { placeHolder: 'Scenario' },
  );
  return pick ? { doc, name: pick } : null;
}

export function registerCommands(inspectors: OpenInspectors, checks: CheckRunner, analyzer: SceneAnalyzer): vscode.Disposable[] {
  const reg = (id: string, fn: (...args: never[]) => unknown): vscode.Disposable => vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown);
  const active = () => {
    const i = inspectors.current;
    if (!i) void vscode.window.showInformationMessage('Contact Lens: no inspector is open. Run a scenario or open a recording first.');
    return i;
  };
  /** The active inspector once its session is open (commands act on frames, which exist only then). */
  const loaded = async () => {
    const i = active();
    if (!i) return null;
    await i.whenReady();
    return i;
  };
  /** Opens a scenario's inspector at a frame; `play` starts playback once the session is open (▶ Run). */
  const openAt =
    (at: number | 'first-finding' | 'last', play = false) =>
    async (uri?: vscode.Uri, name?: string) => {
      const s = await resolveScenario(analyzer, uri, name);
      if (!s) return undefined;
      if (s.doc.isDirty) await s.doc.save(); // the worker simulates the text, but a restored panel re-reads the file
      inspectors.openScenario(s.doc.uri.fsPath, s.name, at, play);
      return { scenario: s.name };
    };
  return [
    reg('contactLens.runScenario', openAt(0, true)), // plays from the first frame
    reg('contactLens.stepScenario', openAt(0)), // paused on the first frame: step with ←/→
    reg('contactLens.inspectScenario', openAt('first-finding')),
    reg('contactLens.checkScenario', async (uri?: vscode.Uri, name?: string): Promise<CheckCommandResult | CheckCommandResult[] | undefined> => {
      const s = await resolveScenario(analyzer, uri, name);
      if (!s) return undefined;
      try {
        const r = await checks.check(s.doc, s.name);
        if (!r) return undefined;
        const out = r.map(CheckRunner.summary);
        return out.length === 1 ? out[0] : out;
      } catch (e) {
        void vscode.window.showErrorMessage(`Contact Lens: ${(e as Error).message}`);
        return undefined;
      }
    }),
    reg('contactLens.openRecording', async (uri?: vscode.Uri) => {
      const target =
        uri instanceof vscode.Uri
          ? uri
          : (
              await vscode.window.showOpenDialog({ canSelectMany: false, filters: { 'Contact Lens recordings': ['jsonl', 'gz'] }, openLabel: 'Open recording' })
            )?.[0];
      if (target) await vscode.commands.executeCommand('vscode.openWith', target, RECORDING_VIEW_TYPE);
    }),
    // any JSON problem (e.g. examples/problems/*.json) or HDF5 file, whatever its name: openWith names the editor
    reg('contactLens.openProblem', async (uri?: vscode.Uri) => {
      const target =
        uri instanceof vscode.Uri
          ? uri
          : (
              await vscode.window.showOpenDialog({
                canSelectMany: false,
                filters: { 'Contact problems (JSON, FCLIB HDF5)': ['json', 'hdf5', 'h5'] },
                openLabel: 'Open problem',
              })
            )?.[0];
      if (target) await vscode.commands.executeCommand('vscode.openWith', target, /\.h(df)?5$/i.test(target.path) ? FCLIB_VIEW_TYPE : PROBLEM_VIEW_TYPE);
    }),
    reg('contactLens.stepForward', async () => {
      const i = await loaded();
      return i ? { index: i.goto(i.frameIndex + 1) } : undefined;
    }),
    reg('contactLens.stepBack', async () => {
      const i = await loaded();
      return i ? { index: i.goto(i.frameIndex - 1) } : undefined;
    }),
    reg('contactLens.togglePlay', () => {
      active()?.command({ name: 'togglePlay' });
    }),
    reg('contactLens.goToFrame', async (frame?: number) => {
      const i = await loaded(),
        s = i?.session;
      if (!i || !s) return undefined;
      const frames = s.timeline.frame;
      let target = typeof frame === 'number' ? frame : undefined;
      if (target === undefined) {
        const text = await vscode.window.showInputBox({
          prompt: `Frame number (${frames[0]} … ${frames[frames.length - 1]})`,
          value: String(frames[i.frameIndex]),
          validateInput: (v) =>
            /^\s*\d+\s*$/.test(v) && frames.includes(Number(v)) ? null : `enter a frame number between ${frames[0]} and ${frames[frames.length - 1]}`,
        });
        if (text === undefined) return undefined;
        target = Number(text);
      }
      const idx = frames.indexOf(target);
      return idx < 0 ? undefined : { index: i.goto(idx) };
    }),
    reg('contactLens.nextFinding', async () => {
      const i = await loaded();
      if (!i) return undefined;
      const k = i.findingFrom(1);
      if (k !== null) return { index: i.goto(k) };
      vscode.window.setStatusBarMessage('Contact Lens: no later finding', 3000);
      return undefined;
    }),
    reg('contactLens.previousFinding', async () => {
      const i = await loaded();
      if (!i) return undefined;
      const k = i.findingFrom(-1);
      if (k !== null) return { index: i.goto(k) };
      vscode.window.setStatusBarMessage('Contact Lens: no earlier finding', 3000);
      return undefined;
    }),
    reg('contactLens.resolveFrameWith', async (solver?: string) => {
      const i = active();
      if (!i) return undefined;
      const pick = SOLVER_NAMES.includes(solver as never)
        ? solver
        : await vscode.window.showQuickPick([...SOLVER_NAMES], { placeHolder: 'Re-solve the current frame with…' });
      if (!pick) return undefined;
      try {
        const text = await i.whatIfReport(pick as (typeof SOLVER_NAMES)[number]);
        const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
        await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
        return text;
      } catch (e) {
        void vscode.window.showErrorMessage(`Contact Lens: ${(e as Error).message}`);
        return undefined;
      }
    }),
    reg('contactLens.exportFrame', async (format?: string) => {
      const i = active();
      if (!i) return undefined;
      const f =
        format === 'json' || format === 'csv' ? format : await vscode.window.showQuickPick(['json', 'csv'], { placeHolder: 'Export the current frame as…' });
      if (f !== 'json' && f !== 'csv') return undefined;
      return i.exportFrame(f);
    }),
    reg('contactLens.exportChart', () => {
      active()?.command({ name: 'exportChart' });
    }),
    reg('contactLens.exportSceneView', () => {
      active()?.command({ name: 'exportSceneView' });
    }),
  ];
}
