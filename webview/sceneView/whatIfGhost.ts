/** The scene view's what-if ghost: per contact of a what-if result, its velocity after the step as recorded and as the alternative gives it. */
import type { ContactView, FrameView, WhatIfView } from '../../src/protocol/inspector.js';
import { niceStep } from '../niceStep.js';
import type { GhostContact } from './contactLayer.js';

/**
 * The ghost arrows of what-if result `w` on frame `v` (none without it), and their scale: metres of arrow per
 * m/s, a 1-2-5 step that makes the fastest arrow about `longest` metres (0: no ghost to draw). `onB`: the
 * contact's arrows show the motion of b relative to a (a static, b moving), as its impulse arrows do.
 */
export function whatIfGhosts(
  w: WhatIfView | undefined,
  v: FrameView,
  onB: (c: ContactView) => boolean,
  longest: number,
): { ghosts: GhostContact[]; metresPerMps: number } {
  const ghosts: GhostContact[] = [];
  let fastest = 0;
  for (const c of w?.contacts ?? []) {
    const at = v.contacts[c.index];
    if (!c.scene || !at) continue;
    // like the impulse arrows: the motion of b relative to a when only b moves
    const k = onB(at) ? -1 : 1;
    const flip = (x: readonly [number, number, number]): [number, number, number] => [k * x[0], k * x[1], k * x[2]];
    ghosts.push({ point: at.point, recorded: flip(c.scene.recordedVelocity), alternative: flip(c.scene.alternativeVelocity) });
    fastest = Math.max(fastest, Math.hypot(...c.scene.recordedVelocity), Math.hypot(...c.scene.alternativeVelocity));
  }
  const metresPerMps = fastest > 0 && Number.isFinite(fastest) ? 1 / niceStep(fastest / longest) : 0;
  return { ghosts, metresPerMps };
}
