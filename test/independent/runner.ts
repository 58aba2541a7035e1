// Runs a scenario of the independent stepper: optional unrecorded settling steps, then the recorded
// frames with per-frame configuration changes (the planted fault) and teleports between frames, and the
// fault's own energy ledger at the planted frame: E(after the faulty step) − E(after the reference step),
// both from the same state (or, for the convex model's lift, the lift's normal work Σ λn·½(ġn⁺ − τn)).

import { type Body, type BodyState, stateOf, totalEnergy } from './bodies.js';
import { energyAfter, type StepConfig, type StepLog, World } from './stepper.js';
import type { Vec3 } from './vec.js';
import type { FrameRecord, Run } from './writer.js';

export type Mechanism =
  | 'restitution-overshoot'
  | 'bias-injection'
  | 'overlap-push-out'
  | 'non-converged-solve'
  | 'friction-positive-work'
  | 'socp-separation'
  | 'position-correction'
  | 'integrator-drift';

export interface Plant {
  frame: number;
  mechanism: Mechanism;
  variant: string;
  /** the reference step (the physical law) the fault is measured against, or the convex lift's own work */
  reference: Partial<StepConfig> | 'lift-work';
  /** which of frame k's contacts carry the fault */
  contacts: (log: StepLog, world: World) => number[];
}

export interface Teleport {
  /** applied at the end of this frame (its recorded post-step state shows it) */
  afterFrame: number;
  body: number;
  x: Vec3;
  v?: Vec3;
}

export interface Scenario {
  name: string;
  bodies: Body[];
  base: StepConfig;
  frames: number;
  /** unrecorded steps before frame 0 (a settled start) */
  warmup?: number;
  /** configuration changes of the warm-up steps (e.g. a converged solve before a fixed-count engine records) */
  warmupConfig?: Partial<StepConfig>;
  producer?: { name: string; version: string };
  /** the header's solver block */
  solver: Record<string, unknown>;
  /** the frame solver's name */
  solverName: string;
  /** status label per frame (a fixed-iteration engine has no convergence test); default the solve's own */
  label?: 'converged' | 'max-iterations';
  perFrame?: (frame: number) => Partial<StepConfig> | undefined;
  teleports?: Teleport[];
  plant?: Plant;
}

export interface PlantedLedger {
  frame: number;
  contacts: number[];
  mechanism: Mechanism;
  variant: string;
  joules: number;
}

export interface RunResult {
  run: Run;
  planted: PlantedLedger | null;
  /** total energy change of each frame (from the states), for the self-checks */
  deltaE: number[];
}

export function runScenario(s: Scenario): RunResult {
  const world = new World(s.bodies);
  for (let i = 0; i < (s.warmup ?? 0); i++) world.step({ ...s.base, ...(s.warmupConfig ?? {}) });
  const initial: BodyState[] = world.bodies.map(stateOf);
  const g = s.base.gravity;
  const frames: FrameRecord[] = [];
  const deltaE: number[] = [];
  let planted: PlantedLedger | null = null;
  let before = world.energy(g);
  for (let k = 0; k < s.frames; k++) {
    const cfg: StepConfig = { ...s.base, ...(s.perFrame?.(k) ?? {}) };
    const plant = s.plant && s.plant.frame === k ? s.plant : undefined;
    const reference = plant && plant.reference !== 'lift-work' ? energyAfter(world, { ...cfg, ...plant.reference }) : 0;
    const probe = plant ? world.clone() : null;
    const log = world.step(cfg);
    if (plant && probe) {
      const joules = plant.reference === 'lift-work' ? liftWork(log) : world.energy(g) - reference;
      planted = { frame: k, contacts: plant.contacts(log, probe), mechanism: plant.mechanism, variant: plant.variant, joules };
    }
    for (const t of s.teleports ?? []) if (t.afterFrame === k) world.teleport(t.body, t.x, t.v);
    const energy = totalEnergy(world.bodies, g);
    deltaE.push(energy.total - before);
    before = energy.total;
    const status = s.label ?? log.solve.status;
    frames.push({ frame: k, time: (k + 1) * s.base.h, bodies: world.bodies.map(stateOf), log, solverName: s.solverName, status, energy });
  }
  const run: Run = {
    producer: s.producer ?? { name: 'indie-stepper', version: '1.0' },
    dt: s.base.h,
    gravity: g,
    bodies: s.bodies.map((b) => ({ ...b })),
    solver: s.solver,
    initial,
    frames,
  };
  return { run, planted, deltaE };
}

/** Σ λn·½(ġn⁺ − τn) over contacts separating above their target: the convex model's lift work. */
export function liftWork(log: StepLog): number {
  let sum = 0;
  log.contacts.forEach((_, i) => {
    const w = log.lambda[3 * i] * 0.5 * (log.gnPost[i] - log.tauN[i]);
    if (w > 0) sum += w;
  });
  return sum;
}

/** Contacts that join body `body` (a or b). */
export const contactsOf =
  (...bodies: number[]) =>
  (log: StepLog): number[] =>
    log.contacts.flatMap((c, i) => (bodies.includes(c.a) || bodies.includes(c.b) ? [i] : []));

/** Contacts approaching faster than `speed` (the impacts). */
export const approaching =
  (speed: number) =>
  (log: StepLog): number[] =>
    log.gnPre.flatMap((g, i) => (-g > speed && log.contacts[i].gap === 0 ? [i] : []));

/** Contacts whose normal work beyond the target, λn·½(ġn⁺ − τn), is at least `fraction` of the largest. */
export const separatingAboveTarget =
  (fraction: number) =>
  (log: StepLog): number[] => {
    const work = log.contacts.map((_, i) => log.lambda[3 * i] * 0.5 * (log.gnPost[i] - log.tauN[i]));
    const max = Math.max(0, ...work);
    return max <= 0 ? [] : work.flatMap((w, i) => (w >= fraction * max ? [i] : []));
  };

export const noContacts = (): number[] => [];
