/**
 * Rapier recorder (@dimforge/rapier3d-compat; a worked example for engine authors). Rapier is axis-agnostic:
 * the scene is built z-up directly; rotations are {w, x, y, z} objects; a plane is a HalfSpace collider.
 *
 * Step order (Rapier ≥ 0.18, TGS-soft): collision detection at the start-of-step poses, then
 * numSolverIterations substeps, each adding h/n·g to v, solving the contacts (soft constraints, natural
 * frequency contact_natural_frequency, damping ratio 5) and moving the bodies; Jacobians stay those of the
 * start pose. So pre = v_prev + h·g at the previous pose and post − pre ≈ M⁻¹Jᵀλ (exact up to the
 * bodies' rotation during the substeps, which changes the world inertia slightly).
 *
 * λ: the manifold's contactImpulse(i) is the normal impulse accumulated over the step (N·s). The tangent
 * impulses are in a tangent basis the binding does not expose, so λt is FITTED to the engine's velocity change
 * with λn held at Rapier's values (fitLambda.ts): header solver.lambdaSource says so. The manifold normal points
 * out of collider 1, its impulse pushes collider 2 along +n: a = body 2 (swapped when body 2 is static).
 * contactDist(i) < 0 is penetration; predictive contacts (dist > 0) are written with depth 0.
 * μ and e per pair: one value for all (rule Max), or the scenario's rule (geometric mean: Multiply of √μ).
 *
 * Stabilisation off: contact_natural_frequency = 0 (no bias velocity from the soft-contact spring).
 */
import type RAPIER_DEFAULT from '@dimforge/rapier3d-compat';
import type { RecordedBodyState, RecordedContact } from '../../format/recording.js';
import { rotate } from '../../engine/index.js';
import type { Vec3 } from '../../engine/index.js';
import { contactFrame, preFromBefore, staticState } from './convert.js';
import { loadEngine } from './enginePackages.js';
import { fitFrameLambda, sceneHeader } from './fitFrame.js';
import type { EngineScene, EngineSimulation, EngineStep, PeerEngine, RecorderOptions } from './types.js';

type Rapier = typeof RAPIER_DEFAULT;
export const RAPIER_DEFAULT_ITERATIONS = 4;
/** Rapier's default contact spring natural frequency (Hz). */
export const RAPIER_NATURAL_FREQUENCY = 30;

/** Rapier's combine rule and the per-collider values that give the scenario's combined μ and e. */
function materials(
  R: Rapier,
  scene: EngineScene,
): {
  rule: (r: 'friction' | 'restitution') => RAPIER_DEFAULT.CoefficientCombineRule;
  value: (i: number, r: 'friction' | 'restitution') => number;
  notes: string[];
} {
  const C = R.CoefficientCombineRule;
  if (scene.uniform) {
    const u = scene.uniform;
    return { rule: () => C.Max, value: (_, r) => (r === 'friction' ? u.mu : u.e), notes: [] };
  }
  const map: Record<string, RAPIER_DEFAULT.CoefficientCombineRule> = { max: C.Max, min: C.Min, average: C.Average, 'geometric-mean': C.Multiply };
  const of = (r: 'friction' | 'restitution'): string => (r === 'friction' ? scene.frictionCombine : scene.restitutionCombine);
  return {
    rule: (r) => map[of(r)],
    // √ of each value under Multiply: the product is the geometric mean
    value: (i, r) => {
      const v = r === 'friction' ? scene.bodies[i].friction : scene.bodies[i].restitution;
      return of(r) === 'geometric-mean' ? Math.sqrt(v) : v;
    },
    notes: [],
  };
}

