/**
 * Warm-start cache (src/engine/world/contactCache.ts; Catto 2005): λ carries over for the same body pair and
 * feature with a normal within 15°, and only for one frame.
 */
import assert from 'node:assert/strict';
import { CACHE_NORMAL_COS, ContactCache, type CacheKeyed } from '../../src/engine/world/contactCache.js';
import type { Vec3 } from '../../src/engine/math/vec3.js';

const c = (bodyA: number, bodyB: number, featureId: string | undefined, normal: Vec3 = [0, 0, 1]): CacheKeyed => ({ bodyA, bodyB, featureId, normal });

describe('contact cache', () => {
  it('carries λ for the same pair and feature, not for another feature, pair order or a normal turned beyond 15°', () => {
    const cache = new ContactCache();
    cache.store([c(1, 0, 'a.vertex3'), c(1, 0, 'a.vertex5'), c(2, 1, undefined)], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    cache.expire();
    const turned = Math.acos(CACHE_NORMAL_COS) + 1e-3; // just beyond 15°
    const warm = cache.warmStart([
      c(1, 0, 'a.vertex5'),
      c(1, 0, 'a.vertex3', [Math.sin(turned), 0, Math.cos(turned)]),
      c(0, 1, 'a.vertex3'),
      c(1, 0, 'a.vertex7'),
      c(2, 1, undefined, [Math.sin(0.2), 0, Math.cos(0.2)]),
    ]);
    assert.deepEqual([...(warm ?? [])], [4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 8, 9]);
  });

  it('keeps body pairs apart on both sides of the small-index key range (2¹⁵) and for the static world (−1)', () => {
    const pairs: [number, number][] = [
      [0, -1],
      [1, -1],
      [0, 32766],
      [0, 32767],
      [1, 32766],
      [32767, -1],
      [32767, 32766],
      [32768, -1],
      [32768, 0],
      [0, 32768],
      [40000, 39999],
      [3, 70000],
      [70000, 3],
    ];
    const cache = new ContactCache();
    cache.store(
      pairs.map(([a, b]) => c(a, b, 'f')),
      pairs.flatMap((_, k) => [k + 1, 0, 0]),
    );
    cache.expire();
    const warm = cache.warmStart([...pairs].reverse().map(([a, b]) => c(a, b, 'f')));
    assert.deepEqual(
      [...(warm ?? [])].filter((_, i) => i % 3 === 0),
      pairs.map((_, k) => pairs.length - k),
    );
  });

  it('keeps the last λ stored for a contact in a frame, and forgets contacts not stored in the next one', () => {
    const cache = new ContactCache();
    cache.store([c(3, 0, 'f')], [1, 0, 0]);
    cache.store([c(3, 0, 'f')], [2, 0, 0]);
    cache.expire();
    assert.deepEqual([...(cache.warmStart([c(3, 0, 'f')]) ?? [])], [2, 0, 0]);
    cache.store([c(4, 0, 'g')], [5, 0, 0]);
    cache.expire();
    assert.equal(cache.warmStart([c(3, 0, 'f')]), undefined);
    assert.deepEqual([...(cache.warmStart([c(4, 0, 'g')]) ?? [])], [5, 0, 0]);
  });

  it('grows past its first capacity: 1000 contacts of 1000 pairs all come back', () => {
    const cache = new ContactCache();
    const cs = Array.from({ length: 1000 }, (_, i) => c(i + 1, 0, `v${i % 7}`));
    const lambda = Float64Array.from({ length: 3000 }, (_, k) => k + 0.5);
    cache.store(cs, lambda);
    cache.expire();
    assert.deepEqual([...(cache.warmStart(cs) ?? [])], [...lambda]);
  });
});
