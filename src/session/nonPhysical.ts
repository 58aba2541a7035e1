/**
 * Non-physical behaviour that is not (yet) an energy gain (docs/physics.md, "Non-physical behaviour"):
 *   convex-lift           λn > 0 while the contact separates at μ‖v_t‖: the convex (QP-SOCP) friction model's
 *                         w_n = μ‖w_t‖ (Anitescu 2006; Acary, Brémond & Huber 2018 — sliding implies separation);
 *   separating-with-impulse  λn > 0 while separating above the law (complementarity 0 ≤ λn ⊥ ġn⁺ − target ≥ 0 broken);
 *   cone-violation        ‖λt‖ > μλn (Coulomb's cone);
 *   friction-along-slip   the friction impulse has a component along the post-step slip (maximal dissipation:
 *                         λt = −μλn·v_t/‖v_t‖ for a sliding contact);
 *   penetration-growth    the same contact (matched by feature id) sinks deeper frame after frame;
 *   jitter                λn of a contact at rest alternates up and down frame after frame.
 */
import type { RecordedFrame } from '../format/recording.js';
import type { ContactLedger } from './frameLedger.js';
import { ContactKeyTable } from './contactKeys.js';
import { hypot2Exact } from '../engine/index.js';

export type NonPhysicalKind = 'convex-lift' | 'separating-with-impulse' | 'cone-violation' | 'friction-along-slip' | 'penetration-growth' | 'jitter';
export type Severity = 'error' | 'warning' | 'info';

export interface NonPhysicalEvent {
  readonly kind: NonPhysicalKind;
  readonly severity: Severity;
  readonly contact: number;
  readonly text: string;
}

export interface NonPhysicalOptions {
  readonly speedTolerance: number;
  /** Penetration growth (m) over PENETRATION_WINDOW frames that is reported. */
  readonly penetrationGrowth: number;
  /** Judge friction per contact (cone, direction); false when the writer fitted λt. */
  readonly judgeFriction: boolean;
}

/** Relative tolerance of the cone test ‖λt‖ ≤ μλn (above rounding of a writer's float32 or solver tolerance). */
export const CONE_TOLERANCE = 1e-3;
/** A contact whose depth rose in each of this many consecutive frames is checked for growth. */
export const PENETRATION_WINDOW = 10;
/** Frames of λn history examined for jitter, and how many direction reversals make it jitter. */
export const JITTER_WINDOW = 12;
export const JITTER_REVERSALS = 9;
/** Relative amplitude of the λn oscillation (to its mean) below which it is not jitter. */
export const JITTER_AMPLITUDE = 0.25;
/**
 * A frame-to-frame change of λn counts towards a reversal only above this fraction of the mean: round-off
 * (λn constant to ~1e-15 while a box slides) is no alternation, and one real change is not an oscillation.
 */
export const JITTER_STEP = 0.05;

/** Slots of track storage grown at a time; a slot is freed when its contact ends. */
const TRACK_SLOTS_CHUNK = 1024;
const DEPTH_RING = PENETRATION_WINDOW + 1;
/** Kinds a contact's track reports once per track (NonPhysicalDetector.onReport). */
const REPORTED_GROWTH = 1,
  REPORTED_JITTER = 2;
/** Frames of a contact's history its track examines at most: a diagnosis begun this many frames early has it all. */
export const TRACK_HISTORY = Math.max(DEPTH_RING, JITTER_WINDOW);

/** One contact's last depths and λn, read by events (ContactTracks.depths, lambdas). */
const depthWindow = new Float64Array(DEPTH_RING),
  lambdaWindow = new Float64Array(JITTER_WINDOW);

/**
 * Per-contact history (depth and λn over the last frames) in flat typed arrays, one slot per live contact:
 * no object per contact and frame. A contact's track restarts when it skips a frame.
 */
class ContactTracks {
  /** Slot of each contact id (−1: none). */
  private slotOf = new Int32Array(0);
  private idOf = new Int32Array(0);
  private frame = new Int32Array(0);
  private count = new Int32Array(0);
  private reported = new Uint8Array(0);
  private depth = new Float64Array(0);
  private lambda = new Float64Array(0);
  private free: number[] = [];
  private slots = 0;

