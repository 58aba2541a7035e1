/** Protocol behaviour of the inspector webview in real Chromium, answered by a real InspectorModel. */
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { validateWebviewMessage } from '../../src/protocol/validate.js';
import { FakeHost, launchBrowser, sceneFixture } from './harness.js';

describe('webview protocol', () => {
  let browser: Browser;
  let host: FakeHost;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    const f = sceneFixture();
    host = await FakeHost.open(browser, f.model, f.source, { index: 5 });
  });
  afterEach(async () => {
    await host?.close();
  });

  it('sends ready first, renders init (readout, slider range, title) and asks for the initial frame', async () => {
    const types = host.received.map((r) => r.message.type);
    assert.equal(types[0], 'ready');
    assert.deepEqual(host.messages('ready').length, 1);
    assert.equal(host.messages('seek')[0].index, 5);
    await host.waitForIndex(5);
    const n = host.model.info.frameCount;
    assert.equal(await host.page.getAttribute('#timeline-slider', 'max'), String(n - 1));
    assert.equal(await host.text('#frame-readout'), `frame ${host.model.timeline.frame[5]} / ${n} · t = ${host.model.timeline.time[5].toFixed(4)} s`);
    assert.equal(await host.text('#session-title'), host.model.info.title);
    assert.ok(await host.page.isHidden('#error'), 'no error banner after a clean start');
    assert.deepEqual(host.pageErrors, []);
  });

  it('requests carry strictly increasing requestIds', async () => {
    await host.page.keyboard.press('ArrowRight');
    await host.page.click('#contacts-table th[data-col="index"]'); // harmless
    await host.deliver({ type: 'command', command: { name: 'goto', index: 27 } });
    await host.waitForIndex(27);
    await host.page.click('#contacts-table tbody tr[data-index="0"]');
    await host.page.waitForFunction(() => (globalThis as any).document.querySelector('#contacts-table tbody tr.selected') !== null);
    await host.page.click('#whatif-run');
    await host.page.waitForSelector('#whatif-result .whatif-contacts');
    const ids = host.received
      .map((r) => r.message)
      .filter((m) => 'requestId' in m)
      .map((m) => (m as { requestId: number }).requestId);
    assert.ok(ids.length >= 5, `expected ≥ 5 requests, got ${ids.length}`);
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `requestIds not increasing: ${ids.join(', ')}`);
    assert.deepEqual(new Set(host.received.map((r) => r.message.type)), new Set(['ready', 'seek', 'series', 'whatIf']));
    assert.deepEqual(host.invalidFromWebview, [], 'every webview message passes validateWebviewMessage');
  });

  it('an invalid host message shows the #error banner and the page keeps working', async () => {
    await host.deliver({ type: 'frame', requestId: 99, view: { index: 'three', contacts: [] } });
    await host.deliver({ type: 'no-such-message' });
    await host.page.waitForSelector('#error', { state: 'visible' });
    assert.match(await host.text('#error'), /invalid message/);
    assert.equal((await host.stats()).invalidMessages, 2);
    await host.page.keyboard.press('ArrowRight');
    await host.waitForIndex(6);
    assert.deepEqual(host.pageErrors, [], 'no uncaught exception');
  });

  it('drops stale frame replies (older requestId than the latest seek)', async () => {
    await host.waitForIndex(5);
    host.holdSeeks = true;
    await host.page.keyboard.press('ArrowRight');
    await host.page.keyboard.press('ArrowRight');
    await host.page.waitForFunction(() => true);
    while (host.heldSeeks.length < 2) await new Promise((r) => setTimeout(r, 20));
    const [older, newer] = host.heldSeeks;
    assert.deepEqual([older.index, newer.index], [6, 7]);
    const before = (await host.stats()).frameUpdates;
    await host.deliver({ type: 'frame', requestId: newer.requestId, view: host.model.frameView(newer.index) });
    await host.deliver({ type: 'frame', requestId: older.requestId, view: host.model.frameView(older.index) });
    await host.waitForIndex(7);
    const s = await host.stats();
    assert.equal(s.frameUpdates, before + 1, 'only the newest reply was rendered');
    assert.equal(s.staleFrames, 0, 'stats refresh on the next render');
    assert.equal(await host.text('#frame-readout'), host.readoutAt(7));
    assert.equal(await host.page.inputValue('#timeline-slider'), '7');
  });

  it('host error and progress messages are shown; exportChart posts a PNG of the energy chart', async () => {
    await host.deliver({ type: 'progress', message: 'simulating: frame 3 / 10', fraction: 0.3 });
    await host.page.waitForSelector('#progress', { state: 'visible' });
    assert.match(await host.text('#progress'), /frame 3 \/ 10/);
    await host.deliver({ type: 'error', requestId: null, message: 'worker crashed' });
    await host.page.waitForSelector('#error', { state: 'visible' });
    assert.equal(await host.text('#error'), 'worker crashed');
    await host.deliver({ type: 'command', command: { name: 'exportChart' } });
    await host.page.waitForFunction(() => true);
    for (let k = 0; k < 100 && host.messages('exportChart').length === 0; k++) await new Promise((r) => setTimeout(r, 20));
    const [ex] = host.messages('exportChart');
    assert.ok(ex, 'exportChart message posted');
    assert.equal(ex.name, 'energy');
    validateWebviewMessage(ex);
    assert.ok(Buffer.from(ex.dataUrl.split(',')[1], 'base64').subarray(1, 4).toString() === 'PNG');
    assert.ok(ex.dataUrl.length > 2000, 'the PNG has content');
  });

  it('keeps {source, index, selectedContacts} with setState and restores the selection from getState', async () => {
    await host.deliver({ type: 'command', command: { name: 'goto', index: 27 } });
    await host.waitForIndex(27);
    await host.page.click('#contacts-table tbody tr[data-index="0"]');
    const state = await host.page
      .waitForFunction(() => {
        const s = (globalThis as any).__savedState;
        return s && s.selectedContacts.length === 1 && s.index === 27 ? s : null;
      })
      .then((h) => h.jsonValue());
    assert.deepEqual(state.source, host.source);
    const key = host.model.frameView(27).contacts[0].key;
    assert.deepEqual(state.selectedContacts, [key]);
    // a reloaded panel: the host restores the index, the webview restores the selection
    const f = sceneFixture();
    const again = await FakeHost.open(browser, f.model, f.source, { index: 27, state });
    try {
      await again.waitForIndex(27);
      await again.page.waitForSelector('#contacts-table tbody tr.selected[data-index="0"]');
      assert.deepEqual(again.messages('series').at(-1)?.keys, [key]);
    } finally {
      await again.close();
    }
  });

  it('produces no CSP violation', async () => {
    await host.page.keyboard.press('End');
    await host.waitForIndex(host.model.info.frameCount - 1);
    assert.deepEqual(host.cspProblems(), []);
  });
});
