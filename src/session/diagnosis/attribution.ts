/**
 * Attribution: which mechanism put a frame's energy above Newton's law, per island and contact
 * (docs/physics.md "Which law the impulses obey" and "Counterfactual attribution").
 *
 * 1. Every contact's law is fitted from the data (lawFit.ts): the target it enforced and its friction regime.
 * 2. Per contact, the energy above Newton's law, E(ġn⁺) − E(reference), goes to the law it obeys: stabilisation
 *    (bias, spring, push-out), the (1+e) target, the convex lift; friction doing positive work along the slip.
 * 3. When the budget allows, exact re-solves of the island (counterfactual.ts) with three right-hand sides — Newton's
 *    law, + the stabilisation the contacts obey, + the targets they obey (the file's b when it holds one) — measure
 *    the island's joules per share; what an exact solve of the fitted problem would still remove is not a law.
 * 4. That remainder is a truncated solve ONLY on positive evidence (continuation.ts): the island has several
 *    contacts, the residual is spread over them, and continuing the engine's Gauss–Seidel iteration from the
 *    recorded λ removes it. Otherwise it is `unattributed`, with the evidence — never a guessed mechanism.
 */
import type { RecordedFrame, RecordingHeader } from '../../format/recording.js';
import { type BodyState, buildIslands, type ContactPoint, hypot2Exact, type PgsFrictionLaw } from '../../engine/index.js';
import { COUNTERFACTUAL_TOLERANCE, islandResolver, type IslandResolver } from '../counterfactual.js';
import { normalSpeedEnergy, softPushSpeed, type ContactLedger } from '../frameLedger.js';
import { CONTINUATION_REMOVES, coulombExact, continuationEvidence, gaussSeidelTrace } from './continuation.js';
import type { ContinuationEvidence, CounterfactualSavings, DiagnosisOptions, InjectionMechanism } from './findings.js';
import { DEFAULT_COUNTERFACTUAL_FRAME_WORK, DEFAULT_COUNTERFACTUAL_TOTAL_WORK } from './findings.js';
import { FIT_RELATIVE, fitIslandLaws, LAW_MECHANISM, STABILISATION_LAWS, type ContactLaw, type ContactObservation, type FitSettings } from './lawFit.js';
import { Shares } from './shares.js';
import { flippedFriction, manifoldFriction } from './frictionWork.js';

export { FLIPPED_FRICTION_TOLERANCE, FRICTION_ALONG_SLIP } from './frictionWork.js';

/** The exact Coulomb re-solves' energies are refined until a step would change them by less than this fraction of the energy tolerance. */
const COULOMB_ENERGY_TOLERANCE = 0.1;

/** Energies of exact re-solves agree to about their KKT tolerance relative to the island's energy scale. */
const RESOLVE_ENERGY_ACCURACY = 10 * COUNTERFACTUAL_TOLERANCE;

/** The whole diagnosis' re-solve cost (mutable, owned by the Diagnoser). */
export interface DiagnosisCost {
  frames: number;
  islands: number;
  ms: number;
  work: number;
  exhaustedAt: number | null;
}

/** What stays the same over a recording. */
export interface AttributionSettings {
  readonly header: RecordingHeader;
  readonly options: DiagnosisOptions;
  readonly fit: FitSettings;
  /** Per-point friction impulses are the writer's fit (judged per manifold resultant instead). */
  readonly fittedFriction: boolean;
  /** The Gauss–Seidel friction law a continuation uses: the convex cone for QP-SOCP engines, else Coulomb's disk. */
  readonly frictionLaw: PgsFrictionLaw;
  readonly isStatic: readonly boolean[];
  /**
   * Called before every consultation of the re-solve budget: a diagnosis begun midway (Diagnoser.recordAssumptions) adds to
   * `cost` what the frames before it spent, once.
   */
  readonly settleBudget?: (cost: DiagnosisCost) => void;
}

