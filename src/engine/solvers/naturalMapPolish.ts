/**
 * The sparse natural-map polish loop (polish.ts polishNaturalMap, sparse): SparseNaturalMap.step until the
 * tolerance or no progress, with the proximal endgame (SparseNaturalMap.proximalStep) on request. Moved from
 * naturalMapSparse.ts unchanged; still exported from there.
 */
import type { SparseNaturalMap } from './naturalMapSparse.js';
import { POLISH_BACKTRACKS } from './polish.js';

/**
 * Up to maxSteps sparse semismooth Newton steps from `best` (polish.ts polishNaturalMap, sparse): stops at
 * the tolerance or at the first step that cannot lower the KKT max_rel; `record` once per step with the
 * merit and objective reached. `rate`: also stop after a step that does not multiply the residual by at
 * least this (newton.ts LOCAL_RATE; 1 = keep going while it improves). `proximal`: the proximal endgame
 * (SparseNaturalMap.proximalStep, with the steps left; each of its linear systems counts as a step) first, then
 * projected steps, and the endgame again whenever a projected step finds no lower point.
 */
export function polishNaturalMapSparse(
  nm: SparseNaturalMap,
  best: Float64Array,
  bestRel: number,
  tol: number,
  maxSteps: number,
  record: (rel: number, f: number) => void,
  backtracks: number = POLISH_BACKTRACKS,
  rate = 1,
  proximal = false,
): { bestRel: number; steps: number } {
  let steps = 0;
  // the endgame before any projected step (the interior point's end, where the projected step rarely finds a
  // lower point: it solved two systems and evaluated the merit up to 2·(backtracks + 1) times for nothing)
  let endgameNext = proximal;
  while (steps < maxSteps && bestRel > tol) {
    let r = bestRel;
    // linear systems solved in this pass: one history entry each (the last one carries the pass's result)
    let solves = 0;
    if (!endgameNext) {
      r = nm.step(best, bestRel, backtracks);
      steps++;
      solves++;
    }
    if (proximal && !(r < bestRel) && steps < maxSteps) {
      // the projected line search found no lower point (or was skipped): the proximal endgame (SparseNaturalMap.proximalStep)
      const before = bestRel,
        fBefore = nm.objective(best);
      const p = nm.proximalStep(best, bestRel, maxSteps - steps, tol);
      steps += p.solves;
      solves += p.solves;
      r = p.rel;
      // the subproblem's iterates are not in K, so their entries carry the best so far
      const endgameFailedFirst = endgameNext && !(r < bestRel);
      for (let i = endgameFailedFirst ? 0 : 1; i < solves; i++) record(before, fBefore);
      if (endgameFailedFirst) {
        // the endgame first found nothing: the projected step after all
        endgameNext = false;
        continue;
      }
    }
    endgameNext = false;
    const improved = r < bestRel;
    const fast = r <= rate * bestRel;
    bestRel = r;
    record(bestRel, nm.objective(best));
    if (!improved || !fast) break;
  }
  return { bestRel, steps };
}
