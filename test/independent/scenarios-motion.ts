// Planted faults of the position update: position-correction (a split-impulse / NGS pass that moves bodies
// further than the penetration) and integrator-drift (a contact-free frame advanced wrongly).

import { box, ground, sphere } from './bodies.js';
import { declare, pgsConverged } from './configs.js';
import { type Entry, FOREIGN, mat, STANDARD, withWrite } from './kit.js';
import { contactsOf, noContacts, type Plant, type Scenario } from './runner.js';
import type { Integrator, StepConfig } from './stepper.js';

const at = (k: number, over: Partial<StepConfig>) => (f: number) => (f === k ? over : undefined);

function positionCorrection(): Entry[] {
  const out: Entry[] = [];
  // split impulse declared (Catto, GDC 2006; Box2D's position solver): the pass removes β·(depth − slop)
  const split = pgsConverged({ margin: 0, positionPass: { beta: 0.2, slop: 0.005 } });
  const k = 12;
  const pass = split.positionPass ?? { beta: 0.2, slop: 0.005 };
  const plant = (variant: string, contacts: Plant['contacts']) => ({
    frame: k,
    mechanism: 'position-correction' as const,
    variant,
    reference: { positionPass: pass },
    contacts,
  });
  const resting = (name: string, body: 'box' | 'sphere', over: Partial<typeof pass>, extra: Partial<Scenario> = {}): Scenario => ({
    name,
    // resting 3 mm deep, within the slop: the declared pass does nothing until frame k
    bodies: [
      ground(mat(0.5)),
      body === 'box' ? box('crate', [0.25, 0.2, 0.1], 3, [0, 0, 0.1 - 0.003], mat(0.5)) : sphere('ball', 0.15, 3, [0, 0, 0.15 - 0.003], mat(0.5)),
    ],
    base: split,
    frames: 40,
    solver: declare(split, 'pgs-split'),
    solverName: 'pgs-split',
    perFrame: at(k, { positionPass: { ...pass, ...over } }),
    plant: plant(name, contactsOf(1)),
    ...extra,
  });
  // the pass moves the box up by 10× its penetration (3 cm)
  out.push({
    file: 'position-split-overshoot-box.rec.jsonl',
    clean: false,
    scenario: resting('split-overshoot-box', 'box', { overshoot: 10 }),
    write: STANDARD,
  });
  out.push({
    file: 'position-split-overshoot-sphere.rec.jsonl',
    clean: false,
    scenario: resting('split-overshoot-sphere', 'sphere', { overshoot: 10 }),
    write: withWrite({ pre: 'pose' }),
  });
  // a non-linear Gauss–Seidel pass on one corner: lifts and tilts the box
  const ngs = resting('ngs-one-corner', 'box', { overshoot: 12, contacts: [0] });
  if (ngs.plant) ngs.plant = { ...ngs.plant, contacts: () => [0] };
  out.push({ file: 'position-ngs-one-corner.rec.jsonl', clean: false, scenario: ngs, write: STANDARD });
  out.push({
    file: 'position-split-overshoot-box-no-pre-foreign.rec.jsonl',
    clean: false,
    scenario: resting('split-overshoot-foreign', 'box', { overshoot: 10 }),
    write: withWrite({ conventions: FOREIGN, pre: 'none' }),
  });
  // the top box of a stack of 3, resting 3 mm into the box below
  const hh = 0.1;
  const stack: Scenario = {
    name: 'stack-top',
    bodies: [
      ground(mat(0.5)),
      box('b1', [0.2, 0.2, hh], 2, [0, 0, hh], mat(0.5)),
      box('b2', [0.2, 0.2, hh], 2, [0, 0, 3 * hh], mat(0.5)),
      box('b3', [0.2, 0.2, hh], 2, [0, 0, 5 * hh - 0.003], mat(0.5)),
    ],
    base: split,
    frames: 40,
    solver: declare(split, 'pgs-split'),
    solverName: 'pgs-split',
    // the pass overshoots on every contact: 10× the top overlap, the touching contacts below hold
    perFrame: at(k, { positionPass: { ...pass, overshoot: 10 } }),
    plant: plant('stack-top', (log) => log.contacts.flatMap((c, i) => (c.a === 3 ? [i] : []))),
  };
  out.push({ file: 'position-stack-top-overshoot.rec.jsonl', clean: false, scenario: stack, write: STANDARD });
  return out;
}

function integrator(): Entry[] {
  const out: Entry[] = [];
  const free = pgsConverged({ margin: 0 });
  const k = 10;
  const thrown = (name: string, fault: Integrator, base: StepConfig = free): Scenario => ({
    name,
    // thrown up at 8 m/s from 2 m: in flight for the whole run, no contact
    bodies: [ground(mat(0.5)), sphere('ball', 0.1, 1, [0, 0, 2], mat(0.5), [1, 0, 8])],
    base,
    frames: 30,
    solver: declare(base, 'pgs'),
    solverName: 'pgs',
    perFrame: at(k, { integrator: fault }),
    plant: { frame: k, mechanism: 'integrator-drift', variant: name, reference: { integrator: 'semi-implicit' }, contacts: noContacts },
  });
  out.push({ file: 'integrator-double-h-rising.rec.jsonl', clean: false, scenario: thrown('double-h-rising', 'double-h'), write: STANDARD });
  out.push({ file: 'integrator-gravity-sign.rec.jsonl', clean: false, scenario: thrown('gravity-sign', 'gravity-sign'), write: STANDARD });
  out.push({
    file: 'integrator-no-gravity-rising.rec.jsonl',
    clean: false,
    scenario: thrown('no-gravity-rising', 'no-gravity'),
    write: withWrite({ pre: 'pose' }),
  });
  out.push({
    file: 'integrator-double-h-foreign.rec.jsonl',
    clean: false,
    scenario: thrown('double-h-foreign', 'double-h'),
    write: withWrite({ conventions: FOREIGN, pre: 'pose' }),
  });
  const fine = pgsConverged({ margin: 0, h: 1 / 120 });
  out.push({
    file: 'integrator-gravity-sign-120hz-no-pre-float32.rec.jsonl',
    clean: false,
    scenario: thrown('gravity-sign-120hz-no-pre-float32', 'gravity-sign', fine),
    write: withWrite({ pre: 'none', float32: true }),
  });
  return out;
}

export function motionEntries(): Entry[] {
  return [...positionCorrection(), ...integrator()];
}
