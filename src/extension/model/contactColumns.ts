/**
 * The inspector's per-contact λ columns, filled once per frame by the open's streaming pass and read by the
 * contact series (one entry per contact of every frame: its interned key, λn and ‖λt‖).
 */
import type { ContactKeyTable } from '../../session/contactKeys.js';
import type { RecordedFrame } from '../../format/recording.js';
import type { ContactSeries } from '../../protocol/inspector.js';
import { hypot2Exact } from '../../engine/index.js';

/** Points per contact series sent to the webview (long sessions are sampled evenly). */
export const SERIES_MAX_POINTS = 2000;

/** Contact columns of some frames, keyed by local ids into `keys` (ContactColumns.rowsFrom, append). */
export interface ContactRows {
  readonly keys: readonly string[];
  readonly key: Int32Array;
  readonly ln: Float64Array;
  readonly lt: Float64Array;
  /** Entry of each frame's first contact, and the end (from 0). */
  readonly frameStart: Float64Array;
}

/** Injection columns of some frames (InjectedColumns.rowsFrom, append). */
export interface InjectedRows {
  readonly contact: Int32Array;
  readonly joules: Float64Array;
  readonly frameStart: Float64Array;
}

/** Entries per block of ContactColumns (2¹⁶: 1.25 MiB per block of the three columns). */
const CONTACT_BLOCK_BITS = 16;
const CONTACT_BLOCK = 1 << CONTACT_BLOCK_BITS;

/**
 * λn and ‖λt‖ of every contact of every frame, columnar (one entry per contact: its interned key and the
 * two values), so a contact's series is a scan, not a re-read of the recording. 16 bytes + 4 per contact,
 * in fixed blocks of CONTACT_BLOCK entries: growing never copies, and at most one block is unused (a column
 * grown by doubling kept up to 2× the entries, and 3× while it was copied: 63 MiB for the pile's 1.3 million
 * contacts instead of 26).
 */
export class ContactColumns {
  constructor(private readonly keys: Pick<ContactKeyTable, 'ids' | 'find'>) {}
  private key: Int32Array[] = [];
  private ln: Float64Array[] = [];
  private lt: Float64Array[] = [];
  private n = 0;
  /** frameStart[i] … frameStart[i + 1]: the entries of frame i. */
  private frameStart: number[] = [0];

  /** The columns as flat arrays and the key texts by id (the sidecar cache stores them). */
  toCache(texts: readonly string[]): { keys: readonly string[]; arrays: { key: Int32Array; ln: Float64Array; lt: Float64Array; frameStart: Float64Array } } {
    return {
      keys: texts,
      arrays: {
        key: flat(this.key, this.n, Int32Array),
        ln: flat(this.ln, this.n, Float64Array),
        lt: flat(this.lt, this.n, Float64Array),
        frameStart: Float64Array.from(this.frameStart),
      },
    };
  }

  /** Columns read back from toCache() (their contacts found by key text; nothing is added to them). */
  static fromCache(keys: readonly string[], a: { key: Int32Array; ln: Float64Array; lt: Float64Array; frameStart: Float64Array }): ContactColumns {
    const byText = new Map(keys.map((k, i) => [k, i]));
    const c = new ContactColumns({
      ids: () => {
        throw new Error('columns read from a cache take no frames');
      },
      find: (text) => byText.get(text) ?? -1,
    });
    c.key = blocks(a.key);
    c.ln = blocks(a.ln);
    c.lt = blocks(a.lt);
    c.n = a.key.length;
    c.frameStart = Array.from(a.frameStart);
    return c;
  }

