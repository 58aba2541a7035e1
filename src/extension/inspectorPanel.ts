/**
 * One inspector = one webview (a WebviewPanel for scenarios, a custom editor for recordings) + one
 * simulation worker holding the session. The host owns the current frame index (commands and the status
 * bar read it); the webview asks for frames, series and what-ifs; every message is validated on receipt.
 */
import * as vscode from 'vscode';
import { randomInt } from 'node:crypto';
import { WorkerClient, CancelledError, WorkerRequestError } from './workerClient.js';
import type { CompareRun, Opened } from './worker/workerProtocol.js';
import type { CompareView, EnginesView } from '../protocol/compare.js';
import type { HostMessage, InspectorCommand, SessionSource, SolverName, WebviewMessage } from '../protocol/inspector.js';
import { PROTOCOL_VERSION } from '../protocol/inspector.js';
import { validateWebviewMessage, ProtocolError } from '../protocol/validate.js';
import { inspectorHtml, makeNonce } from './webviewHtml.js';
import { diagnosisSettings, frameStoreEnabled, playbackFps, solverOverride } from './settings.js';
import { timed, timedCallback } from './callbackTimes.js';
import { fractionReporter } from './progress.js';
import { isSameFile } from '../format/inputFile.js';
import { safePath } from '../format/messages.js';
import { LiveRelay } from './live/liveRelay.js';
import type { LiveEvent } from './live/liveFeed.js';
import type { Listening } from './live/liveHub.js';
import type { LiveState } from '../protocol/live.js';

/** A listening panel's setup: where recordings go, and what to do once the listener has an address. */
export interface ListenSetup {
  readonly folder: string;
  readonly listening: (l: Listening) => void;
}

export const INSPECTOR_VIEW_TYPE = 'contactLens.inspector';
export const RECORDING_VIEW_TYPE = 'contactLens.recording';

export interface InspectorHost {
  readonly extensionUri: vscode.Uri;
  readonly workerScript: string;
  readonly output: vscode.OutputChannel;
  /** Where recordings' caches go when their folder cannot be written (null: only beside them). */
  readonly cacheDir: string | null;
  activeChanged(inspector: InspectorPanel, active: boolean): void;
  /** A live session shown by `inspector` has new frames (the status bar's count follows, throttled). */
  liveGrew(inspector: InspectorPanel): void;
  disposed(inspector: InspectorPanel): void;
}

/** Webview options: scripts on, resources only from the bundle folder. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')] };
}

/** Loads the inspector page (bundle, style sheet, strict CSP with a fresh nonce) into a panel's webview. */
export function loadInspectorPage(panel: vscode.WebviewPanel, extensionUri: vscode.Uri): void {
  const webview = panel.webview;
  webview.options = webviewOptions(extensionUri);
  const nonce = makeNonce(() => randomInt(2 ** 32) / 2 ** 32); // cryptographic source, alphanumeric nonce
  const root = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  webview.html = inspectorHtml({
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'main.js')).toString(),
    styleUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'style.css')).toString(),
    cspSource: webview.cspSource,
    nonce,
    title: panel.title,
  });
}

export class InspectorPanel implements vscode.Disposable {
  private worker: WorkerClient | null = null;
  private opened: Opened | null = null;
  private index = 0;
  private disposed = false;
  private readonly subs: vscode.Disposable[] = [];
  private readonly ready: Promise<void>;
  private markReady!: () => void;

  /**
   * Start playback when the webview shows the session (▶ Run). Sent with every init until the webview's
   * first seek shows an init arrived: one sent before the page listened is lost, and the page asks again.
   */
  private autoplay: boolean;

  constructor(
    private readonly host: InspectorHost,
    readonly panel: vscode.WebviewPanel,
    /** What the panel shows; a listening panel's changes with each writer (its recording file). */
    public source: SessionSource,
    initialIndex: number | 'first-finding' | 'last',
    play = false,
    /** Listen for live writers instead of opening `source` (src/extension/live/). */
    listening?: ListenSetup,
  ) {
    this.autoplay = play;
    this.live = new LiveRelay((m) => this.post(m));
    this.listensFor = listening;
    this.ready = new Promise((r) => (this.markReady = r));
    const webview = panel.webview;
    loadInspectorPage(panel, host.extensionUri);
    this.subs.push(
      webview.onDidReceiveMessage(
        timedCallback('webview message', (m: unknown) => {
          void this.receive(m);
        }),
      ),
      panel.onDidChangeViewState((e) => host.activeChanged(this, e.webviewPanel.active)),
      panel.onDidDispose(() => this.dispose()),
    );
    void (listening ? this.listen(listening) : this.open(initialIndex));
  }

