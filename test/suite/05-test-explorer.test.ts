import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activeExtension, poll, scanScenarios } from './helpers';

const items = (c: vscode.TestItemCollection): vscode.TestItem[] => {
  const out: vscode.TestItem[] = [];
  c.forEach((i) => out.push(i));
  return out;
};

suite('Test Explorer', () => {
  test('the contactLens TestController has one item per scene file with its scenarios (with expectations) as children', async () => {
    const ext = await activeExtension();
    const ctrl = ext.exports?.testController;
    assert.ok(ctrl, 'exports.testController is missing');
    assert.equal(ctrl.id, 'contactLens');

    // Expected, independently: every *.scene.json in the workspace, scenarios that have expectations.
    const files = await vscode.workspace.findFiles('**/*.scene.json');
    assert.ok(files.length > 0, 'no scene files in the workspace');
    const expected = new Map<string, string[]>();
    for (const f of files) {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(f));
      expected.set(
        f.toString(),
        scanScenarios(text)
          .filter((s) => s.hasExpectations)
          .map((s) => s.name)
          .sort(),
      );
    }

    const nameOf = (i: vscode.TestItem) => i.label;
    const snapshot = () => items(ctrl.items).map((i) => `${i.uri?.path.split('/').pop()}: [${items(i.children).map(nameOf).join(', ')}]`);
    let resolved = false;
    await poll(
      async () => {
        // Lazy controllers discover files/children in resolveHandler: ask once, like the Test Explorer does.
        if (!resolved && ctrl.resolveHandler) {
          resolved = true;
          await ctrl.resolveHandler(undefined);
          for (const i of items(ctrl.items)) if (i.canResolveChildren && i.children.size === 0) await ctrl.resolveHandler(i);
        }
        const got = items(ctrl.items);
        return (
          got.length === expected.size &&
          got.every(
            (i) =>
              i.uri &&
              expected.has(i.uri.toString()) &&
              JSON.stringify(items(i.children).map(nameOf).sort()) === JSON.stringify(expected.get(i.uri.toString())),
          )
        );
      },
      'the test items to match the scene files and their scenarios',
      20_000,
      () => `${JSON.stringify(snapshot())}; expected ${JSON.stringify([...expected].map(([u, n]) => `${u.split('/').pop()}: [${n.join(', ')}]`))}`,
    );

    for (const file of items(ctrl.items)) {
      const spans = scanScenarios(new TextDecoder().decode(await vscode.workspace.fs.readFile(file.uri!)));
      for (const child of items(file.children)) {
        assert.ok(child.uri, `${child.id} has no uri`);
        assert.equal(child.uri.toString(), file.uri!.toString(), `${child.id}: uri of its scene file`);
        assert.ok(child.range, `${child.id} has no range`);
        const span = spans.find((s) => s.name === child.label)!;
        assert.ok(
          child.range.start.line >= span.startLine && child.range.start.line <= span.endLine,
          `${child.id}: range starts on line ${child.range.start.line + 1}, scenario spans ${span.startLine + 1}–${span.endLine + 1}`,
        );
      }
    }
  });
});
