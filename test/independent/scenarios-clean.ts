// Clean runs: physically correct steps that should get no finding at all.

import { box, ground, sphere } from './bodies.js';
import { declare, pgsConverged } from './configs.js';
import { boxColumn, dropStart, type Entry, FOREIGN, mat, STANDARD, withWrite } from './kit.js';

const H120 = 1 / 120;

export function cleanEntries(): Entry[] {
  const out: Entry[] = [];
  const add = (file: string, e: Omit<Entry, 'file' | 'clean'>) => out.push({ file: `clean-${file}.rec.jsonl`, clean: true, ...e });

  // a ball bouncing with e = 0.5 (rest threshold 0.5 m/s), first impact exactly at touching (frame 20)
  const hard = pgsConverged({ margin: 0 });
  const ball = sphere('ball', 0.1, 1, [0, 0, dropStart(0.1, 20, 0, hard.h, hard.gravity[2])], mat(0.5, 0.5));
  add('bounce-e0.5', {
    scenario: { name: 'bounce', bodies: [ground(mat(0.5, 0.5)), ball], base: hard, frames: 150, solver: declare(hard, 'pgs'), solverName: 'pgs' },
    write: withWrite({ matrices: true, initial: true }),
  });
  // the same on speculative contacts within 5 cm (Catto, GDC 2013): the landing loses energy, never gains
  const bounce = pgsConverged();
  add('bounce-speculative', {
    scenario: {
      name: 'bounce-spec',
      bodies: [ground(mat(0.5, 0.5)), sphere('ball', 0.1, 1, [0, 0, 1], mat(0.5, 0.5))],
      base: bounce,
      frames: 90,
      solver: declare(bounce, 'pgs'),
      solverName: 'pgs',
    },
    write: STANDARD,
  });
  add('resting-box', {
    scenario: { name: 'rest', bodies: boxColumn(1, [0.3, 0.2, 0.1], 3, mat(0.6)), base: hard, frames: 60, solver: declare(hard, 'pgs'), solverName: 'pgs' },
    write: withWrite({ matrices: true }),
  });

  // still sliding at the end (μ = 0.2, 3 m/s: stops after 1.5 s)
  const slideBodies = [ground(mat(0.2)), box('crate', [0.25, 0.2, 0.1], 2, [0, 0, 0.1], mat(0.2), [3, 0.5, 0])];
  add('sliding-box', {
    scenario: { name: 'slide', bodies: slideBodies, base: hard, frames: 60, solver: declare(hard, 'pgs'), solverName: 'pgs' },
    write: STANDARD,
  });

  add('stack-4-no-bias', {
    scenario: { name: 'stack', bodies: boxColumn(4, [0.2, 0.2, 0.1], 2, mat(0.5)), base: hard, frames: 60, solver: declare(hard, 'pgs'), solverName: 'pgs' },
    write: withWrite({ matrices: true }),
  });

  const slow = pgsConverged({ margin: 0, h: H120 });
  const restBodies = [ground(mat(0.5)), box('crate', [0.2, 0.2, 0.15], 5, [0, 0, 0.15], mat(0.5), [1.2, -0.6, 0])];
  add('slide-to-rest-120hz', {
    scenario: { name: 'stop', bodies: restBodies, base: slow, frames: 90, solver: declare(slow, 'pgs'), solverName: 'pgs' },
    write: STANDARD,
  });

  const cone = pgsConverged({ margin: 0, solver: 'socp' });
  add('convex-resting-box', {
    scenario: {
      name: 'cone-rest',
      bodies: boxColumn(1, [0.3, 0.3, 0.1], 4, mat(0.5)),
      base: cone,
      frames: 40,
      solver: declare(cone, 'qp-socp'),
      solverName: 'qp-socp',
    },
    write: withWrite({ matrices: true }),
  });

  // MuJoCo solref = (0.02, 1), impedance 0.95: k = d/(d_max²·τ²·ζ²), c = 2/(d_max·τ) (docs/recording-format.md)
  const soft = pgsConverged({ margin: 0, soft: { k: 0.95 / (0.95 * 0.95 * 0.02 * 0.02), c: 2 / (0.95 * 0.02) } });
  add('soft-declared-rest', {
    scenario: {
      name: 'soft',
      bodies: boxColumn(1, [0.2, 0.2, 0.1], 2, mat(0.5)),
      base: soft,
      frames: 40,
      warmup: 600,
      solver: declare(soft, 'mujoco-like-soft'),
      solverName: 'mujoco-like-soft',
    },
    write: withWrite({ initial: true }),
  });

  // foreign conventions: a box sliding and spinning, written y-up, xyzw, a-to-b, ω in body coordinates
  const spin = box('spinner', [0.3, 0.15, 0.1], 2, [0, 0, 0.1], mat(0.3), [2, 1, 0]);
  spin.w = [0, 0, 4];
  add('foreign-yup-xyzw-atob-bodyw', {
    scenario: { name: 'spin', bodies: [ground(mat(0.3)), spin], base: hard, frames: 50, solver: declare(hard, 'pgs'), solverName: 'pgs' },
    write: withWrite({ conventions: FOREIGN, pre: 'pose', matrices: true }),
  });

  // forces instead of impulses, float32 numbers, no pre
  add('foreign-force-float32-no-pre', {
    // speculative contacts: with contacts found only once overlapping, a bounce out of a penetration gains m·g·h·v⁺ in
    // the position update (semi-implicit Euler), which is not a clean run
    scenario: {
      name: 'bounce32',
      bodies: [ground(mat(0.4, 0.6)), sphere('ball', 0.15, 2, [0, 0, 0.8], mat(0.4, 0.6), [0.5, 0, 0])],
      base: bounce,
      frames: 90,
      solver: declare(bounce, 'pgs'),
      solverName: 'pgs',
    },
    write: withWrite({ conventions: { ...FOREIGN, impulse: 'force', angularVelocity: 'world', normal: 'b-to-a' }, pre: 'none', float32: true }),
  });

  // split impulse declared, stack of 3 touching exactly (the position pass has nothing to do)
  const split = pgsConverged({ margin: 0, h: 1 / 240, positionPass: { beta: 0.2, slop: 0.005 } });
  add('split-impulse-stack-3-240hz', {
    scenario: {
      name: 'split',
      bodies: boxColumn(3, [0.25, 0.25, 0.1], 3, mat(0.5)),
      base: split,
      frames: 80,
      solver: declare(split, 'pgs-split'),
      solverName: 'pgs-split',
    },
    write: STANDARD,
  });

  // Baumgarte declared, the box rests within the slop: no bias acts
  const baum = pgsConverged({ margin: 0, erp: 0.2, slop: 0.005 });
  add('baumgarte-within-slop', {
    scenario: {
      name: 'slop',
      bodies: [ground(mat(0.5)), box('crate', [0.2, 0.2, 0.1], 10, [0, 0, 0.1 - 0.003], mat(0.5))],
      base: baum,
      frames: 40,
      solver: declare(baum, 'pgs-baumgarte'),
      solverName: 'pgs-baumgarte',
    },
    write: withWrite({ matrices: true }),
  });

  // two spheres meeting in flight (e = 0.8), touching exactly at frame 12
  const k = 12;
  const r = 0.1;
  const speed = 3;
  const air = pgsConverged({ margin: 0 });
  const a = sphere('left', r, 1, [-2 * r - k * air.h * speed, 0, 5], mat(0.3, 0.8), [speed, 0, 0]);
  const b = sphere('right', r, 1.5, [0, 0, 5], mat(0.3, 0.8));
  add('spheres-collide-e0.8', {
    scenario: { name: 'collide', bodies: [ground(mat(0.3)), a, b], base: air, frames: 30, solver: declare(air, 'pgs'), solverName: 'pgs' },
    write: STANDARD,
  });

  // a pile of 5: two boxes side by side, one bridging them, two on top
  const pile = [ground(mat(0.6))];
  const hh = 0.1;
  pile.push(box('left', [0.2, 0.2, hh], 2, [-0.21, 0, hh], mat(0.6)), box('right', [0.2, 0.2, hh], 2, [0.21, 0, hh], mat(0.6)));
  pile.push(
    box('bridge', [0.3, 0.2, hh], 2, [0, 0, 3 * hh], mat(0.6)),
    box('upper', [0.2, 0.2, hh], 1.5, [0, 0, 5 * hh], mat(0.6)),
    box('top', [0.15, 0.15, hh], 1, [0, 0, 7 * hh], mat(0.6)),
  );
  add('pile-5-converged', {
    scenario: { name: 'pile', bodies: pile, base: hard, frames: 50, solver: declare(hard, 'pgs'), solverName: 'pgs' },
    write: STANDARD,
  });

  return out;
}
