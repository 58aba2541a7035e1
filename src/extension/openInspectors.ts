/**
 * All open inspectors: which one is active (commands and keybindings act on it, the context key
 * `contactLens.inspectorActive` scopes the keybindings), the status bar item (frame i / N, t, findings),
 * opening scenario panels, restoring them after a reload (WebviewPanelSerializer + the webview's
 * getState/setState), and the read-only custom editors for recordings and problem files.
 */
import * as vscode from 'vscode';
import { InspectorPanel, INSPECTOR_VIEW_TYPE, webviewOptions, type InspectorHost, type ListenSetup } from './inspectorPanel.js';
import type { SessionSource, SolverName, WebviewState } from '../protocol/inspector.js';
import { restorablePanel } from './restoredState.js';
import { ProblemInspector, type ProblemPanelState } from './problemInspector.js';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

/** Copies a non-file URI's bytes (read with vscode.workspace.fs) to a fresh private temporary folder. */
async function copyToTemp(uri: vscode.Uri): Promise<string> {
  const bytes = await vscode.workspace.fs.readFile(uri);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'contact-lens-'));
  const name = (uri.path.split('/').pop() || 'recording.rec.jsonl').replace(/[^\w.-]/g, '_');
  const file = path.join(dir, name);
  await fs.writeFile(file, bytes, { mode: 0o600 });
  return file;
}

/**
 * The local path a custom editor's worker reads: the file itself for a file: URI; for any other scheme (a
 * git revision, a remote or virtual file system) a private temporary copy read through vscode.workspace.fs,
 * removed when the panel closes. undefined (the panel closed, the reason shown) when it cannot be read.
 */
async function localFileFor(uri: vscode.Uri, panel: vscode.WebviewPanel): Promise<string | undefined> {
  if (uri.scheme === 'file') return uri.fsPath;
  let file: string;
  try {
    file = await copyToTemp(uri);
  } catch (e) {
    void vscode.window.showErrorMessage(`Contact Lens: cannot read ${uri.toString(true)}: ${(e as Error).message}`);
    panel.dispose();
    return undefined;
  }
  panel.onDidDispose(() => {
    void fs.rm(path.dirname(file), { recursive: true, force: true });
  });
  return file;
}

/** Shortest time between two refreshes of the status bar while a live session grows (ms). */
const LIVE_STATUS_MS = 250;

export class OpenInspectors implements InspectorHost, vscode.Disposable {
  private readonly all = new Set<InspectorPanel>();
  private active: InspectorPanel | null = null;
  private readonly status = vscode.window.createStatusBarItem('contactLens.frame', vscode.StatusBarAlignment.Right, 100);

  constructor(
    readonly extensionUri: vscode.Uri,
    readonly workerScript: string,
    readonly output: vscode.OutputChannel,
    /** Where recordings' caches go when their folder cannot be written (the extension's storage). */
    readonly cacheDir: string | null = null,
  ) {
    this.status.name = 'Contact Lens frame';
    this.status.command = 'contactLens.goToFrame';
  }

  /** The active inspector, or the last one that was active while it is still open. */
  get current(): InspectorPanel | null {
    return this.active;
  }

  activeChanged(inspector: InspectorPanel, active: boolean): void {
    if (active) this.active = inspector;
    else if (this.active === inspector && ![...this.all].some((i) => i.isActive)) {
      void vscode.commands.executeCommand('setContext', 'contactLens.inspectorActive', false);
      this.status.hide();
      return;
    }
    if (active) void vscode.commands.executeCommand('setContext', 'contactLens.inspectorActive', true);
    this.updateStatus();
  }

  /**
   * A live session grew: the status bar follows its frame count at most every LIVE_STATUS_MS (each refresh is
   * three messages to the window; a 60 Hz stream would send them with every frame).
   */
  liveGrew(inspector: InspectorPanel): void {
    if (inspector !== this.active || this.liveStatus) return;
    this.liveStatus = setTimeout(() => {
      this.liveStatus = null;
      if (this.active === inspector) this.updateStatus();
    }, LIVE_STATUS_MS);
  }
  private liveStatus: NodeJS.Timeout | null = null;

  disposed(inspector: InspectorPanel): void {
    this.all.delete(inspector);
    if (this.active === inspector) {
      this.active = null;
      void vscode.commands.executeCommand('setContext', 'contactLens.inspectorActive', false);
      this.status.hide();
    }
  }

