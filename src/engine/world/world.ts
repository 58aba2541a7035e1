/**
 * The simulated world and its step pipeline (docs/ARCHITECTURE.md "The step of the world"):
 *   gravity → detect contacts → contact problems per island → solve (warm-started from the contact
 *   cache) → apply impulses → integrate positions → energy bookkeeping.
 *
 * Integration is semi-implicit (symplectic) Euler: v⁻ = v + Δt·g, v⁺ = v⁻ + M⁻¹Jᵀλ, x ← x + Δt·v⁺,
 * q ← normalise(q + ½Δt·(0, ω⁺)⊗q) (quaternion derivative q̇ = ½ω⊗q).
 * Gyroscopic terms are neglected: ω is constant between impulses (as in most game engines); for bodies
 * with unequal principal moments this changes ½ωᵀI_wω as the body turns, which the energy ledger reports
 * as integrator residual.
 */
import type { Quat } from '../math/quat.js';
import { normalizedQuat, normalizeQuat, quatToMat3 } from '../math/quat.js';
import { rotateDiagonal, ZERO3, type Mat3 } from '../math/mat3.js';
import { tangentBasis, type Vec3 } from '../math/vec3.js';
import type { BodyDesc, CombineRule, MaterialDesc, ScenarioDesc, StepConfig } from './types.js';
import type { BodyState, ContactPoint } from '../problem.js';
import { positionCorrection, solveIsland, stillStates, type IslandOutcome, type IslandSolve } from '../island/solveIsland.js';
import type { EnergyLedger } from './energy.js';
import { approachSpeed, detectContacts, type DetectedContact } from './detect.js';
import { buildIslands } from '../collision/islands.js';
import { ContactCache, type CacheKeyed } from './contactCache.js';
import { SweepAndPrune } from '../collision/broadphase.js';

export interface Body {
  readonly name: string;
  readonly desc: BodyDesc;
  readonly isStatic: boolean;
  readonly mass: number;
  readonly invMass: number;
  /** Principal moments (body frame) and their inverses. */
  readonly inertia: Vec3;
  readonly invInertia: Vec3;
  readonly material: MaterialDesc;
  x: Vec3;
  q: Quat;
  v: Vec3;
  w: Vec3;
}

/** Per-contact result of a frame: geometry, coefficients, λ and the pre/post gap rates. */
export interface FrameContact {
  readonly contact: ContactPoint;
  readonly island: number;
  readonly lambda: Vec3;
  readonly gapBefore: Vec3;
  readonly gapAfter: Vec3;
}

export interface FrameRecord {
  readonly frame: number;
  readonly time: number;
  /** Per contact: its point, island, λ and gap rates; built when first read (frameRecord below). */
  readonly contacts: readonly FrameContact[];
  /** The step's contact points, in the order of `contacts` (contacts[k].contact is points[k]). */
  readonly points: readonly ContactPoint[];
  /** How many of the contacts are speculative (gap > 0: still apart, docs/physics.md "Speculative contacts"). */
  readonly speculativeRows: number;
  readonly islands: readonly IslandSolve[];
  readonly energy: EnergyLedger;
  /** Per body: pose at the start of the step (used for the contact geometry) and velocities after gravity, before the contact solve. */
  readonly preState: readonly { x: Vec3; q: Quat; v: Vec3; w: Vec3 }[];
}

/** Principal moments of inertia of a solid shape (Ericson / standard tables). */
export function principalInertia(desc: BodyDesc, mass: number): Vec3 {
  const s = desc.shape;
  if (s.kind === 'sphere') {
    const i = 0.4 * mass * s.radius * s.radius;
    return [i, i, i];
  }
  if (s.kind === 'box') {
    const [a, b, c] = s.halfExtents; // I = m/3 (b² + c²) for half extents (= m/12 (B² + C²) full sizes)
    return [(mass / 3) * (b * b + c * c), (mass / 3) * (a * a + c * c), (mass / 3) * (a * a + b * b)];
  }
  return [0, 0, 0];
}

export function combine(rule: CombineRule, a: number, b: number): number {
  switch (rule) {
    case 'geometric-mean':
      return Math.sqrt(a * b);
    case 'min':
      return Math.min(a, b);
    case 'max':
      return Math.max(a, b);
    case 'average':
      return 0.5 * (a + b);
  }
}