  /** The slot of contact `id` seen in frame `frame`, its history cleared if it missed the previous frame. */
  slot(id: number, frame: number): number {
    if (id >= this.slotOf.length) {
      const s = new Int32Array(Math.max(id + 1, 2 * this.slotOf.length)).fill(-1);
      s.set(this.slotOf);
      this.slotOf = s;
    }
    let k = this.slotOf[id];
    if (k < 0) {
      k = this.free.pop() ?? this.grow();
      this.slotOf[id] = k;
      this.idOf[k] = id;
      this.count[k] = 0;
      this.reported[k] = 0;
    } else if (this.frame[k] !== frame - 1) {
      this.count[k] = 0;
      this.reported[k] = 0;
    }
    this.frame[k] = frame;
    return k;
  }

  /** Appends this frame's depth and λn; returns the number of frames held (capped at the longest window). */
  push(k: number, depth: number, lambda: number): number {
    const n = this.count[k];
    this.depth[k * DEPTH_RING + (n % DEPTH_RING)] = depth;
    this.lambda[k * JITTER_WINDOW + (n % JITTER_WINDOW)] = lambda;
    this.count[k] = n + 1;
    return n + 1;
  }

  /**
   * The last DEPTH_RING depths into `out`, oldest first; requires count ≥ DEPTH_RING. Copied, not read one by one
   * through a method: a double returned from a call that is not inlined is a heap number (every tracked contact
   * of every frame reads its window).
   */
  depths(k: number, out: Float64Array): void {
    this.window(this.depth, DEPTH_RING, k, out);
  }

  /** The last JITTER_WINDOW λn into `out`, oldest first; requires count ≥ JITTER_WINDOW (see depths). */
  lambdas(k: number, out: Float64Array): void {
    this.window(this.lambda, JITTER_WINDOW, k, out);
  }

  /** Slot k's ring of `size` values in `rings`, oldest first, into out. */
  private window(rings: Float64Array, size: number, k: number, out: Float64Array): void {
    const n = this.count[k];
    for (let i = 0; i < size; i++) out[i] = rings[k * size + ((n - size + i) % size)];
  }

  isReported(k: number, bit: number): boolean {
    return (this.reported[k] & bit) !== 0;
  }

  /** Contact `id`'s track was seen in frame `frame` and has reported kind `bit`. */
  reportedAt(id: number, frame: number, bit: number): boolean {
    const k = id < this.slotOf.length ? this.slotOf[id] : -1;
    return k >= 0 && this.frame[k] === frame && this.isReported(k, bit);
  }

  /** Marks a kind as reported for this track (once per track). */
  report(k: number, bit: number): void {
    this.reported[k] |= bit;
  }

  /** Frees the slots of contacts not seen since `frame` (their tracks restart if they come back). */
  sweep(frame: number): void {
    for (let k = 0; k < this.slots; k++)
      if (this.slotOf[this.idOf[k]] === k && this.frame[k] < frame) {
        this.slotOf[this.idOf[k]] = -1;
        this.free.push(k);
      }
  }

  private grow(): number {
    const old = this.slots,
      cap = old + TRACK_SLOTS_CHUNK;
    const ext = <T extends Int32Array | Uint8Array | Float64Array>(a: T, per: number): T => {
      const b = new (a.constructor as new (n: number) => T)(cap * per);
      b.set(a);
      return b;
    };
    this.idOf = ext(this.idOf, 1);
    this.frame = ext(this.frame, 1);
    this.count = ext(this.count, 1);
    this.reported = ext(this.reported, 1);
    this.depth = ext(this.depth, DEPTH_RING);
    this.lambda = ext(this.lambda, JITTER_WINDOW);
    for (let k = cap - 1; k > old; k--) this.free.push(k);
    this.slots = cap;
    return old;
  }
}

