/** Collision: narrow phase (sphere/box/plane manifolds), sweep-and-prune broad phase, islands. */
import assert from 'node:assert/strict';
import { collide, type GeometricContact } from '../../src/engine/collision/narrowphase.js';
import { CONTACT_MARGIN, computeAabb, type Collider } from '../../src/engine/collision/shapes.js';
import { bruteForcePairs, candidatePairs, planePairs, SweepAndPrune, type Pair } from '../../src/engine/collision/broadphase.js';
import { buildIslands } from '../../src/engine/collision/islands.js';
import { IDENTITY_QUAT, mulQuat, quatFromAxisAngle, quatToMat3, rotate, type Quat } from '../../src/engine/math/quat.js';
import { dot, norm, type Vec3 } from '../../src/engine/math/vec3.js';
import { close } from './helpers.js';

const sphere = (radius: number, position: Vec3, isStatic = false): Collider => ({
  shape: { kind: 'sphere', radius },
  position,
  orientation: IDENTITY_QUAT,
  isStatic,
});
const box = (halfExtents: Vec3, position: Vec3, orientation: Quat = IDENTITY_QUAT, isStatic = false): Collider => ({
  shape: { kind: 'box', halfExtents },
  position,
  orientation,
  isStatic,
});
const plane = (normal: Vec3 = [0, 0, 1], offset = 0, position: Vec3 = [0, 0, 0]): Collider => ({
  shape: { kind: 'plane', normal, offset },
  position,
  orientation: IDENTITY_QUAT,
});

const TOL = 1e-12;
const closeVec = (a: Vec3, b: Vec3, tol: number, what = ''): void => {
  for (let k = 0; k < 3; k++) close(a[k], b[k], tol, `${what}[${k}]`);
};
const one = (cs: GeometricContact[]): GeometricContact => {
  assert.equal(cs.length, 1, `expected 1 contact, got ${cs.length}`);
  return cs[0];
};
const byPoint = (cs: GeometricContact[]): GeometricContact[] =>
  [...cs].sort((p, q) => p.point[0] - q.point[0] || p.point[1] - q.point[1] || p.point[2] - q.point[2]);
/** Signed distance from x to the surface of a box (negative inside). */
function boxSdf(b: Collider, x: Vec3): number {
  if (b.shape.kind !== 'box') throw new Error('not a box');
  const m = quatToMat3(b.orientation),
    d = [x[0] - b.position[0], x[1] - b.position[1], x[2] - b.position[2]];
  const q = [0, 1, 2].map((k) => Math.abs(m[k] * d[0] + m[3 + k] * d[1] + m[6 + k] * d[2]) - (b.shape as { halfExtents: Vec3 }).halfExtents[k]);
  return Math.hypot(...q.map((v) => Math.max(v, 0))) + Math.min(Math.max(q[0], q[1], q[2]), 0);
}
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}
function randomQuat(r: () => number): Quat {
  return quatFromAxisAngle([r() - 0.5, r() - 0.5, r() - 0.5 + 1e-3], 2 * Math.PI * r());
}
function checkContact(c: GeometricContact): void {
  close(norm(c.normal), 1, 1e-12, 'unit normal');
  assert.ok(c.penetration >= 0 && c.penetration === Math.max(0, -c.separation), 'penetration = max(0, −separation)');
  assert.ok(c.separation <= CONTACT_MARGIN + 1e-12, 'no contact beyond the margin');
}

