/**
 * The simulated world and its step pipeline (seed 001 Task 7):
 *   gravity → detect contacts → contact problems per island → solve (warm-started from the contact
 *   cache) → apply impulses → integrate positions → energy bookkeeping.
 *
 * Integration is semi-implicit (symplectic) Euler: v⁻ = v + Δt·g, v⁺ = v⁻ + M⁻¹Jᵀλ, x ← x + Δt·v⁺,
 * q ← normalise(q + ½Δt·(0, ω⁺)⊗q) (quaternion derivative q̇ = ½ω⊗q, seed 000 Appendix A).
 * Gyroscopic terms are neglected: ω is constant between impulses (as in most game engines); for bodies
 * with unequal principal moments this changes ½ωᵀI_wω as the body turns, which the energy ledger reports
 * as integrator residual.
 */
import type { Quat } from '../math/quat.js';
import { mulQuat, normalizeQuat, quatToMat3 } from '../math/quat.js';
import { rotateDiagonal, ZERO3, type Mat3 } from '../math/mat3.js';
import { tangentBasis, type Vec3 } from '../math/vec3.js';
import type { BodyDesc, CombineRule, MaterialDesc, ScenarioDesc, StepConfig } from './types.js';
import type { BodyState, ContactPoint, ContactProblem } from '../problem.js';
import { assembleBlocks, assembleProblem, bodyVelocityChanges, type ContactBlocks } from '../assembly.js';
import { solvePgsBlocks } from '../solvers/pgsBlocks.js';
import { solve } from '../solvers/solve.js';
import type { SolveResult } from '../solvers/types.js';
import { contactWork, contactWorkDiagonal, type EnergyLedger } from './energy.js';
import { detectContacts, type DetectedContact } from './detect.js';
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

/** One island's solve: dense (problem with A) or matrix-free (blocks only, large islands). */
export type IslandSolve =
  | { readonly contacts: readonly number[]; readonly problem: ContactProblem; readonly blocks: null; readonly result: SolveResult; readonly matrixFree: false }
  | { readonly contacts: readonly number[]; readonly blocks: ContactBlocks; readonly result: SolveResult; readonly matrixFree: true };

/** Islands with more contacts than this are solved matrix-free (dense A would cost O(C²) memory, O(C³) time). */
export const DENSE_ISLAND_LIMIT = 200;
/** PGS islands with more contacts than this use the matrix-free PGS (same iterates, O(C) per sweep). */
export const PGS_MATRIX_FREE_FROM = 32;
/** What a Newton/IPM scenario uses on an island beyond the dense limit. */
export const MATRIX_FREE_FALLBACK = { solver: 'pgs', maxIterations: 100, tolerance: 1e-6 } as const;

function useMatrixFree(cfg: StepConfig, contacts: number): boolean {
  return contacts > DENSE_ISLAND_LIMIT || (cfg.solver.solver === 'pgs' && contacts > PGS_MATRIX_FREE_FROM);
}


export interface FrameRecord {
  readonly frame: number;
  readonly time: number;
  readonly contacts: readonly FrameContact[];
  readonly islands: readonly IslandSolve[];
  readonly energy: EnergyLedger;
  /** Per body: pose at the start of the step (used for the contact geometry) and velocities after gravity, before the contact solve. */
  readonly preState: readonly { x: Vec3; q: Quat; v: Vec3; w: Vec3 }[];
}

/** Principal moments of inertia of a solid shape (Ericson / standard tables). */
export function principalInertia(desc: BodyDesc, mass: number): Vec3 {
  const s = desc.shape;
  if (s.kind === 'sphere') { const i = 0.4 * mass * s.radius * s.radius; return [i, i, i]; }
  if (s.kind === 'box') {
    const [a, b, c] = s.halfExtents; // I = m/3 (b² + c²) for half extents (= m/12 (B² + C²) full sizes)
    return [(mass / 3) * (b * b + c * c), (mass / 3) * (a * a + c * c), (mass / 3) * (a * a + b * b)];
  }
  return [0, 0, 0];
}

export function combine(rule: CombineRule, a: number, b: number): number {
  switch (rule) {
    case 'geometric-mean': return Math.sqrt(a * b);
    case 'min': return Math.min(a, b);
    case 'max': return Math.max(a, b);
    case 'average': return 0.5 * (a + b);
  }
}

export class World {
  readonly bodies: Body[];
  readonly config: StepConfig;
  time = 0;
  frame = 0;
  private readonly cache = new ContactCache();
  private readonly sap = new SweepAndPrune();

