// Contact solvers of the independent stepper, all working on body velocities (sequential impulses):
//  - pgsCoulomb: projected Gauss–Seidel / sequential impulses (Catto, "Iterative Dynamics with Temporal
//    Coherence", GDC 2005; "Fast and Simple Physics using Sequential Impulses", GDC 2006): normal row
//    projected on λn ≥ 0, then the tangent pair minimised exactly over the disk ‖λt‖ ≤ μ·λn of the current λn.
//    A soft normal row (implicit spring–damper, Catto "Solver2D" 2024 / MuJoCo's regularised constraints)
//    adds ε·λn to its residual: ġn + ε·λn = τ.
//  - blockConeProjection: the convex QP-SOCP model of Anitescu (2006): min ½λᵀAλ − bᵀλ over the cones
//    K_i = {‖λt‖ ≤ μ·λn}, by block Gauss–Seidel where each block is minimised by projected gradient
//    onto K_i. Its KKT conditions give w ∈ K*, so a sliding contact separates at w_n = μ‖w_t‖.
// Convergence: the largest velocity change |Δλ_r|·A_rr of any row during a sweep (the engine's residual).

import { applyImpulse, coupling, type Row, rowVelocity, type Velocities } from './rows.js';

export type Status = 'converged' | 'max-iterations';

export interface Problem {
  rows: Row[];
  /** per row: the target velocity (normal: ġn⁺ ≥ τ; tangent: 0) */
  tau: number[];
  /** per contact */
  mu: number[];
  /** per contact: soft regularisation of the normal row (0 = hard) */
  eps: number[];
  /** velocities, v⁻ on entry, v⁺ on return */
  vel: Velocities;
  /** 3C impulses: the initial guess (warm start, applied on entry) and the result */
  lambda: number[];
  /** fault: contacts whose friction the solver applies along the slip, μλn·ġt/‖ġt‖ (a sign slip in its tangent rows) */
  alongSlip?: ReadonlySet<number>;
}

export interface SolveResult {
  status: Status;
  iterations: number;
  /** per sweep: the largest velocity change of any row, m/s */
  residuals: number[];
}

export interface SolveOptions {
  maxIterations: number;
  /** stop when a sweep changes no row's velocity by more than this (m/s); 0 = never (fixed count) */
  tolerance: number;
}

function applyInitialGuess(p: Problem): void {
  p.lambda.forEach((l, r) => applyImpulse(p.rows[r], p.vel, l));
}

/** Exact minimiser of ½yᵀAy − cᵀy over the disk ‖y‖ ≤ radius, A 2×2 SPD (trust-region subproblem). */
export function diskMinimiser(a11: number, a12: number, a22: number, c1: number, c2: number, radius: number): [number, number] {
  if (radius <= 0) return [0, 0];
  const solve = (nu: number): [number, number] => {
    const d11 = a11 + nu;
    const d22 = a22 + nu;
    const det = d11 * d22 - a12 * a12;
    return [(d22 * c1 - a12 * c2) / det, (d11 * c2 - a12 * c1) / det];
  };
  const free = solve(0);
  if (Math.hypot(free[0], free[1]) <= radius) return free;
  // ‖(A + νI)⁻¹c‖ decreases in ν; at ν = ‖c‖/radius it is ≤ radius
  let lo = 0;
  let hi = Math.hypot(c1, c2) / radius;
  for (let k = 0; k < 200 && hi - lo > 1e-16 * hi; k++) {
    const mid = 0.5 * (lo + hi);
    const y = solve(mid);
    if (Math.hypot(y[0], y[1]) > radius) lo = mid;
    else hi = mid;
  }
  const y = solve(hi);
  const s = radius / Math.hypot(y[0], y[1]);
  return s < 1 ? [y[0] * s, y[1] * s] : y;
}

/** The fault: friction of magnitude μλn along the slip the contact would have without its own friction. */
function alongSlip(g1: number, g2: number, l1: number, l2: number, a11: number, a12: number, a22: number, radius: number): [number, number] {
  // slip without this contact's friction: ġt − A_tt·λt
  const s1 = g1 - (a11 * l1 + a12 * l2);
  const s2 = g2 - (a12 * l1 + a22 * l2);
  const s = Math.hypot(s1, s2);
  return s === 0 ? [0, 0] : [(radius * s1) / s, (radius * s2) / s];
}