/** Options of a World besides its scenario. */
export interface WorldOptions {
  /**
   * Shuffle each step's contacts (a seeded Fisher–Yates permutation per frame) before the islands are built: the
   * order another thread count or broad phase would give them. Order-dependent solvers (Gauss–Seidel sweeps) then
   * give other impulses; `check`'s "deterministic" expectation with mode "order" runs this (docs/scene-format.md).
   */
  readonly contactOrderSeed?: number;
}

/** xorshift32 (Marsaglia 2003): the contact-order permutation's generator, seeded per frame. */
function shuffleContacts<T>(items: T[], seed: number): void {
  let s = seed >>> 0 || 1;
  for (let i = items.length - 1; i > 0; i--) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    const j = s % (i + 1);
    const t = items[i];
    items[i] = items[j];
    items[j] = t;
  }
}
/** Kinetic (linear + rotational) plus potential energy (J), summed in this order wherever a total is formed. */
const energyTotal = (e: { readonly kineticLinear: number; readonly kineticRotational: number; readonly potential: number }): number =>
  e.kineticLinear + e.kineticRotational + e.potential;

export class World {
  readonly bodies: Body[];
  readonly config: StepConfig;
  time = 0;
  frame = 0;
  private readonly cache = new ContactCache();
  private readonly sap = new SweepAndPrune();
  /** The normal array whose tangent basis `basis` is (toContactPoint), reset every step. */
  private basisOf: Vec3 | null = null;
  private basis: [Vec3, Vec3] = [ZERO_VEC, ZERO_VEC];

  constructor(
    readonly scenario: ScenarioDesc,
    readonly options: WorldOptions = {},
  ) {
    this.config = scenario.config;
    const materials = new Map(scenario.materials.map((m) => [m.name, m] as const));
    const fallback: MaterialDesc = materials.get('default') ?? { name: 'default', friction: 0.5, restitution: 0 };
    this.bodies = scenario.bodies.map((d) => {
      const isStatic = d.mass === null || d.shape.kind === 'plane';
      const mass = isStatic ? 0 : (d.mass as number);
      const inertia = isStatic ? ([0, 0, 0] as Vec3) : principalInertia(d, mass);
      return {
        name: d.name,
        desc: d,
        isStatic,
        mass,
        invMass: isStatic ? 0 : 1 / mass,
        inertia,
        invInertia: isStatic ? [0, 0, 0] : [1 / inertia[0], 1 / inertia[1], 1 / inertia[2]],
        material: materials.get(d.material) ?? fallback,
        x: d.position,
        q: normalizeQuat(d.orientation),
        v: isStatic ? [0, 0, 0] : d.velocity,
        w: isStatic ? [0, 0, 0] : d.angularVelocity,
      };
    });
  }

  /**
   * Refills the warm-start cache as if the previous frame had solved these contacts with these λ (3C
   * layout): lets a session restore a checkpoint and re-simulate bit-identically.
   */
  restoreWarmStart(contacts: readonly CacheKeyed[], lambda: ArrayLike<number>): void {
    this.cache.store(contacts, lambda);
    this.cache.expire();
  }

  /** World inverse inertia R I⁻¹_b Rᵀ (docs/physics.md "Conventions"). */
  invInertiaWorld(b: Body): Mat3 {
    return b.isStatic ? ZERO3 : rotateDiagonal(quatToMat3(b.q), b.invInertia);
  }

  /** Kinetic (linear and rotational) and potential energy of the dynamic bodies (J). */
  energy(): { kineticLinear: number; kineticRotational: number; potential: number } {
    const g = this.config.gravity;
    let kl = 0,
      kr = 0,
      pe = 0;
    for (const b of this.bodies) {
      if (b.isStatic) continue;
      kl += 0.5 * b.mass * (b.v[0] ** 2 + b.v[1] ** 2 + b.v[2] ** 2);
      kr += rotationalEnergy(b);
      pe -= b.mass * (g[0] * b.x[0] + g[1] * b.x[1] + g[2] * b.x[2]);
    }
    return { kineticLinear: kl, kineticRotational: kr, potential: pe };
  }

  /** The total energy: kinetic + potential of the dynamic bodies (J); the one sum every caller uses. */
  totalEnergy(): number {
    return energyTotal(this.energy());
  }

