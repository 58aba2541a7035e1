/**
 * Runs a parsed scenario in our engine frame by frame and keeps what the expectations and the report need
 * (per-frame energy, penetration, solver status, momentum), without keeping the frames themselves.
 */
import { MAX_RECORDED_MAGNITUDE } from '../format/recordingValidate.js';
import { type FrameRecord, type ScenarioDesc, type Vec3, World, worstStatus } from '../engine/index.js';

/**
 * One simulated frame of a scenario run, as the expectations and the report read it (a recording's index entry
 * is `FrameSummary` in src/format/recordingIndexer.ts).
 */
export interface ScenarioFrameSummary {
  readonly frame: number;
  readonly time: number;
  readonly contacts: number;
  readonly totalEnergy: number;
  readonly maxPenetration: number;
  readonly status: 'converged' | 'max-iterations' | 'stalled' | 'failed';
  readonly iterations: number;
  readonly momentum: Vec3;
}

export interface RunResult {
  readonly world: World;
  readonly initialEnergy: number;
  readonly initialMomentum: Vec3;
  readonly frames: ScenarioFrameSummary[];
  /** The first frame where the simulation blew up (the run stops there), or null. */
  readonly blowUp: BlowUp | null;
}

/** A simulation that diverged: the frame and what is not finite. */
export interface BlowUp {
  readonly frame: number;
  readonly reason: string;
}

/**
 * A body position (m) or speed (m/s, rad/s) beyond this is a blow-up even while finite: it has left the range a
 * recording holds (MAX_RECORDED_MAGNITUDE, docs/recording-format.md "Numbers"), where the energy ledger's products
 * stop being finite; the diagnosis uses the same bound.
 */
export const BLOW_UP_SPEED = MAX_RECORDED_MAGNITUDE;

/**
 * Whether the world's state after frame `f` has blown up: a body's position or velocity not finite or
 * faster than BLOW_UP_SPEED, or the frame's energy not finite. The reason names the body or the energy.
 */
export function blowUpOf(world: World, f: FrameRecord): BlowUp | null {
  for (const [i, b] of world.bodies.entries()) {
    if (b.isStatic) continue;
    const state = [b.x[0], b.x[1], b.x[2], b.v[0], b.v[1], b.v[2], b.w[0], b.w[1], b.w[2]];
    if (!state.every(Number.isFinite)) return { frame: f.frame, reason: `body ${i} (${b.name}) has a non-finite position or velocity` };
    if (Math.hypot(b.v[0], b.v[1], b.v[2], b.w[0], b.w[1], b.w[2]) > BLOW_UP_SPEED)
      return { frame: f.frame, reason: `body ${i} (${b.name}) moves faster than ${BLOW_UP_SPEED}` };
    if (Math.hypot(b.x[0], b.x[1], b.x[2]) > BLOW_UP_SPEED)
      return { frame: f.frame, reason: `body ${i} (${b.name}) is farther than ${BLOW_UP_SPEED} m from the origin` };
  }
  if (!Number.isFinite(f.energy.total)) return { frame: f.frame, reason: `the energy is ${f.energy.total} J` };
  return null;
}

/** "the simulation blows up at frame N: why" — the line check and simulate print. */
export const blowUpMessage = (b: BlowUp): string => `the simulation blows up at frame ${b.frame}: ${b.reason}; the frames after it are not simulated`;

export function momentumOf(world: World): Vec3 {
  const p: [number, number, number] = [0, 0, 0];
  for (const b of world.bodies) if (!b.isStatic) for (let k = 0; k < 3; k++) p[k] += b.mass * b.v[k];
  return p;
}

export function summarize(world: World, f: FrameRecord): ScenarioFrameSummary {
  const status: ScenarioFrameSummary['status'] = worstStatus(f.islands).kind;
  let iterations = 0,
    maxPen = 0;
  for (const isl of f.islands) iterations = Math.max(iterations, isl.result.iterations);
  for (const c of f.contacts) maxPen = Math.max(maxPen, c.contact.penetration);
  return {
    frame: f.frame,
    time: f.time,
    contacts: f.contacts.length,
    totalEnergy: f.energy.total,
    maxPenetration: maxPen,
    status,
    iterations,
    momentum: momentumOf(world),
  };
}

export interface RunOptions {
  readonly frames?: number;
  /** Called after every frame (e.g. to write a recording or report progress); return false to stop. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a callback that returns nothing continues, `false` stops
  readonly onFrame?: (world: World, frame: FrameRecord) => boolean | void;
}

export function runScenario(desc: ScenarioDesc, options: RunOptions = {}): RunResult {
  const world = new World(desc);
  const initialEnergy = world.totalEnergy();
  const initialMomentum = momentumOf(world);
  const frames: ScenarioFrameSummary[] = [];
  const n = options.frames ?? desc.frames;
  let blowUp: BlowUp | null = null;
  for (let k = 0; k < n; k++) {
    const f = world.step();
    frames.push(summarize(world, f));
    if (options.onFrame && options.onFrame(world, f) === false) break;
    blowUp = blowUpOf(world, f);
    if (blowUp) break; // a diverged run: the frames after it mean nothing
  }
  return { world, initialEnergy, initialMomentum, frames, blowUp };
}
