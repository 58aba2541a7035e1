/**
 * MuJoCo recorder (mujoco-js, the official MuJoCo WebAssembly module; a worked example for engine authors).
 * MuJoCo is z-up with [w, x, y, z] quaternions already; a free joint's qvel holds the linear velocity in
 * the world frame and the angular velocity in the BODY frame, converted here with ω_w = R ω_b. Static bodies are
 * geoms of the world body (a plane: type "plane" with its z axis along the normal); each dynamic body has a free
 * joint, in the scene's order.
 *
 * Step order (mj_step, Euler integrator): forward dynamics at the current state (collision, constraint
 * forces f from the convex soft-contact problem, Todorov 2014), then v⁺ = v + h·M⁻¹(qfrc_smooth + Jᵀf) and
 * positions from v⁺. Gravity is the only smooth force on these bodies (their inertia is isotropic or diagonal in
 * the body frame and ω small, the gyroscopic term is negligible): pre = v_prev + h·g at the previous pose,
 * post − pre = M⁻¹Jᵀλ with λ = h·f.
 *
 * λ: each contact's force in its contact frame (normal, t1, t2), from efc_force and the pyramidal cone's
 * edges (contactForce below); λ = f·h. The frame normal points from geom1 to geom2 and the force pushes geom2
 * along it: a = geom2's body (swapped when that is static). The point is contact.pos, which MuJoCo's
 * contact Jacobian uses for both bodies. μ is the contact's own (MuJoCo takes the larger of the two geoms').
 *
 * Stabilisation: MuJoCo contacts are soft: the reference acceleration a_ref = −b·v − k·r (solref, default
 * timeconst 0.02 s, damping ratio 1) pushes overlaps apart. "Off" = solref in direct form (−k, −b) with
 * k ≈ 0 (no spring; the damping b = 2/timeconst kept). Restitution has no coefficient in MuJoCo: a scene with
 * e > 0 sets the damping ratio ζ of the contact spring so that a free impact's coefficient exp(−ζπ/√(1−ζ²))
 * equals e (the underdamped oscillator's amplitude ratio over half a period).
 */
import type { RecordedBodyState, RecordedContact } from '../../format/recording.js';
import { quatToMat3 } from '../../engine/index.js';
import type { Vec3 } from '../../engine/index.js';
import { contactFrame, impulseInFrame, preFromBefore, staticState } from './convert.js';
import { loadEngine } from './enginePackages.js';
import type { EngineScene, EngineSimulation, EngineStep, PeerEngine, RecorderOptions } from './types.js';

// biome-ignore lint/suspicious/noExplicitAny: the Emscripten binding's types are not bundled
type MujocoModule = any;

export const MUJOCO_DEFAULT_ITERATIONS = 100;
/** MuJoCo's default contact time constant (s). */
export const MUJOCO_TIMECONST = 0.02;
/**
 * Time constant of emulated restitution: at 0.02 s (raised to 2·dt by MuJoCo's refsafe) with ζ = 0.2155 the
 * spring (ω = 1/(timeconst·ζ)) returns 1.8× the approach speed at dt = 1/60; at 0.05 s the free impact's rebound
 * ratio is 0.49 ≈ e (measured with mujoco-js 0.0.7).
 */
export const MUJOCO_BOUNCE_TIMECONST = 0.05;
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
const list = (v: readonly number[]): string => v.join(' ');

/** The MJCF of the scene: static geoms of the world first (scene order), then one body with a free joint per dynamic body. */
function sceneXml(scene: EngineScene, iterations: number, solref: string, mu: number): { xml: string; geomBody: number[] } {
  const geomBody: number[] = [];
  const geom = (d: EngineScene['bodies'][number], i: number): string => {
    const friction = scene.uniform ? '' : ` friction="${d.friction} 0 0"`;
    if ('plane' in d.shape) {
      const n = d.shape.plane.normal,
        o = d.shape.plane.offset;
      return `<geom name="g${i}" type="plane" size="0 0 1" pos="${list(n.map((x) => x * o))}" zaxis="${list(n)}"${friction}/>`;
    }
    const size = 'box' in d.shape ? list(d.shape.box.halfExtents) : String(d.shape.sphere.radius);
    const type = 'box' in d.shape ? 'box' : 'sphere';
    return d.static
      ? `<geom name="g${i}" type="${type}" size="${size}" pos="${list(d.x)}" quat="${list(d.q)}"${friction}/>`
      : `<geom name="g${i}" type="${type}" size="${size}" mass="${d.mass}"${friction}/>`;
  };
  let statics = '',
    bodies = '';
  scene.bodies.forEach((d, i) => {
    if (d.static) {
      statics += geom(d, i);
      geomBody.push(i);
    }
  });
  scene.bodies.forEach((d, i) => {
    if (d.static) return;
    bodies += `<body name="b${i}" pos="${list(d.x)}" quat="${list(d.q)}"><freejoint/>${geom(d, i)}</body>`;
    geomBody.push(i);
  });
  const g = scene.gravity;
  const xml =
    `<mujoco><option timestep="${scene.dt}" gravity="${list(g)}" iterations="${iterations}" integrator="Euler"/>` +
    `<default><geom friction="${mu} 0 0" condim="3" solref="${solref}"/></default>` +
    `<worldbody>${statics}${bodies}</worldbody></mujoco>`;
  return { xml, geomBody };
}

