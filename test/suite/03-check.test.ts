import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activeExtension, closeAllEditors, describeLenses, lensesByLine, poll, say, scanScenarios, wsUri } from './helpers';

interface CheckResult {
  scenario: string;
  passed: boolean;
  findings: number;
  message: string;
}

function assertCheckResult(r: unknown, scenario: string): asserts r is CheckResult {
  assert.ok(r && typeof r === 'object', `checkScenario returned ${JSON.stringify(r)}`);
  const x = r as Record<string, unknown>;
  assert.equal(x.scenario, scenario);
  assert.equal(typeof x.passed, 'boolean', `passed: ${JSON.stringify(x.passed)}`);
  assert.equal(typeof x.findings, 'number', `findings: ${JSON.stringify(x.findings)}`);
  assert.equal(typeof x.message, 'string', `message: ${JSON.stringify(x.message)}`);
}

suite('Check', () => {
  suiteSetup(async () => {
    await activeExtension();
  });
  suiteTeardown(closeAllEditors);

  test('contactLens.checkScenario on sphere-drop resolves to a passing result and the lens shows ✓/⚠', async () => {
    const uri = wsUri('sphere-drop.scene.json');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const r = await vscode.commands.executeCommand<unknown>('contactLens.checkScenario', uri, 'sphere-drop');
    assertCheckResult(r, 'sphere-drop');
    assert.equal(r.passed, true, `sphere-drop's expectations hold (CLI check passes): ${r.message}`);
    const line = scanScenarios(doc.getText()).find((s) => s.name === 'sphere-drop')!.startLine;
    let last: vscode.CodeLens[] = [];
    await poll(
      async () => {
        last = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
        return (lensesByLine(last).get(line) ?? []).some((t) => t.startsWith('✓') || t.startsWith('⚠'));
      },
      `a ✓/⚠ lens on line ${line + 1} after the check`,
      20_000,
      () => describeLenses(last),
    );
  });

  test('fault-restitution-target: check fails with findings and a restitution-overshoot diagnostic inside the scenario', async () => {
    const uri = wsUri('fault-restitution-target.scene.json');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const name = 'fault-restitution-target-sphere';
    const span = scanScenarios(doc.getText()).find((s) => s.name === name);
    assert.ok(span, `scenario ${name} not found in the file`);
    const r = await vscode.commands.executeCommand<unknown>('contactLens.checkScenario', uri, name);
    assertCheckResult(r, name);
    assert.equal(r.passed, false, `the deliberate fault must fail its energyNonIncreasing expectation: ${r.message}`);
    assert.ok(r.findings > 0, `expected findings > 0, got ${r.findings}`);
    const scenarioRange = new vscode.Range(span.startLine, 0, span.endLine, Number.MAX_SAFE_INTEGER);
    let diags: vscode.Diagnostic[] = [];
    const d = await poll(
      () => {
        diags = vscode.languages.getDiagnostics(uri);
        return diags.find((x) => x.message.includes('restitution-overshoot') && scenarioRange.contains(x.range));
      },
      'a restitution-overshoot diagnostic inside the scenario',
      20_000,
      () => JSON.stringify(diags.map((x) => `${x.range.start.line + 1}-${x.range.end.line + 1}: ${x.message}`)),
    );
    say(`      diagnostic at line ${d.range.start.line + 1}: ${d.message.split('\n')[0]}`);
  });

  test('a scene file with a schema error ("mass": -1) gets a diagnostic on that line', async () => {
    const uri = wsUri('bad.scene.json');
    const text = [
      '{',
      '  "scenarios": [',
      '    {',
      '      "name": "bad-mass",',
      '      "frames": 10,',
      '      "bodies": [',
      '        { "name": "ground", "shape": { "plane": { "normal": [0, 0, 1], "offset": 0 } }, "static": true },',
      '        {',
      '          "name": "ball",',
      '          "shape": { "sphere": { "radius": 0.1 } },',
      '          "mass": -1,',
      '          "position": [0, 0, 1]',
      '        }',
      '      ],',
      '      "expectations": [{ "kind": "noSolverFailures" }]',
      '    }',
      '  ]',
      '}',
      '',
    ].join('\n');
    const massLine = text.split('\n').findIndex((l) => l.includes('"mass": -1'));
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      let diags: vscode.Diagnostic[] = [];
      // Not the JSON language service's schema check (source "json"): the extension's own diagnostic.
      await poll(
        () => {
          diags = vscode.languages.getDiagnostics(uri);
          return diags.find((x) => x.source !== 'json' && x.range.start.line === massLine);
        },
        `a Contact Lens diagnostic on line ${massLine + 1} ("mass": -1)`,
        20_000,
        () => JSON.stringify(diags.map((x) => `[${x.source}] ${x.range.start.line + 1}: ${x.message}`)),
      );
    } finally {
      await closeAllEditors();
      await vscode.workspace.fs.delete(uri);
    }
  });
});
