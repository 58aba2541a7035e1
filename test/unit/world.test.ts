/** World step and energy bookkeeping on analytic cases (docs/physics.md "Energy ledger", in code form). */
import assert from 'node:assert/strict';
import { World } from '../../src/engine/world/world.js';
import { box, ground, scenario, sphere } from './world-helpers.js';
import { close } from './helpers.js';
import { tangentBasis } from '../../src/engine/math/vec3.js';

describe('world: free flight and energy ledger', () => {
  it('free fall follows semi-implicit Euler exactly and the ledger books −½·m·g²·Δt² per step as integrator residual', () => {
    const dt = 1 / 60,
      m = 2,
      g = 9.81;
    const w = new World(scenario([sphere('s', 0.5, m, [0, 0, 10], [1, 0, 0])], { dt }));
    let vz = 0,
      z = 10;
    for (let k = 0; k < 30; k++) {
      const f = w.step();
      vz -= g * dt;
      z += dt * vz;
      close(w.bodies[0].x[2], z, 1e-12, 'z');
      close(w.bodies[0].x[0], (k + 1) * dt, 1e-12, 'x');
      assert.equal(f.contacts.length, 0);
      close(f.energy.integratorResidual, -0.5 * m * g * g * dt * dt, 1e-10, 'residual');
      close(f.energy.delta, f.energy.integratorResidual, 1e-12, 'ΔE');
      assert.equal(f.energy.normalWork + f.energy.frictionWork + f.energy.biasWork, 0);
    }
  });

  it('AC4 head-on elastic collision (e = 1): velocities swap, momentum kept to 1e-6, normal work ≈ 0', () => {
    const mats = [{ name: 'elastic', friction: 0, restitution: 1 }];
    const w = new World(
      scenario(
        [sphere('a', 0.5, 1, [-1, 0, 0], [2, 0, 0], 'elastic'), sphere('b', 0.5, 1, [0.0167 * 3, 0, 0], [-1, 0, 0], 'elastic')],
        { gravity: [0, 0, 0], erp: 0, restVelocityThreshold: 0 },
        mats,
      ),
    );
    let hit = false;
    for (let k = 0; k < 60; k++) {
      const f = w.step();
      const p = w.bodies[0].v[0] + w.bodies[1].v[0];
      close(p, 1, 1e-6, 'momentum');
      if (f.contacts.length > 0 && !hit) {
        hit = true;
        close(w.bodies[0].v[0], -1, 1e-6, 'v_a');
        close(w.bodies[1].v[0], 2, 1e-6, 'v_b');
        close(f.energy.normalWork, 0, 1e-6, 'elastic normal work');
      }
    }
    assert.ok(hit, 'the spheres never collided');
  });

  it('a box resting on the ground for 1000 frames drifts < 0.01 m and its energy does not grow (AC6)', () => {
    const w = new World(scenario([ground(), box('box', [0.5, 0.5, 0.5], 5, [0, 0, 0.5])]));
    const e0 = w.energy();
    let maxE = -Infinity;
    for (let k = 0; k < 1000; k++) {
      const f = w.step();
      maxE = Math.max(maxE, f.energy.total);
    }
    const b = w.bodies[1];
    assert.ok(Math.hypot(b.x[0], b.x[1], b.x[2] - 0.5) < 0.01, `drift ${b.x}`);
    assert.ok(maxE <= e0.kineticLinear + e0.kineticRotational + e0.potential + 1e-9, `energy grew to ${maxE}`);
  });

  it('a sphere with e = 0.5 dropped from 1 m: bounce heights shrink by ≈ e² and never grow, with every solver', () => {
    for (const solver of [{ solver: 'newton' } as const, { solver: 'ipm' } as const, { solver: 'pgs' } as const]) {
      const mats = [{ name: 'bouncy', friction: 0.5, restitution: 0.5 }];
      const w = new World(
        scenario(
          [ground('bouncy'), sphere('ball', 0.1, 1, [0, 0, 1.1], [0, 0, 0], 'bouncy')],
          { solver, dt: 1 / 240, restVelocityThreshold: 0.2, erp: 0 },
          mats,
        ),
      );
      const apexes: number[] = [];
      let prevVz = 0;
      for (let k = 0; k < 240 * 3; k++) {
        w.step();
        const vz = w.bodies[1].v[2];
        if (prevVz > 0 && vz <= 0) apexes.push(w.bodies[1].x[2] - 0.1);
        prevVz = vz;
      }
      assert.ok(apexes.length >= 2, `${solver.solver}: ${apexes.length} bounces`);
      close(apexes[0] / 1.0, 0.25, 0.03, `${solver.solver} first apex ratio`);
      for (let i = 1; i < apexes.length; i++) assert.ok(apexes[i] < apexes[i - 1], `${solver.solver}: apex grew ${apexes}`);
      if (apexes.length >= 2) close(apexes[1] / apexes[0], 0.25, 0.05, `${solver.solver} second ratio`);
    }
  });

  it('FAULT INJECTION restitutionAsTarget (docs/physics.md "Restitution as a target") raises the energy at the first bounce', () => {
    const mats = [{ name: 'bouncy', friction: 0.5, restitution: 0.5 }];
    const run = (faults: { restitutionAsTarget?: boolean }): number => {
      const w = new World(
        scenario(
          [ground('bouncy'), sphere('ball', 0.1, 1, [0, 0, 1.1], [0, 0, 0], 'bouncy')],
          { dt: 1 / 240, erp: 0, faults, restVelocityThreshold: 0.2 },
          mats,
        ),
      );
      const e0 = w.energy();
      let maxGain = -Infinity;
      for (let k = 0; k < 240; k++) {
        const f = w.step();
        maxGain = Math.max(maxGain, f.energy.normalWork);
      }
      return maxGain / (e0.potential + e0.kineticLinear);
    };
    assert.ok(run({}) <= 1e-9, 'clean run must not gain energy from the normal impulse');
    assert.ok(run({ restitutionAsTarget: true }) > 1, 'the fault must inject energy');
  });

  it('a box sliding with friction decelerates at ≈ μg (PGS Coulomb disk law: 6 % less, its row-wise fixed point leaves cancelling lateral impulses at the coupled corners) and the friction work equals the kinetic energy lost', () => {
    const mats = [{ name: 'rough', friction: 0.4, restitution: 0 }];
    const w = new World(
      scenario([ground('rough'), box('box', [0.5, 0.5, 0.5], 3, [0, 0, 0.5], [2, 0, 0], 'rough')], { dt: 1 / 120, solver: { solver: 'pgs' } }, mats),
    );
    let friction = 0;
    const ke0 = 0.5 * 3 * 4;
    for (let k = 0; k < 30; k++) {
      const f = w.step();
      friction += f.energy.frictionWork;
    }
    const v = w.bodies[1].v[0];
    const decel = (2 - v) / 0.25;
    assert.ok(decel > 0.9 * 0.4 * 9.81 && decel <= 0.4 * 9.81 * 1.001, `deceleration ${decel}`);
    const ke1 = 0.5 * 3 * (v * v + w.bodies[1].v[1] ** 2 + w.bodies[1].v[2] ** 2);
    close(friction, ke1 - ke0, 0.05 * (ke0 - ke1), 'friction work');
    assert.ok(friction < 0);
  });

  it('the QP-SOCP model (Newton) makes a sliding box hop: w_n = μ‖w_t‖ after the impulse (seeds 002/003, FORMAT.md), and energy still decreases', () => {
    const mats = [{ name: 'rough', friction: 0.4, restitution: 0 }];
    const w = new World(scenario([ground('rough'), box('box', [0.5, 0.5, 0.5], 3, [0, 0, 0.5], [2, 0, 0], 'rough')], { dt: 1 / 120 }, mats));
    const e0 = w.energy();
    const f = w.step();
    const c = f.contacts[0];
    const slip = Math.hypot(c.gapAfter[1], c.gapAfter[2]);
    assert.ok(slip > 0.5, 'the box still slides after the first impulse');
    close(c.gapAfter[0], 0.4 * slip, 1e-6, 'w_n = μ‖w_t‖ on a sliding contact');
    assert.ok(w.bodies[1].v[2] > 0.5, 'the box moves up');
    assert.ok(f.energy.total < e0.kineticLinear + e0.potential, 'energy decreases');
  });

  it('split impulse (Catto 2006) pushes an overlapping box out without giving it velocity; Baumgarte gives it upward velocity', () => {
    const make = (splitImpulse: boolean): World => new World(scenario([ground(), box('box', [0.5, 0.5, 0.5], 2, [0, 0, 0.48])], { splitImpulse, slop: 0 }));
    const split = make(true),
      baum = make(false);
    const fs = split.step(),
      fb = baum.step();
    assert.ok(Math.abs(split.bodies[1].v[2]) < 1e-9, `split: v_z = ${split.bodies[1].v[2]}`);
    assert.ok(split.bodies[1].x[2] > 0.48 + 1e-4, 'split: pushed out');
    assert.ok(baum.bodies[1].v[2] > 0.1, `baumgarte: v_z = ${baum.bodies[1].v[2]}`);
    close(fb.energy.biasWork, 0.5 * 2 * baum.bodies[1].v[2] ** 2, 1e-9, 'Baumgarte: the bias work is the kinetic energy it created');
    assert.ok(fs.energy.biasWork > 0, 'split: the push-out raises the potential energy');
    // Resting contact: gravity's velocity update adds ½m(gΔt)² that no displacement pays for (semi-implicit Euler).
    close(fs.energy.integratorResidual, 0.5 * 2 * (9.81 / 60) ** 2, 1e-9, 'split: integrator residual of a resting contact');
  });

  it('softening γ (Catto 2011) gives λn = b_n/(A_nn + γ) for a single contact', () => {
    const m = 2,
      gamma = 0.25,
      dt = 1 / 60;
    const w = new World(scenario([ground(), sphere('s', 0.5, m, [0, 0, 0.5], [0, 0, -1])], { softening: gamma, erp: 0, dt, restVelocityThreshold: 10 }));
    const f = w.step();
    const approach = 1 + 9.81 * dt;
    close(f.contacts[0].lambda[0], approach / (1 / m + gamma), 1e-8, 'λn');
    close(f.contacts[0].gapAfter[0], -approach + f.contacts[0].lambda[0] / m, 1e-9, 'ġ⁺ uses the physical A');
  });

  it('a plank on two static supports stays put, carries m·g·Δt per frame split equally, and the supports never move (AC7)', () => {
    const support = (name: string, x: number) => box(name, [0.25, 0.25, 0.25], null, [x, 0, 0.25]);
    const w = new World(scenario([support('left', -1.5), support('right', 1.5), box('plank', [2, 0.25, 0.1], 10, [0, 0, 0.6])]));
    let last = w.step();
    for (let k = 0; k < 299; k++) last = w.step();
    const plank = w.bodies[2];
    assert.ok(Math.hypot(plank.x[0], plank.x[1], plank.x[2] - 0.6) < 0.006, `plank drifted to ${plank.x}`);
    assert.deepEqual(w.bodies[0].x, [-1.5, 0, 0.25]);
    assert.deepEqual(w.bodies[1].x, [1.5, 0, 0.25]);
    let left = 0,
      right = 0;
    for (const c of last.contacts) c.contact.point[0] < 0 ? (left += c.lambda[0]) : (right += c.lambda[0]);
    close(left + right, (10 * 9.81) / 60, 1e-3, 'total normal impulse');
    close(left, right, 1e-3 * (left + right), 'equal split');
  });
});

