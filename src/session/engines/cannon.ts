/**
 * cannon-es recorder (a worked example for engine authors). cannon-es is axis-agnostic: the scene is built z-up
 * directly; quaternions are stored [x, y, z, w] and converted. A plane is cannon's Plane (the half-space z ≤ 0 of
 * its body) turned so that +z is the plane's normal, at normal·offset.
 *
 * Step order (cannon-es 0.20 World.internalStep): gravity goes into body.force; narrowphase; the GSSolver
 * solves the SPOOK equations (Lacoursière 2007) from the current velocity v with the force term h·M⁻¹f
 * folded into the right-hand side, accumulating Δv = M⁻¹Jᵀλ in vlambda; v += vlambda; damping (0 here);
 * then Body.integrate adds h·M⁻¹f and moves the bodies. So the velocities the contact problem was built
 * from are pre = v_prev + h·g at the previous pose, and post − pre = M⁻¹Jᵀλ exactly — `pre` is written.
 *
 * λ: each equation's `multiplier` is λ/h (a force, GSSolver.solve), so λ = multiplier·h. ContactEquation
 * pushes bj along +ni (ni points out of bi); each contact has two FrictionEquations along tangents t
 * (pushing bj along +t) with the same lever arms. We write a = the dynamic body (bj when both are), n from b
 * into a, and project the impulse vector on our (n, t1, t2) frame (t1 = cannon's first tangent, t2 = n × t1).
 * μ and e per pair: one ContactMaterial per pair of the scene's materials, with the scenario's combined values.
 *
 * Stabilisation: SPOOK's a-term (position error) with stiffness k and relaxation d; in velocity terms
 * ERP = h·a/b = 1/d. Off: d = 1e9, k = 1e15 (a → 0, b → 1, ε → 0). cannon-es friction is bounded by
 * μ·|g|·m_red·h per contact (Narrowphase.createFrictionEquationsFromContact), not by μ·λn.
 */
import type * as CannonModule from 'cannon-es';
import type { RecordedBodyState, RecordedContact } from '../../format/recording.js';
import type { Vec3 } from '../../engine/index.js';
import { contactFrame, impulseInFrame, preFromBefore, staticState, xyzwToWxyz } from './convert.js';
import { loadEngine } from './enginePackages.js';
import { rotationFromZ } from './engineScene.js';
import type { EngineScene, EngineSimulation, EngineStep, PeerEngine, RecorderOptions } from './types.js';

/** cannon-es defaults (GSSolver, ContactMaterial). */
export const CANNON_DEFAULT_ITERATIONS = 10;
export const CANNON_TOLERANCE = 1e-7;
export const CANNON_STIFFNESS = 1e7;
export const CANNON_RELAXATION = 3;
/** "Stabilisation off": SPOOK with a → 0 (no position term), b → 1, ε → 0. */
const OFF_STIFFNESS = 1e15;
const OFF_RELAXATION = 1e9;

type Cannon = typeof CannonModule;
const v3 = (v: CannonModule.Vec3): Vec3 => [v.x, v.y, v.z];

/**
 * One cannon Material per distinct (μ, e) of the scene and one ContactMaterial per pair of them with the combined
 * values and the SPOOK parameters; returns each body's material.
 */
function addMaterials(CANNON: Cannon, world: CannonModule.World, scene: EngineScene, stiffness: number, relaxation: number): CannonModule.Material[] {
  const keyOf = (i: number): string => `${scene.bodies[i].friction}/${scene.bodies[i].restitution}`;
  const mats = new Map<string, { m: CannonModule.Material; body: number }>();
  scene.bodies.forEach((_, i) => {
    if (!mats.has(keyOf(i))) mats.set(keyOf(i), { m: new CANNON.Material(`m${mats.size}`), body: i });
  });
  const list = [...mats.values()];
  list.forEach((x, p) => {
    for (let r = p; r < list.length; r++) {
      const { mu, e } = scene.pair(x.body, list[r].body);
      world.addContactMaterial(
        new CANNON.ContactMaterial(x.m, list[r].m, {
          friction: mu,
          restitution: e,
          contactEquationStiffness: stiffness,
          contactEquationRelaxation: relaxation,
        }),
      );
    }
  });
  return scene.bodies.map((_, i) => mats.get(keyOf(i))!.m);
}