/** One frame's data as the attribution reads it. */
export interface FrameFacts {
  readonly frame: RecordedFrame;
  readonly ledger: readonly ContactLedger[];
  readonly bodies: readonly BodyState[];
  readonly contacts: readonly ContactPoint[];
  /** Potential energy per unit impulse of each row (3 per contact). */
  readonly potential: Float64Array;
  /** Contact c's overlap appeared this frame: a new contact, or one that was not this deep before (a teleport). */
  readonly overlapAppeared: (c: number) => boolean;
  /** Contact c's body pair was touching in the previous frame. */
  readonly persistent: (c: number) => boolean;
  /** The frame's total energy rose (beyond the tolerance, external work excluded). */
  readonly rose: boolean;
}

export interface FrameAttribution {
  readonly shares: Shares;
  /** Per frame contact, its fitted law (undefined for contacts of islands not examined). */
  readonly laws: readonly (ContactLaw | undefined)[];
  readonly savings?: CounterfactualSavings;
  /** The continuation's evidence behind the truncated-solve and unattributed shares, summed over the islands. */
  readonly continuation: ReadonlyMap<InjectionMechanism, ContinuationEvidence>;
}

/** Contact energies of one island, per share (J), each in the contact's frame index. */
interface ContactShares {
  readonly stab: Map<number, number>;
  readonly overlap: Map<number, number>;
  readonly target: Map<InjectionMechanism, Map<number, number>>;
  readonly friction: Map<number, number>;
  readonly unexplained: Map<number, number>;
}

const sum = (m: ReadonlyMap<number, number>): number => {
  let s = 0;
  for (const x of m.values()) s += x;
  return s;
};