/** Per-manifold friction sums of one frame (body pair → slot), reused frame to frame. */
class ManifoldSums {
  readonly slot = new Map<number, number>();
  n = new Float64Array(64);
  t = new Float64Array(64);
  mu = new Float64Array(64);
  reset(contacts: number): void {
    this.slot.clear();
    if (this.n.length < contacts) {
      this.n = new Float64Array(contacts);
      this.t = new Float64Array(contacts);
      this.mu = new Float64Array(contacts);
    }
  }
  add(pair: number, n: number, t: number, mu: number): void {
    let k = this.slot.get(pair);
    if (k === undefined) {
      k = this.slot.size;
      this.slot.set(pair, k);
      this.n[k] = 0;
      this.t[k] = 0;
      this.mu[k] = 0;
    }
    this.n[k] += n;
    this.t[k] += t;
    if (mu > this.mu[k]) this.mu[k] = mu;
  }
}

export class NonPhysicalDetector {
  private readonly tracks = new ContactTracks();
  private readonly manifolds = new ManifoldSums();
  /** Told each contact id whose track reports a kind (REPORTED_GROWTH, REPORTED_JITTER). */
  onReport: ((id: number, bit: number) => void) | null = null;

  /** Contact `id`'s track was seen in frame `frame` and has reported kind `bit` (once per track). */
  reported(id: number, frame: number, bit: number): boolean {
    return this.tracks.reportedAt(id, frame, bit);
  }
  constructor(
    private readonly opt: NonPhysicalOptions,
    private readonly convexSolver: boolean,
    private readonly keys: ContactKeyTable = new ContactKeyTable(),
  ) {}

