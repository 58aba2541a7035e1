/**
 * Bullet recorder (ammojs-typed: ammo.js, the Emscripten build of Bullet 2.8x, with type definitions;
 * worked example for engine authors). Bullet is axis-agnostic: the scene is built z-up directly;
 * btQuaternion is [x, y, z, w].
 *
 * Step order (btDiscreteDynamicsWorld::internalSingleStepSimulation, stepSimulation(dt, 0) = one step of
 * exactly dt): integrate gravity into v (damping 0 here), collision detection at the current transforms,
 * m_numIterations sequential-impulse sweeps, integrate transforms. So pre = v_prev + h·g at the previous
 * pose and post − pre = M⁻¹Jᵀλ.
 *
 * λ: btManifoldPoint.getAppliedImpulse() is the normal impulse (N·s). The friction impulses
 * (m_appliedImpulseLateral1/2) and their directions are not in ammo.js's IDL: λt is FITTED to Bullet's
 * velocity change with λn held at Bullet's values (fitLambda.ts; header x-lambda-source). The impulse
 * pushes body A along m_normalWorldOnB (from B into A): a = A (swapped when A is the ground). The point is
 * A's (getPositionWorldOnA): A's lever arm is then exactly Bullet's.
 *
 * Stabilisation: Bullet's velocity solve adds the Baumgarte term (ERP 0.2, not settable from ammo.js) to
 * contacts shallower than m_splitImpulsePenetrationThreshold (−0.04 m) and uses split impulse (position
 * correction by a separate pseudo-velocity that never enters v) for deeper ones. "Off" = m_erp = 0 (written
 * into the solver info, setContactErp: ammo.js has no setter) and split impulse off: no position
 * correction at all.
 * Bullet combines friction and restitution by product: each body gets √μ and √e.
 */
import type { RecordedBodyState, RecordedContact, RecordedPreState } from '../../src/format/recording.js';
import type { Vec3 } from '../../src/engine/math/vec3.js';
import { contactFrame, xyzwToWxyz } from './convert.js';
import { fitFrameLambda, peerFitHeader } from './fitFrame.js';
import { packageVersion } from './packages.js';
import type { PeerScene } from './scenes.js';
import type { PeerEngine, PeerSimulation, PeerStep, RecorderOptions } from './types.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AmmoModule = any;

export const BULLET_DEFAULT_ITERATIONS = 10;
/** Bullet's ERP for contacts (btContactSolverInfo default; not exposed by ammo.js). */
export const BULLET_ERP = 0.2;
/** btContactSolverInfoData float slots (Bullet 2.8x: m_tau, m_damping, m_friction, m_timeStep, m_restitution,
 * m_numIterations, m_maxErrorReduction, m_sor, m_erp, m_erp2, …), checked against known values before use. */
const SLOT_ITERATIONS = 5,
  SLOT_ERP = 8,
  SLOT_ERP2 = 9;

/**
 * ammo.js's IDL has no setter for m_erp: write it into the solver info's memory, after checking that the
 * slots hold what Bullet's defaults say (iterations as set, ERP 0.2, ERP2 0.8) — else refuse.
 */
function setContactErp(A: AmmoModule, info: any, iterations: number, erp: number): void {
  const p = (A.getPointer(info) as number) >> 2;
  const ok =
    A.HEAP32[p + SLOT_ITERATIONS] === iterations && Math.abs(A.HEAPF32[p + SLOT_ERP] - BULLET_ERP) < 1e-6 && Math.abs(A.HEAPF32[p + SLOT_ERP2] - 0.8) < 1e-6;
  if (!ok) throw new Error('ammojs-typed: btContactSolverInfo layout is not the expected Bullet 2.8x one; cannot set m_erp');
  A.HEAPF32[p + SLOT_ERP] = erp;
}
const DISABLE_DEACTIVATION = 4;

let loaded: Promise<AmmoModule> | undefined;
async function loadAmmo(): Promise<AmmoModule> {
  loaded ??= (async () => {
    const mod = (await import('ammojs-typed')) as unknown as { default?: (t?: unknown) => Promise<AmmoModule> };
    const factory = (mod.default ?? mod) as (t?: unknown) => Promise<AmmoModule>;
    return await factory();
  })();
  return loaded;
}

