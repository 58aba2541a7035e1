/**
 * Writes examples/*.scene.json (the bundled scenario files, docs/scene-format.md).
 * Run from the repository root: npx tsx scripts/make-example-scenes.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from '../test/rng.js';

type J = null | boolean | number | string | J[] | { [k: string]: J };
const OUT = join(process.cwd(), 'examples');
const SCHEMA = '../schemas/scene.schema.json';

const r = (x: number, digits = 6): number => {
  const v = Number(x.toFixed(digits));
  return Object.is(v, -0) ? 0 : v;
};
const p12 = (x: number): number => {
  const v = Number(x.toPrecision(12));
  return Object.is(v, -0) ? 0 : v;
};
const deg = Math.PI / 180;

function inline(v: J): string {
  if (Array.isArray(v)) return `[${v.map(inline).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const e = Object.entries(v);
    return e.length ? `{ ${e.map(([k, x]) => `${JSON.stringify(k)}: ${inline(x)}`).join(', ')} }` : '{}';
  }
  return JSON.stringify(v);
}

/** Pretty-prints with 2-space indentation; a value stays on one line when it fits in `width` (number arrays always do). */
function fmt(v: J, indent: string, width: number, prefix = 0): string {
  const flat = inline(v);
  if (indent.length + prefix + flat.length <= width || (Array.isArray(v) && v.every((x) => typeof x === 'number'))) return flat;
  const ind = indent + '  ';
  if (Array.isArray(v)) return `[\n${v.map((x) => ind + fmt(x, ind, width)).join(',\n')}\n${indent}]`;
  if (v !== null && typeof v === 'object') {
    return `{\n${Object.entries(v)
      .map(([k, x]) => `${ind}${JSON.stringify(k)}: ${fmt(x, ind, width, k.length + 4)}`)
      .join(',\n')}\n${indent}}`;
  }
  return flat;
}

function write(name: string, scenarios: J[], width = 110): void {
  const doc: J = { $schema: SCHEMA, scenarios };
  // Top level and scenarios multi-line; inner values inline when they fit.
  const text = fmt(doc, '', width) + '\n';
  writeFileSync(join(OUT, name), text);
  console.log(`${name}: ${scenarios.length} scenario(s), ${(text.length / 1024).toFixed(1)} KB`);
}

const ground = (material?: string): J => ({
  name: 'ground',
  shape: { plane: { normal: [0, 0, 1], offset: 0 } },
  static: true,
  ...(material ? { material } : {}),
});
const box = (name: string, h: [number, number, number], mass: number, position: number[], extra: Record<string, J> = {}): J => ({
  name,
  shape: { box: { halfExtents: h } },
  mass,
  position,
  ...extra,
});
const sphere = (name: string, radius: number, mass: number, position: number[], extra: Record<string, J> = {}): J => ({
  name,
  shape: { sphere: { radius } },
  mass,
  position,
  ...extra,
});
const quatAxisAngle = (axis: [number, number, number], angle: number): number[] => {
  const l = Math.hypot(...axis),
    s = Math.sin(angle / 2) / l;
  return [p12(Math.cos(angle / 2)), p12(axis[0] * s), p12(axis[1] * s), p12(axis[2] * s)];
};

