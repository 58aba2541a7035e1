/**
 * Jolt recorder (jolt-physics, the WebAssembly build of Jorrit Rouwe's JoltPhysics; worked example for
 * engine authors). Jolt is run in its usual y-up world; everything is converted to z-up on the way out
 * (convert.ts: (x, y, z) ↦ (x, −z, y), q ↦ (cos 45°, sin 45°, 0, 0) ⊗ q), quaternions read as [x, y, z, w].
 *
 * Step order (Jolt PhysicsSystem::Update): collision detection at the start-of-step poses (the contact
 * listener sees the manifolds here), gravity added to v (damping 0 here), mNumVelocitySteps sequential-
 * impulse iterations (warm-started), positions integrated, then mNumPositionSteps position iterations
 * with factor mBaumgarte that move bodies but never touch v. So pre = v_prev + h·g at the previous pose
 * and post − pre is the contact impulses' Δv exactly.
 *
 * λ: the JS binding does not expose contact impulses. λ is FITTED to Jolt's own velocity change: least
 * squares J M⁻¹Jᵀ λ = J Δv with λn ≥ 0 (fitLambda.ts), one problem per frame (islands share no body, so
 * this is the per-island fit); header x-lambda-source says so. With 4 corners per face the fit is not
 * unique: λ explains Δv exactly but may distribute it over the corners unlike Jolt.
 * The manifold normal is "the direction to move body 2 out of collision": the impulse pushes body 2 along
 * +n, so a = body 2 (swapped when body 2 is the ground); per-point depth (p1 − p2)·n.
 *
 * Stabilisation off: mBaumgarte = 0 and mNumPositionSteps = 0 (no position correction).
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecordedBodyState, RecordedContact, RecordedPreState } from '../../src/format/recording.js';
import type { Vec3 } from '../../src/engine/math/vec3.js';
import { contactFrame, xyzwToWxyz, yUpQuatToZUp, yUpToZUp, zUpQuatToYUp, zUpToYUp } from './convert.js';
import { fitFrameLambda, peerFitHeader } from './fitFrame.js';
import { packageVersion } from './packages.js';
import type { PeerScene } from './scenes.js';
import type { PeerEngine, PeerSimulation, PeerStep, RecorderOptions } from './types.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type JoltModule = any;

export const JOLT_DEFAULT_VELOCITY_STEPS = 10;

let loaded: Promise<JoltModule> | undefined;
async function loadJolt(): Promise<JoltModule> {
  loaded ??= (async () => {
    // The wasm-compat build embeds its WASM; imported by file URL (the package is ESM-only).
    const req = createRequire(__filename);
    const main = req.resolve('jolt-physics/package.json');
    const file = path.join(path.dirname(main), 'dist', 'jolt-physics.wasm-compat.js');
    const mod = await import(pathToFileURL(file).href);
    return await (mod.default as () => Promise<JoltModule>)();
  })();
  return loaded;
}

async function create(scene: PeerScene, options: RecorderOptions): Promise<PeerSimulation> {
  const J = await loadJolt();
  const dt = scene.dt;
  const iterations = options.iterations ?? JOLT_DEFAULT_VELOCITY_STEPS;
  const stab = options.stabilization !== false;
  const STATIC_LAYER = 0,
    MOVING_LAYER = 1;
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
  const bi = system.GetBodyInterface();
  const gy = zUpToYUp(scene.gravity);
  system.SetGravity(new J.Vec3(gy[0], gy[1], gy[2]));
  const ps = system.GetPhysicsSettings();
  ps.mNumVelocitySteps = iterations;
  if (!stab) {
    ps.mBaumgarte = 0;
    ps.mNumPositionSteps = 0;
  }
  ps.mAllowSleeping = false;
  const baumgarte = ps.mBaumgarte,
    positionSteps = ps.mNumPositionSteps,
    slop = ps.mPenetrationSlop;
  const speculative = ps.mSpeculativeContactDistance,
    minRestitution = ps.mMinVelocityForRestitution;
  system.SetPhysicsSettings(ps);

  const groundShape = new J.BoxShapeSettings(new J.Vec3(50, 1, 50), 0).Create().Get();
  const gs = new J.BodyCreationSettings(groundShape, new J.RVec3(0, -1, 0), new J.Quat(0, 0, 0, 1), J.EMotionType_Static, STATIC_LAYER);
  gs.mFriction = scene.mu;
  gs.mRestitution = scene.e;
  const ground = bi.CreateBody(gs);
  bi.AddBody(ground.GetID(), J.EActivation_DontActivate);
  const bodies = scene.bodies.map((d) => {
    const shape =
      'box' in d.shape
        ? new J.BoxShapeSettings(new J.Vec3(...d.shape.box.halfExtents), 0).Create().Get()
        : new J.SphereShapeSettings(d.shape.sphere.radius).Create().Get();
    const x = zUpToYUp(d.x),
      q = zUpQuatToYUp(d.q);
    const s = new J.BodyCreationSettings(shape, new J.RVec3(x[0], x[1], x[2]), new J.Quat(q[1], q[2], q[3], q[0]), J.EMotionType_Dynamic, MOVING_LAYER);
    s.mOverrideMassProperties = J.EOverrideMassProperties_CalculateInertia;
    s.mMassPropertiesOverride.mMass = d.mass;
    s.mFriction = scene.mu;
    s.mRestitution = scene.e;
    s.mLinearDamping = 0;
    s.mAngularDamping = 0;
    s.mAllowSleeping = false;
    const b = bi.CreateBody(s);
    bi.AddBody(b.GetID(), J.EActivation_Activate);
    const v = zUpToYUp(d.v),
      w = zUpToYUp(d.w);
    b.SetLinearVelocity(new J.Vec3(v[0], v[1], v[2]));
    b.SetAngularVelocity(new J.Vec3(w[0], w[1], w[2]));
    return b;
  });
  const all = [ground, ...bodies];
  const index = new Map<number, number>(all.map((b, i) => [b.GetID().GetIndexAndSequenceNumber(), i] as const));

  // Contact manifolds of the current step, collected by the listener during collision detection.
  type Manifold = { b1: number; b2: number; n: Vec3; p1: Vec3[]; p2: Vec3[]; mu: number; e: number };
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

  const header = peerFitHeader(scene, 'jolt');
  const state = (): RecordedBodyState[] =>
    all.map((b, i) => {
      if (i === 0) return { x: [0, 0, 0], q: [1, 0, 0, 0], v: [0, 0, 0], w: [0, 0, 0] };
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

  const step = (): PeerStep => {
    const before = state();
    const g = scene.gravity;
    const pre: RecordedPreState[] = before.map((s, i) => (i === 0 ? s : { ...s, v: [s.v[0] + dt * g[0], s.v[1] + dt * g[1], s.v[2] + dt * g[2]] }));
    manifolds = [];
    jolt.Step(dt, 1);
    const after = state();
    const contacts: RecordedContact[] = [];
    for (const m of manifolds) {
      const aIs2 = m.b2 !== 0;
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
    return { bodies: after, pre, contacts, lambda: fitFrameLambda(header, after, pre, contacts), iterations };
  };

  return {
    producer: { name: 'jolt-physics', version: packageVersion('jolt-physics') },
    solver: {
      name: 'jolt sequential impulse',
      kind: 'iterative-fixed',
      maxIterations: iterations,
      baumgarte: false,
      erp: 0,
      slop,
      restVelocityThreshold: minRestitution,
      'x-position-steps': positionSteps,
      'x-baumgarte-position-factor': baumgarte,
      'x-speculative-distance': speculative,
      'x-note': 'Jolt corrects penetration in a position pass after integration (factor x-baumgarte-position-factor); the velocity solve has no bias term',
    },
    lambdaOrigin: { normal: 'fitted', tangent: 'fitted' },
    lambdaSource:
      "fitted: the binding hides contact impulses; λ = argmin ‖M^½(M⁻¹Jᵀλ − Δv)‖ with λn ≥ 0 (normal equations J M⁻¹Jᵀλ = JΔv), Δv = post − pre of Jolt's own bodies, one problem per frame",
    preSource: 'v_prev + dt·g at the previous pose (Jolt adds gravity after collision detection, before the velocity solve)',
    step,
    dispose: () => {
      J.destroy(jolt);
    },
  };
}

export const joltEngine: PeerEngine = { name: 'jolt', create };
