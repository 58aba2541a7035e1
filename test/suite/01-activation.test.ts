import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID, activeExtension, say } from './helpers';

/** Our own activation work (CPU time of the host thread). */
const ACTIVATION_BUDGET_MS = 50;
/** Wall time of activate(), scheduling stalls included. */
const ACTIVATION_WALL_LIMIT_MS = 250;

suite('activation', () => {
  test(`${EXTENSION_ID} is present, activates, and its own activation work takes < 50 ms`, async () => {
    const ext = await activeExtension();
    assert.equal(ext.id, EXTENSION_ID);
    const ms = ext.exports?.activationTimeMs,
      cpu = ext.exports?.activationCpuMs;
    assert.equal(typeof ms, 'number', `exports.activationTimeMs should be a number, got ${JSON.stringify(ms)}`);
    say(`      activationTimeMs = ${ms.toFixed(2)} ms, activationCpuMs = ${cpu?.toFixed(2) ?? 'not measurable'}`);
    assert.ok(Number.isFinite(ms) && ms >= 0, `activationTimeMs ${ms} is not a duration`);
    // The budget is on our work: the host thread's CPU time in activate(). Wall time also counts the time the
    // thread was not scheduled (2 shared cores: one run measured 126 ms wall for ~8 ms of work), so it gets a
    // looser bound that still catches activation waiting on I/O or a worker.
    if (cpu !== null) {
      assert.ok(Number.isFinite(cpu) && cpu >= 0 && cpu <= ms + 1, `activationCpuMs ${cpu} is not a CPU time within the wall time ${ms}`);
      assert.ok(cpu < ACTIVATION_BUDGET_MS, `activation used ${cpu.toFixed(1)} ms of CPU (budget ${ACTIVATION_BUDGET_MS} ms)`);
      assert.ok(ms < ACTIVATION_WALL_LIMIT_MS, `activation took ${ms.toFixed(1)} ms of wall time (limit ${ACTIVATION_WALL_LIMIT_MS} ms)`);
    } else assert.ok(ms < ACTIVATION_BUDGET_MS, `activation took ${ms.toFixed(1)} ms (budget ${ACTIVATION_BUDGET_MS} ms)`);
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