// ---- sphere-drop ----
write('sphere-drop.scene.json', [
  {
    name: 'sphere-drop',
    description:
      'A 1 kg ball (r = 0.1 m, e = 0.5 on a ground with e = 0.5) dropped from 1 m: it hits at 4.43 m/s, rebounds to 0.25 m, 0.0625 m, …; once the impact speed falls below restVelocityThreshold (0.5 m/s) it stops bouncing and rests on the ground well before the 3 s are over.',
    frames: 180,
    materials: [{ name: 'bouncy', friction: 0.5, restitution: 0.5 }],
    bodies: [ground('bouncy'), sphere('ball', 0.1, 1, [0, 0, 1.1], { material: 'bouncy' })],
    expectations: [
      { kind: 'noSolverFailures' },
      { kind: 'energyNonIncreasing', toleranceJ: 0.01 },
      { kind: 'maxPenetration', meters: 0.08 },
      { kind: 'finalPosition', body: 'ball', position: [0, 0, 0.1], tolerance: 0.01 },
      { kind: 'bodyAtRest', body: 'ball', speed: 0.05 },
    ],
  },
  {
    name: 'sphere-drop-no-bounce',
    description:
      'The same drop with the implicit default material (e = 0): the ball stops at the first impact (t ≈ 0.45 s). It sinks up to one frame of travel (≈ 3–7 cm) into the ground; split impulse pushes it out without turning the correction into kinetic energy (with Baumgarte/ERP instead, the push-out adds ≈ 0.02 J that `diagnose` reports as bias injection).',
    frames: 90,
    splitImpulse: true,
    bodies: [ground(), sphere('ball', 0.1, 1, [0, 0, 1.1])],
    expectations: [
      { kind: 'noSolverFailures' },
      { kind: 'energyNonIncreasing', toleranceJ: 0.05 },
      { kind: 'finalPosition', body: 'ball', position: [0, 0, 0.1], tolerance: 0.01 },
      { kind: 'bodyAtRest', body: 'ball', speed: 0.05 },
    ],
  },
  {
    name: 'sphere-drop-restitution-max',
    description:
      'A bouncy ball (e = 0.5) on the default ground (e = 0). With the default geometric mean √(0.5·0) = 0 it would not bounce; restitutionCombine "max" makes the pair bounce with e = 0.5.',
    frames: 180,
    restitutionCombine: 'max',
    materials: [{ name: 'bouncy', friction: 0.5, restitution: 0.5 }],
    bodies: [ground(), sphere('ball', 0.1, 1, [0, 0, 1.1], { material: 'bouncy' })],
    expectations: [
      { kind: 'noSolverFailures' },
      { kind: 'energyNonIncreasing', toleranceJ: 0.01 },
      { kind: 'finalPosition', body: 'ball', position: [0, 0, 0.1], tolerance: 0.01 },
    ],
  },
]);

// ---- head-on-elastic ----
const elastic = { name: 'elastic', friction: 0, restitution: 1 };
write('head-on-elastic.scene.json', [
  {
    name: 'head-on-elastic',
    description:
      'Two equal spheres (1 kg, r = 0.25 m) approach head-on at ±1 m/s without gravity; e = 1, so they exchange velocities. Kinetic energy (1 J) and momentum (0) are conserved. splitImpulse keeps position correction from adding energy.',
    frames: 60,
    gravity: [0, 0, 0],
    splitImpulse: true,
    materials: [elastic],
    bodies: [
      sphere('left', 0.25, 1, [-0.745, 0, 0], { velocity: [1, 0, 0], material: 'elastic' }),
      sphere('right', 0.25, 1, [0.745, 0, 0], { velocity: [-1, 0, 0], material: 'elastic' }),
    ],
    expectations: [
      { kind: 'noSolverFailures' },
      { kind: 'finalVelocity', body: 'left', velocity: [-1, 0, 0], tolerance: 0.001 },
      { kind: 'finalVelocity', body: 'right', velocity: [1, 0, 0], tolerance: 0.001 },
      { kind: 'momentumConserved', tolerance: 1e-6 },
      { kind: 'energyNonIncreasing', toleranceJ: 1e-6 },
    ],
  },
  {
    name: 'head-on-elastic-mass-ratio-3',
    description:
      "A 1 kg sphere at 2 m/s hits a resting 3 kg sphere (e = 1): v1' = (m1 − m2)/(m1 + m2)·2 = −1 m/s, v2' = 2m1/(m1 + m2)·2 = 1 m/s. Momentum 2 N·s and energy 2 J are conserved.",
    frames: 60,
    gravity: [0, 0, 0],
    splitImpulse: true,
    materials: [elastic],
    bodies: [
      sphere('light', 0.25, 1, [-0.745, 0, 0], { velocity: [2, 0, 0], material: 'elastic' }),
      sphere('heavy', 0.25, 3, [0.745, 0, 0], { material: 'elastic' }),
    ],
    expectations: [
      { kind: 'noSolverFailures' },
      { kind: 'finalVelocity', body: 'light', velocity: [-1, 0, 0], tolerance: 0.001 },
      { kind: 'finalVelocity', body: 'heavy', velocity: [1, 0, 0], tolerance: 0.001 },
      { kind: 'momentumConserved', tolerance: 1e-6 },
      { kind: 'energyNonIncreasing', toleranceJ: 1e-6 },
    ],
  },
]);

