/** The heat-map wire encoding of A (src/protocol/heatMap.ts): signed log-magnitude levels, one byte each. */
import assert from 'node:assert/strict';
import { rng } from '../rng.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import {
  assembleJacobians,
  type ContactJacobians,
  type ContactsByBody,
  contactsByBody,
  denseFromDelassusBlocks,
  delassusBlocks,
} from '../../src/engine/index.js';
import { toContactPoint } from '../../src/format/recording.js';
import { solveTimeBodies } from '../../src/session/preSolve.js';
import { Session, type IslandDetail } from '../../src/session/session.js';
import { recordExample } from '../exampleRecording.js';
import { recordPeer } from '../peers/recordPeer.js';
import { encodeHeatMap, encodeHeatMapBlockRows, HEAT_DECADES, HEAT_NEGATIVE, HEAT_NON_FINITE, HEAT_STEPS, HEAT_ZERO } from '../../src/protocol/heatMap.js';

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

describe("an island's Delassus blocks (engine/delassusBlocks.ts) and the heat map from them", function () {
  this.timeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-heat-blocks-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Every assembled island of a few frames of recordings: ours, cannon-es's and Rapier's stacks, a foreign engine's file. */
  const islands: { file: string; frame: number; isl: IslandDetail; jacobians: ContactJacobians; byBody: ContactsByBody; regularization: number }[] = [];
  before(async () => {
    const files = [
      recordExample(dir, 'box-stack-10', 'pgs', 60),
      await recordPeer('cannon', 'stack', { out: path.join(dir, 'cannon-stack.rec.jsonl') }),
      await recordPeer('rapier', 'stack', { out: path.join(dir, 'rapier-stack.rec.jsonl') }),
      path.join(EXAMPLES, 'foreign-engine.rec.jsonl'),
    ];
    for (const file of files) {
      const s = Session.fromRecording(file);
      for (let i = 1; i < s.frameCount; i += Math.max(1, Math.floor(s.frameCount / 8))) {
        const d = s.detail(i, { conditioning: 'none' });
        const f = s.frame(i);
        const pre = solveTimeBodies(s.header, f, s.frame(i - 1));
        assert.ok(pre.ok, `${file} frame ${i}: pre-solve state`);
        for (const isl of d.islands) {
          if (isl.blocks === undefined) continue;
          const cs = isl.contacts.map((k) => toContactPoint(f.contacts[k]));
          const jacobians = assembleJacobians(pre.bodies, cs, d.assembly);
          islands.push({
            file: path.basename(file),
            frame: i,
            isl,
            jacobians,
            byBody: contactsByBody(jacobians),
            regularization: d.assembly.regularization,
          });
        }
      }
    }
  });

  /**
   * A = J M⁻¹ Jᵀ + εI written out entry by entry (docs/physics.md "Delassus matrix"): A[3i+r][3j+s] for i ≤ j the sum,
   * over the bodies i and j share, of the six-term product of J_i's row r and (M⁻¹J_j)'s row s from zero; the lower
   * triangle its mirror.
   */
  function delassusByEntry(k: ContactJacobians, regularization: number): Float64Array {
    const C = k.contactCount,
      n = 3 * C;
    const A = new Float64Array(n * n);
    const side = (i: number) => [
      { body: k.staticA[i] ? -1 : k.contacts[i].contact.bodyA, J: k.physics.jacobianA, MJ: k.invMassJA },
      { body: k.staticB[i] ? -1 : k.contacts[i].contact.bodyB, J: k.physics.jacobianB, MJ: k.invMassJB },
    ];
    for (let i = 0; i < C; i++)
      for (let j = i; j < C; j++)
        for (let r = 0; r < 3; r++)
          for (let s = i === j ? r : 0; s < 3; s++) {
            let sum = 0;
            for (const a of side(i))
              for (const b of side(j)) {
                if (a.body < 0 || a.body !== b.body) continue;
                let v = 0;
                for (let t = 0; t < 6; t++) v += a.J[18 * i + 6 * r + t] * b.MJ[18 * j + 6 * s + t];
                sum += v;
              }
            A[(3 * i + r) * n + 3 * j + s] = sum;
            A[(3 * j + s) * n + 3 * i + r] = sum;
          }
    for (let d = 0; d < n; d++) A[d * n + d] += regularization;
    return A;
  }

  it('form, bit for bit, A = J M⁻¹ Jᵀ + εI written out entry by entry, on recordings of three engines and a foreign file', () => {
    assert.ok(islands.length >= 20, `${islands.length} islands`);
    let busy = false;
    for (const { file, frame, isl, jacobians, byBody, regularization } of islands) {
      const A = delassusByEntry(jacobians, regularization);
      const fromBlocks = denseFromDelassusBlocks(isl.blocks!);
      assert.deepEqual(isl.blocks, delassusBlocks(jacobians, byBody, regularization));
      assert.ok(A.length === fromBlocks.length && A.every((a, k) => Object.is(a, fromBlocks[k])), `${file} frame ${frame}`);
      assert.deepEqual(isl.problem!.A, A, "the island's problem, formed on demand");
      // one block per pair of contacts on a shared body, on and above the diagonal
      const C = isl.contacts.length,
        blocks = isl.blocks!.col.length;
      assert.ok(blocks >= C && blocks <= (C * (C + 1)) / 2, `${blocks} blocks for ${C} contacts`);
      busy ||= C >= 20 && blocks < (C * (C + 1)) / 4;
    }
    assert.ok(busy, 'an island of 20 or more contacts where fewer than half the pairs share a body');
  });

  it('give the heat map of the dense A: the same levels, max|a| and NaN count', () => {
    for (const { isl } of islands) {
      const p = isl.problem!;
      assert.deepEqual(encodeHeatMapBlockRows(isl.blocks!), encodeHeatMap(p.A, p.size));
    }
  });

  it('a NaN or ±∞ in a block is encoded as the dense encoding does, counted once per entry of A it stands for', () => {
    const { isl } = islands.reduce((a, b) => (b.isl.contacts.length > a.isl.contacts.length ? b : a));
    const { start, col, val } = isl.blocks!;
    const v = Float64Array.from(val);
    const offDiagonal = start[0] + 1; // row 0's second block: a contact sharing a body with contact 0
    assert.ok(offDiagonal < start[1] && col[offDiagonal] > 0, 'contact 0 shares a body with a later contact');
    v[9 * offDiagonal + 1] = NaN; // and its mirror
    v[4] = Infinity; // on the diagonal
    const rows = { ...isl.blocks!, val: v };
    const dense = encodeHeatMap(denseFromDelassusBlocks(rows), 3 * isl.contacts.length);
    assert.equal(dense.nonFinite, 3);
    assert.deepEqual(encodeHeatMapBlockRows(rows), dense);
  });
});