/** Attributes one frame's energy above the law (see the module comment). */
export function attributeFrame(s: AttributionSettings, fr: FrameFacts, cost: DiagnosisCost): FrameAttribution {
  const f = fr.frame;
  const shares = new Shares();
  const laws: (ContactLaw | undefined)[] = new Array(f.contacts.length);
  const islands = buildIslands(
    s.isStatic.length,
    fr.contacts.map((c) => [c.bodyA, c.bodyB] as const),
    s.isStatic,
  );
  const opt = s.options;
  const frameBudget = opt.counterfactualFrameWork ?? DEFAULT_COUNTERFACTUAL_FRAME_WORK;
  const totalBudget = opt.counterfactualTotalWork ?? DEFAULT_COUNTERFACTUAL_TOTAL_WORK;
  const useCf = opt.counterfactuals !== false;
  let any = false,
    aboveLaw = 0,
    solved = 0,
    ms = 0,
    work = 0,
    exactSolve = 0,
    openBound = 0,
    finished = 0,
    noStab = 0,
    restLaw = 0;
  const skipped: string[] = [];
  const continuation = new Map<InjectionMechanism, ContinuationEvidence>();
  for (const isl of islands) {
    const cs = isl.contacts;
    // no contact above its declared law, no friction working along a slip and no gain: nothing to attribute
    // (checked on the ledger's scalars first: a settled pile's thousands of contacts need no law fit)
    if (!mayInject(fr, cs, opt.energyTolerance)) continue;
    const obs = cs.map((c) => observe(fr, c));
    const fitted = fitIslandLaws(obs, s.fit);
    cs.forEach((c, i) => (laws[c] = fitted[i]));
    const cshares = contactShares(s, fr, cs, fitted);
    const ledgerTotal =
      sum(cshares.stab) +
      sum(cshares.overlap) +
      sum(cshares.friction) +
      sum(cshares.unexplained) +
      [...cshares.target.values()].reduce((a, m) => a + sum(m), 0);
    let positive = 0;
    for (const c of cs) positive += Math.max(0, fr.ledger[c].normalWork);
    const suspect = ledgerTotal > 0.5 * opt.energyTolerance || (fr.rose && positive > 0);
    if (!suspect) continue;
    any = true;
    // exact re-solves (and the continuation) within the budget; else the ledger's per-contact evidence alone. An
    // island whose contacts all obey Newton's law or a stabilisation, in a frame that did not rise, needs none: each
    // contact's energy above the law is its own (a stack's lift shows as a rise of the frame)
    const half = 0.5 * opt.energyTolerance;
    const needsResolve =
      fr.rose || sum(cshares.unexplained) > half || targetSum(cshares) > half || sum(cshares.friction) > half || cshares.target.has('socp-separation');
    let resolver: IslandResolver | undefined;
    if (useCf && needsResolve) {
      s.settleBudget?.(cost);
      // once the total has left an island unsolved it is spent (C + work ≥ total, counted at the frame's end): no later
      // island is re-solved, however small
      const left = Math.min(frameBudget - work, totalBudget - cost.work - work);
      if (left <= 0) {
        if (work < frameBudget) cost.exhaustedAt ??= f.frame;
        skipped.push(
          work >= frameBudget
            ? `this frame's exact re-solve budget is used up (${frameBudget.toExponential(1)} work units)`
            : `the diagnosis' exact re-solve budget is used up by earlier frames (${totalBudget.toExponential(1)} work units)`,
        );
      } else {
        const out = islandResolver(
          fr.bodies,
          cs.map((c) => fr.contacts[c]),
          opt.restVelocityThreshold ?? 0.5,
          s.header.dt,
          s.header.gravity,
          3,
          left,
        );
        if (out.ok) resolver = out.value;
        else skipped.push(out.reason);
      }
    }
    const r = resolver ? resolvedShares(s, fr, cs, fitted, cshares, resolver, shares) : ledgerShares(cshares, shares);
    cs.forEach((c, i) => (laws[c] = fitted[i])); // the resolved shares may have found a target law coincidental
    if (resolver) {
      ms += resolver.timeMs;
      work += resolver.work;
      if (r.solved) solved++;
      else if (r.reason) skipped.push(r.reason);
    }
    exactSolve += r.exactSaves;
    openBound = Math.max(openBound, r.openBound ?? 0);
    finished += r.finished ?? 0;
    aboveLaw += r.above;
    noStab += r.stabSaves;
    restLaw += r.lawSaves;
    if (r.continuation) addEvidence(continuation, r.continuation.mechanism, r.continuation.evidence);
  }
  if (!any) return { shares, laws, continuation };
  cost.frames++;
  cost.islands += solved;
  cost.ms += ms;
  cost.work += work;
  return {
    shares,
    laws,
    savings: {
      exactSolve,
      aboveLaw,
      noStabilisation: noStab,
      restitutionLaw: restLaw,
      law: s.frictionLaw === 'cone' ? 'qp-socp' : 'coulomb',
      fixedPointOpen: openBound,
      coulombFinished: finished,
      islands: solved,
      skipped,
      timeMs: ms,
    },
    continuation,
  };
}

/** Sums one island's continuation evidence into the frame's, per mechanism. */
function addEvidence(into: Map<InjectionMechanism, ContinuationEvidence>, m: InjectionMechanism, e: ContinuationEvidence): void {
  const a = into.get(m);
  into.set(
    m,
    a
      ? {
          sweeps: Math.max(a.sweeps, e.sweeps),
          ran: Math.max(a.ran, e.ran),
          islands: a.islands + e.islands,
          excess: a.excess + e.excess,
          removed: a.removed + e.removed,
          spread: a.spread + e.spread,
          islandContacts: a.islandContacts + e.islandContacts,
        }
      : e,
  );
}

/**
 * An island may hold energy above the law: a contact separates above its declared target (any law's energy above
 * Newton's is at least that), friction works along a post-step slip, or the frame rose with contacts pushing.
 */
function mayInject(fr: FrameFacts, cs: readonly number[], energyTolerance: number): boolean {
  let above = 0,
    positive = 0;
  for (const c of cs) {
    const L = fr.ledger[c];
    above += L.stabilisation + L.excess;
    positive += Math.max(0, L.normalWork);
    // friction working along a post-step slip (the manifold and flip tests below are stricter subsets)
    if (L.frictionWork > 0 && L.slipPower > 0) above += L.frictionWork;
  }
  return above > 0.5 * energyTolerance || (fr.rose && positive > 0);
}

