/**
 * Speculative contacts (docs/physics.md "Speculative contacts"): fast bodies are stopped where they touch
 * instead of sinking in by up to |v|·Δt; the rows are recorded with their gap and diagnosed honestly.
 */
import assert from 'node:assert/strict';
import { World } from '../../src/engine/world/world.js';
import { assembleProblem } from '../../src/engine/assembly.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { parseFrame, serializeFrame } from '../../src/format/recording.js';
import { Diagnoser } from '../../src/session/diagnose.js';
import type { BodyDesc } from '../../src/engine/world/types.js';
import type { Quat } from '../../src/engine/math/quat.js';
import { box, ground, scenario, sphere } from './world-helpers.js';
import { body, close, contact, staticBody } from './helpers.js';

/** examples/box-pile-1000's maxPenetration expectation (m). */
const PILE_LIMIT = 0.1;
/** The pile's arrival speed: 15 m/s is 0.25 m per step at 60 Hz. */
const SPEED = 15;

function fastBox(gap: number, orientation: Quat = [1, 0, 0, 0], spin: [number, number, number] = [0, 0, 0]): BodyDesc {
  const b = box('box', [0.25, 0.25, 0.25], 62.5, [0, 0, 0.25 + gap], [0, 0, -SPEED]);
  // the lowest corner of a rotated cube sits √3·0.25 below its centre at most: start it `gap` above the ground
  const lowest = orientation[0] === 1 ? 0.25 : Math.sqrt(3) * 0.25;
  return { ...b, position: [0, 0, lowest + gap], orientation, angularVelocity: spin };
}

function drop(b: BodyDesc, frames = 60): { world: World; maxPenetration: number; speculativeRows: number } {
  const world = new World(scenario([ground(), b], { solver: { solver: 'pgs', maxIterations: 20 } }, [], frames));
  let maxPenetration = 0,
    speculativeRows = 0;
  for (let k = 0; k < frames; k++) {
    for (const c of world.step().contacts) {
      maxPenetration = Math.max(maxPenetration, c.contact.penetration);
      if ((c.contact.gap ?? 0) > 0) speculativeRows++;
    }
  }
  return { world, maxPenetration, speculativeRows };
}

