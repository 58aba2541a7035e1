/**
 * Jolt recorder (jolt-physics, the WebAssembly build of Jorrit Rouwe's JoltPhysics; a worked example for engine
 * authors). Jolt is run in its usual y-up world; everything is converted to z-up on the way out (convert.ts:
 * (x, y, z) ↦ (x, −z, y), q ↦ (cos 45°, sin 45°, 0, 0) ⊗ q), quaternions read as [x, y, z, w]. A plane is a
 * large static box whose top face is the plane.
 *
 * Step order (Jolt PhysicsSystem::Update): collision detection at the start-of-step poses (the contact
 * listener sees the manifolds here), gravity added to v (damping 0 here), mNumVelocitySteps sequential-
 * impulse iterations (warm-started), positions integrated, then mNumPositionSteps position iterations
 * with factor mBaumgarte that move bodies but never touch v. So pre = v_prev + h·g at the previous pose
 * and post − pre is the contact impulses' Δv exactly.
 *
 * λ: the JS binding does not expose contact impulses. λ is FITTED to Jolt's own velocity change: least
 * squares J M⁻¹Jᵀ λ = J Δv with λn ≥ 0 (fitLambda.ts), one problem per frame (islands share no body, so
 * this is the per-island fit); header solver.lambdaSource says so. With 4 corners per face the fit is not
 * unique: λ explains Δv exactly but may distribute it over the corners unlike Jolt.
 * The manifold normal is "the direction to move body 2 out of collision": the impulse pushes body 2 along
 * +n, so a = body 2 (swapped when body 2 is static); per-point depth (p1 − p2)·n. μ and e are Jolt's own
 * combination (√(μ₁μ₂), max(e₁, e₂)), read from the contact settings.
 *
 * Stabilisation off: mBaumgarte = 0 and mNumPositionSteps = 0 (no position correction).
 */
import type { RecordedBodyState, RecordedContact } from '../../format/recording.js';
import type { Vec3 } from '../../engine/index.js';
import { contactFrame, preFromBefore, staticState, xyzwToWxyz, yUpQuatToZUp, yUpToZUp, zUpQuatToYUp, zUpToYUp } from './convert.js';
import { loadEngine } from './enginePackages.js';
import { fitFrameLambda, sceneHeader } from './fitFrame.js';
import type { EngineScene, EngineSimulation, EngineStep, PeerEngine, RecorderOptions } from './types.js';

// biome-ignore lint/suspicious/noExplicitAny: the Emscripten binding's types are not bundled
type JoltModule = any;

export const JOLT_DEFAULT_VELOCITY_STEPS = 10;
/** Half thickness (m) of the static box that stands for a plane, and its least half size across. */
const PLANE_HALF_THICKNESS = 1;
const PLANE_MIN_HALF_SIZE = 50;

function planeHalfSize(scene: EngineScene): number {
  let r = 0;
  for (const b of scene.bodies) if (!b.static) r = Math.max(r, Math.hypot(...b.x) + 10);
  return Math.max(PLANE_MIN_HALF_SIZE, r);
}

/** The half-way rotation (w, x, y, z) carrying +y onto the unit vector n (Jolt's up axis onto a plane's normal). */
function rotationFromY(n: Vec3): [number, number, number, number] {
  const w = 1 + n[1];
  if (w < 1e-12) return [0, 0, 0, 1];
  const x = n[2],
    z = -n[0];
  const s = Math.hypot(w, x, z);
  return [w / s, x / s, 0, z / s];
}

function materialNotes(scene: EngineScene): string[] {
  if (scene.uniform || (scene.frictionCombine === 'geometric-mean' && scene.restitutionCombine === 'max')) return [];
  return [
    `Jolt combines friction by √(μ₁μ₂) and restitution by max(e₁, e₂); the scenario combines them by ${scene.frictionCombine} and ${scene.restitutionCombine}: the recorded μ and e are Jolt's`,
  ];
}

