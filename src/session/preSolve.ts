/**
 * The body states a frame's contact problem was built from. Recorded `pre` velocities are used when the
 * frame has them (format/recording.ts preSolveBodyStates). A recording without `pre` (many engines only
 * log post-step states) is reconstructed from what it does hold: the pose at solve time is the previous
 * frame's pose, and the velocity before the impulse is v⁻ = v⁺ − M⁻¹Jᵀλ (the contact impulse is the only
 * velocity change between the solve and the end of a semi-implicit Euler step, docs/physics.md "Energy ledger"). Exact
 * for engines whose step ends with the contact impulse; approximate when they damp or clamp velocities
 * after the solve.
 */
import { assembleJacobians, type BodyState, jacobianVelocityChanges } from '../engine/index.js';
import { preSolveBodyStates, toContactPoint, type RecordedFrame, type RecordingHeader } from '../format/recording.js';
import { extraVelocityChanges, hasExtraRows } from './extraRows.js';

export type SolveTimeBodies =
  | { readonly ok: true; readonly bodies: BodyState[] /** true when v⁻ was reconstructed (no `pre`). */; readonly reconstructed: boolean }
  | { readonly ok: false; readonly reason: string };

export const RECONSTRUCTED_NOTE =
  'pre-solve velocities reconstructed as v⁻ = v⁺ − M⁻¹Jᵀλ (the recording has no "pre"; exact when the contact impulse is the last velocity change of the step)';

/** Two times closer than this (relative to max(1, |t|)) are the same instant (one step apart: t − Δt). */
const SAME_TIME = 1e-9;

/**
 * The format 1.1 initial state as the frame before `f`, when it is exactly one step before it (its time is
 * f.time − Δt; the reader fills an absent time with the first frame's time − Δt): the state that step started from.
 */
export function initialAsPrevious(header: RecordingHeader, f: RecordedFrame): RecordedFrame | undefined {
  const init = header.initial;
  if (!init || init.time === undefined || init.bodies.length !== f.bodies.length) return undefined;
  if (Math.abs(f.time - header.dt - init.time) > SAME_TIME * Math.max(1, Math.abs(f.time))) return undefined;
  return { frame: f.frame - 1, time: init.time, bodies: init.bodies, contacts: [], solver: { name: '', status: 'converged', lambda: [] } };
}

export function solveTimeBodies(header: RecordingHeader, f: RecordedFrame, prev?: RecordedFrame): SolveTimeBodies {
  // the first frame's predecessor may be the initial-state line
  prev ??= initialAsPrevious(header, f);
  if (f.pre) {
    const r = preSolveBodyStates(header, f, prev);
    return r.ok ? { ok: true, bodies: r.bodies, reconstructed: false } : r;
  }
  if (!prev || prev.frame !== f.frame - 1) {
    return { ok: false, reason: `frame ${f.frame} has no "pre" velocities and frame ${f.frame - 1} is not available to reconstruct them` };
  }
  // Pose from the previous frame, velocity = post-step velocity, then remove the impulse's Δv = M⁻¹Jᵀλ.
  const post = preSolveBodyStates(header, { ...f, pre: f.bodies.map((b) => ({ v: b.v, w: b.w })) }, prev);
  if (!post.ok) return post;
  const bodies = post.bodies;
  if (f.contacts.length === 0 && !hasExtraRows(f)) return { ok: true, bodies, reconstructed: true };
  // format 1.1: manifold friction/twist rows and impulses applied with the solve are velocity changes of the solve too
  const dv = extraVelocityChanges(f, bodies, new Float64Array(6 * bodies.length));
  const contacts = f.contacts.map(toContactPoint);
  if (contacts.length > 0) {
    const k = assembleJacobians(bodies, contacts, { regularization: 0, baumgarte: false, restVelocityThreshold: Infinity, dt: header.dt });
    jacobianVelocityChanges(k, contacts, f.solver.lambda, bodies.length, dv);
  }
  const out = bodies.map((b, i) =>
    b.invMass === 0
      ? b
      : {
          ...b,
          v: [b.v[0] - dv[6 * i], b.v[1] - dv[6 * i + 1], b.v[2] - dv[6 * i + 2]] as const,
          omega: [b.omega[0] - dv[6 * i + 3], b.omega[1] - dv[6 * i + 4], b.omega[2] - dv[6 * i + 5]] as const,
        },
  ) as BodyState[];
  return { ok: true, bodies: out, reconstructed: true };
}
