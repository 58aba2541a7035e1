/**
 * Scenes of the world benchmark (bench/world.ts) and the three engines that step them: our World,
 * cannon-es and Rapier (@dimforge/rapier3d-compat). The scenes come from the example scene files
 * (parseSceneFile); cannon-es and Rapier get the same bodies, ground plane, gravity, time step and
 * per-pair friction/restitution, translated into each library's conventions:
 *   - quaternions: ours [w, x, y, z]; cannon-es new Quaternion(x, y, z, w); Rapier { w, x, y, z };
 *   - boxes: ours halfExtents = cannon-es Box(halfExtents) = Rapier cuboid(hx, hy, hz); the mass is set,
 *     the inertia follows from the box in all three (m/3·(b² + c²) about the first axis, etc.);
 *   - ground: ours half-space {n·x ≤ offset}; cannon-es Plane (normal = local +z) rotated onto n and
 *     placed at offset·n; Rapier HalfSpace(n) on a fixed body at offset·n;
 *   - friction/restitution: ours combines per pair (geometric mean by default); cannon-es gets one
 *     ContactMaterial per material pair with the combined values; Rapier combines per collider, so the
 *     geometric mean is Multiply of √μ (√μa·√μb = √(μa·μb)), min/max/average map to Min/Max/Average.
 * Rapier bodies may not sleep (ours and cannon-es, allowSleep = false by default, never do).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type * as CannonNs from 'cannon-es';
import type RapierDefault from '@dimforge/rapier3d-compat';
import { parseSceneFile } from '../src/format/scene.js';
import type { BodyDesc, CombineRule, MaterialDesc, ScenarioDesc } from '../src/engine/world/types.js';
import { combine, World, type FrameRecord } from '../src/engine/world/world.js';
import { detectContacts } from '../src/engine/world/detect.js';
import { buildIslands } from '../src/engine/collision/islands.js';
import type { SolveOptions, SolverName } from '../src/engine/solvers/types.js';

type Cannon = typeof CannonNs;
type Rapier = typeof RapierDefault;

export interface WorldBenchScene {
  readonly name: string;
  /** Relative to the repository root. */
  readonly file: string;
  /**
   * Steps simulated once (by the settle engine, bench/world.ts) before any configuration is timed; every
   * configuration then starts from that state. The pile starts as a 10 × 10 × 10 grid in free fall:
   * after 30 steps only the bottom layer touches the ground, after ~90 the grid has landed.
   */
  readonly settleSteps: number;
}

export const WORLD_SCENES: readonly WorldBenchScene[] = [
  { name: 'pyramid-20', file: 'examples/pyramid-20.scene.json', settleSteps: 30 },
  { name: 'box-pile-1000', file: 'examples/box-pile-1000.scene.json', settleSteps: 120 },
];

/** The repository root, from dist/ (bundle) or bench/ (tsx). */
export function repoRoot(): string {
  return path.resolve(__dirname, '..');
}

/** The first scenario of a scene file; only boxes, spheres and planes (what the three engines share). */
export function loadScenario(file: string): ScenarioDesc {
  const abs = path.resolve(repoRoot(), file);
  const { scenarios } = parseSceneFile(readFileSync(abs, 'utf8'), file);
  const desc = scenarios[0].desc;
  return desc;
}

// ---------------------------------------------------------------------------------------------------
// State snapshots: the settled state handed from one engine to every configuration

/** Per body: [x, y, z, qw, qx, qy, qz, vx, vy, vz, ωx, ωy, ωz] (world frame), or null for a static body. */
export type BodySnapshot = readonly number[] | null;

/** The scenario with every dynamic body's pose and velocities replaced by the snapshot. */
export function applySnapshot(desc: ScenarioDesc, snap: readonly BodySnapshot[]): ScenarioDesc {
  if (snap.length !== desc.bodies.length) throw new Error(`snapshot has ${snap.length} bodies, scenario ${desc.bodies.length}`);
  const bodies: BodyDesc[] = desc.bodies.map((b, i) => {
    const s = snap[i];
    if (!s || isStaticDesc(b)) return b;
    return {
      ...b,
      position: [s[0], s[1], s[2]],
      orientation: [s[3], s[4], s[5], s[6]],
      velocity: [s[7], s[8], s[9]],
      angularVelocity: [s[10], s[11], s[12]],
    };
  });
  return { ...desc, bodies };
}

const isStaticDesc = (b: BodyDesc): boolean => b.mass === null || b.shape.kind === 'plane';

function materialOf(desc: ScenarioDesc, name: string): MaterialDesc {
  // As World: the named material, else "default", else the built-in default.
  return desc.materials.find((m) => m.name === name) ?? desc.materials.find((m) => m.name === 'default') ?? { name: 'default', friction: 0.5, restitution: 0 };
}

