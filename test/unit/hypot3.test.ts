/** hypot3, hypot4 and hypot2Exact return exactly Math.hypot (V8's algorithm written out, math/hypot.ts) without its allocation. */
import assert from 'node:assert/strict';
import { hypot2Exact, hypot3, hypot4 } from '../../src/engine/math/hypot.js';

describe('hypot3, hypot4, hypot2Exact', () => {
  it('equals Math.hypot bit for bit on unit-scale, tiny, huge, mixed-scale and special inputs', () => {
    let seed = 12345;
    const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    const cases: [number, number, number][] = [
      [0, 0, 0],
      [-0, 0, -0],
      [3, 4, 12],
      [1e308, 1e308, 1e308],
      [5e-324, 0, 0],
      [1e-200, 1e-200, 1e-200],
      [NaN, 1, 2],
      [Infinity, NaN, 1],
      [-Infinity, 0, 0],
      [1, 1e-17, 1e-17],
    ];
    for (let i = 0; i < 20000; i++) {
      const scale = 10 ** Math.round(rand() * 30);
      cases.push([rand() * scale, rand(), i % 7 === 0 ? 0 : rand() * 1e-3]);
      cases.push([rand(), rand(), rand()]);
    }
    for (const [x, y, z] of cases) {
      assert.ok(Object.is(hypot3(x, y, z), Math.hypot(x, y, z)), `${x}, ${y}, ${z}: ${hypot3(x, y, z)} vs ${Math.hypot(x, y, z)}`);
      assert.ok(Object.is(hypot2Exact(x, y), Math.hypot(x, y)), `${x}, ${y}: ${hypot2Exact(x, y)} vs ${Math.hypot(x, y)}`);
      assert.ok(Object.is(hypot2Exact(y, z), Math.hypot(y, z)), `${y}, ${z}: ${hypot2Exact(y, z)} vs ${Math.hypot(y, z)}`);
      for (const u of [x, -y, z * 1e5, 0.5]) assert.ok(Object.is(hypot4(x, y, z, u), Math.hypot(x, y, z, u)), `${x}, ${y}, ${z}, ${u}`);
    }
  });
});