const STATIC_LAYER = 0,
  MOVING_LAYER = 1;

/** Jolt's physics system for a scene: two object layers (static, moving), gravity, and the velocity and position steps. */
function joltSystem(J: JoltModule, scene: EngineScene, iterations: number, stab: boolean) {
  const settings = new J.JoltSettings();
  const pairs = new J.ObjectLayerPairFilterTable(2);
  pairs.EnableCollision(STATIC_LAYER, MOVING_LAYER);
  pairs.EnableCollision(MOVING_LAYER, MOVING_LAYER);
  const bp = new J.BroadPhaseLayerInterfaceTable(2, 2);
  bp.MapObjectToBroadPhaseLayer(STATIC_LAYER, new J.BroadPhaseLayer(0));
  bp.MapObjectToBroadPhaseLayer(MOVING_LAYER, new J.BroadPhaseLayer(1));
  settings.mObjectLayerPairFilter = pairs;
  settings.mBroadPhaseLayerInterface = bp;
  settings.mObjectVsBroadPhaseLayerFilter = new J.ObjectVsBroadPhaseLayerFilterTable(bp, 2, pairs, 2);
  const jolt = new J.JoltInterface(settings);
  J.destroy(settings);
  const system = jolt.GetPhysicsSystem();
  const gy = zUpToYUp(scene.gravity);
  system.SetGravity(new J.Vec3(gy[0], gy[1], gy[2]));
  const ps = system.GetPhysicsSettings();
  ps.mNumVelocitySteps = iterations;
  if (!stab) {
    ps.mBaumgarte = 0;
    ps.mNumPositionSteps = 0;
  }
  ps.mAllowSleeping = false;
  const params = {
    baumgarte: ps.mBaumgarte as number,
    positionSteps: ps.mNumPositionSteps as number,
    slop: ps.mPenetrationSlop as number,
    speculative: ps.mSpeculativeContactDistance as number,
    minRestitution: ps.mMinVelocityForRestitution as number,
  };
  system.SetPhysicsSettings(ps);
  return { jolt, system, params };
}

/** The scene's bodies added to Jolt's world, in the scene's order (a plane as the top face of a large static box). */
function addBodies(J: JoltModule, bi: JoltModule, scene: EngineScene): JoltModule[] {
  const half = planeHalfSize(scene);
  return scene.bodies.map((d) => {
    let shape: unknown, xy: Vec3, qy: readonly [number, number, number, number];
    if ('plane' in d.shape) {
      // a box whose top face (+y in Jolt's frame) is the plane n·x = offset (the ground: unrotated, centred 1 m below)
      const n = zUpToYUp(d.shape.plane.normal),
        c = d.shape.plane.offset - PLANE_HALF_THICKNESS;
      shape = new J.BoxShapeSettings(new J.Vec3(half, PLANE_HALF_THICKNESS, half), 0).Create().Get();
      xy = [n[0] * c, n[1] * c, n[2] * c];
      qy = rotationFromY(n);
    } else {
      shape =
        'box' in d.shape
          ? new J.BoxShapeSettings(new J.Vec3(...d.shape.box.halfExtents), 0).Create().Get()
          : new J.SphereShapeSettings(d.shape.sphere.radius).Create().Get();
      xy = zUpToYUp(d.x);
      qy = zUpQuatToYUp(d.q);
    }
    const motion = d.static ? J.EMotionType_Static : J.EMotionType_Dynamic;
    const s = new J.BodyCreationSettings(
      shape,
      new J.RVec3(xy[0], xy[1], xy[2]),
      new J.Quat(qy[1], qy[2], qy[3], qy[0]),
      motion,
      d.static ? STATIC_LAYER : MOVING_LAYER,
    );
    if (!d.static) {
      s.mOverrideMassProperties = J.EOverrideMassProperties_CalculateInertia;
      s.mMassPropertiesOverride.mMass = d.mass;
      s.mLinearDamping = 0;
      s.mAngularDamping = 0;
      s.mAllowSleeping = false;
    }
    s.mFriction = scene.uniform ? scene.uniform.mu : d.friction;
    s.mRestitution = scene.uniform ? scene.uniform.e : d.restitution;
    const b = bi.CreateBody(s);
    bi.AddBody(b.GetID(), d.static ? J.EActivation_DontActivate : J.EActivation_Activate);
    if (!d.static) {
      const v = zUpToYUp(d.v),
        w = zUpToYUp(d.w);
      b.SetLinearVelocity(new J.Vec3(v[0], v[1], v[2]));
      b.SetAngularVelocity(new J.Vec3(w[0], w[1], w[2]));
    }
    return b;
  });
}

