// A live session in the real editor, on the packaged extension (docs/live-protocol.md): Contact Lens: Listen for
// a Live Engine opens the listening panel with the one line a writer needs; a break on the next error finding is
// armed; a test engine (test/live/engine.ts, our world through the TypeScript writer) runs
// examples/fault-restitution-target.scene.json with that variable set; the engine stops at the planted fault's
// frame (27, the restitution-overshoot finding `contact-lens diagnose` names) — writeFrame(27) does not return —
// the panel shows ⏸ PAUSED with the reason, Step lets exactly one frame through, Continue lets the engine finish.
//   → media/screenshots/live.png (the workbench at the break)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './workbench.mjs';

export const name = 'live: Listen for a Live Engine, a TypeScript engine streams fault-restitution-target, break on the error finding, step, continue';

/** The planted fault's frame (contact-lens diagnose examples/fault-restitution-target.scene.json). */
const FAULT_FRAME = 27;

/** The listening panel's webview frame: the one whose live bar shows how to connect. */
async function listeningFrame(page, timeoutMs = 90_000) {
  const t = Date.now();
  while (Date.now() - t < timeoutMs) {
    for (const f of page.frames()) {
      try {
        if (await f.locator('#live-bar .live-env').count()) return f;
      } catch {
        /* not an inspector frame, or detached */
      }
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no listening panel within ${timeoutMs / 1000}s`);
}

/** A test engine process and its stdout lines ("frame K sent T", "frame K returned T", "closed"). */
function startEngine(repo, variable, value, out) {
  const lines = [];
  let stderr = '';
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(repo, 'test/live/engine.ts'),
      join(repo, 'examples/fault-restitution-target.scene.json'),
      'fault-restitution-target-sphere',
      out,
      '--fps',
      '0',
    ],
    { cwd: repo, env: { ...process.env, [variable]: value }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let buf = '';
  proc.stdout.on('data', (d) => {
    buf += d.toString('utf8');
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  proc.stderr.on('data', (d) => (stderr += d.toString('utf8')));
  const exited = new Promise((r) => proc.on('exit', (code) => r(code)));
  return {
    lines,
    exited,
    stderr: () => stderr,
    returned: (k) => lines.some((l) => l.startsWith(`frame ${k} returned `)),
    kill: () => proc.kill('SIGKILL'),
  };
}

async function badge(insp) {
  return ((await insp.locator('#live-bar .live-badge').textContent()) ?? '').trim();
}

export async function run({ page, workspace, repo, media, step }) {
  await runCommand(page, 'View: Close All Editors');
  // the extension's commands reach the palette once its host has started: ask again until they have
  for (let t0 = Date.now(); ; ) {
    try {
      await runCommand(page, 'Contact Lens: Listen for a Live Engine');
      break;
    } catch (err) {
      await page.keyboard.press('Escape');
      if (Date.now() - t0 > 90_000) throw err;
      await page.waitForTimeout(2000);
    }
  }
  const insp = await listeningFrame(page);
  const env = ((await insp.locator('#live-bar .live-env').textContent()) ?? '').trim();
  const m = /^([A-Z_]+)=(tcp:\/\/127\.0\.0\.1:\d+\?token=[0-9a-f]{32})$/.exec(env);
  assert.ok(m, `the panel shows how to connect: ${env}`);
  assert.match(await badge(insp), /waiting for an engine/);
  step(`listening: ${m[1]}=tcp://127.0.0.1:…`);

  // break on the next error finding, before the engine starts: the writer is armed from its first frame
  await insp.locator('#live-break-severity').evaluate((d) => {
    d.value = 'error';
    d.dispatchEvent(new Event('change'));
  });
  await page.waitForTimeout(500); // the break conditions reach the worker
  const dir = mkdtempSync(join(tmpdir(), 'contact-lens-e2e-live-'));
  const engine = startEngine(repo, m[1], m[2], join(dir, 'fault.rec.jsonl'));
  try {
    await insp.waitForFunction(
      (k) => document.querySelector('#live-bar .live-badge')?.textContent?.includes(`PAUSED at frame ${k}`),
      FAULT_FRAME,
      { timeout: 180_000 },
    );
    assert.equal(engine.lines[0], 'streaming true', `the writer connected: ${engine.lines[0]} ${engine.stderr()}`);
    const detail = (await insp.locator('#live-bar .live-detail').textContent()) ?? '';
    assert.match(detail, /break: error finding, restitution-overshoot/, `the panel says why it stopped: ${detail}`);
    await page.waitForTimeout(1000); // the engine stays where it is; the view settles on the frame
    assert.ok(engine.returned(FAULT_FRAME - 1), `writeFrame(${FAULT_FRAME - 1}) returned`);
    assert.ok(!engine.returned(FAULT_FRAME), `writeFrame(${FAULT_FRAME}) must not return while the engine is paused there`);
    const readout = (await insp.locator('#frame-readout').textContent()) ?? '';
    assert.match(readout, new RegExp(`^frame ${FAULT_FRAME} /`), `the inspector shows the frame it stopped at: ${readout}`);
    step(`paused: ${await badge(insp)} · ${detail.split(' · ')[0]}`);
    await insp.evaluate(() => window.scrollTo(0, 0));
    await media('live.png');

    // Step: exactly one more frame, and the engine stops again
    await insp.locator('#btn-live-step').click();
    await insp.waitForFunction(
      (k) => document.querySelector('#live-bar .live-badge')?.textContent?.includes(`PAUSED at frame ${k}`),
      FAULT_FRAME + 1,
      { timeout: 60_000 },
    );
    await page.waitForTimeout(500);
    assert.ok(engine.returned(FAULT_FRAME), `after Step, writeFrame(${FAULT_FRAME}) returned`);
    assert.ok(!engine.returned(FAULT_FRAME + 1), `after Step, writeFrame(${FAULT_FRAME + 1}) waits`);
    step(`stepped: ${await badge(insp)}`);

    // Continue, with the break off: the engine runs to its end
    await insp.locator('#live-break-severity').evaluate((d) => {
      d.value = 'off';
      d.dispatchEvent(new Event('change'));
    });
    await insp.locator('#btn-live-continue').click();
    const code = await Promise.race([engine.exited, new Promise((r) => setTimeout(() => r('timeout'), 120_000))]);
    assert.equal(code, 0, `the engine ran to its end after Continue: ${code} ${engine.stderr()}`);
    assert.equal(engine.lines.at(-1), 'closed');
    await insp.waitForFunction(() => document.querySelector('#live-bar .live-badge')?.textContent?.includes('ended'), null, { timeout: 60_000 });
    step(`continued: ${await badge(insp)} · ${((await insp.locator('#live-bar .live-detail').textContent()) ?? '').split(' · ')[0]}`);
  } finally {
    engine.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  // leave the workbench as the next flow expects it: no editor open (closing the panel stops the listener), and
  // the workspace without the session's recording (.contact-lens/live/), so the Explorer is as it was
  await runCommand(page, 'View: Close All Editors');
  await page.waitForTimeout(1500);
  rmSync(join(workspace, '.contact-lens'), { recursive: true, force: true });
}
