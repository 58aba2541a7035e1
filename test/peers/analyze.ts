/**
 * Reading a peer recording back with our reader (src/format/recordingFile.ts) and the facts the
 * controlled experiment tabulates: frames whose total energy (kinetic + potential, frameEnergy of
 * src/session/diagnose.ts) rose by more than 1 mJ; the bounce's rebound against e·v; the slide's lift;
 * and the Δv = M⁻¹Jᵀλ consistency of `pre` (consistency.ts).
 */
import { RecordingReader } from '../../src/format/recordingFile.js';
import type { RecordedFrame, RecordingHeader } from '../../src/format/recording.js';
import { frameEnergy } from '../../src/session/diagnose.js';
import { velocityMismatch, type Mismatch } from './consistency.js';
import type { SceneName } from './scenes.js';

/** The experiment's energy threshold: a frame "gains" when ΔE > 1 mJ. */
export const ENERGY_RISE_J = 1e-3;
/** The slide "leaves the ground" when its lowest point rises this far above the plane (m). */
export const LIFT_TOLERANCE_M = 1e-3;

export interface OpenedRecording {
  readonly header: RecordingHeader;
  readonly frames: readonly RecordedFrame[];
  readonly errors: number;
  readonly warnings: readonly string[];
}

export async function openRecording(file: string): Promise<OpenedRecording> {
  const r = await RecordingReader.open(file);
  try {
    const frames: RecordedFrame[] = [];
    for (let i = 0; i < r.frameCount; i++) frames.push(r.frame(i));
    return { header: r.header, frames, errors: r.errors.length, warnings: r.warnings };
  } finally {
    r.close();
  }
}

export interface PeerFacts {
  readonly frames: number;
  /** Frames whose total energy rose by more than ENERGY_RISE_J over the previous frame. */
  readonly rising: number;
  /** Largest single-frame rise (J). */
  readonly largestRise: number;
  /** Bounce: first rebound speed / approach speed (compare with e). */
  readonly reboundRatio?: number;
  /** Slide: highest lift of the box's lowest point above the ground (m). */
  readonly maxLift?: number;
  readonly mismatch: Mismatch;
}

/** Lowest point of a unit box (half extent 0.5) or sphere above z = 0. */
function lowestPoint(header: RecordingHeader, f: RecordedFrame, i: number): number {
  const s = header.bodies[i].shape;
  const x = f.bodies[i].x,
    q = f.bodies[i].q;
  if ('sphere' in s) return x[2] - s.sphere.radius;
  if ('box' in s) {
    const h = s.box.halfExtents;
    const [w, a, b, c] = q;
    // z-row of R(q): world z of each body axis
    const r = [2 * (a * c - w * b), 2 * (b * c + w * a), 1 - 2 * (a * a + b * b)];
    return x[2] - (Math.abs(r[0]) * h[0] + Math.abs(r[1]) * h[1] + Math.abs(r[2]) * h[2]);
  }
  return x[2];
}

export function peerFacts(rec: OpenedRecording, scene: SceneName): PeerFacts {
  const { header, frames } = rec;
  let rising = 0,
    largestRise = 0;
  let prevE: number | undefined;
  for (const f of frames) {
    const e = frameEnergy(header, f);
    if (prevE !== undefined) {
      const d = e - prevE;
      if (d > ENERGY_RISE_J) rising++;
      largestRise = Math.max(largestRise, d);
    }
    prevE = e;
  }
  let reboundRatio: number | undefined, maxLift: number | undefined;
  if (scene === 'bounce') {
    const k = frames.findIndex((f) => f.contacts.length > 0);
    if (k > 0) {
      const g = header.gravity[2],
        dt = header.dt;
      const approach = -(frames[k - 1].bodies[1].v[2] + g * dt);
      let rebound = -Infinity;
      for (let j = k; j < Math.min(frames.length, k + 4); j++) rebound = Math.max(rebound, frames[j].bodies[1].v[2]);
      reboundRatio = rebound / approach;
    }
  }
  if (scene === 'slide') {
    maxLift = 0;
    for (const f of frames) maxLift = Math.max(maxLift, lowestPoint(header, f, 1));
  }
  return { frames: frames.length, rising, largestRise, reboundRatio, maxLift, mismatch: velocityMismatch(header, frames) };
}
