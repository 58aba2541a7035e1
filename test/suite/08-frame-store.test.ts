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

  /** Opens `name` in the inspector and waits for its cache; true when a frame store was written beside it. */
  async function openAndWait(name: string): Promise<boolean> {
    const file = path.join(workspaceRoot().fsPath, name);
    writeLargeRecording(file);
    assert.ok(fs.statSync(file).size >= 8 * 2 ** 20, 'at least the cache threshold');
    const cache = path.join(path.dirname(file), `.${name}.clcache`);
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'contactLens.recording');
    await poll(() => (fs.existsSync(cache) ? true : undefined), `the cache ${cache} after the open`, 120_000);
    return fs.existsSync(path.join(path.dirname(file), `.${name}.clframes`));
  }

  test('the inspector writes a frame store beside a large recording, and none with contactLens.recordings.frameStore off', async function () {
    this.timeout(300_000);
    assert.equal(await openAndWait('large-on.rec.jsonl'), true, 'a store with the default setting');
    await closeAllEditors();
    await config().update('recordings.frameStore', false, vscode.ConfigurationTarget.Global);
    assert.equal(await openAndWait('large-off.rec.jsonl'), false, 'no store with the setting off');
  });
});
