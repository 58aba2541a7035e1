/**
 * Parse and semantic errors of scene files on the exact field, as you type (debounced, computed in the
 * worker): the JSON Schema (contributed with jsonValidation) covers structure; the engine's parser adds
 * what a schema cannot say (unknown material names, duplicate bodies, bad quaternions, …). Warnings
 * (fault injection, normalised quaternions) are shown too.
 */
import * as vscode from 'vscode';
import type { CheckOutcomes } from './checkOutcomes.js';
import type { SceneAnalyzer } from './sceneAnalysis.js';
import type { SceneAnalysis } from './worker/workerProtocol.js';
import { isSceneFile, toRange } from './ranges.js';
import { timedCallback } from './callbackTimes.js';

/** Delay after the last keystroke before a scene file is re-analysed (ms). */
export const VALIDATION_DEBOUNCE_MS = 300;

const SEVERITY = { error: vscode.DiagnosticSeverity.Error, warning: vscode.DiagnosticSeverity.Warning, info: vscode.DiagnosticSeverity.Information } as const;

export function problemsToDiagnostics(a: SceneAnalysis): vscode.Diagnostic[] {
  return a.problems.map((p) => {
    const d = new vscode.Diagnostic(toRange(p.range), p.message, SEVERITY[p.severity]);
    d.source = 'contact-lens';
    return d;
  });
}

export function registerSceneValidation(outcomes: CheckOutcomes, analyzer: SceneAnalyzer): vscode.Disposable {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const validate = (doc: vscode.TextDocument): void => {
    if (!isSceneFile(doc.uri) || doc.isClosed) return;
    const version = doc.version;
    analyzer.analyze(doc).then(
      timedCallback('scene diagnostics', (a: SceneAnalysis) => {
        if (!doc.isClosed && doc.version === version) outcomes.setParseDiagnostics(doc.uri, problemsToDiagnostics(a));
      }),
      () => undefined, // worker gone (extension shutting down): nothing to show
    );
  };
  const schedule = (doc: vscode.TextDocument): void => {
    if (!isSceneFile(doc.uri)) return;
    const key = doc.uri.toString();
    clearTimeout(timers.get(key));
    timers.set(
      key,
      setTimeout(
        timedCallback('validation', () => {
          timers.delete(key);
          validate(doc);
        }),
        VALIDATION_DEBOUNCE_MS,
      ),
    );
  };
  vscode.workspace.textDocuments.forEach(validate);
  return vscode.Disposable.from(
    vscode.workspace.onDidOpenTextDocument(timedCallback('document opened', validate)),
    vscode.workspace.onDidChangeTextDocument(
      timedCallback('document changed', (e: vscode.TextDocumentChangeEvent) => {
        if (e.contentChanges.length) {
          outcomes.clear(e.document.uri);
          schedule(e.document);
        }
      }),
    ),
    vscode.workspace.onDidCloseTextDocument(
      timedCallback('document closed', (d: vscode.TextDocument) => {
        if (isSceneFile(d.uri)) {
          analyzer.forget(d.uri);
          outcomes.setParseDiagnostics(d.uri, []);
        }
      }),
    ),
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
  );
}
