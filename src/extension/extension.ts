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
import { registerCompareCommands } from './compareCommands.js';
import { registerListenCommand } from './live/listenCommand.js';
import { OpenInspectors } from './openInspectors.js';
import { INSPECTOR_VIEW_TYPE, RECORDING_VIEW_TYPE } from './inspectorPanel.js';
import { FCLIB_VIEW_TYPE, PROBLEM_VIEW_TYPE, type ProblemPanelState } from './problemInspector.js';
import { SceneLensProvider } from './sceneLens.js';
import { registerSceneValidation } from './sceneValidation.js';
import { SceneAnalyzer } from './sceneAnalysis.js';
import { SceneTests } from './testing.js';
import { checkOnSave } from './settings.js';
import { isSceneFile } from './ranges.js';
import { type CallbackTimeReport, callbackTimeReport, resetCallbackTimes, recordCallbackTime } from './callbackTimes.js';

/** Sampling interval of the event-loop delay monitor (ms). */
export const EVENT_LOOP_RESOLUTION_MS = 10;

/** process.threadCpuUsage (Node ≥ 23.9, the extension host's Node): CPU time of the calling thread only. */
type ThreadCpuUsage = () => { user: number; system: number };
const threadCpuUsage = (process as unknown as { threadCpuUsage?: ThreadCpuUsage }).threadCpuUsage?.bind(process);
const threadCpuMs = (): number | null => {
  if (!threadCpuUsage) return null;
  const u = threadCpuUsage();
  return (u.user + u.system) / 1000;
};

export interface ContactLensApi {
  /** Wall time of activate() (ms): our work plus any time the host thread was not scheduled. */
  readonly activationTimeMs: number;
  /** CPU time the host thread spent in activate() (ms): our own work only; null where Node cannot measure it. */
  readonly activationCpuMs: number | null;
  readonly testController: vscode.TestController;
  /** Finds the scene files of the workspace and their scenarios (the Test Explorer does this lazily). */
  discoverTests(): Promise<void>;
  /**
   * Event-loop blocking seen since activation or the last reset (ms): how much later than scheduled the
   * sampling timer (every EVENT_LOOP_RESOLUTION_MS) fired — the histogram's values minus the interval.
   */
  eventLoopDelay(): { maxMs: number; meanMs: number; p99Ms: number };
  resetEventLoopDelay(): void;
  /** Longest synchronous run of our own code per entry point since the last reset (ms). */
  callbackTimes(): CallbackTimeReport;
  resetCallbackTimes(): void;
  /** What each open problem-file panel shows (the message its webview got), for tests and other extensions. */
  problemPanels(): Promise<ProblemPanelState[]>;
}

export function activate(context: vscode.ExtensionContext): ContactLensApi {
  const t0 = performance.now(),
    cpu0 = threadCpuMs();
  const loop = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  loop.enable();
  const output = vscode.window.createOutputChannel('Contact Lens');
  const workerScript = vscode.Uri.joinPath(context.extensionUri, 'dist', 'worker.js').fsPath;
  const outcomes = new CheckOutcomes();
  const checks = new CheckRunner(workerScript, outcomes);
  // recordings' sidecar caches go beside them, or here when their folder cannot be written (sidecarCache.ts)
  const cacheDir = context.globalStorageUri.scheme === 'file' ? vscode.Uri.joinPath(context.globalStorageUri, 'recording-cache').fsPath : null;
  const inspectors = new OpenInspectors(context.extensionUri, workerScript, output, cacheDir);
  const analyzer = new SceneAnalyzer(workerScript);
  const lenses = new SceneLensProvider(outcomes, analyzer);
  const tests = new SceneTests(checks, inspectors, analyzer);
  context.subscriptions.push(
    output,
    outcomes,
    inspectors,
    lenses,
    tests,
    analyzer,
    vscode.languages.registerCodeLensProvider([{ pattern: '**/*.scene.json' }], lenses),
    registerSceneValidation(outcomes, analyzer),
    vscode.window.registerWebviewPanelSerializer(INSPECTOR_VIEW_TYPE, inspectors.serializer()),
    vscode.window.registerCustomEditorProvider(RECORDING_VIEW_TYPE, inspectors.recordingEditor(), { supportsMultipleEditorsPerDocument: true }),
    vscode.window.registerCustomEditorProvider(PROBLEM_VIEW_TYPE, inspectors.problemEditor(), { supportsMultipleEditorsPerDocument: true }),
    vscode.window.registerCustomEditorProvider(FCLIB_VIEW_TYPE, inspectors.problemEditor(), { supportsMultipleEditorsPerDocument: true }),
    // Restricted Mode (package.json capabilities.untrustedWorkspaces: limited): no checks run on their own
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (vscode.workspace.isTrusted && checkOnSave() && isSceneFile(doc.uri)) void checks.check(doc, null).catch(() => undefined);
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void tests.discoverAll();
    }),
    ...registerCommands(inspectors, checks, analyzer),
    ...registerCompareCommands(inspectors, analyzer),
    registerListenCommand(inspectors, context),
    { dispose: () => loop.disable() },
  );
  const activationTimeMs = performance.now() - t0,
    cpu1 = threadCpuMs(),
    activationCpuMs = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
  recordCallbackTime('activation', activationTimeMs);
  output.appendLine(`activated in ${activationTimeMs.toFixed(1)} ms${activationCpuMs !== null ? ` (${activationCpuMs.toFixed(1)} ms CPU)` : ''}`);
  return {
    activationTimeMs,
    activationCpuMs,
    testController: tests.controller,
    discoverTests: () => tests.discoverAll(),
    eventLoopDelay: () => {
      const blocked = (ns: number): number => Math.max(0, ns / 1e6 - EVENT_LOOP_RESOLUTION_MS);
      return { maxMs: blocked(loop.max), meanMs: blocked(loop.mean), p99Ms: blocked(loop.percentile(99)) };
    },
    resetEventLoopDelay: () => loop.reset(),
    callbackTimes: callbackTimeReport,
    resetCallbackTimes,
    problemPanels: () => inspectors.problemPanels(),
  };
}

export function deactivate(): void {
  /* subscriptions dispose everything */
}