  /** True for the panel of Contact Lens: Listen for a Live Engine. */
  get isListening(): boolean {
    return this.listensFor !== undefined;
  }
  private readonly listensFor: ListenSetup | undefined;

  /** The live session's state (a followed file or a listening panel), null before any. */
  get liveState(): LiveState | null {
    return this.live.state;
  }
  private readonly live: LiveRelay;
  /** Live events that arrived while the session was still opening (applied once it is). */
  private early: LiveEvent[] | null = [];

  /** Listens for live writers: the panel shows how to connect until a writer's first frame arrives. */
  private async listen(setup: ListenSetup): Promise<void> {
    this.worker = new WorkerClient(this.host.workerScript);
    this.worker.onEvent = (e) => this.liveEvent(e);
    this.early = null;
    try {
      const l = await this.worker.request({ op: 'listen', folder: setup.folder, diagnosis: diagnosisSettings() });
      setup.listening(l);
    } catch (e) {
      if (this.disposed) return;
      void vscode.window.showErrorMessage(`Contact Lens: cannot listen for a live engine: ${(e as Error).message}`);
      this.panel.dispose();
    }
  }

  private liveEvent(e: LiveEvent): void {
    if (this.disposed) return;
    if (this.early) {
      this.early.push(e);
      return;
    }
    if (e.type === 'session') {
      this.opened = e.opened;
      this.source = { kind: 'recording', file: e.opened.info.file };
      this.index = 0;
      this.markReady();
      timed('inspector init', () => this.sendInit());
      this.host.activeChanged(this, this.panel.active);
      return;
    }
    timed('live update', () => this.live.update(this.opened, e));
    if (e.rows) this.host.liveGrew(this);
  }

  get frameIndex(): number {
    return this.index;
  }
  /** Resolves once the session is open (never, if opening failed or was cancelled: the panel closes). */
  whenReady(): Promise<void> {
    return this.ready;
  }
  get session(): Opened | null {
    return this.opened;
  }
  get title(): string {
    return this.panel.title;
  }
  get isActive(): boolean {
    return this.panel.active;
  }