// ---- glancing-collision ----
{
  // Impact parameter r (half the centre distance 2r at contact): the line of centres is at 30° to the motion.
  // A reaches x = −0.4329 after exactly 30 frames (1 m at 2 m/s), 0.1 mm inside contact (below slop).
  const th = 30 * deg,
    v = 2;
  const vb = [r(v * Math.cos(th) * Math.cos(th)), r(v * Math.cos(th) * Math.sin(th)), 0];
  const va = [r(v - vb[0]), r(-vb[1]), 0];
  write('glancing-collision.scene.json', [
    {
      name: 'glancing-collision',
      description:
        'Frictionless elastic glancing impact of equal spheres (1 kg, r = 0.25 m), no gravity: the moving sphere (2 m/s along x) hits the resting one with the line of centres at 30°. The struck sphere leaves along the line of centres at 2·cos 30° m/s, the striker at 90° to it; momentum and energy (2 J) are conserved.',
      frames: 60,
      gravity: [0, 0, 0],
      splitImpulse: true,
      materials: [elastic],
      bodies: [
        sphere('striker', 0.25, 1, [-1.4329, 0, 0], { velocity: [2, 0, 0], material: 'elastic' }),
        sphere('target', 0.25, 1, [0, 0.25, 0], { material: 'elastic' }),
      ],
      expectations: [
        { kind: 'noSolverFailures' },
        { kind: 'finalVelocity', body: 'striker', velocity: va, tolerance: 0.005 },
        { kind: 'finalVelocity', body: 'target', velocity: vb, tolerance: 0.005 },
        { kind: 'momentumConserved', tolerance: 1e-6 },
        { kind: 'energyNonIncreasing', toleranceJ: 1e-6 },
      ],
    },
    {
      name: 'glancing-collision-friction',
      description:
        'The same impact with μ = 0.5: friction at the contact spins both spheres up and dissipates energy. Linear momentum is still conserved (the contact impulses are equal and opposite); the final velocities are not pinned down here.',
      frames: 60,
      gravity: [0, 0, 0],
      splitImpulse: true,
      materials: [{ name: 'rough-elastic', friction: 0.5, restitution: 1 }],
      bodies: [
        sphere('striker', 0.25, 1, [-1.4329, 0, 0], { velocity: [2, 0, 0], material: 'rough-elastic' }),
        sphere('target', 0.25, 1, [0, 0.25, 0], { material: 'rough-elastic' }),
      ],
      expectations: [{ kind: 'noSolverFailures' }, { kind: 'momentumConserved', tolerance: 1e-6 }, { kind: 'energyNonIncreasing', toleranceJ: 1e-6 }],
    },
  ]);
}

// ---- resting-box ----
const restingExpect = (name: string, pos: number[], energyTol: number): J[] => [
  { kind: 'noSolverFailures' },
  { kind: 'finalPosition', body: name, position: pos, tolerance: 0.01 },
  { kind: 'energyNonIncreasing', toleranceJ: energyTol },
  { kind: 'maxPenetration', meters: 0.01 },
  { kind: 'bodyAtRest', body: name, speed: 0.01 },
];
write('resting-box.scene.json', [
  {
    name: 'resting-box',
    description: 'A 1 kg unit cube resting on the ground for 1000 frames (16.7 s): it must not drift (< 1 cm), jitter or gain energy.',
    frames: 1000,
    bodies: [ground(), box('box', [0.5, 0.5, 0.5], 1, [0, 0, 0.5])],
    expectations: restingExpect('box', [0, 0, 0.5], 1e-6),
  },
  {
    name: 'resting-box-pgs',
    description: 'The resting cube with projected Gauss–Seidel (20 iterations, warm-started).',
    frames: 1000,
    solver: { name: 'pgs', maxIterations: 20 },
    bodies: [ground(), box('box', [0.5, 0.5, 0.5], 1, [0, 0, 0.5])],
    expectations: restingExpect('box', [0, 0, 0.5], 1e-4),
  },
  {
    name: 'resting-box-rotated',
    description: 'A flat 2 kg box (2 × 1 × 0.5 m) turned 30° about z, resting on the ground: tests orientation handling of the box–plane contact.',
    frames: 1000,
    bodies: [ground(), box('slab', [1, 0.5, 0.25], 2, [0, 0, 0.25], { orientation: quatAxisAngle([0, 0, 1], 30 * deg) })],
    expectations: restingExpect('slab', [0, 0, 0.25], 1e-6),
  },
]);

