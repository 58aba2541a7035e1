/**
 * The world builds each box's frame and each plane's surface once per step (Collider.frame / .surface) and the
 * narrow phase reuses them for every pair: the contacts must be bit-identical to those of colliders that
 * carry neither (the narrow phase then computes them per pair).
 */
import assert from 'node:assert/strict';
import { collide } from '../../src/engine/collision/narrowphase.js';
import { boxFrameOf, CONTACT_MARGIN, worldPlane, type Collider } from '../../src/engine/collision/shapes.js';
import { candidatePairs } from '../../src/engine/collision/broadphase.js';
import { quatFromAxisAngle, type Quat } from '../../src/engine/math/quat.js';
import type { Vec3 } from '../../src/engine/math/vec3.js';
import { detectContacts, TOUCH_TOLERANCE, type DetectableBody } from '../../src/engine/world/detect.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}
const randomQuat = (r: () => number): Quat => quatFromAxisAngle([r() - 0.5, r() - 0.5, r() - 0.5 + 1e-3], 2 * Math.PI * r());

/** The same collider with its frame or surface precomputed, as detectContacts builds it. */
function framed(c: Collider): Collider {
  if (c.shape.kind === 'box') return { ...c, frame: boxFrameOf(c) };
  if (c.shape.kind === 'plane') return { ...c, surface: worldPlane(c) };
  return c;
}

function randomCollider(r: () => number): Collider {
  const position: Vec3 = [1.2 * r(), 1.2 * r(), 1.2 * r()];
  const u = r();
  if (u < 0.6) return { shape: { kind: 'box', halfExtents: [0.2 + r(), 0.2 + r(), 0.2 + r()] }, position, orientation: randomQuat(r) };
  if (u < 0.8) return { shape: { kind: 'sphere', radius: 0.2 + r() }, position, orientation: randomQuat(r) };
  return { shape: { kind: 'plane', normal: [r() - 0.5, r() - 0.5, 1], offset: r() }, position, orientation: randomQuat(r) };
}

describe('narrow phase with frames built once per step', () => {
  it('random box, sphere and plane pairs (both orders): contacts bit-identical with and without the precomputed frame', () => {
    const r = rng(23);
    let compared = 0;
    for (let t = 0; t < 400; t++) {
      const a = randomCollider(r),
        b = randomCollider(r);
      for (const [x, y] of [
        [a, b],
        [b, a],
      ]) {
        const bare = collide(x, y, 0.05);
        assert.deepStrictEqual(collide(framed(x), framed(y), 0.05), bare);
        compared += bare.length;
      }
    }
    assert.ok(compared > 500, `enough contacts compared (${compared})`);
  });

  it('detectContacts on a random box heap equals the narrow phase on bare colliders, contact for contact', () => {
    const r = rng(5);
    const bodies: DetectableBody[] = [{ desc: { shape: { kind: 'plane', normal: [0, 0, 1], offset: 0 } }, isStatic: true, x: [0, 0, 0], q: [1, 0, 0, 0] }];
    for (let i = 0; i < 60; i++) {
      bodies.push({
        desc: { shape: { kind: 'box', halfExtents: [0.3 + 0.2 * r(), 0.3 + 0.2 * r(), 0.3 + 0.2 * r()] } },
        isStatic: false,
        x: [3 * r(), 3 * r(), 0.2 + 2 * r()],
        q: randomQuat(r),
      });
    }
    const bare: Collider[] = bodies.map((b) => ({ shape: b.desc.shape, position: b.x, orientation: b.q, isStatic: b.isStatic }));
    const expected = [];
    for (const [i, j] of candidatePairs(bare)) {
      for (const c of collide(bare[i], bare[j], CONTACT_MARGIN)) {
        if (c.separation > TOUCH_TOLERANCE) continue; // dt = 0: no speculative contacts
        expected.push({ bodyA: i, bodyB: j, point: c.point, normal: c.normal, penetration: c.penetration, gap: 0, featureId: c.featureId });
      }
    }
    assert.ok(expected.length > 50, `a heap with contacts (${expected.length})`);
    assert.deepStrictEqual(detectContacts(bodies), expected);
  });
});
