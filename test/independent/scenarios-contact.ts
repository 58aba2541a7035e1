// Planted faults on the normal rows: restitution-overshoot, bias-injection, overlap-push-out.

import { box, ground, sphere } from './bodies.js';
import { declare, pgsConverged } from './configs.js';
import { boxColumn, dropStart, type Entry, FOREIGN, mat, STANDARD, withWrite } from './kit.js';
import { approaching, contactsOf, type Plant, type Scenario } from './runner.js';
import type { StepConfig } from './stepper.js';

const at = (k: number, over: Partial<StepConfig>) => (f: number) => (f === k ? over : undefined);

/** MuJoCo solref = (τ, 1) with impedance 0.95, in the canonical k, c of docs/recording-format.md "Soft contacts" */
export const solref = (tau: number) => ({ k: 0.95 / (0.95 * 0.95 * tau * tau), c: 2 / (0.95 * tau) });

function restitution(): Entry[] {
  const out: Entry[] = [];
  const hard = pgsConverged({ margin: 0 });
  const h = hard.h;
  const gz = hard.gravity[2];
  const plant = (k: number, variant: string, over: Partial<StepConfig> = {}) => ({
    frame: k,
    mechanism: 'restitution-overshoot' as const,
    variant,
    reference: { restitution: 'law' as const, ...over },
    contacts: approaching(hard.restThreshold),
  });
  const overshoot = (k: number) => at(k, { restitution: 'overshoot' });
  const drop = (name: string, k: number, e: number, extra: Partial<Scenario> = {}, base = hard): Scenario => ({
    name,
    bodies: [ground(mat(0.5, e)), sphere('ball', 0.1, 0.5, [0, 0, dropStart(0.1, k, 0, base.h, gz)], mat(0.5, e))],
    base,
    frames: k + 30,
    solver: declare(base, 'pgs'),
    solverName: 'pgs',
    perFrame: overshoot(k),
    plant: plant(k, name),
    ...extra,
  });
  out.push({ file: 'restitution-sphere-drop.rec.jsonl', clean: false, scenario: drop('sphere-drop', 20, 0.5), write: withWrite({ matrices: true }) });
  out.push({ file: 'restitution-sphere-no-pre.rec.jsonl', clean: false, scenario: drop('sphere-no-pre', 20, 0.5), write: withWrite({ pre: 'none' }) });
  out.push({
    file: 'restitution-sphere-pre-gravity-target.rec.jsonl',
    clean: false,
    scenario: drop('pre-gravity-target', 20, 0.5, { perFrame: at(20, { restitution: 'overshoot-pre-gravity' }) }),
    write: STANDARD,
  });
  const boxDrop = (name: string, k: number, e: number, base: StepConfig): Scenario => ({
    name,
    bodies: [ground(mat(0.5, e)), box('crate', [0.25, 0.2, 0.1], 2, [0, 0, dropStart(0.1, k, 0, base.h, base.gravity[2])], mat(0.5, e))],
    base,
    frames: k + 30,
    solver: declare(base, 'pgs'),
    solverName: 'pgs',
    perFrame: overshoot(k),
    plant: plant(k, name),
  });
  out.push({ file: 'restitution-box-drop.rec.jsonl', clean: false, scenario: boxDrop('box-drop', 15, 0.3, hard), write: STANDARD });
  out.push({
    file: 'restitution-box-drop-foreign.rec.jsonl',
    clean: false,
    scenario: boxDrop('box-drop-foreign', 15, 0.3, hard),
    write: withWrite({ conventions: { ...FOREIGN, impulse: 'force' }, pre: 'pose' }),
  });
  const fine = pgsConverged({ margin: 0, h: 1 / 120 });
  out.push({ file: 'restitution-box-e0-elastic-120hz.rec.jsonl', clean: false, scenario: boxDrop('box-e0-elastic', 30, 0, fine), write: STANDARD });
  // masked: a heavy box sliding elsewhere loses more energy in the same frame than the bounce injects
  const k = 20;
  const masked: Scenario = {
    name: 'masked',
    bodies: [
      ground(mat(0.6, 0.5)),
      sphere('ball', 0.1, 0.1, [0, 0, dropStart(0.1, k, 0, h, gz)], mat(0.6, 0.5)),
      box('sled', [0.3, 0.3, 0.1], 10, [2, 0, 0.1], mat(0.6, 0), [4, 0, 0]),
    ],
    base: hard,
    frames: k + 20,
    solver: declare(hard, 'pgs'),
    solverName: 'pgs',
    perFrame: overshoot(k),
    plant: plant(k, 'masked-by-sliding'),
  };
  out.push({ file: 'restitution-masked-by-sliding.rec.jsonl', clean: false, scenario: masked, write: STANDARD });
  // two spheres meeting in flight (e = 0.8), touching exactly at frame 12
  const r = 0.1;
  const speed = 3;
  const kk = 12;
  const midair: Scenario = {
    name: 'midair',
    bodies: [
      ground(mat(0.3)),
      sphere('left', r, 1, [-2 * r - kk * h * speed, 0, 5], mat(0.3, 0.8), [speed, 0, 0]),
      sphere('right', r, 1.5, [0, 0, 5], mat(0.3, 0.8)),
    ],
    base: hard,
    frames: 30,
    solver: declare(hard, 'pgs'),
    solverName: 'pgs',
    perFrame: overshoot(kk),
    plant: plant(kk, 'spheres-midair'),
  };
  out.push({ file: 'restitution-spheres-midair.rec.jsonl', clean: false, scenario: midair, write: withWrite({ matrices: true }) });
  return out;
}