/** What the law fit reads of contact c. */
function observe(fr: FrameFacts, c: number): ContactObservation {
  const L = fr.ledger[c],
    ct = fr.frame.contacts[c],
    lam = fr.frame.solver.lambda;
  const o: ContactObservation = {
    lambdaN: lam[3 * c],
    lambdaT: hypot2Exact(lam[3 * c + 1], lam[3 * c + 2]),
    separation: L.separation,
    approach: L.approach,
    pNormal: fr.potential[3 * c],
    slip: L.slip,
    slipPower: L.slipPower,
    frictionWork: L.frictionWork,
    depth: ct.depth,
    gap: ct.gap ?? 0,
    e: ct.e,
    mu: ct.mu,
    persistent: fr.persistent(c),
  };
  // a literal, not a spread of an optional part: V8 gives spread-built objects slow properties (every active
  // contact of every frame is observed)
  return ct.soft ? { ...o, soft: ct.soft } : o;
}

/** Per contact, the ledger's energy above its reference target, split by the law it obeys. */
function contactShares(s: AttributionSettings, fr: FrameFacts, cs: readonly number[], laws: readonly ContactLaw[]): ContactShares {
  const out: ContactShares = { stab: new Map(), overlap: new Map(), target: new Map(), friction: new Map(), unexplained: new Map() };
  const tol = s.options.speedTolerance;
  // friction is judged where the island's solve is otherwise exact: a truncated iterate's lateral residue can lie
  // on the cone's edge along the slip at a corner of a coupled island (a pyramid settling under 50 sweeps)
  const exactIsland = spreadOf(s, fr, cs, laws) < 2;
  manifoldFriction(fr, cs, exactIsland, out.friction);
  cs.forEach((c, i) => {
    const law = laws[i],
      L = fr.ledger[c];
    // one contact's friction mirrored onto the slip (λt = +μλn·ŝ): a flipped sign, whatever its manifold's sum
    if (exactIsland && !s.fittedFriction && flippedFriction(law, L, fr.frame.solver.lambda, c))
      out.friction.set(c, Math.max(out.friction.get(c) ?? 0, L.frictionWork));
    if (law.normal === 'open' || !(L.mEff > 0) || !(law.enforced > law.reference + tol)) return;
    const p = fr.potential[3 * c];
    const E = (x: number): number => normalSpeedEnergy(L.mEff, p, x);
    const total = E(law.enforced) - E(law.reference);
    if (!(total > 0)) return;
    const stabTop = Math.min(law.enforced, law.reference + law.stabilisation);
    const stab = Math.max(0, Math.min(total, E(stabTop) - E(law.reference)));
    const overlap = fr.frame.contacts[c].depth >= s.options.overlapDepth && fr.overlapAppeared(c);
    if (stab > 0) (overlap ? out.overlap : out.stab).set(c, stab);
    const rest = total - stab;
    if (!(rest > 0)) return;
    const m = LAW_MECHANISM[law.normal];
    if (m && !STABILISATION_LAWS.has(law.normal)) {
      let t = out.target.get(m);
      if (!t) out.target.set(m, (t = new Map()));
      t.set(c, rest);
    } else if (m) {
      const into = overlap ? out.overlap : out.stab;
      into.set(c, (into.get(c) ?? 0) + rest);
    } else out.unexplained.set(c, rest);
  });
  return out;
}

interface IslandShares {
  readonly solved: boolean;
  readonly reason?: string;
  readonly exactSaves: number;
  /** E(λ_rec) − E(Newton's law): what the island gained above the law (J; 0 without re-solves). */
  readonly above: number;
  readonly stabSaves: number;
  readonly lawSaves: number;
  /** Largest last-step bound (J) of a De Saxcé fixed point stopped at its step cap (coulombExact); 0 or absent when none was. */
  readonly openBound?: number;
  /** De Saxcé fixed points the exact Coulomb solver finished (coulombExact). */
  readonly finished?: number;
  readonly continuation?: { readonly mechanism: InjectionMechanism; readonly evidence: ContinuationEvidence };
}

