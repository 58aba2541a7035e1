/**
 * Gauss–Seidel from the recorded λ (docs/physics.md "Which law the impulses obey"):
 *  - the exact solution of a Coulomb engine's problem: projected Gauss–Seidel with Coulomb's disk law converged
 *    to its fixed point from the recorded λ (the fixed point of sequential impulses is Coulomb friction with
 *    maximal dissipation in the tangent plane, Erleben 2007; the convex QP-SOCP optimum is another problem and
 *    dissipates more kinetic energy than any Coulomb solution, so it is no reference for such an engine);
 *  - the positive evidence of a truncated solve: continuing the engine's own iteration on the problem the
 *    impulses obey removes the energy an exact solve would not inject; if more sweeps do not remove it, no number
 *    of iterations would fix it and the cause lies elsewhere.
 */
import type { PgsFrictionLaw } from '../../engine/index.js';
import type { IslandResolver } from '../counterfactual.js';
import type { ContinuationEvidence } from './findings.js';

/** Sweeps tried at most (energy checkpoints after 1, 2, 4, …, CONTINUATION_MAX_SWEEPS): a solve that needs more is past any engine's budget. */
export const CONTINUATION_MAX_SWEEPS = 2048;
/** The continuation confirms a truncated solve when it removes at least this fraction of the excess. */
export const CONTINUATION_REMOVES = 0.5;
/** Relative change of λ per sweep (‖Δλ‖∞/‖λ‖∞) at which Gauss–Seidel has reached its fixed point. */
export const FIXED_POINT_CHANGE = 1e-9;

/** De Saxcé fixed-point steps at most per exact Coulomb re-solve. */
export const DE_SAXCE_STEPS = 3;

/**
 * E(λ) of an exact Coulomb solution, the last fixed-point step's bound on its change of E where neither the fixed
 * point nor the Coulomb solver met its tolerance (J; else 0), and whether the Coulomb solver finished it.
 */
export interface FixedPointEnergy {
  readonly energy: number;
  readonly openBound: number;
  readonly finished: boolean;
}

/**
 * E(λ) of the exact Coulomb solution with right-hand side b: De Saxcé's fixed point (De Saxcé & Feng 1998; Acary,
 * Brémond & Huber 2018) — the convex QP-SOCP with b_n − μ‖w_t‖ is Coulomb's law once ‖w_t‖ is the solution's own
 * slip — started from the slip the recorded impulse left (`slip0`), so a nearly exact recording needs one
 * interior-point solve. A step changes E by about Σ λn·μ·|Δslip| (the work of the shifted targets): the iteration
 * stops once that bound is below `energyTolerance`. Where DE_SAXCE_STEPS steps do not get there, the exact Coulomb
 * solver (coulomb.ts) finishes from the last step's λ: the bound is no error bound (test/unit/coulomb-exact.test.ts:
 * a capped iterate's E off by several times its last bound). Coulomb solutions need not be unique: this is the
 * one next to the recorded slip.
 */
export function coulombExact(r: IslandResolver, b: Float64Array, mu: Float64Array, slip0: Float64Array, energyTolerance: number): FixedPointEnergy | string {
  const C = mu.length;
  let slip = slip0;
  const bb = new Float64Array(b.length);
  let energy = Number.NaN;
  let bound = Number.POSITIVE_INFINITY;
  let lambda: Float64Array | null = null;
  for (let k = 0; k < DE_SAXCE_STEPS; k++) {
    bb.set(b);
    for (let c = 0; c < C; c++) bb[3 * c] -= mu[c] * slip[c];
    // each step after the first from the last one's λ (the interior point's shifted warm start, ipm.ts); the first
    // cold, not from the recorded λ: on stacks of redundant contacts (A singular) a start off the centre of the
    // optimal face ends, at the KKT tolerance, on another λ of that face, whose E differs (E is not the QP's
    // objective) enough to move the diagnosis' shares; the cold start's central path ends near the face's centre
    const x = r.exactWithSlip(bb, lambda ?? undefined);
    if (typeof x === 'string') return x;
    energy = x.energy;
    lambda = x.lambda;
    bound = 0;
    for (let c = 0; c < C; c++) bound += Math.abs(x.lambda[3 * c] * mu[c] * (x.slip[c] - slip[c]));
    slip = x.slip;
    if (bound <= energyTolerance) return { energy, openBound: 0, finished: false };
  }
  const exact = lambda ? r.coulomb(b, lambda) : 'no fixed-point step';
  if (typeof exact === 'number') return { energy: exact, openBound: 0, finished: true };
  return { energy, openBound: bound, finished: false };
}

/** Energies after 1, 2, 4, … sweeps, and whether the last one is the fixed point. */
export interface GaussSeidelTrace {
  readonly sweeps: readonly number[];
  readonly energies: readonly number[];
  readonly converged: boolean;
  /** Relative change of λ in the last sweep. */
  readonly change: number;
}

/**
 * Gauss–Seidel from `lambda` on the problem with right-hand side `b` until its fixed point, the sweep cap, or the
 * energy falls to `stopAt` (J).
 */
export function gaussSeidelTrace(
  r: IslandResolver,
  b: Float64Array,
  lambda: Float64Array,
  law: PgsFrictionLaw,
  stopAt = Number.NEGATIVE_INFINITY,
  maxSweeps = CONTINUATION_MAX_SWEEPS,
): GaussSeidelTrace {
  const cont = r.continuation(b, lambda, law);
  const sweeps: number[] = [],
    energies: number[] = [];
  let change = Number.POSITIVE_INFINITY,
    step = 1;
  while (cont.sweeps < maxSweeps) {
    const e = cont.sweep(Math.min(step, maxSweeps - cont.sweeps));
    energies.push(e);
    sweeps.push(cont.sweeps);
    change = cont.change;
    if (change <= FIXED_POINT_CHANGE || e <= stopAt) break;
    step = cont.sweeps; // doubling
  }
  return { sweeps, energies, converged: change <= FIXED_POINT_CHANGE, change };
}

/**
 * The continuation's evidence from a trace: of the `excess` (E(rec) minus the fitted problem's exact solution),
 * the joules removed and the first checkpoint that removes at least CONTINUATION_REMOVES of it (else the largest
 * removal and its checkpoint).
 */
export function continuationEvidence(
  trace: GaussSeidelTrace,
  recordedEnergy: number,
  excess: number,
  islandContacts: number,
  spread: number,
): ContinuationEvidence {
  let removed = 0,
    sweeps = 0;
  for (let i = 0; i < trace.sweeps.length; i++) {
    const now = Math.min(excess, recordedEnergy - trace.energies[i]);
    if (now > removed) {
      removed = now;
      sweeps = trace.sweeps[i];
      if (removed >= CONTINUATION_REMOVES * excess) break;
    }
  }
  return { sweeps, ran: trace.sweeps.at(-1) ?? 0, islands: 1, excess, removed, spread, islandContacts };
}
