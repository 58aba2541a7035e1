/**
 * The inverse problem per contact (docs/physics.md "Which law the impulses obey"): from the recorded λ and the
 * velocities before and after it, what each contact actually enforced — its normal target (ġn⁺ where λn > 0)
 * and its friction regime — matched against the candidate laws an engine may implement:
 *   restitution              ġn⁺ = −e·ġn⁻ above the rest threshold, 0 below (Newton's law; also with another
 *                            threshold, or on the approach before gravity's velocity update: both are the law);
 *   restitution-overshoot    ġn⁺ = −(1+e)·ġn⁻ (the target written as the velocity change instead of the target);
 *   stabilisation            + (ERP/Δt)·max(0, depth − slop), as declared (Baumgarte; Catto, GDC 2005);
 *   baumgarte                + k·max(0, depth − slop)/Δt, k fitted over the island (an ERP other than declared);
 *   baumgarte-no-slop        + k·depth/Δt, k fitted (the bias applied below the declared slop);
 *   spring                   ≤ + h·k·depth + max(0, h·c − 1)·approach, a declared soft contact (Todorov 2014);
 *   push-out                 ≤ + depth/Δt, or a contact that persists (an undeclared one-step push-out or spring);
 *   convex-lift              + μ‖ġt⁺‖, the convex QP-SOCP model's w_n = μ‖w_t‖ (Anitescu 2006);
 *   speculative              = −gap/Δt for a contact not yet touching (Catto, "Speculative contacts", 2013).
 * Parameter-free laws are tried first; a fitted k must be one value for the island's contacts (an engine has one
 * ERP) and lie in (0, K_MAX]. A contact no law fits is 'none': the attribution then asks whether the island's
 * solve was truncated (continuation.ts), and never guesses a mechanism.
 */
import type { SoftContactParameters } from '../../format/recording.js';
import type { StabilisationModel } from '../frameLedger.js';
import { softPushSpeed } from '../frameLedger.js';
import type { InjectionMechanism } from './findings.js';

export type NormalLaw =
  | 'restitution'
  | 'restitution-overshoot'
  | 'stabilisation'
  | 'baumgarte'
  | 'baumgarte-no-slop'
  | 'spring'
  | 'push-out'
  | 'convex-lift'
  | 'speculative'
  | 'open'
  | 'none';

/** The injection mechanism of the energy a contact obeying each law puts above Newton's law (null: none). */
export const LAW_MECHANISM: Record<NormalLaw, InjectionMechanism | null> = {
  restitution: null,
  'restitution-overshoot': 'restitution-overshoot',
  stabilisation: 'bias-injection',
  baumgarte: 'bias-injection',
  'baumgarte-no-slop': 'bias-injection',
  spring: 'bias-injection',
  'push-out': 'bias-injection',
  'convex-lift': 'socp-separation',
  speculative: null,
  open: null,
  none: null,
};

/** Laws whose energy is a position correction through the velocity (bias, spring, push-out). */
export const STABILISATION_LAWS: ReadonlySet<NormalLaw> = new Set(['stabilisation', 'baumgarte', 'baumgarte-no-slop', 'spring', 'push-out']);

/**
 * stick: inside the cone and not slipping; slide: on the cone's edge against the slip (maximal dissipation);
 * slide-along: a component along the post-step slip (positive power); slip-inside-cone: slipping although
 * ‖λt‖ < μλn (Coulomb's law says stick); outside-cone: ‖λt‖ > μλn; none: λn = 0 or μ = 0.
 */
export type FrictionRegime = 'none' | 'stick' | 'slide' | 'slide-along' | 'slip-inside-cone' | 'outside-cone';

export interface ContactLaw {
  readonly normal: NormalLaw;
  /** Fitted ERP-like k of the Baumgarte laws (fraction of the depth per step); else undefined. */
  readonly k?: number;
  /** The normal speed the contact enforced: ġn⁺ (m/s). */
  readonly enforced: number;
  /** The law's target (m/s), and |enforced − target| (m/s; 0 for laws that bound rather than set it). */
  readonly predicted: number;
  readonly residual: number;
  /** Newton's law target in the variant that fits (threshold, before gravity), else the declared one (m/s). */
  readonly reference: number;
  /** The part of `predicted` above `reference` that is stabilisation (m/s): the rest is the law's own target. */
  readonly stabilisation: number;
  /** Laws that bound the speed rather than set it (spring, push-out): the largest speed they allow (m/s). */
  readonly bound?: number;
  readonly friction: FrictionRegime;
  /** ‖λt‖ / (μλn); NaN when λn ≤ 0 or μ = 0. */
  readonly coneRatio: number;
}

