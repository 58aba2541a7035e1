/**
 * The scale of each kind of quantity a comparison measures differences against (docs/compare.md
 * "Tolerance"): lengths by the bodies' size or their distance from the origin, speeds by the frame's largest
 * speed (at least one step of gravity, |g|·Δt), impulses by the frame's largest impulse (at least the
 * lightest body's weight over one step, m·|g|·Δt), coefficients and unit vectors by 1.
 */
import type { RecordedBodyState, RecordedFrame, RecordingHeader } from '../../format/recording.js';

/** What both headers fix: the bodies' size, the lightest mass, one step of gravity. */
export interface RunScales {
  /** The largest half extent or radius of a dynamic body (m); 1 when no shape says. */
  readonly length: number;
  /** Speed of one step of gravity |g|·Δt (m/s), at least 1e-3·length/Δt when there is no gravity. */
  readonly stepSpeed: number;
  /** Impulse floor: the lightest dynamic body's mass × stepSpeed (N·s). */
  readonly impulse: number;
}

function shapeSize(shape: RecordingHeader['bodies'][number]['shape']): number {
  if ('sphere' in shape) return shape.sphere.radius;
  if ('box' in shape) return Math.max(...shape.box.halfExtents);
  return 0;
}

export function runScales(a: RecordingHeader, b: RecordingHeader): RunScales {
  let length = 0,
    minMass = Number.POSITIVE_INFINITY;
  for (const h of [a, b])
    for (const body of h.bodies) {
      if (body.static) continue;
      length = Math.max(length, shapeSize(body.shape));
      if (body.mass !== null) minMass = Math.min(minMass, body.mass);
    }
  if (!(length > 0)) length = 1;
  if (!Number.isFinite(minMass)) minMass = 1;
  const dt = Math.max(a.dt, b.dt);
  const g = Math.max(Math.hypot(...a.gravity), Math.hypot(...b.gravity));
  const stepSpeed = Math.max(g * dt, (1e-3 * length) / dt);
  return { length, stepSpeed, impulse: minMass * stepSpeed };
}

/** Per frame pair: the scale of speeds, angular speeds and impulses. */
export interface FrameScales {
  readonly speed: number;
  readonly angularSpeed: number;
  readonly impulse: number;
}

const norm3 = (v: readonly number[]): number => Math.hypot(v[0], v[1], v[2]);

function maxSpeeds(states: readonly RecordedBodyState[], out: { v: number; w: number }): void {
  for (const s of states) {
    out.v = Math.max(out.v, norm3(s.v));
    out.w = Math.max(out.w, norm3(s.w));
  }
}

/** Speed scales from post-step states only (the bodies-only comparison after a divergence). */
export function stateScales(run: RunScales, a: readonly RecordedBodyState[], b: readonly RecordedBodyState[]): FrameScales {
  const m = { v: run.stepSpeed, w: 0 };
  maxSpeeds(a, m);
  maxSpeeds(b, m);
  return { speed: m.v, angularSpeed: Math.max(m.w, m.v / run.length), impulse: run.impulse };
}

/** The scales of a frame pair: speeds (post-step and pre-solve), impulses. */
export function frameScales(run: RunScales, a: RecordedFrame, b: RecordedFrame): FrameScales {
  const m = { v: run.stepSpeed, w: 0 };
  maxSpeeds(a.bodies, m);
  maxSpeeds(b.bodies, m);
  for (const f of [a, b]) if (f.pre) for (const p of f.pre) m.v = Math.max(m.v, norm3(p.v));
  let impulse = run.impulse;
  for (const f of [a, b]) {
    const l = f.solver.lambda;
    for (let i = 0; i < l.length; i++) impulse = Math.max(impulse, Math.abs(l[i]));
  }
  return { speed: m.v, angularSpeed: Math.max(m.w, m.v / run.length), impulse };
}