  constructor(readonly scenario: ScenarioDesc) {
    this.config = scenario.config;
    const materials = new Map(scenario.materials.map((m) => [m.name, m] as const));
    const fallback: MaterialDesc = materials.get('default') ?? { name: 'default', friction: 0.5, restitution: 0 };
    this.bodies = scenario.bodies.map((d) => {
      const isStatic = d.mass === null || d.shape.kind === 'plane';
      const mass = isStatic ? 0 : (d.mass as number);
      const inertia = isStatic ? [0, 0, 0] as Vec3 : principalInertia(d, mass);
      return {
        name: d.name, desc: d, isStatic, mass, invMass: isStatic ? 0 : 1 / mass, inertia,
        invInertia: isStatic ? [0, 0, 0] : [1 / inertia[0], 1 / inertia[1], 1 / inertia[2]],
        material: materials.get(d.material) ?? fallback,
        x: d.position, q: normalizeQuat(d.orientation), v: isStatic ? [0, 0, 0] : d.velocity, w: isStatic ? [0, 0, 0] : d.angularVelocity,
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

  /** World inverse inertia R I⁻¹_b Rᵀ (DESIGN.md). */
  invInertiaWorld(b: Body): Mat3 {
    return b.isStatic ? ZERO3 : rotateDiagonal(quatToMat3(b.q), b.invInertia);
  }

  energy(): { kineticLinear: number; kineticRotational: number; potential: number } {
    const g = this.config.gravity;
    let kl = 0, kr = 0, pe = 0;
    for (const b of this.bodies) {
      if (b.isStatic) continue;
      kl += 0.5 * b.mass * (b.v[0] ** 2 + b.v[1] ** 2 + b.v[2] ** 2);
      kr += rotationalEnergy(b);
      pe -= b.mass * (g[0] * b.x[0] + g[1] * b.x[1] + g[2] * b.x[2]);
    }
    return { kineticLinear: kl, kineticRotational: kr, potential: pe };
  }

  /** Advances one frame and returns what happened in it. */
  step(): FrameRecord {
    const cfg = this.config, dt = cfg.dt, g = cfg.gravity;
    const before = this.energy();
    const e0 = before.kineticLinear + before.kineticRotational + before.potential;
    for (const b of this.bodies) if (!b.isStatic) b.v = [b.v[0] + dt * g[0], b.v[1] + dt * g[1], b.v[2] + dt * g[2]];
    const preState = this.bodies.map((b) => ({ x: b.x, q: b.q, v: b.v, w: b.w }));

    const detected = detectContacts(this.bodies, this.sap);
    const contacts = detected.map((d) => this.toContactPoint(d));
    const islands = buildIslands(this.bodies.length, contacts.map((c) => [c.bodyA, c.bodyB] as const), this.bodies.map((b) => b.isStatic));
    const states: BodyState[] = this.bodies.map((b) => ({ invMass: b.invMass, invInertiaWorld: this.invInertiaWorld(b), x: b.x, v: b.v, omega: b.w }));

    const frameContacts: FrameContact[] = new Array(contacts.length);
    const islandSolves: IslandSolve[] = [];
    let normalWork = 0, frictionWork = 0, biasWork = 0;
    const dvTotal = new Float64Array(6 * this.bodies.length);
    const dvPseudo = new Float64Array(6 * this.bodies.length);
    islands.forEach((island, k) => {
      const cs = island.contacts.map((i) => contacts[i]);
      const assembly = {
        dt, erp: cfg.erp, slop: cfg.slop, baumgarte: !cfg.splitImpulse, restVelocityThreshold: cfg.restVelocityThreshold, regularization: 1e-10,
      };
      const warm = cfg.warmStart ? this.cache.warmStart(cs) : undefined;
      let gapBefore: Float64Array, gapAfter: Float64Array, lambda: Float64Array, size: number;
      if (useMatrixFree(cfg, cs.length)) {
        // Large island (or PGS beyond a few contacts): matrix-free sequential impulses, O(C) per sweep.
        const blocks = assembleBlocks(states, cs, assembly);
        if (cfg.faults.restitutionAsTarget) applyRestitutionTargetFault(blocks);
        const pgs = cfg.solver.solver === 'pgs' ? cfg.solver : { ...MATRIX_FREE_FALLBACK };
        const out = solvePgsBlocks(blocks, pgs, warm, cfg.softening);
        const note = cfg.solver.solver === 'pgs' ? '' : ` (island of ${cs.length} contacts exceeds the dense limit of ${DENSE_ISLAND_LIMIT}: solved by matrix-free PGS instead of ${cfg.solver.solver})`;
        const status = out.status.kind === 'converged' || !note ? out.status : { ...out.status, reason: out.status.reason + note };
        const result: SolveResult = {
          solver: 'pgs', lambda: out.lambda, w: out.w, status, iterations: out.iterations, history: out.history, regularization: out.regularization,
          timeMs: out.timeMs, objective: out.history.objective[out.history.objective.length - 1] ?? 0, kkt: out.kkt, contactClass: out.contactClass,
        };
        islandSolves.push({ contacts: island.contacts, blocks, result, matrixFree: true });
        for (let i = 0; i < out.dv.length; i++) dvTotal[i] += out.dv[i];
        size = blocks.size; lambda = out.lambda;
        gapBefore = blocks.rhs.velocity.map((x) => -x);
        gapAfter = new Float64Array(size);
        // ġ⁺ = ġ⁻ + Aλ = (w + b) − velocity part of b, without the softening term γλn (not physics).
        for (let i = 0; i < size; i++) gapAfter[i] = out.w[i] + blocks.b[i] - blocks.rhs.velocity[i] - (i % 3 === 0 ? cfg.softening * out.lambda[i] : 0);
        const wk = contactWorkDiagonal(blocks, lambda, gapBefore, gapAfter);
        normalWork += wk.normal; frictionWork += wk.friction; biasWork += wk.bias;
        if (cfg.splitImpulse) this.positionCorrection(states, cs, dvPseudo);
      } else {
        const problem = assembleProblem(states, cs, assembly);
        if (cfg.faults.restitutionAsTarget) applyRestitutionTargetFault(problem);
        soften(problem, cfg.softening);
        const result = solve(problem, cfg.solver, warm);
        islandSolves.push({ contacts: island.contacts, problem, blocks: null, result, matrixFree: false });
        const dv = bodyVelocityChanges(problem, result.lambda);
        for (let i = 0; i < dv.length; i++) dvTotal[i] += dv[i];
        if (cfg.splitImpulse) this.positionCorrection(states, cs, dvPseudo);
        size = problem.size; lambda = result.lambda;
        // ġ⁺ = ġ⁻ + J M⁻¹ Jᵀ λ: A without its regularisation ε and without the softening γ (they are not physics).
        gapAfter = new Float64Array(size);
        for (let i = 0; i < size; i++) {
          let s2 = 0;
          for (let j = 0; j < size; j++) s2 += problem.A[i * size + j] * result.lambda[j];
          s2 -= (problem.regularization + (i % 3 === 0 ? cfg.softening : 0)) * result.lambda[i];
          gapAfter[i] = -problem.rhs!.velocity[i] + s2;
        }
        gapBefore = problem.rhs!.velocity.map((x) => -x);
        const wk = contactWork(problem, result.lambda, gapBefore, gapAfter);
        normalWork += wk.normal; frictionWork += wk.friction; biasWork += wk.bias;
      }
      this.cache.store(cs, lambda);
      island.contacts.forEach((ci, j) => {
        frameContacts[ci] = {
          contact: contacts[ci], island: k,
          lambda: [lambda[3 * j], lambda[3 * j + 1], lambda[3 * j + 2]],
          gapBefore: [gapBefore[3 * j], gapBefore[3 * j + 1], gapBefore[3 * j + 2]],
          gapAfter: [gapAfter[3 * j], gapAfter[3 * j + 1], gapAfter[3 * j + 2]],
        };
      });
    });

    this.cache.expire();
    this.bodies.forEach((b, i) => {
      if (b.isStatic) return;
      const o = 6 * i;
      b.v = [b.v[0] + dvTotal[o], b.v[1] + dvTotal[o + 1], b.v[2] + dvTotal[o + 2]];
      b.w = [b.w[0] + dvTotal[o + 3], b.w[1] + dvTotal[o + 4], b.w[2] + dvTotal[o + 5]];
      // Split impulse (seed 000 §8.6): the position correction moves the body by Δt·(pseudo velocity) only.
      const px = dvPseudo[o], py = dvPseudo[o + 1], pz = dvPseudo[o + 2];
      b.x = [b.x[0] + dt * (b.v[0] + px), b.x[1] + dt * (b.v[1] + py), b.x[2] + dt * (b.v[2] + pz)];
      const wq = [b.w[0] + dvPseudo[o + 3], b.w[1] + dvPseudo[o + 4], b.w[2] + dvPseudo[o + 5]];
      const dq = mulQuat([0, wq[0], wq[1], wq[2]], b.q);
      b.q = normalizeQuat([b.q[0] + 0.5 * dt * dq[0], b.q[1] + 0.5 * dt * dq[1], b.q[2] + 0.5 * dt * dq[2], b.q[3] + 0.5 * dt * dq[3]]);
    });

    // With split impulse the bias does no kinetic work; its energy is the potential change of the push-out.
    if (cfg.splitImpulse) {
      this.bodies.forEach((b, i) => {
        if (!b.isStatic) biasWork -= b.mass * dt * (g[0] * dvPseudo[6 * i] + g[1] * dvPseudo[6 * i + 1] + g[2] * dvPseudo[6 * i + 2]);
      });
    }
    const after = this.energy();
    const total = after.kineticLinear + after.kineticRotational + after.potential;
    const delta = total - e0;
    const energy: EnergyLedger = {
      ...after, total, delta, gravityWork: -(after.potential - before.potential), normalWork, frictionWork, biasWork,
      integratorResidual: delta - (normalWork + frictionWork + biasWork),
    };
    this.time += dt;
    this.frame += 1;
    return { frame: this.frame, time: this.time, contacts: frameContacts, islands: islandSolves, energy, preState };
  }

  /**
   * Split impulse (seed 000 §8.6): a second, frictionless problem on the same contacts with only the bias
   * as right-hand side and zero velocities; its impulses become pseudo velocities that correct positions
   * without adding kinetic energy. Accumulated into dvPseudo.
   */
  private positionCorrection(states: readonly BodyState[], cs: readonly ContactPoint[], dvPseudo: Float64Array): void {
    const cfg = this.config;
    const still = states.map((s) => ({ ...s, v: [0, 0, 0] as Vec3, omega: [0, 0, 0] as Vec3 }));
    const p = assembleProblem(still, cs.map((c) => ({ ...c, mu: 0, restitution: 0 })), {
      dt: cfg.dt, erp: cfg.erp, slop: cfg.slop, baumgarte: true, restVelocityThreshold: Infinity, regularization: 1e-10,
    });
    if (p.b.every((x) => x === 0)) return;
    const r = solve(p, cfg.solver);
    const dv = bodyVelocityChanges(p, r.lambda);
    for (let i = 0; i < dv.length; i++) dvPseudo[i] += dv[i];
  }

  private toContactPoint(d: DetectedContact): ContactPoint {
    const a = this.bodies[d.bodyA], b = this.bodies[d.bodyB];
    const cfg = this.config;
    const [t1, t2] = tangentBasis(d.normal);
    return {
      bodyA: d.bodyA, bodyB: d.bodyB,
      point: d.point, normal: d.normal, t1, t2,
      mu: combine(cfg.frictionCombine, a.material.friction, b.material.friction),
      restitution: combine(cfg.restitutionCombine, a.material.restitution, b.material.restitution),
      penetration: d.penetration, featureId: d.featureId,
    };
  }
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

/** Constraint softening (seed 004): 0 ≤ ġ + γλ ⊥ λ ≥ 0, i.e. γ added to A's normal-row diagonal; b unchanged. */
function soften(p: ContactProblem, gamma: number): void {
  if (!(gamma > 0)) return;
  const A = p.A as Float64Array;
  for (let c = 0; c < p.contactCount; c++) A[3 * c * p.size + 3 * c] += gamma;
}

/**
 * FAULT INJECTION (scenario `faultInjection.restitutionAsTarget`, seed 001 P2): uses −(1+e)·ġ⁻ as the
 * target velocity, i.e. b_n = −(1+e)·ġ⁻ − ġ⁻ = −(2+e)·ġ⁻ instead of −(1+e)·ġ⁻, so ġ⁺ = −(1+e)·ġ⁻ and the
 * kinetic energy of a bounce is multiplied by (1+e)² instead of e². Never an ordinary option.
 */
function applyRestitutionTargetFault(p: { readonly contactCount: number; readonly b: Float64Array; readonly rhs?: ContactProblem['rhs'] }): void {
  const rhs = p.rhs!;
  const b = p.b as Float64Array, rest = rhs.restitution as Float64Array;
  for (let c = 0; c < p.contactCount; c++) {
    const o = 3 * c;
    const extra = rhs.velocity[o]; // −ġ⁻ once more: b_n = −(2+e)ġ⁻ ⇒ ġ⁺ = −(1+e)ġ⁻
    rest[o] += extra;
    b[o] += extra;
  }
}