/** What the fit reads per contact (the ledger's kinematics and the recorded contact). */
export interface ContactObservation {
  readonly lambdaN: number;
  readonly lambdaT: number;
  /** ġn⁺ (m/s). */
  readonly separation: number;
  /** −ġn⁻ (m/s). */
  readonly approach: number;
  /** Potential-energy-per-impulse of the normal row, p = −Δt·g·J_lin (m/s): ġn at the step's start is ġn⁻ + p. */
  readonly pNormal: number;
  /** ‖ġt⁺‖ (m/s). */
  readonly slip: number;
  /** λt·ġt⁺ (W·s/m … the sign is what matters). */
  readonly slipPower: number;
  readonly frictionWork: number;
  readonly depth: number;
  /** Speculative contact: the distance between the surfaces (m, > 0; depth is then 0), else 0. */
  readonly gap: number;
  readonly e: number;
  readonly mu: number;
  /** The contact existed in the previous frame (its body pair was touching). */
  readonly persistent: boolean;
  readonly soft?: SoftContactParameters;
}

export interface FitSettings {
  readonly dt: number;
  readonly restVelocityThreshold: number;
  readonly speedTolerance: number;
  readonly model: StabilisationModel;
  /** The convex QP-SOCP model is plausible (declared, or not excluded by the header). */
  readonly convexPlausible: boolean;
  /** Per-point friction impulses are the engine's (not a writer's fit): their regime is evidence. */
  readonly judgeFriction: boolean;
}

/**
 * Relative tolerance of a law's fit, of the contact's speed scale (float32 writers ~1e-7, solvers stopped at a
 * KKT tolerance of ~1e-3; the laws told apart differ by ≥ 10 % of the approach speed).
 */
export const FIT_RELATIVE = 0.005;
/**
 * Range of a fitted ERP-like k: more than a full depth per step, or less than 2 % of it, is not a stabilisation
 * any engine uses (ODE, Bullet and Box2D default to 0.2; Bullet's contact ERP is up to 0.8).
 */
export const K_MAX = 1.25;
export const K_MIN = 0.02;
/** λn at most this fraction of the island's largest λn is zero (rounding of a solver's clamp). */
export const ACTIVE_LAMBDA = 1e-9;
/** A fitted k within this relative distance of the declared ERP is the declared stabilisation. */
export const K_DECLARED_MATCH = 0.05;
/** Relative tolerance of the cone ratio (float32 writers, solver tolerances). */
export const CONE_RATIO_TOLERANCE = 1e-3;

/** max(speedTolerance, FIT_RELATIVE · max|speeds|) of up to three speeds (no rest parameters: called per candidate). */
function fitTolerance(s: FitSettings, a: number, b: number, c = 0): number {
  let m = 0;
  m = Math.max(m, Math.abs(a));
  m = Math.max(m, Math.abs(b));
  m = Math.max(m, Math.abs(c));
  return Math.max(s.speedTolerance, FIT_RELATIVE * m);
}

/**
 * Newton's law's target as declared: −e·ġn⁻ above the rest threshold, 0 below; a speculative contact may
 * approach by its gap: −gap/Δt, no restitution (Catto, "Speculative contacts", 2013).
 */
export function newtonTarget(o: ContactObservation, s: FitSettings): number {
  if (o.gap > 0) return -o.gap / s.dt;
  return o.approach > s.restVelocityThreshold ? o.e * o.approach : 0;
}

/** The friction regime of one contact (see FrictionRegime). */
export function frictionRegime(o: ContactObservation, s: FitSettings): { regime: FrictionRegime; ratio: number } {
  if (!(o.lambdaN > 0) || !(o.mu > 0)) return { regime: 'none', ratio: Number.NaN };
  const ratio = o.lambdaT / (o.mu * o.lambdaN);
  // positive power along the post-step slip: beyond rounding of λt·ġt⁺ relative to ‖λt‖·‖ġt⁺‖
  if (o.slip > s.speedTolerance && o.slipPower > 1e-6 * o.lambdaT * o.slip && o.frictionWork > 0) return { regime: 'slide-along', ratio };
  if (ratio > 1 + CONE_RATIO_TOLERANCE) return { regime: 'outside-cone', ratio };
  if (o.slip <= s.speedTolerance) return { regime: 'stick', ratio };
  return { regime: ratio >= 1 - 0.02 ? 'slide' : 'slip-inside-cone', ratio };
}

