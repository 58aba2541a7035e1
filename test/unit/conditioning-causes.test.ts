import assert from 'node:assert/strict';
import { assembleProblem } from '../../src/engine/assembly.js';
import { conditioning } from '../../src/engine/conditioning.js';
import { conditioningCauses } from '../../src/engine/conditioningCauses.js';
import { body, contact, staticBody } from './helpers.js';

describe('conditioning causes', () => {
  it('names the mass ratio, the duplicated contact and the four redundant corners', () => {
    const bodies = [body(0.1, 0.1 / 6, [0, 0, 0.5]), body(100, 100 / 6, [0, 0, 1.5]), staticBody()];
    const corners = [
      [-0.5, -0.5],
      [0.5, -0.5],
      [0.5, 0.5],
      [-0.5, 0.5],
    ];
    const cs = [
      ...corners.map(([x, y]) => contact(1, 0, [x, y, 1], [0, 0, 1], 0.5)),
      contact(0, -1, [0, 0, 0], [0, 0, 1], 0.5),
      contact(0, -1, [0, 0, 0], [0, 0, 1], 0.5),
    ];
    const p = assembleProblem(bodies, cs);
    const causes = conditioningCauses(p, conditioning(p.A, p.size, { regularization: 1e-10 }));
    const kinds = causes.map((c) => c.kind).sort();
    assert.deepEqual(kinds, ['duplicate-rows', 'mass-ratio', 'redundant-contacts']);
    assert.deepEqual(causes.find((c) => c.kind === 'duplicate-rows')!.contacts, [4, 5]);
    assert.match(causes.find((c) => c.kind === 'mass-ratio')!.message, /1:1\.00e\+3/);
  });
  it('says "rank deficiency from coplanar contacts" for four corners on one face, not for four points off one plane', () => {
    const bodies = [body(1, 1 / 6, [0, 0, 0.5]), staticBody()];
    const onFace = [
      [-0.5, -0.5, 0],
      [0.5, -0.5, 0],
      [0.5, 0.5, 0],
      [-0.5, 0.5, 0],
    ].map((pt) => contact(0, -1, pt as [number, number, number], [0, 0, 1], 0.5));
    const p = assembleProblem(bodies, onFace);
    const cond = conditioning(p.A, p.size, { regularization: 1e-10 });
    assert.equal(cond.rankDeficiency, 6);
    assert.ok(Number.isFinite(cond.kappaRange) && cond.kappaRange < 1e3, `κ_range ${cond.kappaRange}`);
    const cause = conditioningCauses(p, cond).find((c) => c.kind === 'redundant-contacts');
    assert.match(cause!.message, /^rank deficiency from coplanar contacts: 4 contacts/);
    // The same four contacts at staggered heights (a tilted support) are redundant but not coplanar.
    const staggered = onFace.map((c, i) => ({ ...c, point: [c.point[0], c.point[1], 0.2 * i] as [number, number, number] }));
    const q = assembleProblem(bodies, staggered);
    const other = conditioningCauses(q, conditioning(q.A, q.size, { regularization: 1e-10 })).find((c) => c.kind === 'redundant-contacts');
    assert.ok(other, 'the staggered contacts are still redundant (rank deficiency 6)');
    assert.doesNotMatch(other.message, /coplanar/);
  });
  it('reports nothing for one well-conditioned contact', () => {
    const p = assembleProblem([body(1, 1, [0, 0, 0.5]), staticBody()], [contact(0, -1, [0.1, 0, 0], [0, 0, 1], 0.5)]);
    assert.deepEqual(conditioningCauses(p, conditioning(p.A, p.size)), []);
  });
});
