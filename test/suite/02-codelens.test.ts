import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { LENS_PREFIXES, closeAllEditors, codeLenses, describeLenses, lensesByLine, poll, scanScenarios, wsUri, activeExtension } from './helpers';

/** Asserts that every scenario's `{` line carries exactly the four lenses, in order. */
function assertScenarioLenses(doc: vscode.TextDocument, lenses: readonly vscode.CodeLens[]): void {
  const scenarios = scanScenarios(doc.getText());
  assert.ok(scenarios.length > 0, 'no scenarios found in the document');
  const byLine = lensesByLine(lenses);
  for (const s of scenarios) {
    const titles = byLine.get(s.startLine) ?? [];
    assert.equal(
      titles.length,
      LENS_PREFIXES.length,
      `scenario ${s.name}: expected ${LENS_PREFIXES.length} lenses on line ${s.startLine + 1}, got ${JSON.stringify(titles)}; all: ${describeLenses(lenses)}`,
    );
    LENS_PREFIXES.forEach((p, i) =>
      assert.ok(titles[i].startsWith(p), `scenario ${s.name}: lens ${i + 1} is "${titles[i]}", expected it to start with "${p}"`),
    );
  }
}

suite('CodeLens on scene files', () => {
  suiteSetup(async () => {
    await activeExtension();
  });
  suiteTeardown(closeAllEditors);

  test("sphere-drop.scene.json: ▶ Run / ⏯ Step / 🔍 Inspect / ⚡ Check / ⇄ Diff / ⚖ Compare engines on each scenario's opening line", async () => {
    const uri = wsUri('sphere-drop.scene.json');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const scenarios = scanScenarios(doc.getText());
    assert.equal(scenarios.length, 3, `sphere-drop.scene.json should have 3 scenarios, found ${scenarios.map((s) => s.name)}`);
    const lenses = await codeLenses(uri, LENS_PREFIXES.length * scenarios.length, 20_000);
    assertScenarioLenses(doc, lenses);
  });

  test('inserting lines at the top (unsaved edit) moves the lenses with their scenarios', async () => {
    const uri = wsUri('sphere-drop.scene.json');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const before = scanScenarios(doc.getText()).map((s) => s.startLine);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(0, 0), '\n\n\n');
    assert.ok(await vscode.workspace.applyEdit(edit), 'applyEdit failed');
    try {
      assert.ok(doc.isDirty, 'the edit should leave the document unsaved');
      const after = scanScenarios(doc.getText()).map((s) => s.startLine);
      assert.deepEqual(
        after,
        before.map((l) => l + 3),
        'independent scan of the edited text',
      );
      let last: vscode.CodeLens[] = [];
      await poll(
        async () => {
          last = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
          const lines = new Set(last.map((l) => l.range.start.line));
          return after.every((l) => lines.has(l)) && before.every((l) => after.includes(l) || !lines.has(l));
        },
        'lenses on the shifted scenario lines',
        20_000,
        () => describeLenses(last),
      );
      assertScenarioLenses(doc, last);
    } finally {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await poll(() => !doc.isDirty, 'the edited document to be reverted', 10_000);
    }
  });
});