// ---- box-stack-10 ----
const stack = (n: number): J[] => [ground(), ...Array.from({ length: n }, (_, i) => box(`box-${i}`, [0.5, 0.5, 0.5], 1, [0, 0, 0.5 + i]))];
write(
  'box-stack-10.scene.json',
  [
    {
      name: 'box-stack-10',
      description: 'Ten 1 kg unit cubes stacked on the ground, touching. A correct solver keeps the tower standing and still for 5 s.',
      frames: 300,
      bodies: stack(10),
      expectations: [
        { kind: 'noSolverFailures' },
        { kind: 'finalPosition', body: 'box-9', position: [0, 0, 9.5], tolerance: 0.05 },
        { kind: 'bodyAtRest', body: 'box-9', speed: 0.01 },
        { kind: 'maxPenetration', meters: 0.01 },
        { kind: 'energyNonIncreasing', toleranceJ: 0.001 },
      ],
    },
  ],
  120,
);

// ---- pyramid-20 ----
{
  const bodies: J[] = [ground()];
  const s = 1.02; // 2 cm gaps between neighbours in a row
  let top = '';
  for (let row = 0; row < 20; row++) {
    const n = 20 - row;
    for (let i = 0; i < n; i++) {
      const name = `box-r${row}-${i}`;
      bodies.push(box(name, [0.5, 0.5, 0.5], 1, [r((i - (n - 1) / 2) * s), 0, 0.5 + row]));
      top = name;
    }
  }
  write(
    'pyramid-20.scene.json',
    [
      {
        name: 'pyramid-20',
        description:
          'A 2D pyramid of 210 unit cubes (1 kg) with a base of 20, each box resting on two below it (2 cm gaps in a row). PGS with warm starting (50 iterations) is the usual choice at this size (≈ 1600 contacts in one island); the pyramid must stand for 2 s. Softening γ = 0.01 (docs/physics.md "Softening", a CFM-like compliance) makes those 50 sweeps enough: without it PGS stops at max-iterations in frames 5–7 and the unconverged impulses add 0.1–0.24 J, which `diagnose` reports as non-converged-solve.',
        frames: 120,
        softening: 0.01,
        solver: { name: 'pgs', maxIterations: 50 },
        bodies,
        expectations: [
          { kind: 'noSolverFailures' },
          { kind: 'maxPenetration', meters: 0.05 },
          { kind: 'finalPosition', body: top, position: [0, 0, 19.5], tolerance: 0.25 },
          { kind: 'bodyAtRest', body: top, speed: 0.05 },
        ],
      },
    ],
    130,
  );
}