/** A contact manifold as Jolt's listener reports it (z-up; b1, b2 the scene's body indices). */
interface Manifold {
  readonly b1: number;
  readonly b2: number;
  readonly n: Vec3;
  readonly p1: Vec3[];
  readonly p2: Vec3[];
  readonly mu: number;
  readonly e: number;
}

/** Collects the contact manifolds of each step during collision detection; `take()` hands them over and starts afresh. */
function listenContacts(J: JoltModule, system: JoltModule, all: readonly JoltModule[]): { take(): Manifold[] } {
  const index = new Map<number, number>(all.map((b, i) => [b.GetID().GetIndexAndSequenceNumber(), i] as const));
  let manifolds: Manifold[] = [];
  const listener = new J.ContactListenerJS();
  const onContact = (body1: number, body2: number, manifold: number, ioSettings: number): void => {
    const B1 = J.wrapPointer(body1, J.Body),
      B2 = J.wrapPointer(body2, J.Body);
    const m = J.wrapPointer(manifold, J.ContactManifold),
      cs = J.wrapPointer(ioSettings, J.ContactSettings);
    const nn = m.mWorldSpaceNormal;
    const n = yUpToZUp([nn.GetX(), nn.GetY(), nn.GetZ()]);
    const count = m.mRelativeContactPointsOn1.size();
    const p1: Vec3[] = [],
      p2: Vec3[] = [];
    for (let k = 0; k < count; k++) {
      const a = m.GetWorldSpaceContactPointOn1(k);
      p1.push(yUpToZUp([a.GetX(), a.GetY(), a.GetZ()]));
      const b = m.GetWorldSpaceContactPointOn2(k);
      p2.push(yUpToZUp([b.GetX(), b.GetY(), b.GetZ()]));
    }
    manifolds.push({
      b1: index.get(B1.GetID().GetIndexAndSequenceNumber())!,
      b2: index.get(B2.GetID().GetIndexAndSequenceNumber())!,
      n,
      p1,
      p2,
      mu: cs.mCombinedFriction,
      e: cs.mCombinedRestitution,
    });
  };
  listener.OnContactValidate = (): number => J.ValidateResult_AcceptAllContactsForThisBodyPair;
  listener.OnContactAdded = onContact;
  listener.OnContactPersisted = onContact;
  listener.OnContactRemoved = (): void => {
    /* nothing to record */
  };
  system.SetContactListener(listener);
  return {
    take: () => {
      const out = manifolds;
      manifolds = [];
      return out;
    },
  };
}

/** The recorded contacts of a step's manifolds: a = Jolt's body 2 (the impulse pushes it along +n) unless it is static. */
function recordedContacts(manifolds: readonly Manifold[], scene: EngineScene): RecordedContact[] {
  const contacts: RecordedContact[] = [];
  for (const m of manifolds) {
    const aIs2 = !scene.bodies[m.b2].static;
    const a = aIs2 ? m.b2 : m.b1,
      b = aIs2 ? m.b1 : m.b2,
      s = aIs2 ? 1 : -1;
    const frame = contactFrame([s * m.n[0], s * m.n[1], s * m.n[2]]);
    m.p1.forEach((p1, k) => {
      const p2 = m.p2[k];
      const depth = (p1[0] - p2[0]) * m.n[0] + (p1[1] - p2[1]) * m.n[1] + (p1[2] - p2[2]) * m.n[2];
      contacts.push({
        a,
        b,
        point: aIs2 ? p2 : p1,
        normal: frame.n,
        t1: frame.t1,
        t2: frame.t2,
        depth: Math.max(0, depth),
        mu: m.mu,
        e: m.e,
        feature: `${a}:${b}:${k}`,
      });
    });
  }
  return contacts;
}

