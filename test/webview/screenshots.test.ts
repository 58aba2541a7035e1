/** Full-page screenshots of the inspector in VS Code's dark, light and high-contrast themes (artifacts/screenshots/). */
import assert from 'node:assert/strict';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { FakeHost, launchBrowser, ROOT, sceneFixture, THEMES, type ThemeName } from './harness.js';

const OUT = join(ROOT, 'artifacts/screenshots');

describe('webview screenshots', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
    mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
  });

  for (const theme of ['dark', 'light', 'hc'] as ThemeName[]) {
    it(`renders the ${theme} theme from --vscode-* variables and saves webview-${theme}.png`, async () => {
      const f = sceneFixture();
      const impact = f.model.findings[0].index;
      const host = await FakeHost.open(browser, f.model, f.source, { theme, index: impact, viewport: { width: 1400, height: 1000 } });
      try {
        await host.waitForIndex(impact);
        await host.page.click('#contacts-table tbody tr[data-index="0"]');
        await host.page.waitForFunction(() => (globalThis as any).document.querySelector('#contacts-table tbody tr.selected'));
        await host.page.click('#whatif-run');
        await host.page.waitForSelector('#whatif-result .whatif-contacts');
        // the page background is the theme's editor background
        const bg = await host.page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor);
        const hex = THEMES[theme].vars['--vscode-editor-background'];
        const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
        assert.equal(bg, `rgb(${rgb.join(', ')})`);
        await host.page.evaluate(() => (globalThis as any).scrollTo(0, 0));
        const file = join(OUT, `webview-${theme}.png`);
        await host.page.screenshot({ path: file, fullPage: true });
        assert.ok(statSync(file).size > 20000, 'screenshot has content');
        assert.deepEqual(host.cspProblems(), []);
      } finally {
        await host.close();
      }
    });
  }
});