describe('speculative contacts', () => {
  it('a box arriving at 15 m/s stops on the ground within the pile’s 100 mm limit (it sank up to 240 mm before)', () => {
    // gaps 0.01 and 0.1 m: without speculative rows the box moved 0.2527 m into the ground in one step
    for (const gap of [0.01, 0.1, 0.2]) {
      const r = drop(fastBox(gap));
      assert.ok(r.speculativeRows > 0, `gap ${gap}: no speculative row`);
      assert.ok(r.maxPenetration <= PILE_LIMIT, `gap ${gap}: penetration ${r.maxPenetration} m`);
      assert.ok(r.maxPenetration <= 0.005, `gap ${gap}: stopped at touch, penetration ${r.maxPenetration} m`);
      close(r.world.bodies[1].x[2], 0.25, 0.005, `gap ${gap}: rest height`);
    }
  });

  it('a tumbling, tilted box at 15 m/s lands corner first and stays within the limit', () => {
    const s = Math.SQRT1_2;
    const q: Quat = [Math.cos(0.3), Math.sin(0.3) * s, Math.sin(0.3) * s, 0];
    for (const gap of [0.02, 0.15]) {
      const r = drop(fastBox(gap, q, [4, -3, 1]), 90);
      assert.ok(r.maxPenetration <= PILE_LIMIT, `gap ${gap}: penetration ${r.maxPenetration} m`);
    }
  });

  it('boxes falling side by side 5 cm apart get no speculative rows between them (each one’s own speed gave 0.5 m of reach)', () => {
    // nothing below them within reach for 10 frames: both fly ballistically, their gap stays 5 cm
    const left = box('left', [0.25, 0.25, 0.25], 62.5, [-0.275, 0, 20], [0, 0, -SPEED]);
    const right = box('right', [0.25, 0.25, 0.25], 62.5, [0.275, 0, 20], [0, 0, -SPEED]);
    const world = new World(scenario([ground(), left, right], { solver: { solver: 'pgs', maxIterations: 20 } }, [], 10));
    for (let k = 0; k < 10; k++) {
      const between = world.step().contacts.filter((c) => c.contact.bodyA !== 0 && c.contact.bodyB !== 0);
      assert.deepEqual(
        between.map((c) => `${c.contact.featureId} gap ${c.contact.gap}`),
        [],
        `frame ${k + 1}`,
      );
    }
    close(world.bodies[2].x[0] - world.bodies[1].x[0], 0.55, 1e-12, 'the boxes kept their distance');
  });

  it('a box falling on a box that lands in the same step still stops on it (both at 15 m/s: no relative speed)', () => {
    // the lower box is 2 cm above the ground, the upper one 10 cm above the lower: the solver stops the lower
    // one in the first step and the upper one then closes its 10 cm at 15 m/s (0.25 m per step)
    for (const gap of [0.02, 0.1]) {
      const lower = box('lower', [0.25, 0.25, 0.25], 62.5, [0, 0, 0.27], [0, 0, -SPEED]);
      const upper = box('upper', [0.25, 0.25, 0.25], 62.5, [0.05, 0.03, 0.77 + gap], [0, 0, -SPEED]);
      const world = new World(scenario([ground(), lower, upper], { solver: { solver: 'pgs', maxIterations: 20 } }, [], 60));
      let worst = 0;
      for (let k = 0; k < 60; k++)
        for (const c of world.step().contacts) if (c.contact.bodyA !== 0 && c.contact.bodyB !== 0) worst = Math.max(worst, c.contact.penetration);
      assert.ok(worst <= 0.01, `gap ${gap}: the upper box sank ${worst} m into the lower one`);
      close(world.bodies[2].x[2], 0.75, 0.01, `gap ${gap}: the upper box rests on the lower one`);
    }
  });

  it('boxes sliding side by side on the ground, 2 cm apart, get no rows between them and record none (each one’s own speed gave 33 mm of reach)', () => {
    // both touch the ground, so each body's own speed (2 m/s: 33 mm per step) kept a row between them; they
    // move together, and the solver changes their velocities only by their ground contacts' approach (g·Δt)
    const left = box('left', [0.25, 0.25, 0.25], 62.5, [0, -0.26, 0.25], [2, 0, 0]);
    const right = box('right', [0.25, 0.25, 0.25], 62.5, [0, 0.26, 0.25], [2, 0, 0]);
    const world = new World(scenario([ground(), left, right], { solver: { solver: 'pgs', maxIterations: 20 } }, [], 20));
    for (let k = 0; k < 20; k++) {
      const f = world.step();
      const between = f.contacts.filter((c) => c.contact.bodyA !== 0 && c.contact.bodyB !== 0);
      assert.deepEqual(
        between.map((c) => `${c.contact.featureId} gap ${c.contact.gap}`),
        [],
        `frame ${k + 1}`,
      );
      assert.equal(f.speculativeRows, f.contacts.filter((c) => (c.contact.gap ?? 0) > 0).length, `frame ${k + 1}: the frame counts its speculative rows`);
    }
    close(world.bodies[2].x[1] - world.bodies[1].x[1], 0.52, 1e-9, 'the boxes kept their distance');
  });

  it('a pair of dynamic bodies farther apart than ρ_a + ρ_b gets no row, however fast (speculativeCap: bullets need time of impact)', () => {
    // two spheres of 5 cm radius 0.3 m apart closing at 40 m/s (0.67 m per step): beyond the cap 0.1 m
    const a = sphere('a', 0.05, 1, [-0.2, 0, 0], [20, 0, 0]);
    const b = sphere('b', 0.05, 1, [0.2, 0, 0], [-20, 0, 0]);
    const world = new World(scenario([a, b], { gravity: [0, 0, 0], solver: { solver: 'pgs', maxIterations: 20 } }, [], 1));
    assert.deepEqual(world.step().contacts.length, 0);
    // the same sphere 0.3 m above the ground at 40 m/s is caught: a half-space leaves the reach uncapped
    const drop = new World(
      scenario([ground(), sphere('s', 0.05, 1, [0, 0, 0.35], [0, 0, -40])], { gravity: [0, 0, 0], solver: { solver: 'pgs', maxIterations: 20 } }, [], 1),
    );
    const f = drop.step();
    assert.equal(f.speculativeRows, 1);
    close(drop.bodies[1].x[2], 0.05, 1e-6, 'stopped where it touches');
  });

  it('a spin about the contact normal adds no reach: a box spinning at 30 rad/s 2 cm above another gets no rows', () => {
    // no gravity, both at rest apart from the spin about z = n: the gap stays 2 cm (isotropic reach Δt·|ω|ρ was 0.22 m)
    const lower = box('lower', [0.25, 0.25, 0.25], 62.5, [0, 0, 0]);
    const upper = { ...box('upper', [0.25, 0.25, 0.25], 62.5, [0, 0, 0.52]), angularVelocity: [0, 0, 30] as [number, number, number] };
    const world = new World(scenario([lower, upper], { gravity: [0, 0, 0], solver: { solver: 'pgs', maxIterations: 20 } }, [], 10));
    for (let k = 0; k < 10; k++) assert.deepEqual(world.step().contacts.length, 0, `frame ${k + 1}`);
    close(world.bodies[1].x[2], 0.52, 1e-12, 'the upper box did not move');
  });

  it('b_n of a speculative row is −ġ⁻ − gap/Δt, with no restitution or bias term', () => {
    const dt = 1 / 60,
      gap = 0.05;
    const p = assembleProblem([body(1, 1, [0, 0, 0.6], [0, 0, -SPEED]), staticBody()], [{ ...contact(0, 1, [0, 0, 0.05], [0, 0, 1], 0.5, 0.8), gap }], {
      dt,
      erp: 0.2,
      slop: 0,
      restVelocityThreshold: 0,
    });
    close(p.b[0], SPEED - gap / dt, 1e-12, 'b_n');
    assert.equal(p.rhs!.restitution[0], 0);
    assert.equal(p.rhs!.bias[0], 0);
    close(p.rhs!.speculative[0], -gap / dt, 1e-12, 'speculative part');
    assert.throws(
      () => assembleProblem([body(1, 1, [0, 0, 0.6]), staticBody()], [{ ...contact(0, 1, [0, 0, 0], [0, 0, 1], 0.5, 0, 0.01), gap }]),
      /contacts\[0\]\.gap.*either apart \(gap\) or overlapping/,
    );
  });

  it('a bouncing impact is not caught at a distance: the ball still bounces where it touches', () => {
    const mats = [{ name: 'bouncy', friction: 0.5, restitution: 0.5 }];
    const ball: BodyDesc = { ...box('ball', [0.1, 0.1, 0.1], 1, [0, 0, 0.15], [0, 0, -5], 'bouncy'), shape: { kind: 'sphere', radius: 0.1 } };
    const world = new World(scenario([ground('bouncy'), ball], { restVelocityThreshold: 0.5 }, mats, 30));
    let bounced = false;
    for (let k = 0; k < 30 && !bounced; k++) {
      const f = world.step();
      for (const c of f.contacts) assert.ok(!((c.contact.gap ?? 0) > 0 && c.lambda[0] > 0), `frame ${f.frame}: a speculative row pushed a bouncing ball`);
      bounced = world.bodies[1].v[2] > 0;
    }
    assert.ok(bounced, 'the ball did not bounce');
  });

  it('recordings carry the gap; the diagnosis reports no error on speculative rows, and a negative gap is one clear line', () => {
    const world = new World(scenario([ground(), fastBox(0.1)], { solver: { solver: 'pgs', maxIterations: 20 } }, [], 40));
    const header = headerFromWorld(world);
    const e = world.energy();
    const d = new Diagnoser(header, {}, e.kineticLinear + e.kineticRotational + e.potential);
    let withGap = 0;
    for (let k = 0; k < 40; k++) {
      const rec = frameFromWorld(world, world.step());
      const back = parseFrame(serializeFrame(rec), k + 2, 'fast.rec.jsonl', header);
      for (const c of back.contacts) if ((c.gap ?? 0) > 0) withGap++;
      assert.deepEqual(
        back.contacts.map((c) => c.gap ?? 0),
        rec.contacts.map((c) => c.gap ?? 0),
      );
      d.add(rec);
    }
    assert.ok(withGap > 0, 'no recorded gap');
    assert.deepEqual(
      d.findings.filter((f) => f.severity === 'error').map((f) => `${f.frame} ${f.mechanism}`),
      [],
    );
    const line = JSON.stringify({
      frame: 0,
      time: 1 / 60,
      bodies: header.bodies.map(() => ({ x: [0, 0, 1], q: [1, 0, 0, 0], v: [0, 0, 0], w: [0, 0, 0] })),
      contacts: [{ a: 1, b: 0, point: [0, 0, 0], normal: [0, 0, 1], t1: [1, 0, 0], t2: [0, 1, 0], depth: 0, gap: -0.01, mu: 0.5, e: 0 }],
      solver: { name: 'pgs', status: 'converged', lambda: [0, 0, 0] },
    });
    assert.throws(
      () => parseFrame(line, 2, 'bad.rec.jsonl', header),
      (err: Error) => /bad\.rec\.jsonl/.test(err.message) && /contacts\[0\]\.gap/.test(err.message) && !err.message.includes('\n'),
    );
  });
});
