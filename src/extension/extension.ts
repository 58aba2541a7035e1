/**
 * Extension entry. Activation registers providers and commands only (measured: `activationTimeMs` in the
 * exports); the engine lives in the simulation worker bundle (dist/worker.js) and is loaded the first
 * time a scenario runs or a recording opens.
 */
import * as vscode from 'vscode';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { CheckOutcomes } from './checkOutcomes.js';
import { CheckRunner } from './checkRunner.js';
import { registerCommands } from './commands.js';
import { Inspectors } from './inspectors.js';
import { INSPECTOR_VIEW_TYPE, RECORDING_VIEW_TYPE } from './inspector.js';
import { SceneLensProvider } from './sceneLens.js';
import { registerSceneValidation } from './sceneValidation.js';
import { SceneTests } from './testing.js';
import { checkOnSave } from './settings.js';
import { isSceneFile } from './ranges.js';

export interface ContactLensApi {
  /** Wall time of activate() (our own work, ms). */
  readonly activationTimeMs: number;
  readonly testController: vscode.TestController;
  /** Finds the scene files of the workspace and their scenarios (the Test Explorer does this lazily). */
  discoverTests(): Promise<void>;
  /** Largest event-loop delay (ms) seen since activation or the last reset. */
  eventLoopDelay(): { maxMs: number; meanMs: number; p99Ms: number };
  resetEventLoopDelay(): void;
}

export function activate(context: vscode.ExtensionContext): ContactLensApi {
  const t0 = performance.now();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const output = vscode.window.createOutputChannel('Contact Lens');
  const workerScript = vscode.Uri.joinPath(context.extensionUri, 'dist', 'worker.js').fsPath;
  const outcomes = new CheckOutcomes();
  const checks = new CheckRunner(workerScript, outcomes);
  const inspectors = new Inspectors(context.extensionUri, workerScript, output);
  const lenses = new SceneLensProvider(outcomes);
  const tests = new SceneTests(checks, inspectors);
  context.subscriptions.push(
    output, outcomes, inspectors, lenses, tests,
    vscode.languages.registerCodeLensProvider([{ pattern: '**/*.scene.json' }], lenses),
    registerSceneValidation(outcomes),
    vscode.window.registerWebviewPanelSerializer(INSPECTOR_VIEW_TYPE, inspectors.serializer()),
    vscode.window.registerCustomEditorProvider(RECORDING_VIEW_TYPE, inspectors.recordingEditor(), { supportsMultipleEditorsPerDocument: true }),
    vscode.workspace.onDidSaveTextDocument((doc) => { if (checkOnSave() && isSceneFile(doc.uri)) void checks.check(doc, null).catch(() => undefined); }),
    ...registerCommands(inspectors, checks),
    { dispose: () => loop.disable() },
  );
  const activationTimeMs = performance.now() - t0;
  output.appendLine(`activated in ${activationTimeMs.toFixed(1)} ms`);
  return {
    activationTimeMs,
    testController: tests.controller,
    discoverTests: () => tests.discoverAll(),
    eventLoopDelay: () => ({ maxMs: loop.max / 1e6, meanMs: loop.mean / 1e6, p99Ms: loop.percentile(99) / 1e6 }),
    resetEventLoopDelay: () => loop.reset(),
  };
}

export function deactivate(): void { /* subscriptions dispose everything */ }
