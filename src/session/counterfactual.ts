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
import {
  assembleJacobians,
  type BodyState,
  type ContactJacobians,
  type ContactPoint,
  type ContactProblem,
  denseProblem,
  gapRatesAfter,
  GaussSeidelContinuation,
  impulseEnergyChange,
  kkt,
  kktRows,
  KktWorkspace,
  matrixFreeRows,
  type PgsFrictionLaw,
  solve,
  solveIpmSparse,
  solveMatrixFree,
  hypot2Exact,
} from '../engine/index.js';

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

/**
 * Work units of one Gauss–Seidel continuation sweep per row (dense: a row of A per row, (3C)² per sweep, against
 * an interior-point iteration's factorisation; matrix-free: a fixed cost per row): `npm run bench:resolve-cost`
 * prints the CPU time per unit of each, so a budget counts both alike.
 */
export const CONTINUATION_DENSE_SWEEP_FRACTION = 0.02;
export const CONTINUATION_SPARSE_ROW_WORK = 6;

/** Work of `sweeps` continuation sweeps on an island of `contacts` contacts. */
export function continuationWork(contacts: number, sweeps: number, sparse: boolean): number {
  return sparse ? sweeps * 3 * contacts * CONTINUATION_SPARSE_ROW_WORK : sweeps * CONTINUATION_DENSE_SWEEP_FRACTION * (3 * contacts) ** 2;
}

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

/** Sort key of a contact: its lower body index first (the static world, −1, sorts with its partner). */
function bodyKey(c: ContactPoint): number {
  const lo = Math.min(c.bodyA < 0 ? c.bodyB : c.bodyA, c.bodyB < 0 ? c.bodyA : c.bodyB);
  return lo * 1e6 + Math.max(c.bodyA, c.bodyB);
}

/** Energies along a Gauss–Seidel continuation from a given λ (continuation.ts decides what they prove). */
export interface Continuation {
  /** Runs n more sweeps; returns E(λ) after them (J). */
  sweep(n: number): number;
  readonly sweeps: number;
  /** ‖Δλ‖∞/‖λ‖∞ of the last sweep (0 at a fixed point). */
  readonly change: number;
}

/**
 * One island's contact problem rebuilt from the recorded contacts and pre-solve state, to be solved EXACTLY with
 * any right-hand side b = velocityPart + targets on the normal rows (docs/physics.md "Counterfactual
 * attribution"). Vectors are in the island's contact order (3 per contact); the dense path orders the contacts by
 * body inside (A block-banded for stacks and chains, which the envelope Cholesky exploits) and maps back.
 */
export interface IslandResolver {
  readonly contactCount: number;
  readonly sparse: boolean;
  /** −ġ⁻ per row: b_n = velocityPart_n + target, b_t = velocityPart_t. */
  readonly velocityPart: Float64Array;
  /** Newton's law targets with the assembly's rest threshold, as b (the reference problem). */
  readonly lawB: Float64Array;
  /** E(λ*) of the exact (convex QP-SOCP) solution with right-hand side b (J), or why there is none. */
  exact(b: Float64Array): number | string;
  /**
   * The same with the solution's λ and slip ‖w_t‖ per contact (m/s): De Saxcé's fixed point iterates on it. Given a
   * warm start near the solution (the previous fixed-point step's λ), the dense path starts its interior point from
   * it (ipm.ts); the sparse path starts cold.
   */
  exactWithSlip(b: Float64Array, warm?: Float64Array): ExactSolution | string;
  /**
   * E(λ) of an exact solution of Coulomb's law itself with right-hand side b (J): the exact Coulomb solver
   * (coulomb.ts) from `warm`, to COUNTERFACTUAL_TOLERANCE on the Coulomb merit; or why there is none.
   */
  coulomb(b: Float64Array, warm: Float64Array): number | string;
  /** E(λ) of a given λ (J). */
  energy(lambda: Float64Array): number;
  /** KKT max_rel of λ on the problem with right-hand side b. */
  kkt(lambda: Float64Array, b: Float64Array): number;
  /** A Gauss–Seidel continuation from λ on the problem with right-hand side b, with the engine's friction law. */
  continuation(b: Float64Array, lambda: Float64Array, law: PgsFrictionLaw): Continuation;
  /** Exact solves' milliseconds (varies with the machine) and work units (the same on every machine). */
  readonly timeMs: number;
  readonly work: number;
}

export interface ExactSolution {
  readonly energy: number;
  readonly lambda: Float64Array;
  readonly slip: Float64Array;
}

export type ResolverOutcome = { readonly ok: true; readonly value: IslandResolver } | { readonly ok: false; readonly reason: string };

/** ‖w_t‖ per contact: the slip after the impulse (w_t = ġt⁺ with b_t = −ġt⁻). */
function slipsOf(w: Float64Array, C: number): Float64Array {
  const out = new Float64Array(C);
  for (let c = 0; c < C; c++) out[c] = hypot2Exact(w[3 * c + 1], w[3 * c + 2]);
  return out;
}