/** The bodies' states in z-up (static bodies as the scene gives them). */
function bodyStates(all: readonly JoltModule[], scene: EngineScene): RecordedBodyState[] {
  return all.map((b, i) => {
    if (scene.bodies[i].static) return staticState(scene.bodies[i]);
    const x = b.GetCenterOfMassPosition(),
      xv = yUpToZUp([x.GetX(), x.GetY(), x.GetZ()]);
    const r = b.GetRotation(),
      q = yUpQuatToZUp(xyzwToWxyz(r.GetX(), r.GetY(), r.GetZ(), r.GetW()));
    const v = b.GetLinearVelocity(),
      vv = yUpToZUp([v.GetX(), v.GetY(), v.GetZ()]);
    const w = b.GetAngularVelocity(),
      wv = yUpToZUp([w.GetX(), w.GetY(), w.GetZ()]);
    return { x: xv, q, v: vv, w: wv };
  });
}

async function create(scene: EngineScene, options: RecorderOptions): Promise<EngineSimulation> {
  const { module, version } = await loadEngine('jolt');
  const J = module as JoltModule;
  const dt = scene.dt;
  const iterations = options.iterations ?? JOLT_DEFAULT_VELOCITY_STEPS;
  const { jolt, system, params } = joltSystem(J, scene, iterations, options.stabilization !== false);
  const all = addBodies(J, system.GetBodyInterface(), scene);
  const contacts = listenContacts(J, system, all);
  const header = sceneHeader(scene, 'jolt');

  const step = (): EngineStep => {
    const pre = preFromBefore(bodyStates(all, scene), scene.bodies, dt, scene.gravity);
    contacts.take();
    const t0 = performance.now();
    jolt.Step(dt, 1);
    const stepMs = performance.now() - t0;
    const after = bodyStates(all, scene);
    const recorded = recordedContacts(contacts.take(), scene);
    return { bodies: after, pre, contacts: recorded, lambda: fitFrameLambda(header, after, pre, recorded), iterations, stepMs };
  };

  return {
    producer: { name: 'jolt-physics', version },
    solver: {
      name: 'jolt sequential impulse',
      kind: 'iterative-fixed',
      maxIterations: iterations,
      baumgarte: false,
      erp: 0,
      slop: params.slop,
      restVelocityThreshold: params.minRestitution,
      'x-position-steps': params.positionSteps,
      'x-baumgarte-position-factor': params.baumgarte,
      'x-speculative-distance': params.speculative,
      'x-note': 'Jolt corrects penetration in a position pass after integration (factor x-baumgarte-position-factor); the velocity solve has no bias term',
    },
    lambdaOrigin: { normal: 'fitted', tangent: 'fitted' },
    lambdaSource:
      "fitted: the binding hides contact impulses; λ = argmin ‖M^½(M⁻¹Jᵀλ − Δv)‖ with λn ≥ 0 (normal equations J M⁻¹Jᵀλ = JΔv), Δv = post − pre of Jolt's own bodies, one problem per frame",
    preSource: 'v_prev + dt·g at the previous pose (Jolt adds gravity after collision detection, before the velocity solve)',
    notes: materialNotes(scene),
    step,
    dispose: () => {
      J.destroy(jolt);
    },
  };
}

export const joltEngine: PeerEngine = { name: 'jolt', create };
