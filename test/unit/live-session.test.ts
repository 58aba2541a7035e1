/**
 * The pieces of a live session that need no engine: the break controller's decisions (arm only when something
 * can stop the writer; stop at the matching frame or the first frame the writer waits on after it; step lets one
 * frame through; continue releases), the timeline rows host and webview append, the live messages' validation,
 * and a recording the inspector opened that grows on disk (the worker follows it).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { BreakController } from '../../src/extension/live/breakController.js';
import { ARM_LINE, DISARM_LINE, goLine, helloLine, parseLiveTarget, WELCOME_LINE } from '../../src/format/liveProtocol.js';
import { appendRows, NO_BREAK, rowsFrom, type TimelineRows } from '../../src/protocol/live.js';
import type { FindingView, Timeline } from '../../src/protocol/inspector.js';
import { validateHostMessage, validateWebviewMessage } from '../../src/protocol/validate.js';
import { serializeFrame, serializeHeader } from '../../src/format/recording.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { World } from '../../src/engine/world/world.js';
import { DIAGNOSIS, LiveWorker, ROOT, startEngine, until } from '../live/harness.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import { applyDiagnosisPatch } from '../../src/protocol/live.js';
import { updateDelay } from '../../src/extension/live/liveFeed.js';
import { warmModel, withWarmRecording } from '../../src/extension/live/warmUp.js';

const finding = (index: number, mechanism: string, severity: 'error' | 'warning' | 'info'): FindingView => ({
  index,
  frame: index,
  time: index / 60,
  contacts: [0],
  mechanism,
  joules: 1,
  explanation: '',
  headline: `+1 J ${mechanism}`,
  severity,
});

/** Read through a call: TypeScript would narrow b.state.paused after an assertion on it (a getter's value changes). */
const pausedOf = (b: BreakController) => b.state.paused;

function controller(): { b: BreakController; sent: string[]; changes: () => number } {
  const sent: string[] = [];
  let changes = 0;
  const b = new BreakController(
    (l) => sent.push(l),
    () => changes++,
  );
  return { b, sent, changes: () => changes };
}

describe('live: break controller', () => {
  it('arms the writer only while something can stop it; without a break the engine never waits', () => {
    const { b, sent } = controller();
    b.writerConnected();
    assert.deepEqual(sent, [], 'no condition: not armed');
    b.apply({ action: 'breakOn', breakOn: { severity: 'error', mechanism: null, frame: null } });
    assert.deepEqual(sent, [ARM_LINE]);
    b.apply({ action: 'breakOn', breakOn: NO_BREAK });
    assert.deepEqual(sent, [ARM_LINE, DISARM_LINE]);
  });

  it('a matching finding stops the writer at its frame (waited on); others are released as soon as diagnosed', () => {
    const { b, sent } = controller();
    b.apply({ action: 'breakOn', breakOn: { severity: 'off', mechanism: 'restitution-overshoot', frame: null } });
    b.writerConnected();
    sent.length = 0;
    b.writerWaiting(0); // the wait can arrive before the diagnosis…
    assert.deepEqual(sent, []);
    b.diagnosed(0, 0, [finding(0, 'overlap-push-out', 'warning')]); // …the answer waits for it
    assert.deepEqual(sent, [goLine(0)]);
    b.diagnosed(1, 1, [finding(1, 'restitution-overshoot', 'error')]);
    b.writerWaiting(1);
    assert.deepEqual(sent, [goLine(0)], 'held at frame 1');
    assert.equal(b.state.paused?.frame, 1);
    assert.match(b.state.paused!.reason, /^error finding, restitution-overshoot: \+1 J restitution-overshoot$/);
    b.apply({ action: 'step' });
    assert.deepEqual(sent.slice(1), [goLine(1)]);
    b.diagnosed(2, 2, []);
    b.writerWaiting(2);
    assert.equal(b.state.paused?.frame, 2, 'a step stops at the next frame');
    b.apply({ action: 'continue' });
    assert.deepEqual(sent.slice(2), [goLine(2)]);
    assert.equal(b.state.paused, null);
  });

  it('severity is "this or worse"; a frame break is one-shot; a match the writer did not wait on stops it at the next frame it waits on', () => {
    const { b, sent } = controller();
    b.apply({ action: 'breakOn', breakOn: { severity: 'warning', mechanism: null, frame: 5 } });
    b.writerConnected();
    b.diagnosed(3, 3, [finding(3, 'bias-injection', 'info')]);
    b.writerWaiting(3);
    assert.equal(pausedOf(b), null, 'info is below warning');
    b.diagnosed(4, 4, [finding(4, 'friction-positive-work', 'error')]); // not waited on (armed late)
    b.diagnosed(5, 5, []);
    b.writerWaiting(5);
    assert.equal(pausedOf(b)?.frame, 5);
    assert.match(pausedOf(b)!.reason, /at frame 4; the engine first waited after frame 5/);
    b.apply({ action: 'continue' });
    assert.equal(b.state.breakOn.frame, 5, 'the frame break was not what stopped it');
    b.diagnosed(6, 6, []);
    b.writerWaiting(6);
    assert.equal(pausedOf(b)?.frame, 6, 'frame 5 or later reached');
    assert.equal(b.state.breakOn.frame, null, 'one-shot');
    assert.ok(sent.includes(goLine(5)));
  });

  it('Pause arms, stops at the next frame; a writer that goes away releases everything', () => {
    const { b, sent } = controller();
    b.writerConnected();
    b.apply({ action: 'pause' });
    assert.deepEqual(sent, [ARM_LINE]);
    assert.equal(b.state.pausePending, true);
    b.diagnosed(10, 10, []);
    b.writerWaiting(10);
    assert.deepEqual(b.state.paused, { index: 10, frame: 10, reason: 'paused' });
    b.writerGone();
    assert.equal(b.state.paused, null);
  });
});

