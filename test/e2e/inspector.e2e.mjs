// Workbench end-to-end flow (plain Node 20 + playwright-core), driven by scripts/vscode-host/run-e2e.mjs against
// code-server with the packaged VSIX installed and a temporary copy of examples/ as the workspace.
//
//  1. open sphere-drop.scene.json (Quick Open), wait for the "▶ Run" lens        → 01-codelens.png
//  2. click it; in the inspector webview (two nested iframes) press → three times; the readout advances by 3
//     frames; the contacts table (λn) and the energy readout match numbers computed independently here from
//     `node dist/cli.js simulate` (the JSONL frame's energy.total and solver.lambda); End → same check at the
//     last frame (the ball rests on the ground: one contact)                           → 02-inspector.png
//     ▶ Run plays; pause; the scene view (WebGL in the webview) shows the ball where the CLI recording has
//     it at two frames (pixels read back at its projected position differ between the two) → 02b-scene-*.png;
//     a click on the resting contact in 3D selects its table row
//  3. open fault-restitution-target.scene.json, click its "🔍 Inspect" lens; #findings lists
//     restitution-overshoot                                                             → 03-finding.png
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { inspectorFrame, openFile, runCommand } from './workbench.mjs';

export const name = 'inspector: CodeLens → inspector webview → keyboard stepping → findings';

