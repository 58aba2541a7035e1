/** The order of solver statuses, worst last: how a frame of several islands reports one status. */
import type { SolveStatus } from './types.js';

/** converged < stalled < max-iterations < failed: the one order every frame summary uses. */
export const STATUS_RANK: Readonly<Record<SolveStatus['kind'], number>> = { converged: 0, stalled: 1, 'max-iterations': 2, failed: 3 };

const CONVERGED: SolveStatus = { kind: 'converged' };

/** The worst status of the islands (the first of equal rank, with its reason); converged when there are none. */
export function worstStatus(islands: readonly { readonly result: { readonly status: SolveStatus } }[]): SolveStatus {
  let worst = CONVERGED;
  for (const isl of islands) if (STATUS_RANK[isl.result.status.kind] > STATUS_RANK[worst.kind]) worst = isl.result.status;
  return worst;
}
