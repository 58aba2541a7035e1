/**
 * Rapier recorder (@dimforge/rapier3d-compat; worked example for engine authors). Rapier is
 * axis-agnostic: the scene is built z-up directly; rotations are {w, x, y, z} objects.
 *
 * Step order (Rapier ≥ 0.18, TGS-soft): collision detection at the start-of-step poses, then
 * numSolverIterations substeps, each adding h/n·g to v, solving the contacts (soft constraints, natural
 * frequency contact_natural_frequency, damping ratio 5) and moving the bodies; Jacobians stay those of the
 * start pose. So pre = v_prev + h·g at the previous pose and post − pre ≈ M⁻¹Jᵀλ (exact up to the
 * bodies' rotation during the substeps, which changes the world inertia slightly).
 *
 * λ: the manifold's contactImpulse(i) is the normal impulse accumulated over the step (N·s). The tangent
 * impulses contactTangentImpulseX/Y are in a tangent basis the binding does not expose, so λt is FITTED
 * to the engine's velocity change with λn held at Rapier's values (fitLambda.ts) — header x-lambda-source.
 * The manifold normal points out of collider 1, its impulse pushes collider 2 along +n: a = body 2 (the
 * pair is swapped when body 2 is the ground). contactDist(i) < 0 is penetration; predictive contacts
 * (dist > 0, the engine's speculative margin) are written with depth 0.
 *
 * Stabilisation off: contact_natural_frequency = 0 (no bias velocity from the soft-contact spring).
 */
import type RAPIER_DEFAULT from '@dimforge/rapier3d-compat';
import type { RecordedBodyState, RecordedContact, RecordedPreState } from '../../src/format/recording.js';
import { rotate } from '../../src/engine/math/quat.js';
import type { Vec3 } from '../../src/engine/math/vec3.js';
import { contactFrame } from './convert.js';
import { fitFrameLambda, peerFitHeader } from './fitFrame.js';
import { packageVersion } from './packages.js';
import type { PeerScene } from './scenes.js';
import type { PeerEngine, PeerSimulation, PeerStep, RecorderOptions } from './types.js';

type Rapier = typeof RAPIER_DEFAULT;
export const RAPIER_DEFAULT_ITERATIONS = 4;
/** Rapier's default contact spring natural frequency (Hz) and damping ratio (IntegrationParameters). */
export const RAPIER_NATURAL_FREQUENCY = 30;

let loaded: Promise<Rapier> | undefined;
async function loadRapier(): Promise<Rapier> {
  loaded ??= (async () => {
    const mod = (await import('@dimforge/rapier3d-compat')) as unknown as { default?: Rapier } & Rapier;
    const R = mod.default ?? mod;
    await R.init();
    return R;
  })();
  return loaded;
}