function bias(): Entry[] {
  const out: Entry[] = [];
  const baum = pgsConverged({ margin: 0, erp: 0.2, slop: 0.005 });
  const plant = (k: number, variant: string, reference: Partial<StepConfig>, body = 1) => ({
    frame: k,
    mechanism: 'bias-injection' as const,
    variant,
    reference,
    contacts: contactsOf(body),
  });
  // depth 4 mm below the declared slop of 5 mm: the bias is applied anyway at frame 15
  const below = (name: string, shape: 'box' | 'sphere'): Scenario => ({
    name,
    bodies: [
      ground(mat(0.5)),
      shape === 'box' ? box('crate', [0.2, 0.2, 0.1], 20, [0, 0, 0.1 - 0.004], mat(0.5)) : sphere('ball', 0.15, 20, [0, 0, 0.15 - 0.004], mat(0.5)),
    ],
    base: baum,
    frames: 40,
    solver: declare(baum, 'pgs-baumgarte'),
    solverName: 'pgs-baumgarte',
    perFrame: at(15, { biasIgnoresSlop: true }),
    plant: plant(15, name, { biasIgnoresSlop: false }),
  });
  out.push({ file: 'bias-below-slop-box.rec.jsonl', clean: false, scenario: below('below-slop-box', 'box'), write: withWrite({ matrices: true }) });
  out.push({
    file: 'bias-below-slop-sphere-foreign.rec.jsonl',
    clean: false,
    scenario: below('below-slop-sphere', 'sphere'),
    write: withWrite({ conventions: FOREIGN, pre: 'pose' }),
  });
  // ERP 0.9 where 0.2 is declared, after a teleport 6 mm deeper (depth 10 mm)
  const k = 15;
  out.push({
    file: 'bias-erp-0.9-teleport.rec.jsonl',
    clean: false,
    scenario: {
      name: 'erp-teleport',
      bodies: [ground(mat(0.5)), box('crate', [0.2, 0.2, 0.1], 3, [0, 0, 0.1 - 0.004], mat(0.5))],
      base: baum,
      frames: 40,
      solver: declare(baum, 'pgs-baumgarte'),
      solverName: 'pgs-baumgarte',
      teleports: [{ afterFrame: k - 1, body: 1, x: [0, 0, 0.1 - 0.01] }],
      perFrame: at(k, { erp: 0.9 }),
      plant: plant(k, 'erp-0.9-teleport', { erp: 0.2 }),
    },
    write: STANDARD,
  });
  // ERP 0.9 at a landing that penetrates 12 mm (no speculative contacts)
  out.push({
    file: 'bias-erp-0.9-landing.rec.jsonl',
    clean: false,
    scenario: {
      name: 'erp-landing',
      bodies: [ground(mat(0.5)), box('crate', [0.2, 0.2, 0.1], 3, [0, 0, dropStart(0.1 - 0.012, k, 0, baum.h, baum.gravity[2])], mat(0.5))],
      base: baum,
      frames: 40,
      solver: declare(baum, 'pgs-baumgarte'),
      solverName: 'pgs-baumgarte',
      perFrame: at(k, { erp: 0.9 }),
      plant: plant(k, 'erp-0.9-landing', { erp: 0.2 }),
    },
    write: STANDARD,
  });
  // a stiff soft contact (solref τ = 5 ms) settled, then pressed 1 cm deeper: the spring pushes out what it never stored
  const soft = pgsConverged({ margin: 0, soft: solref(0.005) });
  const hardRef = { soft: undefined, erp: 0 };
  const softBox = (name: string, declared: boolean): Scenario => ({
    name,
    bodies: boxColumn(1, [0.2, 0.2, 0.1], 2, mat(0.5)),
    base: soft,
    frames: 40,
    warmup: 600,
    solver: declared
      ? declare(soft, 'mujoco-like-soft')
      : { name: 'mujoco-like-soft', kind: 'iterative-tolerance', maxIterations: soft.maxIterations, tolerance: soft.tolerance },
    solverName: 'mujoco-like-soft',
    teleports: [{ afterFrame: k - 1, body: 1, x: [0, 0, 0.1 - 0.01] }],
    plant: plant(k, name, hardRef),
  });
  out.push({ file: 'bias-soft-declared-pressed.rec.jsonl', clean: false, scenario: softBox('soft-declared-pressed', true), write: STANDARD });
  out.push({ file: 'bias-soft-undeclared-pressed.rec.jsonl', clean: false, scenario: softBox('soft-undeclared-pressed', false), write: STANDARD });
  out.push({
    file: 'bias-soft-declared-spawned-sphere.rec.jsonl',
    clean: false,
    scenario: {
      name: 'soft-spawned',
      bodies: [ground(mat(0.5)), sphere('ball', 0.1, 2, [0, 0, 0.1 - 0.01], mat(0.5))],
      base: soft,
      frames: 30,
      solver: declare(soft, 'mujoco-like-soft'),
      solverName: 'mujoco-like-soft',
      plant: plant(0, 'soft-declared-spawned-sphere', hardRef),
    },
    write: withWrite({ initial: true }),
  });
  return out;
}

