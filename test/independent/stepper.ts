// One step of the independent rigid-body stepper (semi-implicit Euler with a velocity-level contact solve):
//   v⁻ = v + h·g (+ external impulses)            → recorded as `pre`
//   contacts from the current pose, rows J, targets τ (restitution, bias, speculative gap, soft spring)
//   solve for λ (PGS–Coulomb or the convex QP-SOCP), v⁺ = v⁻ + M⁻¹Jᵀλ
//   x ← x + h·v⁺, q ← q + ½h·ω⁺⊗q, then an optional split-impulse position pass (Catto, GDC 2006/2010).
// Targets per contact (docs/recording-format.md's b = τ − ġ⁻):
//   speculative (gap > 0): ġn⁺ ≥ −gap/h (Catto, GDC 2013);
//   otherwise ġn⁺ ≥ e·a + (ERP/h)·max(0, depth − slop), a = −ġn⁻ the approach speed, e = 0 below the
//   rest threshold (Newton's restitution law; Baumgarte bias as in Catto GDC 2005);
//   soft: ġn⁺ + ε·λn = k·d/(c + h·k), ε = A_nn/(h·(c + h·k)), the implicit step of ẍ = k·d − c·ġn per
//   unit effective mass (Catto, "Solver2D", 2024; MuJoCo's reference acceleration −b·v − k·r, Todorov 2014).
// The `fault` fields of StepConfig reproduce known engine bugs at a chosen frame (see faults in README.md).

import { type Body, cloneBody, invMass, totalEnergy } from './bodies.js';
import { type Contact, detectContacts } from './contacts.js';
import { applyImpulse, buildRows, denseA, type Row, rowVelocity, type Velocities, velocitiesOf } from './rows.js';
import { blockConeProjection, pgsCoulomb, type Problem, type SolveResult } from './solvers.js';
import { add, copy3, copy4, integrateQuat, scale, type Quat, type Vec3 } from './vec.js';

export interface Soft {
  /** stiffness per unit effective mass, 1/s² */
  k: number;
  /** damping per unit effective mass, 1/s */
  c: number;
}

export interface PositionPass {
  /** fraction of the penetration beyond slop removed per step (Box2D's baumgarte/linearSlop) */
  beta: number;
  slop: number;
  /** fault: target overshoot·depth (slop ignored) on these contacts only (all when absent) */
  overshoot?: number;
  contacts?: number[];
}

export type Restitution = 'law' | 'overshoot' | 'overshoot-pre-gravity';
export type Integrator = 'semi-implicit' | 'double-h' | 'gravity-sign' | 'no-gravity';

export interface External {
  body: number;
  impulse: Vec3;
}

export interface StepConfig {
  h: number;
  gravity: Vec3;
  solver: 'pgs' | 'socp';
  maxIterations: number;
  /** 0: a fixed number of sweeps */
  tolerance: number;
  warmStart: boolean;
  /** speculative margin, m (0: touching/overlapping contacts only) */
  margin: number;
  restThreshold: number;
  erp: number;
  slop: number;
  soft?: Soft;
  positionPass?: PositionPass;
  /** before-solve impulses (recorded in the frame's `external`) */
  external?: External[];
  // ---- faults ----
  restitution: Restitution;
  /** Baumgarte bias (ERP/h)·depth, ignoring the slop */
  biasIgnoresSlop?: boolean;
  /** λt ↦ −λt on these contacts (indices into this step's contacts) after the solve */
  flipFriction?: number[] | 'all';
  /** the solver applies these contacts' friction along the slip (a sign slip inside the solve) */
  frictionAlongSlip?: number[] | 'all';
  integrator: Integrator;
  // ---- one change between two otherwise equal runs (pairs.ts: the planted pairs of `contact-lens diff`) ----
  /** every contact's combined μ replaced by this value */
  muOverride?: number;
  /** every contact's combined restitution e replaced by this value */
  restitutionOverride?: number;
  /** these contacts (indices into this step's detected contacts) are dropped before the solve */
  dropContacts?: number[];
  /** a body moved by dx after the step's integration (λ and velocities untouched) */
  nudge?: { body: number; dx: Vec3 };
}