describe('narrow phase: sphere–sphere', () => {
  it('point midway between the surfaces, normal from b into a, depth exact (3-4-5 layout)', () => {
    const c = one(collide(sphere(3, [3, 4, 0]), sphere(2.5, [0, 0, 0])));
    // |d| = 5, r_a + r_b = 5.5 ⇒ depth 0.5; surfaces (1.2, 1.6, 0) on a and (1.5, 2, 0) on b.
    closeVec(c.normal, [0.6, 0.8, 0], TOL, 'n');
    close(c.penetration, 0.5, TOL, 'depth');
    closeVec(c.point, [1.35, 1.8, 0], TOL, 'point');
    assert.equal(c.featureId, 'sphere|sphere');
    const s = one(collide(sphere(2.5, [0, 0, 0]), sphere(3, [3, 4, 0])));
    closeVec(s.normal, [-0.6, -0.8, 0], TOL, 'swapped n');
    closeVec(s.point, c.point, TOL, 'same point');
  });
  it('touching and speculative contacts have depth 0; beyond the margin there is none', () => {
    const t = one(collide(sphere(1, [0, 0, 2]), sphere(1, [0, 0, 0])));
    assert.equal(t.penetration, 0);
    close(t.separation, 0, TOL);
    const s = one(collide(sphere(1, [0, 0, 2 + CONTACT_MARGIN / 2]), sphere(1, [0, 0, 0])));
    assert.equal(s.penetration, 0);
    close(s.separation, CONTACT_MARGIN / 2, TOL);
    assert.equal(collide(sphere(1, [0, 0, 2 + 2 * CONTACT_MARGIN]), sphere(1, [0, 0, 0])).length, 0);
  });
  it('coincident centres fall back to +z instead of NaN', () => {
    const c = one(collide(sphere(1, [0, 0, 0]), sphere(1, [0, 0, 0])));
    assert.deepEqual(c.normal, [0, 0, 1]);
    close(c.penetration, 2, TOL);
  });
});

describe('narrow phase: sphere–plane', () => {
  it('resting sphere: depth 0 at touching; the normal sign follows the argument order', () => {
    const c = one(collide(sphere(0.5, [1, 2, 0.5]), plane()));
    assert.deepEqual(c.normal, [0, 0, 1]);
    assert.equal(c.penetration, 0);
    closeVec(c.point, [1, 2, 0], TOL);
    const s = one(collide(plane(), sphere(0.5, [1, 2, 0.5])));
    assert.deepEqual(s.normal, [0, 0, -1], 'plane as a: normal from the sphere (b) into the plane (a)');
    closeVec(s.point, c.point, TOL);
  });
  it('penetrating sphere: depth exact, point midway; plane offset and pose are applied', () => {
    const c = one(collide(sphere(0.5, [0, 0, 0.47]), plane()));
    close(c.penetration, 0.03, TOL);
    closeVec(c.point, [0, 0, -0.015], TOL);
    // Surface n·x = 1 (offset), and a plane collider moved up by 2 (pose): surface z = 3.
    close(one(collide(sphere(0.5, [0, 0, 1.4]), plane([0, 0, 1], 1))).penetration, 0.1, TOL);
    close(one(collide(sphere(0.5, [0, 0, 3.4]), plane([0, 0, 1], 1, [0, 0, 2]))).penetration, 0.1, TOL);
    // Tilted plane: normal (0, 0.6, 0.8), sphere centre at signed distance 0.3 ⇒ depth 0.2.
    const t = one(collide(sphere(0.5, [0, 0.18, 0.24]), plane([0, 0.6, 0.8])));
    closeVec(t.normal, [0, 0.6, 0.8], TOL);
    close(t.penetration, 0.2, TOL);
    assert.equal(collide(sphere(0.5, [0, 0, 0.5 + 2 * CONTACT_MARGIN]), plane()).length, 0);
  });
});

