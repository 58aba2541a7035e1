/**
 * The exact Coulomb solver (coulomb.ts) on an island beyond the dense limit: W = J M⁻¹ Jᵀ + εI (+ the softening γ
 * on normal rows) is built block by block from the island's Jacobians — block (i, j) ≠ 0 only where contacts i
 * and j share a dynamic body, W_ij = Σ_β J_iβ M_β⁻¹ J_jβᵀ (docs/physics.md "Delassus matrix") — never as the dense
 * n×n matrix. Δv = M⁻¹Jᵀλ, w, the KKT report and the contact classes come from the matrix-free rows (pgsRows.ts),
 * as for the other solvers of large islands (island/solveMatrixFree.ts).
 */
import type { ContactJacobians } from '../assembly.js';
import { classifyContacts, KktWorkspace } from '../kkt.js';
import type { BlockRows } from '../math/blockRows.js';
import { nowMs } from '../clock.js';
import { solveCoulombBlocks } from './coulomb.js';
import { objectiveFromAlam } from './history.js';
import { kktRows } from './naturalMapSparse.js';
import { matrixFreeRows } from './pgsRows.js';
import type { CoulombOptions, SolveResult } from './types.js';

/** W of the island as block rows (columns ascending), with ε on every diagonal entry and γ on the normal ones. */
export function coulombBlockRows(k: ContactJacobians, softening: number): BlockRows {
  const C = k.contactCount;
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const { invMassJA: MA, invMassJB: MB, staticA, staticB } = k;
  const bodyA = new Int32Array(C),
    bodyB = new Int32Array(C);
  let bodies = 0;
  for (let c = 0; c < C; c++) {
    const m = k.contacts[c].contact;
    bodyA[c] = staticA[c] ? -1 : m.bodyA;
    bodyB[c] = staticB[c] ? -1 : m.bodyB;
    bodies = Math.max(bodies, bodyA[c] + 1, bodyB[c] + 1);
  }
  // contacts per dynamic body (compressed lists)
  const start = new Int32Array(bodies + 1);
  for (let c = 0; c < C; c++) {
    if (bodyA[c] >= 0) start[bodyA[c] + 1]++;
    if (bodyB[c] >= 0) start[bodyB[c] + 1]++;
  }
  for (let i = 0; i < bodies; i++) start[i + 1] += start[i];
  const fill = start.slice(0, bodies);
  const list = new Int32Array(start[bodies]);
  for (let c = 0; c < C; c++) {
    if (bodyA[c] >= 0) list[fill[bodyA[c]]++] = c;
    if (bodyB[c] >= 0) list[fill[bodyB[c]]++] = c;
  }
  // row by row: the neighbours (contacts sharing a dynamic body, and the contact itself), ascending
  const rowPtr = new Int32Array(C + 1),
    diag = new Int32Array(C);
  const seen = new Int32Array(C).fill(-1);
  const cols: number[] = [];
  for (let c = 0; c < C; c++) {
    const row: number[] = [c];
    seen[c] = c;
    for (const body of [bodyA[c], bodyB[c]]) {
      if (body < 0) continue;
      for (let e = start[body]; e < start[body + 1]; e++) {
        const d = list[e];
        if (seen[d] !== c) {
          seen[d] = c;
          row.push(d);
        }
      }
    }
    row.sort((x, y) => x - y);
    diag[c] = cols.length + row.indexOf(c);
    for (const d of row) cols.push(d);
    rowPtr[c + 1] = cols.length;
  }
  const col = Int32Array.from(cols);
  const val = new Float64Array(9 * col.length);
  // W_cd += J_c,β (M⁻¹J_d,β)ᵀ for each dynamic body β of c that d also touches
  const add = (e: number, J: Float64Array, c: number, MJ: Float64Array, d: number): void => {
    for (let r = 0; r < 3; r++)
      for (let s = 0; s < 3; s++) {
        let v = 0;
        const a = 18 * c + 6 * r,
          m = 18 * d + 6 * s;
        for (let q = 0; q < 6; q++) v += J[a + q] * MJ[m + q];
        val[9 * e + 3 * r + s] += v;
      }
  };
  for (let c = 0; c < C; c++) {
    for (let e = rowPtr[c]; e < rowPtr[c + 1]; e++) {
      const d = col[e];
      if (bodyA[c] >= 0 && bodyA[c] === bodyA[d]) add(e, JA, c, MA, d);
      if (bodyA[c] >= 0 && bodyA[c] === bodyB[d]) add(e, JA, c, MB, d);
      if (bodyB[c] >= 0 && bodyB[c] === bodyA[d]) add(e, JB, c, MA, d);
      if (bodyB[c] >= 0 && bodyB[c] === bodyB[d]) add(e, JB, c, MB, d);
    }
    const v = 9 * diag[c];
    val[v] += k.regularization + softening;
    val[v + 4] += k.regularization;
    val[v + 8] += k.regularization;
  }
  return { blocks: C, rowPtr, col, diag, val };
}

/**
 * The exact Coulomb solve of an island without its dense A; Δv = M⁻¹Jᵀλ is added to `dvTotal` (6 per body of the
 * Jacobians' body list). No De Saxcé fixed point afterwards (it needs the dense A).
 */
export function solveCoulombMatrixFree(
  k: ContactJacobians,
  options: CoulombOptions,
  softening: number,
  warm: Float64Array | undefined,
  dvTotal: Float64Array,
): SolveResult {
  const t0 = nowMs();
  const out = solveCoulombBlocks(coulombBlockRows(k, softening), k.b, k.mu, options, warm, null);
  const rows = matrixFreeRows(k, softening);
  const ws = new KktWorkspace(k.size);
  const report = { ...kktRows(rows, out.lambda, ws) };
  for (let i = 0; i < dvTotal.length; i++) dvTotal[i] += rows.dv[i];
  const w = Float64Array.from(ws.w);
  return {
    solver: 'coulomb',
    lambda: out.lambda,
    w,
    status: out.status,
    iterations: out.iterations,
    history: out.history,
    regularization: 0,
    timeMs: nowMs() - t0,
    objective: objectiveFromAlam(out.lambda, ws.Alam, k.b, k.size),
    merit: out.merit ?? { problem: 'coulomb', value: Number.POSITIVE_INFINITY },
    kkt: report,
    contactClass: classifyContacts(k, out.lambda, w, report.lamRef, report.wRef),
  };
}
