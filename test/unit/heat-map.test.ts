/** The heat-map wire encoding of A (src/protocol/heatMap.ts): signed log-magnitude levels, one byte each. */
import assert from 'node:assert/strict';
import { rng } from '../rng.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseSceneFile } from '../../src/format/scene.js';
import { Session, type IslandDetail } from '../../src/session/session.js';
import { encodeHeatMap, encodeHeatMapBlocks, HEAT_DECADES, HEAT_NEGATIVE, HEAT_NON_FINITE, HEAT_STEPS, HEAT_ZERO } from '../../src/protocol/heatMap.js';

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');

describe('heat map encoding', () => {
  it('maps 0, the largest entry, one decade per 21 levels, the floor 1e-6·max and below, and the sign', () => {
    const A = Float64Array.from([0, 4, -4, 0.4, -4e-6, 4e-9, 2, -0.04]);
    const h = encodeHeatMap(A, 2); // only the leading 2×2 block
    assert.equal(h.levels.length, 4);
    assert.equal(h.maxAbs, 4);
    assert.deepEqual(Array.from(h.levels), [HEAT_ZERO, 1 + HEAT_STEPS, HEAT_NEGATIVE + HEAT_STEPS, 1 + HEAT_STEPS - HEAT_STEPS / HEAT_DECADES]);
    const full = encodeHeatMap(Float64Array.from([...A, 0]), 3);
    assert.deepEqual(Array.from(full.levels), [
      HEAT_ZERO,
      1 + HEAT_STEPS,
      HEAT_NEGATIVE + HEAT_STEPS,
      1 + HEAT_STEPS - HEAT_STEPS / HEAT_DECADES, // 0.4 = max/10: one decade down
      HEAT_NEGATIVE, // −4e-6 = −max·1e-6: the bottom of the scale
      1, // 4e-9 is below the scale: clamped to its bottom, still not "zero"
      1 + Math.round(HEAT_STEPS + (HEAT_STEPS / HEAT_DECADES) * Math.log10(0.5)),
      HEAT_NEGATIVE + HEAT_STEPS - (2 * HEAT_STEPS) / HEAT_DECADES,
      HEAT_ZERO,
    ]);
  });

  it('counts NaN and ±∞ as their own level and leaves them out of max|a|', () => {
    const h = encodeHeatMap(Float64Array.from([NaN, 2, Infinity, -Infinity]), 2);
    assert.equal(h.maxAbs, 2);
    assert.equal(h.nonFinite, 3);
    assert.deepEqual(Array.from(h.levels), [HEAT_NON_FINITE, 1 + HEAT_STEPS, HEAT_NON_FINITE, HEAT_NON_FINITE]);
  });

  it('an all-zero or all-NaN A has maxAbs 0 and no coloured level', () => {
    assert.deepEqual(Array.from(encodeHeatMap(new Float64Array(4), 2).levels), [0, 0, 0, 0]);
    const nan = encodeHeatMap(Float64Array.from([NaN, NaN, NaN, NaN]), 2);
    assert.equal(nan.maxAbs, 0);
    assert.deepEqual(Array.from(nan.levels), [HEAT_NON_FINITE, HEAT_NON_FINITE, HEAT_NON_FINITE, HEAT_NON_FINITE]);
  });
});

describe('heat map levels against Math.log10', () => {
  it('the table-based log10 gives the exact level for 100 000 random entries over 12 decades (except within 0.01 of a rounding tie)', () => {
    const r = rng(7);
    const n = 316,
      A = new Float64Array(n * n);
    for (let i = 0; i < A.length; i++) A[i] = (r() < 0.5 ? -1 : 1) * Math.pow(10, 3 - 12 * r());
    const h = encodeHeatMap(A, n);
    let checked = 0;
    for (let i = 0; i < A.length; i++) {
      const t = (Math.log10(Math.abs(A[i]) / h.maxAbs) + HEAT_DECADES) * (HEAT_STEPS / HEAT_DECADES);
      if (Math.abs(t - Math.floor(t) - 0.5) < 0.01) continue;
      const step = t <= 0 ? 0 : t >= HEAT_STEPS ? HEAT_STEPS : Math.round(t);
      assert.equal(h.levels[i], (A[i] > 0 ? 1 : HEAT_NEGATIVE) + step, `A[${i}] = ${A[i]}`);
      checked++;
    }
    assert.ok(checked > 95_000, `${checked}`);
  });
});

describe('heat map of an assembled A from its shared-body blocks (encodeHeatMapBlocks)', () => {
  const stack = (): IslandDetail[] => {
    const file = path.join(EXAMPLES, 'box-stack-10.scene.json');
    const desc = parseSceneFile(fs.readFileSync(file, 'utf8'), file).scenarios[0].desc;
    const s = Session.fromScenario(desc, { frames: 4 });
    return [1, 2, 3].flatMap((i) => s.detail(i, { conditioning: 'none' }).islands.filter((isl) => isl.problem !== null));
  };

  it('gives the levels, max|a| and NaN count of the dense encoding on every island of a stack', () => {
    const islands = stack();
    assert.ok(
      islands.some((isl) => isl.contacts.length >= 8),
      'islands with many contacts on shared bodies',
    );
    for (const isl of islands) {
      const p = isl.problem!;
      assert.ok(isl.sharedBodies, 'an assembled island carries its contacts by body');
      assert.deepEqual(encodeHeatMapBlocks(p.A, p.size, isl.sharedBodies!), encodeHeatMap(p.A, p.size));
    }
  });

  it('an entry inside the blocks that is NaN, or differs from its mirror, is encoded as the dense encoding does, each NaN counted once', () => {
    const isl = stack().reduce((a, b) => (b.contacts.length > a.contacts.length ? b : a));
    const p = isl.problem!;
    const A = Float64Array.from(p.A);
    const n = p.size;
    // two contacts between the same two boxes: their block is listed under both bodies
    const body = (k: number): [number, number] => [p.contacts![k].contact.bodyA, p.contacts![k].contact.bodyB];
    let pair: [number, number] | null = null;
    for (let i = 0; i < p.contactCount && !pair; i++)
      for (let j = i + 1; j < p.contactCount && !pair; j++) if (body(i)[1] >= 0 && String(body(i)) === String(body(j))) pair = [i, j];
    assert.ok(pair, 'two contacts between the same two boxes');
    const [i, j] = pair;
    A[3 * i * n + 3 * j + 1] = NaN;
    A[(3 * j + 1) * n + 3 * i] = NaN;
    A[1 * n + 4] = -A[1 * n + 4] * 1e-3; // no longer equal to its mirror A[4][1]
    A[2 * n + 2] = Infinity; // on the diagonal
    const dense = encodeHeatMap(A, n);
    assert.equal(dense.nonFinite, 3);
    assert.deepEqual(encodeHeatMapBlocks(A, n, isl.sharedBodies!), dense);
  });
});