async function create(scene: PeerScene, options: RecorderOptions): Promise<PeerSimulation> {
  const R = await loadRapier();
  const dt = scene.dt;
  const iterations = options.iterations ?? RAPIER_DEFAULT_ITERATIONS;
  const stab = options.stabilization !== false;
  const world = new R.World({ x: scene.gravity[0], y: scene.gravity[1], z: scene.gravity[2] });
  world.timestep = dt;
  world.numSolverIterations = iterations;
  world.integrationParameters.contact_natural_frequency = stab ? RAPIER_NATURAL_FREQUENCY : 0;
  const erp = world.integrationParameters.contact_erp;
  // Every collider carries μ and e with rule Max: the pair gets exactly μ and e.
  const mat = (c: RAPIER_DEFAULT.ColliderDesc): RAPIER_DEFAULT.ColliderDesc =>
    c
      .setFriction(scene.mu)
      .setFrictionCombineRule(R.CoefficientCombineRule.Max)
      .setRestitution(scene.e)
      .setRestitutionCombineRule(R.CoefficientCombineRule.Max);
  const groundBody = world.createRigidBody(R.RigidBodyDesc.fixed());
  const groundCollider = world.createCollider(mat(new R.ColliderDesc(new R.HalfSpace({ x: 0, y: 0, z: 1 }))), groundBody);
  const bodies = scene.bodies.map((d) => {
    const cd = 'box' in d.shape ? R.ColliderDesc.cuboid(...d.shape.box.halfExtents) : R.ColliderDesc.ball(d.shape.sphere.radius);
    cd.setMass(d.mass);
    const rb = world.createRigidBody(
      R.RigidBodyDesc.dynamic()
        .setCanSleep(false)
        .setLinearDamping(0)
        .setAngularDamping(0)
        .setTranslation(...d.x)
        .setRotation({ w: d.q[0], x: d.q[1], y: d.q[2], z: d.q[3] })
        .setLinvel(...d.v)
        .setAngvel({ x: d.w[0], y: d.w[1], z: d.w[2] }),
    );
    const col = world.createCollider(mat(cd), rb);
    return { rb, col };
  });
  const colliders = [groundCollider, ...bodies.map((b) => b.col)];
  const index = new Map(colliders.map((c, i) => [c.handle, i] as const));
  const header = peerFitHeader(scene, 'rapier');

  const state = (): RecordedBodyState[] => [
    { x: [0, 0, 0], q: [1, 0, 0, 0], v: [0, 0, 0], w: [0, 0, 0] },
    ...bodies.map(({ rb }) => {
      const x = rb.translation(),
        q = rb.rotation(),
        v = rb.linvel(),
        w = rb.angvel();
      return { x: [x.x, x.y, x.z] as Vec3, q: [q.w, q.x, q.y, q.z] as const, v: [v.x, v.y, v.z] as Vec3, w: [w.x, w.y, w.z] as Vec3 };
    }),
  ];

  const step = (): PeerStep => {
    const before = state();
    const g = scene.gravity;
    const pre: RecordedPreState[] = before.map((s, i) => (i === 0 ? s : { ...s, v: [s.v[0] + dt * g[0], s.v[1] + dt * g[1], s.v[2] + dt * g[2]] }));
    world.step();
    const after = state();
    const contacts: RecordedContact[] = [];
    const normals: number[] = [];
    const seen = new Set<string>();
    for (let i = 1; i < colliders.length; i++) {
      world.contactPairsWith(colliders[i], (other) => {
        const j = index.get(other.handle);
        if (j === undefined) return;
        const key = i < j ? `${i}-${j}` : `${j}-${i}`;
        if (seen.has(key)) return;
        seen.add(key);
        world.contactPair(colliders[i], other, (m, flipped) => {
          const c1 = flipped ? j : i,
            c2 = flipped ? i : j;
          const nw = m.normal();
          const n: Vec3 = [nw.x, nw.y, nw.z];
          const aIs2 = c2 !== 0;
          const a = aIs2 ? c2 : c1,
            b = aIs2 ? c1 : c2;
          const s = aIs2 ? 1 : -1;
          const frame = contactFrame([s * n[0], s * n[1], s * n[2]]);
          for (let k = 0; k < m.numContacts(); k++) {
            // Local point on collider 1, placed with the start-of-step pose (contacts are detected there).
            const lp = m.localContactPoint1(k)!;
            const p1 = before[c1];
            const lpv: Vec3 = [lp.x, lp.y, lp.z];
            const wp = c1 === 0 ? lpv : rotate(p1.q, lpv);
            const point1: Vec3 = c1 === 0 ? wp : [p1.x[0] + wp[0], p1.x[1] + wp[1], p1.x[2] + wp[2]];
            const dist = m.contactDist(k);
            // The point on body a's surface: collider 1's point moved by the signed distance along n (out of 1).
            const point: Vec3 = aIs2 ? [point1[0] + dist * n[0], point1[1] + dist * n[1], point1[2] + dist * n[2]] : point1;
            contacts.push({
              a,
              b,
              point,
              normal: frame.n,
              t1: frame.t1,
              t2: frame.t2,
              depth: Math.max(0, -dist),
              mu: scene.mu,
              e: scene.e,
              feature: `${a}:${b}:${m.contactFid1(k)}:${m.contactFid2(k)}`,
            });
            normals.push(m.contactImpulse(k));
          }
        });
      });
    }
    const lambda = fitFrameLambda(header, after, pre, contacts, normals);
    return { bodies: after, pre, contacts, lambda, iterations };
  };

  return {
    producer: { name: 'rapier3d-compat', version: packageVersion('@dimforge/rapier3d-compat') },
    solver: {
      name: 'rapier TGS-soft (substepped PGS)',
      kind: 'iterative-fixed',
      maxIterations: iterations,
      baumgarte: stab,
      erp,
      slop: world.integrationParameters.normalizedAllowedLinearError,
      restVelocityThreshold: 0,
      'x-contact-natural-frequency': stab ? RAPIER_NATURAL_FREQUENCY : 0,
      'x-substeps': iterations,
    },
    lambdaOrigin: { normal: 'solver', tangent: 'fitted' },
    lambdaSource:
      "normal: engine (TempContactManifold.contactImpulse, N·s per step); tangential: fitted to the engine's velocity change with λn fixed (least squares J M⁻¹Jᵀ λt = J Δv − …, the binding does not expose the tangent basis)",
    preSource: 'v_prev + dt·g at the previous pose (Rapier adds gravity in each substep before the contact solve; Jacobians use the start pose)',
    step,
    dispose: () => world.free(),
  };
}

export const rapierEngine: PeerEngine = { name: 'rapier', create };