describe('narrow phase: sphere–box regions', () => {
  const B = box([1, 1, 1], [0, 0, 0]);
  it('face region: normal = face normal, depth and midway point exact', () => {
    const c = one(collide(sphere(0.5, [0.2, 0.3, 1.4]), B));
    assert.deepEqual(c.normal, [0, 0, 1]);
    close(c.penetration, 0.1, TOL);
    closeVec(c.point, [0.2, 0.3, 0.95], TOL);
    assert.equal(c.featureId, 'sphere|face5');
  });
  it('edge region: normal along (centre − closest edge point)', () => {
    const c = one(collide(sphere(0.6, [1.3, 0.2, 1.4]), B));
    // Closest point (1, 0.2, 1); d = (0.3, 0, 0.4), |d| = 0.5 ⇒ depth 0.1, n = (0.6, 0, 0.8).
    closeVec(c.normal, [0.6, 0, 0.8], TOL);
    close(c.penetration, 0.1, TOL);
    closeVec(c.point, [1 - 0.05 * 0.6, 0.2, 1 - 0.05 * 0.8], TOL);
    assert.equal(c.featureId, 'sphere|edge7'); // edge ∥ y at z = +1 (bit 0), x = +1 (bit 1)
  });
  it('corner region, and the centre inside the box (pushed out through the nearest face)', () => {
    const c = one(collide(sphere(0.35, [-1.2, 1.2, 1.1]), B));
    const l = Math.hypot(0.2, 0.2, 0.1); // = 0.3
    closeVec(c.normal, [-0.2 / l, 0.2 / l, 0.1 / l], TOL);
    close(c.penetration, 0.05, TOL);
    assert.equal(c.featureId, 'sphere|vertex6'); // x −, y +, z +
    const inside = one(collide(sphere(0.5, [0.1, 0, 0.8]), B));
    assert.deepEqual(inside.normal, [0, 0, 1]);
    close(inside.penetration, 0.7, TOL);
  });
  it('rotated box, box as a (normal flips), separated sphere gives nothing', () => {
    const R = box([1, 0.5, 0.5], [0, 0, 0], quatFromAxisAngle([0, 0, 1], Math.PI / 2)); // long axis along y
    const c = one(collide(sphere(0.5, [0, 1.4, 0]), R));
    closeVec(c.normal, [0, 1, 0], 1e-12);
    close(c.penetration, 0.1, 1e-12);
    const s = one(collide(R, sphere(0.5, [0, 1.4, 0])));
    closeVec(s.normal, [0, -1, 0], 1e-12);
    closeVec(s.point, c.point, TOL);
    assert.equal(collide(sphere(0.5, [0, 1.6, 0]), R).length, 0);
  });
  it('random spheres near random boxes: separation = box SDF(centre) − r, surfaces at point ± n·sep/2', () => {
    const r = rng(7);
    let n = 0;
    for (let k = 0; k < 500; k++) {
      const b = box([0.2 + r(), 0.2 + r(), 0.2 + r()], [r(), r(), r()], randomQuat(r));
      const rad = 0.1 + r();
      const s = sphere(rad, [3 * r() - 1, 3 * r() - 1, 3 * r() - 1]);
      const cs = collide(s, b);
      const sep = boxSdf(b, s.position) - rad;
      if (sep > CONTACT_MARGIN) {
        assert.equal(cs.length, 0);
        continue;
      }
      const c = one(cs);
      n++;
      checkContact(c);
      close(c.separation, sep, 1e-9, 'separation');
      const onB: Vec3 = [
        c.point[0] - 0.5 * c.separation * c.normal[0],
        c.point[1] - 0.5 * c.separation * c.normal[1],
        c.point[2] - 0.5 * c.separation * c.normal[2],
      ];
      close(boxSdf(b, onB), 0, 1e-9, 'b surface point');
    }
    assert.ok(n > 100, `enough touching samples (${n})`);
  });
});