/** The scene's bodies as cannon bodies (a plane as cannon's Plane, whose normal is its local +z), in the scene's order. */
function createBodies(CANNON: Cannon, scene: EngineScene, materials: readonly CannonModule.Material[]): CannonModule.Body[] {
  return scene.bodies.map((d, i) => {
    const material = materials[i];
    if ('plane' in d.shape) {
      const n = d.shape.plane.normal,
        q = rotationFromZ(n),
        o = d.shape.plane.offset;
      return new CANNON.Body({
        mass: 0,
        type: CANNON.Body.STATIC,
        material,
        shape: new CANNON.Plane(),
        position: new CANNON.Vec3(n[0] * o, n[1] * o, n[2] * o),
        quaternion: new CANNON.Quaternion(q[1], q[2], q[3], q[0]),
      });
    }
    const shape = 'box' in d.shape ? new CANNON.Box(new CANNON.Vec3(...d.shape.box.halfExtents)) : new CANNON.Sphere(d.shape.sphere.radius);
    return new CANNON.Body({
      mass: d.static ? 0 : d.mass,
      ...(d.static ? { type: CANNON.Body.STATIC } : {}),
      material,
      shape,
      linearDamping: 0,
      angularDamping: 0,
      allowSleep: false,
      position: new CANNON.Vec3(...d.x),
      quaternion: new CANNON.Quaternion(d.q[1], d.q[2], d.q[3], d.q[0]),
      velocity: new CANNON.Vec3(...d.v),
      angularVelocity: new CANNON.Vec3(...d.w),
    });
  });
}

/**
 * The step's contacts and their impulses (λ per contact in its frame) from cannon's contact and friction
 * equations; xs are the bodies' positions before the step (where cannon measured ri, rj).
 */
function recordedContacts(
  world: CannonModule.World,
  index: ReadonlyMap<CannonModule.Body, number>,
  xs: readonly Vec3[],
  scene: EngineScene,
): { contacts: RecordedContact[]; lambda: number[] } {
  const dt = scene.dt;
  const contacts: RecordedContact[] = [];
  const lambda: number[] = [];
  // Friction equations copy their contact's bodies and ri/rj (Narrowphase.createFrictionEquationsFromContact).
  const friction = new Map<CannonModule.ContactEquation, CannonModule.FrictionEquation[]>();
  for (const c of world.contacts) {
    const fr = world.frictionEquations.filter((f) => f.bi === c.bi && f.bj === c.bj && f.ri.almostEquals(c.ri, 0) && f.rj.almostEquals(c.rj, 0));
    friction.set(c, fr.slice(0, 2));
  }
  for (const c of world.contacts) {
    const i = index.get(c.bi)!,
      j = index.get(c.bj)!;
    const xi = xs[i],
      xj = xs[j];
    const pi: Vec3 = [xi[0] + c.ri.x, xi[1] + c.ri.y, xi[2] + c.ri.z];
    const pj: Vec3 = [xj[0] + c.rj.x, xj[1] + c.rj.y, xj[2] + c.rj.z];
    const ni = v3(c.ni);
    // g = (xj + rj − xi − ri)·ni < 0 when overlapping (ContactEquation.computeB).
    const gap = (pj[0] - pi[0]) * ni[0] + (pj[1] - pi[1]) * ni[1] + (pj[2] - pi[2]) * ni[2];
    // Impulse on bj (world, N·s): λ·ni + Σ λ_f·t_f, λ = multiplier·h.
    const fr = friction.get(c)!;
    const P: [number, number, number] = [c.multiplier * dt * ni[0], c.multiplier * dt * ni[1], c.multiplier * dt * ni[2]];
    for (const f of fr) {
      P[0] += f.multiplier * dt * f.t.x;
      P[1] += f.multiplier * dt * f.t.y;
      P[2] += f.multiplier * dt * f.t.z;
    }
    const aIsJ = !scene.bodies[j].static;
    const a = aIsJ ? j : i,
      b = aIsJ ? i : j;
    const sgn = aIsJ ? 1 : -1;
    const frame = contactFrame([sgn * ni[0], sgn * ni[1], sgn * ni[2]], fr[0] ? [sgn * fr[0].t.x, sgn * fr[0].t.y, sgn * fr[0].t.z] : undefined);
    const Pa: Vec3 = [sgn * P[0], sgn * P[1], sgn * P[2]];
    lambda.push(...impulseInFrame(Pa, frame));
    const { mu, e } = scene.pair(a, b);
    const side = (k: number): string => (scene.bodies[k].static ? scene.bodies[k].name : String(k));
    contacts.push({
      // The point on body a's surface: a's lever arm is then exactly cannon's (ri or rj); b's differs by the
      // depth along n, which changes b's friction torque by depth·λt (zero for a static body).
      a,
      b,
      point: aIsJ ? pj : pi,
      normal: frame.n,
      t1: frame.t1,
      t2: frame.t2,
      depth: Math.max(0, -gap),
      mu,
      e,
      feature: `${side(a)}:${side(b)}:${c.ri.x.toFixed(2)},${c.ri.y.toFixed(2)},${c.ri.z.toFixed(2)}`,
    });
  }
  return { contacts, lambda };
}

