/**
 * Matrix-free projected Gauss–Seidel for large islands (sequential impulses, Catto 2005; seed 000 §7):
 * the same iteration as pgs.ts, but A is never formed: each contact row reads the current velocity change
 * Δv = M⁻¹Jᵀλ of its two bodies, w_c = J_c Δv − b_c, and an impulse change dλ updates Δv by M⁻¹J_cᵀ dλ.
 * Cost per sweep O(C) instead of O(C²), memory O(C + N) instead of O(C²). Convergence is measured with
 * the same KKT residual as every other solver (kkt.ts kktFromW, w from the velocities).
 */
import type { ContactBlocks } from '../assembly.js';
import { clampDisk, projectCone } from '../cone.js';
import { KktWorkspace, classifyContacts, kktFromW, type ContactClass, type KktReport } from '../kkt.js';
import { HistoryRecorder } from './history.js';
import { projectAll } from './blocks.js';
import { PGS_DEFAULTS } from './pgs.js';
import type { AlgorithmOutput, PgsOptions, SolveStatus } from './types.js';

/** Sweeps between two KKT residual evaluations (the history then has one entry per RESIDUAL_EVERY sweeps). */
export const RESIDUAL_EVERY = 8;

export interface MatrixFreeOutput extends AlgorithmOutput {
  /** w = Aλ − b at the returned λ. */
  readonly w: Float64Array;
  /** Δv = M⁻¹Jᵀλ per body of the island's body list, [dv(3), dω(3)]. */
  readonly dv: Float64Array;
  readonly timeMs: number;
  /** KKT residuals at the returned λ (w from the velocities). */
  readonly kkt: KktReport;
  readonly contactClass: ContactClass[];
}

