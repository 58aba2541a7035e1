/**
 * Test Explorer: every scenario with expectations is a test (children of its scene file). Run = check it
 * in the worker (expectations + energy diagnosis); a failure points at the failed expectation's range.
 * Debug = the same check, then the inspector opens at the first finding / failing frame.
 */
import * as vscode from 'vscode';
import type { SceneAnalyzer } from './sceneAnalysis.js';
import type { SceneAnalysis } from './worker/workerProtocol.js';
import type { CheckRunner } from './checkRunner.js';
import { failingFindings, outcomePassed } from './checkOutcomes.js';
import { SCENE_GLOB, toRange } from './ranges.js';
import { recordCallbackTime, timedCallback } from './callbackTimes.js';
import { performance } from 'node:perf_hooks';
import type { OpenInspectors } from './openInspectors.js';

export class SceneTests implements vscode.Disposable {
  readonly controller = vscode.tests.createTestController('contactLens', 'Contact Lens scenarios');
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly checks: CheckRunner,
    private readonly inspectors: OpenInspectors,
    private readonly analyzer: SceneAnalyzer,
  ) {
    const c = this.controller;
    c.resolveHandler = async (item) => {
      if (!item) await this.discoverAll();
    };
    c.createRunProfile('Check', vscode.TestRunProfileKind.Run, (req, token) => this.run(req, token, false), true);
    c.createRunProfile('Check and inspect', vscode.TestRunProfileKind.Debug, (req, token) => this.run(req, token, true), true);
    const watcher = vscode.workspace.createFileSystemWatcher(SCENE_GLOB);
    this.subs.push(
      watcher,
      watcher.onDidCreate((u) => void this.discoverFile(u)),
      watcher.onDidChange((u) => void this.discoverFile(u)),
      watcher.onDidDelete((u) => c.items.delete(u.toString())),
      vscode.workspace.onDidChangeTextDocument(
        timedCallback('tests: document changed', (e: vscode.TextDocumentChangeEvent) => {
          if (e.document.uri.path.endsWith('.scene.json')) void this.update(e.document.uri, this.analyzer.analyze(e.document));
        }),
      ),
    );
  }

  async discoverAll(): Promise<void> {
    // Restricted Mode (package.json capabilities): workspace files are not searched and parsed in the background
    if (!vscode.workspace.isTrusted) return;
    const files = await vscode.workspace.findFiles(SCENE_GLOB, '**/node_modules/**');
    await Promise.all(files.map((f) => this.discoverFile(f)));
  }

  private async discoverFile(uri: vscode.Uri): Promise<void> {
    if (!vscode.workspace.isTrusted) return;
    try {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      const text = open ? open.getText() : Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
      await this.update(uri, open ? this.analyzer.analyze(open) : this.analyzer.analyzeText(uri, text));
    } catch {
      this.controller.items.delete(uri.toString());
    }
  }

  /** Scenarios with expectations become children; an unparsable file keeps its outline (names only). */
  private async update(uri: vscode.Uri, analysis: Promise<SceneAnalysis>): Promise<void> {
    let entries: { name: string; range: vscode.Range }[];
    try {
      entries = (await analysis).tests.map((t) => ({ name: t.name, range: toRange(t.range) }));
    } catch {
      return;
    }
    const t0 = performance.now();
    try {
      this.apply(uri, entries);
    } finally {
      recordCallbackTime('tests: update', performance.now() - t0);
    }
  }

  private apply(uri: vscode.Uri, entries: { name: string; range: vscode.Range }[]): void {
    const c = this.controller;
    if (entries.length === 0) {
      c.items.delete(uri.toString());
      return;
    }
    let file = c.items.get(uri.toString());
    if (!file) {
      file = c.createTestItem(uri.toString(), uri.path.split('/').pop() ?? uri.path, uri);
      c.items.add(file);
    }
    file.children.replace(
      entries.map((e) => {
        const t = c.createTestItem(`${uri.toString()}#${e.name}`, e.name, uri);
        t.range = e.range;
        return t;
      }),
    );
  }

  private async run(req: vscode.TestRunRequest, token: vscode.CancellationToken, inspect: boolean): Promise<void> {
    const run = this.controller.createTestRun(req);
    const queue: vscode.TestItem[] = [];
    const add = (i: vscode.TestItem): void => {
      if (i.children.size) i.children.forEach(add);
      else queue.push(i);
    };
    if (req.include) req.include.forEach(add);
    else this.controller.items.forEach(add);
    const excluded = new Set((req.exclude ?? []).map((i) => i.id));
    try {
      for (const item of queue) {
        if (token.isCancellationRequested) {
          run.skipped(item);
          continue;
        }
        if (excluded.has(item.id) || !item.uri) continue;
        const name = item.id.slice(item.id.indexOf('#') + 1);
        run.started(item);
        const t0 = Date.now();
        try {
          const doc = await vscode.workspace.openTextDocument(item.uri);
          const checks = await this.checks.check(doc, name, token);
          if (!checks) {
            run.skipped(item);
            continue;
          }
          const c = checks[0];
          if (outcomePassed(c)) run.passed(item, Date.now() - t0);
          else {
            const msgs: vscode.TestMessage[] = [];
            c.expectations
              .filter((x) => !x.ok)
              .forEach((x) => {
                const m = new vscode.TestMessage(`${x.kind}: ${x.message}`);
                m.location = new vscode.Location(item.uri!, toRange(c.expectationRanges[x.index] ?? c.range));
                msgs.push(m);
              });
            failingFindings(c).forEach((f) => {
              const m = new vscode.TestMessage(
                `${f.mechanism}: ${f.kind === 'injection' || f.kind === undefined ? `+${f.joules.toPrecision(3)} J ` : ''}at frame ${f.frame}${f.contacts.length ? `, contact ${f.contacts.join(', ')}` : ''} — ${f.headline ?? f.explanation}${f.evidence?.length ? `\n${f.evidence.join('\n')}` : ''}`,
              );
              m.location = new vscode.Location(item.uri!, toRange(c.range));
              msgs.push(m);
            });
            run.failed(item, msgs, Date.now() - t0);
            if (inspect) {
              // frames are numbered from 0: frame k is session index k
              const failFrame = failingFindings(c)[0]?.index ?? Math.max(0, c.expectations.find((x) => !x.ok)?.frame ?? 0);
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

  dispose(): void {
    this.subs.forEach((s) => s.dispose());
    this.controller.dispose();
  }
}