describe('live: updates to the host', () => {
  it("a 60 Hz engine's every frame goes to the host in the turn that read it; a flood is sent at most 100 times a second", () => {
    const last = 1000;
    // frames 1000/60 ms apart: no frame waits for the throttle (it waited 3.3 ms for a timer at 20 ms)
    assert.equal(updateDelay(last + 1000 / 60, last, false), 0);
    assert.equal(updateDelay(last + 10, last, false), 0);
    // a frame 2 ms after the last update waits for the rest of the 10 ms, with whatever else arrives meanwhile
    assert.equal(updateDelay(last + 2, last, false), 8);
    // a pause or the stream's end is never held back
    assert.equal(updateDelay(last + 2, last, true), 0);
  });
});

describe('live: timeline rows and messages', () => {
  const empty = (): Timeline => ({
    frame: [],
    time: [],
    contacts: [],
    status: [],
    iterations: [],
    residual: [],
    kinetic: [],
    potential: [],
    total: [],
    ledger: {},
    injection: {},
    kappa: [],
    kappaRange: [],
    maxDepth: [],
  });
  const rows = (from: number, n: number, ledger: Record<string, (number | null)[]> = {}): TimelineRows => ({
    from,
    frame: Array.from({ length: n }, (_, i) => from + i),
    time: Array.from({ length: n }, (_, i) => (from + i) / 60),
    contacts: new Array(n).fill(1),
    status: new Array(n).fill('converged'),
    iterations: new Array(n).fill(3),
    residual: new Array(n).fill(null),
    kinetic: new Array(n).fill(1),
    potential: new Array(n).fill(2),
    total: new Array(n).fill(3),
    ledger,
    injection: {},
    kappa: new Array(n).fill(null),
    kappaRange: new Array(n).fill(null),
    maxDepth: new Array(n).fill(0),
  });

  it('appendRows: columns grow together; a ledger part that appears late is null before; "constructor" is a ledger part like any other', () => {
    const t = empty();
    appendRows(t, rows(0, 2));
    appendRows(t, rows(2, 2, { constructor: [1, 2], normalWork: [0.5, null] }));
    assert.deepEqual(t.frame, [0, 1, 2, 3]);
    assert.deepEqual(t.ledger.constructor, [null, null, 1, 2]);
    assert.deepEqual(t.ledger.normalWork, [null, null, 0.5, null]);
    appendRows(t, rows(4, 1));
    assert.deepEqual(t.ledger.normalWork, [null, null, 0.5, null, null]);
    assert.throws(() => appendRows(t, rows(9, 1)), /live rows start at 9, the timeline has 5/);
    assert.deepEqual(rowsFrom(rows(3, 4), 5)?.frame, [5, 6], 'overlap dropped');
    assert.equal(rowsFrom(rows(7, 2), 5), null, 'a gap: nothing to append');
  });

  it('validation: a live update with columns of unequal length, or an action with a bad break, is refused naming the field', () => {
    const state = {
      mode: 'listening',
      stream: 'streaming',
      frames: 2,
      rate: 0,
      paused: null,
      canBreak: true,
      breakOn: NO_BREAK,
      pausePending: false,
      others: 0,
      unfinishedBytes: 0,
      errorCount: 0,
    };
    assert.doesNotThrow(() => validateHostMessage({ type: 'live', rows: rows(0, 2), findings: [], state, errors: [] }));
    const bad = { ...rows(0, 2), time: [0] };
    assert.throws(() => validateHostMessage({ type: 'live', rows: bad, findings: [], state, errors: [] }), /rows\.time must have 2 entries, has 1/);
    assert.doesNotThrow(() =>
      validateWebviewMessage({ type: 'live', action: { action: 'breakOn', breakOn: { severity: 'error', mechanism: 'bias-injection', frame: 12 } } }),
    );
    assert.throws(
      () => validateWebviewMessage({ type: 'live', action: { action: 'breakOn', breakOn: { severity: 'fatal', mechanism: null, frame: null } } }),
      /action\.breakOn\.severity must be one of off, error, warning, info/,
    );
    assert.throws(() => validateWebviewMessage({ type: 'live', action: { action: 'rewind' } }), /action\.action must be pause, step, continue or breakOn/);
  });
});