/** `softening` γ (seed 004) is added to the normal rows: w_n = (Aλ − b)_n + γλ_n. */
export function solvePgsBlocks(k: ContactBlocks, opts: PgsOptions, warmStart?: Float64Array, softening = 0): MatrixFreeOutput {
  const t0 = globalThis.performance.now();
  const C = k.contactCount, n = k.size, N = k.physics.bodies.length;
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const { invMassJA: MA, invMassJB: MB, staticA, staticB, b, mu } = k;
  const maxIt = opts.maxIterations ?? PGS_DEFAULTS.maxIterations;
  const tol = opts.tolerance ?? PGS_DEFAULTS.tolerance;
  const eps = opts.regularization ?? PGS_DEFAULTS.regularization;
  const fpTol = opts.fixedPointTolerance ?? PGS_DEFAULTS.fixedPointTolerance;
  const law = opts.friction ?? 'coulomb-disk';
  const ia = new Int32Array(C), ib = new Int32Array(C);
  k.contacts.forEach((m, c) => { ia[c] = m.contact.bodyA; ib[c] = m.contact.bodyB; });
  // 3×3 diagonal blocks A_cc = J_c M⁻¹ J_cᵀ (+ εI) and the natural-map / cone steps.
  const D = new Float64Array(9 * C), rho = new Float64Array(C), step = new Float64Array(C);
  let maxBound = 0;
  for (let c = 0; c < C; c++) {
    for (let r = 0; r < 3; r++) {
      for (let s = 0; s < 3; s++) {
        let v = 0;
        const a = 18 * c + 6 * r, bb = 18 * c + 6 * s;
        if (!staticA[c]) for (let q = 0; q < 6; q++) v += JA[a + q] * MA[bb + q];
        if (!staticB[c]) for (let q = 0; q < 6; q++) v += JB[a + q] * MB[bb + q];
        D[9 * c + 3 * r + s] = v + (r === s ? eps + (r === 0 ? softening : 0) : 0);
      }
    }
    const d = 9 * c;
    const dmax = Math.max(D[d], D[d + 4], D[d + 8]);
    rho[c] = dmax > 0 ? 1 / dmax : 1;
    const bound = Math.max(Math.abs(D[d]) + Math.abs(D[d + 1]) + Math.abs(D[d + 2]), Math.abs(D[d + 3]) + Math.abs(D[d + 4]) + Math.abs(D[d + 5]), Math.abs(D[d + 6]) + Math.abs(D[d + 7]) + Math.abs(D[d + 8]));
    step[c] = bound;
    maxBound = Math.max(maxBound, bound);
  }
  for (let c = 0; c < C; c++) step[c] = 1 / (opts.diagonalScaling ? (step[c] > 0 ? step[c] : 1) : (maxBound > 0 ? maxBound : 1));

  const lam = new Float64Array(n), dv = new Float64Array(6 * N), w = new Float64Array(n), blk = new Float64Array(3), dl = new Float64Array(3);
  const applyImpulse = (c: number, d0: number, d1: number, d2: number): void => {
    if (!staticA[c]) { const o = 6 * ia[c], m = 18 * c; for (let q = 0; q < 6; q++) dv[o + q] += MA[m + q] * d0 + MA[m + 6 + q] * d1 + MA[m + 12 + q] * d2; }
    if (!staticB[c]) { const o = 6 * ib[c], m = 18 * c; for (let q = 0; q < 6; q++) dv[o + q] += MB[m + q] * d0 + MB[m + 6 + q] * d1 + MB[m + 12 + q] * d2; }
  };
  /** w for row r of contact c from the current Δv (+ ε λ). */
  const rowW = (c: number, r: number): number => {
    let s = (eps + (r === 0 ? softening : 0)) * lam[3 * c + r] - b[3 * c + r];
    if (!staticA[c]) { const o = 6 * ia[c], j = 18 * c + 6 * r; for (let q = 0; q < 6; q++) s += JA[j + q] * dv[o + q]; }
    if (!staticB[c]) { const o = 6 * ib[c], j = 18 * c + 6 * r; for (let q = 0; q < 6; q++) s += JB[j + q] * dv[o + q]; }
    return s;
  };
  if (warmStart) {
    const f = opts.warmStartFactor ?? PGS_DEFAULTS.warmStartFactor;
    for (let i = 0; i < n; i++) lam[i] = f * warmStart[i];
    projectAll(k, lam, lam);
    for (let c = 0; c < C; c++) applyImpulse(c, lam[3 * c], lam[3 * c + 1], lam[3 * c + 2]);
  }
  const ws = new KktWorkspace(n), hist = new HistoryRecorder(Math.ceil(maxIt / RESIDUAL_EVERY) + 3);
  const residual = (): number => {
    for (let c = 0; c < C; c++) for (let r = 0; r < 3; r++) w[3 * c + r] = rowW(c, r) - eps * lam[3 * c + r];
    return kktFromW(mu, lam, w, b, rho, ws).maxRel;
  };
  const objective = (): number => {
    let f = 0;
    for (let i = 0; i < n; i++) f += lam[i] * (0.5 * (w[i] + b[i]) - b[i]);
    return f;
  };
  let status: SolveStatus | null = null, iterations = 0;
  for (;;) {
    // The KKT residual costs as much as a sweep: evaluated every RESIDUAL_EVERY sweeps and at the budget.
    if (iterations % RESIDUAL_EVERY === 0 || iterations >= maxIt) {
      const res = residual();
      hist.record(res, objective());
      if (res <= tol) { status = { kind: 'converged' }; break; }
      if (iterations >= maxIt) { status = { kind: 'max-iterations', reason: `KKT max_rel ${res.toExponential(2)} > ${tol} after ${iterations} sweeps (worst contact ${ws.report.worstContact}; matrix-free)` }; break; }
    }
    iterations++;
    let change = 0, size = 0;
    for (let c = 0; c < C; c++) {
      const o = 3 * c, m = mu[c], d = 9 * c;
      const o0 = lam[o], o1 = lam[o + 1], o2 = lam[o + 2];
      if (law === 'cone') {
        blk[0] = lam[o] - step[c] * rowW(c, 0);
        blk[1] = m > 0 ? lam[o + 1] - step[c] * rowW(c, 1) : 0;
        blk[2] = m > 0 ? lam[o + 2] - step[c] * rowW(c, 2) : 0;
        projectCone(blk, 0, m, blk);
        lam[o] = blk[0]; lam[o + 1] = blk[1]; lam[o + 2] = blk[2];
        dl[0] = lam[o] - o0; dl[1] = lam[o + 1] - o1; dl[2] = lam[o + 2] - o2;
        applyImpulse(c, dl[0], dl[1], dl[2]);
      } else {
        if (D[d] > 0) { lam[o] = Math.max(0, lam[o] - rowW(c, 0) / D[d]); applyImpulse(c, lam[o] - o0, 0, 0); }
        if (m > 0) {
          const t1 = D[d + 4] > 0 ? lam[o + 1] - rowW(c, 1) / D[d + 4] : lam[o + 1];
          lam[o + 1] = t1; applyImpulse(c, 0, t1 - o1, 0);
          const t2 = D[d + 8] > 0 ? lam[o + 2] - rowW(c, 2) / D[d + 8] : lam[o + 2];
          lam[o + 2] = t2; applyImpulse(c, 0, 0, t2 - o2);
          const b1 = lam[o + 1], b2 = lam[o + 2];
          clampDisk(lam, o + 1, m * lam[o]);
          applyImpulse(c, 0, lam[o + 1] - b1, lam[o + 2] - b2);
        }
      }
      change = Math.max(change, Math.abs(lam[o] - o0), Math.abs(lam[o + 1] - o1), Math.abs(lam[o + 2] - o2));
      size = Math.max(size, Math.abs(lam[o]), Math.abs(lam[o + 1]), Math.abs(lam[o + 2]));
    }
    if (change <= fpTol * size) {
      const res2 = residual();
      hist.record(res2, objective());
      status = res2 <= tol ? { kind: 'converged' } : { kind: 'stalled', reason: `the sequential-impulse fixed point is not a QP-SOCP KKT point: KKT max_rel ${res2.toExponential(2)} > ${tol} (matrix-free)` };
      break;
    }
  }
  residual();
  const kkt = { ...ws.report };
  return {
    lambda: lam, iterations, status, regularization: eps, history: hist.finish(), w: Float64Array.from(w), dv, kkt,
    contactClass: classifyContacts(k, lam, w, kkt.lamRef, kkt.wRef), timeMs: globalThis.performance.now() - t0,
  };
}
