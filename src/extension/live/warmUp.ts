/**
 * The live threads' code run once before a writer's first frame: a stream's first frames would otherwise wait
 * while each thread loads and compiles what reading, diagnosing and showing a frame call (the worker's first,
 * cold frame view took ≈ 0.5 s of a loaded machine; bench/live.ts prints the first frames apart). Each thread
 * runs its own part on a tiny recording of our engine (WARM_SCENE), written to a temporary file, read back the way
 * a stream is read, and removed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { threadId } from 'node:worker_threads';
import { World } from '../../engine/index.js';
import type { RecordedFrame, RecordingHeader } from '../../format/recording.js';
import { RecordingWriter } from '../../format/recordingFile.js';
import { RecordingFollower } from '../../format/recordingFollow.js';
import { parseSceneFile } from '../../format/scene.js';
import { frameFromWorld, headerFromWorld } from '../../format/worldRecording.js';
import { GrowingRecording, type LinePlace } from '../../session/growingRecording.js';
import { InspectorModel, TimelineBuilder } from '../model/inspectorModel.js';

/** Frames of the warm-up recording: enough for a frame with a previous one (pre-solve states, the ledger). */
const WARM_FRAMES = 4;

/** Two boxes on the ground, the upper one dropped from 2 cm: contacts, an island, an impact from the first frame. */
const WARM_SCENE = JSON.stringify({
  scenarios: [
    {
      name: 'warm-up',
      frames: WARM_FRAMES,
      bodies: [
        { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, static: true },
        { name: 'box-0', shape: { box: { halfExtents: [0.5, 0.5, 0.5] } }, mass: 1, position: [0, 0, 0.5] },
        { name: 'box-1', shape: { box: { halfExtents: [0.5, 0.5, 0.5] } }, mass: 1, position: [0.1, 0, 1.52] },
      ],
    },
  ],
});

export interface WarmRecording {
  readonly file: string;
  readonly header: RecordingHeader;
  /** The frames as a follower read them, with their places in the file. */
  readonly frames: readonly { readonly frame: RecordedFrame; readonly at: LinePlace }[];
}

/**
 * Writes the warm-up recording to a temporary file, reads it back with a RecordingFollower (as a stream is read)
 * and calls `use` with it; the file is removed after. Never throws: a warm-up that fails only costs the speed-up.
 */
export function withWarmRecording(use: (r: WarmRecording) => void): void {
  const file = path.join(os.tmpdir(), `contact-lens-warm-${process.pid}-${threadId}-${Date.now()}.rec.jsonl`);
  try {
    const desc = parseSceneFile(WARM_SCENE, 'warm-up.scene.json').scenarios[0].desc;
    const world = new World(desc);
    const w = RecordingWriter.create(file, headerFromWorld(world), { force: true, live: false });
    for (let k = 0; k < WARM_FRAMES; k++) w.writeFrame(frameFromWorld(world, world.step()));
    w.close();
    const follower = RecordingFollower.open(file);
    const frames: { frame: RecordedFrame; at: LinePlace }[] = [];
    for (const e of follower.poll()) if (e.kind === 'frame') frames.push({ frame: e.frame, at: { offset: e.offset, length: e.length, line: e.line } });
    const header = follower.header;
    follower.close();
    if (header && frames.length > 0) use({ file, header, frames });
  } catch {
    // nothing to warm: the first frames are cold
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** The warm-up recording as a stream's model (its rows added, undiagnosed, as a stream's frames are). */
export function warmModel(r: WarmRecording): InspectorModel {
  const info = { title: 'warm-up', source: 'recording' as const, file: r.file, producer: 'warm-up', frameCount: 0, dt: r.header.dt, bodies: [] };
  const m = InspectorModel.growing(new GrowingRecording(r.file, r.header), info, new TimelineBuilder(r.header, null));
  for (const { frame, at } of r.frames) m.appendUndiagnosed(frame, at, { kappa: false });
  return m;
}
