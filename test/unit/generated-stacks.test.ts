/** The generated stacks of bench/stacks.ts (the exact solvers' hard cases: up to 60 contacts, mass ratio 1e4, duplicated contacts) have the stated properties, and IPM solves them. */
import assert from 'node:assert/strict';
import { generatedStacks, STACK_MAX_CONTACTS } from '../../bench/stacks.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { kkt } from '../../src/engine/kkt.js';

describe('generated stacks (bench/stacks.ts)', () => {
  const stacks = generatedStacks();

  it('60 towers of ≤ 60 contacts, with mass ratios up to ~1e4, duplicated contacts and frictionless ones', () => {
    assert.equal(stacks.length, 60);
    let maxRatio = 0,
      withDuplicates = 0,
      frictionless = 0;
    for (const s of stacks) {
      const p = s.problem;
      assert.ok(p.contactCount <= STACK_MAX_CONTACTS, `${s.id}`);
      assert.equal(s.previous.contactCount, p.contactCount);
      const inv = p.physics!.bodies.filter((b) => b.invMass > 0).map((b) => b.invMass);
      maxRatio = Math.max(maxRatio, Math.max(...inv) / Math.min(...inv));
      const pts = p.contacts!.map(({ contact: c }) => `${c.bodyA}|${c.point.join(',')}`);
      if (new Set(pts).size < pts.length) withDuplicates++;
      if (Array.from(p.mu).every((m) => m === 0)) frictionless++;
    }
    assert.ok(maxRatio > 1e3 && maxRatio <= 1e4, `largest mass ratio ${maxRatio}`);
    assert.equal(withDuplicates, 20); // every i ≡ 1 (mod 3)
    assert.equal(frictionless, 15);
  });

  it('the second frame differs from the first (a warm start is not the answer)', () => {
    const s = stacks[12];
    let db = 0;
    for (let i = 0; i < s.problem.size; i++) db = Math.max(db, Math.abs(s.problem.b[i] - s.previous.b[i]));
    assert.ok(db > 1e-4, `max |Δb| ${db}`);
  });

  it('IPM reaches KKT ≤ 1e-10 on the largest ones (reference for bench:oracle)', () => {
    for (const i of [13, 14, 25, 57, 58]) {
      const r = solve(stacks[i].problem, { solver: 'ipm' });
      assert.equal(r.status.kind, 'converged', `${stacks[i].id}: ${JSON.stringify(r.status)}`);
      assert.ok(kkt(stacks[i].problem, r.lambda).maxRel <= 1e-10);
    }
  });
});
