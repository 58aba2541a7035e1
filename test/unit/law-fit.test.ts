/**
 * The inverse problem per contact (docs/physics.md "Which law the impulses obey"): from what a contact enforced,
 * the law it obeys, its fitted parameter and residual — one synthetic contact or island per law.
 */
import assert from 'node:assert/strict';
import { fitIslandLaws, K_MIN, type ContactObservation, type FitSettings } from '../../src/session/diagnosis/lawFit.js';

const dt = 1 / 60;
const base: ContactObservation = {
  lambdaN: 1,
  lambdaT: 0,
  separation: 0,
  approach: 2,
  pNormal: dt * 9.81,
  slip: 0,
  slipPower: 0,
  frictionWork: 0,
  depth: 0,
  gap: 0,
  e: 0.5,
  mu: 0.5,
  persistent: false,
};
const settings = (over: Partial<FitSettings> = {}): FitSettings => ({
  dt,
  restVelocityThreshold: 0.5,
  speedTolerance: 1e-3,
  model: { source: 'declared-bias', erp: 0.2, slop: 0.005 },
  convexPlausible: true,
  judgeFriction: true,
  ...over,
});
const one = (o: Partial<ContactObservation>, s: Partial<FitSettings> = {}) => fitIslandLaws([{ ...base, ...o }], settings(s))[0];

describe('law fit: which law one contact obeys', () => {
  it("Newton's law −e·ġn⁻ (e 0.5, approach 2 m/s → 1 m/s), also on the approach before gravity's update", () => {
    assert.equal(one({ separation: 1 }).normal, 'restitution');
    const before = 0.5 * (2 - dt * 9.81);
    const l = one({ separation: before });
    assert.equal(l.normal, 'restitution');
    assert.ok(Math.abs(l.reference - before) < 1e-12, 'the reference is the variant that fits');
  });
  it('the (1+e) target: leaves at 3 m/s from an approach of 2 m/s', () => {
    const l = one({ separation: 3 });
    assert.equal(l.normal, 'restitution-overshoot');
    assert.equal(l.reference, 1);
    assert.ok(l.residual < 1e-12);
  });
  it('the (1+e) target on top of the declared bias: (1+e)·a + (ERP/Δt)·(depth − slop)', () => {
    const bias = (0.2 / dt) * (0.03 - 0.005);
    const l = one({ separation: 3 + bias, depth: 0.03 });
    assert.equal(l.normal, 'restitution-overshoot');
    assert.ok(Math.abs(l.stabilisation - bias) < 1e-12);
  });
  it('the declared ERP bias on a resting contact (15 mm, slop 5 mm)', () => {
    const l = one({ approach: 0.16, separation: (0.2 / dt) * 0.01, depth: 0.015 });
    assert.equal(l.normal, 'stabilisation');
  });
  it('Baumgarte below the declared slop: 4 mm deep, slop 5 mm, leaves at 0.9·depth/Δt → ERP 0.9 without the slop', () => {
    const l = one({ approach: 0.16, separation: (0.9 * 0.004) / dt, depth: 0.004 });
    assert.equal(l.normal, 'baumgarte-no-slop');
    assert.ok(Math.abs((l.k ?? 0) - 0.9) < 1e-9, `k ${l.k}`);
  });
  it('an ERP far above the declared one (0.9 vs 0.2), depth above the slop: one k for the island', () => {
    const depths = [0.02, 0.03, 0.025, 0.035];
    const laws = fitIslandLaws(
      depths.map((d) => ({ ...base, approach: 0.16, depth: d, separation: (0.9 * (d - 0.005)) / dt })),
      settings(),
    );
    for (const l of laws) {
      assert.equal(l.normal, 'baumgarte');
      assert.ok(Math.abs((l.k ?? 0) - 0.9) < 1e-9);
    }
  });
  it('contacts that need different k are not one Baumgarte law (a truncated solve): none', () => {
    const laws = fitIslandLaws(
      [0.5, 0.9].map((k) => ({ ...base, approach: 0.16, depth: 0.02, separation: (k * 0.015) / dt })),
      settings(),
    );
    assert.deepEqual(
      laws.map((l) => l.normal),
      ['none', 'none'],
    );
  });
  it(`a fitted k below ${K_MIN} is no stabilisation: a deep contact creeping apart is none`, () => {
    assert.equal(one({ approach: 0.16, depth: 0.4, separation: 0.02 }).normal, 'none');
  });
  it('the convex lift: w_n = μ‖w_t‖ on a sliding contact (μ 0.3, slip 2.0323 m/s → 0.6097 m/s)', () => {
    const l = one({ approach: 0.16, separation: 0.3 * 2.0323, slip: 2.0323, mu: 0.3, lambdaT: 0.3, slipPower: -0.6 });
    assert.equal(l.normal, 'convex-lift');
  });
  it('a declared soft contact: any separation up to the spring push h·k·depth + max(0, h·c − 1)·a', () => {
    const soft = { k: 1000, c: 63.25 };
    const push = dt * 1000 * 0.01 + Math.max(0, dt * 63.25 - 1) * 0.16;
    assert.equal(one({ approach: 0.16, depth: 0.01, separation: 0.8 * push }, { model: { source: 'declared-soft', erp: 0, slop: 0, soft } }).normal, 'spring');
    assert.equal(one({ approach: 0.16, depth: 0.01, separation: 3 * push }, { model: { source: 'declared-soft', erp: 0, slop: 0, soft } }).normal, 'none');
  });
  it('a speculative contact enforcing −gap/Δt is at its law', () => {
    assert.equal(one({ gap: 0.01, approach: 1, separation: -0.01 / dt }).normal, 'speculative');
  });
  it('λn = 0 is open, whatever it leaves at', () => {
    assert.equal(one({ lambdaN: 0, separation: 5 }).normal, 'open');
  });
  it('friction regimes: stick, slide against, flipped along the slip, slipping inside the cone, outside the cone', () => {
    const f = (o: Partial<ContactObservation>) => one({ separation: 1, ...o }).friction;
    assert.equal(f({ lambdaT: 0.2, slip: 0 }), 'stick');
    assert.equal(f({ lambdaT: 0.5, slip: 2, slipPower: -1, frictionWork: -1.2 }), 'slide');
    assert.equal(f({ lambdaT: 0.5, slip: 2, slipPower: 1, frictionWork: 1.2 }), 'slide-along');
    assert.equal(f({ lambdaT: 0.2, slip: 2, slipPower: -0.4, frictionWork: -0.5 }), 'slip-inside-cone');
    assert.equal(f({ lambdaT: 0.8, slip: 0 }), 'outside-cone');
  });
});
