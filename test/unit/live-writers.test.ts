/**
 * Live streaming through the writer libraries (docs/live-protocol.md), end to end: the editor's listener in the
 * simulation worker (dist/worker.js, as the extension runs it), test engines writing through the TypeScript,
 * C++ and Python writers with CONTACT_LENS_LIVE set. The recording the editor writes must be byte for byte the
 * writer's own file; a break on the restitution finding must hold the engine at the planted fault's frame, and
 * a step must let exactly one more frame through. (A missing g++ or python3 fails the test: CI has both.)
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NO_BREAK } from '../../src/protocol/live.js';
import { RecordingReader } from '../../src/format/recordingFile.js';
import { writeReplayTable } from '../live/replayTable.js';
import { LiveWorker, ROOT, recordScenario, sameBytes, startEngine, until, type WriterName } from '../live/harness.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-live-writers-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const STACK = { scene: path.join(ROOT, 'examples/box-stack-10.scene.json'), scenario: 'box-stack-10', frames: 600 };
const FAULT = { scene: path.join(ROOT, 'examples/fault-restitution-target.scene.json'), scenario: 'fault-restitution-target-sphere', frames: 180 };
/** The planted fault's frame: `contact-lens diagnose examples/fault-restitution-target.scene.json` names it. */
const FAULT_FRAME = 27;

function sources(s: typeof STACK, name: string): { recording: string; table: string } {
  const recording = path.join(tmp, `${name}.rec.jsonl`),
    table = path.join(tmp, `${name}.table`);
  if (!fs.existsSync(table)) {
    recordScenario(s.scene, s.scenario, s.frames, recording);
    writeReplayTable(recording, table);
  }
  return { recording, table };
}

const WRITERS: { name: WriterName; fps: number }[] = [
  { name: 'TypeScript', fps: 60 }, // box-stack-10 at 60 Hz, as an engine runs it
  { name: 'C++', fps: 0 }, // as fast as it can: a flood
  { name: 'Python', fps: 240 },
];

describe('live: writers stream to the editor (docs/live-protocol.md)', function () {
  this.timeout(300_000);

  for (const { name, fps } of WRITERS) {
    it(`${name}: box-stack-10, 600 frames${fps ? ` at ${fps} Hz` : ' as fast as it writes'}: every frame shown, the editor's recording byte-equal to the writer's`, async () => {
      const live = await new LiveWorker().listen(path.join(tmp, `listen-${name}`));
      try {
        const out = path.join(tmp, `stack-${name}.rec.jsonl`);
        const engine = startEngine(name, { ...STACK, ...sources(STACK, 'stack'), out, fps, env: { CONTACT_LENS_LIVE: live.value }, dir: tmp });
        assert.equal(await engine.exited, 0, engine.stderr);
        assert.equal(engine.lines[0], name === 'TypeScript' ? 'streaming true' : 'streaming 1', 'the writer connected');
        const state = await until(() => live.state?.stream === 'ended' && live.state.frames === 600 && live.state, 'the stream to end with 600 frames');
        assert.deepEqual(
          live.frames,
          Array.from({ length: 600 }, (_, k) => k),
          'every frame reached the inspector, in order',
        );
        assert.ok(state.recording && sameBytes(state.recording, out), `${state.recording} differs from ${out}`);
        assert.deepEqual(live.errors, []);
        const r = RecordingReader.openSync(state.recording);
        assert.equal(r.frameCount, 600);
        assert.equal(r.errorCount, 0);
        r.close();
      } finally {
        live.dispose();
      }
    });

    it(`${name}: a break on the restitution finding holds the engine at frame ${FAULT_FRAME} (the planted fault); a step lets exactly one more frame through`, async () => {
      const live = await new LiveWorker().listen(path.join(tmp, `break-${name}`));
      try {
        // armed before the engine starts: the writer is armed as soon as it connects
        await live.action({ action: 'breakOn', breakOn: { severity: 'off', mechanism: 'restitution-overshoot', frame: null } });
        const out = path.join(tmp, `fault-${name}.rec.jsonl`);
        // the TypeScript engine simulates as it streams: a real engine stopped at its step
        const engine = startEngine(name, {
          ...FAULT,
          ...sources(FAULT, 'fault'),
          out,
          fps: 0,
          env: { CONTACT_LENS_LIVE: live.value },
          dir: tmp,
          simulate: name === 'TypeScript',
        });
        const paused = await until(() => live.state?.paused ?? undefined, 'the break');
        assert.equal(paused.frame, FAULT_FRAME);
        assert.match(paused.reason, /restitution-overshoot/);
        assert.equal(live.frames.at(-1), FAULT_FRAME, 'the inspector has the frame it stopped at');
        await new Promise((r) => setTimeout(r, 400)); // the engine stays where it is
        assert.ok(engine.returned(FAULT_FRAME - 1), 'frame 26 returned');
        assert.ok(!engine.returned(FAULT_FRAME), `writeFrame(${FAULT_FRAME}) must not return while the engine is paused there`);

        await live.action({ action: 'step' });
        const next = await until(() => (live.state?.paused && live.state.paused.frame > FAULT_FRAME ? live.state.paused : undefined), 'the step');
        assert.equal(next.frame, FAULT_FRAME + 1, 'a step advances one frame');
        await new Promise((r) => setTimeout(r, 300));
        assert.ok(engine.returned(FAULT_FRAME) && !engine.returned(FAULT_FRAME + 1));

        await live.action({ action: 'breakOn', breakOn: NO_BREAK });
        await live.action({ action: 'continue' });
        assert.equal(await engine.exited, 0, engine.stderr);
        const state = await until(() => live.state?.stream === 'ended' && live.state.frames === FAULT.frames && live.state, 'the end of the stream');
        assert.equal(state.paused, null);
        assert.ok(state.recording && sameBytes(state.recording, out), 'the recording is byte-equal to the writer’s');
      } finally {
        live.dispose();
      }
    });
  }
});