async function create(scene: PeerScene, options: RecorderOptions): Promise<PeerSimulation> {
  const A = await loadAmmo();
  const dt = scene.dt;
  const iterations = options.iterations ?? BULLET_DEFAULT_ITERATIONS;
  const stab = options.stabilization !== false;
  const config = new A.btDefaultCollisionConfiguration();
  const dispatcher = new A.btCollisionDispatcher(config);
  const broadphase = new A.btDbvtBroadphase();
  const solver = new A.btSequentialImpulseConstraintSolver();
  const world = new A.btDiscreteDynamicsWorld(dispatcher, broadphase, solver, config);
  world.setGravity(new A.btVector3(...scene.gravity));
  const info = world.getSolverInfo();
  info.set_m_numIterations(iterations);
  if (!stab) {
    setContactErp(A, info, iterations, 0);
    info.set_m_splitImpulse(false);
  }
  const splitImpulse = info.get_m_splitImpulse(),
    threshold = info.get_m_splitImpulsePenetrationThreshold();

  const sqrtMu = Math.sqrt(scene.mu),
    sqrtE = Math.sqrt(scene.e);
  const makeBody = (mass: number, shape: any, x: Vec3, q: readonly number[]): any => {
    const t = new A.btTransform();
    t.setIdentity();
    t.setOrigin(new A.btVector3(...x));
    t.setRotation(new A.btQuaternion(q[1], q[2], q[3], q[0]));
    const inertia = new A.btVector3(0, 0, 0);
    if (mass > 0) shape.calculateLocalInertia(mass, inertia);
    const ci = new A.btRigidBodyConstructionInfo(mass, new A.btDefaultMotionState(t), shape, inertia);
    ci.set_m_friction(sqrtMu);
    ci.set_m_restitution(sqrtE);
    ci.set_m_linearDamping(0);
    ci.set_m_angularDamping(0);
    const body = new A.btRigidBody(ci);
    body.setActivationState(DISABLE_DEACTIVATION);
    world.addRigidBody(body);
    return body;
  };
  const ground = makeBody(0, new A.btStaticPlaneShape(new A.btVector3(0, 0, 1), 0), [0, 0, 0], [1, 0, 0, 0]);
  const bodies = scene.bodies.map((d) => {
    const shape = 'box' in d.shape ? new A.btBoxShape(new A.btVector3(...d.shape.box.halfExtents)) : new A.btSphereShape(d.shape.sphere.radius);
    const b = makeBody(d.mass, shape, d.x, d.q);
    b.setLinearVelocity(new A.btVector3(...d.v));
    b.setAngularVelocity(new A.btVector3(...d.w));
    return b;
  });
  const all = [ground, ...bodies];
  const index = new Map<number, number>(all.map((b, i) => [A.getPointer(b) as number, i] as const));
  const header = peerFitHeader(scene, 'bullet');
  const v3 = (v: any): Vec3 => [v.x(), v.y(), v.z()];

  const state = (): RecordedBodyState[] =>
    all.map((b, i) => {
      if (i === 0) return { x: [0, 0, 0], q: [1, 0, 0, 0], v: [0, 0, 0], w: [0, 0, 0] };
      const t = b.getCenterOfMassTransform();
      const r = t.getRotation();
      return { x: v3(t.getOrigin()), q: xyzwToWxyz(r.x(), r.y(), r.z(), r.w()), v: v3(b.getLinearVelocity()), w: v3(b.getAngularVelocity()) };
    });

  const step = (): PeerStep => {
    const before = state();
    const g = scene.gravity;
    const pre: RecordedPreState[] = before.map((s, i) => (i === 0 ? s : { ...s, v: [s.v[0] + dt * g[0], s.v[1] + dt * g[1], s.v[2] + dt * g[2]] }));
    world.stepSimulation(dt, 0);
    const after = state();
    const contacts: RecordedContact[] = [];
    const normals: number[] = [];
    const disp = world.getDispatcher();
    for (let m = 0; m < disp.getNumManifolds(); m++) {
      const man = disp.getManifoldByIndexInternal(m);
      const i0 = index.get(A.getPointer(man.getBody0()))!,
        i1 = index.get(A.getPointer(man.getBody1()))!;
      for (let k = 0; k < man.getNumContacts(); k++) {
        const cp = man.getContactPoint(k);
        const n = v3(cp.get_m_normalWorldOnB());
        const aIs0 = i0 !== 0;
        const a = aIs0 ? i0 : i1,
          b = aIs0 ? i1 : i0,
          s = aIs0 ? 1 : -1;
        const frame = contactFrame([s * n[0], s * n[1], s * n[2]]);
        const point = aIs0 ? v3(cp.getPositionWorldOnA()) : v3(cp.getPositionWorldOnB());
        contacts.push({
          a,
          b,
          point,
          normal: frame.n,
          t1: frame.t1,
          t2: frame.t2,
          depth: Math.max(0, -cp.getDistance()),
          mu: scene.mu,
          e: scene.e,
          feature: `${a}:${b}:${m}:${k}`,
        });
        normals.push(cp.getAppliedImpulse());
      }
    }
    return { bodies: after, pre, contacts, lambda: fitFrameLambda(header, after, pre, contacts, normals), iterations };
  };

  return {
    producer: { name: 'ammo.js (Bullet, ammojs-typed)', version: packageVersion('ammojs-typed') },
    solver: {
      name: 'bullet btSequentialImpulseConstraintSolver',
      kind: 'iterative-fixed',
      maxIterations: iterations,
      erp: stab ? BULLET_ERP : 0,
      slop: 0,
      restVelocityThreshold: 0,
      // the format's splitImpulse means "no bias in v"; Bullet adds the ERP bias to v for every contact shallower
      // than its split-impulse threshold (all contacts of these scenes), so the velocity bias is what it declares
      baumgarte: stab,
      splitImpulse: false,
      'x-bullet-split-impulse': splitImpulse,
      'x-split-impulse-penetration-threshold': threshold,
    },
    lambdaOrigin: { normal: 'solver', tangent: 'fitted' },
    lambdaSource:
      "normal: engine (btManifoldPoint.getAppliedImpulse, N·s); tangential: fitted to the engine's velocity change with λn fixed (ammo.js does not expose the lateral friction impulses)",
    preSource: 'v_prev + dt·g at the previous pose (Bullet integrates gravity into v before collision detection and the solve)',
    step,
    dispose: () => {
      A.destroy(world);
    },
  };
}

export const bulletEngine: PeerEngine = { name: 'bullet', create };