export interface PreState {
  v: Vec3;
  w: Vec3;
  x: Vec3;
  q: Quat;
}

export interface StepLog {
  pre: PreState[];
  contacts: Contact[];
  lambda: number[];
  solve: SolveResult;
  A: number[];
  b: number[];
  /** per contact: normal velocity before/after and the target τn */
  gnPre: number[];
  gnPost: number[];
  tauN: number[];
  external: External[];
}

export class World {
  bodies: Body[];
  private readonly warm = new Map<string, [number, number, number]>();

  constructor(bodies: Body[]) {
    this.bodies = bodies;
  }

  clone(): World {
    const w = new World(this.bodies.map(cloneBody));
    for (const [k, v] of this.warm) w.warm.set(k, [...v]);
    return w;
  }

  energy(g: Vec3): number {
    return totalEnergy(this.bodies, g).total;
  }

  /** Moves a body between steps (a game "teleport"); velocities kept unless given. */
  teleport(body: number, x: Vec3, v?: Vec3): void {
    this.bodies[body].x = copy3(x);
    if (v) this.bodies[body].v = copy3(v);
  }

  step(cfg: StepConfig): StepLog {
    const h = cfg.h;
    const dyn = (b: Body): boolean => b.mass !== null;
    const vStart = this.bodies.map((b) => copy3(b.v));
    const gravityStep = cfg.integrator === 'no-gravity' ? 0 : cfg.integrator === 'gravity-sign' ? -h : h;
    for (const b of this.bodies) if (dyn(b)) b.v = add(b.v, scale(cfg.gravity, gravityStep));
    const external = cfg.external ?? [];
    for (const e of external) this.bodies[e.body].v = add(this.bodies[e.body].v, scale(e.impulse, invMass(this.bodies[e.body])));
    const pre: PreState[] = this.bodies.map((b) => ({ v: copy3(b.v), w: copy3(b.w), x: copy3(b.x), q: copy4(b.q) }));

    const contacts = detectContacts(this.bodies, { margin: cfg.margin })
      .filter((_, i) => !cfg.dropContacts?.includes(i))
      .map((c) => ({ ...c, mu: cfg.muOverride ?? c.mu, e: cfg.restitutionOverride ?? c.e }));
    const rows = buildRows(this.bodies, contacts);
    const vel = velocitiesOf(this.bodies);
    const gPre = rows.map((r) => rowVelocity(r, vel));
    const tau = this.targets(cfg, contacts, rows, gPre, vStart);
    const eps = contacts.map((c, i) => (cfg.soft && c.gap === 0 ? rows[3 * i].diag / (h * (cfg.soft.c + h * cfg.soft.k)) : 0));
    const lambda = contacts.flatMap((c) => (cfg.warmStart ? (this.warm.get(c.feature) ?? [0, 0, 0]) : [0, 0, 0]));
    const problem: Problem = { rows, tau, mu: contacts.map((c) => c.mu), eps, vel, lambda };
    if (cfg.frictionAlongSlip) problem.alongSlip = new Set(cfg.frictionAlongSlip === 'all' ? contacts.map((_, i) => i) : cfg.frictionAlongSlip);
    const opts = { maxIterations: cfg.maxIterations, tolerance: cfg.tolerance };
    const solve =
      contacts.length === 0
        ? { status: 'converged' as const, iterations: 0, residuals: [] }
        : cfg.solver === 'socp'
          ? blockConeProjection(problem, opts)
          : pgsCoulomb(problem, opts);
    if (cfg.flipFriction) this.flipFriction(cfg.flipFriction, problem);

    const A = denseA(rows);
    eps.forEach((e, i) => {
      A[3 * i * rows.length + 3 * i] += e;
    });
    const b = tau.map((t, r) => t - gPre[r]);
    const gnPost = contacts.map((_, i) => rowVelocity(rows[3 * i], vel));

    const hx = cfg.integrator === 'double-h' ? 2 * h : h;
    this.bodies.forEach((body, i) => {
      if (!dyn(body)) return;
      body.v = vel.v[i];
      body.w = vel.w[i];
      body.x = add(body.x, scale(body.v, hx));
      body.q = integrateQuat(body.q, body.w, h);
    });
    if (cfg.positionPass) this.positionPass(cfg.positionPass, contacts, rows, h);
    if (cfg.nudge) this.bodies[cfg.nudge.body].x = add(this.bodies[cfg.nudge.body].x, cfg.nudge.dx);
    this.warm.clear();
    contacts.forEach((c, i) => {
      this.warm.set(c.feature, [lambda[3 * i], lambda[3 * i + 1], lambda[3 * i + 2]]);
    });
    return {
      pre,
      contacts,
      lambda,
      solve,
      A,
      b,
      gnPre: contacts.map((_, i) => gPre[3 * i]),
      gnPost,
      tauN: contacts.map((_, i) => tau[3 * i]),
      external,
    };
  }