describe('live: a recording the inspector opened grows on disk', function () {
  this.timeout(120_000);
  it('the worker follows it: new frames and findings arrive as updates, a half-written line is waited for, the closing line ends it', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-follow-open-'));
    const scene = path.join(ROOT, 'examples/fault-restitution-target.scene.json');
    const world = new World(parseSceneFile(fs.readFileSync(scene, 'utf8'), scene).scenarios[0].desc);
    const header = serializeHeader(headerFromWorld(world));
    const frames = Array.from({ length: 60 }, () => serializeFrame(frameFromWorld(world, world.step())));
    const file = path.join(tmp, 'growing.rec.jsonl');
    fs.writeFileSync(file, `${header}\n${frames.slice(0, 10).join('\n')}\n${frames[10].slice(0, 80)}`);
    const live = new LiveWorker();
    try {
      const opened = await live.client.request({ op: 'openRecording', file, diagnosis: DIAGNOSIS, follow: true });
      assert.equal(opened.info.frameCount, 10);
      assert.deepEqual(opened.skipped, [], 'the half-written last line is waited for, not reported');
      live.opened = opened;
      fs.appendFileSync(file, `${frames[10].slice(80)}\n${frames.slice(11, 40).join('\n')}\n`);
      await until(() => live.state?.frames === 40 && live.state.stream === 'growing', 'the appended frames');
      assert.equal(live.opened.info.frameCount, 40, "the host's copy grew");
      assert.ok(
        live.opened.findings.some((f) => f.frame === 27 && f.mechanism === 'restitution-overshoot'),
        'the restitution finding of frame 27 arrived with its frame',
      );
      const v = await live.client.request({ op: 'frame', index: 27 });
      assert.equal(v.frame, 27, 'an appended frame is read back from the file');
      fs.appendFileSync(file, `${frames.slice(40).join('\n')}\n{"end":{"frames":60}}\n`);
      await until(() => live.state?.stream === 'ended' && live.state.frames === 60, 'the closing line');
      assert.equal(live.state?.mode, 'following');
      assert.equal(live.state?.canBreak, false, 'a file has no back-channel');
    } finally {
      live.dispose();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('live: a break set before the engine starts', function () {
  this.timeout(60_000);
  it("the writer's first read holds the welcome and the arm together, so it is armed from its first frame", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-live-arm-'));
    const live = await new LiveWorker().listen(tmp);
    try {
      await live.action({ action: 'breakOn', breakOn: { severity: 'error', mechanism: null, frame: null } });
      const t = parseLiveTarget(live.value);
      assert.equal(t.address.kind, 'tcp');
      const socket = net.connect(t.address.kind === 'tcp' ? t.address.port : 0, '127.0.0.1');
      const first = new Promise<string>((resolve, reject) => {
        socket.once('data', (d) => resolve(d.toString('utf8')));
        socket.once('error', reject);
      });
      socket.write(`${helloLine(t.token)}\n`);
      assert.equal(await first, `${WELCOME_LINE}\n${ARM_LINE}\n`);
      socket.destroy();
    } finally {
      live.dispose();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('live: a stream is shown as it comes and diagnosed on a thread of its own', function () {
  this.timeout(300_000);
  it("the host's session, built from rows and the diagnosis sent after them, equals the recording opened from disk: injection, κ where computed, findings", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-live-diagnosis-'));
    const live = await new LiveWorker().listen(path.join(tmp, 'listen'));
    try {
      const out = path.join(tmp, 'fault.rec.jsonl');
      // as fast as it writes: frames come faster than they are diagnosed
      const engine = startEngine('TypeScript', {
        scene: path.join(ROOT, 'examples/fault-restitution-target.scene.json'),
        scenario: 'fault-restitution-target-sphere',
        frames: 180,
        recording: '',
        table: '',
        out,
        fps: 0,
        env: { CONTACT_LENS_LIVE: live.value },
        dir: tmp,
        simulate: true,
      });
      assert.equal(await engine.exited, 0, engine.stderr);
      const state = await until(
        () => live.state?.stream === 'ended' && live.state.frames === 180 && live.state.diagnosed === 180 && live.state,
        'every frame shown and diagnosed',
      );
      assert.equal(state.errorCount, 0, live.errors.join('\n'));
      const file = await InspectorModel.fromRecording(out, DIAGNOSIS);
      const host = live.opened!;
      assert.deepEqual(host.timeline.frame, file.timeline.frame);
      // (the host's columns came through a message: a plain object where the file's model has no prototype)
      assert.deepEqual({ ...host.timeline.injection }, { ...file.timeline.injection }, 'injected joules by mechanism, frame by frame');
      const kappas = host.timeline.kappa.flatMap((k, i) => (k === null ? [] : [[k, file.timeline.kappa[i]]]));
      // κ is left out while the diagnosis is behind (here it is: a flood); where it was computed, it is the file's
      for (const [a, b] of kappas) assert.equal(a, b);
      const key = (f: { index: number; frame: number; mechanism: string; joules: number }): string => `${f.index}/${f.frame}/${f.mechanism}/${f.joules}`;
      assert.deepEqual(host.findings.map(key), file.findings.map(key));
      assert.ok(host.findings.some((f) => f.frame === 27 && f.mechanism === 'restitution-overshoot'));
      // frame views come from the stream's frame-view thread: the same as the file's, injection by contact included
      for (const i of [0, 27, 179]) {
        const v = await live.client.request({ op: 'frame', index: i });
        assert.deepEqual(v, file.frameView(i), `frame view ${i}`);
        assert.deepEqual(await live.client.request({ op: 'conditioning', index: i }), file.conditioning(i), `conditioning ${i}`);
      }
      assert.ok(
        (await live.client.request({ op: 'frame', index: 27 })).contacts.some((c) => (c.injected ?? 0) > 0),
        'frame 27 shows the contact that injected',
      );
    } finally {
      live.dispose();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('the warm-up recording, read back as a stream is, has contacts in an island: a frame view of it runs the whole frame-view path', () => {
    let file = '';
    withWarmRecording((r) => {
      file = r.file;
      assert.ok(r.frames.length >= 2);
      const m = warmModel(r);
      const last = r.frames.length - 1;
      assert.equal(m.timeline.frame.length, r.frames.length);
      const v = m.frameView(last);
      assert.ok(v.contacts.length >= 4, `${v.contacts.length} contacts`);
      assert.ok(v.islands.length >= 1 && v.islands[0].contacts.length === v.contacts.length);
      assert.ok(
        v.contacts.every((c) => c.vnBefore !== null),
        'pre-solve states known (the previous frame is there)',
      );
      m.close();
    });
    assert.ok(file !== '' && !fs.existsSync(file), 'the warm-up file is removed');
  });

  it('applyDiagnosisPatch writes injection and κ into rows already there, and a column that appears now is 0 before', () => {
    const t = {
      frame: [0, 1, 2],
      kappa: [null, null, null],
      kappaRange: [null, null, null],
      injection: { 'overlap-push-out': [0, 1, 0] },
    } as unknown as Timeline;
    applyDiagnosisPatch(t, { from: 1, injection: { 'restitution-overshoot': [0, 23.1], 'overlap-push-out': [2, 3] }, kappa: [5, 7], kappaRange: [4, null] });
    assert.deepEqual(t.injection, { 'overlap-push-out': [0, 2, 3], 'restitution-overshoot': [0, 0, 23.1] });
    assert.deepEqual(t.kappa, [null, 5, 7]);
    assert.deepEqual((t as { kappaRange?: unknown }).kappaRange, [null, 4, null]);
    // a patch that reaches past the rows there leaves the rest (they come with their rows)
    applyDiagnosisPatch(t, { from: 2, injection: { 'overlap-push-out': [9, 9] }, kappa: [1, 1], kappaRange: [1, 1] });
    assert.deepEqual(t.injection?.['overlap-push-out'], [0, 2, 9]);
    assert.equal(t.kappa.length, 3);
  });
});