describe('narrow phase: box–plane', () => {
  const H: Vec3 = [0.5, 0.5, 0.25];
  it('box resting flat: 4 corner contacts with exact depth, midway points, both argument orders', () => {
    const cs = collide(box(H, [0, 0, 0.24]), plane());
    assert.equal(cs.length, 4);
    for (const c of cs) {
      checkContact(c);
      assert.deepEqual(c.normal, [0, 0, 1]);
      close(c.penetration, 0.01, 1e-15, 'depth');
      close(c.point[2], -0.005, 1e-15, 'midway z');
      close(Math.abs(c.point[0]), 0.5, TOL);
      close(Math.abs(c.point[1]), 0.5, TOL);
    }
    assert.deepEqual(
      cs.map((c) => c.featureId),
      ['vertex0|plane', 'vertex1|plane', 'vertex2|plane', 'vertex3|plane'],
    );
    const s = collide(plane(), box(H, [0, 0, 0.24]));
    assert.deepEqual(
      s.map((c) => c.normal),
      cs.map(() => [0, 0, -1]),
    );
    assert.deepEqual(
      s.map((c) => c.point),
      cs.map((c) => c.point),
    );
  });
  it('feature ids are stable when the box moves slightly; speculative at +margin/2, none at 2·margin', () => {
    const ids = collide(box(H, [0, 0, 0.24]), plane()).map((c) => c.featureId);
    const moved = collide(box(H, [0.003, -0.002, 0.2415], quatFromAxisAngle([0, 0, 1], 0.01)), plane());
    assert.deepEqual(
      moved.map((c) => c.featureId),
      ids,
    );
    const spec = collide(box(H, [0, 0, 0.25 + CONTACT_MARGIN / 2]), plane());
    assert.equal(spec.length, 4);
    for (const c of spec) {
      assert.equal(c.penetration, 0);
      close(c.separation, CONTACT_MARGIN / 2, 1e-15);
    }
    assert.equal(collide(box(H, [0, 0, 0.25 + 2 * CONTACT_MARGIN]), plane()).length, 0);
  });
  it('tilted box: 2 contacts on an edge (tilt about x), 1 on a corner (tilt about x and y)', () => {
    const lowest = (q: Quat): number =>
      Math.min(...[0, 1, 2, 3, 4, 5, 6, 7].map((v) => rotate(q, [(v & 1 ? 1 : -1) * H[0], (v & 2 ? 1 : -1) * H[1], (v & 4 ? 1 : -1) * H[2]])[2]));
    const qx = quatFromAxisAngle([1, 0, 0], Math.PI / 6);
    const e = collide(box(H, [0, 0, -lowest(qx) - 0.002], qx), plane());
    assert.equal(e.length, 2);
    for (const c of e) close(c.penetration, 0.002, 1e-12);
    close(e[0].point[1], e[1].point[1], 1e-12, 'both on the same edge ∥ x');
    const qxy = mulQuat(quatFromAxisAngle([0, 1, 0], 0.35), qx);
    const v = one(collide(box(H, [0, 0, -lowest(qxy) - 0.002], qxy), plane()));
    close(v.penetration, 0.002, 1e-12);
  });
  it('a deeply sunk box keeps the 4 deepest vertices', () => {
    const cs = collide(box([0.5, 0.5, 0.5], [0, 0, 0.2], quatFromAxisAngle([1, 0, 0], 0.1)), plane());
    assert.equal(cs.length, 4);
    for (const c of cs) assert.ok(c.penetration > 0.2);
  });
  it('keeps the 4 deepest vertices by (depth, vertex number), listed by vertex number, for random poses', () => {
    // Reference: every vertex within the margin, sorted by signed distance then number, first 4, by number.
    const r = rng(16);
    for (let k = 0; k < 200; k++) {
      const q = k % 4 === 0 ? quatFromAxisAngle([1, 0, 0], Math.PI) : randomQuat(r); // flipped: ties, vertices 4–7 below
      const z = 0.6 * r() - 0.3;
      const b = box(H, [r() - 0.5, r() - 0.5, z], q);
      const s = [0, 1, 2, 3, 4, 5, 6, 7].map((v) => z + rotate(q, [(v & 1 ? 1 : -1) * H[0], (v & 2 ? 1 : -1) * H[1], (v & 4 ? 1 : -1) * H[2]])[2]);
      const expected = [0, 1, 2, 3, 4, 5, 6, 7]
        .filter((v) => s[v] <= CONTACT_MARGIN)
        .sort((u, v) => s[u] - s[v] || u - v)
        .slice(0, 4)
        .sort((u, v) => u - v);
      const cs = collide(b, plane());
      assert.deepEqual(
        cs.map((c) => c.featureId),
        expected.map((v) => `vertex${v}|plane`),
        `pose ${k}`,
      );
      cs.forEach((c, i) => close(c.separation, s[expected[i]], 1e-12, `pose ${k} separation`));
    }
  });
});

