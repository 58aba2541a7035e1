/**
 * Non-smooth block Gauss–Seidel for the exact Coulomb problem (Jean & Moreau 1987, "Dynamics in the presence
 * of unilateral contacts and dry friction: a numerical approach"; Siconos's NSGS, Acary, Brémond & Huber
 * 2018 §4.1): contact after contact, with the others frozen, the contact's local problem
 *
 *   u_c = W_cc r_c + (q_c + Σ_{d≠c} W_cd r_d)
 *
 * is solved exactly (coulombLocal.ts). W is used block-sparse and as given (no symmetry needed). One sweep
 * costs the stored blocks of W plus one local solve per contact.
 */
import type { BlockRows } from '../math/blockRows.js';
import { LocalCase, solveContact } from './coulombLocal.js';

/** Outcome of one sweep. */
export interface SweepReport {
  /** ‖r_new − r_old‖₂² over the sweep. */
  change: number;
  /** Contacts whose local problem had no valid case (left unchanged). */
  unsolved: number;
}

/** One sweep in place over r (3 per contact), contacts in index order; q = −b, μ per contact. */
export function coulombSweep(W: BlockRows, q: Float64Array, mu: Float64Array, r: Float64Array, report: SweepReport): void {
  const { blocks, rowPtr, col, diag, val } = W;
  let change = 0,
    unsolved = 0;
  for (let c = 0; c < blocks; c++) {
    const o = 3 * c;
    let s0 = q[o],
      s1 = q[o + 1],
      s2 = q[o + 2];
    const dg = diag[c];
    for (let e = rowPtr[c]; e < rowPtr[c + 1]; e++) {
      if (e === dg) continue;
      const v = 9 * e,
        xo = 3 * col[e];
      const x0 = r[xo],
        x1 = r[xo + 1],
        x2 = r[xo + 2];
      s0 += val[v] * x0 + val[v + 1] * x1 + val[v + 2] * x2;
      s1 += val[v + 3] * x0 + val[v + 4] * x1 + val[v + 5] * x2;
      s2 += val[v + 6] * x0 + val[v + 7] * x1 + val[v + 8] * x2;
    }
    const r0 = r[o],
      r1 = r[o + 1],
      r2 = r[o + 2];
    if (solveContact(val, 9 * dg, s0, s1, s2, mu[c], r, o) === LocalCase.None) unsolved++;
    const d0 = r[o] - r0,
      d1 = r[o + 1] - r1,
      d2 = r[o + 2] - r2;
    change += d0 * d0 + d1 * d1 + d2 * d2;
  }
  report.change = change;
  report.unsolved = unsolved;
}
