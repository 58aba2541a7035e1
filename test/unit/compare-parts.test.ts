/** The pieces of a run comparison: ULPs, contact matching (features, nearest points, swapped bodies), the bodies of a line. */
import assert from 'node:assert/strict';
import { bodiesFromLine, bodiesSpan } from '../../src/session/compare/lineBodies.js';
import { matchContacts, PairKeys } from '../../src/session/compare/contactMatch.js';
import { mapBodies } from '../../src/session/compare/bodyMap.js';
import { angleBetween, contactRotation, rotated } from '../../src/session/compare/frameCompare.js';
import { ulpDistance } from '../../src/session/compare/tolerance.js';
import type { RecordedContact, RecordingHeader } from '../../src/format/recording.js';
import { CONVENTIONS } from '../../src/format/recording.js';

const header = (names: string[]): RecordingHeader => ({
  format: 'contact-lens-recording',
  version: 1,
  producer: { name: 't' },
  units: 'SI',
  conventions: CONVENTIONS,
  dt: 1 / 60,
  gravity: [0, 0, -9.81],
  bodies: names.map((name) =>
    name === 'ground'
      ? { name, shape: { plane: { normal: [0, 0, 1], offset: 0 } }, mass: null, inertia: null, static: true }
      : { name, shape: { box: { halfExtents: [0.5, 0.5, 0.5] } }, mass: 1, inertia: [1 / 6, 1 / 6, 1 / 6], static: false },
  ),
});

const contact = (a: number, b: number, point: [number, number, number], feature?: string, normal: [number, number, number] = [0, 0, 1]): RecordedContact => ({
  a,
  b,
  point,
  normal,
  t1: [normal[2], 0, 0],
  t2: [0, 1, 0],
  depth: 0,
  mu: 0.5,
  e: 0,
  ...(feature ? { feature } : {}),
});

describe('compare: ULP distance', () => {
  it('counts representable doubles between two numbers, across zero', () => {
    assert.equal(ulpDistance(1, 1), 0);
    assert.equal(ulpDistance(1, 1 + Number.EPSILON), 1);
    assert.equal(ulpDistance(0, -0), 0);
    assert.equal(ulpDistance(Number.MIN_VALUE, -Number.MIN_VALUE), 2);
    assert.equal(ulpDistance(2, 2 - 2 * Number.EPSILON), 2);
    assert.equal(ulpDistance(2, 2 + 2 * Number.EPSILON), 1);
  });
});

describe('compare: contact matching', () => {
  const ha = header(['ground', 'box0', 'box1']);
  it('bodies by name in another order; features first, nearest points for the rest; a contact in one run only', () => {
    const hb = header(['box1', 'ground', 'box0']);
    const map = mapBodies(ha, hb);
    assert.equal(map.by, 'name');
    const keys = new PairKeys(
      map,
      ha.bodies.map((b) => b.static),
      hb.bodies.map((b) => b.static),
    );
    const ca = [contact(1, 0, [0.5, 0.5, 0], 'v0'), contact(1, 0, [-0.5, 0.5, 0], 'v1'), contact(2, 1, [0, 0, 1])];
    // b: box0 is index 2, ground 1, box1 0; the box-box contact written with the bodies swapped; one more ground contact
    const cb = [
      contact(2, 1, [-0.5, 0.5, 0], 'v1'),
      contact(2, 0, [0.01, 0, 1], undefined, [0, 0, -1]),
      contact(2, 1, [0.5, 0.5, 0], 'v0'),
      contact(2, 1, [0.5, -0.5, 0], 'v2'),
    ];
    const m = matchContacts(ca, cb, keys);
    assert.deepEqual(m.pairs, [
      { a: 0, b: 2, flipped: false },
      { a: 1, b: 0, flipped: false },
      { a: 2, b: 1, flipped: true },
    ]);
    assert.deepEqual(m.onlyA, []);
    assert.deepEqual(m.onlyB, [3]);
  });

  it("another engine's feature ids never match: nearest points decide", () => {
    const keys = new PairKeys(mapBodies(ha, ha), [true, false, false], [true, false, false]);
    const ca = [contact(1, 0, [0.5, 0.5, 0], 'box0:v0/ground'), contact(1, 0, [-0.5, 0.5, 0], 'box0:v1/ground')];
    const cb = [contact(1, 0, [-0.49, 0.5, 0], '1:ground:3'), contact(1, 0, [0.49, 0.5, 0], '1:ground:0')];
    assert.deepEqual(matchContacts(ca, cb, keys).pairs, [
      { a: 0, b: 1, flipped: false },
      { a: 1, b: 0, flipped: false },
    ]);
  });

  it('λ of a swapped contact is rotated into a’s contact frame: the impulse on a’s body a is the same', () => {
    const ca = contact(2, 1, [0, 0, 1]);
    const cb: RecordedContact = { ...contact(1, 2, [0, 0, 1]), normal: [0, 0, -1], t1: [0, 1, 0], t2: [1, 0, 0] };
    const q = contactRotation(ca, cb, true)!;
    // b's λ: normal 2, friction 0.3 along b's t1 (+y on b's a = a's b): on a's body a, −0.3 along +y = a's t2
    const l = rotated(q, [2, 0.3, 0], 0);
    assert.deepEqual(
      l.map((x) => Math.round(x * 1e12) / 1e12 + 0),
      [2, 0, -0.3],
    );
    assert.equal(contactRotation(ca, ca, false), null);
  });
});