/**
 * The dense re-solves refine a Newton solve only where its matrix needed a shift (ipm.ts): at a KKT tolerance of
 * 1e-6 the round-off polish of an unshifted factor changes no energy to its printed digits (bench/findingsSnapshot.ts)
 * and was a quarter of the diagnosis' CPU time (bench:diagnose).
 */
const RESOLVE_OPTIONS = { solver: 'ipm', tolerance: COUNTERFACTUAL_TOLERANCE, maxIterations: 80, refinement: 'shifted' } as const;
/**
 * Coulomb's law itself (coulomb.ts). Its work is counted as an interior-point iteration per Gauss–Seidel sweep or
 * Newton step, which bounds the sweeps from above.
 */
const COULOMB_RESOLVE_OPTIONS = { solver: 'coulomb', tolerance: COUNTERFACTUAL_TOLERANCE } as const;
/** The sparse Coulomb solve's Δv is not needed (solveMatrixFree adds it into this empty array: nothing). */
const NO_VELOCITY_CHANGES = new Float64Array(0);
const notConverged = (kind: string, reason: string): string => `the exact re-solve did not converge (${kind}: ${reason})`;

/**
 * The island's resolver: `bodies` at solve time (all bodies of the frame), `contacts` the island's contacts.
 * `solves` exact solves are planned: beyond COUNTERFACTUAL_MAX_CONTACTS (sparse) a plan predicted to exceed
 * `workLeft` is refused before any assembly.
 */
export function islandResolver(
  bodies: readonly BodyState[],
  contacts: readonly ContactPoint[],
  restVelocityThreshold: number,
  dt: number,
  gravity: readonly number[],
  solves: number,
  workLeft = Number.POSITIVE_INFINITY,
): ResolverOutcome {
  const C = contacts.length;
  const sparse = C > COUNTERFACTUAL_MAX_CONTACTS;
  if (sparse) {
    const predicted = solves * sparseResolveWork(C, SPARSE_RESOLVE_EXPECTED_ITERATIONS);
    if (predicted > workLeft)
      return {
        ok: false,
        reason: `the exact re-solves of this ${C}-contact island (≈ ${predicted.toExponential(1)} work units) exceed the re-solve budget left (${workLeft.toExponential(1)})`,
      };
  }
  const order: number[] = sparse ? [] : contacts.map((_, i) => i).sort((i, j) => bodyKey(contacts[i]) - bodyKey(contacts[j]) || i - j);
  const permuted = order.some((o, i) => o !== i);
  const sorted = permuted ? order.map((o) => contacts[o]) : contacts;
  const k = assembleJacobians(bodies, sorted, { dt, baumgarte: false, restVelocityThreshold, regularization: 0 });
  const pe = potentialRows(k, gravity, dt);
  const inner = sparse ? sparseResolver(k, pe) : denseResolver(k, sorted, pe);
  // island order ↔ solve order: solve position i holds island contact order[i]
  const toSolve = (x: Float64Array): Float64Array => {
    if (!permuted) return x;
    const y = new Float64Array(x.length);
    for (let i = 0; i < C; i++) for (let r = 0; r < 3; r++) y[3 * i + r] = x[3 * order[i] + r];
    return y;
  };
  const toIsland = (y: Float64Array): Float64Array => {
    if (!permuted) return Float64Array.from(y);
    const x = new Float64Array(y.length);
    for (let i = 0; i < C; i++) for (let r = 0; r < 3; r++) x[3 * order[i] + r] = y[3 * i + r];
    return x;
  };
  return {
    ok: true,
    value: {
      contactCount: C,
      sparse,
      velocityPart: toIsland(k.rhs.velocity),
      lawB: toIsland(k.b),
      exact: (b) => inner.exact(toSolve(b)),
      exactWithSlip: (b, warm) => {
        const x = inner.exactWithSlip(toSolve(b), warm && toSolve(warm));
        if (typeof x === 'string' || !permuted) return x;
        const slip = new Float64Array(C);
        for (let i = 0; i < C; i++) slip[order[i]] = x.slip[i];
        return { energy: x.energy, lambda: toIsland(x.lambda), slip };
      },
      coulomb: (b, warm) => inner.coulomb(toSolve(b), toSolve(warm)),
      energy: (lambda) => inner.energy(toSolve(lambda)),
      kkt: (lambda, b) => inner.kkt(toSolve(lambda), toSolve(b)),
      continuation: (b, lambda, law) => inner.continuation(toSolve(b), toSolve(lambda), law),
      get timeMs() {
        return inner.timeMs;
      },
      get work() {
        return inner.work;
      },
    },
  };
}

type InnerResolver = Omit<IslandResolver, 'contactCount' | 'sparse' | 'velocityPart' | 'lawB'>;

