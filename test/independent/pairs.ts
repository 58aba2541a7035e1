// Planted PAIRS for `contact-lens diff`: the same scenario run twice by this stepper, with exactly one change at
// frame k in the second run — a fewer-iteration or cold-started solve, another ERP, restitution or friction
// coefficient, a dropped contact or one more (a larger speculative margin), a body moved after the solve — plus
// identical pairs, pairs whose second file carries 1e-13 relative noise on every written real number, and a
// pair written in foreign conventions. Per pair: the frame and the kind of the first divergence, defined by the
// stage of the step the change acts on (docs/compare.md names them):
//   contact-set  a contact exists in one run only;
//   problem      the same contacts, other problem data (b's bias, a contact's e or μ);
//   solve        the same problem, another λ;
//   state        the same λ, another post-step state.
// Nothing here imports from src/ (independent.test.ts checks it).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { box, cloneBody, ground, sphere } from './bodies.js';
import { declare, pgsConverged } from './configs.js';
import { boxColumn, dropStart, FOREIGN, mat, withWrite } from './kit.js';
import { runScenario, type Scenario } from './runner.js';
import type { StepConfig } from './stepper.js';
import { recordingText, type WriteOptions } from './writer.js';

export type DivergenceKind = 'contact-set' | 'problem' | 'solve' | 'state';

export interface PlantedPair {
  name: string;
  /** null: the two files must not diverge */
  kind: DivergenceKind | null;
  frame: number | null;
  /** the field the change acts on (problem pairs) */
  field?: string;
  scenario: Scenario;
  /** the second run's configuration at frame k (absent: the same run) */
  change?: Partial<StepConfig>;
  write: WriteOptions;
  /** how the second file is written (default: as the first) */
  writeB?: WriteOptions;
}

export interface PairFiles {
  name: string;
  a: string;
  b: string;
  kind: DivergenceKind | null;
  frame: number | null;
  field?: string;
}

const K = 12;
const WRITE = withWrite({ matrices: true });

