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

/** A body pair as one number (body indices are below 2³⁰; −1 is the static world). */
const pairNumber = (c: { readonly a: number; readonly b: number }): number => (c.a + 1) * 1073741824 + (c.b + 1);

interface Track {
  depth: number[];
  lambda: number[];
  reported: Set<NonPhysicalKind>;
  frame: number;
}

const key = (c: RecordedFrame['contacts'][number]): string | undefined => (c.feature === undefined ? undefined : `${c.a}|${c.b}|${c.feature}`);

export class NonPhysicalDetector {
  private tracks = new Map<string, Track>();
  constructor(
    private readonly opt: NonPhysicalOptions,
    private readonly convexSolver: boolean,
  ) {}

  /** Events of frame f; `ledger` per contact (null without pre-solve state: only the λ-only checks run). */
  events(f: RecordedFrame, ledger: readonly ContactLedger[] | null): NonPhysicalEvent[] {
    const out: NonPhysicalEvent[] = [];
    const lam = f.solver.lambda,
      tol = this.opt.speedTolerance;
    // engines that solve friction per manifold (Box2D v3, Rapier, Jolt) may exceed the cone at one point while
    // the manifold's total friction Σ‖λt‖ ≤ μΣλn holds: the cone is checked per body pair
    const pair = new Map<number, { n: number; t: number; mu: number }>();
    f.contacts.forEach((ct, c) => {
      const k = pairNumber(ct),
        p = pair.get(k) ?? { n: 0, t: 0, mu: 0 };
      p.n += Math.max(0, lam[3 * c]);
      p.t += Math.hypot(lam[3 * c + 1], lam[3 * c + 2]);
      p.mu = Math.max(p.mu, ct.mu);
      pair.set(k, p);
    });
    f.contacts.forEach((ct, c) => {
      const ln = lam[3 * c],
        lt = Math.hypot(lam[3 * c + 1], lam[3 * c + 2]);
      const manifold = pair.get(pairNumber(ct))!;
      const manifoldOk = manifold.t <= manifold.mu * manifold.n * (1 + CONE_TOLERANCE) + 1e-12;
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
      const k = key(ct);
      if (k === undefined) return;
      const old = this.tracks.get(k);
      let t = old;
      if (!t || t.frame !== f.frame - 1) {
        t = { depth: [], lambda: [], reported: new Set(), frame: f.frame };
        this.tracks.set(k, t);
      }
      t.frame = f.frame;
      t.depth.push(ct.depth);
      if (t.depth.length > PENETRATION_WINDOW + 1) t.depth.shift();
      t.lambda.push(ln);
      if (t.lambda.length > JITTER_WINDOW) t.lambda.shift();
      if (t.depth.length === PENETRATION_WINDOW + 1 && !t.reported.has('penetration-growth')) {
        let rising = true;
        for (let i = 1; i < t.depth.length; i++)
          if (!(t.depth[i] > t.depth[i - 1])) {
            rising = false;
            break;
          }
        const growth = t.depth[t.depth.length - 1] - t.depth[0];
        if (rising && growth > this.opt.penetrationGrowth) {
          t.reported.add('penetration-growth');
          out.push({
            kind: 'penetration-growth',
            severity: 'warning',
            contact: c,
            text: `the penetration grew in each of the last ${PENETRATION_WINDOW} frames, by ${(growth * 1000).toPrecision(3)} mm to ${(ct.depth * 1000).toPrecision(3)} mm: the contact sinks (stabilisation too weak or the normal impulse too small)`,
          });
        }
      }
      if (t.lambda.length === JITTER_WINDOW && !t.reported.has('jitter') && (!L || (L.slip < 10 * tol && Math.abs(L.separation) < 10 * tol))) {
        let reversals = 0,
          mean = 0,
          lo = Infinity,
          hi = -Infinity;
        for (let i = 0; i < t.lambda.length; i++) {
          mean += t.lambda[i] / t.lambda.length;
          lo = Math.min(lo, t.lambda[i]);
          hi = Math.max(hi, t.lambda[i]);
        }
        for (let i = 2; i < t.lambda.length; i++) if ((t.lambda[i] - t.lambda[i - 1]) * (t.lambda[i - 1] - t.lambda[i - 2]) < 0) reversals++;
        if (reversals >= JITTER_REVERSALS && mean > 0 && hi - lo > JITTER_AMPLITUDE * mean) {
          t.reported.add('jitter');
          out.push({
            kind: 'jitter',
            severity: 'info',
            contact: c,
            text: `λn alternated up and down ${reversals} times in ${JITTER_WINDOW} frames between ${lo.toPrecision(3)} and ${hi.toPrecision(3)} N·s while the contact is at rest: the solve does not settle (warm starting, iteration count, or redundant contacts)`,
          });
        }
      }
    });
    // contacts that ended: forget them now and then (their tracks restart if they come back)
    if (f.frame % 64 === 0) for (const [k, t] of this.tracks) if (t.frame < f.frame) this.tracks.delete(k);
    return out;
  }
}
