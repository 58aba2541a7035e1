import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activeExtension, closeAllEditors, poll, workspaceRoot } from './helpers';

/**
 * A recording large enough for the cache (8 MiB) whose frame lines are large enough for the frame store (64 KiB):
 * 700 boxes falling freely, 130 frames, no contacts.
 */
function writeLargeRecording(file: string): void {
  const B = 700,
    dt = 1 / 60,
    g = -9.81;
  const header = {
    format: 'contact-lens-recording',
    version: 1,
    producer: { name: 'suite-writer', version: '1' },
    units: 'SI',
    conventions: { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' },
    dt,
    gravity: [0, 0, g],
    bodies: Array.from({ length: B }, (_, i) => ({
      name: `box${i}`,
      shape: { box: { halfExtents: [0.1, 0.1, 0.1] } },
      mass: 1,
      inertia: [0.006666666666666667, 0.006666666666666667, 0.006666666666666667],
      static: false,
    })),
  };
  const lines = [JSON.stringify(header)];
  for (let f = 0; f < 130; f++) {
    const t = (f + 1) * dt;
    const bodies = Array.from({ length: B }, (_, i) => ({
      x: [(i % 30) * 0.5 + 0.123456789012345, Math.floor(i / 30) * 0.5 + 0.987654321098765, 100 + 0.5 * g * t * t],
      q: [1, 0, 0, 0],
      v: [0, 0, g * t],
      w: [0, 0, 0],
    }));
    lines.push(JSON.stringify({ frame: f, time: t, bodies, contacts: [], solver: { name: 'free-fall', status: 'converged', iterations: 0, lambda: [] } }));
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

suite('frame store of a large recording', () => {
  const config = () => vscode.workspace.getConfiguration('contactLens');
  suiteSetup(async () => {
    await activeExtension();
    await closeAllEditors();
  });
  teardown(async () => {
    await closeAllEditors();
    await config().update('recordings.frameStore', undefined, vscode.ConfigurationTarget.Global);
  });

  /**
   * Opens `name` in the inspector and waits for its cache, then for the frame store the open builds after it (at
   * most `storeWaitMs`); true when a frame store was written beside it.
   */
  async function openAndWait(name: string, storeWaitMs: number): Promise<boolean> {
    const file = path.join(workspaceRoot().fsPath, name);
    writeLargeRecording(file);
    assert.ok(fs.statSync(file).size >= 8 * 2 ** 20, 'at least the cache threshold');
    const cache = path.join(path.dirname(file), `.${name}.clcache`);
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'contactLens.recording');
    await poll(() => (fs.existsSync(cache) ? true : undefined), `the cache ${cache} after the open`, 120_000);
    const store = path.join(path.dirname(file), `.${name}.clframes`);
    const t0 = Date.now();
    while (!fs.existsSync(store) && Date.now() - t0 < storeWaitMs) await new Promise((resolve) => setTimeout(resolve, 200));
    return fs.existsSync(store);
  }

  test('the inspector writes a frame store beside a large recording, and none with contactLens.recordings.frameStore off', async function () {
    this.timeout(300_000);
    const t0 = Date.now();
    assert.equal(await openAndWait('large-on.rec.jsonl', 120_000), true, 'a store with the default setting, built after the open');
    const builtMs = Date.now() - t0;
    await closeAllEditors();
    await config().update('recordings.frameStore', false, vscode.ConfigurationTarget.Global);
    // with the setting off, still none after twice the time the first one took to appear
    assert.equal(await openAndWait('large-off.rec.jsonl', 2 * builtMs), false, 'no store with the setting off');
  });
});
