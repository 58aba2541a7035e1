/**
 * The inspector's per-contact λ columns (src/extension/model/contactColumns.ts): a contact's series over
 * frames whose entries fill several storage blocks is the λ each frame recorded for it.
 */
import assert from 'node:assert/strict';
import { ContactColumns, InjectedColumns } from '../../src/extension/model/contactColumns.js';
import { ContactKeyTable, contactKeyText } from '../../src/session/contactKeys.js';
import type { RecordedContact, RecordedFrame } from '../../src/format/recording.js';

/** Frame k: C contacts between bodies (i mod 50) and the world, features "f<i>", λ depending on k and i. */
function frame(k: number, C: number): RecordedFrame {
  const contacts: RecordedContact[] = Array.from({ length: C }, (_, i) => ({
    a: i % 50,
    b: -1,
    point: [0, 0, 0],
    normal: [0, 0, 1],
    t1: [1, 0, 0],
    t2: [0, 1, 0],
    depth: 0,
    mu: 0.5,
    e: 0,
    feature: `f${i}`,
  }));
  const lambda = Array.from({ length: 3 * C }, (_, j) => (k + 1) * 1e-3 + j * 1e-7 + (j % 3 === 0 ? 0 : 0.25));
  return { frame: k + 1, time: (k + 1) / 60, bodies: [], contacts, solver: { name: 'pgs', status: 'converged', iterations: 1, lambda } };
}

describe('inspector contact columns', () => {
  it('a contact series over more entries than one storage block is each frame’s recorded λn and ‖λt‖', () => {
    const keys = new ContactKeyTable();
    const cols = new ContactColumns(keys);
    // 5 frames of 0, 40 000, 70 001, 3, 90 000 contacts: 200 004 entries, blocks of 65 536
    const sizes = [0, 40_000, 70_001, 3, 90_000];
    const frames = sizes.map((C, k) => frame(k, C));
    for (const f of frames) cols.add(f);
    const wanted = [0, 2, 39_999, 65_535, 65_536, 70_000, 89_999];
    const got = cols.series(
      wanted.map((i) => contactKeyText({ a: i % 50, b: -1, feature: `f${i}` })),
      frames.length,
    );
    wanted.forEach((i, w) => {
      const s = got[w];
      assert.deepEqual(s.index, [0, 1, 2, 3, 4]);
      frames.forEach((f, k) => {
        const has = i < f.contacts.length;
        const lam = f.solver.lambda;
        assert.equal(s.lambdaN[k], has ? lam[3 * i] : null, `contact f${i}, frame ${k}: λn`);
        assert.equal(s.lambdaT[k], has ? Math.hypot(lam[3 * i + 1], lam[3 * i + 2]) : null, `contact f${i}, frame ${k}: ‖λt‖`);
      });
    });
    // a key never seen: no values
    assert.deepEqual(cols.series(['1|-1|nope'], frames.length)[0].lambdaN, [null, null, null, null, null]);
  });

  it('the injected joules of each frame are the map the diagnosis gave (same entries, same order), also across storage blocks', () => {
    const cols = new InjectedColumns();
    const maps: Map<number, number>[] = [];
    // 6 frames of 0, 3, 70 000, 0, 50 000, 1 injecting contacts (blocks of 65 536 entries)
    for (const [k, size] of [0, 3, 70_000, 0, 50_000, 1].entries()) {
      const m = new Map<number, number>();
      for (let j = 0; j < size; j++) m.set((j * 7919 + k) % 200_003, (j + 1) * 1e-6 + k);
      maps.push(m);
      cols.add(m);
    }
    maps.forEach((m, i) => {
      const got = cols.frame(i);
      if (m.size === 0) assert.equal(got, null, `frame ${i}: no contact injected`);
      else assert.deepEqual([...got!], [...m], `frame ${i}`);
    });
    assert.equal(cols.frame(6), null, 'past the last frame');
  });
});
