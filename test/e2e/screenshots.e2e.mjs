// The inspector on another engine's recording, in the real editor, and the pictures the README shows
// (media/screenshots/, rewritten by every run so they cannot go stale):
//
//  1. record MuJoCo's 10-box stack with the official WASM build (test/peers, a devDependency) into the
//     workspace, open it (the recording's custom editor), close the side bar: the inspector full width
//  2. at frame 12 (the soft contacts' push-out): bodies outlined in their own colours, the ΔE chart, the
//     findings as one-line headlines (≥ 5 visible), the contact table with every column in view, nothing
//     cut with "…", states from the physics, no invented ERP in the header's notes
//        → media/screenshots/inspector.jpg, mujoco-stack.png, findings.png, contacts.png
//  3. a scene file opened beside it: the inspector at half width, its toolbar on two lines at most, the
//     scene not tiny                                                    → media/screenshots/half-width.jpg
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { inspectorFrame, openFile, runCommand } from './workbench.mjs';

export const name = 'screenshots: a MuJoCo recording full width and half width (media/screenshots/)';

/** Seeks the inspector to session index i (the slider's input event) and waits for that frame's view. */
async function showIndex(frame, i) {
  await frame.locator('#timeline-slider').evaluate((s, k) => {
    s.value = String(k);
    s.dispatchEvent(new Event('input'));
  }, i);
  await frame.waitForFunction((k) => window.__inspectorStats?.lastIndex === k, i, { timeout: 60_000 });
  await frame.waitForTimeout(600); // charts, scene and table settle
}

