/**
 * Contact cache for warm starting (Catto 2005): a contact persists when the same body pair and feature
 * reappear with a normal within 15° of the cached one; its λ is carried over (the solvers restore
 * feasibility by projecting onto the current cone). New contacts start at 0.
 */
import type { ContactPoint } from '../problem.js';
import type { Vec3 } from '../math/vec3.js';

/** cos 15°: a cached contact whose normal turned further is a new contact. */
export const CACHE_NORMAL_COS = Math.cos((15 * Math.PI) / 180);

interface Entry {
  readonly normal: Vec3;
  readonly lambda: Vec3;
}

/** What identifies a cached contact: body pair, feature and normal. */
export type CacheKeyed = Pick<ContactPoint, 'bodyA' | 'bodyB' | 'featureId' | 'normal'>;

const keyOf = (c: CacheKeyed): string => `${c.bodyA}|${c.bodyB}|${c.featureId ?? ''}`;

export class ContactCache {
  private entries = new Map<string, Entry>();

  /** λ⁰ in the 3C layout for these contacts (0 where nothing matches), or undefined if nothing matched. */
  warmStart(contacts: readonly CacheKeyed[]): Float64Array | undefined {
    const out = new Float64Array(3 * contacts.length);
    let hits = 0;
    contacts.forEach((c, i) => {
      const e = this.entries.get(keyOf(c));
      if (!e) return;
      const cos = e.normal[0] * c.normal[0] + e.normal[1] * c.normal[1] + e.normal[2] * c.normal[2];
      if (cos < CACHE_NORMAL_COS) return;
      out[3 * i] = e.lambda[0];
      out[3 * i + 1] = e.lambda[1];
      out[3 * i + 2] = e.lambda[2];
      hits++;
    });
    return hits > 0 ? out : undefined;
  }

  /** Replaces the cache content of these contacts (entries not seen this frame expire at `expire`). */
  store(contacts: readonly CacheKeyed[], lambda: ArrayLike<number>): void {
    contacts.forEach((c, i) => this.next.set(keyOf(c), { normal: c.normal, lambda: [lambda[3 * i], lambda[3 * i + 1], lambda[3 * i + 2]] }));
  }

  /** Ends a frame: only the contacts stored during it survive (disappeared contacts expire). */
  expire(): void {
    this.entries = this.next;
    this.next = new Map();
  }

  private next = new Map<string, Entry>();
}
