import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID, activeExtension, say } from './helpers';

suite('activation', () => {
  test(`${EXTENSION_ID} is present, activates, and its own activation work takes < 50 ms`, async () => {
    const ext = await activeExtension();
    assert.equal(ext.id, EXTENSION_ID);
    const ms = ext.exports?.activationTimeMs;
    assert.equal(typeof ms, 'number', `exports.activationTimeMs should be a number, got ${JSON.stringify(ms)}`);
    say(`      activationTimeMs = ${ms.toFixed(2)} ms`);
    assert.ok(Number.isFinite(ms) && ms >= 0, `activationTimeMs ${ms} is not a duration`);
    assert.ok(ms < 50, `activation took ${ms} ms (budget 50 ms)`);
  });

  test('every command in contributes.commands is registered', async () => {
    const ext = await activeExtension();
    const contributed: string[] = (ext.packageJSON.contributes?.commands ?? []).map((c: { command: string }) => c.command);
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });
});