  /**
   * Advances one frame and returns what happened in it. The stages follow Box2D v3's solver stages
   * (integrate velocities, prepare contacts, solve, store impulses, integrate positions), with the
   * energy ledger as the last stage.
   */
  step(): FrameRecord {
    const before = this.energy();
    this.integrateVelocities();
    const preState = packedMap(this.bodies, (b) => ({ x: b.x, q: b.q, v: b.v, w: b.w }));
    const detected = detectContacts(this.bodies, this.sap, this.config.dt);
    const contacts: ContactPoint[] = [];
    let speculativeRows = 0;
    this.basisOf = null;
    for (let k = 0; k < detected.length; k++) {
      const c = this.toContactPoint(detected[k]);
      if (this.bouncesBeforeTouching(c)) continue;
      contacts.push(c);
      if (!isTouching(c)) speculativeRows++;
    }
    if (this.options.contactOrderSeed !== undefined) shuffleContacts(contacts, this.options.contactOrderSeed ^ Math.imul(this.frame + 1, 0x9e3779b9));
    const solved = this.solveIslands(contacts);
    this.integratePositions(solved.dvTotal, solved.dvPseudo);
    const energy = this.ledger(before, solved.work, solved.dvPseudo);
    this.time += this.config.dt;
    // frames are numbered from 0 (docs/recording-format.md "Frame numbers"): frame k is step k + 1, ending at
    // t = (k + 1)·dt; `this.frame` counts the steps done
    const frame = this.frame;
    this.frame += 1;
    return frameRecord(frame, this.time, contacts, solved.outcomes, speculativeRows, solved.islands, energy, preState);
  }

  /** v⁻ = v + Δt·g for every dynamic body. */
  private integrateVelocities(): void {
    const dt = this.config.dt,
      g = this.config.gravity;
    for (const b of this.bodies) if (!b.isStatic) b.v = [b.v[0] + dt * g[0], b.v[1] + dt * g[1], b.v[2] + dt * g[2]];
  }

  /** Splits the contacts into islands, solves each (warm-started from the cache) and stores its impulses. */
  private solveIslands(contacts: readonly ContactPoint[]): {
    outcomes: IslandOutcome[];
    islands: IslandSolve[];
    work: { normal: number; friction: number; bias: number };
    dvTotal: Float64Array;
    dvPseudo: Float64Array;
  } {
    const cfg = this.config;
    const islands = buildIslands(
      this.bodies.length,
      packedMap(contacts, (c) => [c.bodyA, c.bodyB] as const),
      packedMap(this.bodies, (b) => b.isStatic),
    );
    const states: BodyState[] = packedMap(this.bodies, (b) => ({ invMass: b.invMass, invInertiaWorld: this.invInertiaWorld(b), x: b.x, v: b.v, omega: b.w }));
    const outcomes: IslandOutcome[] = [];
    const solves: IslandSolve[] = [];
    const work = { normal: 0, friction: 0, bias: 0 };
    const dvTotal = new Float64Array(6 * this.bodies.length);
    const dvPseudo = new Float64Array(6 * this.bodies.length);
    let still: BodyState[] | undefined; // the states at rest of the split-impulse solves, built once per step
    for (let k = 0; k < islands.length; k++) {
      const island = islands[k];
      const cs = packedMap(island.contacts, (i) => contacts[i]);
      const warm = cfg.warmStart ? this.cache.warmStart(cs) : undefined;
      const out = solveIsland(states, cs, island.contacts, cfg, warm, dvTotal);
      // Speculative rows (gap > 0) carry no bias (assembly.ts: −gap/Δt, no ERP term): they stay out of the
      // position correction, whose solve is then skipped outright on islands with nothing to push out.
      const touching = cfg.splitImpulse ? cs.filter(isTouching) : [];
      if (touching.length > 0) positionCorrection((still ??= stillStates(states)), touching, cfg, dvPseudo);
      solves.push(out.solve);
      outcomes.push(out);
      work.normal += out.work.normal;
      work.friction += out.work.friction;
      work.bias += out.work.bias;
      this.cache.store(cs, out.lambda);
    }
    this.cache.expire();
    return { outcomes, islands: solves, work, dvTotal, dvPseudo };
  }

