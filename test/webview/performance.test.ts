/**
 * Frame-update budget, measured inside the page with performance.now() (window.__inspectorStats): from the
 * frame message's event — before its data is read, since Chromium deserialises it on that read — through
 * validation, table, heat map, convergence plot, chart cursors and readouts, to style and layout done
 * (a forced reflow at the end). Synthetic frames: 200 contacts, one island with a 600×600 A.
 * INSPECTOR_PERF_DEBUG=1 prints the split of every update.
 */
import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import type { Browser } from 'playwright-core';
import { FakeHost, launchBrowser, sceneFixture } from './harness.js';
import { syntheticFrame } from './synthetic.js';

const CONTACTS = 200;
const CHANGES = 40;
/** The budget for one frame update, printed beside the measurement (docs/benchmarks.md), not asserted. */
const BUDGET_MS = 16;

describe('webview performance', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  // The time is printed, not asserted: wall-clock time inside a page on a shared 2-core machine counts the other
  // processes' time slices (a fresh-clone run at load 5.6 measured a lower quartile of 18.9 ms where an idle one
  // measures ~8 ms). What is asserted is the work: one update per step, the 600×600 A drawn one pixel per entry,
  // the table's DOM bounded, the readout at the right frame, no page error.
  it(`updates a frame with ${CONTACTS} contacts and a 600×600 A: one update per step, bounded DOM (time printed, budget ${BUDGET_MS} ms)`, async () => {
    const f = sceneFixture();
    const frames = new Map<number, ReturnType<typeof syntheticFrame>>();
    const frameFor = (i: number): ReturnType<typeof syntheticFrame> => {
      let v = frames.get(i);
      if (!v) {
        v = syntheticFrame(i, CONTACTS);
        frames.set(i, v);
      }
      return v;
    };
    const host = await FakeHost.open(browser, f.model, f.source, { index: 0, frameFor });
    try {
      // select two contacts so the heat map draws markers and the λ chart has data
      await host.page.click('#contacts-table tbody tr[data-index="0"]');
      await host.page.click('#contacts-table tbody tr[data-index="1"]');
      const side = await host.page.$eval('#matrix-view canvas.heatmap', (c: any) => [c.width, c.height]);
      assert.deepEqual(side, [600, 600], 'the 600×600 A is drawn one pixel per entry');
      const times: number[] = [];
      const first = (await host.stats()).frameUpdates;
      let done = first;
      for (let k = 0; k < CHANGES; k++) {
        await host.page.keyboard.press('ArrowRight');
        done++;
        await host.waitForFrameUpdates(done);
        const st = await host.stats();
        times.push(st.lastFrameUpdateMs);
        if (process.env.INSPECTOR_PERF_DEBUG) console.log(st.lastFrameUpdateMs.toFixed(2), JSON.stringify(st.lastFrameParts));
      }
      assert.equal((await host.page.$$eval('#contacts-table tbody tr', (rows) => rows.length)) <= 40, true);
      const sorted = [...times].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)];
      const quartile = sorted[Math.floor(sorted.length / 4)];
      const max = sorted[sorted.length - 1];
      console.log(
        `      frame update (${CONTACTS} contacts, A 600×600, ${CHANGES} changes): lower quartile ${quartile.toFixed(2)} ms, median ${median.toFixed(2)} ms, max ${max.toFixed(2)} ms, min ${sorted[0].toFixed(2)} ms (budget ${BUDGET_MS} ms; load ${loadavg()[0].toFixed(2)})`,
      );
      assert.equal((await host.stats()).frameUpdates - first, CHANGES, 'one frame update per step, none repeated');
      assert.ok(
        times.every((t) => Number.isFinite(t) && t > 0),
        'every update measured',
      );
      assert.equal(host.frameFor, frameFor);
      assert.equal(await host.text('#frame-readout'), `frame ${CHANGES} / ${f.model.info.frameCount} · t = ${((CHANGES + 1) / 60).toFixed(4)} s`);
      assert.deepEqual(host.pageErrors, []);
    } finally {
      await host.close();
    }
  });
});