interface Candidate {
  readonly law: NormalLaw;
  readonly predicted: number;
  readonly reference: number;
  readonly stabilisation: number;
  /** A bound (spring, push-out): any enforced speed between `floor` (default reference) and predicted fits. */
  readonly bound?: boolean;
  readonly floor?: number;
}

/**
 * The best parameter-free candidate of one contact so far (bestParameterFree): the first candidate, in the order
 * they are listed, with the smallest residual within its fit tolerance. One module-level record, filled as the
 * candidates are enumerated: the open fits every active contact of every frame, and a list of candidate objects
 * per contact was a tenth of its allocation.
 */
const pick = {
  found: false,
  residual: Number.POSITIVE_INFINITY,
  law: 'restitution' as NormalLaw,
  predicted: 0,
  reference: 0,
  stabilisation: 0,
  bound: false,
  floor: 0,
};

/** One candidate, with its residual and fit tolerance: kept in `pick` when it is the best so far. */
function consider(
  o: ContactObservation,
  s: FitSettings,
  law: NormalLaw,
  predicted: number,
  reference: number,
  stabilisation: number,
  bound: boolean,
  floor: number,
): void {
  const y = o.separation;
  const r = residual(y, predicted, bound, floor);
  const tol = fitTolerance(s, y, o.approach, Number.isFinite(predicted) ? predicted : 0);
  // the restitution law wins ties (it is listed first): a contact at its law is never another law's
  if (!(r <= tol && r < pick.residual)) return;
  pick.found = true;
  pick.residual = r;
  pick.law = law;
  pick.predicted = predicted;
  pick.reference = reference;
  pick.stabilisation = stabilisation;
  pick.bound = bound;
  pick.floor = floor;
}

/** The declared stabilisation of a contact besides none (the ERP bias, a spring's bound), as consider's terms. */
interface Stabilisation {
  law: NormalLaw | null;
  speed: number;
  bound: boolean;
}
const declaredStab: Stabilisation = { law: null, speed: 0, bound: false };

/**
 * A target law with each declared stabilisation option: none, then the declared one when there is one (its law
 * names the candidate of a restitution or speculative target; a bound's floor is the target).
 */
function withStab(o: ContactObservation, s: FitSettings, law: NormalLaw, target: number, reference: number, st: Stabilisation | null): void {
  consider(o, s, law, target + 0, reference, 0, false, 0); // + 0: the sum the none option made (−0 → 0)
  if (st === null) return;
  const name = st.law !== null && (law === 'restitution' || law === 'speculative') ? st.law : law;
  consider(o, s, name, target + st.speed, reference, st.speed, st.bound, target);
}

/**
 * The best of the parameter-free candidates of one active contact (λn > 0), or null when none fits: a target law
 * (Newton's in its variants — declared threshold, any threshold, before gravity — or the (1+e) target) plus the
 * declared stabilisation (none, the ERP bias, a spring's bound), or the convex lift on top.
 */
function bestParameterFree(o: ContactObservation, s: FitSettings): { candidate: Candidate; residual: number } | null {
  pick.found = false;
  pick.residual = Number.POSITIVE_INFINITY;
  const t0 = newtonTarget(o, s);
  const m = s.model;
  const springs = o.soft ?? m.soft;
  let st: Stabilisation | null = null;
  if (springs) {
    declaredStab.law = 'spring';
    declaredStab.speed = softPushSpeed(springs, o.depth, s.dt, o.approach);
    declaredStab.bound = true;
    st = declaredStab;
  } else if (m.source === 'declared-bias') {
    const bias = (m.erp / s.dt) * Math.max(0, o.depth - m.slop);
    if (bias > 0) {
      declaredStab.law = 'stabilisation';
      declaredStab.speed = bias;
      declaredStab.bound = false;
      st = declaredStab;
    }
  } else if (m.source === 'declared-soft' && (o.depth > 0 || o.persistent)) {
    // a declared soft contact without parameters: any push-out of an overlap it holds is its spring
    declaredStab.law = 'spring';
    declaredStab.speed = Number.POSITIVE_INFINITY;
    declaredStab.bound = true;
    st = declaredStab;
  }
  // Newton's law's targets (declared threshold, any threshold, before gravity: all legitimate)
  if (o.gap > 0) withStab(o, s, 'speculative', t0, t0, st);
  else {
    const a = o.approach,
      aStart = o.approach - o.pNormal;
    const declared = a > s.restVelocityThreshold ? o.e * a : 0;
    withStab(o, s, 'restitution', declared, declared, st);
    if (a > 0) withStab(o, s, 'restitution', o.e * a, o.e * a, st);
    if (aStart > 0) {
      withStab(o, s, 'restitution', o.e * aStart, o.e * aStart, st);
      const before = aStart > s.restVelocityThreshold ? o.e * aStart : 0;
      withStab(o, s, 'restitution', before, before, st);
    }
  }
  // the (1+e) target: leaves at (1 + e) times the approach (after or before gravity's velocity update), where
  // restitution applies (above the threshold, or a new impact)
  if (o.gap === 0 && (o.approach > s.restVelocityThreshold || !o.persistent)) {
    if (o.approach > 10 * s.speedTolerance) withStab(o, s, 'restitution-overshoot', (1 + o.e) * o.approach, t0, st);
    const aStart = o.approach - o.pNormal;
    if (aStart > 10 * s.speedTolerance) withStab(o, s, 'restitution-overshoot', (1 + o.e) * aStart, t0, st);
  }
  if (s.convexPlausible && o.slip > 10 * s.speedTolerance && o.mu > 0) {
    const stab = m.source === 'declared-bias' ? (m.erp / s.dt) * Math.max(0, o.depth - m.slop) : 0;
    consider(o, s, 'convex-lift', t0 + stab + o.mu * o.slip, t0, stab, false, 0);
  }
  if (!pick.found) return null;
  const candidate: Candidate = pick.bound
    ? { law: pick.law, predicted: pick.predicted, reference: pick.reference, stabilisation: pick.stabilisation, bound: true, floor: pick.floor }
    : { law: pick.law, predicted: pick.predicted, reference: pick.reference, stabilisation: pick.stabilisation };
  return { candidate, residual: pick.residual };
}

