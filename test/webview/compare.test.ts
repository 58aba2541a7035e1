/**
 * Compare mode in the page (headless Chromium, the real bundle; the host answers from the real CompareModel):
 * newton against ipm on box-stack-10 — the banner names the first divergence and its kind, D and the button jump
 * to it, the contact table shows run b's λ and Δ, the scene view draws b's bodies, the charts carry b's series,
 * the re-solve buttons answer, and the engines table lists its rows.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { FakeHost, launchBrowser, ROOT } from './harness.js';
import { recordBoxStack } from '../exampleRecording.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import { CompareModel } from '../../src/extension/model/compareModel.js';
import { Session } from '../../src/session/session.js';
import type { EnginesView } from '../../src/protocol/compare.js';

describe('webview: compare mode (newton vs ipm on box-stack-10)', function () {
  this.timeout(120_000);
  let browser: Browser;
  let dir: string;
  let host: FakeHost;
  let model: InspectorModel;
  let cmp: CompareModel;
  before(async () => {
    browser = await launchBrowser();
    dir = mkdtempSync(join(tmpdir(), 'cl-webview-compare-'));
    const a = recordBoxStack(dir, 'newton', 20),
      b = recordBoxStack(dir, 'ipm', 20);
    model = await InspectorModel.fromRecording(a);
    cmp = new CompareModel(model.session, Session.fromRecording(b), { title: 'stack-ipm.rec.jsonl', file: b });
    host = await FakeHost.open(browser, model, { kind: 'recording', file: a }, { index: 5 });
    await host.waitForIndex(5);
    host.compare = cmp;
    await host.deliver({ type: 'compare', compare: cmp.view });
    await host.page.waitForFunction(() => (globalThis as any).document.body.classList.contains('comparing'));
  });
  after(async () => {
    await host?.close();
    cmp?.close();
    model?.close();
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the banner names the first divergence and its kind; D jumps to it', async () => {
    const banner = await host.page.textContent('#compare-banner');
    assert.match(banner ?? '', /first divergence at frame 0 \(t = 0\.0166667 s\): solve — lambda/);
    assert.equal(await host.page.isVisible('#timeline-divergence'), true);
    await host.page.keyboard.press('d');
    await host.waitForIndex(0);
    assert.deepEqual(host.pageErrors, []);
  });

  it('the contact table shows run b’s λn and Δλn beside a’s; the scene view draws b’s bodies', async () => {
    await host.waitForFrameUpdates(3);
    const cells = await host.page.$$eval('#contacts-table tbody tr:first-child td', (tds: any[]) =>
      Object.fromEntries(tds.map((td) => [td.dataset.col, { text: td.textContent.trim(), visible: td.offsetWidth > 0 }])),
    );
    assert.equal(cells.bLambdaN.visible, true);
    assert.equal(cells.dLambdaN.visible, true);
    assert.notEqual(cells.bLambdaN.text, '–');
    const legend = await host.page.textContent('#scene-legend');
    assert.match(legend ?? '', /run b’s bodies see-through/);
    const datasets = await host.page.evaluate(() => (globalThis as any).document.getElementById('energy-chart') !== null);
    assert.ok(datasets);
  });

  it('re-solve buttons: b’s solver on a’s problem answers with a table beside the other run’s λ', async () => {
    await host.page.click('#compare-b-with-a');
    await host.page.waitForFunction(() =>
      /run b's solver \(ipm\) on run a's problem/.test((globalThis as any).document.getElementById('compare-whatif-result').textContent),
    );
    const rows = await host.page.$$eval('#compare-whatif-result tbody tr', (trs: any[]) => trs.length);
    assert.equal(rows, 40);
  });

  it('a full-page picture of compare mode, real runs only (artifacts/screenshots/webview-compare.png): banner, a/b/Δ columns, compare panel', async () => {
    const out = join(ROOT, 'artifacts/screenshots');
    mkdirSync(out, { recursive: true });
    await host.page.keyboard.press('d');
    await host.waitForIndex(0);
    await host.page.click('#compare-b-with-a');
    await host.page.waitForSelector('#compare-whatif-result tbody tr');
    await host.page.evaluate(() => (globalThis as any).scrollTo(0, 0));
    const file = join(out, 'webview-compare.png');
    await host.page.screenshot({ path: file, fullPage: true });
    assert.ok(statSync(file).size > 20000, 'screenshot has content');
    assert.deepEqual(host.cspProblems(), []);
    assert.deepEqual(host.pageErrors, []);
  });

  it('the engines table: one row per engine, a compare button on the others', async () => {
    const engines: EnginesView = {
      scenario: 'box-stack-10',
      frames: 20,
      notes: [],
      rows: [
        {
          engine: 'ours',
          title: 'Contact Lens (coulomb)',
          status: 'ok',
          energyDrift: 0,
          injected: 0,
          injectedBy: [],
          maxPenetration: 0,
          jitter: 0,
          coneViolations: 0,
          frictionFitted: false,
          iterationsMean: 1,
          iterationsMax: 2,
          stepMs: 20,
          divergence: null,
          comparable: false,
        },
        {
          engine: 'jolt',
          title: 'jolt-physics 1.1.0',
          status: 'ok',
          energyDrift: -0.7,
          injected: 1.2,
          injectedBy: [{ mechanism: 'non-converged-solve', joules: 1.2 }],
          maxPenetration: 0.008,
          jitter: 0,
          coneViolations: 0,
          frictionFitted: true,
          iterationsMean: 10,
          iterationsMax: 10,
          stepMs: 3,
          divergence: 'frame 0: problem (normal)',
          comparable: true,
        },
        {
          engine: 'mujoco',
          title: 'MuJoCo',
          status: 'unavailable',
          error: 'the MuJoCo engine is not available',
          energyDrift: null,
          injected: null,
          injectedBy: [],
          maxPenetration: null,
          jitter: null,
          coneViolations: null,
          frictionFitted: false,
          iterationsMean: null,
          iterationsMax: null,
          stepMs: null,
          divergence: null,
          comparable: false,
        },
      ],
    };
    await host.deliver({ type: 'engines', engines });
    await host.page.waitForSelector('#panel-engines:not([hidden]) tbody tr');
    const text = await host.page.$$eval('#engines-table tbody tr', (trs: any[]) => trs.map((tr) => tr.textContent));
    assert.equal(text.length, 3);
    assert.match(text[1], /frame 0: problem \(normal\)/);
    assert.match(text[2], /unavailable/);
    await host.page.click('#engines-table tr[data-engine="jolt"] vscode-button');
    await host.page.waitForFunction(() => true);
    const sent = host.messages('compareEngine');
    assert.deepEqual(
      sent.map((m) => m.engine),
      ['jolt'],
    );
  });
});
