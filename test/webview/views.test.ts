/** What the inspector shows, checked against the numbers of the real InspectorModel. */
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { FakeHost, launchBrowser, recordingFixture, sceneFixture } from './harness.js';
import { syntheticFrame } from './synthetic.js';
import { columnScale, inScale, si } from '../../webview/format.js';
import type { ContactView } from '../../src/protocol/inspector.js';

/** A table cell as the formatter writes it: the value in its column's scale for the frame (one SI prefix per column). */
function cell(contacts: readonly ContactView[], k: number, f: (c: ContactView) => number | null, unit: string, digits = 4): { text: string; unit: string } {
  const s = columnScale(
    contacts.map((c) => f(c)),
    unit,
    digits,
  );
  return { text: inScale(f(contacts[k]), s), unit: s.unit || '–' };
}

const CANVASES = ['#energy-chart', '#lambda-chart', '#solver-chart', '#kappa-chart', '#convergence-chart', '#matrix-view canvas.heatmap'];

/** Text of every cell of the rendered rows (without the padding that aligns the columns), by data-col, in DOM order. */
async function rows(host: FakeHost): Promise<{ index: number; cells: Record<string, { text: string; title: string }> }[]> {
  return host.page.$$eval('#contacts-table tbody tr', (trs: any[]) =>
    trs.map((tr) => ({
      index: Number(tr.dataset.index),
      cells: Object.fromEntries([...tr.cells].map((td: any) => [td.dataset.col, { text: td.textContent.trim(), title: td.title }])),
    })),
  );
}