/** Residual of an enforced speed y against a predicted one, or against a bound between `floor` and it (0 inside). */
function residual(y: number, predicted: number, bound: boolean, floor: number): number {
  if (bound) return y <= predicted ? Math.max(0, floor - y) : y - predicted;
  return Math.abs(y - predicted);
}

/** Residual of an enforced speed against a candidate (0 inside a bound). */
const residualOf = (c: Candidate, y: number): number => residual(y, c.predicted, c.bound === true, c.floor ?? c.reference);

function lawOf(c: Candidate, o: ContactObservation, residual: number, friction: { regime: FrictionRegime; ratio: number }, k?: number): ContactLaw {
  const predicted = c.bound ? Math.min(o.separation, c.predicted) : c.predicted;
  const stabilisation = c.bound ? Math.max(0, Math.min(c.stabilisation, o.separation - (c.floor ?? c.reference))) : c.stabilisation;
  const normal = c.law,
    enforced = o.separation,
    reference = c.reference,
    regime = friction.regime,
    coneRatio = friction.ratio;
  // four literals in the key order the spreads gave, not spreads: V8 gives spread-built objects slow properties
  // (one law per active contact of every frame)
  if (c.bound) {
    const bound = c.predicted;
    return k !== undefined
      ? { normal, k, bound, enforced, predicted, residual, reference, stabilisation, friction: regime, coneRatio }
      : { normal, bound, enforced, predicted, residual, reference, stabilisation, friction: regime, coneRatio };
  }
  return k !== undefined
    ? { normal, k, enforced, predicted, residual, reference, stabilisation, friction: regime, coneRatio }
    : { normal, enforced, predicted, residual, reference, stabilisation, friction: regime, coneRatio };
}

/**
 * The laws of one island's contacts (observations in the island's order). Parameter-free laws first; the
 * contacts they leave separating above Newton's law get one shared Baumgarte k (with the declared slop, or
 * without it) if it fits them all; an undeclared model allows each a one-step push-out (≤ depth/Δt) or, when it
 * persists, a spring.
 */
