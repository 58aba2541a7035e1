// Planted faults of the solve: non-converged-solve, friction-positive-work, socp-separation.

import { box, ground, sphere } from './bodies.js';
import { CONVERGED, declare, pgsConverged } from './configs.js';
import { boxColumn, dropStart, type Entry, FOREIGN, mat, STANDARD, withWrite } from './kit.js';
import { contactsOf, type Scenario, separatingAboveTarget } from './runner.js';
import type { StepConfig, StepLog } from './stepper.js';

const at = (k: number, over: Partial<StepConfig>) => (f: number) => (f === k ? over : undefined);

/**
 * A warm-started engine with a fixed, small sweep count (Box2D/Bullet style) holds a settled stack exactly;
 * when the load changes at frame k (the top box taken away), the stale warm-start impulses are more than the
 * sweeps can remove and the boxes below are pushed up (Catto, GDC 2005/2006: warm starting).
 */
function nonConverged(): Entry[] {
  const out: Entry[] = [];
  const k = 15;
  const plant = (variant: string) => ({
    frame: k,
    mechanism: 'non-converged-solve' as const,
    variant,
    reference: { maxIterations: 20000, tolerance: CONVERGED },
    contacts: separatingAboveTarget(0.25),
  });
  const fixed = (sweeps: number) => pgsConverged({ margin: 0, warmStart: true, maxIterations: sweeps, tolerance: 0 });
  const stack = (name: string, n: number, sweeps: number, label: Scenario['label'], extra: Partial<Scenario> = {}): Scenario => {
    const base = fixed(sweeps);
    return {
      name,
      bodies: boxColumn(n, [0.2, 0.2, 0.1], 4, mat(0.5)),
      base,
      frames: k + 15,
      // settled by one converged solve before recording
      warmup: 1,
      warmupConfig: { maxIterations: 20000, tolerance: CONVERGED },
      solver: declare(base, 'pgs-fixed'),
      solverName: 'pgs-fixed',
      label,
      teleports: [{ afterFrame: k - 1, body: n, x: [3, 0, 0.1] }],
      plant: plant(name),
      ...extra,
    };
  };
  out.push({
    file: 'nonconverged-stack-3-top-removed-converged-label.rec.jsonl',
    clean: false,
    scenario: stack('stack-3-label-converged', 3, 1, 'converged'),
    write: STANDARD,
  });
  out.push({
    file: 'nonconverged-stack-3-top-removed-max-iterations.rec.jsonl',
    clean: false,
    scenario: stack('stack-3-label-max-iterations', 3, 2, 'max-iterations'),
    write: withWrite({ matrices: true }),
  });
  // the top box of a 4-stack lifted by a user (an external impulse before the solve) instead of teleported
  const lift = stack('stack-4-top-lifted', 4, 1, 'converged', { teleports: [], perFrame: undefined });
  lift.perFrame = at(k, { external: [{ body: 4, impulse: [0, 0, 4 * 3] }] });
  out.push({ file: 'nonconverged-stack-4-top-lifted.rec.jsonl', clean: false, scenario: lift, write: STANDARD });
  // a pile of 5 (two side by side, one bridging, two on top): the top one taken away, 2 sweeps, kind not declared
  const pile = [ground(mat(0.6))];
  const hh = 0.1;
  pile.push(box('left', [0.2, 0.2, hh], 4, [-0.21, 0, hh], mat(0.6)), box('right', [0.2, 0.2, hh], 4, [0.21, 0, hh], mat(0.6)));
  pile.push(
    box('bridge', [0.3, 0.2, hh], 4, [0, 0, 3 * hh], mat(0.6)),
    box('upper', [0.2, 0.2, hh], 4, [0, 0, 5 * hh], mat(0.6)),
    box('top', [0.15, 0.15, hh], 4, [0, 0, 7 * hh], mat(0.6)),
  );
  const pileBase = fixed(2);
  const pileSolver = declare(pileBase, 'pgs-fixed');
  delete pileSolver.kind;
  out.push({
    file: 'nonconverged-pile-5-top-removed-kind-undeclared.rec.jsonl',
    clean: false,
    scenario: {
      name: 'pile-5',
      warmup: 1,
      warmupConfig: { maxIterations: 20000, tolerance: CONVERGED },
      bodies: pile,
      base: pileBase,
      frames: k + 15,
      solver: pileSolver,
      solverName: 'pgs-fixed',
      label: 'max-iterations',
      teleports: [{ afterFrame: k - 1, body: 5, x: [3, 0, hh] }],
      plant: plant('pile-5-kind-undeclared'),
    },
    write: STANDARD,
  });
  // an engine that declares a tolerance and writes "converged" after 1 sweep (the label is a claim)
  const liar = stack('stack-3-claims-tolerance', 3, 1, 'converged');
  liar.solver = { ...declare(fixed(1), 'pgs'), kind: 'iterative-tolerance', tolerance: 1e-6 };
  out.push({ file: 'nonconverged-stack-3-claims-tolerance-no-pre.rec.jsonl', clean: false, scenario: liar, write: withWrite({ pre: 'none' }) });
  return out;
}

