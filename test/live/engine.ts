/**
 * A test engine that streams through the TypeScript writer (writers/typescript): our world simulates a scene's
 * scenario (or, with --replay, the frames of a recording our world wrote are replayed), and every frame goes to
 * a RecordingWriter — its file, and the editor when CONTACT_LENS_LIVE is set (docs/live-protocol.md). Paced at
 * --fps frames per second (0: as fast as it can). Prints on stdout "frame K sent T" just before writing frame K
 * and "frame K returned T" once writeFrame returned (T: ms since the epoch, performance.timeOrigin-based), so a
 * test or benchmark sees when each frame left and where a break holds the engine.
 *
 *   tsx test/live/engine.ts SCENE SCENARIO OUT.rec.jsonl [--fps 60] [--frames N] [--replay REC]
 */
import * as fs from 'node:fs';
import { World } from '../../src/engine/world/world.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { RecordingReader } from '../../src/format/recordingFile.js';
import type { RecordedFrame, RecordingHeader } from '../../src/format/recording.js';
import { RecordingWriter } from '../../writers/typescript/index.js';

const [scene, scenario, out, ...rest] = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? rest[i + 1] : undefined;
};
const fps = Number(opt('fps') ?? 60);
const now = (): number => performance.timeOrigin + performance.now();
const say = (l: string): void => {
  fs.writeSync(1, `${l}\n`);
};

let header: RecordingHeader;
let next: (k: number) => RecordedFrame;
let frames: number;
const replay = opt('replay');
if (replay) {
  const r = RecordingReader.openSync(replay);
  header = r.header;
  frames = Math.min(r.frameCount, Number(opt('frames') ?? r.frameCount));
  next = (k) => r.frame(k);
} else {
  const desc = parseSceneFile(fs.readFileSync(scene, 'utf8'), scene).scenarios.find((s) => s.desc.name === scenario)!.desc;
  const world = new World(desc);
  header = headerFromWorld(world);
  frames = Number(opt('frames') ?? desc.frames);
  next = () => frameFromWorld(world, world.step());
}
const rec = RecordingWriter.create(out, header, { force: true });
say(`streaming ${rec.streaming}`);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const t0 = now();
for (let k = 0; k < frames; k++) {
  const f = next(k);
  if (fps > 0) {
    const due = t0 + (k * 1000) / fps;
    for (let left = due - now(); left > 0; left = due - now()) Atomics.wait(sleeper, 0, 0, left);
  }
  say(`frame ${f.frame} sent ${now()}`);
  rec.writeFrame(f);
  say(`frame ${f.frame} returned ${now()}`);
}
rec.close();
say('closed');