  /** Opens the session in a fresh worker, with a cancellable progress notification. */
  private async open(initial: number | 'first-finding' | 'last'): Promise<void> {
    this.worker = new WorkerClient(this.host.workerScript);
    const abort = new AbortController();
    const label = this.source.kind === 'scenario' ? this.source.scenario : this.source.file.split(/[\\/]/).pop();
    try {
      const opened = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Contact Lens: ${this.source.kind === 'scenario' ? 'simulating' : 'opening'} ${label}`,
          cancellable: true,
        },
        async (progress, token) => {
          token.onCancellationRequested(() => abort.abort());
          const notify = fractionReporter(progress);
          const onProgress = (message: string, fraction: number | null): void => {
            notify(message, fraction);
            this.post({ type: 'progress', message, fraction });
          };
          if (this.source.kind === 'scenario') {
            const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(this.source.file));
            return this.worker!.request(
              {
                op: 'openScenario',
                file: this.source.file,
                text: doc.getText(),
                scenario: this.source.scenario,
                diagnosis: diagnosisSettings(),
                override: { ...solverOverride(), ...(this.source.solver ? { solver: this.source.solver } : {}) },
              },
              { signal: abort.signal, onProgress },
            );
          }
          // followed as it grows: a recording still being written shows its new frames as they are flushed
          this.worker!.onEvent = (e) => this.liveEvent(e);
          return this.worker!.request(
            {
              op: 'openRecording',
              file: this.source.file,
              diagnosis: diagnosisSettings(),
              follow: true,
              cacheDir: this.host.cacheDir,
              frameStore: frameStoreEnabled(),
            },
            { signal: abort.signal, onProgress },
          );
        },
      );
      if (this.disposed) return;
      this.opened = opened;
      const n = opened.info.frameCount;
      const want = initial === 'last' ? n - 1 : initial === 'first-finding' ? (opened.findings[0]?.index ?? 0) : initial;
      this.index = Math.max(0, Math.min(n - 1, want));
      for (const s of opened.skipped) this.host.output.appendLine(`skipped ${s}`);
      if (opened.skipped.length)
        void vscode.window.showWarningMessage(
          `Contact Lens: ${opened.skipped.length} line(s) of ${label} could not be read and were skipped (details in the Contact Lens output). The valid frames are shown.`,
        );
      this.markReady();
      timed('inspector init', () => this.sendInit());
      this.host.activeChanged(this, this.panel.active);
      const early = this.early ?? [];
      this.early = null;
      for (const e of early) this.liveEvent(e);
    } catch (e) {
      if (this.disposed) return;
      const msg = e instanceof CancelledError ? 'cancelled' : (e as Error).message;
      this.post({ type: 'error', requestId: null, message: msg });
      if (!(e instanceof CancelledError)) void vscode.window.showErrorMessage(`Contact Lens: ${msg}`);
      this.panel.dispose();
    }
  }

  private sendInit(): void {
    const o = this.opened;
    if (!o) return;
    this.post({
      type: 'init',
      version: PROTOCOL_VERSION,
      source: this.source,
      info: o.info,
      timeline: o.timeline,
      findings: o.findings,
      settings: { playbackFps: playbackFps() },
      index: this.index,
      scene: o.scene,
      ...(this.autoplay ? { play: true } : {}),
    });
  }

  private post(m: HostMessage): void {
    if (!this.disposed) void this.panel.webview.postMessage(m);
  }

  private async receive(raw: unknown): Promise<void> {
    let m: WebviewMessage;
    try {
      m = validateWebviewMessage(raw);
    } catch (e) {
      this.host.output.appendLine(`webview sent an invalid message: ${(e as ProtocolError).message}`);
      return;
    }
    if (m.type === 'ready') {
      // a page that (re)loads gets the whole state: the session, then compare mode and the engines table, which
      // may have been posted before the page could receive them
      if (this.opened) this.sendInit();
      if (this.opened && this.compareView) this.post({ type: 'compare', compare: this.compareView });
      if (this.opened && this.enginesView) this.post({ type: 'engines', engines: this.enginesView });
      this.live.resend();
      return;
    }
    if (m.type === 'live') {
      // pause, step, continue and break conditions work before a writer's first frame too
      await this.worker?.request({ op: 'live', action: m.action }).catch((e: Error) => this.post({ type: 'error', requestId: null, message: e.message }));
      return;
    }
    await this.ready;
    if (m.type === 'seek') this.autoplay = false; // the webview has had its init
    const worker = this.worker;
    if (!worker || !this.opened) return;
    const n = this.opened.info.frameCount;
    try {
      switch (m.type) {
        case 'seek': {
          if (m.index >= n) throw new ProtocolError('index', `must be < ${n}`);
          this.index = m.index;
          this.host.activeChanged(this, this.panel.active);
          await this.frameFor(worker, m.requestId, m.index);
          break;
        }
        case 'series':
          this.post({ type: 'series', requestId: m.requestId, series: await worker.request({ op: 'series', keys: m.keys }) });
          break;
        case 'whatIf':
          this.post({ type: 'whatIf', requestId: m.requestId, result: await worker.request({ op: 'whatIf', index: m.index, options: m.options }) });
          break;
        case 'exportChart':
          await this.saveChart(m.name, m.dataUrl);
          break;
        case 'exportFrame':
          await this.exportFrame(m.format, m.index);
          break;
        case 'crossWhatIf':
          this.post({
            type: 'crossWhatIf',
            requestId: m.requestId,
            result: await worker.request({ op: 'crossWhatIf', index: m.index, direction: m.direction }),
          });
          break;
        case 'compareEngine':
          await this.compareWith({ kind: 'engine', engine: m.engine });
          break;
      }
    } catch (e) {
      if (e instanceof CancelledError) return;
      const requestId = 'requestId' in m ? m.requestId : null;
      this.post({
        type: 'error',
        requestId,
        message: e instanceof WorkerRequestError || e instanceof ProtocolError ? e.message : String((e as Error).message ?? e),
      });
    }
  }

  /**
   * Answers a seek. While one frame is being computed, later seeks are coalesced: only the newest waits
   * (the webview shows only the newest reply anyway), so holding → on a heavy recording does not queue
   * hundreds of frame computations in the worker.
   */
  private async frameFor(worker: WorkerClient, requestId: number, index: number): Promise<void> {
    if (this.frameBusy) {
      this.nextFrame = { requestId, index };
      return;
    }
    this.frameBusy = true;
    try {
      let job: { requestId: number; index: number } | null = { requestId, index };
      while (job) {
        const view = await worker.request({ op: 'frame', index: job.index });
        this.post({ type: 'frame', requestId: job.requestId, view });
        // a busy frame's larger islands' conditioning follows its view, unless a newer seek is waiting
        if (this.nextFrame === null && view.islands.some((isl) => isl.conditioningPending)) {
          const islands = await worker.request({ op: 'conditioning', index: job.index });
          this.post({ type: 'conditioning', index: view.index, islands });
        }
        job = this.nextFrame;
        this.nextFrame = null;
      }
    } catch (e) {
      this.nextFrame = null; // the error reaches the webview; a new seek starts afresh
      throw e;
    } finally {
      this.frameBusy = false;
    }
  }
  private frameBusy = false;
  private nextFrame: { requestId: number; index: number } | null = null;

  /** Moves to frame `index` (clamped) and tells the webview; returns the new index. */
  goto(index: number): number {
    const n = this.opened?.info.frameCount ?? 0;
    if (n === 0) return this.index;
    this.index = Math.max(0, Math.min(n - 1, Math.round(index)));
    this.command({ name: 'goto', index: this.index });
    this.host.activeChanged(this, this.panel.active);
    return this.index;
  }

  /** Index of the next (+1) / previous (−1) finding's frame from the current one, or null. */
  findingFrom(direction: 1 | -1): number | null {
    const idx = [...new Set((this.opened?.findings ?? []).map((f) => f.index))].sort((a, b) => a - b);
    const hit = direction > 0 ? idx.find((i) => i > this.index) : [...idx].reverse().find((i) => i < this.index);
    return hit ?? null;
  }

  command(command: InspectorCommand): void {
    this.post({ type: 'command', command });
  }

  /** Compare mode's view, once compareWith has run (null: not comparing). */
  get comparison(): CompareView | null {
    return this.compareView;
  }
  private compareView: CompareView | null = null;
  /** The engines table, once showEngines has run. */
  get engines(): EnginesView | null {
    return this.enginesView;
  }
  private enginesView: EnginesView | null = null;

  /** Long work in the worker with a cancellable progress notification (progress also shown in the page). */
  private async withProgress<T>(
    title: string,
    work: (worker: WorkerClient, signal: AbortSignal, onProgress: (m: string, f: number | null) => void) => Promise<T>,
  ): Promise<T> {
    await this.ready;
    const abort = new AbortController();
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Contact Lens: ${title}`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        const notify = fractionReporter(progress);
        try {
          return await work(this.worker!, abort.signal, (message, fraction) => {
            notify(message, fraction);
            this.post({ type: 'progress', message, fraction });
          });
        } finally {
          this.post({ type: 'progress', message: '', fraction: 1 });
        }
      },
    );
  }

  /** Compare mode: the session beside a second run (docs/compare.md "In the editor"); the page then shows both. */
  async compareWith(run: CompareRun): Promise<CompareView> {
    const view = await this.withProgress('comparing two runs', (w, signal, onProgress) => w.request({ op: 'compareWith', run }, { signal, onProgress }));
    this.compareView = view;
    this.post({ type: 'compare', compare: view });
    return view;
  }

  /** Runs the scenario in every engine and shows the table (a scenario inspector only). */
  async showEngines(): Promise<EnginesView> {
    if (this.source.kind !== 'scenario') throw new Error('the engines table needs a scene file’s scenario');
    const source = this.source;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(source.file));
    const view = await this.withProgress(`${source.scenario} in five engines`, (w, signal, onProgress) =>
      w.request({ op: 'engines', file: source.file, text: doc.getText(), scenario: source.scenario, override: solverOverride() }, { signal, onProgress }),
    );
    this.enginesView = view;
    this.post({ type: 'engines', engines: view });
    return view;
  }

  async whatIfReport(solver: SolverName): Promise<string> {
    await this.ready;
    const r = await this.worker!.request({ op: 'whatIf', index: this.index, options: { solver } });
    const f = this.opened!.timeline.frame[this.index];
    const lines = [
      `# What if frame ${f} of ${this.title} were solved with ${solver}?`,
      '',
      `| | recorded | ${solver} |`,
      '|---|---|---|',
      `| ΔKE from contact impulses (J) | ${r.recorded.kineticEnergyChange.toPrecision(6)} | ${r.alternative.kineticEnergyChange.toPrecision(6)} |`,
      `| KKT residual (max rel.) | ${r.recorded.kkt.toExponential(2)} | ${r.alternative.kkt.toExponential(2)} |`,
      `| Coulomb merit | ${r.recorded.coulomb.toExponential(2)} | ${r.alternative.coulomb.toExponential(2)} |`,
      `| status | | ${r.alternative.status} after ${r.alternative.iterations} iterations |`,
      '',
      '| contact | λn recorded | λn ' + solver + ' | ‖λt‖ recorded | ‖λt‖ ' + solver + ' | w_n recorded (m/s) | w_n ' + solver + ' (m/s) | max |Δλ| |',
      '|---|---|---|---|---|---|---|---|',
      ...r.contacts.map(
        (c) =>
          `| ${c.index} | ${c.recordedN.toPrecision(6)} | ${c.alternativeN.toPrecision(6)} | ${c.recordedT.toPrecision(6)} | ${c.alternativeT.toPrecision(6)} | ${c.recordedWn.toPrecision(3)} | ${c.alternativeWn.toPrecision(3)} | ${c.difference.toExponential(2)} |`,
      ),
      ...(r.skipped.length ? ['', 'Not re-solved:', ...r.skipped.map((s) => `- ${s}`)] : []),
    ];
    return lines.join('\n') + '\n';
  }

  async exportFrame(format: 'json' | 'csv', index = this.index): Promise<vscode.Uri | null> {
    await this.ready;
    const text = await this.worker!.request({ op: 'exportFrame', index, format });
    const frame = this.opened!.timeline.frame[index];
    const base = this.title.replace(/[^\w.-]+/g, '_');
    const target = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(this.defaultFolder(), `${base}-frame-${frame}.${format}`),
      filters: format === 'json' ? { JSON: ['json'] } : { CSV: ['csv'] },
      saveLabel: `Export frame ${frame}`,
    });
    if (!target || this.isInspectedFile(target)) return null;
    await vscode.workspace.fs.writeFile(target, Buffer.from(text, 'utf8'));
    return target;
  }

  private async saveChart(name: string, dataUrl: string): Promise<void> {
    const target = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(this.defaultFolder(), `${this.title.replace(/[^\w.-]+/g, '_')}-${name.replace(/[^\w.-]+/g, '_')}.png`),
      filters: { PNG: ['png'] },
      saveLabel: 'Export chart',
    });
    if (!target || this.isInspectedFile(target)) return;
    await vscode.workspace.fs.writeFile(target, Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64'));
    void vscode.window.showInformationMessage(`Contact Lens: chart saved to ${target.fsPath}`);
  }

  /**
   * True (and said) when an export's target is the inspected scene or recording itself, by device and inode
   * (a hard or symbolic link included): an export never overwrites its input.
   */
  private isInspectedFile(target: vscode.Uri): boolean {
    if (target.scheme !== 'file' || !isSameFile(target.fsPath, this.source.file)) return false;
    void vscode.window.showErrorMessage(`Contact Lens: ${safePath(target.fsPath)} is the file being inspected; export to another file`);
    return true;
  }

  private defaultFolder(): vscode.Uri {
    return vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(this.source.file.replace(/[\\/][^\\/]*$/, ''));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.worker?.dispose();
    this.subs.forEach((s) => s.dispose());
    this.host.disposed(this);
  }
}
