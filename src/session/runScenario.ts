/**
 * Runs a parsed scenario in our engine frame by frame and keeps what the expectations and the report need
 * (per-frame energy, penetration, solver status, momentum), without keeping the frames themselves.
 */
import { World, type FrameRecord } from '../engine/world/world.js';
import type { ScenarioDesc } from '../engine/world/types.js';
import type { Vec3 } from '../engine/math/vec3.js';

export interface FrameSummary {
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
  readonly frames: FrameSummary[];
}

const STATUS_RANK = { converged: 0, stalled: 1, 'max-iterations': 2, failed: 3 } as const;

export function momentumOf(world: World): Vec3 {
  const p: [number, number, number] = [0, 0, 0];
  for (const b of world.bodies) if (!b.isStatic) for (let k = 0; k < 3; k++) p[k] += b.mass * b.v[k];
  return p;
}

export function summarize(world: World, f: FrameRecord): FrameSummary {
  let status: FrameSummary['status'] = 'converged',
    iterations = 0,
    maxPen = 0;
  for (const isl of f.islands) {
    if (STATUS_RANK[isl.result.status.kind] > STATUS_RANK[status]) status = isl.result.status.kind;
    iterations = Math.max(iterations, isl.result.iterations);
  }
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
  const frames: FrameSummary[] = [];
  const n = options.frames ?? desc.frames;
  for (let k = 0; k < n; k++) {
    const f = world.step();
    frames.push(summarize(world, f));
    if (options.onFrame && options.onFrame(world, f) === false) break;
  }
  return { world, initialEnergy, initialMomentum, frames };
}