describe('compare: the bodies of a frame line', () => {
  it('finds the top-level bodies array past strings with brackets and escapes, and rejects anything else', () => {
    const body = { x: [0, 0, 1], q: [1, 0, 0, 0], v: [0, 0, -0.1], w: [0, 0, 0] };
    const line = JSON.stringify({ frame: 3, 'x-note': 'a "bodies": [ in a string \\', time: 0.1, nested: { bodies: [1] }, bodies: [body, body], contacts: [] });
    const buf = Buffer.from(line);
    const span = bodiesSpan(buf, buf.length)!;
    assert.deepEqual(JSON.parse(line.slice(span[0], span[1])), [body, body]);
    assert.deepEqual(bodiesFromLine(buf, buf.length, 2), [body, body]);
    assert.equal(bodiesFromLine(buf, buf.length, 3), null, 'wrong count');
    const nan = Buffer.from(line.replace('-0.1', 'NaN'));
    assert.equal(bodiesFromLine(nan, nan.length, 2), null, 'not JSON: left to the validating reader');
    const short = Buffer.from(JSON.stringify({ frame: 0, bodies: [{ x: [0, 0], q: [1, 0, 0, 0], v: [0, 0, 0], w: [0, 0, 0] }] }));
    assert.equal(bodiesFromLine(short, short.length, 1), null);
  });
});

describe('compare: the angle between two orientations', () => {
  it('is exactly 0 for the same (or the opposite) quaternion, and accurate for tiny rotations', () => {
    const q = [0.1344396201368163, -0.6594856292755269, -0.676288288625318, -0.2993974682337338];
    assert.equal(angleBetween(q, q), 0, 'a dot product rounded below 1 gave 3e-8 rad');
    assert.equal(
      angleBetween(
        q,
        q.map((x) => -x),
      ),
      0,
    );
    const t = 1e-12; // a rotation by t about x
    const r = [Math.cos(t / 2), Math.sin(t / 2), 0, 0];
    const rq = [r[0] * q[0] - r[1] * q[1], r[0] * q[1] + r[1] * q[0], r[0] * q[2] - r[1] * q[3], r[0] * q[3] + r[1] * q[2]];
    assert.ok(Math.abs(angleBetween(q, rq) - t) < 1e-3 * t, `${angleBetween(q, rq)}`);
    assert.ok(Math.abs(angleBetween([1, 0, 0, 0], [Math.cos(0.5), Math.sin(0.5), 0, 0]) - 1) < 1e-15);
  });
});
