/**
 * The live threads: a stream's diagnosis thread runs below the others on Linux (nice + DIAGNOSIS_NICE), so that on
 * a busy machine the writer's socket is drained and the frames are shown first, while the process and its other
 * threads keep their priority; a stream's frame-view thread answers views of the frames it was told of, and one
 * that ended says so (the worker's model answers instead) rather than leaving a view unanswered.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { startDiagnosisThread } from '../../src/extension/live/diagnosisLink.js';
import { DIAGNOSIS_NICE } from '../../src/extension/live/threadPriority.js';
import { until } from '../live/harness.js';
import { startViewThread, ViewLink } from '../../src/extension/live/viewLink.js';
import { withWarmRecording } from '../../src/extension/live/warmUp.js';
import { appendedFrame } from '../../src/session/growingRecording.js';
import type { RecordingHeader } from '../../src/format/recording.js';

/** Nice value of each thread of this process (/proc/self/task/TID/stat, field 19). */
function niceByThread(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

describe('live: thread priorities', function () {
  this.timeout(120_000);
  it('the diagnosis thread lowers its own priority by DIAGNOSIS_NICE; the process and its main thread keep theirs', async function () {
    if (os.platform() !== 'linux') this.skip();
    const before = niceByThread();
    const base = os.getPriority(process.pid);
    const worker = startDiagnosisThread();
    try {
      const lowered = await until(() => {
        const now = niceByThread();
        const tid = [...now.keys()].find((t) => !before.has(t) && now.get(t) === Math.min(19, base + DIAGNOSIS_NICE));
        return tid ?? false;
      }, 'a new thread at the lowered priority');
      assert.ok(lowered > 0);
      assert.equal(os.getPriority(process.pid), base, "the process's main thread keeps its priority");
      for (const [tid, nice] of niceByThread()) if (before.has(tid)) assert.equal(nice, before.get(tid), `thread ${tid} kept its priority`);
    } finally {
      await worker.terminate();
    }
  });
});

describe('live: the frame-view thread', function () {
  this.timeout(120_000);
  it('answers the view of a frame it was told of; once it ended, it is not alive and a view asked of it fails at once', async () => {
    let header: RecordingHeader | null = null;
    const places: ReturnType<typeof appendedFrame>[] = [];
    let file = '';
    // the warm-up recording's frames, kept on disk for this test (withWarmRecording removes its own file)
    withWarmRecording((r) => {
      header = r.header;
      file = `${r.file}.copy`;
      fs.copyFileSync(r.file, file);
      for (const { frame, at } of r.frames) places.push(appendedFrame(frame, at));
    });
    assert.ok(header && places.length >= 2);
    const info = { title: 'test', source: 'recording' as const, file, producer: 'test', frameCount: 0, dt: 1 / 60, bodies: [] };
    const link = new ViewLink(file, header, info, startViewThread());
    try {
      link.append(places);
      const v = await link.frame(places.length - 1);
      assert.equal(v.frame, places[places.length - 1].frame);
      assert.ok(v.contacts.length > 0);
      await assert.rejects(link.frame(places.length + 5), /frame|index|range/i, 'a frame it was not told of: an error, not a hang');
      assert.ok(link.alive);
      await (link as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      await until(() => !link.alive, 'the link to see the thread end');
      await assert.rejects(link.frame(0), /ended/, 'a view asked of an ended thread fails at once');
    } finally {
      link.close();
      fs.rmSync(file, { force: true });
    }
  });
});
