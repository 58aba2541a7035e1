/**
 * Recordings of the bundled examples run by our engine: box-stack-10 as stack-SOLVER.rec.jsonl (the compare-mode
 * tests of the model and of the page share it), any other scene with recordExample.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseSceneFile } from '../src/format/scene.js';
import { RecordingWriter } from '../src/format/recordingFile.js';
import { startOurRun } from '../src/session/engines/engineRun.js';
import { withOverrides } from '../src/cli/simulateCommand.js';
import type { SolverName } from '../src/engine/index.js';

const ROOT = resolve(__dirname, '..');

export function recordBoxStack(dir: string, solver: 'newton' | 'ipm', frames: number): string {
  return recordExample(dir, 'box-stack-10', solver, frames, `stack-${solver}.rec.jsonl`);
}

/** A recording of examples/SCENE.scene.json run by our engine with one solver and frame count, written into `dir`. */
export function recordExample(dir: string, scene: string, solver: SolverName, frames: number, name = `${scene}-${solver}.rec.jsonl`): string {
  const file = join(ROOT, 'examples', `${scene}.scene.json`);
  const desc = withOverrides(parseSceneFile(readFileSync(file, 'utf8'), file).scenarios[0].desc, solver, frames);
  const run = startOurRun(desc);
  const out = join(dir, name);
  const w = RecordingWriter.create(out, run.header);
  for (let f = run.next(); f; f = run.next()) w.writeFrame(f.frame);
  w.close();
  return out;
}
