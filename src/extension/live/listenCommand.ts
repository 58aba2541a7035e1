/**
 * Contact Lens: Listen for a Live Engine (docs/live-protocol.md). Off until the user runs it; in Restricted
 * Mode it asks first. The listener binds 127.0.0.1 on a port the system picks and accepts a writer only with
 * the one-time token, so the command shows the one line a writer needs (CONTACT_LENS_LIVE=…), offers to copy
 * it, and sets it in the integrated terminals opened from now on (removed when the panel closes).
 */
import * as vscode from 'vscode';
import * as path from 'node:path';
import type { OpenInspectors } from '../openInspectors.js';

/** Where live recordings go: the first workspace folder's .contact-lens/live, else the extension's storage. */
export function liveFolder(storage: vscode.Uri): string {
  const ws = (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.scheme === 'file');
  return ws ? path.join(ws.uri.fsPath, '.contact-lens', 'live') : path.join(storage.fsPath, 'live');
}

export function registerListenCommand(inspectors: OpenInspectors, context: vscode.ExtensionContext): vscode.Disposable {
  return vscode.commands.registerCommand('contactLens.listenLive', async () => {
    const folder = liveFolder(context.globalStorageUri);
    if (!vscode.workspace.isTrusted) {
      const go = 'Start Listening';
      const pick = await vscode.window.showWarningMessage(
        'Contact Lens: listen for a live engine in Restricted Mode?',
        {
          modal: true,
          detail: `Contact Lens will listen on 127.0.0.1 (this machine only) for a physics engine that presents a one-time token, and write what it streams to ${folder}. Nothing from the stream is run.`,
        },
        go,
      );
      if (pick !== go) return undefined;
    }
    const env = context.environmentVariableCollection;
    let value: string | undefined;
    const panel = inspectors.listen(folder, (l) => {
      value = l.value;
      env.persistent = false;
      env.replace(l.variable, l.value);
      const copy = 'Copy Environment Variable';
      void vscode.window
        .showInformationMessage(
          `Contact Lens is listening: run your engine with ${l.variable} set (new terminals have it). Recordings go to ${l.folder}.`,
          copy,
        )
        .then((c) => (c === copy ? vscode.env.clipboard.writeText(`${l.variable}=${l.value}`) : undefined));
    });
    panel.panel.onDidDispose(() => {
      if (value !== undefined && env.get('CONTACT_LENS_LIVE')?.value === value) env.delete('CONTACT_LENS_LIVE');
    });
    return { folder };
  });
}