async function create(scene: EngineScene, options: RecorderOptions): Promise<EngineSimulation> {
  const { module, version } = await loadEngine('rapier');
  const R = module as Rapier;
  const dt = scene.dt;
  const iterations = options.iterations ?? RAPIER_DEFAULT_ITERATIONS;
  const stab = options.stabilization !== false;
  const world = new R.World({ x: scene.gravity[0], y: scene.gravity[1], z: scene.gravity[2] });
  world.timestep = dt;
  world.numSolverIterations = iterations;
  world.integrationParameters.contact_natural_frequency = stab ? RAPIER_NATURAL_FREQUENCY : 0;
  const erp = world.integrationParameters.contact_erp;
  const m = materials(R, scene);
  const mat = (c: RAPIER_DEFAULT.ColliderDesc, i: number): RAPIER_DEFAULT.ColliderDesc =>
    c
      .setFriction(m.value(i, 'friction'))
      .setFrictionCombineRule(m.rule('friction'))
      .setRestitution(m.value(i, 'restitution'))
      .setRestitutionCombineRule(m.rule('restitution'));
  const made = scene.bodies.map((d, i) => {
    if ('plane' in d.shape) {
      const n = d.shape.plane.normal,
        o = d.shape.plane.offset;
      const rb = world.createRigidBody(R.RigidBodyDesc.fixed().setTranslation(n[0] * o, n[1] * o, n[2] * o));
      return { rb, col: world.createCollider(mat(new R.ColliderDesc(new R.HalfSpace({ x: n[0], y: n[1], z: n[2] })), i), rb) };
    }
    const cd = 'box' in d.shape ? R.ColliderDesc.cuboid(...d.shape.box.halfExtents) : R.ColliderDesc.ball(d.shape.sphere.radius);
    if (!d.static) cd.setMass(d.mass);
    const desc = (d.static ? R.RigidBodyDesc.fixed() : R.RigidBodyDesc.dynamic().setCanSleep(false).setLinearDamping(0).setAngularDamping(0))
      .setTranslation(...d.x)
      .setRotation({ w: d.q[0], x: d.q[1], y: d.q[2], z: d.q[3] });
    if (!d.static) desc.setLinvel(...d.v).setAngvel({ x: d.w[0], y: d.w[1], z: d.w[2] });
    const rb = world.createRigidBody(desc);
    return { rb, col: world.createCollider(mat(cd, i), rb) };
  });
  const colliders = made.map((x) => x.col);
  const index = new Map(colliders.map((c, i) => [c.handle, i] as const));
  const header = sceneHeader(scene, 'rapier');

  const state = (): RecordedBodyState[] =>
    made.map(({ rb }, i) => {
      if (scene.bodies[i].static) return staticState(scene.bodies[i]);
      const x = rb.translation(),
        q = rb.rotation(),
        v = rb.linvel(),
        w = rb.angvel();
      return { x: [x.x, x.y, x.z] as Vec3, q: [q.w, q.x, q.y, q.z] as const, v: [v.x, v.y, v.z] as Vec3, w: [w.x, w.y, w.z] as Vec3 };
    });
  /** Collider poses (planes: at normal·offset, unrotated), for placing local contact points. */
  const poseOf = (i: number): { x: Vec3; q: readonly [number, number, number, number] } => {
    const t = made[i].rb.translation(),
      r = made[i].rb.rotation();
    return { x: [t.x, t.y, t.z], q: [r.w, r.x, r.y, r.z] };
  };

  const step = (): EngineStep => {
    const before = state();
    const poses = made.map((_, i) => poseOf(i));
    const pre = preFromBefore(before, scene.bodies, dt, scene.gravity);
    const t0 = performance.now();
    world.step();
    const stepMs = performance.now() - t0;
    const after = state();
    const contacts: RecordedContact[] = [];
    const normals: number[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < colliders.length; i++) {
      if (scene.bodies[i].static) continue;
      world.contactPairsWith(colliders[i], (other) => {
        const j = index.get(other.handle);
        if (j === undefined) return;
        const key = i < j ? `${i}-${j}` : `${j}-${i}`;
        if (seen.has(key)) return;
        seen.add(key);
        world.contactPair(colliders[i], other, (mf, flipped) => {
          const c1 = flipped ? j : i,
            c2 = flipped ? i : j;
          const nw = mf.normal();
          const n: Vec3 = [nw.x, nw.y, nw.z];
          const aIs2 = !scene.bodies[c2].static;
          const a = aIs2 ? c2 : c1,
            b = aIs2 ? c1 : c2;
          const s = aIs2 ? 1 : -1;
          const frame = contactFrame([s * n[0], s * n[1], s * n[2]]);
          const { mu, e } = scene.pair(a, b);
          for (let k = 0; k < mf.numContacts(); k++) {
            // Local point on collider 1, placed with the start-of-step pose (contacts are detected there).
            const lp = mf.localContactPoint1(k)!;
            const p1 = poses[c1];
            const wp = rotate(p1.q, [lp.x, lp.y, lp.z]);
            const point1: Vec3 = [p1.x[0] + wp[0], p1.x[1] + wp[1], p1.x[2] + wp[2]];
            const dist = mf.contactDist(k);
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
              mu,
              e,
              feature: `${a}:${b}:${mf.contactFid1(k)}:${mf.contactFid2(k)}`,
            });
            normals.push(mf.contactImpulse(k));
          }
        });
      });
    }
    const lambda = fitFrameLambda(header, after, pre, contacts, normals);
    return { bodies: after, pre, contacts, lambda, iterations, stepMs };
  };

  return {
    producer: { name: 'rapier3d-compat', version },
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
    notes: m.notes,
    step,
    dispose: () => world.free(),
  };
}

export const rapierEngine: PeerEngine = { name: 'rapier', create };
