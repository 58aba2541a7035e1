/**
 * A test engine that streams through the TypeScript writer (writers/typescript): our world simulates a scene's
 * scenario and every frame goes to a RecordingWriter — its file, and the editor when CONTACT_LENS_LIVE is set
 * (docs/live-protocol.md). Paced at --fps frames per second (0: as fast as it can). Prints one line per frame
 * on stdout once writeFrame returned: "frame K returned T" (T: ms since the epoch, performance.timeOrigin-based),
 * and "frame K sent T" just before writing it, so a test or benchmark can see where the engine waits.
 *
 *   tsx test/live/engine.ts SCENE SCENARIO OUT.rec.jsonl [--fps 60] [--frames N]
 */
import { World } from '../../src/engine/world/world.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { RecordingWriter } from '../../writers/typescript/index.js';
import * as fs from 'node:fs';

const [scene, scenario, out, ...rest] = process.argv.slice(2);
const opt = (name: string, fallback: number): number => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? Number(rest[i + 1]) : fallback;
};
const fps = opt('fps', 60);
const now = (): number => performance.timeOrigin + performance.now();
const desc = parseSceneFile(fs.readFileSync(scene, 'utf8'), scene).scenarios.find((s) => s.desc.name === scenario)!.desc;
const frames = opt('frames', desc.frames);
const world = new World(desc);
const rec = RecordingWriter.create(out, headerFromWorld(world), { force: true });
const t0 = now();
const lines: string[] = [];
const say = (l: string): void => {
  fs.writeSync(1, `${l}\n`);
};
say(`streaming ${rec.streaming}`);
for (let k = 0; k < frames; k++) {
  const f = frameFromWorld(world, world.step());
  if (fps > 0) {
    const due = t0 + (k * 1000) / fps;
    while (now() < due) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, due - now()));
  }
  say(`frame ${f.frame} sent ${now()}`);
  rec.writeFrame(f);
  say(`frame ${f.frame} returned ${now()}`);
}
rec.close();
void lines;
say('closed');
