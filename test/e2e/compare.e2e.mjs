// Compare mode in the real editor, on the packaged extension: the ⇄ Diff lens above box-stack-10 runs the scenario
// with its own solver (coulomb) and with ipm, the inspector compares them — the banner names the first divergence
// and its kind, the slider marks it, the button jumps to it, the contact table shows run b's λ and Δ, the compare
// panel lists the differences, and the re-solve answers
//   → media/screenshots/compare.png, compare-contacts.png (run b's columns), compare-panel.png (the workbench each)
import assert from 'node:assert/strict';
import { inspectorFrame, openFile, runCommand } from './workbench.mjs';

export const name = 'compare: ⇄ Diff lens on box-stack-10 (coulomb vs ipm) → compare mode of the inspector';

export async function run({ page, media, step }) {
  await runCommand(page, 'View: Close All Editors');
  await openFile(page, 'box-stack-10.scene.json');
  const lens = page.locator('.codelens-decoration a', { hasText: '⇄ Diff' }).first();
  await lens.waitFor({ timeout: 60_000 });
  step(`lenses: ${JSON.stringify(await page.locator('.codelens-decoration').first().innerText())}`);
  await lens.click();
  // the second solver: a quick pick of our other solvers
  const pick = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'ipm' }).first();
  await pick.waitFor({ timeout: 20_000 });
  await pick.click();
  step('⇄ Diff: coulomb vs ipm');
  const insp = await inspectorFrame(page, 'box-stack-10');
  await insp.waitForFunction(() => document.body.classList.contains('comparing'), null, { timeout: 300_000 });
  await page.waitForTimeout(1500);
  const banner = (await insp.locator('#compare-banner').innerText()) ?? '';
  step(`banner: ${JSON.stringify(banner)}`);
  const m = /first divergence at frame (\d+) \(t = [^)]+\): (contact-set|problem|solve|state)/.exec(banner);
  assert.ok(m, `the banner names the first divergence and its kind: ${banner}`);
  assert.equal(await insp.locator('#timeline-divergence').isVisible(), true, 'the slider marks the divergence');
  // go somewhere else, then jump to the divergence with the banner's button
  await insp.locator('#timeline-slider').evaluate((s) => {
    s.value = s.max;
    s.dispatchEvent(new Event('input'));
  });
  await insp.waitForFunction(() => window.__inspectorStats?.lastIndex > 0, null, { timeout: 60_000 });
  await insp.locator('#compare-goto').click();
  await insp.waitForFunction((k) => window.__inspectorStats?.lastIndex === k, Number(m[1]), { timeout: 60_000 });
  await insp.waitForTimeout(800); // charts, scene and table settle
  const readout = (await insp.locator('#frame-readout').textContent()) ?? '';
  assert.match(readout, new RegExp(`^frame ${m[1]} /`), `the button jumps to frame ${m[1]}: ${readout}`);
  step(`at the divergence: ${readout}`);
  // run b's λ beside a's in the contact table, not empty
  const bCells = await insp.locator('#contacts-table tbody tr td[data-col="bLambdaN"]').allTextContents();
  assert.ok(bCells.length > 0 && bCells.some((t) => /\d/.test(t)), `λn b cells: ${bCells.slice(0, 4)}`);
  assert.ok(await insp.locator('#contacts-table td[data-col="dLambdaN"]').first().isVisible(), 'the Δλn column is shown');
  const lines = (await insp.locator('#compare-body').innerText()) ?? '';
  assert.match(lines, new RegExp(m[2]), 'the compare panel lists the divergence');
  step(`compare panel: ${JSON.stringify(lines.split('\n').slice(0, 3))}`);
  await insp.locator('#compare-b-with-a').click();
  await insp.locator('#compare-whatif-result tbody tr').first().waitFor({ timeout: 120_000 });
  step(`re-solve: ${await insp.locator('#compare-whatif-result .whatif-title').textContent()}`);
  await insp.evaluate(() => window.scrollTo(0, 0));
  await media('compare.png');
  // the contact table scrolled to run b's columns, then the compare panel (whole-workbench pictures: the webview's
  // elements are taller than the viewport, and an element picture of an iframe that cannot scroll the page is garbage)
  const table = insp.locator('#panel-contacts');
  await table.evaluate((p) => {
    p.scrollIntoView({ block: 'start' });
    // the timeline toolbar stays at the top: the table's header goes below it
    window.scrollBy(0, -(document.getElementById('timeline')?.getBoundingClientRect().bottom ?? 0) - 8);
  });
  await insp.locator('#contacts-scroll').evaluate((s) => {
    const th = s.querySelector('th[data-col="lambdaN"]');
    s.scrollLeft = th ? th.offsetLeft - 40 : s.scrollWidth;
  });
  await insp.waitForTimeout(400);
  await media('compare-contacts.png');
  await insp.locator('#panel-compare').evaluate((p) => p.scrollIntoView({ block: 'start' }));
  await insp.waitForTimeout(400);
  await media('compare-panel.png');
  // leave the workbench as the next flow expects it (the layout is restored on the next page): no editor open
  await runCommand(page, 'View: Close All Editors');
  await page.waitForTimeout(1500);
}
