/**
 * The live bar and following in the real webview (headless Chromium, webview/liveBar.ts, webview/main.ts): rows
 * appended by live updates grow the timeline, the view follows the newest frame ("● LIVE") until the user steps
 * back ("scrubbed back", End follows again), a break shows the frame the engine waits at, and the buttons and
 * break fields send live actions to the host.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { FakeHost, launchBrowser, ROOT } from './harness.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import { rowsOf } from '../../src/extension/live/liveFeed.js';
import { PROTOCOL_VERSION, type Timeline } from '../../src/protocol/inspector.js';
import { NO_BREAK, type LiveState, type LiveUpdate } from '../../src/protocol/live.js';
import { recordScenario } from '../live/harness.js';

/** Screenshots for a person to look at (as test/webview/screenshots.test.ts). */
const SHOTS = join(ROOT, 'artifacts/screenshots');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-webview-live-'));

describe('webview: a live session', function () {
  this.timeout(120_000);
  let browser: Browser;
  let host: FakeHost;
  let model: InspectorModel;
  const state = (o: Partial<LiveState> = {}): LiveState => ({
    mode: 'listening',
    stream: 'streaming',
    connect: { variable: 'CONTACT_LENS_LIVE', value: 'tcp://127.0.0.1:40000?token=0123456789abcdef0123456789abcdef', folder: '/tmp/live' },
    recording: '/tmp/live/live-1.rec.jsonl',
    frames: 0,
    rate: 60,
    paused: null,
    canBreak: true,
    breakOn: NO_BREAK,
    pausePending: false,
    others: 0,
    unfinishedBytes: 0,
    errorCount: 0,
    ...o,
  });
  const update = (from: number, to: number, o: Partial<LiveState> = {}, errors: string[] = []): LiveUpdate => ({
    type: 'live',
    rows: rowsOf(model.timeline, from, to),
    findings: model.findings.filter((f) => f.index >= from && f.index < to),
    state: state({ frames: to, ...o }),
    errors,
    mechanisms: ['restitution-overshoot', 'overlap-push-out'],
  });
  const lastIndex = (): Promise<number> => host.page.evaluate(() => (globalThis as any).__inspectorStats.lastIndex as number);
  const waitIndex = (i: number): Promise<unknown> =>
    host.page.waitForFunction(
      (k) => (globalThis as any).__inspectorStats?.lastIndex === k && (globalThis as any).document.getElementById('timeline-slider').value === String(k),
      i,
      {
        timeout: 20_000,
      },
    );
  const badge = (): Promise<string> => host.text('.live-badge');

  before(async () => {
    browser = await launchBrowser();
    const file = path.join(tmp, 'fault.rec.jsonl');
    recordScenario(path.join(ROOT, 'examples/fault-restitution-target.scene.json'), 'fault-restitution-target-sphere', 60, file);
    model = await InspectorModel.fromRecording(file);
  });
  after(async () => {
    await browser?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  beforeEach(async () => {
    host = await FakeHost.open(browser, model, { kind: 'recording', file: model.info.file });
    // the session as it was after its first 10 frames
    const t = model.timeline;
    const first: Timeline = { ...rowsOf(t, 0, 10), ledger: rowsOf(t, 0, 10).ledger, injection: rowsOf(t, 0, 10).injection };
    await host.deliver({
      type: 'init',
      version: PROTOCOL_VERSION,
      source: { kind: 'recording', file: model.info.file },
      info: { ...model.info, frameCount: 10 },
      timeline: first,
      findings: model.findings.filter((f) => f.index < 10),
      settings: { playbackFps: 30 },
      index: 9,
      scene: model.scene,
    });
    await waitIndex(9);
  });
  afterEach(async () => {
    assert.deepEqual(host.pageErrors, []);
    assert.deepEqual(host.invalidFromWebview, []);
    await host?.close();
  });

  it('follows the newest frame while frames arrive ("● LIVE"); scrubbed back it stays, End follows again', async () => {
    await host.deliver(update(10, 30));
    await waitIndex(29);
    assert.equal(await badge(), '● LIVE');
    assert.equal(await host.page.$eval('#timeline-slider', (s: any) => s.max), '29');
    assert.match(await host.text('#frame-readout'), /^frame 29 \/ 30 /);
    assert.match(await host.text('.live-detail'), /30 frames · 60 \/s/);
    assert.ok((await host.text('#findings')).includes('restitution-overshoot'), 'the frame-27 finding arrived with its rows');
    await host.page.keyboard.press('ArrowLeft');
    await waitIndex(28);
    assert.equal(await badge(), '● LIVE · scrubbed back (End follows)');
    await host.deliver(update(30, 40));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await lastIndex(), 28, 'scrubbed back: the view stays');
    assert.equal(await host.page.$eval('#timeline-slider', (s: any) => s.max), '39', 'the timeline grew');
    await host.page.keyboard.press('End');
    await waitIndex(39);
    await host.deliver(update(40, 45));
    await waitIndex(44);
    assert.equal(await badge(), '● LIVE');
  });

  it('a page that gets the session again (init) while the engine is paused shows the paused frame again, and a following view follows on', async () => {
    const paused = { stream: 'paused' as const, paused: { index: 27, frame: 27, reason: 'error finding, restitution-overshoot' } };
    await host.deliver(update(10, 28, paused));
    await waitIndex(27);
    // the host answers a (re)load with the session as it stands, at the index it last served, then the live state
    await host.deliver({
      type: 'init',
      version: PROTOCOL_VERSION,
      source: { kind: 'recording', file: model.info.file },
      info: { ...model.info, frameCount: 28 },
      timeline: rowsOf(model.timeline, 0, 28),
      findings: model.findings.filter((f) => f.index < 28),
      settings: { playbackFps: 30 },
      index: 1,
      scene: model.scene,
    });
    await host.deliver({ type: 'live', findings: [], state: state({ frames: 28, ...paused }), errors: [] });
    await waitIndex(27); // was: frame 1 of 28 (the real-editor break)
    assert.equal(await badge(), '⏸ PAUSED at frame 27');
    // continued: the view was on the newest frame before the init, so it follows the new frames
    await host.deliver(update(28, 35));
    await waitIndex(34);
    assert.equal(await badge(), '● LIVE');
  });

  it('a stream diagnosed on its own thread: rows first ("diagnosis N frames behind"), then their injection, κ and findings in an update without rows', async () => {
    const rows = rowsOf(model.timeline, 10, 30);
    const undiagnosed = {
      ...rows,
      injection: Object.fromEntries(Object.keys(rows.injection).map((k) => [k, new Array<number>(20).fill(0)])),
      kappa: new Array<number | null>(20).fill(null),
      kappaRange: new Array<number | null>(20).fill(null),
    };
    await host.deliver({ type: 'live', rows: undiagnosed, findings: [], state: state({ frames: 30, diagnosed: 10 }), errors: [] });
    await waitIndex(29);
    assert.match(await host.text('.live-detail'), /30 frames · 60 \/s · diagnosis 20 frames behind/);
    assert.ok(!(await host.text('#findings')).includes('restitution-overshoot'), 'frame 27 is not diagnosed yet');
    await host.deliver({
      type: 'live',
      diagnosed: { from: 10, injection: rows.injection, kappa: rows.kappa, kappaRange: rows.kappaRange },
      findings: model.findings.filter((f) => f.index >= 10 && f.index < 30),
      state: state({ frames: 30, diagnosed: 30 }),
      errors: [],
    });
    await host.page.waitForFunction(() => (globalThis as any).document.getElementById('findings').textContent.includes('restitution-overshoot'), null, {
      timeout: 20_000,
    });
    assert.doesNotMatch(await host.text('.live-detail'), /behind/);
    assert.equal(await lastIndex(), 29, 'the view stays on the newest frame');
  });

  it('a break shows the frame the engine waits at and why; Step, Continue, Pause and the break fields send actions', async () => {
    await host.deliver(update(10, 28, { stream: 'paused', paused: { index: 27, frame: 27, reason: 'error finding, restitution-overshoot: +23.1 J …' } }));
    await waitIndex(27);
    assert.equal(await badge(), '⏸ PAUSED at frame 27');
    assert.match(await host.text('.live-detail'), /break: error finding, restitution-overshoot/);
    assert.match(await host.text('.live-connect'), /CONTACT_LENS_LIVE=tcp:\/\/127\.0\.0\.1:40000\?token=/);
    // the live bar with the badge and the break, for a person to look at (artifacts/screenshots/live-break.png)
    mkdirSync(SHOTS, { recursive: true });
    await host.page.evaluate(() => (globalThis as any).scrollTo(0, 0));
    await host.page.screenshot({ path: join(SHOTS, 'live-break.png'), fullPage: true });
    assert.ok(statSync(join(SHOTS, 'live-break.png')).size > 20000, 'the screenshot has content');
    await host.page.click('#btn-live-step');
    await host.page.click('#btn-live-continue');
    await host.page.evaluate(() => {
      const d = (globalThis as any).document;
      const m = d.getElementById('live-break-mechanism');
      m.value = 'restitution-overshoot';
      m.dispatchEvent(new Event('change'));
    });
    await host.page.waitForFunction(() => true);
    await new Promise((r) => setTimeout(r, 200));
    const actions = host.messages('live').map((m) => m.action);
    assert.deepEqual(actions.slice(0, 2), [{ action: 'step' }, { action: 'continue' }]);
    assert.deepEqual(actions.at(-1), { action: 'breakOn', breakOn: { severity: 'off', mechanism: 'restitution-overshoot', frame: null } });
    await host.deliver(update(28, 29, {}, ['live-1.rec.jsonl: line 31: (json): malformed JSON at column 2: …']));
    assert.match(await host.text('.live-problems'), /line 31: \(json\): malformed JSON/);
    await host.page.click('#btn-live-pause');
    assert.deepEqual(host.messages('live').at(-1)?.action, { action: 'pause' });
  });
});
