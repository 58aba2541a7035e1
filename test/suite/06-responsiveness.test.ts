import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activeExtension, closeAllEditors, say, sleep, wsUri } from './helpers';

/** Longest our code may run on the extension host's event loop at a time (issue: never blocked > 50 ms). */
const MAX_BLOCK_MS = 50;
/** Frames of the pyramid-20 scenario (examples/pyramid-20.scene.json: 2 s at 60 Hz). */
const PYRAMID_FRAMES = 120;
/** Length of the idle baseline window before the check (about as long as the check). */
const IDLE_BASELINE_MS = 4000;

interface Api {
  resetEventLoopDelay(): void;
  eventLoopDelay(): { maxMs: number; meanMs: number; p99Ms: number };
  resetCallbackTimes(): void;
  callbackTimes(): { maxMs: number; worst: string; byEntry: Record<string, number>; calls: Record<string, number> };
}
const api = async () => (await activeExtension()).exports as unknown as Api;
const reset = (a: Api) => {
  a.resetEventLoopDelay();
  a.resetCallbackTimes();
};
const describe = (a: Api) => {
  const own = a.callbackTimes(),
    loop = a.eventLoopDelay();
  return {
    own,
    loop,
    text: `our longest callback ${own.maxMs.toFixed(1)} ms (${own.worst || '—'}); whole-host event-loop delay max ${loop.maxMs.toFixed(1)} ms, p99 ${loop.p99Ms.toFixed(1)} ms`,
  };
};

suite('Responsiveness', function () {
  this.timeout(180_000);
  suiteTeardown(closeAllEditors);

  test('a long check (pyramid-20) runs in the worker: our code never blocks the host event loop > 50 ms', async () => {
    const a = await api();
    const uri = wsUri('pyramid-20.scene.json');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await sleep(2000); // let the editor settle (the JSON language client reacts to the opened file)
    // Baseline: the same editor state with nothing of ours running, for as long as a check usually takes.
    reset(a);
    await sleep(IDLE_BASELINE_MS);
    const idle = describe(a);
    reset(a);
    const t0 = Date.now();
    const r = await vscode.commands.executeCommand<{ scenario: string; frames: number; workerMs: number }>('contactLens.checkScenario', uri, 'pyramid-20');
    const ms = Date.now() - t0;
    const d = describe(a);
    const replies = d.own.calls['worker reply'] ?? 0;
    say(
      `    idle for ${IDLE_BASELINE_MS} ms (baseline): whole-host event-loop delay max ${idle.loop.maxMs.toFixed(1)} ms, p99 ${idle.loop.p99Ms.toFixed(1)} ms`,
    );
    say(
      `    check of pyramid-20 (${r?.frames} frames, ~1500 contacts) took ${ms} ms (${r?.workerMs.toFixed(0)} ms in the worker); ${d.text}; ${replies} worker messages`,
    );
    assert.equal(r?.scenario, 'pyramid-20');
    // The workload is fixed by construction (every frame of the scenario simulated and diagnosed), whatever
    // the machine's speed; the assertions below are on our code's callbacks and messages, not on durations.
    assert.equal(r?.frames, PYRAMID_FRAMES, 'the check ran the whole scenario in the worker');
    assert.ok(d.own.maxMs < MAX_BLOCK_MS, `our code ran ${d.own.maxMs.toFixed(1)} ms at once in ${d.own.worst}`);
    // What reaches the host besides our timed callbacks is the worker's messages (deserialised on the host
    // thread): a few progress updates and one result, never a message per contact or per iteration. Their
    // cost on an otherwise idle loop is asserted in test/unit/simulation-worker.test.ts. The whole-host delay
    // above is printed, not asserted: it is mostly VS Code's own work (the second test's plain-.json baseline
    // shows p99 up to ~100 ms with no Contact Lens code running) and the load of the shared machine.
    assert.ok(
      replies >= 2 && replies <= PYRAMID_FRAMES,
      `${replies} worker messages for a ${PYRAMID_FRAMES}-frame check (expected progress + result, at most one per frame)`,
    );
  });

  test('opening and editing the 1000-box scene file (214 KB): our code never runs > 50 ms at once', async () => {
    // The whole-host delay is printed for context: VS Code's own JSON language client (same host) blocks
    // 70–210 ms when this file opens and ~100 ms per edit, also for a plain .json copy without Contact Lens.
    const a = await api();
    const uri = wsUri('box-pile-1000.scene.json');
    // Baseline: the same text as a plain .json file (no lenses, no scene analysis): what the host does anyway.
    const plain = wsUri('box-pile-1000-copy.json');
    await vscode.workspace.fs.writeFile(plain, await vscode.workspace.fs.readFile(uri));
    reset(a);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(plain));
    await sleep(1500);
    const baseline = describe(a);
    await closeAllEditors();
    await vscode.workspace.fs.delete(plain);
    await sleep(500);
    reset(a);
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await sleep(1500);
    const open = describe(a);
    reset(a);
    for (let k = 0; k < 5; k++) {
      await editor.edit((e) => e.insert(new vscode.Position(1, 0), ' '));
      await sleep(400); // past the validation debounce: every edit is re-analysed and re-outlined
    }
    await sleep(1000);
    const typing = describe(a);
    say(
      `    the same 214 KB as a plain .json (baseline, VS Code's JSON support only): whole-host event-loop delay max ${baseline.loop.maxMs.toFixed(1)} ms, p99 ${baseline.loop.p99Ms.toFixed(1)} ms`,
    );
    say(`    box-pile-1000.scene.json open: ${open.text}`);
    say(`    5 edits: ${typing.text}; per entry ${JSON.stringify(Object.fromEntries(Object.entries(typing.own.byEntry).map(([k, v]) => [k, +v.toFixed(2)])))}`);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    assert.ok(open.own.maxMs < MAX_BLOCK_MS, `opening: our code ran ${open.own.maxMs.toFixed(1)} ms at once in ${open.own.worst}`);
    assert.ok(typing.own.maxMs < MAX_BLOCK_MS, `editing: our code ran ${typing.own.maxMs.toFixed(1)} ms at once in ${typing.own.worst}`);
    assert.ok((typing.own.byEntry['code lenses'] ?? 0) > 0, 'the lenses were recomputed after the edits');
  });
});