  /** Events of frame f; `ledger` per contact (null without pre-solve state: only the λ-only checks run). */
  events(f: RecordedFrame, ledger: readonly ContactLedger[] | null): NonPhysicalEvent[] {
    const out: NonPhysicalEvent[] = [];
    const lam = f.solver.lambda,
      tol = this.opt.speedTolerance;
    // engines that solve friction per manifold (Box2D v3, Rapier, Jolt) may exceed the cone at one point while
    // the manifold's total friction Σ‖λt‖ ≤ μΣλn holds: the cone is checked per body pair
    const pairs = this.manifolds,
      tracks = this.tracks,
      ids = this.keys.ids(f),
      pairOf = this.keys.pairs(f);
    pairs.reset(f.contacts.length);
    for (let c = 0; c < f.contacts.length; c++) pairs.add(pairOf[c], Math.max(0, lam[3 * c]), hypot2Exact(lam[3 * c + 1], lam[3 * c + 2]), f.contacts[c].mu);
    for (let c = 0; c < f.contacts.length; c++) {
      const ct = f.contacts[c];
      const ln = lam[3 * c],
        lt = hypot2Exact(lam[3 * c + 1], lam[3 * c + 2]);
      const m = pairs.slot.get(pairOf[c])!;
      const manifoldOk = pairs.t[m] <= pairs.mu[m] * pairs.n[m] * (1 + CONE_TOLERANCE) + 1e-12;
      if (this.opt.judgeFriction && ln >= 0 && !manifoldOk && lt > ct.mu * ln * (1 + CONE_TOLERANCE) + 1e-12) {
        const over = ln > 0 ? lt / (ct.mu * ln) : Infinity;
        out.push({
          kind: 'cone-violation',
          severity: over > 1.05 ? 'error' : 'warning',
          contact: c,
          text: `‖λt‖ = ${lt.toPrecision(3)} N·s exceeds μλn = ${(ct.mu * ln).toPrecision(3)} N·s${Number.isFinite(over) ? ` (${over.toFixed(3)}×)` : ''}: outside Coulomb's friction cone`,
        });
      }
      const L = ledger?.[c];
      if (L) {
        const above = L.separation - L.target - L.stabilisationSpeed;
        if (ln > 0 && above > 10 * tol) {
          const lift = ct.mu * L.slip;
          if (this.convexSolver && lift > 10 * tol && Math.abs(L.separation - L.target - lift) <= Math.max(10 * tol, 0.05 * lift) + L.stabilisationSpeed) {
            out.push({
              kind: 'convex-lift',
              severity: 'warning',
              contact: c,
              text: `λn = ${ln.toPrecision(3)} N·s > 0 while the contact separates at ${L.separation.toPrecision(3)} m/s = μ‖v_t‖ (μ = ${ct.mu}, slip ${L.slip.toPrecision(3)} m/s): the convex QP-SOCP friction model lifts a sliding contact off (w_n = μ‖w_t‖); Coulomb's law keeps it on the ground — re-solve with a Coulomb (PGS) solver to compare`,
            });
          } else {
            out.push({
              kind: 'separating-with-impulse',
              severity: 'warning',
              contact: c,
              text: `λn = ${ln.toPrecision(3)} N·s > 0 while the contact separates at ${L.separation.toPrecision(3)} m/s, ${above.toPrecision(3)} m/s above its restitution target and stabilisation: complementarity is broken (a pushing contact must not separate faster than its target)`,
            });
          }
        }
        const lt1 = lam[3 * c + 1],
          lt2 = lam[3 * c + 2];
        if (this.opt.judgeFriction && L.slip > 10 * tol && lt > 1e-9) {
          const cosine = L.slipPower / (lt * L.slip);
          if (cosine > 0.1 && (lt1 !== 0 || lt2 !== 0)) {
            out.push({
              kind: 'friction-along-slip',
              severity: 'warning',
              contact: c,
              text: `the friction impulse (${lt1.toPrecision(3)}, ${lt2.toPrecision(3)}) N·s does positive work along the slip of ${L.slip.toPrecision(3)} m/s: friction must oppose sliding (maximal dissipation)`,
            });
          }
        }
      }
      if (ct.feature === undefined) continue; // tracked across frames only by the writer's feature id
      const k = tracks.slot(ids[c], f.frame);
      const held = tracks.push(k, ct.depth, ln);
      if (held >= DEPTH_RING && !tracks.isReported(k, REPORTED_GROWTH)) {
        const d = depthWindow;
        tracks.depths(k, d);
        let rising = true;
        for (let i = 1; i < DEPTH_RING; i++)
          if (!(d[i] > d[i - 1])) {
            rising = false;
            break;
          }
        const growth = d[DEPTH_RING - 1] - d[0];
        if (rising && growth > this.opt.penetrationGrowth) {
          tracks.report(k, REPORTED_GROWTH);
          this.onReport?.(ids[c], REPORTED_GROWTH);
          out.push({
            kind: 'penetration-growth',
            severity: 'warning',
            contact: c,
            text: `the penetration grew in each of the last ${PENETRATION_WINDOW} frames, by ${(growth * 1000).toPrecision(3)} mm to ${(ct.depth * 1000).toPrecision(3)} mm: the contact sinks (stabilisation too weak or the normal impulse too small)`,
          });
        }
      }
      if (held >= JITTER_WINDOW && !tracks.isReported(k, REPORTED_JITTER) && (!L || (L.slip < 10 * tol && Math.abs(L.separation) < 10 * tol))) {
        let reversals = 0,
          mean = 0,
          lo = Infinity,
          hi = -Infinity;
        const w = lambdaWindow;
        tracks.lambdas(k, w);
        for (let i = 0; i < JITTER_WINDOW; i++) {
          const v = w[i];
          mean += v / JITTER_WINDOW;
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
        const step = JITTER_STEP * Math.abs(mean);
        for (let i = 2; i < JITTER_WINDOW; i++) {
          const d1 = w[i - 1] - w[i - 2],
            d2 = w[i] - w[i - 1];
          if (d1 * d2 < 0 && Math.abs(d1) > step && Math.abs(d2) > step) reversals++;
        }
        if (reversals >= JITTER_REVERSALS && mean > 0 && hi - lo > JITTER_AMPLITUDE * mean) {
          tracks.report(k, REPORTED_JITTER);
          this.onReport?.(ids[c], REPORTED_JITTER);
          out.push({
            kind: 'jitter',
            severity: 'info',
            contact: c,
            text: `λn alternated up and down ${reversals} times in ${JITTER_WINDOW} frames between ${lo.toPrecision(3)} and ${hi.toPrecision(3)} N·s while the contact is at rest: the solve does not settle (warm starting, iteration count, or redundant contacts)`,
          });
        }
      }
    }
    // contacts that ended: free their tracks now and then (they restart if the contact comes back)
    if (f.frame % 64 === 0) tracks.sweep(f.frame);
    return out;
  }
}