// ---- box-slide-friction ----
{
  const mu = 0.5,
    v0 = 3,
    g = 9.81;
  const stop = r((v0 * v0) / (2 * mu * g), 4);
  const rough = { name: 'rough', friction: mu, restitution: 0 };
  write('box-slide-friction.scene.json', [
    {
      name: 'box-slide-friction',
      description: `A 1 kg unit cube slides at 3 m/s on the ground with μ = 0.5: it decelerates at μg = 4.905 m/s², stops after 0.61 s at x = v0²/(2μg) = ${stop} m and stays there. Semi-implicit Euler with Δt = 1/60 stops ≈ v0·Δt/2 = 0.025 m earlier, so the tolerance is 0.03 m. PGS with the Coulomb disk gives Coulomb friction for sliding contacts.`,
      frames: 120,
      solver: { name: 'pgs', friction: 'coulomb-disk', maxIterations: 50 },
      materials: [rough],
      bodies: [ground('rough'), box('box', [0.5, 0.5, 0.5], 1, [0, 0, 0.5], { velocity: [v0, 0, 0], material: 'rough' })],
      expectations: [
        { kind: 'noSolverFailures' },
        { kind: 'finalPosition', body: 'box', position: [stop, 0, 0.5], tolerance: 0.03 },
        { kind: 'finalVelocity', body: 'box', velocity: [0, 0, 0], tolerance: 0.01 },
        { kind: 'bodyAtRest', body: 'box', speed: 0.01 },
        { kind: 'energyNonIncreasing', toleranceJ: 0.001 },
      ],
    },
    {
      name: 'box-slide-frictionless',
      description: 'The same slide with μ = 0: the cube keeps 3 m/s and is at x = 3 m after 1 s.',
      frames: 60,
      materials: [{ name: 'ice', friction: 0, restitution: 0 }],
      bodies: [ground('ice'), box('box', [0.5, 0.5, 0.5], 1, [0, 0, 0.5], { velocity: [v0, 0, 0], material: 'ice' })],
      expectations: [
        { kind: 'noSolverFailures' },
        { kind: 'finalPosition', body: 'box', position: [3, 0, 0.5], tolerance: 0.01 },
        { kind: 'finalVelocity', body: 'box', velocity: [v0, 0, 0], tolerance: 0.001 },
        { kind: 'energyNonIncreasing', toleranceJ: 1e-6 },
      ],
    },
    {
      name: 'box-slide-friction-newton',
      description:
        'The μ = 0.5 slide solved as the QP-SOCP (projected Newton). For a sliding contact its optimum has a spurious separating normal velocity μ‖v_t‖ (docs/physics.md, the QP-SOCP and its KKT conditions: the lift), so the box hops and slides farther than Coulomb predicts; energy still does not increase. Compare with "box-slide-friction".',
      frames: 120,
      materials: [rough],
      bodies: [ground('rough'), box('box', [0.5, 0.5, 0.5], 1, [0, 0, 0.5], { velocity: [v0, 0, 0], material: 'rough' })],
      expectations: [{ kind: 'noSolverFailures' }, { kind: 'energyNonIncreasing', toleranceJ: 0.001 }],
    },
  ]);
}

// ---- incline-friction-angle ----
{
  const mu = 0.5,
    g = 9.81,
    h = 0.5;
  const crit = Math.atan(mu);
  const incline = (name: string, theta: number, description: string, sliding: boolean): J => {
    const n = [p12(-Math.sin(theta)), 0, p12(Math.cos(theta))];
    const q = quatAxisAngle([0, 1, 0], -theta); // body z → plane normal
    const pos = [p12(h * n[0]), 0, p12(h * n[2])];
    const frames = sliding ? 60 : 120;
    const exp: J[] = [{ kind: 'noSolverFailures' }];
    if (sliding) {
      const a = g * (Math.sin(theta) - mu * Math.cos(theta)),
        T = frames / 60;
      const s = 0.5 * a * T * T; // continuous; semi-implicit Euler gives a·Δt²·k(k+1)/2, 1.7 % more
      const d = [-Math.cos(theta), 0, -Math.sin(theta)]; // down the slope
      exp.push(
        { kind: 'finalPosition', body: 'box', position: pos.map((x, i) => r(x + s * d[i], 4)), tolerance: 0.02 },
        { kind: 'finalVelocity', body: 'box', velocity: d.map((x) => r(a * T * x, 4)), tolerance: 0.02 },
      );
    } else {
      exp.push({ kind: 'finalPosition', body: 'box', position: pos, tolerance: 0.01 }, { kind: 'bodyAtRest', body: 'box', speed: 0.01 });
    }
    exp.push({ kind: 'energyNonIncreasing', toleranceJ: 0.001 });
    return {
      name,
      description,
      frames,
      ...(sliding ? { solver: { name: 'pgs', friction: 'coulomb-disk', maxIterations: 50 } } : {}),
      materials: [{ name: 'rough', friction: mu, restitution: 0 }],
      bodies: [
        { name: 'incline', shape: { plane: { normal: n, offset: 0 } }, static: true, material: 'rough' },
        box('box', [h, h, h], 1, pos, { orientation: q, material: 'rough' }),
      ],
      expectations: exp,
    };
  };
  const cd = (crit / deg).toFixed(3);
  write('incline-friction-angle.scene.json', [
    incline(
      'incline-at-friction-angle',
      crit,
      `A 1 kg unit cube at rest on a plane tilted by the friction angle atan(μ) = ${cd}° (μ = 0.5; plane normal (−sin θ, 0, cos θ), the cube turned by −θ about y so that its bottom face lies on the plane). Static friction needed = μ·N exactly: the cube is on the edge of the friction cone and must stay put.`,
      false,
    ),
    incline(
      'incline-below-friction-angle',
      crit - 5 * deg,
      `The cube on a plane tilted 5° less than the friction angle (${(crit / deg - 5).toFixed(3)}°): it sticks.`,
      false,
    ),
    incline(
      'incline-above-friction-angle',
      crit + 5 * deg,
      `The cube on a plane tilted 5° more than the friction angle (${(crit / deg + 5).toFixed(3)}°): it slides down with a = g(sin θ − μ cos θ) ≈ ${(g * (Math.sin(crit + 5 * deg) - mu * Math.cos(crit + 5 * deg))).toFixed(4)} m/s²; after 1 s it has moved ½a·t² down the slope and moves at a·t. PGS with the Coulomb disk (exact Coulomb friction while sliding).`,
      true,
    ),
  ]);
}

