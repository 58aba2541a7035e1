/**
 * Counterfactual re-solves of one island's contact problem (docs/physics.md, "Counterfactual attribution").
 *
 * The recorded impulse λ_rec changes the island's kinetic energy by ΔKE(λ) = λᵀġ⁻ + ½λᵀAλ (A = J M⁻¹Jᵀ,
 * ġ⁻ = J v⁻; the work of an impulse, Stewart & Trinkle 1996) and, through the position update x⁺ = x + v⁺Δt of
 * semi-implicit Euler, its potential energy by λᵀp with p = −Δt·J_linᵀ… i.e. p_r = −Δt·g·(linear part of row r):
 * E(λ) = λᵀ(ġ⁻ + p) + ½λᵀAλ is the total-energy effect compared below (a Baumgarte push-out lifts bodies). The island's contact problem is rebuilt from
 * the recorded contacts and pre-solve state and solved EXACTLY (our interior-point method, to a KKT
 * tolerance) with three right-hand sides:
 *   law           b = −ġ⁻ + restitution target −e·ġn⁻ (Newton's law above the rest threshold, 0 below);
 *   stabilised    law + the stabilisation speed s per normal row (declared ERP bias, or what the data shows);
 *   recorded      the b the file holds (when it writes b), else the stabilised one.
 * An exact solution of the convex contact problem with a dissipative target never adds kinetic energy
 * (maximal dissipation, Moreau 1988; Anitescu & Potra 1997), so:
 *   ΔKE(rec) − ΔKE(exact, recorded b)   is what an exact solve of the SAME problem saves → the solve's share;
 *   ΔKE(exact, stabilised) − ΔKE(law)   is what removing the stabilisation term saves → stabilisation's share;
 *   what remains above the law, on contacts that hit a target other than the law, is the target's share.
 */
import { assembleJacobians, denseProblem, type ContactJacobians } from '../engine/assembly.js';
import type { BodyState, ContactPoint, ContactProblem } from '../engine/problem.js';
import { solve } from '../engine/solvers/solve.js';
import { kkt, KktWorkspace } from '../engine/kkt.js';
import { solveIpmSparse } from '../engine/solvers/ipmSparse.js';
import { kktRows } from '../engine/solvers/naturalMapSparse.js';
import { matrixFreeRows } from '../engine/solvers/pgsRows.js';
import { gapRatesAfter, impulseEnergyChange } from '../engine/world/energy.js';

/**
 * Islands larger than this many contacts are re-solved by the sparse interior point (ipmSparse.ts) instead of
 * the dense one (dense exact solve cost ~ (3C)³ per iteration).
 */
export const COUNTERFACTUAL_MAX_CONTACTS = 120;
/** The ε·I of the re-solved problems' A (tie-break of rank-deficient islands; excluded from the energies). */
export const COUNTERFACTUAL_REGULARIZATION = 1e-12;
/**
 * Work units per row and iteration of a sparse re-solve: `node dist/bench-solvers.js --quick` gives 3.3–5.1 µs
 * per row and interior-point iteration on the pile's and the pyramid's islands, 80–130 units at the 30–56 ns per
 * unit of resolveWork (bench:resolve-cost); the upper end, so the budget is not overrun.
 */
export const SPARSE_RESOLVE_ROW_WORK = 130;
/** Interior-point iterations a sparse re-solve is expected to take (bench:solvers: 16–37 on the large islands). */
export const SPARSE_RESOLVE_EXPECTED_ITERATIONS = 32;
/** KKT tolerance of the exact re-solves (relative, kkt.ts): joules to ~1e-6 of the island's scale. */
export const COUNTERFACTUAL_TOLERANCE = 1e-6;
/** A recorded λ whose relative KKT residual on the recorded problem is below this is an exact solution. */
export const RECORDED_EXACT_KKT = 1e-4;

export interface IslandCounterfactual {
  /** Total-energy effect E(λ) of the recorded λ (J). */
  readonly recorded: number;
  /** E(λ) of the exact solution with the law target, the stabilised target, the recorded b (J). */
  readonly law: number;
  readonly stabilised: number;
  readonly sameProblem: number;
  /** Relative KKT residual of the recorded λ on the recorded (or stabilised) problem. */
  readonly recordedKkt: number;
  /** Total milliseconds of the exact solves (varies with the machine). */
  readonly timeMs: number;
  /** Work of the exact solves in COUNTERFACTUAL_WORK units: the same on every machine. */
  readonly work: number;
}

/**
 * Work units of one interior-point iteration that do not grow with the island (calls, cone scalings, line
 * search, bookkeeping): measured by `npm run bench:resolve-cost`, which prints the CPU time per unit by
 * island size — with (3C)² alone a 4-contact island cost ~4× more per unit than a 40-contact one.
 */
export const RESOLVE_ITERATION_OVERHEAD = 400;