function denseResolver(k: ContactJacobians, contacts: readonly ContactPoint[], pe: Float64Array): InnerResolver {
  const law = denseProblem(k, COUNTERFACTUAL_REGULARIZATION);
  const C = contacts.length;
  const withB = (b: Float64Array): ContactProblem => ({ ...law, b });
  const r = {
    timeMs: 0,
    work: 0,
    exact(b: Float64Array): number | string {
      const x = r.exactWithSlip(b);
      return typeof x === 'string' ? x : x.energy;
    },
    exactWithSlip(b: Float64Array, warm?: Float64Array) {
      const p = withB(b);
      const out = solve(p, RESOLVE_OPTIONS, warm);
      r.timeMs += out.timeMs;
      r.work += resolveWork(C, out.iterations);
      if (out.status.kind !== 'converged') return notConverged(out.status.kind, out.status.reason);
      return { energy: energyChange(p, out.lambda, pe), lambda: out.lambda, slip: slipsOf(out.w, C) };
    },
    coulomb(b: Float64Array, warm: Float64Array): number | string {
      const p = withB(b);
      const out = solve(p, COULOMB_RESOLVE_OPTIONS, warm);
      r.timeMs += out.timeMs;
      r.work += resolveWork(C, out.iterations);
      if (out.status.kind !== 'converged') return notConverged(out.status.kind, out.status.reason);
      return energyChange(p, out.lambda, pe);
    },
    energy: (lambda: Float64Array): number => energyChange(law, lambda, pe),
    kkt: (lambda: Float64Array, b: Float64Array): number => kkt(withB(b), lambda).maxRel,
    continuation(b: Float64Array, lambda: Float64Array, fl: PgsFrictionLaw): Continuation {
      // matrix-free rows: the same iterates as the dense ones (pgsSweep.ts), O(C) per sweep instead of O(C²)
      const gs = new GaussSeidelContinuation(matrixFreeRows({ ...k, b, regularization: COUNTERFACTUAL_REGULARIZATION }), lambda, fl);
      let change = Number.POSITIVE_INFINITY;
      return {
        sweep(n: number): number {
          change = gs.sweep(n);
          r.work += continuationWork(C, n, true);
          return energyChange(law, gs.lambda, pe);
        },
        get sweeps() {
          return gs.sweeps;
        },
        get change() {
          return change;
        },
      };
    },
  };
  return r;
}

/**
 * Beyond COUNTERFACTUAL_MAX_CONTACTS: the sparse interior point (ipmSparse.ts, A never formed), E(λ) from
 * w = Aλ − b of its matrix-free rows: (A − εI)λ = w + b − ελ.
 */
function sparseResolver(k: ContactJacobians, pe: Float64Array): InnerResolver {
  const C = k.contactCount;
  const withRhs = (b: Float64Array): ContactJacobians => ({ ...k, b, regularization: COUNTERFACTUAL_REGULARIZATION });
  // E(λ) = λᵀ(ġ⁻ + p) + ½λᵀ(ġ⁺ − ġ⁻), ġ⁺ from the solve's w (energyChange above, without A)
  const energy = (kb: ContactJacobians, lambda: Float64Array, w: Float64Array): number => impulseEnergyChange(kb, lambda, gapRatesAfter(kb, lambda, w, 0), pe);
  const ws = new KktWorkspace(k.size);
  const measured = (lambda: Float64Array, b: Float64Array): { energy: number; kkt: number } => {
    const kb = withRhs(b);
    const rep = kktRows(matrixFreeRows(kb), lambda, ws);
    return { energy: energy(kb, lambda, ws.w), kkt: rep.maxRel };
  };
  const r = {
    timeMs: 0,
    work: 0,
    exact(b: Float64Array): number | string {
      const x = r.exactWithSlip(b);
      return typeof x === 'string' ? x : x.energy;
    },
    exactWithSlip(b: Float64Array) {
      const kb = withRhs(b);
      const out = solveIpmSparse(kb, RESOLVE_OPTIONS, 0);
      r.timeMs += out.timeMs;
      r.work += sparseResolveWork(C, out.iterations);
      if (out.status.kind !== 'converged') return notConverged(out.status.kind, out.status.reason);
      return { energy: energy(kb, out.lambda, out.w), lambda: out.lambda, slip: slipsOf(out.w, C) };
    },
    coulomb(b: Float64Array, warm: Float64Array): number | string {
      const kb = withRhs(b);
      const out = solveMatrixFree(kb, COULOMB_RESOLVE_OPTIONS, 0, warm, NO_VELOCITY_CHANGES);
      r.timeMs += out.timeMs;
      r.work += sparseResolveWork(C, out.iterations);
      if (out.status.kind !== 'converged') return notConverged(out.status.kind, out.status.reason);
      return energy(kb, out.lambda, out.w);
    },
    energy: (lambda: Float64Array): number => measured(lambda, k.b).energy,
    kkt: (lambda: Float64Array, b: Float64Array): number => measured(lambda, b).kkt,
    continuation(b: Float64Array, lambda: Float64Array, fl: PgsFrictionLaw): Continuation {
      const gs = new GaussSeidelContinuation(matrixFreeRows(withRhs(b)), lambda, fl);
      let change = Number.POSITIVE_INFINITY;
      return {
        sweep(n: number): number {
          change = gs.sweep(n);
          r.work += continuationWork(C, n, true);
          return measured(gs.lambda, b).energy;
        },
        get sweeps() {
          return gs.sweeps;
        },
        get change() {
          return change;
        },
      };
    },
  };
  return r;
}
