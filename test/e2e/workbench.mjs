// Workbench actions the e2e flows share: the command palette, opening a workspace file, finding the
// inspector's webview frame. Files are opened with Quick Open ("Go to File"), which searches the disk
// each time it is opened, not through the Explorer tree, which shows a file created during the run only
// once the file watcher reports it (on a loaded CI machine that took longer than a minute).

/** Runs a command through the command palette (F1), by its label. */
export async function runCommand(page, label) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(`>${label}`);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

/**
 * Opens a workspace file with Quick Open (Ctrl+P) in its default editor (`side`: Ctrl+Enter, beside the
 * active one) and waits for its tab. Retries the search while the file is not yet indexed.
 */
export async function openFile(page, file, { side = false, timeoutMs = 60_000 } = {}) {
  const input = page.locator('.quick-input-widget input');
  // the FOCUSED row: Enter opens the focused entry, and until the search answers that is the most recent file
  const row = page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: file }).first();
  const t0 = Date.now();
  for (;;) {
    await page.keyboard.press('Control+P');
    await input.waitFor({ timeout: 10_000 });
    await input.fill(file);
    try {
      await row.waitFor({ timeout: 5_000 });
      break;
    } catch (err) {
      await page.keyboard.press('Escape');
      if (Date.now() - t0 > timeoutMs) throw new Error(`Quick Open does not find ${file} within ${timeoutMs / 1000} s: ${err.message}`);
    }
  }
  await page.keyboard.press(side ? 'Control+Enter' : 'Enter');
  await page.locator('.tabs-container .tab', { hasText: file }).first().waitFor({ timeout: 30_000 });
}

/** The inner frame of the inspector webview whose #session-title contains `title`. */
export async function inspectorFrame(page, title, timeoutMs = 90_000) {
  const t = Date.now();
  while (Date.now() - t < timeoutMs) {
    for (const f of page.frames()) {
      try {
        const text = await f.locator('#session-title').textContent({ timeout: 200 });
        if (text?.includes(title) && (await f.locator('#frame-readout').count())) return f;
      } catch {
        /* not an inspector frame, or detached */
      }
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no inspector webview for ${title} within ${timeoutMs / 1000}s`);
}
