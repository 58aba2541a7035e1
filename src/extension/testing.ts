/**
 * Test Explorer: every scenario with expectations is a test (children of its scene file). Run = check it
 * in the worker (expectations + energy diagnosis); a failure points at the failed expectation's range.
 * Debug = the same check, then the inspector opens at the first finding / failing frame.
 */
import * as vscode from 'vscode';
import { parseSceneFile, scenarioRanges } from '../format/scene.js';
import type { CheckRunner } from './checkRunner.js';
import { outcomePassed } from './checkOutcomes.js';
import { SCENE_GLOB, toRange } from './ranges.js';
import type { Inspectors } from './inspectors.js';

export class SceneTests implements vscode.Disposable {
  readonly controller = vscode.tests.createTestController('contactLens', 'Contact Lens scenarios');
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly checks: CheckRunner, private readonly inspectors: Inspectors) {
    const c = this.controller;
    c.resolveHandler = async (item) => { if (!item) await this.discoverAll(); };
    c.createRunProfile('Check', vscode.TestRunProfileKind.Run, (req, token) => this.run(req, token, false), true);
    c.createRunProfile('Check and inspect', vscode.TestRunProfileKind.Debug, (req, token) => this.run(req, token, true), true);
    const watcher = vscode.workspace.createFileSystemWatcher(SCENE_GLOB);
    this.subs.push(watcher,
      watcher.onDidCreate((u) => void this.discoverFile(u)), watcher.onDidChange((u) => void this.discoverFile(u)),
      watcher.onDidDelete((u) => c.items.delete(u.toString())),
      vscode.workspace.onDidChangeTextDocument((e) => { if (e.document.uri.path.endsWith('.scene.json')) this.updateFromText(e.document.uri, e.document.getText()); }));
  }

  async discoverAll(): Promise<void> {
    const files = await vscode.workspace.findFiles(SCENE_GLOB, '**/node_modules/**');
    await Promise.all(files.map((f) => this.discoverFile(f)));
  }

  private async discoverFile(uri: vscode.Uri): Promise<void> {
    try {
      const bytes = await vscode.workspace.fs.readFile(uri);
      this.updateFromText(uri, Buffer.from(bytes).toString('utf8'));
    } catch { this.controller.items.delete(uri.toString()); }
  }

  /** Scenarios with expectations become children; an unparsable file keeps its outline (names only). */
  private updateFromText(uri: vscode.Uri, text: string): void {
    const c = this.controller;
    let entries: { name: string; range: vscode.Range }[];
    try {
      entries = parseSceneFile(text, uri.fsPath).scenarios.filter((s) => s.expectations.length > 0).map((s) => ({ name: s.desc.name, range: toRange(s.range) }));
    } catch {
      entries = scenarioRanges(text).filter((s) => s.name).map((s) => ({ name: s.name!, range: toRange(s.range) }));
    }
    if (entries.length === 0) { c.items.delete(uri.toString()); return; }
    let file = c.items.get(uri.toString());
    if (!file) {
      file = c.createTestItem(uri.toString(), uri.path.split('/').pop() ?? uri.path, uri);
      c.items.add(file);
    }
    file.children.replace(entries.map((e) => {
      const t = c.createTestItem(`${uri.toString()}#${e.name}`, e.name, uri);
      t.range = e.range;
      return t;
    }));
  }

  private async run(req: vscode.TestRunRequest, token: vscode.CancellationToken, inspect: boolean): Promise<void> {
    const run = this.controller.createTestRun(req);
    const queue: vscode.TestItem[] = [];
    const add = (i: vscode.TestItem): void => { if (i.children.size) i.children.forEach(add); else queue.push(i); };
    if (req.include) req.include.forEach(add); else this.controller.items.forEach(add);
    const excluded = new Set((req.exclude ?? []).map((i) => i.id));
    try {
      for (const item of queue) {
        if (token.isCancellationRequested) { run.skipped(item); continue; }
        if (excluded.has(item.id) || !item.uri) continue;
        const name = item.id.slice(item.id.indexOf('#') + 1);
        run.started(item);
        const t0 = Date.now();
        try {
          const doc = await vscode.workspace.openTextDocument(item.uri);
          const checks = await this.checks.check(doc, name, token);
          if (!checks) { run.skipped(item); continue; }
          const c = checks[0];
          if (outcomePassed(c)) run.passed(item, Date.now() - t0);
          else {
            const msgs: vscode.TestMessage[] = [];
            c.expectations.filter((x) => !x.ok).forEach((x) => {
              const m = new vscode.TestMessage(`${x.kind}: ${x.message}`);
              m.location = new vscode.Location(item.uri!, toRange(c.expectationRanges[x.index] ?? c.range));
              msgs.push(m);
            });
            c.findings.forEach((f) => {
              const m = new vscode.TestMessage(`${f.mechanism}: +${f.joules.toPrecision(3)} J at frame ${f.frame}${f.contacts.length ? `, contact ${f.contacts.join(', ')}` : ''} — ${f.explanation}`);
              m.location = new vscode.Location(item.uri!, toRange(c.range));
              msgs.push(m);
            });
            run.failed(item, msgs, Date.now() - t0);
            if (inspect) {
              const failFrame = c.findings[0]?.index ?? Math.max(0, (c.expectations.find((x) => !x.ok)?.frame ?? 1) - 1);
              this.inspectors.openScenario(item.uri.fsPath, name, failFrame);
            }
          }
          run.appendOutput(`${name}: ${c.frames} frames in ${(c.timeMs / 1000).toFixed(2)} s\r\n`);
        } catch (e) {
          run.errored(item, new vscode.TestMessage((e as Error).message));
        }
      }
    } finally {
      run.end();
    }
  }

  dispose(): void { this.subs.forEach((s) => s.dispose()); this.controller.dispose(); }
}
