/**
 * Preconditioned conjugate gradients for A x = b with A symmetric positive definite, applied matrix-free
 * (Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed., 2003, §9.2 Algorithm 9.1), in the flexible
 * form whose β = zₖ₊₁ᵀ(rₖ₊₁ − rₖ) / zₖᵀrₖ (Polak–Ribière; Notay, "Flexible conjugate gradients", SIAM J.
 * Sci. Comput. 22, 2000) tolerates a preconditioner that is symmetric only up to rounding — here the
 * interior point's Woodbury solve, whose rounding grows with cond K near the solution (ipmSparse.ts).
 *
 * The stopping test is on the true residual ‖b − A x‖ ≤ tolerance · ‖b‖ (∞-norm unless the caller gives
 * another, e.g. of the unscaled system when PCG runs on a scaled one): the recurrence's residual is
 * only trusted to decide when to recompute it. Work arrays are made once (PcgWorkspace) and reused by every
 * solve; nothing is allocated per iteration.
 */

/** y = Op(v); must not alias. */
export type LinearOperator = (v: Float64Array, out: Float64Array) => void;

export interface PcgOutcome {
  /** Relative true residual ‖b − A x‖ / ‖b‖ of the returned x (absolute when b = 0). */
  residual: number;
  /** CG steps made (one operator and one preconditioner application each; restarts add one of each). */
  iterations: number;
}

/** Float64Array work vectors of one PCG solve of size n, made once. */
export class PcgWorkspace {
  readonly r: Float64Array;
  readonly rOld: Float64Array;
  readonly z: Float64Array;
  readonly p: Float64Array;
  readonly q: Float64Array;
  readonly bestX: Float64Array;
  constructor(readonly n: number) {
    this.r = new Float64Array(n);
    this.rOld = new Float64Array(n);
    this.z = new Float64Array(n);
    this.p = new Float64Array(n);
    this.q = new Float64Array(n);
    this.bestX = new Float64Array(n);
  }
  get bytes(): number {
    return 6 * 8 * this.n;
  }
}

function maxAbs(v: Float64Array, n: number): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(v[i]);
    if (a > m || Number.isNaN(a)) m = a; // NaN propagates
  }
  return m;
}

function dot(a: Float64Array, b: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/**
 * x ← solution of A x = b by flexible PCG from the given x (the initial guess), preconditioner M ≈ A⁻¹.
 * Stops when the true relative residual is ≤ `tolerance` or after `maxIterations` operator applications;
 * returns the iterate with the smallest true residual seen (x is overwritten by it).
 */
export function pcgSolve(
  A: LinearOperator,
  M: LinearOperator,
  b: Float64Array,
  x: Float64Array,
  tolerance: number,
  maxIterations: number,
  ws: PcgWorkspace,
  norm: (v: Float64Array) => number = (v) => maxAbs(v, ws.n),
): PcgOutcome {
  const n = ws.n;
  const { r, rOld, z, p, q, bestX } = ws;
  const bNorm = norm(b);
  const scale = bNorm > 0 ? bNorm : 1;
  const trueResidual = (): number => {
    A(x, q);
    for (let i = 0; i < n; i++) r[i] = b[i] - q[i];
    return norm(r) / scale;
  };
  let res = trueResidual();
  let best = res;
  bestX.set(x);
  let it = 0;
  // restarts from the true residual when the recurrence claims convergence the true residual does not show
  while (res > tolerance && it < maxIterations && Number.isFinite(res)) {
    M(r, z);
    p.set(z);
    let rz = dot(r, z, n);
    if (!(rz > 0)) break; // preconditioner not positive on r: PCG cannot proceed
    while (it < maxIterations) {
      A(p, q);
      it++;
      const pq = dot(p, q, n);
      if (!(pq > 0)) break; // A not positive on p (rounding): stop, keep the best iterate
      const alpha = rz / pq;
      rOld.set(r);
      for (let i = 0; i < n; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
      }
      if (!(norm(r) / scale > tolerance)) break;
      M(r, z);
      let num = 0;
      for (let i = 0; i < n; i++) num += z[i] * (r[i] - rOld[i]);
      const beta = Math.max(0, num / rz); // flexible β (Notay 2000); ≥ 0 restarts on loss of conjugacy
      rz = dot(r, z, n);
      if (!(rz > 0)) break;
      for (let i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
    }
    const prev = res;
    res = trueResidual();
    if (res < best) {
      best = res;
      bestX.set(x);
    }
    if (!(res < prev)) break; // a restart that did not lower the true residual: rounding floor reached
  }
  if (!(res <= best)) {
    x.set(bestX);
    res = best;
  }
  return { residual: res, iterations: it };
}