export function fitIslandLaws(obs: readonly ContactObservation[], s: FitSettings): ContactLaw[] {
  const out: (ContactLaw | null)[] = new Array(obs.length).fill(null);
  const open: number[] = [];
  let maxLambda = 0;
  for (const o of obs) maxLambda = Math.max(maxLambda, o.lambdaN);
  for (let i = 0; i < obs.length; i++) {
    const o = obs[i];
    const fr = frictionRegime(o, s);
    const t0 = newtonTarget(o, s);
    if (!(o.lambdaN > ACTIVE_LAMBDA * maxLambda)) {
      out[i] = {
        normal: 'open',
        enforced: o.separation,
        predicted: t0,
        residual: 0,
        reference: t0,
        stabilisation: 0,
        friction: fr.regime,
        coneRatio: fr.ratio,
      };
      continue;
    }
    const best = bestParameterFree(o, s);
    if (best) out[i] = lawOf(best.candidate, o, best.residual, fr);
    else open.push(i);
  }
  fitSharedBaumgarte(obs, s, open, out);
  for (const i of open) {
    if (out[i]) continue;
    const o = obs[i];
    const fr = frictionRegime(o, s);
    const t0 = newtonTarget(o, s);
    if (s.model.source === 'undeclared' && o.separation > t0) {
      // an undeclared engine may push an overlap out in one step (≤ depth/Δt) or release a spring it built up
      const c: Candidate = {
        law: 'push-out',
        predicted: o.persistent ? Number.POSITIVE_INFINITY : t0 + Math.max(0, o.depth) / s.dt,
        reference: t0,
        stabilisation: o.persistent ? Number.POSITIVE_INFINITY : Math.max(0, o.depth) / s.dt,
        bound: true,
      };
      const r = residualOf(c, o.separation);
      if (r <= fitTolerance(s, o.separation, o.approach)) {
        out[i] = lawOf(c, o, r, fr);
        continue;
      }
    }
    out[i] = {
      normal: 'none',
      enforced: o.separation,
      predicted: t0,
      residual: Math.abs(o.separation - t0),
      reference: t0,
      stabilisation: 0,
      friction: fr.regime,
      coneRatio: fr.ratio,
    };
  }
  return out as ContactLaw[];
}

/**
 * One k for the island's unexplained contacts that separate above the law with a depth (least squares of
 * ġn⁺ − t = k·x, x = max(0, depth − slop)/Δt or depth/Δt); accepted when every residual is within the fit
 * tolerance and k ∈ (0, K_MAX]. With the declared slop first (an engine honours its slop), then without.
 */
function fitSharedBaumgarte(obs: readonly ContactObservation[], s: FitSettings, open: readonly number[], out: (ContactLaw | null)[]): void {
  const slop = s.model.source === 'declared-bias' || s.model.source === 'declared-none' ? s.model.slop : 0;
  const candidates = open.filter((i) => {
    const o = obs[i];
    const t0 = newtonTarget(o, s);
    return o.separation > t0 + s.speedTolerance && o.depth > 0;
  });
  // a declared spring–damper has its own law (its bound): a push beyond it is not re-read as a Baumgarte bias
  if (candidates.length === 0 || s.model.source === 'declared-soft') return;
  // one contact always fits a one-parameter family: alone it is evidence only in an island whose other contacts
  // all obey their laws (otherwise its separation is one more residue of a solve that holds none of them)
  if (candidates.length === 1) {
    const anomalous = (o: ContactObservation): boolean => {
      if (!s.judgeFriction) return false;
      const r = frictionRegime(o, s).regime;
      return r === 'outside-cone' || r === 'slip-inside-cone';
    };
    if (open.length > 1 || obs.some(anomalous)) return;
  }
  const families: { law: NormalLaw; x: (o: ContactObservation) => number }[] = [
    { law: 'baumgarte', x: (o) => Math.max(0, o.depth - slop) / s.dt },
    ...(slop > 0 ? [{ law: 'baumgarte-no-slop' as const, x: (o: ContactObservation) => Math.max(0, o.depth) / s.dt }] : []),
  ];
  for (const fam of families) {
    let sxy = 0,
      sxx = 0;
    for (const i of candidates) {
      const o = obs[i];
      const t0 = newtonTarget(o, s);
      const x = fam.x(o);
      sxy += x * (o.separation - t0);
      sxx += x * x;
    }
    if (!(sxx > 0)) continue;
    const k = sxy / sxx;
    if (!(k >= K_MIN && k <= K_MAX)) continue;
    const fits = candidates.every((i) => {
      const o = obs[i];
      const t0 = newtonTarget(o, s);
      return Math.abs(o.separation - t0 - k * fam.x(o)) <= fitTolerance(s, o.separation, o.approach);
    });
    if (!fits) continue;
    const declared = s.model.source === 'declared-bias' && fam.law === 'baumgarte' && Math.abs(k - s.model.erp) <= K_DECLARED_MATCH * s.model.erp;
    for (const i of candidates) {
      const o = obs[i];
      const t0 = newtonTarget(o, s);
      const bias = k * fam.x(o);
      const c: Candidate = { law: declared ? 'stabilisation' : fam.law, predicted: t0 + bias, reference: t0, stabilisation: bias };
      out[i] = lawOf(c, o, Math.abs(o.separation - t0 - bias), frictionRegime(o, s), declared ? undefined : k);
    }
    return;
  }
}
