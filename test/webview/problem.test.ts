/**
 * The inspector webview in problem-file mode (webview/problemPanel.ts): the FCLIB "Boxes Stack" problem as the
 * worker builds it (src/extension/model/problemView.ts) rendered in headless Chromium — its sizes, the
 * header that says it has no bodies and one frame, A's heat map, one table row per contact and one row per
 * solver with the numbers of the view — and a bad file as its one-line error. Screenshots in
 * artifacts/screenshots/problem-*.png.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { openProblemView } from '../../src/extension/model/problemView.js';
import { PROTOCOL_VERSION } from '../../src/protocol/inspector.js';
import type { ProblemView } from '../../src/protocol/problem.js';
import { launchBrowser, ProblemHost, ROOT, THEMES, type ThemeName } from './harness.js';

const COPY = join(ROOT, 'examples', 'problems', 'fclib-boxes-stack.json');
const OUT = join(ROOT, 'artifacts/screenshots');

/** As the table shows a number (webview/format.ts num with 4 digits). */
const shown = (x: number | null) => (x === null ? '–' : x.toPrecision(4));

describe('webview: a problem file (no bodies, one frame)', () => {
  let browser: Browser;
  let view: ProblemView;
  before(async function () {
    this.timeout(120_000);
    browser = await launchBrowser();
    view = await openProblemView(COPY, 'fclib-boxes-stack.json');
    mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
  });

  it('shows 48 contacts, 144 unknowns, rank 72, the header, the heat map and each solver’s row with the view’s numbers', async () => {
    const host = await ProblemHost.open(browser, { type: 'problem', version: PROTOCOL_VERSION, view });
    try {
      const size = (k: string) => host.text(`#problem-sizes dd[data-key="${k}"]`);
      assert.equal(await size('contacts'), '48');
      assert.equal(await size('unknowns'), '144');
      assert.equal(await size('rank'), '72');
      assert.equal(await size('rankRatio'), '2.00');
      assert.equal(await size('kappa'), '∞');
      assert.equal(await size('kappaRange'), shown(view.matrix.kappaRange!));
      assert.match(await host.text('#problem-header'), /problem file: no bodies, one frame/);
      assert.ok(await host.page.isVisible('#scene-empty'));
      assert.match(await host.text('#scene-empty'), /no bodies in a problem file/);
      assert.match(await host.text('#session-title'), /fclib-boxes-stack/);
      // what needs frames or bodies is hidden, not broken
      for (const id of ['#timeline', '#frame-status', '#panel-findings', '#contacts-scroll', '#whatif-form', '#panel-energy', '#scene-canvas'])
        assert.equal(await host.page.isVisible(id), false, `${id} is hidden`);
      // A: one 144×144 heat map with κ on the range and the rank cause
      assert.match(await host.text('#matrix-view'), /48 contacts · A 144×144/);
      assert.match(await host.text('#matrix-view'), /rank ratio rows\/rank 2\.00/);
      assert.match(await host.text('#matrix-view'), /rank 72 of 144/);
      // W is singular (rank 72, no regularisation): κ(A) is ∞ here as in the header, not "unknown"
      assert.match(await host.text('#matrix-view'), /κ\(A\) ∞ · λmin/);
      const drawn = await host.page.$eval('#matrix-view canvas.heatmap', (c: any) => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
        return n;
      });
      assert.ok(drawn > 144 * 144 * 0.5, `heat map pixels ${drawn}`);
      // one row per contact; μ, b_n and each solver's λn and w_n as the view has them
      assert.equal(await host.page.locator('#problem-contacts tbody tr').count(), 48);
      assert.equal(await host.text('#contacts-count'), '(48)');
      for (const c of [0, 17, 47]) {
        const row = `#problem-contacts tbody tr[data-contact="${c}"]`;
        assert.equal(await host.text(`${row} td[data-col="mu"]`), shown(view.table[c].mu));
        assert.equal(await host.text(`${row} td[data-col="bN"]`), shown(view.table[c].bN));
        for (const s of view.solvers) {
          assert.equal(await host.text(`${row} td[data-col="${s.solver}-lambdaN"]`), shown(s.lambdaN[c]), `${s.solver} λn #${c}`);
          assert.equal(await host.text(`${row} td[data-col="${s.solver}-wN"]`), shown(s.wN[c]), `${s.solver} w_n #${c}`);
        }
      }
      // one row per solver: status, iterations, both merits
      assert.deepEqual(await host.page.$$eval('#problem-solvers tbody tr', (rs: any[]) => rs.map((r) => r.dataset.solver)), [
        'pgs',
        'newton',
        'ipm',
        'coulomb',
      ]);
      for (const s of view.solvers) {
        const row = `#problem-solvers tbody tr[data-solver="${s.solver}"]`;
        assert.equal(await host.text(`${row} td[data-col="status"]`), s.status);
        assert.equal(await host.text(`${row} td[data-col="iterations"]`), String(s.iterations));
        assert.equal(await host.text(`${row} td[data-col="kkt"]`), shown(s.kkt));
        assert.equal(await host.text(`${row} td[data-col="coulomb"]`), shown(s.coulomb));
        const decides = await host.page.getAttribute(`${row} td.decides`, 'data-col');
        assert.equal(decides, s.meritKind, `${s.solver}: the merit its status was decided on is marked`);
      }
      assert.equal(await host.text('#problem-solvers tbody tr[data-solver="coulomb"] td[data-col="status"]'), 'converged');
      const body = await host.text('body');
      assert.ok(!/NaN|undefined/.test(body), 'no NaN or undefined on the page');
      assert.deepEqual(host.pageErrors, []);
      assert.deepEqual(host.cspViolations, []);
    } finally {
      await host.close();
    }
  });

  it('keyboard: Tab reaches the contact table and Page Down scrolls it', async () => {
    const host = await ProblemHost.open(browser, { type: 'problem', version: PROTOCOL_VERSION, view });
    try {
      await host.page.focus('#problem-contacts-scroll');
      const before = await host.page.$eval('#problem-contacts-scroll', (e: any) => e.scrollTop);
      await host.page.keyboard.press('PageDown');
      await host.page.waitForFunction((b) => (globalThis as any).document.getElementById('problem-contacts-scroll').scrollTop > b, before, { timeout: 5000 });
      // the scroll box is in the tab order
      assert.equal(await host.page.$eval('#problem-contacts-scroll', (e: any) => e.tabIndex), 0);
    } finally {
      await host.close();
    }
  });

  it('a corrupt file shows its one line naming the file and the field, and nothing else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-problem-webview-'));
    try {
      const path = join(dir, 'bad.problem.json');
      writeFileSync(path, '{"schema_version":1,"id":"x","num_contacts":1,"n":3,"A":[1,0,0,0,1,0,0,0,1],"b":[1,0,0],"mu":[-1]}');
      const message = await openProblemView(path, 'bad.problem.json').then(
        () => assert.fail('a negative μ must be refused'),
        (e: Error) => e.message,
      );
      assert.match(message, /^bad\.problem\.json: mu/);
      const host = await ProblemHost.open(browser, { type: 'problemError', file: 'bad.problem.json', message });
      try {
        assert.equal(await host.text('#problem-error'), message);
        assert.equal(await host.text('#session-title'), 'bad.problem.json');
        assert.equal(await host.page.isVisible('main.layout'), false);
        assert.equal(await host.page.isVisible('#panel-scene'), false);
        assert.deepEqual(host.pageErrors, []);
      } finally {
        await host.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const theme of ['dark', 'light', 'hc'] as ThemeName[]) {
    it(`renders the ${theme} theme and saves problem-${theme}.png`, async () => {
      const host = await ProblemHost.open(browser, { type: 'problem', version: PROTOCOL_VERSION, view }, { theme });
      try {
        const bg = await host.page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor);
        const hex = THEMES[theme].vars['--vscode-editor-background'];
        assert.equal(bg, `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`);
        const file = join(OUT, `problem-${theme}.png`);
        await host.page.screenshot({ path: file, fullPage: true });
        assert.ok(statSync(file).size > 20000, 'screenshot has content');
      } finally {
        await host.close();
      }
    });
  }
});
