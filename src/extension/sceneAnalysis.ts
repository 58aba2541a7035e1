/**
 * Scene-file analysis off the extension host's event loop: outline (CodeLens positions), problems and
 * testable scenarios come from the worker (parsing a 200 KB scene takes 40–90 ms, too long for the host).
 * One long-lived worker, started on first use; results cached per document version.
 */
import type * as vscode from 'vscode';
import { WorkerClient } from './workerClient.js';
import type { SceneAnalysis } from './worker/workerProtocol.js';

export class SceneAnalyzer implements vscode.Disposable {
  private worker: WorkerClient | null = null;
  private readonly cache = new Map<string, { version: number; result: Promise<SceneAnalysis> }>();

  constructor(private readonly workerScript: string) {}

  private client(): WorkerClient {
    if (!this.worker?.alive) this.worker = new WorkerClient(this.workerScript);
    return this.worker;
  }

  /** Analysis of the document's current text (shared by every caller for the same version). */
  analyze(doc: vscode.TextDocument): Promise<SceneAnalysis> {
    const key = doc.uri.toString();
    const hit = this.cache.get(key);
    if (hit && hit.version === doc.version) return hit.result;
    const result = this.analyzeText(doc.uri, doc.getText());
    this.cache.set(key, { version: doc.version, result });
    return result;
  }

  /** Analysis of a file's text that is not (necessarily) open in an editor; not cached. */
  analyzeText(uri: vscode.Uri, text: string): Promise<SceneAnalysis> {
    return this.client().request({ op: 'analyzeScene', file: uri.fsPath || uri.path, text });
  }

  forget(uri: vscode.Uri): void {
    this.cache.delete(uri.toString());
  }

  dispose(): void {
    this.worker?.dispose();
    this.cache.clear();
  }
}