/**
 * Friction that works along the slip at frame k: either a sign slip inside the solve (the solver applies
 * μλn along the slip and its normal rows balance that), or the converged friction impulses negated after the
 * solve ("flipped", which leaves the normal rows unbalanced on a box: its corners then separate too).
 */
function friction(): Entry[] {
  const out: Entry[] = [];
  const hard = pgsConverged({ margin: 0 });
  const k = 10;
  type Pick = (log: StepLog) => number[];
  const plant = (variant: string, contacts: Pick, frame = k) => ({
    frame,
    mechanism: 'friction-positive-work' as const,
    variant,
    reference: { frictionAlongSlip: undefined, flipFriction: undefined },
    contacts,
  });
  const inSolve = (which: number[] | 'all') => at(k, { frictionAlongSlip: which });
  const slide = (name: string, which: number[] | 'all', extra: Partial<Scenario> = {}): Scenario => ({
    name,
    bodies: [ground(mat(0.4)), box('crate', [0.25, 0.2, 0.1], 2, [0, 0, 0.1], mat(0.4), [3, 0, 0])],
    base: hard,
    frames: 30,
    solver: declare(hard, 'pgs'),
    solverName: 'pgs',
    perFrame: inSolve(which),
    plant: plant(name, which === 'all' ? contactsOf(1) : () => which),
    ...extra,
  });
  out.push({ file: 'friction-box-slide.rec.jsonl', clean: false, scenario: slide('box-slide', 'all'), write: withWrite({ matrices: true }) });
  out.push({ file: 'friction-box-one-corner.rec.jsonl', clean: false, scenario: slide('box-one-corner', [2]), write: STANDARD });
  out.push({
    file: 'friction-box-slide-no-pre-float32.rec.jsonl',
    clean: false,
    scenario: slide('box-no-pre-float32', 'all'),
    write: withWrite({ pre: 'none', float32: true }),
  });
  out.push({
    file: 'friction-box-slide-foreign.rec.jsonl',
    clean: false,
    scenario: slide('box-foreign', 'all'),
    write: withWrite({ conventions: FOREIGN, pre: 'pose' }),
  });
  out.push({
    file: 'friction-box-flipped-after-solve.rec.jsonl',
    clean: false,
    scenario: slide('box-flipped-after-solve', 'all', { perFrame: at(k, { flipFriction: 'all' }) }),
    write: STANDARD,
  });
  const slip = (name: string, flipped: boolean): Scenario => ({
    name,
    bodies: [ground(mat(0.3)), sphere('ball', 0.15, 3, [0, 0, 0.15], mat(0.3), [4, 0, 0])],
    base: hard,
    frames: 30,
    solver: declare(hard, 'pgs'),
    solverName: 'pgs',
    perFrame: at(5, flipped ? { flipFriction: 'all' } : { frictionAlongSlip: 'all' }),
    plant: plant(name, contactsOf(1), 5),
  });
  out.push({ file: 'friction-sphere-slipping.rec.jsonl', clean: false, scenario: slip('sphere-slipping', false), write: STANDARD });
  out.push({ file: 'friction-sphere-flipped-after-solve.rec.jsonl', clean: false, scenario: slip('sphere-flipped-after-solve', true), write: STANDARD });
  // box sliding on a box that the ground holds (μ top/lower 0.5, lower/ground 1)
  const onBox: Scenario = {
    name: 'box-on-box',
    bodies: [ground(mat(1)), box('lower', [0.5, 0.3, 0.1], 5, [0, 0, 0.1], mat(1)), box('upper', [0.15, 0.15, 0.1], 2, [-0.2, 0, 0.3], mat(0.25), [2, 0, 0])],
    base: hard,
    frames: 25,
    solver: declare(hard, 'pgs'),
    solverName: 'pgs',
    perFrame: inSolve([4, 5, 6, 7]),
    plant: plant('box-on-box', (log) => log.contacts.flatMap((c, i) => (c.a === 2 && c.b === 1 ? [i] : []))),
  };
  out.push({ file: 'friction-box-on-box.rec.jsonl', clean: false, scenario: onBox, write: STANDARD });
  // masked: a heavy box sliding elsewhere (friction as it should be) loses more in the same frame
  const masked = slide('masked', [0, 1, 2, 3], {
    bodies: [
      ground(mat(0.4)),
      box('crate', [0.25, 0.2, 0.1], 1, [0, 0, 0.1], mat(0.4), [3, 0, 0]),
      box('sled', [0.3, 0.3, 0.1], 20, [0, 3, 0.1], mat(0.4), [4, 0, 0]),
    ],
  });
  out.push({ file: 'friction-masked-by-sliding.rec.jsonl', clean: false, scenario: masked, write: STANDARD });
  return out;
}