/**
 * The unit of re-solve work: one interior-point iteration on one row of an island's problem costs its row of
 * the Newton matrix and of the factor, ∝ (3C) entries; an iteration on the island is (3C)² units plus
 * RESOLVE_ITERATION_OVERHEAD. Budgets counted in it, not in milliseconds, make a diagnosis the same on every
 * machine (a CI check must not depend on the runner's load).
 */
export function resolveWork(contacts: number, iterations: number): number {
  return (iterations + 1) * ((3 * contacts) ** 2 + RESOLVE_ITERATION_OVERHEAD);
}

/** Work of a sparse re-solve in the same units: each iteration costs O(rows) (ipmSparse.ts), SPARSE_RESOLVE_ROW_WORK per row. */
export function sparseResolveWork(contacts: number, iterations: number): number {
  return (iterations + 1) * (3 * contacts * SPARSE_RESOLVE_ROW_WORK + RESOLVE_ITERATION_OVERHEAD);
}

export type CounterfactualOutcome = { readonly ok: true; readonly value: IslandCounterfactual } | { readonly ok: false; readonly reason: string };

/** p_r = −Δt·g·(linear part of row r over the dynamic bodies): potential energy per unit impulse (J per N·s). */
export function potentialRows(k: ContactJacobians, gravity: readonly number[], dt: number): Float64Array {
  const out = new Float64Array(k.size);
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  for (let c = 0; c < k.contactCount; c++) {
    for (let r = 0; r < 3; r++) {
      const o = 18 * c + 6 * r;
      let s = 0;
      if (!k.staticA[c]) s += gravity[0] * JA[o] + gravity[1] * JA[o + 1] + gravity[2] * JA[o + 2];
      if (!k.staticB[c]) s += gravity[0] * JB[o] + gravity[1] * JB[o + 1] + gravity[2] * JB[o + 2];
      out[3 * c + r] = -dt * s;
    }
  }
  return out;
}

/** E(λ) = λᵀ(ġ⁻ + p) + ½λᵀAλ with ġ⁻ = −rhs.velocity (A without its regularisation); p = 0 gives ΔKE. */
export function energyChange(p: ContactProblem, lambda: ArrayLike<number>, pe?: Float64Array): number {
  const n = p.size,
    A = p.A,
    v = p.rhs!.velocity;
  let de = 0;
  for (let i = 0; i < n; i++) {
    let s = -p.regularization * lambda[i];
    for (let j = 0; j < n; j++) s += A[i * n + j] * lambda[j];
    de += lambda[i] * (-v[i] + (pe ? pe[i] : 0) + 0.5 * s);
  }
  return de;
}

function withB(p: ContactProblem, b: Float64Array): ContactProblem {
  return { ...p, b };
}

/** Sort key of a contact: its lower body index first (the static world, −1, sorts with its partner). */
function bodyKey(c: ContactPoint): number {
  const lo = Math.min(c.bodyA < 0 ? c.bodyB : c.bodyA, c.bodyB < 0 ? c.bodyA : c.bodyB);
  return lo * 1e6 + Math.max(c.bodyA, c.bodyB);
}

/**
 * Re-solves one island: `bodies` at solve time (all bodies of the frame), `contacts` the island's
 * contacts, `lambda` its recorded λ (3 per contact), `stabilisation` the speed s per contact,
 * `recordedB` the file's b for these rows if it holds one.
 */
export function islandCounterfactual(
  bodies: readonly BodyState[],
  contacts: readonly ContactPoint[],
  lambda: Float64Array,
  stabilisation: Float64Array,
  restVelocityThreshold: number,
  dt: number,
  gravity: readonly number[],
  recordedB?: Float64Array,
  workLeft = Number.POSITIVE_INFINITY,
): CounterfactualOutcome {
  const C = contacts.length;
  const sparse = C > COUNTERFACTUAL_MAX_CONTACTS;
  const hasStab = stabilisation.some((s) => s > 0);
  if (sparse) {
    // one solve per right-hand side: law, stabilised (if any), recorded b (if any); checked before any assembly
    const predicted = (1 + (hasStab ? 1 : 0) + (recordedB ? 1 : 0)) * sparseResolveWork(C, SPARSE_RESOLVE_EXPECTED_ITERATIONS);
    if (predicted > workLeft)
      return {
        ok: false,
        reason: `the exact re-solves of this ${C}-contact island (≈ ${predicted.toExponential(1)} work units) exceed the re-solve budget left (${workLeft.toExponential(1)})`,
      };
  }
  // dense: contacts ordered by their bodies make A block-banded for stacks and chains, which the envelope
  // Cholesky exploits (the energies do not depend on the order; the sparse solve orders its own factor)
  const order = sparse ? null : contacts.map((_, i) => i).sort((i, j) => bodyKey(contacts[i]) - bodyKey(contacts[j]) || i - j);
  if (order?.some((o, i) => o !== i)) {
    const perm3 = (x: Float64Array): Float64Array => {
      const y = new Float64Array(x.length);
      order.forEach((o, i) => {
        y[3 * i] = x[3 * o];
        y[3 * i + 1] = x[3 * o + 1];
        y[3 * i + 2] = x[3 * o + 2];
      });
      return y;
    };
    return islandCounterfactual(
      bodies,
      order.map((o) => contacts[o]),
      perm3(lambda),
      Float64Array.from(order, (o) => stabilisation[o]),
      restVelocityThreshold,
      dt,
      gravity,
      recordedB ? perm3(recordedB) : undefined,
      workLeft,
    );
  }
  const k = assembleJacobians(bodies, contacts, { dt, baumgarte: false, restVelocityThreshold, regularization: 0 });
  const pe = potentialRows(k, gravity, dt);
  const bLaw = k.b;
  const bStab = Float64Array.from(bLaw);
  for (let c = 0; c < C; c++) bStab[3 * c] += stabilisation[c];
  const resolver = sparse ? sparseResolver(k, pe) : denseResolver(k, contacts, pe);
  const eLaw = resolver.exact(bLaw);
  if (typeof eLaw === 'string') return { ok: false, reason: eLaw };
  let eStab = eLaw;
  if (hasStab) {
    const x = resolver.exact(bStab);
    if (typeof x === 'string') return { ok: false, reason: x };
    eStab = x;
  }
  let eSame = eStab;
  if (recordedB) {
    const x = resolver.exact(recordedB);
    if (typeof x === 'string') return { ok: false, reason: x };
    eSame = x;
  }
  const rec = resolver.recorded(lambda, recordedB ?? bStab);
  return {
    ok: true,
    value: { recorded: rec.energy, law: eLaw, stabilised: eStab, sameProblem: eSame, recordedKkt: rec.kkt, timeMs: resolver.timeMs, work: resolver.work },
  };
}

