/**
 * Exact Coulomb friction (docs/physics.md "Coulomb's law and the De Saxcé fixed point"): find λ with
 *
 *   λ ∈ K,  ũ = u + μ‖u_t‖e_n ∈ K*,  λ ⊥ ũ,   u = Aλ − b            (De Saxcé & Feng 1991)
 *
 * — a sliding contact keeps u_n = 0, where the convex QP-SOCP lifts it to u_n = μ‖u_t‖ (docs/physics.md
 * "The lift"). The problem is not convex and A (FCLIB's W) is used as given: block-sparse (math/blockRows.ts),
 * neither symmetry nor definiteness assumed. The solver is the hybrid that Acary, Brémond & Huber's comparison
 * on FCLIB ("On solving contact problems with Coulomb friction: formulations and numerical comparisons",
 * 2018) points to, as in Siconos:
 *
 *  1. non-smooth block Gauss–Seidel with the exact one-contact solver (coulombNsgs.ts, coulombLocal.ts) while
 *     it converges fast — small and well-conditioned problems end here;
 *  2. when it slows down, proximal-point iterations (Rockafellar 1976; Siconos's PROX) whose subproblems
 *     W + σI, q − σλ̄ are solved by semismooth Newton on the Alart–Curnier formulation with block-sparse LU
 *     (coulombAcNewton.ts); σ = PROX_ALPHA·d̄·merit (d̄: mean diagonal of W) shrinks after each solved
 *     subproblem, and grows ×10 when one is not solved (Siconos's rule);
 *  3. when the proximal phase stops improving, Gauss–Seidel again from the best iterate, then Newton with the
 *     next step scale ρ (AC_RHO_SCALES); after COULOMB_GIVE_UP cycles without progress, for a symmetric A of at
 *     most FIXED_POINT_MAX_UNKNOWNS unknowns, the De Saxcé fixed point over the interior point
 *     (coulombFixedPoint.ts) is the last resort, with the rest of the budget.
 *
 * The status is decided on the Coulomb merit only (coulombMerit.ts, the FCLIB natural-map residual): "converged"
 * when it is ≤ tolerance on finite data; "stalled" when a whole cycle of both phases does not lower it;
 * "max-iterations" when the budget runs out; "failed" when the merit is not finite. λ is the iterate with the
 * smallest merit. `iterations` counts Gauss–Seidel sweeps and Newton steps; the history has the merit after each.
 * A warm start, projected onto K, is the first iterate.
 */
import { SYMMETRY_TOLERANCE, type ContactProblem } from '../problem.js';
import { projectCone } from '../cone.js';
import { coulombLawResidualFrom, coulombMeritFromU } from '../coulombMerit.js';
import { formatCount, formatNumber } from '../numberText.js';
import { blockRowsFromDense, blockRowsMulAdd, BlockRowsStorage, type BlockRows } from '../math/blockRows.js';
import { HistoryRecorder } from './history.js';
import { AC_RHO_SCALES, AcNewton } from './coulombAcNewton.js';
import { FIXED_POINT_MAX_ITERATIONS, solveCoulombFixedPoint } from './coulombFixedPoint.js';
import { coulombSweep, type SweepReport } from './coulombNsgs.js';
import type { AlgorithmOutput, CoulombOptions, SolveStatus } from './types.js';

/** Default budget of Gauss–Seidel sweeps and Newton steps together. */
export const COULOMB_DEFAULT_MAX_ITERATIONS = 1000;
/** Default tolerance on the Coulomb merit (FCLIB's natural-map residual, relative to 1 + ‖q‖). */
export const COULOMB_DEFAULT_TOLERANCE = 1e-9;
/**
 * A sweep is fast when it multiplies the merit by at most COULOMB_SWEEP_RATE; after COULOMB_SWEEP_PATIENCE
 * slow sweeps (or COULOMB_SWEEP_LIMIT sweeps in one phase) the proximal Newton phase takes over.
 */
/**
 * Largest scale-free residual of Coulomb's law per contact (coulombMerit.ts coulombLawResidual) that "converged"
 * accepts beside the merit's tolerance: the merit alone said "converged" for λ = 0 on A = I, b = (1, 1, 0),
 * μ = 1e9 (a contact left approaching at 1 m/s) and on problems with ‖b‖ ≈ 1e-9 (the merit is absolute there).
 */