// ---- mass-ratio-stack ----
{
  const bodies: J[] = [ground(), box('light', [0.5, 0.5, 0.5], 1, [0, 0, 0.5]), box('heavy', [0.5, 0.5, 0.5], 100, [0, 0, 1.5])];
  write('mass-ratio-stack.scene.json', [
    {
      name: 'mass-ratio-stack-1-100',
      description:
        'A 100 kg cube resting on a 1 kg cube on the ground (mass ratio 1:100, the classic hard case for iterative solvers: A is badly conditioned). A direct solver keeps both still.',
      frames: 300,
      bodies,
      expectations: [
        { kind: 'noSolverFailures' },
        { kind: 'finalPosition', body: 'light', position: [0, 0, 0.5], tolerance: 0.02 },
        { kind: 'finalPosition', body: 'heavy', position: [0, 0, 1.5], tolerance: 0.02 },
        { kind: 'bodyAtRest', body: 'heavy', speed: 0.01 },
        { kind: 'maxPenetration', meters: 0.01 },
      ],
    },
  ]);
}

// ---- box-pile-1000 ----
{
  const rand = rng(20240601);
  const bodies: J[] = [ground()];
  const spacing = 1.25,
    n = 10;
  for (let k = 0; k < n; k++)
    for (let j = 0; j < n; j++)
      for (let i = 0; i < n; i++) {
        const he: [number, number, number] = [r(0.2 + 0.15 * rand(), 3), r(0.2 + 0.15 * rand(), 3), r(0.2 + 0.15 * rand(), 3)];
        // bounding radius ≤ √3·0.35 = 0.61 < spacing/2 and < the lowest centre height: no initial overlaps
        const pos = [r((i - 4.5) * spacing + 0.1 * (rand() - 0.5), 3), r((j - 4.5) * spacing + 0.1 * (rand() - 0.5), 3), r(1 + k * spacing, 3)];
        const u = [rand(), rand(), rand()];
        const q = [
          Math.sqrt(1 - u[0]) * Math.sin(2 * Math.PI * u[1]),
          Math.sqrt(1 - u[0]) * Math.cos(2 * Math.PI * u[1]),
          Math.sqrt(u[0]) * Math.sin(2 * Math.PI * u[2]),
          Math.sqrt(u[0]) * Math.cos(2 * Math.PI * u[2]),
        ].map((x) => Number(x.toPrecision(10)));
        const mass = r(he[0] * he[1] * he[2] * 8 * 500, 3); // 500 kg/m³
        bodies.push(box(`box-${String(bodies.length - 1).padStart(4, '0')}`, he, mass, pos, { orientation: q }));
      }
  write(
    'box-pile-1000.scene.json',
    [
      {
        name: 'box-pile-1000',
        description:
          '1000 boxes of random size (half extents 0.2–0.35 m, 500 kg/m³) and random orientation, released from a 10 × 10 × 10 grid (1.25 m spacing) onto the ground: a pile, for performance and robustness. PGS, 20 iterations.',
        frames: 300,
        solver: { name: 'pgs', maxIterations: 20 },
        bodies,
        expectations: [{ kind: 'noSolverFailures' }, { kind: 'maxPenetration', meters: 0.1 }],
      },
    ],
    400,
  );
}