  /** v⁺ = v⁻ + M⁻¹Jᵀλ, then x and q advance with v⁺ (plus the split-impulse pseudo velocities). */
  private integratePositions(dvTotal: Float64Array, dvPseudo: Float64Array): void {
    const dt = this.config.dt;
    this.bodies.forEach((b, i) => {
      if (b.isStatic) return;
      const o = 6 * i;
      b.v = [b.v[0] + dvTotal[o], b.v[1] + dvTotal[o + 1], b.v[2] + dvTotal[o + 2]];
      b.w = [b.w[0] + dvTotal[o + 3], b.w[1] + dvTotal[o + 4], b.w[2] + dvTotal[o + 5]];
      // Split impulse: the position correction moves the body by Δt·(pseudo velocity) only.
      const px = dvPseudo[o],
        py = dvPseudo[o + 1],
        pz = dvPseudo[o + 2];
      b.x = [b.x[0] + dt * (b.v[0] + px), b.x[1] + dt * (b.v[1] + py), b.x[2] + dt * (b.v[2] + pz)];
      b.q = advanceOrientation(b.q, b.w[0] + dvPseudo[o + 3], b.w[1] + dvPseudo[o + 4], b.w[2] + dvPseudo[o + 5], dt);
    });
  }

  /** The frame's energy ledger (docs/physics.md "Energy ledger") from the energies before the step. */
  private ledger(before: ReturnType<World['energy']>, work: { normal: number; friction: number; bias: number }, dvPseudo: Float64Array): EnergyLedger {
    const dt = this.config.dt,
      g = this.config.gravity;
    let biasWork = work.bias;
    // With split impulse the bias does no kinetic work; its energy is the potential change of the push-out.
    if (this.config.splitImpulse) {
      this.bodies.forEach((b, i) => {
        if (!b.isStatic) biasWork -= b.mass * dt * (g[0] * dvPseudo[6 * i] + g[1] * dvPseudo[6 * i + 1] + g[2] * dvPseudo[6 * i + 2]);
      });
    }
    const e0 = energyTotal(before);
    const after = this.energy();
    const total = energyTotal(after);
    const delta = total - e0;
    return {
      ...after,
      total,
      delta,
      gravityWork: -(after.potential - before.potential),
      normalWork: work.normal,
      frictionWork: work.friction,
      biasWork,
      integratorResidual: delta - (work.normal + work.friction + biasWork),
    };
  }

  /**
   * A speculative contact whose impact would bounce (e > 0 above the rest-velocity threshold) is left to
   * the step where it touches: a bounce at a distance would take the normal of the pre-impact pose (off
   * for glancing impacts) and separate a contact that never touched (docs/physics.md "Speculative contacts").
   */
  private bouncesBeforeTouching(c: ContactPoint): boolean {
    if (!((c.gap ?? 0) > 0) || !(c.restitution > 0)) return false;
    return approachSpeed(this.bodies[c.bodyA], this.bodies[c.bodyB], c.point, c.normal) > this.config.restVelocityThreshold;
  }

  private toContactPoint(d: DetectedContact): ContactPoint {
    const a = this.bodies[d.bodyA],
      b = this.bodies[d.bodyB];
    const cfg = this.config;
    // The contacts of one manifold share their normal array (narrowphase.ts): one tangent basis for them all,
    // the same numbers tangentBasis gives each (two arrays less per contact, which live through the step).
    if (this.basisOf !== d.normal) {
      this.basisOf = d.normal;
      this.basis = tangentBasis(d.normal);
    }
    const t1 = this.basis[0],
      t2 = this.basis[1];
    const mu = combine(cfg.frictionCombine, a.material.friction, b.material.friction),
      restitution = combine(cfg.restitutionCombine, a.material.restitution, b.material.restitution);
    // Two literals, not a spread of an optional `gap`: the spread allocated a second object per contact.
    return d.gap > 0
      ? {
          bodyA: d.bodyA,
          bodyB: d.bodyB,
          point: d.point,
          normal: d.normal,
          t1,
          t2,
          mu,
          restitution,
          penetration: d.penetration,
          gap: d.gap,
          featureId: d.featureId,
        }
      : { bodyA: d.bodyA, bodyB: d.bodyB, point: d.point, normal: d.normal, t1, t2, mu, restitution, penetration: d.penetration, featureId: d.featureId };
  }
}

/** Touching or overlapping (not a speculative contact, which is still apart by its gap). */
function isTouching(c: ContactPoint): boolean {
  return !((c.gap ?? 0) > 0);
}