/** Contacts whose data a law does not explain: the spread of the residual over the island. */
function spreadOf(s: AttributionSettings, fr: FrameFacts, cs: readonly number[], laws: readonly ContactLaw[]): number {
  let n = 0;
  const tol = s.options.speedTolerance;
  cs.forEach((c, i) => {
    const law = laws[i];
    if (law.normal === 'none') n++;
    else if (law.normal === 'open' && law.enforced < law.reference - Math.max(tol, 0.03 * Math.abs(law.reference)) && fr.frame.contacts[c].depth >= 0) n++;
    else if (!s.fittedFriction && (law.friction === 'slip-inside-cone' || law.friction === 'outside-cone')) n++;
  });
  return n;
}

/**
 * Contacts whose data no target law can explain — the signature of a solve stopped early, not of a law: a pushing
 * contact still approaching below its target (λn > 0 with ġn⁺ < target), an open one penetrating (λn = 0 with
 * ġn⁺ < target), friction slipping inside or leaving the cone (where per-point friction is the engine's), a contact
 * separating above every law by more than the engine's declared stabilisation could explain of it. A contact a
 * little above its declared stabilisation's bound may obey a law of other constants (a spring's): it does not count.
 */
function solveResidualOf(s: AttributionSettings, fr: FrameFacts, cs: readonly number[], laws: readonly ContactLaw[]): number {
  let n = 0;
  const tol = s.options.speedTolerance;
  cs.forEach((c, i) => {
    const law = laws[i],
      ct = fr.frame.contacts[c];
    const below = law.enforced < law.reference - Math.max(tol, FIT_RELATIVE * Math.abs(law.reference)) && ct.depth >= 0 && !(ct.gap && ct.gap > 0);
    if (below && law.normal !== 'speculative') n++;
    else if (s.fit.judgeFriction && (law.friction === 'slip-inside-cone' || law.friction === 'outside-cone')) n++;
    else if (law.normal === 'none' && law.enforced > law.reference) {
      // a declared soft contact holding an overlap pushes it out by its own law, whose constants we may not know
      // exactly (MuJoCo's pyramidal soft rows couple normal and friction): no evidence of a truncated solve
      if ((ct.soft ?? s.fit.model.soft ?? (s.fit.model.source === 'declared-soft' ? true : undefined)) && ct.depth > 0) return;
      const above = law.enforced - law.reference;
      if (above - declaredStabilisation(s, fr, c, law) > 0.5 * above) n++;
    }
  });
  return n;
}

/** The ledger alone (no exact re-solve): each contact's energy to its law; the unexplained to the evidence. */
function ledgerShares(x: ContactShares, shares: Shares): IslandShares {
  shares.spread('bias-injection', sum(x.stab), x.stab);
  shares.spread('overlap-push-out', sum(x.overlap), x.overlap);
  for (const [m, w] of x.target) shares.spread(m, sum(w), w);
  shares.spread('friction-positive-work', sum(x.friction), x.friction);
  // without a continuation there is no positive evidence of a truncated solve
  shares.spread('unattributed', sum(x.unexplained), x.unexplained);
  return { solved: false, exactSaves: 0, above: 0, stabSaves: 0, lawSaves: 0 };
}

