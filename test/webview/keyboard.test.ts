/** Timeline navigation: keyboard on document, buttons, findings, playback, host commands. */
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { FakeHost, launchBrowser, sceneFixture } from './harness.js';

describe('webview timeline and keyboard', () => {
  let browser: Browser;
  let host: FakeHost;
  const start = 10;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    const f = sceneFixture();
    host = await FakeHost.open(browser, f.model, f.source, { index: start });
    await host.waitForIndex(start);
  });
  afterEach(async () => {
    await host?.close();
  });

  it('ArrowRight ×3 from index i sends seeks to i+1, i+2, i+3 and shows frame i+3; ArrowLeft steps back', async () => {
    const before = host.messages('seek').length;
    for (let k = 0; k < 3; k++) await host.page.keyboard.press('ArrowRight');
    await host.waitForIndex(start + 3);
    assert.deepEqual(
      host
        .messages('seek')
        .slice(before)
        .map((m) => m.index),
      [start + 1, start + 2, start + 3],
    );
    assert.equal(await host.text('#frame-readout'), host.readoutAt(start + 3));
    await host.page.keyboard.press('ArrowLeft');
    await host.waitForIndex(start + 2);
  });

  it('Home and End jump to the first and last frame', async () => {
    const last = host.model.info.frameCount - 1;
    await host.page.keyboard.press('End');
    await host.waitForIndex(last);
    assert.equal(
      await host.text('#frame-readout'),
      `frame ${host.model.timeline.frame[last]} / ${host.model.info.frameCount} · t = ${host.model.timeline.time[last].toFixed(4)} s`,
    );
    await host.page.keyboard.press('Home');
    await host.waitForIndex(0);
    assert.equal(host.lastSeek()?.index, 0);
  });

  it('keys typed into a text field do not move the timeline', async () => {
    await host.page.focus('#whatif-tolerance');
    const before = host.messages('seek').length;
    await host.page.keyboard.press('ArrowRight');
    await host.page.keyboard.press('End');
    await host.page.keyboard.type(' 1e-6');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(host.messages('seek').length, before);
    assert.equal(await host.page.inputValue('#timeline-slider'), String(start));
  });

  it('buttons step, jump between findings, and the slider seeks', async () => {
    // distinct finding frames in order (a frame may carry several findings: e.g. a restitution overshoot and a push-out)
    const fs = [...new Set(host.model.findings.map((f) => f.index))].sort((a, b) => a - b);
    await host.page.click('#btn-forward');
    await host.waitForIndex(start + 1);
    await host.page.click('#btn-back');
    await host.waitForIndex(start);
    await host.page.click('#btn-next-finding');
    await host.waitForIndex(fs[0]);
    await host.page.click('#btn-next-finding');
    await host.waitForIndex(fs[1]);
    await host.page.click('#btn-prev-finding');
    await host.waitForIndex(fs[0]);
    await host.page.$eval('#timeline-slider', (e: any) => {
      e.value = '42';
      e.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await host.waitForIndex(42);
    assert.equal(host.lastSeek()?.index, 42);
  });

  it('Space plays at settings.playbackFps and playback stops at the last frame', async () => {
    const last = host.model.info.frameCount - 1;
    await host.deliver({ type: 'command', command: { name: 'goto', index: last - 5 } });
    await host.waitForIndex(last - 5);
    const t0 = Date.now();
    await host.page.keyboard.press(' ');
    await host.waitForIndex(last);
    const elapsed = Date.now() - t0;
    assert.ok(elapsed >= 5 * (1000 / 30) * 0.8, `5 frames at 30 fps took ${elapsed} ms`);
    const n = host.messages('seek').length;
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(host.messages('seek').length, n, 'no seeks after the end');
    assert.match(await host.text('#btn-play'), /Play/);
  });

  it('an init with play: true (▶ Run) plays from its index to the end; one without it stays paused', async () => {
    const last = host.model.info.frameCount - 1;
    await host.deliver({ ...host.initMessage(), index: last - 4 });
    await host.waitForIndex(last - 4);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(
      await host.page.evaluate(() => (globalThis as any).document.getElementById('timeline-slider').value),
      String(last - 4),
      'no play flag: paused',
    );
    await host.deliver({ ...host.initMessage(), index: last - 4, play: true });
    await host.page.waitForFunction(() => /Pause/.test((globalThis as any).document.getElementById('btn-play').textContent));
    await host.waitForIndex(last);
    await host.page.waitForFunction(() => /Play/.test((globalThis as any).document.getElementById('btn-play').textContent));
  });

  it('host commands: step, goto, finding, togglePlay', async () => {
    await host.deliver({ type: 'command', command: { name: 'step', delta: 2 } });
    await host.waitForIndex(start + 2);
    await host.deliver({ type: 'command', command: { name: 'finding', direction: 1 } });
    await host.waitForIndex(host.model.findings[0].index);
    await host.deliver({ type: 'command', command: { name: 'goto', index: 3 } });
    await host.waitForIndex(3);
    await host.deliver({ type: 'command', command: { name: 'togglePlay' } });
    await host.page.waitForFunction(() => /Pause/.test((globalThis as any).document.getElementById('btn-play').textContent));
    await host.page.waitForFunction(() => Number((globalThis as any).document.getElementById('timeline-slider').value) > 4);
    await host.deliver({ type: 'command', command: { name: 'togglePlay' } });
    await host.page.waitForFunction(() => /Play/.test((globalThis as any).document.getElementById('btn-play').textContent));
    const i = Number(await host.page.inputValue('#timeline-slider'));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(Number(await host.page.inputValue('#timeline-slider')), i, 'paused: the index stays');
  });
});