export const COULOMB_LAW_TOLERANCE = 1e-6;
export const COULOMB_SWEEP_RATE = 0.5;
export const COULOMB_SWEEP_PATIENCE = 3;
export const COULOMB_SWEEP_LIMIT = 50;
/** σ = PROX_ALPHA·d̄·merit at a new proximal centre (Siconos uses σ = 5·error, unscaled). */
export const PROX_ALPHA = 0.001;
/** σ shrinks at least by this factor after a solved subproblem (Siconos's regularisation strategy: ÷10). */
export const PROX_SHRINK = 0.1;
/** A subproblem counts as solved when Newton lowers its ‖F‖ by this factor (Siconos's internal error ratio 10). */
export const PROX_INNER_RATIO = 0.1;
/** The proximal phase ends after PROX_PATIENCE subproblems that do not lower the best merit by PROX_PROGRESS. */
export const PROX_PATIENCE = 8;
export const PROX_PROGRESS = 0.5;
/** A subproblem is abandoned (σ ×10) after PROX_SHORT_STEPS Newton steps in a row shorter than PROX_SHORT_STEP. */
export const PROX_SHORT_STEP = 0.1;
export const PROX_SHORT_STEPS = 2;
/** Newton steps at most per subproblem. */
export const PROX_INNER_STEPS = 30;
/** Unsolved subproblems in a row (σ ×10 each) before Gauss–Seidel takes over again. */
export const PROX_FAILURES = 4;
/** Share of the budget the hybrid may use when the De Saxcé fixed point can follow it. */
export const HYBRID_SHARE = 0.7;
/** Largest problem given to the De Saxcé fixed point (dense interior point, O(n³) per iteration). */
export const FIXED_POINT_MAX_UNKNOWNS = 300;
/** A cycle makes progress when it lowers the best merit by this factor. */
export const CYCLE_PROGRESS = 0.9;
/** Cycles (sweeps + proximal phase) without a new best merit before "stalled". */
export const COULOMB_GIVE_UP = AC_RHO_SCALES.length;

/**
 * Largest Float64Array V8 keeps in its heap (--typed-array-max-size-in-heap, 64 bytes): allocating one costs ~50 ns,
 * a larger one's separate backing store ~10× more — so the result's λ and u are two arrays up to this length, one
 * buffer cut in two beyond.
 */
const IN_HEAP_DOUBLES = 8;

/** One solve's problem data, iterate, best iterate and history (methods rather than closures: small solves are µs). */
class CoulombState {
  readonly r: Float64Array;
  readonly u: Float64Array;
  readonly best: Float64Array;
  /** u = Aλ − b of the best iterate (bit-identical to the dense product: blockRows.ts). */
  readonly bestU: Float64Array;
  readonly q: Float64Array;
  readonly history: HistoryRecorder;
  bestMerit = Number.POSITIVE_INFINITY;
  iterations = 0;
  sweeps = 0;
  newtonSteps = 0;
  readonly report: SweepReport = { change: 0, unsolved: 0 };
  /**
   * Slow sweeps tolerated before Newton: COULOMB_SWEEP_PATIENCE, or W's mean blocks per row when more — a Newton
   * step's block LU costs more sweeps the denser W is (its fill grows with the blocks per row: a Kapla tower's 27
   * against a capsule pile's 4.5).
   */
  readonly sweepPatience: number;
  /** Largest diagonal entry of W (the impulse scale of the per-contact law check). */
  private diagMax = 0;
  /** The contact and residual that kept a small merit from "converged" (Coulomb's law per contact), if any. */
  lawContact = -1;
  lawResidual = 0;
  constructor(
    readonly W: BlockRows,
    readonly b: Float64Array,
    readonly mu: Float64Array,
    public tol: number,
    readonly maxIt: number,
    work: SolveWork,
  ) {
    const n = b.length;
    // the diagonal block is always stored (blockRows.ts), its diagonal at 0, 4, 8
    for (let c = 0; c < W.blocks; c++) for (let r = 0; r < 3; r++) this.diagMax = Math.max(this.diagMax, W.val[9 * W.diag[c] + 4 * r]);
    // the iterate, its velocity and q are work vectors (reused across solves of one size: SolveScratch); the best
    // iterate and its velocity are the result (a one-contact solve takes microseconds; allocations dominated it)
    if (n <= IN_HEAP_DOUBLES) {
      this.best = new Float64Array(n);
      this.bestU = new Float64Array(n);
    } else {
      const out = new Float64Array(2 * n);
      this.best = out.subarray(0, n);
      this.bestU = out.subarray(n, 2 * n);
    }
    this.r = work.r;
    this.u = work.u;
    this.q = work.q;
    this.r.fill(0);
    for (let i = 0; i < n; i++) this.q[i] = -b[i];
    this.history = new HistoryRecorder(maxIt);
    this.sweepPatience = Math.max(COULOMB_SWEEP_PATIENCE, Math.ceil(W.rowPtr[W.blocks] / W.blocks));
  }