/** The stabilisation speed the engine's declaration allows contact c (m/s; at most its own separation above the reference). */
function declaredStabilisation(s: AttributionSettings, fr: FrameFacts, c: number, law: ContactLaw): number {
  const m = s.fit.model;
  const ct = fr.frame.contacts[c];
  const L = fr.ledger[c];
  const above = Math.max(0, law.enforced - law.reference);
  const springs = ct.soft ?? m.soft;
  if (springs) return Math.min(above, softPushSpeed(springs, ct.depth, s.header.dt, L.approach));
  if (m.source === 'declared-bias') return (m.erp / s.header.dt) * Math.max(0, ct.depth - m.slop);
  if (m.source === 'declared-soft') return above;
  if (m.source === 'undeclared') return Math.min(above, Math.max(0, ct.depth) / s.header.dt);
  return 0;
}

/** Right-hand sides of the three exact re-solves, from the fitted laws (island order). */
function rightHandSides(
  s: AttributionSettings,
  fr: FrameFacts,
  cs: readonly number[],
  laws: readonly ContactLaw[],
  r: IslandResolver,
): { law: Float64Array; stab: Float64Array; fit: Float64Array; recorded: boolean } {
  const v = r.velocityPart;
  const law = Float64Array.from(v),
    stab = Float64Array.from(v);
  cs.forEach((c, i) => {
    const L = laws[i];
    law[3 * i] += L.reference;
    // contacts no law explains keep the stabilisation the engine declares (it applies its own to every contact):
    // the ERP bias, or as much of the separation as a declared spring can push (its bound), or, with nothing
    // declared, a one-step push-out of the depth
    const st = L.normal === 'none' || L.normal === 'open' ? declaredStabilisation(s, fr, c, L) : Number.isFinite(L.stabilisation) ? L.stabilisation : 0;
    stab[3 * i] += L.reference + st;
  });
  const b = fr.frame.b;
  if (b && b.length === 3 * fr.frame.contacts.length) {
    // the file's own right-hand side: what the engine asked for, whatever the laws say
    const rec = new Float64Array(3 * cs.length);
    cs.forEach((c, i) => {
      for (let q = 0; q < 3; q++) rec[3 * i + q] = b[3 * c + q];
    });
    return { law, stab, fit: rec, recorded: true };
  }
  const fit = Float64Array.from(stab);
  cs.forEach((_, i) => {
    if (laws[i].normal === 'restitution-overshoot') fit[3 * i] = v[3 * i] + laws[i].predicted;
  });
  return { law, stab, fit, recorded: false };
}

/**
 * With exact re-solves: E(rec) − E(law) splits into friction (its positive work, at most what the fitted problem's
 * exact solve saves), stabilisation E(stab) − E(law), target E(fit) − E(stab), and the remainder E(rec) − E(fit):
 * a truncated solve on positive evidence, else unattributed. The convex lift, which the convex exact re-solves share,
 * is the ledger's per-contact measure.
 */
