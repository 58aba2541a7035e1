/**
 * Parse and semantic errors of scene files on the exact field, as you type (debounced): the JSON Schema
 * (contributed with jsonValidation) covers structure; the engine's parser adds what a schema cannot say
 * (unknown material names, duplicate bodies, bad quaternions, …). Warnings (fault injection, normalised
 * quaternions) are shown too.
 */
import * as vscode from 'vscode';
import { parseSceneFile, SceneFormatError } from '../format/scene.js';
import { FormatError } from '../format/oracle.js';
import type { CheckOutcomes } from './checkOutcomes.js';
import { isSceneFile, toRange } from './ranges.js';

/** Delay after the last keystroke before a scene file is re-parsed (ms). */
export const VALIDATION_DEBOUNCE_MS = 300;

export function sceneDiagnostics(text: string, file: string): vscode.Diagnostic[] {
  try {
    const { warnings } = parseSceneFile(text, file);
    return warnings.map((w) => {
      const d = new vscode.Diagnostic(toRange(w.range), `${w.field}: ${w.detail}`, w.kind === 'fault-injection' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information);
      d.source = 'contact-lens';
      return d;
    });
  } catch (e) {
    if (e instanceof SceneFormatError) {
      const d = new vscode.Diagnostic(toRange(e.range), `${e.field}: ${e.detail}`, vscode.DiagnosticSeverity.Error);
      d.source = 'contact-lens';
      return [d];
    }
    const msg = e instanceof FormatError ? e.message : `could not parse: ${(e as Error).message}`;
    const d = new vscode.Diagnostic(new vscode.Range(0, 0, 0, 1), msg, vscode.DiagnosticSeverity.Error);
    d.source = 'contact-lens';
    return [d];
  }
}

export function registerSceneValidation(outcomes: CheckOutcomes): vscode.Disposable {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const validate = (doc: vscode.TextDocument): void => {
    if (!isSceneFile(doc.uri)) return;
    outcomes.setParseDiagnostics(doc.uri, sceneDiagnostics(doc.getText(), doc.uri.fsPath || doc.uri.path));
  };
  const schedule = (doc: vscode.TextDocument): void => {
    if (!isSceneFile(doc.uri)) return;
    const key = doc.uri.toString();
    clearTimeout(timers.get(key));
    timers.set(key, setTimeout(() => { timers.delete(key); validate(doc); }, VALIDATION_DEBOUNCE_MS));
  };
  vscode.workspace.textDocuments.forEach(validate);
  return vscode.Disposable.from(
    vscode.workspace.onDidOpenTextDocument(validate),
    vscode.workspace.onDidChangeTextDocument((e) => { if (e.contentChanges.length) { outcomes.clear(e.document.uri); schedule(e.document); } }),
    vscode.workspace.onDidCloseTextDocument((d) => { if (isSceneFile(d.uri)) outcomes.setParseDiagnostics(d.uri, []); }),
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
  );
}
