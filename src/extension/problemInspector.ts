/**
 * The inspector of a contact problem file (docs/problem-format.md: a JSON problem or an FCLIB local
 * problem in HDF5): one frame without bodies. A read-only custom editor whose worker opens the file, solves
 * it with every solver and is then closed; the webview gets one `problem` message (src/protocol/problem.ts)
 * — or `problemError`, one line naming the file and the field, shown in the panel (the panel stays open).
 */
import * as vscode from 'vscode';
import { WorkerClient, CancelledError } from './workerClient.js';
import type { HostMessage } from '../protocol/inspector.js';
import { PROTOCOL_VERSION } from '../protocol/inspector.js';
import { validateWebviewMessage, type ProtocolError } from '../protocol/validate.js';
import { loadInspectorPage } from './inspectorPanel.js';
import { timedCallback } from './callbackTimes.js';
import { fractionReporter } from './progress.js';

/** `*.problem.json` (priority default) and FCLIB `*.hdf5` / `*.h5` (priority option: most HDF5 files are not FCLIB problems). */
export const PROBLEM_VIEW_TYPE = 'contactLens.problem';
export const FCLIB_VIEW_TYPE = 'contactLens.fclibProblem';

/** What a problem panel shows once opened: its header numbers, or its one-line error. */
export type ProblemPanelState =
  | {
      readonly file: string;
      readonly kind: 'problem';
      readonly title: string;
      readonly contacts: number;
      readonly unknowns: number;
      readonly rank: number;
      readonly solvers: readonly { readonly solver: string; readonly status: string }[];
    }
  | { readonly file: string; readonly kind: 'error'; readonly message: string };

export interface ProblemInspectorHost {
  readonly extensionUri: vscode.Uri;
  readonly workerScript: string;
  readonly output: vscode.OutputChannel;
}

export class ProblemInspector implements vscode.Disposable {
  /** The message that shows the panel's content (problem or problemError), re-sent when the page asks. */
  private shown: HostMessage | null = null;
  private disposed = false;
  private readonly subs: vscode.Disposable[] = [];
  /** Resolves with the message once the file is open (or could not be). */
  readonly done: Promise<HostMessage>;

  /** `path`: the file the worker reads; `file`: the name the header and messages use. */
  constructor(
    private readonly host: ProblemInspectorHost,
    readonly panel: vscode.WebviewPanel,
    private readonly path: string,
    readonly file: string,
  ) {
    const webview = panel.webview;
    loadInspectorPage(panel, host.extensionUri);
    this.subs.push(
      webview.onDidReceiveMessage(timedCallback('webview message', (m: unknown) => this.receive(m))),
      panel.onDidDispose(() => this.dispose()),
    );
    this.done = this.open();
  }

  private async open(): Promise<HostMessage> {
    const worker = new WorkerClient(this.host.workerScript);
    const abort = new AbortController();
    let m: HostMessage;
    try {
      const view = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Contact Lens: opening ${this.file}`, cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => abort.abort());
          const notify = fractionReporter(progress);
          return worker.request(
            { op: 'openProblem', path: this.path, file: this.file },
            {
              signal: abort.signal,
              onProgress: (message, fraction) => {
                notify(message, fraction);
                this.post({ type: 'progress', message, fraction });
              },
            },
          );
        },
      );
      m = { type: 'problem', version: PROTOCOL_VERSION, view };
    } catch (e) {
      // FormatError text is already "file: field: detail"; anything else is prefixed with the file name
      const text = e instanceof CancelledError ? 'opening was cancelled (reopen the file to try again)' : (e as Error).message;
      const message = text.startsWith(`${this.file}:`) ? text : `${this.file}: ${text}`;
      this.host.output.appendLine(message);
      m = { type: 'problemError', file: this.file, message };
    } finally {
      worker.dispose(); // one request: the view holds everything the panel shows
    }
    this.shown = m;
    this.post(m);
    return m;
  }

  /** The panel's content once the file is open (or could not be). */
  async state(): Promise<ProblemPanelState> {
    const m = await this.done;
    if (m.type === 'problem') {
      const v = m.view;
      return {
        file: this.file,
        kind: 'problem',
        title: v.title,
        contacts: v.contacts,
        unknowns: v.unknowns,
        rank: v.rank,
        solvers: v.solvers.map((s) => ({ solver: s.solver, status: s.status })),
      };
    }
    return { file: this.file, kind: 'error', message: m.type === 'problemError' ? m.message : `${this.file}: not opened` };
  }

  private receive(raw: unknown): void {
    try {
      const m = validateWebviewMessage(raw);
      if (m.type === 'ready' && this.shown) this.post(this.shown);
      // a problem panel has one frame: seek, series, what-if and export requests have nothing to act on
    } catch (e) {
      this.host.output.appendLine(`webview sent an invalid message: ${(e as ProtocolError).message}`);
    }
  }

  private post(m: HostMessage): void {
    if (!this.disposed) void this.panel.webview.postMessage(m);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.subs.forEach((s) => s.dispose());
  }
}