/** Projected Gauss–Seidel with Coulomb friction (normal row, then the tangent pair on the disk of the current λn). */
export function pgsCoulomb(p: Problem, opts: SolveOptions): SolveResult {
  applyInitialGuess(p);
  const C = p.mu.length;
  const t12 = Array.from({ length: C }, (_, i) => coupling(p.rows[3 * i + 1], p.rows[3 * i + 2]));
  const residuals: number[] = [];
  let it = 0;
  while (it < opts.maxIterations) {
    it++;
    let change = 0;
    for (let i = 0; i < C; i++) {
      const rn = p.rows[3 * i];
      const wn = rowVelocity(rn, p.vel) - p.tau[3 * i] + p.eps[i] * p.lambda[3 * i];
      const ln = Math.max(0, p.lambda[3 * i] - wn / (rn.diag + p.eps[i]));
      const dn = ln - p.lambda[3 * i];
      applyImpulse(rn, p.vel, dn);
      p.lambda[3 * i] = ln;
      change = Math.max(change, Math.abs(dn) * rn.diag);
      const r1 = p.rows[3 * i + 1];
      const r2 = p.rows[3 * i + 2];
      const l1 = p.lambda[3 * i + 1];
      const l2 = p.lambda[3 * i + 2];
      const g1 = rowVelocity(r1, p.vel);
      const g2 = rowVelocity(r2, p.vel);
      // minimise ½(y − λt)ᵀA_tt(y − λt) + ġtᵀ(y − λt) over ‖y‖ ≤ μλn: c = A_tt·λt − ġt
      const c1 = r1.diag * l1 + t12[i] * l2 - g1;
      const c2 = t12[i] * l1 + r2.diag * l2 - g2;
      const [y1, y2] = p.alongSlip?.has(i)
        ? alongSlip(g1, g2, l1, l2, r1.diag, t12[i], r2.diag, p.mu[i] * ln)
        : diskMinimiser(r1.diag, t12[i], r2.diag, c1, c2, p.mu[i] * ln);
      applyImpulse(r1, p.vel, y1 - l1);
      applyImpulse(r2, p.vel, y2 - l2);
      p.lambda[3 * i + 1] = y1;
      p.lambda[3 * i + 2] = y2;
      change = Math.max(change, Math.abs(y1 - l1) * r1.diag, Math.abs(y2 - l2) * r2.diag);
    }
    residuals.push(change);
    if (opts.tolerance > 0 && change < opts.tolerance) return { status: 'converged', iterations: it, residuals };
  }
  return { status: 'max-iterations', iterations: it, residuals };
}

/** Projection onto the second-order cone K = {‖t‖ ≤ μ·n} (Euclidean). */
export function projectCone(n: number, t1: number, t2: number, mu: number): [number, number, number] {
  const s = Math.hypot(t1, t2);
  if (s <= mu * n) return [n, t1, t2];
  if (mu * s <= -n) return [0, 0, 0];
  const pn = (n + mu * s) / (1 + mu * mu);
  const f = (mu * pn) / s;
  return [pn, t1 * f, t2 * f];
}

/** Largest eigenvalue of a symmetric 3×3 (power iteration; the blocks are tiny and positive definite). */
function lambdaMax3(m: number[]): number {
  let x = [1, 0.7, 0.4];
  let ev = 0;
  for (let k = 0; k < 100; k++) {
    const y = [0, 1, 2].map((i) => m[3 * i] * x[0] + m[3 * i + 1] * x[1] + m[3 * i + 2] * x[2]);
    const n = Math.hypot(y[0], y[1], y[2]);
    x = y.map((v) => v / n);
    if (Math.abs(n - ev) <= 1e-15 * n) return n;
    ev = n;
  }
  return ev;
}

/** Block Gauss–Seidel on the convex QP-SOCP ½λᵀAλ − bᵀλ, λ_i ∈ K_i; each block by projected gradient on K_i. */
export function blockConeProjection(p: Problem, opts: SolveOptions): SolveResult {
  applyInitialGuess(p);
  const C = p.mu.length;
  const blocks = Array.from({ length: C }, (_, i) => {
    const m: number[] = [];
    for (let r = 0; r < 3; r++) for (let s = 0; s < 3; s++) m.push(coupling(p.rows[3 * i + r], p.rows[3 * i + s]));
    return { m, step: 1 / lambdaMax3(m) };
  });
  const residuals: number[] = [];
  let it = 0;
  while (it < opts.maxIterations) {
    it++;
    let change = 0;
    for (let i = 0; i < C; i++) {
      const { m, step } = blocks[i];
      const rows = [p.rows[3 * i], p.rows[3 * i + 1], p.rows[3 * i + 2]];
      const w0 = [rowVelocity(rows[0], p.vel) - p.tau[3 * i], rowVelocity(rows[1], p.vel), rowVelocity(rows[2], p.vel)];
      const l0 = [p.lambda[3 * i], p.lambda[3 * i + 1], p.lambda[3 * i + 2]];
      let y = [...l0];
      for (let k = 0; k < 2000; k++) {
        // gradient of the block objective at y: w0 + A_ii (y − λ0)
        const d = [y[0] - l0[0], y[1] - l0[1], y[2] - l0[2]];
        const g = [0, 1, 2].map((r) => w0[r] + m[3 * r] * d[0] + m[3 * r + 1] * d[1] + m[3 * r + 2] * d[2]);
        const next = projectCone(y[0] - step * g[0], y[1] - step * g[1], y[2] - step * g[2], p.mu[i]);
        const moved = Math.hypot(next[0] - y[0], next[1] - y[1], next[2] - y[2]);
        y = next;
        if (moved <= 1e-17 + 1e-15 * Math.hypot(y[0], y[1], y[2])) break;
      }
      for (let r = 0; r < 3; r++) {
        const dl = y[r] - l0[r];
        applyImpulse(rows[r], p.vel, dl);
        p.lambda[3 * i + r] = y[r];
        change = Math.max(change, Math.abs(dl) * rows[r].diag);
      }
    }
    residuals.push(change);
    if (opts.tolerance > 0 && change < opts.tolerance) return { status: 'converged', iterations: it, residuals };
  }
  return { status: 'max-iterations', iterations: it, residuals };
}
