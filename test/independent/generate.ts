// generatePlantedSet(dir): runs every scenario of the catalogue, writes its recording into `dir` and
// returns the manifest — per file, whether it is clean and, if not, the planted fault (frame, contacts,
// mechanism, variant, joules from the stepper's own ledger). Deterministic: no randomness at all.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Entry } from './kit.js';
import { type Mechanism, runScenario } from './runner.js';
import { cleanEntries } from './scenarios-clean.js';
import { contactEntries } from './scenarios-contact.js';
import { motionEntries } from './scenarios-motion.js';
import { solveEntries } from './scenarios-solve.js';
import { writeRecording } from './writer.js';

export interface PlantedFault {
  frame: number;
  /** indices into that frame's contacts array */
  contacts: number[];
  mechanism: Mechanism;
  variant: string;
  /** the stepper's own ledger of what the fault injected, J */
  joules: number;
}

export interface ManifestEntry {
  file: string;
  clean: boolean;
  planted: PlantedFault[];
  /** how the file is written (conventions, pre, A/b, float32, initial line) */
  written: string;
  /** largest total-energy gain of any frame before the planted one (or of any frame, clean), J */
  maxGainBefore: number;
}

export type Manifest = ManifestEntry[];

export function catalogue(): Entry[] {
  return [...cleanEntries(), ...contactEntries(), ...solveEntries(), ...motionEntries()];
}

function describe(e: Entry): string {
  const w = e.write;
  const c = w.conventions;
  const parts = [`up ${c.up}`, c.quaternion, c.normal, c.impulse];
  if (c.angularVelocity) parts.push(`ω ${c.angularVelocity}`);
  parts.push(w.pre === 'none' ? 'no pre' : `pre ${w.pre}`);
  if (w.matrices) parts.push('A,b');
  if (w.float32) parts.push('float32');
  if (w.initial) parts.push('initial line');
  return parts.join(', ');
}

export function generatePlantedSet(dir: string): Manifest {
  mkdirSync(dir, { recursive: true });
  const names = new Set<string>();
  return catalogue().map((e) => {
    if (names.has(e.file)) throw new Error(`duplicate file name ${e.file}`);
    names.add(e.file);
    const result = runScenario(e.scenario);
    writeRecording(join(dir, e.file), result.run, e.write);
    const planted: PlantedFault[] = result.planted ? [result.planted] : [];
    if (!e.clean && planted.length === 0) throw new Error(`${e.file}: planted frame not reached`);
    const until = planted.length > 0 ? planted[0].frame : result.deltaE.length;
    return { file: e.file, clean: e.clean, planted, written: describe(e), maxGainBefore: Math.max(0, ...result.deltaE.slice(0, until)) };
  });
}