function overlap(): Entry[] {
  const out: Entry[] = [];
  const baum = pgsConverged({ margin: 0, erp: 0.2, slop: 0.005 });
  const noBias = { erp: 0 };
  const k = 12;
  const base = (name: string, extra: Partial<Scenario> & Pick<Scenario, 'bodies' | 'plant'>): Scenario => ({
    name,
    base: baum,
    frames: 35,
    solver: declare(baum, 'pgs-baumgarte'),
    solverName: 'pgs-baumgarte',
    ...extra,
  });
  const plant = (frame: number, variant: string, contacts: Plant['contacts']) => ({
    frame,
    mechanism: 'overlap-push-out' as const,
    variant,
    reference: noBias,
    contacts,
  });
  out.push({
    file: 'overlap-box-spawned-3cm.rec.jsonl',
    clean: false,
    scenario: base('box-spawned', {
      bodies: [ground(mat(0.5)), box('crate', [0.2, 0.2, 0.1], 2, [0, 0, 0.1 - 0.03], mat(0.5))],
      plant: plant(0, 'box-spawned-3cm', contactsOf(1)),
    }),
    write: withWrite({ initial: true, matrices: true }),
  });
  out.push({
    file: 'overlap-box-teleported-3cm.rec.jsonl',
    clean: false,
    scenario: base('box-teleported', {
      bodies: boxColumn(1, [0.2, 0.2, 0.1], 2, mat(0.5)),
      teleports: [{ afterFrame: k - 1, body: 1, x: [0, 0, 0.1 - 0.03] }],
      plant: plant(k, 'box-teleported-3cm', contactsOf(1)),
    }),
    write: STANDARD,
  });
  const r = 0.1;
  out.push({
    file: 'overlap-spheres-lateral-3cm.rec.jsonl',
    clean: false,
    scenario: base('spheres', {
      bodies: [ground(mat(0.5)), sphere('a', r, 2, [0, 0, r], mat(0.5)), sphere('b', r, 2, [1, 0, r], mat(0.5))],
      teleports: [{ afterFrame: k - 1, body: 2, x: [2 * r - 0.03, 0, r] }],
      plant: plant(k, 'spheres-lateral-3cm', (log) => log.contacts.flatMap((c, i) => (c.a !== 0 && c.b !== 0 ? [i] : []))),
    }),
    write: STANDARD,
  });
  out.push({
    file: 'overlap-stack-top-2.5cm.rec.jsonl',
    clean: false,
    scenario: base('stack-top', {
      bodies: boxColumn(2, [0.2, 0.2, 0.1], 2, mat(0.5)),
      teleports: [{ afterFrame: k - 1, body: 2, x: [0, 0, 0.3 - 0.025] }],
      plant: plant(k, 'stack-top-2.5cm', (log) => log.contacts.flatMap((c, i) => (c.a === 2 && c.b === 1 ? [i] : []))),
    }),
    write: withWrite({ matrices: true }),
  });
  out.push({
    file: 'overlap-sphere-ground-4cm-foreign.rec.jsonl',
    clean: false,
    scenario: base('sphere-ground', {
      bodies: [ground(mat(0.5)), sphere('ball', 0.15, 3, [0, 0, 0.15], mat(0.5))],
      teleports: [{ afterFrame: k - 1, body: 1, x: [0, 0, 0.15 - 0.04] }],
      plant: plant(k, 'sphere-ground-4cm-foreign', contactsOf(1)),
    }),
    write: withWrite({ conventions: FOREIGN, pre: 'pose' }),
  });
  return out;
}

export function contactEntries(): Entry[] {
  return [...restitution(), ...bias(), ...overlap()];
}
