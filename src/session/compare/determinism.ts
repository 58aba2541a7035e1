/**
 * Determinism of a scenario (docs/scene-format.md "Expectations", kind "deterministic"): the scenario run twice in
 * lockstep must not diverge (runComparison.ts, the relative tolerance of `diff`); with mode "order" it is also run
 * with each step's contacts shuffled (World's contactOrderSeed: the order another thread count or broad phase
 * would give), which order-dependent solvers — projected Gauss–Seidel sweeps contacts in order (Catto 2005) — are
 * expected to fail. Nothing is written to disk: the two worlds step side by side and only the last frames are kept.
 */
import type { ScenarioDesc } from '../../engine/index.js';
import { World } from '../../engine/index.js';
import type { RecordedFrame } from '../../format/recording.js';
import { frameFromWorld, headerFromWorld } from '../../format/worldRecording.js';
import type { LambdaComparison } from './frameCompare.js';
import { RunComparison, type RunDiff } from './runComparison.js';
import { DEFAULT_TOLERANCE, type DiffTolerance } from './tolerance.js';

/** The seed of the shuffled run (any fixed number: the check must give the same verdict every time). */
export const SHUFFLE_SEED = 0x5eed;

export type DeterminismMode = 'repeat' | 'order';

export interface DeterminismResult {
  /** The second run against the first: the same scenario again. */
  readonly repeat: RunDiff;
  /** mode "order": the run with shuffled contacts against the first. */
  readonly shuffled?: RunDiff;
}

/**
 * Runs `desc` and a second world (options) in lockstep and compares every frame. λ is compared as `lambda` says:
 * with the contacts shuffled, through the bodies' impulses (bodyImpulses.ts) — the split of Jᵀλ over a face's four
 * coplanar corners depends on the order for every solver, the motion only for order-dependent ones.
 */
export function compareWorlds(
  desc: ScenarioDesc,
  second: ConstructorParameters<typeof World>[1],
  tolerance: DiffTolerance = DEFAULT_TOLERANCE,
  lambda: LambdaComparison = 'contacts',
  frames = desc.frames,
): RunDiff {
  const wa = new World(desc),
    wb = new World(desc, second);
  const cmp = new RunComparison(headerFromWorld(wa), headerFromWorld(wb), tolerance, lambda);
  let prevA: RecordedFrame | undefined, prevB: RecordedFrame | undefined;
  for (let k = 0; k < frames; k++) {
    const fa = frameFromWorld(wa, wa.step()),
      fb = frameFromWorld(wb, wb.step());
    const pa = prevA,
      pb = prevB;
    if (cmp.diverged) cmp.states(fa.frame, fa.time, fa.bodies, fb.bodies);
    else cmp.frames(fa, fb, () => ({ prevA: pa, prevB: pb }));
    prevA = fa;
    prevB = fb;
  }
  return cmp.result({ count: 0 }, { count: 0 });
}

export function checkDeterminism(desc: ScenarioDesc, mode: DeterminismMode, tolerance: DiffTolerance = DEFAULT_TOLERANCE): DeterminismResult {
  const repeat = compareWorlds(desc, {}, tolerance);
  return mode === 'order' ? { repeat, shuffled: compareWorlds(desc, { contactOrderSeed: SHUFFLE_SEED }, tolerance, 'impulses') } : { repeat };
}