// ---------------------------------------------------------------------------------------------------
// The engines behind one interface

export type EngineName = 'ours' | 'cannon' | 'rapier';

/** Islands and contacts solved by one method in a step, e.g. "newton dense", "pgs matrix-free". */
export interface MethodShare {
  readonly method: string;
  readonly islands: number;
  readonly contacts: number;
}

/** What one step of our engine did (undefined for cannon-es and Rapier). */
export interface OurStepInfo {
  readonly contacts: number;
  /** How many of them are speculative (gap > 0, FrameRecord.speculativeRows). */
  readonly speculative: number;
  readonly islands: number;
  readonly largestIslandContacts: number;
  readonly largestIslandBodies: number;
  /** Method, iterations and status of the largest island's solve. */
  readonly largestIslandMethod: string;
  readonly iterations: number;
  readonly status: string;
  /**
   * How the islands were solved. The World solves islands beyond its dense limit without forming A (PGS
   * matrix-free, newton/ipm by the sparse interior point), so a "newton" configuration may run ipm there.
   */
  readonly methods: readonly MethodShare[];
}

/** Our detection + islands on the current state, without stepping (what the next step will solve). */
export interface ContactProbe {
  readonly contacts: number;
  readonly islands: number;
  readonly largestIslandContacts: number;
  readonly largestIslandBodies: number;
}

export interface Sim {
  readonly engine: EngineName;
  step(): OurStepInfo | undefined;
  snapshot(): BodySnapshot[];
  dispose(): void;
}

// ---- ours

export function oursSolverOptions(desc: ScenarioDesc, solver: SolverName): SolveOptions {
  // The scene's own options for its solver (pyramid/pile: PGS with maxIterations), else that solver's defaults.
  return desc.config.solver.solver === solver ? desc.config.solver : ({ solver } as SolveOptions);
}

export function probeContacts(desc: ScenarioDesc): ContactProbe {
  const world = new World(desc);
  return probeWorld(world);
}

function probeWorld(world: World): ContactProbe {
  const detected = detectContacts(world.bodies);
  const isStatic = world.bodies.map((b) => b.isStatic);
  const islands = buildIslands(
    world.bodies.length,
    detected.map((d) => [d.bodyA, d.bodyB] as const),
    isStatic,
  );
  let largest = islands[0];
  for (const is of islands) if (is.contacts.length > largest.contacts.length) largest = is;
  return {
    contacts: detected.length,
    islands: islands.length,
    largestIslandContacts: largest?.contacts.length ?? 0,
    largestIslandBodies: largest?.bodies.length ?? 0,
  };
}

/** "pgs matrix-free", "newton dense": the solver that actually ran on an island and how A was held. */
function islandMethod(is: FrameRecord['islands'][number]): string {
  // `matrixFree` is read defensively: older World versions had dense islands only.
  const mf = (is as { readonly matrixFree?: unknown }).matrixFree === true;
  return `${is.result.solver} ${mf ? 'matrix-free' : 'dense'}`;
}

function summarizeFrame(world: World, f: FrameRecord): OurStepInfo {
  let best = -1,
    bestSize = -1;
  const shares = new Map<string, { islands: number; contacts: number }>();
  f.islands.forEach((is, k) => {
    if (is.contacts.length > bestSize) {
      bestSize = is.contacts.length;
      best = k;
    }
    const m = islandMethod(is);
    const sh = shares.get(m) ?? { islands: 0, contacts: 0 };
    sh.islands += 1;
    sh.contacts += is.contacts.length;
    shares.set(m, sh);
  });
  const methods = [...shares].map(([method, sh]) => ({ method, ...sh })).sort((a, b) => b.contacts - a.contacts);
  if (best < 0) {
    return {
      contacts: f.points.length,
      speculative: f.speculativeRows,
      islands: 0,
      largestIslandContacts: 0,
      largestIslandBodies: 0,
      largestIslandMethod: '-',
      iterations: 0,
      status: '-',
      methods,
    };
  }
  const is = f.islands[best];
  const bodies = new Set<number>();
  for (const ci of is.contacts) {
    const c = f.points[ci];
    for (const b of [c.bodyA, c.bodyB]) if (b >= 0 && !world.bodies[b].isStatic) bodies.add(b);
  }
  return {
    contacts: f.points.length,
    speculative: f.speculativeRows,
    islands: f.islands.length,
    largestIslandContacts: is.contacts.length,
    largestIslandBodies: bodies.size,
    largestIslandMethod: islandMethod(is),
    iterations: is.result.iterations,
    status: is.result.status.kind,
    methods,
  };
}