export async function run({ page, workspace, repo, media, step }) {
  await runCommand(page, 'View: Close All Editors');
  // 1. MuJoCo's 10-box stack, recorded now by the official WASM build (≈ 6 s)
  const file = 'mujoco-stack.rec.jsonl';
  execFileSync(join(repo, 'node_modules/.bin/tsx'), [join(repo, 'test/peers/record.ts'), 'mujoco', 'stack', '--out', join(workspace, file)], {
    cwd: repo,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  step(`recorded ${file} with mujoco-js`);
  await openFile(page, file);
  const insp = await inspectorFrame(page, 'mujoco-stack');
  await insp.waitForFunction(() => (window.__inspectorStats?.frameUpdates ?? 0) > 0, null, { timeout: 120_000 });
  await runCommand(page, 'View: Close Primary Side Bar');
  await page.waitForTimeout(1500); // the webview re-lays out for the new width
  step(`inspector open: ${await insp.locator('#session-meta').textContent()}`);

  // 2. frame 12: the soft contacts' push-out, one finding per frame
  await showIndex(insp, 12);
  const readout = (await insp.locator('#frame-readout').textContent()) ?? '';
  assert.match(readout, /^frame 12 \/ 300 /, 'frames are numbered from 0: index 12 is frame 12');
  // the header line: one line, its notes folded; MuJoCo declares soft contacts and no ERP: none is assumed
  const notes = (await insp.locator('#frame-status').evaluate((e) => e.querySelector('.status-notes ul')?.textContent ?? '')) ?? '';
  assert.ok(!/assumed|erp 0\.2/.test(notes), `frame notes invent an ERP: ${notes}`);
  assert.match(notes, /soft contacts/);
  const status = insp.locator('#frame-status .status-summary');
  assert.ok((await status.boundingBox()).height < 24, 'the status is one line');
  // the scene view: WebGL, boxes outlined, X-ray on
  assert.equal(await insp.evaluate(() => window.__sceneView?.webgl), true, 'WebGL in the real webview');
  assert.equal(await insp.evaluate(() => document.getElementById('scene-xray')?.checked), true, 'X-ray is on by default');
  // the findings: one line each, at least five in view in the panel
  const findings = insp.locator('#findings .finding');
  const count = await findings.count();
  assert.ok(count >= 5, `${count} findings`);
  const inView = await insp.locator('#findings').evaluate((box) => {
    const r = box.getBoundingClientRect();
    return [...box.querySelectorAll('.finding')].filter((f) => {
      const b = f.getBoundingClientRect();
      return b.top >= r.top - 1 && b.bottom <= r.bottom + 1;
    }).length;
  });
  assert.ok(inView >= 5, `${inView} findings visible at once`);
  step(`${count} findings, ${inView} in view; first: ${JSON.stringify(await findings.first().locator('.finding-head').innerText())}`);
  // the contact table at full width: every column in view, nothing cut, states from the physics
  const table = await insp.locator('#contacts-scroll').evaluate((s) => ({
    scroll: s.scrollWidth,
    client: s.clientWidth,
    cut: [...s.querySelectorAll('tbody td')].filter((td) => td.textContent.includes('…')).length,
    states: [...new Set([...s.querySelectorAll('tbody td[data-col="state"]')].map((td) => td.textContent.trim()))],
    units: [...s.querySelectorAll('thead th .unit')].map((u) => u.textContent),
  }));
  assert.ok(table.scroll <= table.client + 1, `the table scrolls sideways at full width: ${table.scroll} > ${table.client}`);
  assert.equal(table.cut, 0, 'no cell cut with …');
  assert.ok(
    table.states.every((s) => ['open', 'stick', 'slip'].includes(s)),
    `states ${table.states}`,
  );
  step(`contact table: every column in view (${table.client} px), units ${table.units.join(' ')}, states ${table.states.join('/')}`);
  // the finding of this frame unfolds on Enter: its whole explanation, the others stay one line each
  const current = insp.locator('#findings .finding.current .finding-head').first();
  await current.focus();
  await page.keyboard.press('Enter');
  const body = insp.locator('#findings .finding.expanded .finding-body');
  await body.waitFor({ timeout: 10_000 });
  const explanation = (await body.locator('.explanation').textContent()) ?? '';
  assert.ok(explanation.length > 120, `the unfolded finding shows its whole explanation (${explanation.length} characters)`);
  const stillInView = await insp.locator('#findings').evaluate((box) => {
    const r = box.getBoundingClientRect();
    return [...box.querySelectorAll('.finding-head')].filter((h) => {
      const b = h.getBoundingClientRect();
      return b.top >= r.top - 1 && b.bottom <= r.bottom + 1;
    }).length;
  });
  assert.ok(stillInView >= 5, `${stillInView} finding lines in view with one unfolded`);
  step(`Enter unfolds the frame's finding (${explanation.length} characters); ${stillInView} finding lines still in view`);
  await media('inspector.jpg');
  // element pictures: the frame is looked up again for each (VS Code may swap the webview's inner frame)
  await media('mujoco-stack.png', (await inspectorFrame(page, 'mujoco-stack')).locator('#panel-scene'));
  await media('findings.png', (await inspectorFrame(page, 'mujoco-stack')).locator('#panel-findings'));
  await media('contacts.png', (await inspectorFrame(page, 'mujoco-stack')).locator('#panel-contacts'));

  // 3. a scene file beside it: the inspector at half width
  await openFile(page, 'box-stack-10.scene.json', { side: true });
  await page.waitForTimeout(2000);
  const half = await inspectorFrame(page, 'mujoco-stack');
  const layout = await half.evaluate(() => ({
    width: document.documentElement.clientWidth,
    toolbar: document.getElementById('timeline').getBoundingClientRect().height,
    scene: document.getElementById('scene-canvas').getBoundingClientRect(),
  }));
  assert.ok(layout.width < 1000, `half width: ${layout.width} px`);
  assert.ok(layout.toolbar < 90, `the toolbar takes ${layout.toolbar} px (two lines at most)`);
  assert.ok(layout.scene.width >= 0.9 * (layout.width - 60) && layout.scene.height >= 250, `scene ${layout.scene.width}×${layout.scene.height} px`);
  step(`half width ${layout.width} px: toolbar ${layout.toolbar.toFixed(0)} px high, scene ${layout.scene.width.toFixed(0)}×${layout.scene.height.toFixed(0)} px`);
  await media('half-width.jpg');
}