  /** The merit of (r, u) as one more iteration (history, best so far); returns it. */
  record(): number {
    this.iterations++;
    return this.note();
  }

  /** The merit of (r, u) into the history and the best iterate, without counting an iteration. */
  note(): number {
    const m = coulombMeritFromU(this.mu, this.b, this.r, this.u);
    this.history.record(m, objective(this.r, this.u, this.b));
    if (m < this.bestMerit) {
      this.bestMerit = m;
      this.best.set(this.r);
      this.bestU.set(this.u);
    }
    return m;
  }

  /**
   * The best iterate solves the problem: its merit meets the tolerance and every contact meets Coulomb's law in
   * scale-free terms (COULOMB_LAW_TOLERANCE). When only the law fails, the merit's target is tightened so the
   * iteration goes on (the merit and the law agree near a solution; they differ where its scaling hides a contact).
   */
  converged(): boolean {
    if (!(this.bestMerit <= this.tol)) return false;
    const law = coulombLawResidualFrom(this.mu, this.b, this.diagMax, this.best, this.bestU);
    if (law.value <= COULOMB_LAW_TOLERANCE) return true;
    this.tol = Math.min(this.tol, 0.1 * this.bestMerit);
    this.lawContact = law.contact;
    this.lawResidual = law.value;
    return false;
  }

  /** u = W r + q. */
  velocity(): void {
    blockRowsMulAdd(this.W, this.r, this.q, this.u);
  }

  finish(status: SolveStatus): AlgorithmOutput {
    return {
      lambda: this.best,
      w: this.bestU,
      iterations: this.iterations,
      status,
      regularization: 0,
      history: this.history.finish(),
      merit: { problem: 'coulomb', value: this.bestMerit },
    };
  }

  summary(): string {
    const what =
      this.lawContact >= 0
        ? `Coulomb merit ${formatNumber(this.bestMerit)} but contact ${this.lawContact} breaks Coulomb's law (relative residual ${formatNumber(this.lawResidual)} > ${formatNumber(COULOMB_LAW_TOLERANCE)})`
        : `Coulomb merit ${formatNumber(this.bestMerit)} > tolerance ${formatNumber(this.tol)}`;
    return `${what} (${formatCount(this.sweeps, 'Gauss–Seidel sweep')}, ${formatCount(this.newtonSteps, 'Newton step')})`;
  }
}

/** A solve's iterate r, its velocity u = W r + q and q = −b (n numbers each; their contents are the solve's own). */
class SolveWork {
  readonly r: Float64Array;
  readonly u: Float64Array;
  readonly q: Float64Array;
  constructor(readonly n: number) {
    this.r = new Float64Array(n);
    this.u = new Float64Array(n);
    this.q = new Float64Array(n);
  }
}

/**
 * Buffers a solve reuses from the previous one (W's block rows for a dense problem, the work vectors of the last
 * size): warm solves of one problem — the inspector's, a bench's, a diagnosis's re-solves of one island — then
 * allocate only their result. Taken for the length of one solve; a nested solve (none today) gets fresh ones.
 */
class SolveScratch {
  readonly rows = new BlockRowsStorage();
  private work = new SolveWork(0);
  inUse = false;
  /** Work vectors of n numbers (the last ones when n is unchanged). */
  workOf(n: number): SolveWork {
    if (this.work.n !== n) this.work = new SolveWork(n);
    return this.work;
  }
}

const scratch = new SolveScratch();

export function solveCoulomb(p: ContactProblem, opts: CoulombOptions, warmStart?: Float64Array): AlgorithmOutput {
  if (scratch.inUse) return solveCoulombBlocks(blockRowsFromDense(p.A, p.contactCount), p.b, p.mu, opts, warmStart, fixedPointApplies(p) ? p : null);
  const W = blockRowsFromDense(p.A, p.contactCount, scratch.rows);
  return solveCoulombBlocks(W, p.b, p.mu, opts, warmStart, fixedPointApplies(p) ? p : null);
}

/**
 * The exact Coulomb solve on W given by block rows (no dense A needed: coulombMatrixFree.ts builds them from an
 * island's Jacobians), u = Wλ − b. `lastResort`: the dense problem the De Saxcé fixed point may finish, or null.
 */