export class OursSim implements Sim {
  readonly engine = 'ours' as const;
  readonly world: World;
  constructor(desc: ScenarioDesc, solver: SolverName) {
    this.world = new World({ ...desc, config: { ...desc.config, solver: oursSolverOptions(desc, solver) } });
  }
  probe(): ContactProbe {
    return probeWorld(this.world);
  }
  step(): OurStepInfo {
    return summarizeFrame(this.world, this.world.step());
  }
  snapshot(): BodySnapshot[] {
    return this.world.bodies.map((b) => (b.isStatic ? null : [...b.x, ...b.q, ...b.v, ...b.w]));
  }
  dispose(): void {
    /* garbage collected */
  }
}

// ---- cannon-es

export function cannonSim(C: Cannon, desc: ScenarioDesc, iterations: number | undefined): Sim {
  const cfg = desc.config;
  const world = new C.World({ gravity: new C.Vec3(cfg.gravity[0], cfg.gravity[1], cfg.gravity[2]) });
  const sap = new C.SAPBroadphase(world);
  world.broadphase = sap;
  if (iterations !== undefined) (world.solver as CannonNs.GSSolver).iterations = iterations;

  const names = [...new Set(desc.bodies.map((b) => materialOf(desc, b.material).name))];
  const mats = new Map(names.map((n) => [n, new C.Material(n)] as const));
  for (let i = 0; i < names.length; i++) {
    for (let j = i; j < names.length; j++) {
      const a = materialOf(desc, names[i]),
        b = materialOf(desc, names[j]);
      world.addContactMaterial(
        new C.ContactMaterial(mats.get(names[i])!, mats.get(names[j])!, {
          friction: combine(cfg.frictionCombine, a.friction, b.friction),
          restitution: combine(cfg.restitutionCombine, a.restitution, b.restitution),
        }),
      );
    }
  }

  const bodies: (CannonNs.Body | null)[] = desc.bodies.map((d) => {
    const material = mats.get(materialOf(desc, d.material).name)!;
    const s = d.shape;
    if (s.kind === 'plane') {
      const n = s.normal;
      const body = new C.Body({ mass: 0, type: C.Body.STATIC, material, shape: new C.Plane() });
      body.quaternion.setFromVectors(new C.Vec3(0, 0, 1), new C.Vec3(n[0], n[1], n[2]));
      body.position.set(n[0] * s.offset, n[1] * s.offset, n[2] * s.offset);
      world.addBody(body);
      return null;
    }
    const shape = s.kind === 'box' ? new C.Box(new C.Vec3(s.halfExtents[0], s.halfExtents[1], s.halfExtents[2])) : new C.Sphere(s.radius);
    const isStatic = isStaticDesc(d);
    const [qw, qx, qy, qz] = d.orientation;
    const body = new C.Body({
      mass: isStatic ? 0 : (d.mass as number),
      type: isStatic ? C.Body.STATIC : C.Body.DYNAMIC,
      material,
      shape,
      position: new C.Vec3(d.position[0], d.position[1], d.position[2]),
      quaternion: new C.Quaternion(qx, qy, qz, qw),
      velocity: new C.Vec3(d.velocity[0], d.velocity[1], d.velocity[2]),
      angularVelocity: new C.Vec3(d.angularVelocity[0], d.angularVelocity[1], d.angularVelocity[2]),
    });
    world.addBody(body);
    return isStatic ? null : body;
  });
  sap.autoDetectAxis();
  const dt = cfg.dt;
  return {
    engine: 'cannon',
    step: () => {
      world.step(dt);
      return undefined;
    },
    snapshot: () =>
      bodies.map((b) =>
        b
          ? [
              b.position.x,
              b.position.y,
              b.position.z,
              b.quaternion.w,
              b.quaternion.x,
              b.quaternion.y,
              b.quaternion.z,
              b.velocity.x,
              b.velocity.y,
              b.velocity.z,
              b.angularVelocity.x,
              b.angularVelocity.y,
              b.angularVelocity.z,
            ]
          : null,
      ),
    dispose: () => {
      /* garbage collected */
    },
  };
}

// ---- Rapier

/** Per-collider coefficient and rule whose Rapier combination equals ours for every pair. */
function rapierCoefficient(R: Rapier, rule: CombineRule, value: number): { value: number; rule: RapierDefault.CoefficientCombineRule } {
  switch (rule) {
    case 'geometric-mean':
      return { value: Math.sqrt(value), rule: R.CoefficientCombineRule.Multiply };
    case 'min':
      return { value, rule: R.CoefficientCombineRule.Min };
    case 'max':
      return { value, rule: R.CoefficientCombineRule.Max };
    case 'average':
      return { value, rule: R.CoefficientCombineRule.Average };
  }
}

