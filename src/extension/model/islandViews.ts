/**
 * The islands of a frame view: heat map, conditioning and causes per island. A busy frame's view is sent before
 * the conditioning of its larger islands (each one's spectrum: ≈ 4m³/3 flops for m = min(3C, 6D) rows, 65 ms of
 * CPU for the 1000-box pile's 38 islands of a 3 800-contact frame); those islands are marked pending and their
 * conditioning follows (InspectorModel.conditioning, the `conditioning` message of src/protocol/inspector.ts).
 */
import { conditioningCauses } from '../../engine/index.js';
import type { FrameDetail, IslandDetail } from '../../session/session.js';
import { conditioningEstimate, exactIslandConditioning, type IslandConditioning } from '../../session/conditioningEstimate.js';
import { drawnIslands, MAX_MATRIX_ROWS, type IslandConditioningView, type IslandView } from '../../protocol/inspector.js';
import { encodeHeatMapBlockRows } from '../../protocol/heatMap.js';

/**
 * Work (Σ m³ over the islands, m = min(rows of A, 6 × dynamic bodies): the side of the matrix whose eigenvalues
 * give A's spectrum, session/bodySpaceConditioning.ts) of the conditioning a frame view computes before it is
 * sent: 100³, about a millisecond. Islands beyond it, in island order, are left pending. A count, not a time,
 * so that which islands are pending does not depend on the machine.
 */
export const INLINE_CONDITIONING_WORK = 100 ** 3;

/** The conditioning work of one island (see INLINE_CONDITIONING_WORK). */
const islandWork = (isl: IslandDetail): number => Math.min(3 * isl.contacts.length, 6 * isl.bodies.length) ** 3;

/**
 * Per island of a detail assembled without conditioning (Session.detail with conditioning 'none'): true when its
 * conditioning is left for later. `exact` (the exact analysis asked for): nothing is left.
 */
export function pendingIslands(d: FrameDetail, exact: boolean): boolean[] {
  let work = 0;
  return d.islands.map((isl) => {
    if (exact || isl.blocks === undefined) return false; // no A was assembled (blocks: exactly when problem is)
    const w = islandWork(isl);
    if (work + w > INLINE_CONDITIONING_WORK) return true;
    work += w;
    return false;
  });
}

/** An island view's conditioning fields. */
type ConditioningFields = Omit<IslandConditioningView, 'island'>;

/** The conditioning fields of an island whose A was not assembled or whose conditioning is pending. */
const NO_CONDITIONING: ConditioningFields = {
  kappa: null,
  lambdaMin: null,
  lambdaMax: null,
  rankDeficiency: null,
  kappaRange: null,
  rankRatio: null,
  method: null,
  causes: [],
};

/** An island's conditioning and causes, as the frame view shows them (null: no A was assembled). */
export function islandConditioning(isl: IslandDetail, exact: boolean): ConditioningFields | null {
  const blocks = isl.blocks,
    k = isl.jacobians;
  if (blocks === undefined || k === undefined) return null;
  // A's spectrum from the body-space Gram of the Jacobians where that is smaller; the dense A is formed only otherwise
  const A = (): Float64Array => isl.problem!.A; // present whenever blocks are
  const cond: IslandConditioning = exact
    ? exactIslandConditioning(A, k.size, blocks.regularization, k)
    : conditioningEstimate(A, k.size, blocks.regularization, k);
  return {
    kappa: Number.isFinite(cond.kappa) ? cond.kappa : null,
    lambdaMin: cond.lambdaMin,
    lambdaMax: cond.lambdaMax,
    rankDeficiency: cond.rankDeficiency,
    kappaRange: Number.isFinite(cond.kappaRange) ? cond.kappaRange : null,
    rankRatio: Number.isFinite(cond.rankRatio) ? cond.rankRatio : null,
    method: cond.method,
    // conditioningCauses reads the rank deficiency only, which both analyses give
    causes: conditioningCauses(k, cond).map((x) => x.message),
  };
}

/** The views of d's islands: conditioning computed now unless `pending` says it is left for later. */
export function islandViews(d: FrameDetail, pending: readonly boolean[], exact: boolean): IslandView[] {
  const drawn = new Set(drawnIslands(d.islands.map((isl) => 3 * isl.contacts.length)));
  return d.islands.map((isl, k) => {
    // the heat map from A's blocks, for the islands the panel draws; the dense A is formed only for the
    // conditioning computed now
    const blocks = isl.blocks,
      size = 3 * isl.contacts.length;
    const view: IslandView = {
      contacts: isl.contacts,
      size,
      heat: blocks && size <= MAX_MATRIX_ROWS && drawn.has(k) ? encodeHeatMapBlockRows(blocks) : null,
      ...((pending[k] ? null : islandConditioning(isl, exact)) ?? NO_CONDITIONING),
      ...(pending[k] ? { conditioningPending: true } : {}),
    };
    const reason = isl.reason ?? (blocks && size > MAX_MATRIX_ROWS ? `A has ${size} rows; the heat map shows islands up to ${MAX_MATRIX_ROWS}` : undefined);
    return reason ? { ...view, reason } : view;
  });
}
