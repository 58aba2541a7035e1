import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activeExtension, allTabs, closeAllEditors, poll, wsUri } from './helpers';

const describeTabs = () =>
  JSON.stringify(
    allTabs().map((t) => {
      const i = t.input as { viewType?: string } | undefined;
      return `${t.label} (${t.input?.constructor?.name ?? 'no input'}${i?.viewType ? ` ${i.viewType}` : ''})`;
    }),
  );

suite('custom editor and inspector panel', () => {
  suiteSetup(async () => {
    await activeExtension();
    await closeAllEditors();
  });
  teardown(closeAllEditors);

  test('a recording opens in the contactLens.recording custom editor', async () => {
    const uri = wsUri('foreign-engine.rec.jsonl');
    // Not awaited on its own: with no provider registered for the viewType, openWith never settles.
    let openError: unknown;
    void Promise.resolve(vscode.commands.executeCommand('vscode.openWith', uri, 'contactLens.recording')).catch((e) => {
      openError = e;
    });
    const tab = await poll(
      () => {
        if (openError) throw openError;
        return allTabs().find((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === 'contactLens.recording');
      },
      'a TabInputCustom tab with viewType contactLens.recording',
      20_000,
      () => `${describeTabs()}${openError ? `; openWith failed: ${openError}` : ''}`,
    );
    assert.equal((tab.input as vscode.TabInputCustom).uri.toString(), uri.toString());
  });

  test('contactLens.inspectScenario opens the inspector webview; contactLens.stepForward advances by one frame', async () => {
    const uri = wsUri('sphere-drop.scene.json');
    await vscode.commands.executeCommand('contactLens.inspectScenario', uri, 'sphere-drop');
    const tab = await poll(
      () => allTabs().find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes('contactLens.inspector')),
      'a TabInputWebview tab whose viewType contains contactLens.inspector',
      20_000,
      describeTabs,
    );
    assert.ok(tab.isActive, 'the new inspector tab should be active');
    // The panel needs its session (first simulation) before it can step; until then stepForward answers with the
    // unchanged index. Poll until one step moves by exactly one frame, then check one more step.
    const step = async () => {
      const r = await vscode.commands.executeCommand<unknown>('contactLens.stepForward');
      assert.ok(r && typeof (r as { index?: unknown }).index === 'number', `stepForward returned ${JSON.stringify(r)}, expected { index: number }`);
      return (r as { index: number }).index;
    };
    const seen: number[] = [];
    const ready = await poll(
      async () => {
        const a = await step();
        const b = await step();
        seen.push(a, b);
        return b === a + 1 ? b : undefined;
      },
      'contactLens.stepForward to advance the index by one',
      30_000,
      () => `indices returned: ${JSON.stringify(seen.slice(-10))}`,
    );
    const next = await step();
    assert.equal(next, ready + 1, `stepForward: ${ready} → ${next}`);
  });
});