describe('narrow phase: box–box', () => {
  it('box stacked on a larger box: 4 points at the top box footprint, exact depth, symmetric in argument order', () => {
    const top = box([0.5, 0.5, 0.5], [0.1, -0.2, 0.99]),
      base = box([1, 1, 0.5], [0, 0, 0]);
    const ab = byPoint(collide(top, base)),
      ba = byPoint(collide(base, top));
    assert.equal(ab.length, 4);
    assert.equal(ba.length, 4);
    const expected: Vec3[] = [
      [-0.4, -0.7, 0.495],
      [-0.4, 0.3, 0.495],
      [0.6, -0.7, 0.495],
      [0.6, 0.3, 0.495],
    ];
    ab.forEach((c, i) => {
      checkContact(c);
      assert.deepEqual(c.normal, [0, 0, 1]);
      close(c.penetration, 0.01, 1e-12);
      closeVec(c.point, expected[i], 1e-12, `ab point ${i}`);
      closeVec(ba[i].point, expected[i], 1e-12, `ba point ${i}`);
      assert.deepEqual(ba[i].normal, [0, 0, -1]);
      close(ba[i].penetration, 0.01, 1e-12);
    });
  });
  it('equal boxes stacked exactly: the 4 shared corners; ids stable under a small slide', () => {
    const cs = collide(box([0.5, 0.5, 0.5], [0, 0, 0.99]), box([0.5, 0.5, 0.5], [0, 0, 0]));
    assert.equal(cs.length, 4);
    for (const c of cs) {
      close(Math.abs(c.point[0]), 0.5, TOL);
      close(Math.abs(c.point[1]), 0.5, TOL);
      close(c.point[2], 0.495, TOL);
    }
    const ids = collide(box([0.5, 0.5, 0.5], [0.01, 0.02, 0.99]), box([0.5, 0.5, 0.5], [0, 0, 0]))
      .map((c) => c.featureId)
      .sort();
    const ids2 = collide(box([0.5, 0.5, 0.5], [0.012, 0.018, 0.991]), box([0.5, 0.5, 0.5], [0, 0, 0]))
      .map((c) => c.featureId)
      .sort();
    assert.equal(ids.length, 4);
    assert.deepEqual(ids2, ids);
  });
  it('box rotated 45° about z on a larger box: its 4 corners (0, ±√½), (±√½, 0)', () => {
    const q = quatFromAxisAngle([0, 0, 1], Math.PI / 4);
    const cs = byPoint(collide(box([0.5, 0.5, 0.5], [0, 0, 0.99], q), box([1, 1, 0.5], [0, 0, 0])));
    const s = Math.SQRT1_2;
    const expected: Vec3[] = [
      [-s, 0, 0.495],
      [0, -s, 0.495],
      [0, s, 0.495],
      [s, 0, 0.495],
    ];
    assert.equal(cs.length, 4);
    cs.forEach((c, i) => {
      closeVec(c.point, expected[i], 1e-12, `point ${i}`);
      close(c.penetration, 0.01, 1e-12);
      assert.deepEqual(c.normal, [0, 0, 1]);
    });
  });
  it('equal boxes, one rotated 45°: octagon overlap reduced to 4 points inside both faces, spanning a large area', () => {
    const q = quatFromAxisAngle([0, 0, 1], Math.PI / 4);
    const top = box([0.5, 0.5, 0.5], [0, 0, 0.99], q),
      base = box([0.5, 0.5, 0.5], [0, 0, 0]);
    for (const [cs, nz] of [
      [collide(top, base), 1],
      [collide(base, top), -1],
    ] as const) {
      assert.equal(cs.length, 4);
      for (const c of cs) {
        assert.deepEqual(c.normal, [0, 0, nz]);
        close(c.penetration, 0.01, 1e-12);
        close(c.point[2], 0.495, 1e-12);
        assert.ok(Math.abs(c.point[0]) <= 0.5 + 1e-9 && Math.abs(c.point[1]) <= 0.5 + 1e-9, 'inside the base face');
        assert.ok(
          Math.abs(c.point[0] + c.point[1]) <= Math.SQRT2 / 2 + 1e-9 && Math.abs(c.point[0] - c.point[1]) <= Math.SQRT2 / 2 + 1e-9,
          'inside the rotated face',
        );
      }
      // Shoelace area of the 4 points in angular order; the octagon's area is 2(√2 − 1) ≈ 0.828.
      const p = [...cs].map((c) => c.point).sort((u, v) => Math.atan2(u[1], u[0]) - Math.atan2(v[1], v[0]));
      let area = 0;
      for (let i = 0; i < 4; i++) {
        const u = p[i],
          v = p[(i + 1) % 4];
        area += 0.5 * (u[0] * v[1] - v[0] * u[1]);
      }
      assert.ok(area > 0.5, `quad area ${area}`);
    }
  });
  it('edge–edge crossing boxes: 1 point at the crossing, normal ⟂ both edges, exact depth', () => {
    const qa = quatFromAxisAngle([1, 0, 0], Math.PI / 4),
      qb = quatFromAxisAngle([0, 1, 0], Math.PI / 4);
    const A = box([0.5, 0.5, 0.5], [0.1, 0.2, Math.SQRT2 - 0.01], qa),
      B = box([0.5, 0.5, 0.5], [0, 0, 0], qb);
    const c = one(collide(A, B));
    checkContact(c);
    // a's lowest edge is ∥ x at y = 0.2, z = √2 − 0.01 − √½; b's highest edge is ∥ y at x = 0, z = √½.
    close(dot(c.normal, [1, 0, 0]), 0, 1e-12, 'n ⟂ edge of a');
    close(dot(c.normal, [0, 1, 0]), 0, 1e-12, 'n ⟂ edge of b');
    closeVec(c.normal, [0, 0, 1], 1e-12);
    close(c.penetration, 0.01, 1e-12);
    closeVec(c.point, [0, 0.2, Math.SQRT1_2 - 0.005], 1e-12);
    assert.match(c.featureId, /^a\.edge\d+\|b\.edge\d+$/);
    const s = one(collide(B, A));
    closeVec(s.normal, [0, 0, -1], 1e-12);
    closeVec(s.point, c.point, 1e-12);
    close(s.penetration, 0.01, 1e-12);
    // General crossing edges (not axis-aligned): the normal is still ⟂ both edges.
    const qa2 = mulQuat(quatFromAxisAngle([0, 0, 1], 0.3), qa);
    const g = one(collide(box([0.5, 0.5, 0.5], [0.05, -0.1, Math.SQRT2 - 0.02], qa2), B));
    close(dot(g.normal, rotate(qa2, [1, 0, 0])), 0, 1e-12);
    close(dot(g.normal, rotate(qb, [0, 1, 0])), 0, 1e-12);
    assert.ok(g.normal[2] > 0.99);
  });
  it('separated pairs give no contacts (face gap, edge gap, corner gap, all > margin)', () => {
    const u: Vec3 = [0.5, 0.5, 0.5];
    assert.equal(collide(box(u, [0, 0, 1 + 2 * CONTACT_MARGIN]), box(u, [0, 0, 0])).length, 0);
    assert.equal(collide(box(u, [3, 0, 0]), box(u, [0, 0, 0])).length, 0);
    const qa = quatFromAxisAngle([1, 0, 0], Math.PI / 4),
      qb = quatFromAxisAngle([0, 1, 0], Math.PI / 4);
    assert.equal(collide(box(u, [0, 0, Math.SQRT2 + 0.05], qa), box(u, [0, 0, 0], qb)).length, 0);
    const corner = quatFromAxisAngle([1, 1, 0], Math.atan(Math.SQRT2)); // a vertex pointing down
    assert.equal(collide(box(u, [0, 0, 0.5 + Math.sqrt(0.75) + 0.05], corner), box(u, [0, 0, 0])).length, 0);
    const v = one(collide(box(u, [0, 0, 0.5 + Math.sqrt(0.75) - 0.004], corner), box(u, [0, 0, 0])));
    close(v.penetration, 0.004, 1e-12);
    assert.match(v.featureId, /vertex/);
  });
  it('random box pairs: ≤ 4 points, unit normals, surfaces at point ± n·sep/2, speculative box pairs within the margin', () => {
    const r = rng(11);
    let touching = 0;
    for (let k = 0; k < 1000; k++) {
      const A = box([0.2 + r(), 0.2 + r(), 0.2 + r()], [1.5 * r(), 1.5 * r(), 1.5 * r()], randomQuat(r));
      const B = box([0.2 + r(), 0.2 + r(), 0.2 + r()], [1.5 * r(), 1.5 * r(), 1.5 * r()], randomQuat(r));
      const cs = collide(A, B);
      assert.ok(cs.length <= 4);
      if (cs.length > 0) touching++;
      for (const c of cs) {
        checkContact(c);
        const h = 0.5 * c.separation;
        const onA: Vec3 = [c.point[0] + h * c.normal[0], c.point[1] + h * c.normal[1], c.point[2] + h * c.normal[2]];
        const onB: Vec3 = [c.point[0] - h * c.normal[0], c.point[1] - h * c.normal[1], c.point[2] - h * c.normal[2]];
        close(boxSdf(A, onA), 0, 1e-9, `a surface (pair ${k}, ${c.featureId})`);
        close(boxSdf(B, onB), 0, 1e-9, `b surface (pair ${k}, ${c.featureId})`);
      }
      const sw = collide(B, A);
      assert.equal(sw.length > 0, cs.length > 0, 'both orders agree on touching');
    }
    assert.ok(touching > 200, `enough touching samples (${touching})`);
  });
  it('static pairs and plane–plane give nothing', () => {
    assert.equal(collide(plane(), plane([0, 0, -1], 1)).length, 0);
    assert.equal(collide(box([1, 1, 1], [0, 0, 0.5], IDENTITY_QUAT, true), plane()).length, 0);
    assert.equal(collide(sphere(1, [0, 0, 0], true), box([1, 1, 1], [0, 0, 1], IDENTITY_QUAT, true)).length, 0);
    assert.equal(collide(sphere(1, [0, 0, 0]), box([1, 1, 1], [0, 0, 1], IDENTITY_QUAT, true)).length, 1);
  });
});