function resolvedShares(
  s: AttributionSettings,
  fr: FrameFacts,
  cs: readonly number[],
  laws: ContactLaw[],
  x: ContactShares,
  r: IslandResolver,
  shares: Shares,
): IslandShares {
  const rhs = rightHandSides(s, fr, cs, laws, r);
  const lam = new Float64Array(3 * cs.length);
  cs.forEach((c, i) => {
    for (let q = 0; q < 3; q++) lam[3 * i + q] = fr.frame.solver.lambda[3 * c + q];
  });
  // a target law fitted on some contacts of a coupled island must explain the recorded λ better than Newton's law
  // does; otherwise those fits are coincidences of a solve that holds neither (a truncated solve's bounce at e = 0)
  let fitB = rhs.fit;
  if (!rhs.recorded && cs.length >= 2 && targetSum(x) > 0 && !(r.kkt(lam, rhs.fit) <= TARGET_KKT_PREFERENCE * r.kkt(lam, rhs.stab))) {
    demoteTargets(cs, laws, x);
    fitB = rhs.stab;
  }
  // the exact solutions: the convex optimum for a QP-SOCP engine (interior point), else Coulomb's law
  // (coulombExact: the convex optimum dissipates more than any Coulomb solution, so it is no reference there)
  const mu = Float64Array.from(cs, (c) => fr.frame.contacts[c].mu);
  // De Saxcé's iteration starts from the recorded slip where the contact slides as Coulomb says (on the cone's edge,
  // against the slip), else from sticking: a truncated iterate's creep is no estimate of the exact solution's slip
  const slip0 = Float64Array.from(cs, (c, i) => (laws[i].friction === 'slide' ? fr.ledger[c].slip : 0));
  let openBound = 0;
  let finished = 0;
  const exact = (b: Float64Array): number | string => {
    if (s.frictionLaw === 'cone') return r.exact(b);
    const x = coulombExact(r, b, mu, slip0, COULOMB_ENERGY_TOLERANCE * s.options.energyTolerance);
    if (typeof x === 'string') return x;
    openBound = Math.max(openBound, x.openBound);
    if (x.finished) finished++;
    return x.energy;
  };
  const eLaw = exact(rhs.law);
  if (typeof eLaw === 'string') return { ...ledgerShares(x, shares), reason: eLaw };
  const eRec = r.energy(lam);
  // the convex lift: the ledger's measure on the contacts that obey it (the convex re-solves lift alike)
  const lift = x.target.get('socp-separation');
  if (lift) shares.spread('socp-separation', sum(lift), lift);
  // nothing above Newton's law: no share to split (the other re-solves are not needed)
  if (!(eRec - eLaw > RESOLVE_ENERGY_ACCURACY * Math.max(Math.abs(eRec), Math.abs(eLaw))))
    return { solved: true, exactSaves: 0, above: 0, stabSaves: 0, lawSaves: 0, openBound, finished };
  const same = (a: Float64Array, b: Float64Array): boolean => a === b || a.every((v, i) => v === b[i]);
  const eStab = same(rhs.stab, rhs.law) ? eLaw : exact(rhs.stab);
  if (typeof eStab === 'string') return { ...ledgerShares(x, shares), reason: eStab };
  const eFit = same(fitB, rhs.stab) ? eStab : exact(fitB);
  if (typeof eFit === 'string') return { ...ledgerShares(x, shares), reason: eFit };
  const above = eRec - eLaw;
  // what an exact solve of the fitted problem saves; within the re-solves' own accuracy it is none
  const scale = Math.max(Math.abs(eRec), Math.abs(eLaw), Math.abs(eFit));
  const exactSaves = eRec - eFit > RESOLVE_ENERGY_ACCURACY * scale ? eRec - eFit : 0;
  const stabSaves = Math.max(0, eStab - eLaw);
  // two exact re-solves that agree within their accuracy save nothing between them (a difference of round-off,
  // 1e-17 J, is no energy to print)
  const lawSaves = eFit - eStab > RESOLVE_ENERGY_ACCURACY * scale ? eFit - eStab : 0;
  if (!(above > 0)) return { solved: true, exactSaves, above: 0, stabSaves, lawSaves, openBound, finished };
  // friction against maximal dissipation: what the same impulses save with that friction opposing the slip instead
  let fric = 0;
  if (x.friction.size > 0) {
    const mirrored = Float64Array.from(lam);
    cs.forEach((c, i) => {
      if (!x.friction.has(c)) return;
      mirrored[3 * i + 1] = -mirrored[3 * i + 1];
      mirrored[3 * i + 2] = -mirrored[3 * i + 2];
    });
    fric = Math.min(above, Math.max(sum(x.friction), eRec - r.energy(mirrored)));
  }
  shares.spread('friction-positive-work', fric, x.friction);
  const remainder = Math.min(above - fric, Math.max(0, exactSaves - fric));
  let stab = Math.min(above - fric - remainder, stabSaves);
  let target = above - fric - remainder - stab;
  const targets = targetSum(x);
  // where the re-solves agree with the contacts' own energies to their accuracy, the exact arithmetic of the latter
  const accuracy = RESOLVE_ENERGY_ACCURACY * scale;
  if (targets > 0 && Math.abs(target - targets) <= accuracy) target = targets;
  const ledgerStab = sum(x.stab) + sum(x.overlap);
  if (ledgerStab > 0 && Math.abs(stab - ledgerStab) <= accuracy) stab = ledgerStab;
  if (targets > 0) {
    for (const [m, w] of x.target) if (m !== 'socp-separation') shares.spread(m, target * (sum(w) / targets), w);
    spreadStabilisation(fr, cs, x, stab, shares);
  } else if (rhs.recorded && target > 0 && sum(x.stab) + sum(x.overlap) === 0) {
    // the file's b asks for targets above the law on contacts whose motion the ledger does not show: weight by positive work
    spreadStabilisation(fr, cs, x, stab, shares);
    shares.spread('bias-injection', target, new Map(cs.map((c) => [c, Math.max(0, fr.ledger[c].normalWork)])));
  } else spreadStabilisation(fr, cs, x, stab + target, shares);
  if (!(remainder > s.options.energyTolerance * 0.1)) return { solved: true, exactSaves, above, stabSaves, lawSaves, openBound, finished };
  const spread = solveResidualOf(s, fr, cs, laws);
  const weights = x.unexplained.size > 0 ? x.unexplained : new Map(cs.map((c) => [c, Math.max(0, fr.ledger[c].excess) + Math.max(0, fr.ledger[c].normalWork)]));
  const evidence =
    cs.length >= 2 && spread >= 2
      ? continuationEvidence(gaussSeidelTrace(r, fitB, lam, s.frictionLaw, eRec - CONTINUATION_REMOVES * remainder), eRec, remainder, cs.length, spread)
      : { sweeps: 0, ran: 0, islands: 1, excess: remainder, removed: 0, spread, islandContacts: cs.length };
  const mechanism: InjectionMechanism =
    evidence.sweeps > 0 && evidence.removed >= CONTINUATION_REMOVES * evidence.excess ? 'non-converged-solve' : 'unattributed';
  shares.spread(mechanism, remainder, weights);
  return { solved: true, exactSaves, above, stabSaves, lawSaves, openBound, finished, continuation: { mechanism, evidence } };
}

