/**
 * Matrix-free projected Gauss–Seidel for large islands (sequential impulses, Catto GDC 2005): the PGS
 * kernel of pgs.ts on matrix-free rows (pgsRows.ts): A is never formed, each row reads the velocity change
 * Δv = M⁻¹Jᵀλ of its two bodies. Cost per sweep O(C) instead of O(C²), memory O(C + N) instead of O(C²).
 * Convergence is measured with the same KKT residual as every other solver, after every sweep or on the
 * 'doubling' schedule (pgs.ts ResidualSweeps).
 */
import type { ContactJacobians } from '../assembly.js';
import { classifyContacts, type ContactClass } from '../kkt.js';
import { PgsScratch, runPgs, type PgsOutput, type ResidualSweeps } from './pgs.js';
import { MatrixFreeScratch, matrixFreeRows } from './pgsRows.js';
import type { PgsOptions } from './types.js';
import { nowMs } from '../clock.js';

/** Working arrays of solvePgsMatrixFree, reused from solve to solve (it is not re-entered while it runs). */
const rowsScratch = new MatrixFreeScratch();
const pgsScratch = new PgsScratch();

export interface MatrixFreeOutput extends PgsOutput {
  /** Δv = M⁻¹Jᵀλ per body of the island's body list, [dv(3), dω(3)]. */
  readonly dv: Float64Array;
  readonly timeMs: number;
  readonly contactClass: ContactClass[];
}

/**
 * `softening` γ is added to the normal rows: w_n = (Aλ − b)_n + γλ_n (docs/physics.md "Softening").
 * With `into` (6 per body of the island's body list, zero at this island's dynamic bodies) Δv is added
 * there and returned as `dv`: the world passes one array for all islands of a step.
 */
export function solvePgsMatrixFree(
  k: ContactJacobians,
  opts: PgsOptions,
  warmStart?: Float64Array,
  softening = 0,
  into?: Float64Array,
  schedule: ResidualSweeps = 'every',
): MatrixFreeOutput {
  const t0 = nowMs();
  // the rows live only in this call, so their working arrays are the module's scratch (no allocation in steady state)
  const rows = matrixFreeRows(k, softening, into, rowsScratch);
  const out = runPgs(rows, opts, warmStart, 'matrix-free', schedule, pgsScratch);
  return {
    ...out,
    dv: rows.dv,
    contactClass: classifyContacts(k, out.lambda, out.w, out.kkt.lamRef, out.kkt.wRef),
    timeMs: nowMs() - t0,
  };
}
