import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activeExtension, closeAllEditors, say, wsUri } from './helpers';

/** Largest event-loop delay allowed while a simulation runs (issue: never blocked > 50 ms). */
const MAX_EVENT_LOOP_DELAY_MS = 50;

suite('Responsiveness', function () {
  this.timeout(180_000);
  suiteTeardown(closeAllEditors);

  test('a long check (pyramid-20) runs in the worker: the extension host event loop is never blocked > 50 ms', async () => {
    const api = (await activeExtension()).exports as unknown as {
      resetEventLoopDelay(): void; eventLoopDelay(): { maxMs: number; meanMs: number; p99Ms: number };
    };
    const uri = wsUri('pyramid-20.scene.json');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    api.resetEventLoopDelay();
    const t0 = Date.now();
    const r = await vscode.commands.executeCommand<{ scenario: string }>('contactLens.checkScenario', uri, 'pyramid-20');
    const ms = Date.now() - t0;
    const d = api.eventLoopDelay();
    say(`    check of pyramid-20 (120 frames, ~1500 contacts) took ${ms} ms; event loop delay max ${d.maxMs.toFixed(1)} ms, p99 ${d.p99Ms.toFixed(1)} ms, mean ${d.meanMs.toFixed(1)} ms`);
    assert.equal(r?.scenario, 'pyramid-20');
    assert.ok(ms > 2000, `the check should be long enough to matter (${ms} ms)`);
    assert.ok(d.maxMs < MAX_EVENT_LOOP_DELAY_MS, `event loop blocked for ${d.maxMs.toFixed(1)} ms`);
  });
});