/** Every planted pair of the catalogue (deterministic). */
export function plantedPairs(): PlantedPair[] {
  const hard = pgsConverged({ margin: 0 });
  const stack = (): Scenario => ({
    name: 'stack',
    bodies: boxColumn(3, [0.2, 0.2, 0.1], 2, mat(0.5)),
    base: hard,
    frames: 30,
    solver: declare(hard, 'pgs'),
    solverName: 'pgs',
  });
  const cold = pgsConverged({ margin: 0, warmStart: false });
  const fixed = pgsConverged({ margin: 0, tolerance: 0, maxIterations: 4 });
  const baum = pgsConverged({ margin: 0, erp: 0.2, slop: 0.005 });
  const spec = pgsConverged();
  const slide = (): Scenario => ({
    name: 'slide',
    bodies: [ground(mat(0.2)), box('crate', [0.25, 0.2, 0.1], 2, [0, 0, 0.1], mat(0.2), [3, 0.5, 0])],
    base: hard,
    frames: 30,
    solver: declare(hard, 'pgs'),
    solverName: 'pgs',
  });
  const drop = (): Scenario => ({
    name: 'drop',
    bodies: [ground(mat(0.5, 0.5)), sphere('ball', 0.1, 1, [0, 0, dropStart(0.1, K, 0, hard.h, hard.gravity[2])], mat(0.5, 0.5))],
    base: hard,
    frames: 30,
    solver: declare(hard, 'pgs'),
    solverName: 'pgs',
  });
  return [
    {
      name: 'fewer-iterations',
      kind: 'solve',
      frame: K,
      scenario: { ...stack(), base: cold, solver: declare(cold, 'pgs') },
      change: { maxIterations: 2, tolerance: 0 },
      write: WRITE,
    },
    {
      name: 'cold-start',
      kind: 'solve',
      frame: K,
      scenario: { ...stack(), base: fixed, solver: declare(fixed, 'pgs') },
      change: { warmStart: false },
      write: WRITE,
    },
    {
      name: 'erp',
      kind: 'problem',
      frame: K,
      field: 'b',
      scenario: {
        name: 'erp',
        bodies: [ground(mat(0.5)), box('crate', [0.2, 0.2, 0.1], 10, [0, 0, 0.1], mat(0.5))],
        base: baum,
        frames: 30,
        solver: declare(baum, 'pgs-baumgarte'),
        solverName: 'pgs-baumgarte',
        // pressed 2 cm into the ground at the end of frame k − 1, in both runs: the bias acts at frame k
        teleports: [{ afterFrame: K - 1, body: 1, x: [0, 0, 0.08], v: [0, 0, 0] }],
      },
      change: { erp: 0.8 },
      write: WRITE,
    },
    { name: 'restitution', kind: 'problem', frame: K, field: 'e', scenario: drop(), change: { restitutionOverride: 0.8 }, write: WRITE },
    { name: 'friction', kind: 'problem', frame: K, field: 'mu', scenario: slide(), change: { muOverride: 0.6 }, write: WRITE },
    {
      name: 'friction-foreign-b',
      kind: 'problem',
      frame: K,
      field: 'mu',
      scenario: slide(),
      change: { muOverride: 0.6 },
      write: WRITE,
      writeB: withWrite({ conventions: FOREIGN, pre: 'pose', matrices: true }),
    },
    { name: 'dropped-contact', kind: 'contact-set', frame: K, scenario: stack(), change: { dropContacts: [2] }, write: WRITE },
    {
      name: 'added-contact',
      kind: 'contact-set',
      frame: K,
      scenario: {
        name: 'fall',
        bodies: [ground(mat(0.5)), sphere('ball', 0.1, 1, [0, 0, 3], mat(0.5))],
        base: spec,
        frames: 30,
        solver: declare(spec, 'pgs'),
        solverName: 'pgs',
      },
      // a larger speculative margin: the ground is found 2.8 m below the ball (a contact with a gap, no impulse)
      change: { margin: 4 },
      write: WRITE,
    },
    { name: 'nudge-after-solve', kind: 'state', frame: K, scenario: stack(), change: { nudge: { body: 2, dx: [1e-6, 0, 0] } }, write: WRITE },
    { name: 'identical-stack', kind: null, frame: null, scenario: stack(), write: WRITE },
    { name: 'identical-drop', kind: null, frame: null, scenario: drop(), write: WRITE },
    { name: 'noise-1e-13-stack', kind: null, frame: null, scenario: stack(), write: WRITE, writeB: { ...WRITE, noise: 1e-13 } },
    { name: 'noise-1e-13-slide', kind: null, frame: null, scenario: slide(), write: WRITE, writeB: { ...WRITE, noise: 1e-13 } },
    { name: 'noise-1e-13-drop', kind: null, frame: null, scenario: drop(), write: WRITE, writeB: { ...WRITE, noise: 1e-13 } },
    {
      name: 'identical-foreign-b',
      kind: null,
      frame: null,
      scenario: slide(),
      write: WRITE,
      writeB: withWrite({ conventions: FOREIGN, pre: 'pose', matrices: true }),
    },
  ];
}

/** The first run of a pair, on fresh bodies (a World moves the bodies it is given). */
export function firstRun(p: PlantedPair): Scenario {
  return { ...p.scenario, bodies: p.scenario.bodies.map(cloneBody) };
}

/** The second run of a pair: the same scenario with the change at frame k only. */
export function secondRun(p: PlantedPair): Scenario {
  const fresh = firstRun(p);
  if (!p.change || p.frame === null) return fresh;
  const k = p.frame,
    change = p.change;
  return { ...fresh, perFrame: (f) => (f === k ? change : undefined) };
}

/** Runs every pair and writes `NAME.a.rec.jsonl` and `NAME.b.rec.jsonl` into dir. */
export function writePlantedPairs(dir: string): PairFiles[] {
  return plantedPairs().map((p) => {
    const a = join(dir, `${p.name}.a.rec.jsonl`),
      b = join(dir, `${p.name}.b.rec.jsonl`);
    writeFileSync(a, recordingText(runScenario(firstRun(p)).run, p.write));
    writeFileSync(b, recordingText(runScenario(secondRun(p)).run, p.writeB ?? p.write));
    return { name: p.name, a, b, kind: p.kind, frame: p.frame, ...(p.field ? { field: p.field } : {}) };
  });
}