/** A target law's KKT residual of the recorded λ must be at most this fraction of Newton's law's to stand. */
const TARGET_KKT_PREFERENCE = 0.5;

/** The island's target-law fits (other than the convex lift) become unexplained contacts. */
function demoteTargets(cs: readonly number[], laws: ContactLaw[], x: ContactShares): void {
  for (const [m, w] of x.target) {
    if (m === 'socp-separation') continue;
    for (const [c, j] of w) {
      x.unexplained.set(c, (x.unexplained.get(c) ?? 0) + j);
      const i = cs.indexOf(c);
      laws[i] = { ...laws[i], normal: 'none', predicted: laws[i].reference, residual: Math.abs(laws[i].enforced - laws[i].reference), stabilisation: 0 };
    }
    x.target.delete(m);
  }
}

function targetSum(x: ContactShares): number {
  let t = 0;
  for (const [m, w] of x.target) if (m !== 'socp-separation') t += sum(w);
  return t;
}

/** The stabilisation share over its contacts: overlap push-out for contacts that appear deep, else bias. */
function spreadStabilisation(fr: FrameFacts, cs: readonly number[], x: ContactShares, joules: number, shares: Shares): void {
  if (!(joules > 0)) return;
  const so = sum(x.overlap),
    sb = sum(x.stab);
  if (so + sb === 0) {
    // the exact re-solves show the stabilisation's energy although no contact separates within it (a stack lifts
    // its upper bodies): weight by ½m·s² of the stabilisation speed
    const all = new Map(cs.map((c) => [c, 0.5 * fr.ledger[c].mEff * Math.min(fr.ledger[c].stabilisationSpeed, 1e3) ** 2]));
    shares.spread('bias-injection', joules, all);
    return;
  }
  shares.spread('overlap-push-out', (joules * so) / (so + sb), x.overlap);
  shares.spread('bias-injection', (joules * sb) / (so + sb), x.stab);
}