/**
 * normalise(q + ½Δt·(0, ω)⊗q) (the quaternion derivative q̇ = ½ω⊗q): mulQuat written out on numbers,
 * the same operations in the same order (the 0·q terms included: they keep the signs of zeros), then
 * normalizedQuat: one array per body and step instead of five.
 */
function advanceOrientation(q: Quat, wx: number, wy: number, wz: number, dt: number): Quat {
  const q0 = q[0],
    q1 = q[1],
    q2 = q[2],
    q3 = q[3];
  const d0 = 0 * q0 - wx * q1 - wy * q2 - wz * q3,
    d1 = 0 * q1 + wx * q0 + wy * q3 - wz * q2,
    d2 = 0 * q2 - wx * q3 + wy * q0 + wz * q1,
    d3 = 0 * q3 + wx * q2 - wy * q1 + wz * q0;
  const n0 = q0 + 0.5 * dt * d0,
    n1 = q1 + 0.5 * dt * d1,
    n2 = q2 + 0.5 * dt * d2,
    n3 = q3 + 0.5 * dt * d3;
  return normalizedQuat(n0, n1, n2, n3);
}

function rotationalEnergy(b: Body): number {
  // ½ ωᵀ I_w ω = ½ Σ I_k (ω·e_k)², e_k the body axes in world.
  const R = quatToMat3(b.q);
  let e = 0;
  for (let k = 0; k < 3; k++) {
    const wk = b.w[0] * R[k] + b.w[1] * R[3 + k] + b.w[2] * R[6 + k]; // (Rᵀω)_k
    e += 0.5 * b.inertia[k] * wk * wk;
  }
  return e;
}

const ZERO_VEC: Vec3 = [0, 0, 0];

/**
 * The frame record of a step. Its per-contact list (λ, ġ before and after per contact: four objects each) is
 * built from the islands' arrays when it is first read, not in the step: a caller that only counts contacts or
 * reads the islands (a benchmark, a checkpoint) does not pay for objects that would outlive the step's young
 * garbage collections; the same list, with the same numbers, as before.
 */
function frameRecord(
  frame: number,
  time: number,
  contacts: readonly ContactPoint[],
  outcomes: readonly IslandOutcome[],
  speculativeRows: number,
  islands: readonly IslandSolve[],
  energy: EnergyLedger,
  preState: FrameRecord['preState'],
): FrameRecord {
  let list: FrameContact[] | undefined;
  // the islands' λ and gap-rate arrays are kept until the list is built, then let go
  let from: readonly IslandOutcome[] | null = outcomes;
  return {
    frame,
    time,
    get contacts(): readonly FrameContact[] {
      if (!list) {
        list = frameContacts(contacts, from ?? []);
        from = null;
      }
      return list;
    },
    points: contacts,
    speculativeRows,
    islands,
    energy,
    preState,
  };
}

/** Per contact of the frame: its island and its λ, ġ⁻, ġ⁺ (3 numbers each from the island's 3C arrays). */
function frameContacts(contacts: readonly ContactPoint[], outcomes: readonly IslandOutcome[]): FrameContact[] {
  const out: FrameContact[] = new Array(contacts.length);
  for (let k = 0; k < outcomes.length; k++) {
    const { solve, lambda, gapBefore, gapAfter } = outcomes[k];
    const ids = solve.contacts;
    for (let j = 0; j < ids.length; j++) {
      const ci = ids[j],
        o = 3 * j;
      out[ci] = {
        contact: contacts[ci],
        island: k,
        lambda: [lambda[o], lambda[o + 1], lambda[o + 2]],
        gapBefore: [gapBefore[o], gapBefore[o + 1], gapBefore[o + 2]],
        gapAfter: [gapAfter[o], gapAfter[o + 1], gapAfter[o + 2]],
      };
    }
  }
  return out;
}

/**
 * arr.map(f) as a packed array whatever V8 does with the call. The step's arrays are made anew each step and read
 * by optimised code that expects one elements kind; on the 1000-box pile, Array.prototype.map in this step gave
 * packed arrays for 30 steps and then a holey one (`--trace-deopt`: "wrong map"), which deoptimised every function
 * it reached (buildIslands, the assembly, the island solves, the contact cache): two steps of 109–189 ms, then code
 * re-optimised for both kinds (docs/benchmarks.md "Packed arrays in the world step").
 */
function packedMap<T, U>(arr: readonly T[], f: (x: T) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < arr.length; i++) out.push(f(arr[i]));
  return out;
}
