/**
 * The check every peer recording must pass when it writes `pre`: the recorded velocity change of every
 * dynamic body equals the contact impulses' Δv = M⁻¹Jᵀλ (docs/physics.md "Recording consistency"; docs/recording-format.md "pre"),
 * rebuilt with the project's own assembly (src/engine/assembly.ts) from the recorded contacts, masses,
 * inertias and pre-solve poses — the same path src/session/preSolve.ts uses.
 */
import { preSolveBodyStates, toContactPoint, type RecordedFrame, type RecordingHeader } from '../../src/format/recording.js';
import { impulseVelocityChange } from '../../src/session/engines/fitLambda.js';

export interface Mismatch {
  /** Largest |Δv_recorded − M⁻¹Jᵀλ| over frames, bodies and the 6 components (m/s or rad/s). */
  readonly worst: number;
  /** The same, linear components only (m/s) and angular only (rad/s). */
  readonly worstLinear: number;
  readonly worstAngular: number;
  /** Largest |Δv_recorded| over the same (for scale). */
  readonly largestDv: number;
  readonly frame: number;
  readonly body: number;
  /** Frames compared (frames with `pre`). */
  readonly frames: number;
}

export function velocityMismatch(header: RecordingHeader, frames: readonly RecordedFrame[]): Mismatch {
  let worst = 0,
    worstLinear = 0,
    worstAngular = 0,
    largestDv = 0,
    at = -1,
    body = -1,
    compared = 0;
  let prev: RecordedFrame | undefined;
  for (const f of frames) {
    if (f.pre) {
      const st = preSolveBodyStates(header, f, prev);
      if (!st.ok) throw new Error(st.reason);
      const contacts = f.contacts.map(toContactPoint);
      const dv = impulseVelocityChange(st.bodies, contacts, f.solver.lambda);
      compared++;
      header.bodies.forEach((hb, i) => {
        if (hb.static) return;
        const rec = [...f.bodies[i].v, ...f.bodies[i].w];
        const pre = [...f.pre![i].v, ...f.pre![i].w];
        for (let q = 0; q < 6; q++) {
          const d = rec[q] - pre[q];
          largestDv = Math.max(largestDv, Math.abs(d));
          const m = Math.abs(d - dv[6 * i + q]);
          if (q < 3) worstLinear = Math.max(worstLinear, m);
          else worstAngular = Math.max(worstAngular, m);
          if (m > worst) {
            worst = m;
            at = f.frame;
            body = i;
          }
        }
      });
    }
    prev = f;
  }
  return { worst, worstLinear, worstAngular, largestDv, frame: at, body, frames: compared };
}