  private targets(cfg: StepConfig, contacts: Contact[], rows: Row[], gPre: number[], vStart: Vec3[]): number[] {
    const h = cfg.h;
    const startVel: Velocities = { v: vStart, w: this.bodies.map((b) => b.w) };
    const tau = new Array<number>(rows.length).fill(0);
    contacts.forEach((c, i) => {
      const approach = -gPre[3 * i];
      if (c.gap > 0) {
        tau[3 * i] = -c.gap / h;
        return;
      }
      if (cfg.soft) {
        tau[3 * i] = (cfg.soft.k * c.depth) / (cfg.soft.c + h * cfg.soft.k);
        return;
      }
      const excess = cfg.biasIgnoresSlop ? c.depth : Math.max(0, c.depth - cfg.slop);
      const bias = (cfg.erp / h) * excess;
      const bouncing = approach > cfg.restThreshold;
      let restitution = bouncing ? c.e * approach : 0;
      // the bug: the restitution branch targets b_n = (1 + e)·a instead of e·a
      if (bouncing && cfg.restitution === 'overshoot') restitution = (1 + c.e) * approach;
      if (bouncing && cfg.restitution === 'overshoot-pre-gravity') restitution = (1 + c.e) * -rowVelocity(rows[3 * i], startVel);
      tau[3 * i] = restitution + bias;
    });
    return tau;
  }

  private flipFriction(which: number[] | 'all', p: Problem): void {
    const list = which === 'all' ? p.mu.map((_, i) => i) : which;
    for (const i of list) {
      for (const r of [3 * i + 1, 3 * i + 2]) {
        applyImpulse(p.rows[r], p.vel, -2 * p.lambda[r]);
        p.lambda[r] = -p.lambda[r];
      }
    }
  }

  /** Split-impulse position pass: pseudo-velocities from the bias-only problem move positions, velocities untouched. */
  private positionPass(pass: PositionPass, contacts: Contact[], rows: Row[], h: number): void {
    const chosen = pass.contacts ?? contacts.map((_, i) => i);
    const sub = chosen.filter((i) => contacts[i].gap === 0);
    if (sub.length === 0) return;
    const subRows = sub.flatMap((i) => [rows[3 * i], rows[3 * i + 1], rows[3 * i + 2]]);
    const tau = sub.flatMap((i) => {
      const d = contacts[i].depth;
      const target = pass.overshoot !== undefined ? (pass.overshoot * d) / h : (pass.beta / h) * Math.max(0, d - pass.slop);
      return [target, 0, 0];
    });
    const zero: Vec3 = [0, 0, 0];
    const vel: Velocities = { v: this.bodies.map(() => copy3(zero)), w: this.bodies.map(() => copy3(zero)) };
    const problem: Problem = { rows: subRows, tau, mu: sub.map(() => 0), eps: sub.map(() => 0), vel, lambda: subRows.map(() => 0) };
    pgsCoulomb(problem, { maxIterations: 10000, tolerance: 1e-14 });
    this.bodies.forEach((body, i) => {
      if (body.mass === null) return;
      body.x = add(body.x, scale(vel.v[i], h));
      body.q = integrateQuat(body.q, vel.w[i], h);
    });
  }
}

/** Energy of the world after one step with `cfg`, from a copy (the world itself is untouched). */
export function energyAfter(world: World, cfg: StepConfig): number {
  const copy = world.clone();
  copy.step(cfg);
  return copy.energy(cfg.gravity);
}