async function create(scene: EngineScene, options: RecorderOptions): Promise<EngineSimulation> {
  const { module, version } = await loadEngine('mujoco');
  const mj = module as MujocoModule;
  const dt = scene.dt;
  const iterations = options.iterations ?? MUJOCO_DEFAULT_ITERATIONS;
  const stab = options.stabilization !== false;
  const notes: string[] = [];
  const eMax = Math.max(0, ...scene.bodies.map((b) => b.restitution));
  const e = scene.uniform ? scene.uniform.e : eMax;
  if (!scene.uniform)
    notes.push(`MuJoCo takes the larger friction of two geoms and has no restitution coefficient: the contact spring is set for e = ${e} everywhere`);
  const zeta = dampingRatioForRestitution(e);
  const timeconst = e > 0 ? MUJOCO_BOUNCE_TIMECONST : MUJOCO_TIMECONST;
  // Direct form (−k, −b): k ≈ 0 removes the spring; b = 2/timeconst is the damping MuJoCo derives from
  // (timeconst, dampratio) (MuJoCo documentation, "Solver parameters": b = 2/(d_width·timeconst)).
  const solref = stab ? `${timeconst} ${zeta}` : `-1e-9 -${2 / timeconst}`;
  const { xml, geomBody } = sceneXml(scene, iterations, solref, scene.uniform ? scene.uniform.mu : 0.5);
  const file = `/contact_lens_model_${modelCount++}.xml`;
  mj.FS.writeFile(file, xml);
  const model = mj.MjModel.loadFromXML(file);
  const data = new mj.MjData(model);
  const dynamic = scene.bodies.flatMap((b, i) => (b.static ? [] : [i]));
  dynamic.forEach((si, k) => {
    // qvel of free joint k: [v (world), ω (body frame)]; the scene's ω is in the world frame.
    const b = scene.bodies[si];
    const R = quatToMat3(b.q);
    const wb = [0, 1, 2].map((r) => b.w[0] * R[r] + b.w[1] * R[3 + r] + b.w[2] * R[6 + r]);
    const qv = data.qvel;
    for (let r = 0; r < 3; r++) {
      qv[6 * k + r] = b.v[r];
      qv[6 * k + 3 + r] = wb[r];
    }
  });
  /**
   * A contact's force in its frame (normal, t1, t2) from efc_force. Pyramidal cone (MuJoCo's default): the
   * 2(dim − 1) rows are the edges n ± μ_j t_j with forces f±_j ≥ 0, so f_n = Σ f, f_tj = μ_j (f+_j − f−_j)
   * (MuJoCo documentation, "Computation: contact pyramids"). (mj_contactForce would do the same, but its
   * embind wrapper copies the output array in and does not copy it back.)
   */
  // biome-ignore lint/suspicious/noExplicitAny: an embind struct
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
    const out: RecordedBodyState[] = scene.bodies.map(staticState);
    dynamic.forEach((si, k) => {
      const q = [qp[7 * k + 3], qp[7 * k + 4], qp[7 * k + 5], qp[7 * k + 6]] as const;
      const R = quatToMat3(q);
      const wb = [qv[6 * k + 3], qv[6 * k + 4], qv[6 * k + 5]];
      const w = [0, 1, 2].map((r) => R[3 * r] * wb[0] + R[3 * r + 1] * wb[1] + R[3 * r + 2] * wb[2]) as unknown as Vec3;
      out[si] = { x: [qp[7 * k], qp[7 * k + 1], qp[7 * k + 2]], q, v: [qv[6 * k], qv[6 * k + 1], qv[6 * k + 2]], w };
    });
    return out;
  };

  const step = (): EngineStep => {
    const before = state();
    const pre = preFromBefore(before, scene.bodies, dt, scene.gravity);
    const t0 = performance.now();
    mj.mj_step(model, data);
    const stepMs = performance.now() - t0;
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
      const b2 = geomBody[c.geom2 as number],
        b1 = geomBody[c.geom1 as number];
      const aIs2 = !scene.bodies[b2].static;
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
        mu: scene.uniform ? scene.uniform.mu : (c.friction[0] as number),
        e: scene.uniform ? scene.uniform.e : e,
        feature: `${a}:${b}:${k}`,
      });
      c.delete?.();
    }
    const niter = data.solver_niter[0] as number;
    return { bodies: state(), pre, contacts, lambda, iterations: niter, converged: niter < iterations, stepMs };
  };

  return {
    producer: { name: 'mujoco-js', version },
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
      'x-restitution': `no coefficient in MuJoCo: contact damping ratio ${zeta.toFixed(4)} gives e = ${e} for a free impact`,
    },
    lambdaOrigin: { normal: 'solver', tangent: 'solver' },
    lambdaSource: "engine: efc_force of the contact's pyramid edges, converted to the contact frame (f_n = Σf, f_t = μ(f+ − f−)), × dt",
    preSource: 'v_prev + dt·g at the previous pose (mj_step computes contact forces at the current state, then integrates v with Euler)',
    notes,
    step,
    dispose: () => {
      data.delete();
      model.delete();
    },
  };
}

export const mujocoEngine: PeerEngine = { name: 'mujoco', create };
