/**
 * Termination of the interior points (ipm.ts dense, ipmSparse.ts sparse), written once for both: the
 * step-collapse and stalled-progress tests of the iteration loop, the status after the natural-map polish,
 * and the closing status when the loop ended without one. A status never overstates (docs/physics.md
 * "The QP-SOCP and its KKT conditions", Status): "converged" only at KKT max_rel ≤ tolerance.
 */
import { formatCount, formatNumber } from '../numberText.js';
import type { SolveStatus } from './types.js';

/**
 * Stall test (armed in the AHO phase, where only numerical limits stop progress): stop when the best
 * KKT max_rel has not dropped below IPM_STALL_FACTOR × its value IPM_STALL_WINDOW iterations earlier,
 * and the IPM merit (scaled complementarity and dual residual) has also stopped dropping or fallen
 * below IPM_MERIT_FLOOR.
 */
export const IPM_STALL_WINDOW = 4;
export const IPM_STALL_FACTOR = 0.5;
export const IPM_MERIT_FLOOR = 1e-20;
/** Step lengths below this count as a collapsed step. */
export const IPM_MIN_STEP = 1e-8;
/** Consecutive collapsed steps before the run stops ("stalled"). */
export const IPM_MAX_COLLAPSED_STEPS = 3;

/**
 * The progress tests of one interior-point run: collapsed step lengths in a row, and ring buffers of the
 * best KKT max_rel and the IPM merit over the last IPM_STALL_WINDOW iterations (allocated once, per run).
 */
export class IpmProgress {
  private collapsed = 0;
  private readonly bestTrail = new Float64Array(IPM_STALL_WINDOW + 1).fill(Infinity);
  private readonly meritTrail = new Float64Array(IPM_STALL_WINDOW + 1).fill(Infinity);

  /**
   * After iteration `iterations` (step α, best KKT max_rel so far, merit and τ at the iteration's start):
   * 'stalled' when α collapsed IPM_MAX_COLLAPSED_STEPS times in a row, or — once `armed` — when neither
   * the best max_rel nor the merit halved over the window; else null (keep iterating).
   */
  check(iterations: number, alpha: number, bestRel: number, merit: number, tau: number, armed: boolean): SolveStatus | null {
    this.collapsed = alpha < IPM_MIN_STEP ? this.collapsed + 1 : 0;
    if (this.collapsed >= IPM_MAX_COLLAPSED_STEPS) {
      return {
        kind: 'stalled',
        reason: `step length collapsed (α = ${formatNumber(alpha)}) for ${formatCount(this.collapsed, 'iteration')} at iteration ${iterations}`,
      };
    }
    const W = IPM_STALL_WINDOW + 1;
    const slot = iterations % W,
      old = (iterations + 1) % W; // old: IPM_STALL_WINDOW iterations ago
    const bestOld = this.bestTrail[old],
      meritOld = this.meritTrail[old];
    this.bestTrail[slot] = bestRel;
    this.meritTrail[slot] = merit;
    if (armed && !(bestRel < IPM_STALL_FACTOR * bestOld) && (merit <= IPM_MERIT_FLOOR || !(merit < IPM_STALL_FACTOR * meritOld))) {
      return { kind: 'stalled', reason: `interior-point progress stopped at iteration ${iterations} (τ = ${formatNumber(tau)})` };
    }
    return null;
  }
}

/**
 * The status after the natural-map polish: converged if the polish met the tolerance; else the loop's
 * status (when it had one) with `note` (what the polish did) appended; null stays null.
 */
export function statusAfterPolish(status: SolveStatus | null, bestRel: number, tol: number, note: string | null): SolveStatus | null {
  if (bestRel <= tol) return { kind: 'converged' };
  if (status === null || note === null) return status;
  const why = `${status.kind === 'converged' ? '' : status.reason}; ${note}`;
  return status.kind === 'failed' ? { kind: 'failed', reason: why } : { kind: 'stalled', reason: why };
}

/** The closing status: the loop's, unless it has none or claims convergence above the tolerance (then max-iterations or stalled). */
export function closingStatus(status: SolveStatus | null, bestRel: number, tol: number, iterations: number, maxIt: number): SolveStatus {
  if (status !== null && !(status.kind === 'converged' && !(bestRel <= tol))) return status;
  return iterations >= maxIt
    ? { kind: 'max-iterations', reason: `${formatCount(maxIt, 'iteration')}, KKT max_rel ${formatNumber(bestRel)} > ${formatNumber(tol)}` }
    : { kind: 'stalled', reason: `KKT max_rel ${formatNumber(bestRel)} > ${formatNumber(tol)}` };
}