async function create(scene: EngineScene, options: RecorderOptions): Promise<EngineSimulation> {
  const { module, version } = await loadEngine('cannon');
  const CANNON = module as Cannon;
  const dt = scene.dt;
  const iterations = options.iterations ?? CANNON_DEFAULT_ITERATIONS;
  const stab = options.stabilization !== false;
  const world = new CANNON.World({ gravity: new CANNON.Vec3(...scene.gravity) });
  const solver = world.solver as CannonModule.GSSolver;
  solver.iterations = iterations;
  solver.tolerance = CANNON_TOLERANCE;
  const stiffness = stab ? CANNON_STIFFNESS : OFF_STIFFNESS;
  const relaxation = stab ? CANNON_RELAXATION : OFF_RELAXATION;
  const all = createBodies(CANNON, scene, addMaterials(CANNON, world, scene, stiffness, relaxation));
  for (const b of all) world.addBody(b);
  const index = new Map(all.map((b, i) => [b, i] as const));
  // The solver's iteration count, from GSSolver.solve's return value.
  let lastIterations = 0;
  const solve = solver.solve.bind(solver);
  solver.solve = (h: number, w: CannonModule.World): number => (lastIterations = solve(h, w));

  const state = (): RecordedBodyState[] =>
    all.map((b, i) =>
      scene.bodies[i].static
        ? staticState(scene.bodies[i])
        : { x: v3(b.position), q: xyzwToWxyz(b.quaternion.x, b.quaternion.y, b.quaternion.z, b.quaternion.w), v: v3(b.velocity), w: v3(b.angularVelocity) },
    );

  const step = (): EngineStep => {
    const before = state();
    const xs = all.map((b) => v3(b.position));
    const pre = preFromBefore(before, scene.bodies, dt, scene.gravity);
    const t0 = performance.now();
    world.step(dt);
    const stepMs = performance.now() - t0;
    const { contacts, lambda } = recordedContacts(world, index, xs, scene);
    return { bodies: state(), pre, contacts, lambda, iterations: lastIterations, converged: lastIterations < iterations, stepMs };
  };

  return {
    producer: { name: 'cannon-es', version },
    solver: {
      name: 'cannon-es GSSolver (SPOOK)',
      kind: 'iterative-tolerance',
      maxIterations: iterations,
      tolerance: CANNON_TOLERANCE,
      baumgarte: stab,
      erp: stab ? 1 / relaxation : 0,
      slop: 0,
      restVelocityThreshold: 0,
      'x-spook': { stiffness, relaxation },
      'x-friction-bound': 'mu*|g|*m_reduced*dt per contact, not mu*lambda_n',
    },
    lambdaOrigin: { normal: 'solver', tangent: 'solver' },
    lambdaSource: 'engine: ContactEquation/FrictionEquation multiplier × dt (GSSolver stores λ/h)',
    preSource: 'v_prev + dt·g at the previous pose (cannon-es solves before adding gravity to v, with h·M⁻¹f in the right-hand side)',
    notes: [],
    step,
    dispose: () => {
      /* garbage collected */
    },
  };
}

export const cannonEngine: PeerEngine = { name: 'cannon', create };
