/**
 * MuJoCo recorder (mujoco-js, the official MuJoCo WebAssembly module; worked example for engine authors).
 * MuJoCo is z-up with [w, x, y, z] quaternions already; a free joint's qvel holds the linear velocity in
 * the world frame and the angular velocity in the BODY frame, converted here with ω_w = R ω_b.
 *
 * Step order (mj_step, Euler integrator): forward dynamics at the current state (collision, constraint
 * forces f from the convex soft-contact problem, Todorov 2014), then v⁺ = v + h·M⁻¹(qfrc_smooth + Jᵀf) and
 * positions from v⁺. Gravity is the only smooth force on these bodies (their inertia is isotropic, so no
 * gyroscopic term): pre = v_prev + h·g at the previous pose, post − pre = M⁻¹Jᵀλ with λ = h·f.
 *
 * λ: each contact's force in its contact frame (normal, t1, t2), from efc_force and the pyramidal cone's
 * edges (contactForce below); λ = f·h. The frame normal points from geom1 to geom2 and the force pushes geom2
 * along it: a = geom2's body (swapped when that is the world). The point is contact.pos, which MuJoCo's
 * contact Jacobian uses for both bodies.
 *
 * Stabilisation: MuJoCo contacts are soft: the reference acceleration a_ref = −b·v − k·r (solref, default
 * timeconst 0.02 s, damping ratio 1) pushes overlaps apart. "Off" = solref in direct form (−k, −b) with
 * k ≈ 0 (no spring; the damping b = 2/timeconst kept). Without the spring nothing bounces. Restitution has no coefficient in MuJoCo: the bounce
 * scene sets the damping ratio ζ of the contact spring so that a free impact's coefficient
 * exp(−ζπ/√(1−ζ²)) equals e (the underdamped oscillator's amplitude ratio over half a period).
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecordedBodyState, RecordedContact, RecordedPreState } from '../../src/format/recording.js';
import { quatToMat3 } from '../../src/engine/math/quat.js';
import type { Vec3 } from '../../src/engine/math/vec3.js';
import { contactFrame, impulseInFrame } from './convert.js';
import { packageVersion } from './packages.js';
import type { PeerScene } from './scenes.js';
import type { PeerEngine, PeerSimulation, PeerStep, RecorderOptions } from './types.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type MujocoModule = any;

export const MUJOCO_DEFAULT_ITERATIONS = 100;
/** MuJoCo's default contact time constant (s). */
export const MUJOCO_TIMECONST = 0.02;
/**
 * Time constant of the bounce's emulated restitution: at 0.02 s (raised to 2·dt by MuJoCo's refsafe) with
 * ζ = 0.2155 the spring (ω = 1/(timeconst·ζ)) returns 1.8× the approach speed at dt = 1/60; at 0.05 s the
 * free impact's rebound ratio is 0.49 ≈ e (measured with mujoco-js 0.0.7).
 */
export const MUJOCO_BOUNCE_TIMECONST = 0.05;

let loaded: Promise<MujocoModule> | undefined;
async function loadMujoco(): Promise<MujocoModule> {
  loaded ??= (async () => {
    const req = createRequire(__filename);
    const file = path.join(path.dirname(req.resolve('mujoco-js/package.json')), 'dist', 'mujoco_wasm.js');
    const mod = await import(pathToFileURL(file).href);
    return await (mod.default as () => Promise<MujocoModule>)();
  })();
  return loaded;
}

/** MuJoCo's default solimp d_max (impedance at depths beyond the solimp width). */
const MUJOCO_DMAX = 0.95;

/** The recorder's solref as format 1.1 soft-contact parameters per unit effective mass (MuJoCo docs, "Solver parameters"). */
export function mujocoSoft(stab: boolean, timeconst: number, zeta: number, dt: number): { k: number; c: number } {
  if (!stab) return { k: 1e-9 / MUJOCO_DMAX, c: 2 / timeconst / MUJOCO_DMAX };
  const tau = Math.max(timeconst, 2 * dt);
  return { k: 1 / (MUJOCO_DMAX * tau * tau * zeta * zeta), c: 2 / (MUJOCO_DMAX * tau) };
}

/** Damping ratio ζ whose free impact has restitution e: e = exp(−ζπ/√(1−ζ²)). */
export function dampingRatioForRestitution(e: number): number {
  if (!(e > 0)) return 1;
  const l = Math.log(e);
  return -l / Math.sqrt(Math.PI * Math.PI + l * l);
}