  /** The entries of frames `from` … as flat arrays (frameStart from 0), keyed by the key texts of `texts`. */
  rowsFrom(from: number, texts: (id: number) => string): ContactRows {
    const start = this.frameStart[from] ?? this.n;
    const key = flat(this.key, this.n, Int32Array, start);
    const local = new Map<number, number>();
    const keys: string[] = [];
    for (let e = 0; e < key.length; e++) {
      let k = local.get(key[e]);
      if (k === undefined) {
        k = keys.length;
        local.set(key[e], k);
        keys.push(texts(key[e]));
      }
      key[e] = k;
    }
    return {
      keys,
      key,
      ln: flat(this.ln, this.n, Float64Array, start),
      lt: flat(this.lt, this.n, Float64Array, start),
      frameStart: startsFrom(this.frameStart, from),
    };
  }

  /** Appends another's rowsFrom(), its keys given ids by `id` (a new id for a key not seen yet, in the order met). */
  append(r: ContactRows, id: (text: string) => number): void {
    const global = new Int32Array(r.keys.length).fill(-1);
    for (let e = 0; e < r.key.length; e++) {
      const k = r.key[e];
      if (global[k] < 0) global[k] = id(r.keys[k]);
      this.push(global[k], r.ln[e], r.lt[e]);
    }
    for (let f = 1; f < r.frameStart.length; f++) this.frameStart.push(this.frameStart[this.frameStart.length - 1] + r.frameStart[f] - r.frameStart[f - 1]);
  }

  private push(key: number, ln: number, lt: number): void {
    const b = this.n >>> CONTACT_BLOCK_BITS,
      o = this.n & (CONTACT_BLOCK - 1);
    if (b === this.key.length) {
      this.key.push(new Int32Array(CONTACT_BLOCK));
      this.ln.push(new Float64Array(CONTACT_BLOCK));
      this.lt.push(new Float64Array(CONTACT_BLOCK));
    }
    this.key[b][o] = key;
    this.ln[b][o] = ln;
    this.lt[b][o] = lt;
    this.n++;
  }

  add(f: RecordedFrame): void {
    const C = f.contacts.length;
    const lam = f.solver.lambda,
      ids = this.keys.ids(f);
    for (let c = 0; c < C; c++) this.push(ids[c], lam[3 * c], hypot2Exact(lam[3 * c + 1], lam[3 * c + 2]));
    this.frameStart.push(this.n);
  }

  /** λn and ‖λt‖ of each key over the first `frames` frames, sampled every ⌈frames / SERIES_MAX_POINTS⌉ frames (null: absent). */
  series(keys: readonly string[], frames: number): ContactSeries[] {
    const stride = Math.max(1, Math.ceil(frames / SERIES_MAX_POINTS));
    const M = CONTACT_BLOCK - 1;
    return keys.map((key) => {
      const id = this.keys.find(key);
      const s = { key, index: [] as number[], lambdaN: [] as (number | null)[], lambdaT: [] as (number | null)[] };
      for (let i = 0; i < frames; i += stride) {
        let hit = -1;
        for (let e = this.frameStart[i], end = this.frameStart[i + 1]; e < end; e++)
          if (this.key[e >>> CONTACT_BLOCK_BITS][e & M] === id) {
            hit = e;
            break;
          }
        s.index.push(i);
        s.lambdaN.push(hit < 0 ? null : this.ln[hit >>> CONTACT_BLOCK_BITS][hit & M]);
        s.lambdaT.push(hit < 0 ? null : this.lt[hit >>> CONTACT_BLOCK_BITS][hit & M]);
      }
      return s;
    });
  }
}

/** Entries `start` … n − 1 of fixed-size blocks, as one array. */
function flat<T extends Int32Array | Float64Array>(parts: readonly T[], n: number, Type: new (n: number) => T, start = 0): T {
  const out = new Type(Math.max(0, n - start));
  for (let b = 0; b < parts.length; b++) {
    const from = b * CONTACT_BLOCK;
    if (from >= n) break;
    const lo = Math.max(start, from),
      hi = Math.min(n, from + CONTACT_BLOCK);
    if (lo < hi) out.set(parts[b].subarray(lo - from, hi - from) as ArrayLike<number>, lo - start);
  }
  return out;
}