/** Anitescu's convex model: a sliding contact separates at μ‖v_t‖; the lift's normal work is the planted energy. */
function convex(): Entry[] {
  const out: Entry[] = [];
  const cone = pgsConverged({ margin: 0, solver: 'socp' });
  const k = 10;
  const plant = (variant: string, frame = k) => ({
    frame,
    mechanism: 'socp-separation' as const,
    variant,
    reference: 'lift-work' as const,
    contacts: separatingAboveTarget(0.25),
  });
  const push = (name: string, solverName: string, body: 'box' | 'sphere', cfg: StepConfig, extra: Record<string, unknown> = {}): Scenario => ({
    name,
    bodies: [ground(mat(0.5)), body === 'box' ? box('crate', [0.25, 0.2, 0.1], 2, [0, 0, 0.1], mat(0.5)) : sphere('ball', 0.15, 2, [0, 0, 0.15], mat(0.5))],
    base: cfg,
    frames: 30,
    solver: { ...declare(cfg, solverName), ...extra },
    solverName,
    // a before-solve push (an impulse from outside, recorded in `external`)
    perFrame: at(k, { external: [{ body: 1, impulse: [6, 0, 0] }] }),
    plant: plant(name),
  });
  out.push({
    file: 'socp-box-push-with-Ab.rec.jsonl',
    clean: false,
    scenario: push('box-push-Ab', 'qp-socp', 'box', cone),
    write: withWrite({ matrices: true }),
  });
  out.push({ file: 'socp-box-push-no-Ab.rec.jsonl', clean: false, scenario: push('box-push-no-Ab', 'qp-socp', 'box', cone), write: STANDARD });
  const newton = push('box-push-newton', 'newton', 'box', cone);
  delete newton.solver.friction;
  out.push({ file: 'socp-box-push-named-newton.rec.jsonl', clean: false, scenario: newton, write: withWrite({ matrices: true }) });
  out.push({ file: 'socp-sphere-push.rec.jsonl', clean: false, scenario: push('sphere-push', 'qp-socp', 'sphere', cone), write: STANDARD });
  // a box landing while sliding with e = 0.8: the lift adds μ‖v_t‖ to the restitution law's e·a
  const landing: Scenario = {
    name: 'landing-bounce',
    bodies: [ground(mat(0.3, 0.8)), box('crate', [0.25, 0.2, 0.1], 2, [0, 0, dropStart(0.1, k, 0, cone.h, cone.gravity[2])], mat(0.3, 0.8), [2, 0, 0])],
    base: cone,
    frames: 30,
    solver: declare(cone, 'qp-socp'),
    solverName: 'qp-socp',
    plant: plant('box-landing-e0.8'),
  };
  out.push({ file: 'socp-box-landing-bounce-e0.8.rec.jsonl', clean: false, scenario: landing, write: withWrite({ matrices: true }) });
  // a box already sliding at frame 0 (initial-state line), 120 Hz
  const fine = pgsConverged({ margin: 0, solver: 'socp', h: 1 / 120 });
  out.push({
    file: 'socp-box-sliding-initial-120hz.rec.jsonl',
    clean: false,
    scenario: {
      name: 'sliding-initial',
      bodies: [ground(mat(0.5)), box('crate', [0.25, 0.2, 0.1], 2, [0, 0, 0.1], mat(0.5), [3, 1, 0])],
      base: fine,
      frames: 40,
      solver: declare(fine, 'qp-socp'),
      solverName: 'qp-socp',
      plant: plant('sliding-initial-120hz', 0),
    },
    write: withWrite({ initial: true, matrices: true }),
  });
  return out;
}

export function solveEntries(): Entry[] {
  return [...nonConverged(), ...friction(), ...convex()];
}