describe('shapes: AABB', () => {
  it('box AABB uses Σ|R_ij|h_j; planes have none', () => {
    const a = computeAabb(box([1, 0.5, 0.25], [1, 2, 3], quatFromAxisAngle([0, 0, 1], Math.PI / 4)))!;
    const e = (1 + 0.5) * Math.SQRT1_2;
    closeVec(a.min, [1 - e, 2 - e, 2.75], 1e-12);
    closeVec(a.max, [1 + e, 2 + e, 3.25], 1e-12);
    assert.equal(computeAabb(plane()), null);
    const s = computeAabb(sphere(2, [0, 0, 0]), 0.1)!;
    assert.deepEqual(
      [s.min, s.max],
      [
        [-2.1, -2.1, -2.1],
        [2.1, 2.1, 2.1],
      ],
    );
  });
});

describe('broad phase: sweep and prune', () => {
  const sortPairs = (p: Pair[]): Pair[] => [...p].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  function randomPile(r: () => number, n: number, extent: number): Collider[] {
    const out: Collider[] = [plane()];
    for (let i = 0; i < n; i++) {
      const p: Vec3 = [extent * r(), extent * r(), extent * r()];
      out.push(r() < 0.3 ? sphere(0.1 + 0.3 * r(), p, r() < 0.05) : box([0.1 + 0.3 * r(), 0.1 + 0.3 * r(), 0.1 + 0.3 * r()], p, randomQuat(r), r() < 0.05));
    }
    return out;
  }
  it('equals brute force on random piles, across frames of small motion (insertion-sort path) and an axis change', () => {
    const r = rng(3);
    for (let trial = 0; trial < 5; trial++) {
      let pile = randomPile(r, 300, 4);
      const sap = new SweepAndPrune();
      for (let frame = 0; frame < 6; frame++) {
        assert.deepEqual(sap.pairs(pile), bruteForcePairs(pile), `trial ${trial} frame ${frame}`);
        pile = pile.map((c) =>
          c.shape.kind === 'plane' || c.isStatic
            ? c
            : { ...c, position: [c.position[0] + 0.05 * (r() - 0.5), c.position[1] + 0.05 * (r() - 0.5), c.position[2] + 0.05 * (r() - 0.5)] as Vec3 },
        );
      }
      // Stretch along z: the sort axis changes; results must still match.
      pile = pile.map((c) => ({ ...c, position: [c.position[0], c.position[1], 5 * c.position[2]] as Vec3 }));
      assert.deepEqual(sap.pairs(pile), bruteForcePairs(pile));
      assert.equal(sap.lastAxis, 2);
    }
  });
  it('a 1000-box pile matches brute force exactly; static–static pairs are dropped; plane pairs cover every dynamic body', () => {
    const r = rng(5);
    const pile = randomPile(r, 1000, 6);
    const sap = new SweepAndPrune();
    const got = sap.pairs(pile),
      ref = bruteForcePairs(pile);
    assert.ok(ref.length > 500, `pile has many overlaps (${ref.length})`);
    assert.deepEqual(got, ref);
    const cand = candidatePairs(pile, sap);
    const dynamic = pile.filter((c) => !(c.shape.kind === 'plane' || c.isStatic)).length;
    assert.equal(planePairs(pile).length, dynamic);
    assert.deepEqual(cand, sortPairs([...ref, ...planePairs(pile)]));
    for (const [i, j] of cand) assert.ok(i < j);
  });
  it('1000 boxes in a 10×10×10 grid (spacing 3) give 0 pairs with far fewer than n²/2 interval tests (timing printed)', () => {
    const grid: Collider[] = [];
    for (let x = 0; x < 10; x++)
      for (let y = 0; y < 10; y++)
        for (let z = 0; z < 10; z++) grid.push(box([0.5, 0.5, 0.5], [3 * x, 3 * y, 3 * z], quatFromAxisAngle([1, 2, 3], 0.1 * (x + y + z))));
    const sap = new SweepAndPrune();
    let t = performance.now();
    assert.equal(sap.pairs(grid).length, 0);
    const first = performance.now() - t;
    const reps = 20;
    t = performance.now();
    for (let k = 0; k < reps; k++) assert.equal(sap.pairs(grid).length, 0);
    const warm = (performance.now() - t) / reps;
    t = performance.now();
    bruteForcePairs(grid);
    const brute = performance.now() - t;
    const n = grid.length;
    assert.ok(sap.lastTests < (n * (n - 1)) / 2 / 5, `interval tests ${sap.lastTests}`);
    console.log(
      `      broad phase, 1000 spread boxes: first call ${first.toFixed(2)} ms, coherent re-sweep ${warm.toFixed(2)} ms/frame, ` +
        `${sap.lastTests} interval tests (n²/2 = ${(n * (n - 1)) / 2}); brute force ${brute.toFixed(2)} ms`,
    );
  });
});