let modelCount = 0;

async function create(scene: PeerScene, options: RecorderOptions): Promise<PeerSimulation> {
  const mj = await loadMujoco();
  const dt = scene.dt;
  const iterations = options.iterations ?? MUJOCO_DEFAULT_ITERATIONS;
  const stab = options.stabilization !== false;
  const zeta = dampingRatioForRestitution(scene.e);
  const timeconst = scene.e > 0 ? MUJOCO_BOUNCE_TIMECONST : MUJOCO_TIMECONST;
  // Direct form (−k, −b): k ≈ 0 removes the spring; b = 2/timeconst is the damping MuJoCo derives from
  // (timeconst, dampratio) (MuJoCo documentation, "Solver parameters": b = 2/(d_width·timeconst)).
  const solref = stab ? `${timeconst} ${zeta}` : `-1e-9 -${2 / timeconst}`;
  const g = scene.gravity;
  const bodies = scene.bodies
    .map((b) => {
      const geom = 'box' in b.shape ? `type="box" size="${b.shape.box.halfExtents.join(' ')}"` : `type="sphere" size="${b.shape.sphere.radius}"`;
      return `<body name="${b.name}" pos="${b.x.join(' ')}" quat="${b.q.join(' ')}"><freejoint/><geom ${geom} mass="${b.mass}"/></body>`;
    })
    .join('');
  const xml =
    `<mujoco><option timestep="${dt}" gravity="${g.join(' ')}" iterations="${iterations}" integrator="Euler"/>` +
    `<default><geom friction="${scene.mu} 0 0" condim="3" solref="${solref}"/></default>` +
    `<worldbody><geom type="plane" size="0 0 1"/>${bodies}</worldbody></mujoco>`;
  const file = `/peer_model_${modelCount++}.xml`;
  mj.FS.writeFile(file, xml);
  const model = mj.MjModel.loadFromXML(file);
  const data = new mj.MjData(model);
  scene.bodies.forEach((b, i) => {
    // qvel of free joint i: [v (world), ω (body frame)]; initial ω is given in the world frame.
    const R = quatToMat3(b.q);
    const wb = [0, 1, 2].map((k) => b.w[0] * R[k] + b.w[1] * R[3 + k] + b.w[2] * R[6 + k]);
    const qv = data.qvel;
    for (let k = 0; k < 3; k++) {
      qv[6 * i + k] = b.v[k];
      qv[6 * i + 3 + k] = wb[k];
    }
  });
  const N = scene.bodies.length;
  /**
   * A contact's force in its frame (normal, t1, t2) from efc_force. Pyramidal cone (MuJoCo's default): the
   * 2(dim − 1) rows are the edges n ± μ_j t_j with forces f±_j ≥ 0, so f_n = Σ f, f_tj = μ_j (f+_j − f−_j)
   * (MuJoCo documentation, "Computation: contact pyramids"). (mj_contactForce would do the same, but its
   * embind wrapper copies the output array in and does not copy it back.)
   */
  const contactForce = (c: any): [number, number, number] => {
    const adr = c.efc_address as number;
    if (adr < 0) return [0, 0, 0];
    const ef = data.efc_force,
      mu = c.friction;
    const out: [number, number, number] = [0, 0, 0];
    for (let j = 0; j < 2; j++) {
      const fp = ef[adr + 2 * j],
        fm = ef[adr + 2 * j + 1];
      out[0] += fp + fm;
      out[1 + j] = mu[j] * (fp - fm);
    }
    return out;
  };

  const state = (): RecordedBodyState[] => {
    const qp = data.qpos,
      qv = data.qvel;
    const out: RecordedBodyState[] = [{ x: [0, 0, 0], q: [1, 0, 0, 0], v: [0, 0, 0], w: [0, 0, 0] }];
    for (let i = 0; i < N; i++) {
      const q = [qp[7 * i + 3], qp[7 * i + 4], qp[7 * i + 5], qp[7 * i + 6]] as const;
      const R = quatToMat3(q);
      const wb = [qv[6 * i + 3], qv[6 * i + 4], qv[6 * i + 5]];
      const w: Vec3 = [0, 1, 2].map((r) => R[3 * r] * wb[0] + R[3 * r + 1] * wb[1] + R[3 * r + 2] * wb[2]) as unknown as Vec3;
      out.push({ x: [qp[7 * i], qp[7 * i + 1], qp[7 * i + 2]], q, v: [qv[6 * i], qv[6 * i + 1], qv[6 * i + 2]], w });
    }
    return out;
  };

  const step = (): PeerStep => {
    const before = state();
    const pre: RecordedPreState[] = before.map((s, i) => (i === 0 ? s : { ...s, v: [s.v[0] + dt * g[0], s.v[1] + dt * g[1], s.v[2] + dt * g[2]] }));
    mj.mj_step(model, data);
    const contacts: RecordedContact[] = [];
    const lambda: number[] = [];
    for (let k = 0; k < data.ncon; k++) {
      const c = data.contact.get(k);
      const f = c.frame,
        p = c.pos;
      const n: Vec3 = [f[0], f[1], f[2]],
        t1: Vec3 = [f[3], f[4], f[5]],
        t2: Vec3 = [f[6], f[7], f[8]];
      const [fn, ft1, ft2] = contactForce(c);
      const P: Vec3 = [0, 1, 2].map((q) => dt * (fn * n[q] + ft1 * t1[q] + ft2 * t2[q])) as unknown as Vec3;
      // Typed-array views into WASM memory are re-read every time (memory growth detaches old views).
      const b2 = model.geom_bodyid[c.geom2] as number,
        b1 = model.geom_bodyid[c.geom1] as number;
      const aIs2 = b2 !== 0;
      const a = aIs2 ? b2 : b1,
        b = aIs2 ? b1 : b2,
        s = aIs2 ? 1 : -1;
      const frame = contactFrame([s * n[0], s * n[1], s * n[2]], [s * t1[0], s * t1[1], s * t1[2]]);
      lambda.push(...impulseInFrame([s * P[0], s * P[1], s * P[2]], frame));
      contacts.push({
        a,
        b,
        point: [p[0], p[1], p[2]],
        normal: frame.n,
        t1: frame.t1,
        t2: frame.t2,
        depth: Math.max(0, -c.dist),
        mu: scene.mu,
        e: scene.e,
        feature: `${a}:${b}:${k}`,
      });
      c.delete?.();
    }
    const niter = data.solver_niter[0] as number;
    return { bodies: state(), pre, contacts, lambda, iterations: niter, converged: niter < iterations };
  };

  return {
    producer: { name: 'mujoco-js', version: packageVersion('mujoco-js') },
    solver: {
      name: 'mujoco Newton (soft contacts, pyramidal cone)',
      kind: 'iterative-tolerance',
      maxIterations: iterations,
      tolerance: model.opt.tolerance,
      // No Baumgarte/ERP bias: the push-out comes from the soft-contact spring (x-soft-contact), which an
      // ERP would misdescribe; baumgarte: false keeps a reader from rebuilding b with a default ERP.
      baumgarte: false,
      slop: 0,
      restVelocityThreshold: 0,
      ...(stab ? { contactModel: 'soft' } : {}),
      // format 1.1 canonical soft-contact parameters (docs/recording-format.md "Soft contacts"): solref
      // (τ, ζ) with τ raised to 2·dt (refsafe) and the default solimp's d_max = 0.95 at depths above its 1 mm
      // width: k = 1/(d_max·τ²·ζ²), c = 2/(d_max·τ); the direct form (−K, −B): k = K/d_max, c = B/d_max
      soft: mujocoSoft(stab, timeconst, zeta, dt),
      'x-soft-contact': stab ? 'spring-damper (solref timeconst, dampratio; MuJoCo raises timeconst to at least 2·dt)' : 'damper only (no spring)',
      'x-solref': solref,
      'x-restitution': `no coefficient in MuJoCo: contact damping ratio ${zeta.toFixed(4)} gives e = ${scene.e} for a free impact`,
    },
    lambdaOrigin: { normal: 'solver', tangent: 'solver' },
    lambdaSource: "engine: efc_force of the contact's pyramid edges, converted to the contact frame (f_n = Σf, f_t = μ(f+ − f−)), × dt",
    preSource: 'v_prev + dt·g at the previous pose (mj_step computes contact forces at the current state, then integrates v with Euler)',
    step,
    dispose: () => {
      data.delete();
      model.delete();
    },
  };
}

export const mujocoEngine: PeerEngine = { name: 'mujoco', create };