// ---- fault-pgs-too-few-iterations: a planted configuration fault (no faultInjection section needed) ----
// PGS with a 10-iteration budget on problems that need far more: the solves stop unconverged and
// `contact-lens diagnose` reports the energy they inject ("non-converged-solve", "friction-positive-work").
write(
  'fault-pgs-too-few-iterations.scene.json',
  [
    {
      name: 'fault-box-stack-10-pgs-10-iterations',
      description:
        'The same tower with PGS limited to 10 iterations: not enough for a 10-high stack, so the tower sags and jitters (compare with "box-stack-10" to see iterations and residuals). Only numerical failures are checked.',
      frames: 300,
      solver: { name: 'pgs', maxIterations: 10 },
      bodies: stack(10),
      expectations: [{ kind: 'noSolverFailures' }],
    },
    {
      name: 'fault-mass-ratio-stack-1-100-pgs',
      description:
        'The same stack with PGS limited to 10 iterations: it converges slowly at this mass ratio, so the heavy cube sinks into the light one until position correction catches it. Compare residuals and penetration with "mass-ratio-stack-1-100"; only numerical failures are checked.',
      frames: 300,
      solver: { name: 'pgs', maxIterations: 10 },
      bodies: [ground(), box('light', [0.5, 0.5, 0.5], 1, [0, 0, 0.5]), box('heavy', [0.5, 0.5, 0.5], 100, [0, 0, 1.5])],
      expectations: [{ kind: 'noSolverFailures' }],
    },
  ],
  120,
);

// ---- fault-restitution-target ----
write('fault-restitution-target.scene.json', [
  {
    name: 'fault-restitution-target-sphere',
    description:
      'DELIBERATE FAULT (docs/physics.md "Restitution as a target"): the ball of "sphere-drop" with −(1+e)·ġ⁻ used as the target velocity, i.e. b_n = −(2+e)·ġ_n⁻. It rebounds at 1.5× its impact speed, so every bounce adds energy. The energyNonIncreasing expectation is there to FAIL: it shows that `check` and the energy ledger catch the bug.',
    frames: 180,
    materials: [{ name: 'bouncy', friction: 0.5, restitution: 0.5 }],
    bodies: [ground('bouncy'), sphere('ball', 0.1, 1, [0, 0, 1.1], { material: 'bouncy' })],
    expectations: [{ kind: 'noSolverFailures' }, { kind: 'energyNonIncreasing', toleranceJ: 0.01 }],
    faultInjection: { restitutionAsTarget: true },
  },
  {
    name: 'fault-restitution-target-head-on',
    description:
      'DELIBERATE FAULT (docs/physics.md "Restitution as a target") on the elastic head-on collision: the spheres separate at twice their approach speed (4× the kinetic energy). Momentum is still conserved (the impulses are equal and opposite), energy is not: momentumConserved passes, energyNonIncreasing FAILS.',
    frames: 60,
    gravity: [0, 0, 0],
    splitImpulse: true,
    materials: [elastic],
    bodies: [
      sphere('left', 0.25, 1, [-0.745, 0, 0], { velocity: [1, 0, 0], material: 'elastic' }),
      sphere('right', 0.25, 1, [0.745, 0, 0], { velocity: [-1, 0, 0], material: 'elastic' }),
    ],
    expectations: [{ kind: 'noSolverFailures' }, { kind: 'momentumConserved', tolerance: 1e-6 }, { kind: 'energyNonIncreasing', toleranceJ: 1e-6 }],
    faultInjection: { restitutionAsTarget: true },
  },
]);