/** Frame starts from frame `from` on, counted from its first entry. */
function startsFrom(frameStart: readonly number[], from: number): Float64Array {
  const base = frameStart[from] ?? frameStart[frameStart.length - 1];
  return Float64Array.from(frameStart.slice(from), (x) => x - base);
}

/** A flat array seen as blocks of CONTACT_BLOCK entries (views, no copy; the last one may be shorter). */
function blocks<T extends Int32Array | Float64Array>(a: T): T[] {
  const out: T[] = [];
  for (let from = 0; from < a.length; from += CONTACT_BLOCK) out.push(a.subarray(from, Math.min(a.length, from + CONTACT_BLOCK)) as T);
  return out;
}

/**
 * Injected joules per contact of every frame (the diagnosis's per-frame map, contact index → J), kept sparse
 * and columnar: 12 bytes per contact that injected, in blocks like ContactColumns. One Map per frame cost
 * ~10 KiB of heap for a frame of 200 injecting contacts (99 MiB for the 10 000-frame synthetic recording).
 */
export class InjectedColumns {
  private contact: Int32Array[] = [];
  private joules: Float64Array[] = [];
  private n = 0;
  /** frameStart[i] … frameStart[i + 1]: the entries of frame i, in the map's order. */
  private frameStart: number[] = [0];

  toCache(): { contact: Int32Array; joules: Float64Array; frameStart: Float64Array } {
    return { contact: flat(this.contact, this.n, Int32Array), joules: flat(this.joules, this.n, Float64Array), frameStart: Float64Array.from(this.frameStart) };
  }

  static fromCache(a: { contact: Int32Array; joules: Float64Array; frameStart: Float64Array }): InjectedColumns {
    const c = new InjectedColumns();
    c.contact = blocks(a.contact);
    c.joules = blocks(a.joules);
    c.n = a.contact.length;
    c.frameStart = Array.from(a.frameStart);
    return c;
  }

  add(byContact: ReadonlyMap<number, number>): void {
    for (const [c, j] of byContact) {
      const b = this.n >>> CONTACT_BLOCK_BITS,
        o = this.n & (CONTACT_BLOCK - 1);
      if (b === this.contact.length) {
        this.contact.push(new Int32Array(CONTACT_BLOCK));
        this.joules.push(new Float64Array(CONTACT_BLOCK));
      }
      this.contact[b][o] = c;
      this.joules[b][o] = j;
      this.n++;
    }
    this.frameStart.push(this.n);
  }

  /** The entries of frames `from` … as flat arrays (frameStart from 0). */
  rowsFrom(from: number): InjectedRows {
    const start = this.frameStart[from] ?? this.n;
    return {
      contact: flat(this.contact, this.n, Int32Array, start),
      joules: flat(this.joules, this.n, Float64Array, start),
      frameStart: startsFrom(this.frameStart, from),
    };
  }

  /** Appends another's rowsFrom(). */
  append(r: InjectedRows): void {
    for (let f = 1; f < r.frameStart.length; f++) {
      const entries = new Map<number, number>();
      for (let e = r.frameStart[f - 1]; e < r.frameStart[f]; e++) entries.set(r.contact[e], r.joules[e]);
      this.add(entries);
    }
  }

  /** Frame i's injected joules by contact index (the map the diagnosis gave, same order), or null when none. */
  frame(i: number): ReadonlyMap<number, number> | null {
    const start = this.frameStart[i],
      end = this.frameStart[i + 1];
    if (start === undefined || end === undefined || end === start) return null;
    const M = CONTACT_BLOCK - 1;
    const out = new Map<number, number>();
    for (let e = start; e < end; e++) out.set(this.contact[e >>> CONTACT_BLOCK_BITS][e & M], this.joules[e >>> CONTACT_BLOCK_BITS][e & M]);
    return out;
  }
}