describe('world: the frame record', () => {
  it('lists one entry per contact point (points[k] is contacts[k].contact), the same list on every read, and each λ and gap rate from its island', () => {
    // a stack of 3 boxes on the ground plus one falling onto it: several manifolds, two islands at first
    const w = new World(
      scenario([
        ground(),
        box('a', [0.5, 0.5, 0.5], 1, [0, 0, 0.5]),
        box('b', [0.5, 0.5, 0.5], 1, [0.1, 0, 1.5]),
        box('c', [0.5, 0.5, 0.5], 1, [-0.1, 0.05, 2.5]),
        box('d', [0.3, 0.3, 0.3], 1, [5, 0, 0.35], [0, 0, -1]),
      ]),
    );
    let seen = 0;
    for (let k = 0; k < 20; k++) {
      const f = w.step();
      const list = f.contacts;
      assert.equal(f.contacts, list, 'the per-contact list is built once');
      assert.equal(list.length, f.points.length);
      const islandContacts = f.islands.reduce((n, s) => n + s.contacts.length, 0);
      assert.equal(list.length, islandContacts);
      f.islands.forEach((s, i) =>
        s.contacts.forEach((ci, j) => {
          const fc = list[ci];
          assert.equal(fc.contact, f.points[ci]);
          assert.equal(fc.island, i);
          assert.deepEqual(fc.lambda, [s.result.lambda[3 * j], s.result.lambda[3 * j + 1], s.result.lambda[3 * j + 2]]);
          assert.ok([...fc.gapBefore, ...fc.gapAfter].every(Number.isFinite), `contact ${ci}: finite gap rates`);
          seen++;
        }),
      );
    }
    assert.ok(seen > 100, `${seen} contacts checked`);
  });

  it('gives every contact of a manifold the tangent basis of its normal (t1 ⟂ n, t1 × t2 = n), shared or not', () => {
    const w = new World(scenario([ground(), box('a', [0.5, 0.5, 0.5], 1, [0, 0, 0.49]), box('b', [0.5, 0.5, 0.5], 1, [0.2, 0.1, 1.48])]));
    const f = w.step();
    assert.ok(f.points.length >= 8, `${f.points.length} contacts`);
    for (const c of f.points) {
      const [t1, t2] = tangentBasis(c.normal);
      assert.deepEqual(c.t1, t1);
      assert.deepEqual(c.t2, t2);
    }
  });
});