/** The recording of one scenario, simulated by our CLI (independent of the extension and its worker). */
function simulate(repo, sceneFile, scenario) {
  const dir = mkdtempSync(join(tmpdir(), 'cl-e2e-sim-'));
  try {
    const out = join(dir, 'run.rec.jsonl');
    execFileSync(process.execPath, [join(repo, 'dist/cli.js'), 'simulate', sceneFile, '--scenario', scenario, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    // the header, the frames, and the writer's closing line {"end": …} (docs/recording-format.md)
    const [header, ...lines] = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const frames = lines.filter((l) => !('end' in l));
    return { header, frames: new Map(frames.map((f) => [f.frame, f])) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Same number at the precision shown (toPrecision(6)): relative 1e-5, absolute 1e-9 near zero. */
function close(shown, expected, what) {
  const ok = Math.abs(shown - expected) <= Math.max(1e-9, 1e-5 * Math.abs(expected));
  assert.ok(ok, `${what}: webview shows ${shown}, CLI recording has ${expected}`);
}

const parseReadout = (text) => {
  const m = /frame\s+(\d+)\s*\/\s*(\d+)\s*·\s*t\s*=\s*([\d.]+)\s*s/.exec(text);
  assert.ok(m, `unexpected #frame-readout text: ${JSON.stringify(text)}`);
  return { frame: Number(m[1]), count: Number(m[2]), time: Number(m[3]) };
};

/** Page coordinates (inside the webview frame) of a world point in the scene view's camera. */
const project = (frame, p) => frame.evaluate((q) => window.__sceneView.project(q), p);

/** The scene canvas pixel [r, g, b] at webview-page coordinates (read back from the WebGL canvas). */
const scenePixel = (frame, x, y) => frame.evaluate(([px, py]) => {
  const c = document.getElementById('scene-canvas');
  const r = c.getBoundingClientRect();
  const o = document.createElement('canvas');
  o.width = 1; o.height = 1;
  const ctx = o.getContext('2d');
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(c, Math.floor(((px - r.left - scrollX) * c.width) / r.width), Math.floor(((py - r.top - scrollY) * c.height) / r.height), 1, 1, 0, 0, 1, 1);
  return Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3));
}, [x, y]);

const differ = (a, b) => a.some((x, i) => Math.abs(x - b[i]) > 24);

/** Moves the timeline slider to session `index` and waits until the readout shows `frameNo`. */
async function showFrame(frame, index, frameNo) {
  await frame.locator('#timeline-slider').evaluate((s, i) => { s.value = String(i); s.dispatchEvent(new Event('input')); }, index);
  await readoutWhere(frame, (r) => r.frame === frameNo, `frame ${frameNo}`);
  await frame.waitForTimeout(300); // the frame view follows the readout by one message
}

/** The full-precision energies of #energy-values' title ("E = … J · K = … J · U = … J"; the text rounds them). */
const parseEnergy = (title) => {
  const get = (k) => {
    const m = new RegExp(`${k} = (-?[\\d.]+(?:e[-+]?\\d+)?) J`).exec(title);
    assert.ok(m, `no ${k} in #energy-values' title: ${JSON.stringify(title)}`);
    return Number(m[1]);
  };
  return { kinetic: get('K'), potential: get('U'), total: get('E') };
};

/** SI prefix of a column's unit in the contact table's header ("mN·s" → 1e-3). */
const PREFIX = { G: 1e9, M: 1e6, k: 1e3, m: 1e-3, µ: 1e-6, n: 1e-9, p: 1e-12 };
const unitFactor = (unit, base) => (unit === base ? 1 : PREFIX[unit.slice(0, unit.length - base.length)] ?? NaN);
/** A table cell's number (U+2212 minus, "≈0" for a value below the column's resolution). */
const cellNumber = (text) => (text === '≈0' ? 0 : Number(text.replace('−', '-')));

/** Waits until #frame-readout shows a frame number satisfying pred; returns the parsed readout. */
async function readoutWhere(frame, pred, what, timeoutMs = 30_000) {
  const t = Date.now();
  let last = '';
  while (Date.now() - t < timeoutMs) {
    last = (await frame.locator('#frame-readout').textContent()) ?? '';
    if (/frame\s+\d+/.test(last)) { const r = parseReadout(last); if (pred(r)) return r; }
    await frame.waitForTimeout(100);
  }
  throw new Error(`timed out waiting for ${what}; #frame-readout is ${JSON.stringify(last)}`);
}

/** Compares the table and the energy readout with the recorded frame (after the frame view arrived). */
async function checkFrame(frame, rec, frameNo, step) {
  const f = rec.frames.get(frameNo);
  assert.ok(f, `the CLI recording has no frame ${frameNo}`);
  const expectedN = f.contacts.map((_, k) => f.solver.lambda[3 * k]);
  const rows = frame.locator('#contacts-table tbody tr[data-index]');
  const t = Date.now();
  while ((await rows.count()) !== expectedN.length && Date.now() - t < 15_000) await frame.waitForTimeout(100);
  assert.equal(await rows.count(), expectedN.length, `frame ${frameNo}: contact rows in the table vs contacts in the recording`);
  const shownN = [];
  // the cells show λn in the column's SI scale (its unit is under the header); the title has the full value in N·s
  const unit = ((await frame.locator('#contacts-table th[data-col="lambdaN"] .unit').textContent()) ?? '').trim();
  const factor = unitFactor(unit, 'N·s');
  assert.ok(Number.isFinite(factor), `λn column unit ${JSON.stringify(unit)}`);
  for (let i = 0; i < expectedN.length; i++) {
    const row = rows.nth(i);
    const idx = Number(await row.getAttribute('data-index'));
    const cell = row.locator('[data-col="lambdaN"]');
    const title = (await cell.getAttribute('title')) ?? '';
    assert.match(title, / N·s$/, `frame ${frameNo} contact ${idx} λn title ${JSON.stringify(title)}`);
    const full = parseFloat(title);
    const text = cellNumber((await cell.textContent()).trim()) * factor;
    close(full, expectedN[idx], `frame ${frameNo} contact ${idx} λn (title)`);
    // the cell rounds to 4 significant digits of the column's largest value
    const shownTol = 1e-3 * Math.max(...expectedN.map(Math.abs));
    assert.ok(Math.abs(text - expectedN[idx]) <= shownTol, `frame ${frameNo} contact ${idx} λn: cell ${text} (${unit}) vs ${expectedN[idx]}`);
    shownN.push(full);
  }
  const e = parseEnergy((await frame.locator('#energy-values').getAttribute('title')) ?? '');
  close(e.total, f.energy.total, `frame ${frameNo} total energy`);
  close(e.kinetic, f.energy.kinetic, `frame ${frameNo} kinetic energy`);
  close(e.potential, f.energy.potential, `frame ${frameNo} potential energy`);
  step(`frame ${frameNo}: λn ${JSON.stringify(shownN)} and total ${e.total} J match the CLI recording`);
}

export async function run({ page, workspace, repo, shot, step }) {
  // 1. CodeLens
  await openFile(page, 'sphere-drop.scene.json');
  step('sphere-drop.scene.json open');
  const runLens = page.locator('.codelens-decoration a', { hasText: '▶ Run' }).first();
  await runLens.waitFor({ timeout: 60_000 });
  step(`CodeLens visible: ${JSON.stringify(await page.locator('.codelens-decoration').first().innerText())}`);
  await shot('01-codelens.png');
  await shot('01-codelens.jpg');

  // 2. Inspector: keyboard stepping, numbers vs the CLI
  const rec = simulate(repo, join(workspace, 'sphere-drop.scene.json'), 'sphere-drop');
  await page.locator('.codelens-decoration a', { hasText: '⏯ Step' }).first().click();
  const inspector = await inspectorFrame(page, 'sphere-drop');
  const start = await readoutWhere(inspector, () => true, 'the first frame readout');
  step(`inspector open: "${await inspector.locator('#frame-readout').textContent()}"`);
  assert.equal(start.count, rec.frames.size, 'frame count in the readout vs frames in the CLI recording');
  await inspector.locator('#frame-readout').click();   // focus the webview (not the slider: it eats arrow keys)
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  const after = await readoutWhere(inspector, (r) => r.frame >= start.frame + 3, `frame ${start.frame + 3}`);
  assert.equal(after.frame, start.frame + 3, `three → presses: ${start.frame} → ${after.frame}`);
  close(after.time, Number(rec.frames.get(after.frame).time.toFixed(4)), `t of frame ${after.frame}`);
  step(`→ ×3: "${await inspector.locator('#frame-readout').textContent()}"`);
  await checkFrame(inspector, rec, after.frame, step);
  await page.keyboard.press('End');
  // frames are numbered from 0 (docs/recording-format.md "Frame numbers"): the last of N is N − 1
  const last = await readoutWhere(inspector, (r) => r.frame === r.count - 1, 'the last frame after End');
  assert.equal(start.frame, 0, 'the first frame is frame 0');
  await checkFrame(inspector, rec, last.frame, step);
  await shot('02-inspector.png');

  // ▶ Run re-simulates and plays from the first frame: the readout moves on by itself
  await runCommand(page, 'View: Close All Editors');
  await page.locator('.tabs-container .tab').first().waitFor({ state: 'detached', timeout: 15_000 });
  await openFile(page, 'sphere-drop.scene.json');
  const runAgain = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: '▶ Run' }).first();
  await runAgain.waitFor({ timeout: 60_000 });
  await runAgain.click();
  const playing = await inspectorFrame(page, 'sphere-drop');
  const moved = await readoutWhere(playing, (r) => r.frame >= 10, 'frame ≥ 10 while playing');
  assert.match((await playing.locator('#btn-play').textContent()) ?? '', /Pause/, 'the play button offers Pause while playing');
  step(`▶ Run plays: "${await playing.locator('#frame-readout').textContent()}" (frame ${moved.frame} without a key press)`);

  // The scene view: the ball where the recording has it, at two frames; a click on a contact selects its row
  await playing.locator('#btn-play').click();
  await playing.waitForFunction(() => /Play/.test(document.getElementById('btn-play').textContent));
  assert.equal(await playing.evaluate(() => window.__sceneView?.webgl), true, 'the scene view has WebGL in the real webview');
  const ballIndex = rec.header.bodies.findIndex((b) => b.name === 'ball');
  const frameNos = [...rec.frames.keys()].sort((a, b) => a - b);
  const high = frameNos[0], low = frameNos.find((n) => rec.frames.get(n).contacts.length > 0);
  const at = {};
  for (const n of [high, low]) {
    await showFrame(playing, frameNos.indexOf(n), n);
    const x = rec.frames.get(n).bodies[ballIndex].x;
    at[n] = await project(playing, x);
    assert.ok(at[n].visible, `frame ${n}: the ball at ${JSON.stringify(x)} is in view`);
    await shot(`02b-scene-frame-${n}.png`);
  }
  // at the ball's projected centre in each frame: the ball's colour there, something else after it moved
  await showFrame(playing, frameNos.indexOf(high), high);
  const hiAtHi = await scenePixel(playing, at[high].x, at[high].y);
  await showFrame(playing, frameNos.indexOf(low), low);
  const hiAtLow = await scenePixel(playing, at[high].x, at[high].y);
  assert.ok(differ(hiAtHi, hiAtLow), `the pixel where the ball is at frame ${high} (rgb ${hiAtHi}) changes when it has fallen (frame ${low}: rgb ${hiAtLow})`);
  step(`scene view: ball at frame ${high} drawn at (${at[high].x.toFixed(0)}, ${at[high].y.toFixed(0)}) rgb ${hiAtHi}; at frame ${low} that pixel is rgb ${hiAtLow}`);
  // click the contact of frame `low` in 3D: its table row is selected
  const contact = rec.frames.get(low).contacts[0];
  const cp = await project(playing, contact.point);
  const box = await playing.locator('#scene-canvas').evaluate((c) => { const r = c.getBoundingClientRect(); return { left: r.left + scrollX, top: r.top + scrollY }; });
  await playing.locator('#scene-canvas').click({ position: { x: cp.x - box.left, y: cp.y - box.top } });
  await playing.locator('#contacts-table tbody tr.selected').waitFor({ timeout: 15_000 });
  assert.deepEqual(await playing.locator('#contacts-table tbody tr.selected').evaluateAll((rows) => rows.map((r) => r.dataset.index)), ['0']);
  step(`click on the contact in 3D at frame ${low}: table row 0 selected`);
  await shot('02c-scene-picked.png');

  // 3. Findings of the deliberate fault (close everything first: the sphere-drop editor's lenses stay visible)
  await runCommand(page, 'View: Close All Editors');
  await page.locator('.tabs-container .tab').first().waitFor({ state: 'detached', timeout: 15_000 });
  await openFile(page, 'fault-restitution-target.scene.json');
  const inspectLens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: '🔍 Inspect' }).first();
  await inspectLens.waitFor({ timeout: 60_000 });
  await inspectLens.click();
  const fault = await inspectorFrame(page, 'fault-restitution-target');
  const findings = fault.locator('#findings .finding');
  await findings.first().waitFor({ timeout: 60_000 });
  const texts = await findings.allInnerTexts();
  assert.ok(texts.some((t) => t.includes('restitution-overshoot')), `#findings does not list restitution-overshoot: ${JSON.stringify(texts.map((t) => t.slice(0, 80)))}`);
  const firstIndex = await findings.first().getAttribute('data-index');
  assert.ok(firstIndex !== null && Number.isInteger(Number(firstIndex)), `finding data-index: ${firstIndex}`);
  step(`findings: ${texts.length}, first at index ${firstIndex}: ${JSON.stringify(texts[0].split('\n')[0])}`);
  // the island's A crossed VS Code's webview postMessage as a Uint8Array (protocol v2): the heat map drew
  // it and no message was rejected
  const heat = fault.locator('#matrix-view .island:not([hidden]) canvas.heatmap').first();
  await heat.waitFor({ timeout: 30_000 });
  const colours = await heat.evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return seen.size;
  });
  assert.ok(colours >= 2, `the A heat map is blank (${colours} colour)`);
  assert.ok(await fault.locator('#error').isHidden(), `error banner: ${await fault.locator('#error').textContent()}`);
  step(`A heat map drawn (${colours} colours), no protocol error`);
  await shot('03-finding.png');

  // 4. The inspector on its own (the README picture): the scene editor closed, the inspector full width
  await runCommand(page, 'View: Close Editors in Other Groups');
  await page.waitForTimeout(1500); // the webview re-lays out its charts for the new width
  const wide = await inspectorFrame(page, 'fault-restitution-target');
  await wide.locator('#energy-chart').waitFor({ timeout: 30_000 });
  step(`inspector full width: "${await wide.locator('#frame-readout').textContent()}"`);
  await shot('04-inspector-wide.png');
  await shot('04-inspector-wide.jpg'); // the README picture (media/screenshots/inspector.jpg)

  // 5. Reload the window: the panel comes back (WebviewPanelSerializer + the webview's saved state) at the
  //    frame it showed, re-simulated by the worker.
  await wide.locator('#frame-readout').click();
  const shown = parseReadout((await wide.locator('#frame-readout').textContent()) ?? '');
  await page.keyboard.press('ArrowRight');
  const before = await readoutWhere(wide, (r) => r.frame === shown.frame + 1, `frame ${shown.frame + 1} before the reload`);
  await runCommand(page, 'Developer: Reload Window');
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  const restored = await inspectorFrame(page, 'fault-restitution-target', 90_000);
  const back = await readoutWhere(restored, (r) => r.frame === before.frame, `frame ${before.frame} after the reload`, 60_000);
  step(`after Reload Window the inspector is back at "${await restored.locator('#frame-readout').textContent()}"`);
  assert.equal(back.count, before.count);
  await shot('05-restored.png');
}