describe('webview views', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  describe('scenario (fault-restitution-target, first scenario)', () => {
    let host: FakeHost;
    let impact: number;
    beforeEach(async () => {
      const f = sceneFixture();
      impact = f.model.findings[0].index;
      host = await FakeHost.open(browser, f.model, f.source, { index: impact });
      await host.waitForIndex(impact);
    });
    afterEach(async () => {
      await host?.close();
    });

    it('the contact table shows the model frame view at the impact frame (λn, ‖λt‖, state, excess …)', async () => {
      const v = host.model.frameView(impact);
      assert.ok(v.contacts.length >= 1 && v.contacts[0].lambdaN > 1, 'the impact frame has a real impulse');
      const r = await rows(host);
      assert.equal(r.length, v.contacts.length);
      const c = v.contacts[0];
      assert.equal(r[0].index, 0);
      // numbers in their column's SI scale (λn 11.75 in an "N·s" column, depth 30.04 in "mm"), units in the header,
      // the full value in SI units in the title (the old table printed toPrecision(6) in base units: 0.0300422 m)
      const cs = v.contacts;
      const lambdaN = cell(cs, 0, (x) => x.lambdaN, 'N·s');
      assert.equal(r[0].cells.lambdaN.text, lambdaN.text);
      assert.equal(await host.text('#contacts-table th[data-col="lambdaN"] .unit'), lambdaN.unit);
      assert.equal(r[0].cells.lambdaN.title, `${c.lambdaN} N·s`);
      assert.equal(r[0].cells.lambdaT.text, cell(cs, 0, (x) => x.lambdaT, 'N·s').text);
      assert.equal(r[0].cells.excess.text, cell(cs, 0, (x) => x.excess, 'm/s').text);
      const depth = cell(cs, 0, (x) => x.depth, 'm');
      assert.equal(r[0].cells.depth.text, depth.text);
      assert.equal(depth.unit, 'mm', 'a 30 mm overlap reads in mm');
      assert.equal(await host.text('#contacts-table th[data-col="depth"] .unit'), 'mm');
      assert.equal(r[0].cells.mu.text, cell(cs, 0, (x) => x.mu, '', 3).text);
      // it leaves at 7.17 m/s: open, whatever its impulse
      assert.equal(c.state, 'open');
      assert.equal(r[0].cells.state.text, c.state);
      // nothing is cut: the point and the normal are whole
      assert.ok(!/…/.test(r[0].cells.point.text + r[0].cells.normal.text), `${r[0].cells.point.text} | ${r[0].cells.normal.text}`);
      assert.equal(r[0].cells.bodies.text, `${c.bodyA}–${c.bodyB}`);
      assert.equal(r[0].cells.frictionPower.text, cell(cs, 0, (x) => x.frictionPower, 'J').text);
      assert.match(await host.text('#frame-status'), new RegExp(`solver ${v.solver} · ${v.status}`));
    });

    it('the energy readout equals timeline total, its change since the first frame, kinetic and potential at the index', async () => {
      const t = host.model.timeline;
      const text = await host.text('#energy-values');
      const dE = t.total[impact] - t.total[0];
      assert.equal(
        text,
        `E ${si(t.total[impact], 'J', 5)} · ΔE ${dE > 0 ? '+' : ''}${si(dE, 'J')} since frame ${t.frame[0]} · kinetic ${si(t.kinetic[impact], 'J', 4)} · potential ${si(t.potential[impact], 'J', 4)}`,
      );
      assert.ok(dE > 1, `the planted fault added ${dE} J by the impact`);
      await host.page.keyboard.press('ArrowRight');
      await host.waitForIndex(impact + 1);
      assert.ok((await host.text('#energy-values')).startsWith(`E ${si(t.total[impact + 1], 'J', 5)} · `));
    });

    it('every chart canvas and the A heat map have drawn pixels; the λ chart starts on the largest-λn contact, a row click selects', async () => {
      const view = host.model.frameView(impact);
      const top = view.contacts.reduce((a, c) => (c.lambdaN > a.lambdaN ? c : a));
      for (let k = 0; k < 100 && host.messages('series').length === 0; k++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(host.messages('series')[0].keys, [top.key], 'before any pick the λ chart plots the largest-λn contact');
      assert.equal((await host.page.$$('#contacts-table tbody tr.selected')).length, 0, 'that default is not a table selection');
      await host.page.waitForFunction(() => {
        const c = (globalThis as any).document.querySelector('#lambda-chart');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
        return n > 500;
      });
      await host.page.click('#contacts-table tbody tr[data-index="0"]');
      for (let k = 0; k < 100 && host.messages('series').length < 2; k++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(host.messages('series').at(-1)!.keys, [view.contacts[0].key]);
      for (const sel of CANVASES) {
        const n = await host.drawnPixels(sel);
        assert.ok(n > 500, `${sel} looks blank (${n} drawn pixels)`);
      }
      // the heat map marks the selected contact (yellow outline) — pixel at the block corner is not background
      assert.ok((await host.page.$$('#contacts-table tbody tr.selected')).length === 1);
    });

    it('the A-matrix view shows κ, λmin/λmax, rank deficiency and method of each island', async () => {
      const isl = host.model.frameView(impact).islands;
      const stats = await host.page.$$eval('#matrix-view .island:not([hidden]) .island-stats', (e: any[]) => e.map((x) => x.textContent));
      assert.equal(stats.length, isl.length);
      assert.match(stats[0], new RegExp(`κ\\(A\\) ${isl[0].kappa!.toPrecision(6).replace('.', '\\.')}`));
      assert.match(stats[0], new RegExp(`method ${isl[0].method}`));
      assert.match(stats[0], /rank deficiency 0/);
      // full rank (one contact): κ on the range of A is κ itself, FCLIB's rank ratio rows/rank is 1
      assert.match(stats[0], new RegExp(`κ on range\\(A\\) ${isl[0].kappaRange!.toPrecision(6).replace('.', '\\.')} · rank ratio rows/rank 1\\.00`));
    });

    it('findings: list with mechanism and count; a click seeks to its index and selects its contacts', async () => {
      const fs = host.model.findings;
      assert.equal(await host.text('#findings-count'), String(fs.length));
      const items = await host.page.$$eval('#findings .finding', (e: any[]) => e.map((x) => ({ index: Number(x.dataset.index), text: x.textContent })));
      assert.deepEqual(
        items.map((x) => x.index),
        fs.map((f) => f.index),
      );
      assert.ok(items[0].text.includes(fs[0].mechanism));
      const second = fs[1];
      await host.page.click(`#findings .finding[data-index="${second.index}"]`);
      await host.waitForIndex(second.index);
      assert.equal(host.lastSeek()?.index, second.index);
      const keys = host.model
        .frameView(second.index)
        .contacts.filter((c) => second.contacts.includes(c.index))
        .map((c) => c.key);
      await host.page.waitForSelector(`#contacts-table tbody tr.selected[data-index="${second.contacts[0]}"]`);
      for (let k = 0; k < 100 && host.messages('series').length === 0; k++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(host.messages('series').at(-1)?.keys, keys);
    });

    it('what-if: sends the chosen solver/options and shows recorded vs alternative from the model', async () => {
      await host.page.evaluate(() => {
        const d = (globalThis as any).document;
        d.getElementById('whatif-solver').value = 'pgs';
        d.getElementById('whatif-max-iterations').value = '7';
      });
      await host.page.click('#whatif-run');
      await host.page.waitForSelector('#whatif-result .whatif-contacts');
      const req = host.messages('whatIf').at(-1)!;
      assert.deepEqual(req.options, { solver: 'pgs', maxIterations: 7, warmStart: false });
      assert.equal(req.index, impact);
      const expected = host.model.whatIf(impact, req.options);
      const text = await host.text('#whatif-result');
      assert.ok(text.includes(expected.recorded.kineticEnergyChange.toPrecision(6)), 'recorded ΔKE');
      assert.ok(text.includes(expected.alternative.kineticEnergyChange.toPrecision(6)), 'alternative ΔKE');
      const alt = await host.page.$eval('#whatif-result .whatif-contacts tbody tr[data-index="0"] td[data-col="alternativeN"]', (e: any) => e.textContent);
      assert.equal(alt, expected.contacts[0].alternativeN.toPrecision(6));
      const wn = await host.page.$eval('#whatif-result .whatif-contacts tbody tr[data-index="0"] td[data-col="recordedWn"]', (e: any) => e.title);
      assert.equal(Number(wn), expected.contacts[0].recordedWn, 'normal velocity after the recorded impulse, full precision in the title');
      assert.match(text, new RegExp(`${expected.alternative.status} / ${expected.alternative.iterations}`));
      // titled with the frame number the readout shows, not the session index
      const frame = host.model.frameView(impact).frame;
      assert.equal(await host.text('#whatif-result .whatif-title'), `frame ${frame}: recorded vs pgs`);
      assert.ok((await host.text('#frame-readout')).startsWith(`frame ${frame} /`));
    });

    it('what-if rejects a bad tolerance in the form without sending a request', async () => {
      await host.page.evaluate(() => {
        (globalThis as any).document.getElementById('whatif-tolerance').value = '-1';
      });
      await host.page.click('#whatif-run');
      await host.page.waitForSelector('#whatif-result .whatif-error');
      assert.equal(host.messages('whatIf').length, 0);
    });

    it('sorting by a header orders the rows and a second click reverses them', async () => {
      // a synthetic 30-contact frame answered for the next seek
      host.frameFor = (i) => syntheticFrame(i, 30, { withMatrix: false });
      await host.page.keyboard.press('ArrowRight');
      await host.page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#contacts-table tbody tr').length >= 10);
      const v = syntheticFrame(impact + 1, 30);
      await host.page.click('#contacts-table th[data-col="lambdaN"]');
      let r = await rows(host);
      const asc = [...v.contacts].sort((a, b) => a.lambdaN - b.lambdaN);
      assert.deepEqual(
        r.map((x) => x.index),
        asc.slice(0, r.length).map((c) => c.index),
      );
      assert.equal(await host.page.getAttribute('#contacts-table th[data-col="lambdaN"]', 'aria-sort'), 'ascending');
      await host.page.click('#contacts-table th[data-col="lambdaN"]');
      r = await rows(host);
      assert.deepEqual(
        r.map((x) => x.index),
        [...asc]
          .reverse()
          .slice(0, r.length)
          .map((c) => c.index),
      );
      await host.page.click('#contacts-table th[data-col="state"]');
      r = await rows(host);
      const states = r.map((x) => x.cells.state.text);
      assert.deepEqual(states, [...states].sort());
    });

    it('virtualises: 2000 contacts keep the DOM rows bounded and scrolling shows the right rows', async () => {
      host.frameFor = (i) => syntheticFrame(i, 2000, { withMatrix: false });
      await host.page.keyboard.press('ArrowRight');
      await host.page.waitForFunction(() => /\(2000\)/.test((globalThis as any).document.getElementById('contacts-count').textContent));
      // the scroll box grows from one row to its max height after layout; the table re-measures on its
      // ResizeObserver callback, which may come after the frame message's render (then give it that frame)
      await host.page
        .waitForFunction(() => (globalThis as any).document.querySelectorAll('#contacts-table tbody tr').length > 5, undefined, { timeout: 2000 })
        .catch(() => {});
      const count = await host.page.$$eval('#contacts-table tbody tr', (t) => t.length);
      assert.ok(count > 5 && count <= 40, `rendered rows ${count}`);
      const scrollH = await host.page.$eval('#contacts-scroll', (e: any) => e.scrollHeight);
      assert.ok(scrollH > 2000 * 18, `scroll height covers all rows (${scrollH})`);
      await host.page.$eval('#contacts-scroll', (e: any) => {
        e.scrollTop = 1000 * 22;
        e.dispatchEvent(new Event('scroll'));
      });
      await host.page.waitForFunction(() => Number((globalThis as any).document.querySelector('#contacts-table tbody tr').dataset.index) > 900);
      const first = await host.page.$eval('#contacts-table tbody tr', (e: any) => Number(e.dataset.index));
      assert.ok(first >= 950 && first <= 1050, `first visible row ${first}`);
      assert.ok((await host.page.$$('#contacts-table tbody tr')).length <= 40);
      const heat = await host.page.$eval('#matrix-view .island:not([hidden]) .island-stats', (e: any) => e.textContent);
      assert.match(heat, /A not shown: A has 6000 rows/);
    });
  });

  describe('pending conditioning', () => {
    it('an island sent with its conditioning pending shows it as computing; the conditioning message fills it in', async () => {
      const f = sceneFixture();
      const impact = f.model.findings[0].index;
      const full = f.model.frameView(impact);
      const isl = full.islands[0];
      const pendingView = {
        ...full,
        islands: [
          {
            ...isl,
            kappa: null,
            lambdaMin: null,
            lambdaMax: null,
            rankDeficiency: null,
            kappaRange: null,
            rankRatio: null,
            method: null,
            causes: [],
            conditioningPending: true,
          },
        ],
      };
      const host = await FakeHost.open(browser, f.model, f.source, { index: impact, frameFor: () => pendingView });
      try {
        await host.waitForIndex(impact);
        const stats = () => host.page.$eval('#matrix-view .island:not([hidden]) .island-stats', (e: any) => e.textContent as string);
        assert.match(await stats(), /κ\(A\) … ·/);
        assert.match(await stats(), /method computing…/);
        const { contacts: _c, size: _s, heat: _h, reason: _r, conditioningPending: _p, ...cond } = isl;
        // for another frame: ignored
        await host.deliver({ type: 'conditioning', index: impact + 1, islands: [{ island: 0, ...cond }] });
        assert.match(await stats(), /method computing…/);
        await host.deliver({ type: 'conditioning', index: impact, islands: [{ island: 0, ...cond }] });
        assert.match(await stats(), new RegExp(`κ\\(A\\) ${isl.kappa!.toPrecision(6).replace('.', '\\.')}`));
        assert.match(await stats(), new RegExp(`method ${isl.method}`));
        assert.deepEqual(host.pageErrors, []);
      } finally {
        await host.close();
      }
    });
  });

  describe('convergence plot', () => {
    it('draws the frame’s residuals; hovering shows an iteration and its residual; an empty history says so', async () => {
      const f = sceneFixture();
      const frameFor = (i: number) => {
        const v = syntheticFrame(i, 3);
        return i === 1 ? { ...v, residuals: [], iterations: null } : v;
      };
      const host = await FakeHost.open(browser, f.model, f.source, { index: 0, frameFor });
      try {
        const v = frameFor(0);
        assert.ok((await host.drawnPixels('#convergence-chart')) > 500);
        const label = await host.page.getAttribute('#convergence-chart', 'aria-label');
        assert.equal(label, `residual ${v.residuals[0]!.toPrecision(3)} at iteration 1 to ${v.residuals[39]!.toPrecision(3)} at iteration 40`);
        // the plot spans x from its left margin to 12 px from the right: the pointer at 3/4 of the canvas
        // lands on an iteration in the last half; the tooltip names it and its exact residual
        const plot = host.page.locator('#convergence-chart');
        const box = (await plot.boundingBox())!;
        await plot.hover({ position: { x: box.width * 0.75, y: box.height / 2 } });
        await host.page.waitForSelector('.plot-tip:not([hidden])');
        const tip = await host.text('.plot-tip');
        const m = /^iteration (\d+) · residual (\S+)$/.exec(tip);
        assert.ok(m, tip);
        const it = Number(m[1]);
        assert.ok(it > 20 && it <= 40, tip);
        assert.equal(m[2], v.residuals[it - 1]!.toPrecision(6));
        await host.page.keyboard.press('ArrowRight');
        await host.waitForIndex(1);
        assert.equal(await host.page.getAttribute('#convergence-chart', 'aria-label'), 'no residuals recorded for this frame');
        assert.ok(await host.page.isHidden('.plot-tip'), 'a new frame hides the tooltip');
        assert.deepEqual(host.pageErrors, []);
      } finally {
        await host.close();
      }
    });
  });

  describe('recording (foreign-engine.rec.jsonl)', () => {
    it('loads a foreign recording: readout, 4 contacts from the model, findings, solver/iteration chart drawn', async () => {
      const f = await recordingFixture();
      const host = await FakeHost.open(browser, f.model, f.source, { index: 3 });
      try {
        await host.waitForIndex(3);
        const v = f.model.frameView(3);
        const r = await rows(host);
        assert.equal(r.length, v.contacts.length);
        r.forEach((row) => assert.equal(row.cells.lambdaN.text, cell(v.contacts, row.index, (x) => x.lambdaN, 'N·s').text));
        assert.equal(await host.text('#findings-count'), String(f.model.findings.length));
        assert.ok((await host.drawnPixels('#convergence-chart')) > 500);
        assert.match(await host.text('#session-meta'), /acme-physics 3\.2\.1/);
        assert.deepEqual(host.cspProblems(), []);
      } finally {
        await host.close();
        f.model.close();
      }
    });
  });
});