export function solveCoulombBlocks(
  W: BlockRows,
  b: Float64Array,
  mu: Float64Array,
  opts: CoulombOptions,
  warmStart: Float64Array | undefined,
  lastResortProblem: ContactProblem | null,
): AlgorithmOutput {
  if (scratch.inUse) return solveWith(new SolveWork(b.length), W, b, mu, opts, warmStart, lastResortProblem);
  scratch.inUse = true;
  try {
    return solveWith(scratch.workOf(b.length), W, b, mu, opts, warmStart, lastResortProblem);
  } finally {
    scratch.inUse = false;
  }
}

/** solveCoulombBlocks with `work` for the iterate, its velocity and q. */
function solveWith(
  work: SolveWork,
  W: BlockRows,
  b: Float64Array,
  mu: Float64Array,
  opts: CoulombOptions,
  warmStart: Float64Array | undefined,
  lastResortProblem: ContactProblem | null,
): AlgorithmOutput {
  const maxIt = Math.max(0, Math.floor(opts.maxIterations ?? COULOMB_DEFAULT_MAX_ITERATIONS));
  const tol = opts.tolerance ?? COULOMB_DEFAULT_TOLERANCE;
  const C = W.blocks;
  // with a last resort, the hybrid leaves it part of the budget
  const hybridBudget = lastResortProblem ? Math.ceil(HYBRID_SHARE * maxIt) : maxIt;
  const s = new CoulombState(W, b, mu, tol, hybridBudget, work);
  if (warmStart) for (let c = 0; c < C; c++) projectCone(warmStart, 3 * c, mu[c], s.r);
  s.velocity();
  s.note();
  if (!Number.isFinite(s.bestMerit))
    return s.finish({ kind: 'failed', reason: 'the Coulomb merit of the first iterate is not finite (A, b or the warm start hold a non-finite value)' });
  if (s.converged()) return s.finish({ kind: 'converged' });
  const status = hybrid(s);
  if (status.kind === 'converged' || status.kind === 'failed' || !lastResortProblem || s.iterations >= maxIt) return s.finish(status);
  return lastResort(lastResortProblem, s, maxIt, status);
}

/** Gauss–Seidel and proximal Newton in cycles (module comment, steps 1–3) within s.maxIt. */
function hybrid(s: CoulombState): SolveStatus {
  let newton: ProxNewton | null = null;
  let idle = 0;
  while (s.iterations < s.maxIt) {
    const before = s.bestMerit;
    const sweepMerit = sweepPhase(s);
    if (s.converged()) return { kind: 'converged' };
    if (!Number.isFinite(sweepMerit)) return { kind: 'failed', reason: `the Coulomb merit is not finite after ${s.iterations} iterations` };
    if (s.iterations >= s.maxIt) break;
    newton ??= new ProxNewton(s.W, s.q, s.mu);
    if (idle > 0) newton.ac.setRhoScale(AC_RHO_SCALES[idle % AC_RHO_SCALES.length]);
    newton.run(s);
    if (s.converged()) return { kind: 'converged' };
    // the next cycle starts from the best iterate
    s.r.set(s.best);
    s.u.set(s.bestU);
    idle = s.bestMerit < CYCLE_PROGRESS * before ? 0 : idle + 1;
    if (idle >= COULOMB_GIVE_UP)
      return { kind: 'stalled', reason: `${s.summary()}: ${formatCount(idle, 'cycle')} of Gauss–Seidel and proximal Newton without progress` };
  }
  return { kind: 'max-iterations', reason: `${s.summary()} after the budget of ${formatCount(s.maxIt, 'iteration')}` };
}

/** The De Saxcé fixed point needs the interior point's symmetric positive semidefinite A, and costs O(n³) per iteration. */
function fixedPointApplies(p: ContactProblem): boolean {
  return p.size <= FIXED_POINT_MAX_UNKNOWNS && (!p.asGiven || p.asGiven.asymmetry <= SYMMETRY_TOLERANCE);
}

/** The De Saxcé fixed point (coulombFixedPoint.ts) from the hybrid's best iterate, with the rest of the budget. */
function lastResort(p: ContactProblem, s: CoulombState, maxIt: number, hybridStatus: SolveStatus): AlgorithmOutput {
  const out = solveCoulombFixedPoint(p, Math.min(FIXED_POINT_MAX_ITERATIONS, maxIt - s.iterations), s.tol, s.best);
  const h = out.history.residual,
    f = out.history.objective;
  for (let k = 1; k < h.length; k++) s.history.record(h[k], f[k]);
  s.iterations += out.iterations;
  const merit = out.merit?.value ?? Number.POSITIVE_INFINITY;
  if (merit < s.bestMerit) {
    s.bestMerit = merit;
    s.best.set(out.lambda);
    blockRowsMulAdd(s.W, s.best, s.q, s.bestU);
  }
  if (s.converged()) return s.finish({ kind: 'converged' });
  const kind = out.status.kind === 'failed' ? hybridStatus.kind : out.status.kind;
  return s.finish({ kind, reason: `${why(hybridStatus)}; then the De Saxcé fixed point: ${why(out.status)}` } as SolveStatus);
}