describe('islands', () => {
  it('two stacks on one static ground are 2 islands (the ground joins none)', () => {
    const isStatic = [true, false, false, false, false];
    const islands = buildIslands(
      5,
      [
        [1, 0],
        [2, 1],
        [3, 0],
        [4, 3],
        [0, 2],
      ],
      isStatic,
    );
    assert.deepEqual(islands, [
      { bodies: [1, 2], contacts: [0, 1, 4] },
      { bodies: [3, 4], contacts: [2, 3] },
    ]);
  });
  it('static world −1, chains merge transitively, static–static contacts belong to no island, isolated bodies optional', () => {
    const isStatic = [false, false, false, true, false, true];
    const pairs: [number, number][] = [
      [0, -1],
      [2, 1],
      [1, 0],
      [3, 5],
      [4, 3],
    ];
    assert.deepEqual(buildIslands(6, pairs, isStatic), [
      { bodies: [0, 1, 2], contacts: [0, 1, 2] },
      { bodies: [4], contacts: [4] },
    ]);
    assert.deepEqual(buildIslands(3, [], [false, true, false], { includeIsolated: true }), [
      { bodies: [0], contacts: [] },
      { bodies: [2], contacts: [] },
    ]);
    assert.throws(() => buildIslands(2, [[0, 2]], [false, false]), /out of range/);
  });
  it('end to end: plane + two box stacks → candidate pairs → contacts → 2 islands of 8 contacts each', () => {
    const u: Vec3 = [0.5, 0.5, 0.5];
    const bodies = [plane(), box(u, [0, 0, 0.499]), box(u, [0, 0, 1.497]), box(u, [5, 0, 0.499]), box(u, [5.1, 0, 1.497])];
    const contacts: [number, number][] = [];
    for (const [i, j] of candidatePairs(bodies))
      for (const c of collide(bodies[i], bodies[j])) {
        checkContact(c);
        contacts.push([i, j]);
      }
    assert.equal(contacts.length, 16);
    const islands = buildIslands(
      bodies.length,
      contacts,
      bodies.map((b) => b.shape.kind === 'plane'),
    );
    assert.equal(islands.length, 2);
    assert.deepEqual(
      islands.map((i) => i.bodies),
      [
        [1, 2],
        [3, 4],
      ],
    );
    assert.deepEqual(
      islands.map((i) => i.contacts.length),
      [8, 8],
    );
  });
});

describe('narrow phase conventions', () => {
  it('normals point from b into a for every pair type (a above b along +z)', () => {
    const lo: Collider[] = [sphere(0.5, [0, 0, 0]), box([0.5, 0.5, 0.5], [0, 0, 0]), plane([0, 0, 1], 0.5)];
    const hi: Collider[] = [sphere(0.5, [0.05, 0, 0.99]), box([0.5, 0.5, 0.5], [0.05, 0, 0.99])];
    for (const a of hi)
      for (const b of lo) {
        const cs = collide(a, b);
        assert.ok(cs.length > 0, `${a.shape.kind} on ${b.shape.kind}`);
        for (const c of cs) assert.ok(c.normal[2] > 0.99, `${a.shape.kind}/${b.shape.kind} n = ${c.normal}`);
        for (const c of collide(b, a)) assert.ok(c.normal[2] < -0.99, `${b.shape.kind}/${a.shape.kind} n = ${c.normal}`);
      }
  });
});
