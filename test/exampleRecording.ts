/**
 * A recording of the bundled examples/box-stack-10.scene.json run by our engine with one solver and frame count,
 * written into `dir` as stack-SOLVER.rec.jsonl (the compare-mode tests of the model and of the page share it).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseSceneFile } from '../src/format/scene.js';
import { RecordingWriter } from '../src/format/recordingFile.js';
import { startOurRun } from '../src/session/engines/engineRun.js';
import { withOverrides } from '../src/cli/simulateCommand.js';

const ROOT = resolve(__dirname, '..');

export function recordBoxStack(dir: string, solver: 'newton' | 'ipm', frames: number): string {
  const file = join(ROOT, 'examples', 'box-stack-10.scene.json');
  const desc = withOverrides(parseSceneFile(readFileSync(file, 'utf8'), file).scenarios[0].desc, solver, frames);
  const run = startOurRun(desc);
  const out = join(dir, `stack-${solver}.rec.jsonl`);
  const w = RecordingWriter.create(out, run.header);
  for (let f = run.next(); f; f = run.next()) w.writeFrame(f.frame);
  w.close();
  return out;
}