  private updateStatus(): void {
    const i = this.active,
      s = i?.session;
    if (!i || !s) {
      this.status.hide();
      return;
    }
    const k = i.frameIndex,
      n = s.info.frameCount;
    const findings = s.findings.length;
    const live = i.liveState;
    const badge = live?.paused ? '$(debug-pause) paused · ' : live && (live.stream === 'streaming' || live.stream === 'growing') ? '$(broadcast) live · ' : '';
    this.status.text = `${badge}$(pulse) frame ${s.timeline.frame[k]} / ${n} · t = ${s.timeline.time[k].toFixed(3)} s · ${findings} finding${findings === 1 ? '' : 's'}`;
    this.status.tooltip = `${s.info.title} (${s.info.producer}): go to frame…`;
    this.status.show();
  }

  private track(inspector: InspectorPanel): InspectorPanel {
    this.all.add(inspector);
    this.active = inspector;
    void vscode.commands.executeCommand('setContext', 'contactLens.inspectorActive', true);
    return inspector;
  }

  /** Opens (or reveals and re-simulates) the inspector of a scenario; `play` starts playback once shown; `solver` overrides the scenario's. */
  openScenario(file: string, scenario: string, at: number | 'first-finding' | 'last', play = false, solver?: SolverName): InspectorPanel {
    for (const i of this.all) {
      if (i.source.kind === 'scenario' && i.source.file === file && i.source.scenario === scenario) i.panel.dispose();
    }
    const panel = vscode.window.createWebviewPanel(
      INSPECTOR_VIEW_TYPE,
      solver ? `⚙ ${scenario} (${solver})` : `⚙ ${scenario}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      webviewOptions(this.extensionUri),
    );
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
    return this.track(new InspectorPanel(this, panel, { kind: 'scenario', file, scenario, ...(solver ? { solver } : {}) }, at, play));
  }

  /**
   * Contact Lens: Listen for a Live Engine — one listening panel at a time (revealed if open). Writers connect
   * with the environment variable it shows; their recordings go to `folder`.
   */
  listen(folder: string, listening: ListenSetup['listening']): InspectorPanel {
    const open = [...this.all].find((i) => i.isListening);
    if (open) {
      open.panel.reveal();
      return open;
    }
    const panel = vscode.window.createWebviewPanel(
      INSPECTOR_VIEW_TYPE,
      '● Live engine',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      webviewOptions(this.extensionUri),
    );
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
    return this.track(new InspectorPanel(this, panel, { kind: 'recording', file: '' }, 0, false, { folder, listening }));
  }

  /** WebviewPanelSerializer: a scenario panel after a window reload, at the frame it showed. */
  serializer(): vscode.WebviewPanelSerializer<WebviewState> {
    return {
      deserializeWebviewPanel: async (panel, state: unknown) => {
        // the saved state is webview data: restore only a trusted workspace's own scene file (restoredState.ts)
        const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
        const restored = restorablePanel(state, folders, vscode.workspace.isTrusted);
        if (!restored) {
          panel.dispose();
          return;
        }
        this.track(new InspectorPanel(this, panel, restored.source, restored.index));
      },
    };
  }

  /** Read-only custom editor: a recording opens as its inspector. */
  recordingEditor(): vscode.CustomReadonlyEditorProvider {
    return {
      openCustomDocument: (uri) => ({ uri, dispose: () => undefined }),
      resolveCustomEditor: async (doc, panel) => {
        const file = await localFileFor(doc.uri, panel);
        if (file === undefined) return;
        const source: SessionSource = { kind: 'recording', file };
        this.track(new InspectorPanel(this, panel, source, 0));
      },
    };
  }

  /**
   * Read-only custom editor: a problem file (docs/problem-format.md) opens as one frame without bodies.
   * Not a tracked inspector: it has no frames to step, so the frame commands and status bar leave it alone.
   */
  problemEditor(): vscode.CustomReadonlyEditorProvider {
    return {
      openCustomDocument: (uri) => ({ uri, dispose: () => undefined }),
      resolveCustomEditor: async (doc, panel) => {
        const name = doc.uri.path.split('/').pop() || 'problem';
        const file = await localFileFor(doc.uri, panel);
        if (file === undefined) return;
        this.problems.add(new ProblemInspector(this, panel, file, name));
        panel.onDidDispose(() => {
          for (const p of this.problems) if (p.panel === panel) this.problems.delete(p);
        });
      },
    };
  }
  /** Open problem-file panels (closed with the rest when the extension is disposed). */
  private readonly problems = new Set<ProblemInspector>();

  /** What each open problem panel shows (waits for the ones still opening). */
  problemPanels(): Promise<ProblemPanelState[]> {
    return Promise.all([...this.problems].map((p) => p.state()));
  }

  dispose(): void {
    if (this.liveStatus) clearTimeout(this.liveStatus);
    for (const p of [...this.problems]) p.panel.dispose();
    for (const i of [...this.all]) i.panel.dispose();
    this.status.dispose();
  }
}