const why = (st: SolveStatus): string => (st.kind === 'converged' ? 'converged' : st.reason);

/** Gauss–Seidel sweeps while they converge fast; returns the last merit. */
function sweepPhase(s: CoulombState): number {
  let last = coulombMeritFromU(s.mu, s.b, s.r, s.u),
    slow = 0;
  for (let k = 0; k < COULOMB_SWEEP_LIMIT && s.iterations < s.maxIt; k++) {
    coulombSweep(s.W, s.q, s.mu, s.r, s.report);
    s.velocity();
    s.sweeps++;
    const m = s.record();
    if (m <= s.tol || !Number.isFinite(m)) return m;
    slow = m > COULOMB_SWEEP_RATE * last ? slow + 1 : 0;
    last = m;
    if (slow >= s.sweepPatience) break;
  }
  return last;
}

/** The proximal-point phase with semismooth Newton subproblems (module comment, step 2). */
class ProxNewton {
  readonly ac: AcNewton;
  /** u_σ = W r + q + σ(r − r̄) of the current iterate. */
  readonly uSigma: Float64Array;
  /** d̄: mean positive diagonal entry of W, the scale of σ. */
  readonly scale: number;
  constructor(
    readonly W: BlockRows,
    readonly q: Float64Array,
    readonly mu: Float64Array,
  ) {
    this.ac = new AcNewton(W, q, mu);
    this.uSigma = new Float64Array(3 * W.blocks);
    let sum = 0,
      count = 0;
    for (let c = 0; c < W.blocks; c++) {
      const v = 9 * W.diag[c];
      for (let k = 0; k < 9; k += 4) {
        const d = W.val[v + k];
        if (d > 0 && Number.isFinite(d)) {
          sum += d;
          count++;
        }
      }
    }
    this.scale = count > 0 ? sum / count : 1;
  }

  run(s: CoulombState): void {
    const { ac, uSigma } = this;
    const { tol, maxIt } = s;
    let merit = coulombMeritFromU(s.mu, s.b, s.r, s.u);
    let sigma = PROX_ALPHA * this.scale * Math.min(1, merit);
    let failures = 0,
      idle = 0,
      mark = s.bestMerit;
    while (failures < PROX_FAILURES && idle < PROX_PATIENCE && s.iterations < maxIt) {
      ac.center.set(s.r);
      ac.sigma = sigma;
      ac.velocity(s.r, uSigma);
      let norm = ac.residual(s.r, uSigma, ac.F, false);
      const norm0 = norm;
      let solved = false,
        short = 0;
      for (let k = 0; k < PROX_INNER_STEPS && s.iterations < maxIt; k++) {
        const st = ac.step(s.r, uSigma, norm);
        if (st.t === 0) break;
        norm = st.norm;
        short = st.t < PROX_SHORT_STEP ? short + 1 : 0;
        s.velocity(); // u = W r + q of the problem itself, for its merit
        s.newtonSteps++;
        merit = s.record();
        if (merit <= tol) return;
        if (norm <= PROX_INNER_RATIO * norm0) {
          solved = true;
          break;
        }
        if (short >= PROX_SHORT_STEPS) break; // crawling along kinks: a larger σ
      }
      s.velocity();
      if (s.bestMerit < PROX_PROGRESS * mark) {
        mark = s.bestMerit;
        idle = 0;
      } else idle++;
      if (solved) {
        failures = 0;
        sigma = Math.min(PROX_SHRINK * sigma, PROX_ALPHA * this.scale * Math.min(1, merit));
      } else {
        failures++;
        sigma *= 10;
      }
    }
  }
}

/** f(λ) = ½λᵀAλ − bᵀλ from u = Aλ − b: Σ λᵢ(uᵢ − bᵢ)/2. */
function objective(lambda: Float64Array, u: Float64Array, b: Float64Array): number {
  let f = 0;
  for (let i = 0; i < lambda.length; i++) f += 0.5 * lambda[i] * (u[i] - b[i]);
  return f;
}