/** One island's exact re-solves: dense (A formed) up to COUNTERFACTUAL_MAX_CONTACTS, sparse beyond. */
interface Resolver {
  /** E(λ*) of the exact solution with right-hand side b, or why there is none. */
  exact(b: Float64Array): number | string;
  /** E(λ) of a given λ, and its KKT residual on the problem with right-hand side b. */
  recorded(lambda: Float64Array, b: Float64Array): { readonly energy: number; readonly kkt: number };
  readonly timeMs: number;
  readonly work: number;
}

const RESOLVE_OPTIONS = { solver: 'ipm', tolerance: COUNTERFACTUAL_TOLERANCE, maxIterations: 80 } as const;
const notConverged = (kind: string, reason: string): string => `the exact re-solve did not converge (${kind}: ${reason})`;

function denseResolver(k: ContactJacobians, contacts: readonly ContactPoint[], pe: Float64Array): Resolver {
  const law = denseProblem(k, contacts, COUNTERFACTUAL_REGULARIZATION);
  const C = contacts.length;
  const r = {
    timeMs: 0,
    work: 0,
    exact(b: Float64Array): number | string {
      const p = withB(law, b);
      const out = solve(p, RESOLVE_OPTIONS);
      r.timeMs += out.timeMs;
      r.work += resolveWork(C, out.iterations);
      if (out.status.kind !== 'converged') return notConverged(out.status.kind, out.status.reason);
      return energyChange(p, out.lambda, pe);
    },
    recorded(lambda: Float64Array, b: Float64Array) {
      return { energy: energyChange(law, lambda, pe), kkt: kkt(withB(law, b), lambda).maxRel };
    },
  };
  return r;
}

/**
 * Beyond COUNTERFACTUAL_MAX_CONTACTS: the sparse interior point (ipmSparse.ts, A never formed), E(λ) from
 * w = Aλ − b of its matrix-free rows: (A − εI)λ = w + b − ελ.
 */
function sparseResolver(k: ContactJacobians, pe: Float64Array): Resolver {
  const C = k.contactCount;
  const withRhs = (b: Float64Array): ContactJacobians => ({ ...k, b, regularization: COUNTERFACTUAL_REGULARIZATION });
  // E(λ) = λᵀ(ġ⁻ + p) + ½λᵀ(ġ⁺ − ġ⁻), ġ⁺ from the solve's w (energyChange above, without A)
  const energy = (kb: ContactJacobians, lambda: Float64Array, w: Float64Array): number => impulseEnergyChange(kb, lambda, gapRatesAfter(kb, lambda, w, 0), pe);
  const r = {
    timeMs: 0,
    work: 0,
    exact(b: Float64Array): number | string {
      const kb = withRhs(b);
      const out = solveIpmSparse(kb, RESOLVE_OPTIONS, 0);
      r.timeMs += out.timeMs;
      r.work += sparseResolveWork(C, out.iterations);
      if (out.status.kind !== 'converged') return notConverged(out.status.kind, out.status.reason);
      return energy(kb, out.lambda, out.w);
    },
    recorded(lambda: Float64Array, b: Float64Array) {
      const ws = new KktWorkspace(k.size);
      const kb = withRhs(b);
      const rep = kktRows(matrixFreeRows(kb), lambda, ws);
      return { energy: energy(kb, lambda, ws.w), kkt: rep.maxRel };
    },
  };
  return r;
}
