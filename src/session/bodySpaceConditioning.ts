/**
 * An island's exact spectrum from the body side: A = J M⁻¹ Jᵀ + εI (n = 3C rows) and the body-space Gram
 * G = Lᵀ Jᵀ J L (m = 6D columns, D dynamic bodies, M⁻¹ = L Lᵀ per body) are K Kᵀ and Kᵀ K for K = J L, so
 * they have the same nonzero eigenvalues (the SVD of K; Golub & Van Loan, Matrix Computations 4th ed.
 * §8.6.1). A's spectrum is ε + the min(n, m) largest eigenvalues of G, and ε for the n − m others.
 * A box pile's islands have ≈ 4 contacts per touching pair, so m is 3–6× smaller than n: the exact
 * eigenvalues of G (Householder + QL, ≈ 4m³/3 flops) cost less than the pivoted Cholesky rank of A
 * (≈ n·r²/2). Rank, κ and κ on the range follow conditioning.ts's exact rules on that spectrum.
 */
import { conditioningFrom, isStatic, type ProblemStructure, regularizationOf, spectrumRank, symmetricEigenvaluesOverwriting } from '../engine/index.js';
import type { IslandConditioning } from './conditioningEstimate.js';

/** The body-space Gram matrix G (m × m, row-major) of an island's problem, or null when it cannot be formed. */
export interface BodySpaceGram {
  readonly G: Float64Array;
  readonly m: number;
}

/**
 * G = Σ over the rows j of J of (j L)ᵀ (j L), with L the lower Cholesky factor of each dynamic body's M⁻¹
 * (√(1/m) I₃ and the Cholesky factor of I⁻¹_world). Null when a body's M⁻¹ is not positive definite (an
 * infinite mass or inertia about some axis: then A's own analysis is used) or a number is not finite.
 */
export function bodySpaceGram(problem: ProblemStructure): BodySpaceGram | null {
  const { physics, contacts } = problem;
  if (!physics || !contacts) return null; // a problem read from a file: no Jacobian blocks
  const { bodies, jacobianA: JA, jacobianB: JB } = physics;
  const C = problem.contactCount;
  const column = new Map<number, number>(); // body index → its first column in G
  const factors: number[] = []; // per dynamic body: √(invMass), L00, L10, L11, L20, L21, L22
  const columnOf = (b: number): number => {
    if (isStatic(bodies, b)) return -1;
    const known = column.get(b);
    if (known !== undefined) return known;
    const bd = bodies[b];
    const I = bd.invInertiaWorld;
    // 3×3 Cholesky of the (symmetric) world inverse inertia
    const l00 = Math.sqrt(I[0]);
    const l10 = I[3] / l00,
      l20 = I[6] / l00;
    const l11 = Math.sqrt(I[4] - l10 * l10);
    const l21 = (I[7] - l20 * l10) / l11;
    const l22 = Math.sqrt(I[8] - l20 * l20 - l21 * l21);
    const sm = Math.sqrt(bd.invMass);
    if (!(sm > 0 && l00 > 0 && l11 > 0 && l22 > 0) || !Number.isFinite(sm + l10 + l20 + l21 + l22)) return -2;
    const col = 6 * column.size;
    column.set(b, col);
    factors.push(sm, l00, l10, l11, l20, l21, l22);
    return col;
  };
  const colA = new Int32Array(C),
    colB = new Int32Array(C);
  for (let i = 0; i < C; i++) {
    const c = contacts[i].contact;
    colA[i] = columnOf(c.bodyA);
    colB[i] = columnOf(c.bodyB);
    if (colA[i] === -2 || colB[i] === -2) return null;
  }
  const m = 6 * column.size;
  if (m === 0) return null;
  const G = new Float64Array(m * m);
  const k = new Float64Array(12),
    at = new Int32Array(12);
  // j L for one body's 6 entries of row j (offset o of J), at column col (factor f)
  const put = (J: Float64Array, o: number, col: number, slot: number): number => {
    const f = 7 * (col / 6);
    const sm = factors[f],
      l00 = factors[f + 1],
      l10 = factors[f + 2],
      l11 = factors[f + 3],
      l20 = factors[f + 4],
      l21 = factors[f + 5],
      l22 = factors[f + 6];
    const w0 = J[o + 3],
      w1 = J[o + 4],
      w2 = J[o + 5];
    k[slot] = sm * J[o];
    k[slot + 1] = sm * J[o + 1];
    k[slot + 2] = sm * J[o + 2];
    k[slot + 3] = w0 * l00 + w1 * l10 + w2 * l20;
    k[slot + 4] = w1 * l11 + w2 * l21;
    k[slot + 5] = w2 * l22;
    for (let q = 0; q < 6; q++) at[slot + q] = col + q;
    return slot + 6;
  };
  for (let i = 0; i < C; i++) {
    for (let r = 0; r < 3; r++) {
      let len = 0;
      if (colA[i] >= 0) len = put(JA, 18 * i + 6 * r, colA[i], len);
      if (colB[i] >= 0) len = put(JB, 18 * i + 6 * r, colB[i], len);
      for (let p = 0; p < len; p++) {
        const kp = k[p],
          row = at[p] * m;
        for (let q = 0; q < len; q++) G[row + at[q]] += kp * k[q];
      }
    }
  }
  for (let i = 0; i < m * m; i++) if (!Number.isFinite(G[i])) return null;
  return { G, m };
}

/**
 * conditioning(A, n, { regularization: ε }) with the 'exact-tridiagonal-ql' rules, A's spectrum taken from the
 * body-space Gram (above); null when G cannot be formed or is not smaller than A (then A's own analysis is
 * cheaper or as cheap).
 */
export function bodySpaceConditioning(problem: ProblemStructure, regularization: number): IslandConditioning | null {
  const n = problem.size;
  const eps = regularizationOf(regularization);
  const gram = bodySpaceGram(problem);
  if (gram === null || gram.m >= n) return null;
  const { G, m } = gram;
  const mu = symmetricEigenvaluesOverwriting(G, m); // ascending; G is this function's own
  // A's spectrum, ascending: n − m eigenvalues ε, then ε + every eigenvalue of G
  const values = new Float64Array(n);
  values.fill(eps, 0, n - m);
  for (let i = 0; i < m; i++) values[n - m + i] = eps + mu[i];
  // m < n: A − εI = K Kᵀ has n − m exact zero eigenvalues, so λmin(A) is ε itself (a G eigenvalue computed as
  // −1e-17 is rounding, not a smaller λmin)
  const lambdaMin = eps,
    lambdaMax = values[n - 1];
  const { tol, rangeThreshold, rank, lambdaMinRange } = spectrumRank(values, n, lambdaMin, lambdaMax, eps);
  return conditioningFrom({ lambdaMin, lambdaMax, rank, method: 'exact-body-space-gram', n, rankTolerance: tol, lambdaMinRange, rangeThreshold });
}