export function rapierSim(R: Rapier, desc: ScenarioDesc, iterations: number | undefined): Sim {
  const cfg = desc.config;
  const world = new R.World({ x: cfg.gravity[0], y: cfg.gravity[1], z: cfg.gravity[2] });
  world.timestep = cfg.dt;
  if (iterations !== undefined) {
    world.numSolverIterations = iterations;
    world.numInternalPgsIterations = 1;
  }
  const bodies: (RapierDefault.RigidBody | null)[] = desc.bodies.map((d) => {
    const m = materialOf(desc, d.material);
    const f = rapierCoefficient(R, cfg.frictionCombine, m.friction);
    const e = rapierCoefficient(R, cfg.restitutionCombine, m.restitution);
    const s = d.shape;
    const isStatic = isStaticDesc(d);
    let colliderDesc: RapierDefault.ColliderDesc;
    let rbDesc: RapierDefault.RigidBodyDesc;
    if (s.kind === 'plane') {
      const n = s.normal;
      rbDesc = R.RigidBodyDesc.fixed().setTranslation(n[0] * s.offset, n[1] * s.offset, n[2] * s.offset);
      colliderDesc = new R.ColliderDesc(new R.HalfSpace({ x: n[0], y: n[1], z: n[2] }));
    } else {
      colliderDesc = s.kind === 'box' ? R.ColliderDesc.cuboid(s.halfExtents[0], s.halfExtents[1], s.halfExtents[2]) : R.ColliderDesc.ball(s.radius);
      if (!isStatic) colliderDesc.setMass(d.mass as number);
      const [qw, qx, qy, qz] = d.orientation;
      rbDesc = (isStatic ? R.RigidBodyDesc.fixed() : R.RigidBodyDesc.dynamic().setCanSleep(false))
        .setTranslation(d.position[0], d.position[1], d.position[2])
        .setRotation({ w: qw, x: qx, y: qy, z: qz });
      if (!isStatic) {
        rbDesc.setLinvel(d.velocity[0], d.velocity[1], d.velocity[2]).setAngvel({ x: d.angularVelocity[0], y: d.angularVelocity[1], z: d.angularVelocity[2] });
      }
    }
    colliderDesc.setFriction(f.value).setFrictionCombineRule(f.rule).setRestitution(e.value).setRestitutionCombineRule(e.rule);
    const rb = world.createRigidBody(rbDesc);
    world.createCollider(colliderDesc, rb);
    return isStatic ? null : rb;
  });
  return {
    engine: 'rapier',
    step: () => {
      world.step();
      return undefined;
    },
    snapshot: () =>
      bodies.map((b) => {
        if (!b) return null;
        const x = b.translation(),
          q = b.rotation(),
          v = b.linvel(),
          w = b.angvel();
        return [x.x, x.y, x.z, q.w, q.x, q.y, q.z, v.x, v.y, v.z, w.x, w.y, w.z];
      }),
    dispose: () => world.free(),
  };
}

// ---------------------------------------------------------------------------------------------------
// Loading the libraries (dynamic, so a missing or broken one is reported, never fatal)

export async function loadCannon(): Promise<Cannon> {
  return await import('cannon-es');
}

/** Rapier's compat build: the WASM is embedded (base64) in the package, init() needs no network. */
export async function loadRapier(): Promise<Rapier> {
  const mod = (await import('@dimforge/rapier3d-compat')) as unknown as { default?: Rapier } & Rapier;
  const R = mod.default ?? mod;
  await R.init();
  return R;
}

/**
 * `scene` advanced by Rapier for its settle steps (at the scenario's PGS iterations) and applied to its description,
 * as bench:world starts every engine; with `snapFile`, the settled state is written once and read back after.
 */
export async function rapierSettled(scene: WorldBenchScene, snapFile?: string): Promise<ScenarioDesc> {
  const desc = loadScenario(scene.file);
  let snap: BodySnapshot[];
  if (snapFile && existsSync(snapFile)) snap = JSON.parse(readFileSync(snapFile, 'utf8')) as BodySnapshot[];
  else {
    const opts = desc.config.solver;
    const sim = rapierSim(await loadRapier(), desc, opts.solver === 'pgs' ? opts.maxIterations : undefined);
    for (let i = 0; i < scene.settleSteps; i++) sim.step();
    snap = sim.snapshot();
    sim.dispose();
    if (snapFile) writeFileSync(snapFile, JSON.stringify(snap));
  }
  return applySnapshot(desc, snap);
}
