/**
 * The energy ledger of one recorded frame, per contact and channel, from the data alone (docs/physics.md,
 * "Energy ledger").
 *
 * With v⁺ = v⁻ + M⁻¹Jᵀλ the kinetic energy change of the contact impulse is exactly
 * ½(v⁺ + v⁻)ᵀM(v⁺ − v⁻) = Σ_rows λᵢ·½(ġᵢ⁻ + ġᵢ⁺) (ġ = Jv; Stewart & Trinkle 1996, the work of an impulse is
 * the impulse times the mean velocity), so every row's work belongs to one contact and the per-contact sums
 * add up to the island's kinetic energy change. The frame's total energy change splits exactly into
 *   ΔE = Σ_contacts (normal work + friction work) + manifold rows + external + position correction + integrator + unexplained
 * manifold     = the work of format 1.1 manifold friction and twist rows (extraRows.ts);
 * external     = the work of format 1.1 external impulses (forces besides gravity × Δt): energy from outside;
 * position correction = −Σ m g·(x⁺ − x_solve − v⁺Δt): potential energy of a displacement the velocities do not
 *                explain (split impulse, a non-linear Gauss–Seidel position solve; Catto GDC 2005/2014);
 * integrator   = the rest: (KE(v⁻) − KE(previous frame)) + ΔPE of the velocity-driven motion + (KE(v⁺) at
 *                the end pose − at the solve pose) — the velocity update by gravity/external forces and the
 *                position update of the time integrator (semi-implicit Euler in free fall: −½mg²Δt² per step);
 * unexplained  = KE(v⁺) − KE(v⁻) − Σ contact work at the solve pose: a velocity change the recorded λ does
 *                not explain (0 to rounding for a consistent recording; the consistency check names the cause).
 *
 * Each contact's normal work is then split against the restitution law (Newton's law, target ġ⁺ = −e·ġ⁻
 * above the rest-velocity threshold, 0 below it) and the stabilisation the engine uses (Baumgarte/ERP bias
 * (ERP/Δt)·max(0, depth − slop), Catto GDC 2005; or, when nothing is declared, at most the push-out depth/Δt
 * of a one-step position correction or a soft-contact spring, recognised from the data):
 *   normal work = law part + stabilisation part + excess part, with E(x) = ½m·x² + m·p·x the energy a
 *   separation speed x carries (kinetic, and potential through the position update x⁺ = x + v⁺Δt:
 *   p = −Δt·g·n over the contact's dynamic bodies; m = 1/A_nn), t the law target, s the stabilisation speed:
 *   stabilisation = E(min(ġ⁺, t + s)) − E(t) and stabilisation + excess = E(ġ⁺) − E(t) when ġ⁺ > t.
 */
import type { RecordedFrame, RecordingHeader, SoftContactParameters } from '../format/recording.js';
import type { ManifoldLedger } from './extraRows.js';
import { hypot2Exact, hypot4, type Quat, quatToMat3, type Vec3 } from '../engine/index.js';
import type { KinematicsColumns } from './contactKinematics.js';

/** Where a contact's stabilisation speed comes from. */
export type StabilisationSource = 'declared-bias' | 'declared-none' | 'declared-soft' | 'inferred';

export interface StabilisationModel {
  readonly source: 'declared-bias' | 'declared-none' | 'declared-soft' | 'undeclared';
  readonly erp: number;
  readonly slop: number;
  /** Format 1.1 header solver.soft: the spring–damper of every contact without its own `soft`. */
  readonly soft?: SoftContactParameters;
}

/**
 * The separation speed a soft contact's spring–damper can give in one step (ẍ = k·d − c·ẋ per unit effective
 * mass; docs/recording-format.md "Soft contacts"): an explicit step from the approach speed a = −ġn⁻ gives
 * ġn⁺ = h·k·d + (h·c − 1)·a, so at most h·k·d + max(0, h·c − 1)·a — damping stronger than 1/h reverses the
 * approach (MuJoCo's reference acceleration a_ref = −b·v − k·r, Todorov 2014). The implicit "soft step" of
 * Box2D v3 (Catto, "Solver2D", 2024) gives (h·k·d − a)/(1 + h·c + h²·k), below it.
 */
export function softPushSpeed(p: SoftContactParameters, depth: number, dt: number, approach = 0): number {
  return dt * p.k * Math.max(0, depth) + Math.max(0, dt * p.c - 1) * Math.max(0, approach);
}

/** Header solver.soft when well formed (the reader validated it), else undefined. */
function headerSoft(s: { readonly [k: string]: unknown }): SoftContactParameters | undefined {
  const o = s.soft as { k?: unknown; c?: unknown } | undefined;
  return o && typeof o === 'object' && typeof o.k === 'number' && typeof o.c === 'number' ? { k: o.k, c: o.c } : undefined;
}

/** Reads the header's declared position correction: our recordings and most engines write erp/slop. */
export function stabilisationModel(header: RecordingHeader): StabilisationModel {
  const s = header.solver ?? { name: '' };
  const erp = typeof s.erp === 'number' && Number.isFinite(s.erp) ? s.erp : undefined;
  const slop = typeof s.slop === 'number' && Number.isFinite(s.slop) && s.slop >= 0 ? s.slop : 0;
  const soft = headerSoft(s);
  if (soft) return { source: 'declared-soft', erp: 0, slop: 0, soft };
  // soft contacts (spring–damper, e.g. MuJoCo's solref; Todorov 2014) push overlaps apart without a velocity
  // bias and without a per-step bound: any separation above the law is the spring's
  if (s.contactModel === 'soft' || (typeof s['x-soft-contact'] === 'string' && /^spring/i.test(s['x-soft-contact'])))
    return { source: 'declared-soft', erp: 0, slop: 0 };
  if (s.splitImpulse === true || s.baumgarte === false || erp === 0) return { source: 'declared-none', erp: 0, slop };
  if (erp !== undefined && erp > 0) return { source: 'declared-bias', erp, slop };
  return { source: 'undeclared', erp: 0, slop: 0 };
}

export interface ContactLedger {
  /** λn·½(ġn⁻ + ġn⁺) (J). */
  readonly normalWork: number;
  /** Σ_t λt·½(ġt⁻ + ġt⁺) (J); ≤ 0 for friction that opposes the slip. */
  readonly frictionWork: number;
  /** Part of normalWork the restitution law accounts for (J). */
  readonly lawWork: number;
  /** Kinetic energy of the separation speed the stabilisation accounts for (J, ≥ 0). */
  readonly stabilisation: number;
  /** Kinetic energy of the separation speed above law and stabilisation (J, ≥ 0). */
  readonly excess: number;
  /** Approach speed −ġn⁻ (m/s). */
  readonly approach: number;
  /** Restitution-law target speed (m/s). */
  readonly target: number;
  /** Stabilisation speed s allowed on top of the target (m/s). */
  readonly stabilisationSpeed: number;
  readonly stabilisationSource: StabilisationSource;
  /** Normal separation speed after the impulse ġn⁺ (m/s). */
  readonly separation: number;
  /** Tangential slip speed after the impulse ‖ġt⁺‖ (m/s). */
  readonly slip: number;
  /** Power of the friction impulse along the post-step slip, λt·ġt⁺ (≤ 0 when friction opposes sliding). */
  readonly slipPower: number;
  /** 1/A_nn (kg). */
  readonly mEff: number;
  /** The soft-contact parameters that bound the stabilisation speed (declared per contact or in the header). */
  readonly soft?: SoftContactParameters;
}

export interface FrameLedger {
  readonly frame: number;
  /** Total (kinetic + potential) energy at the end of the frame (J). */
  readonly energy: number;
  /** Change from the previous frame (J); NaN for the first frame without an initial energy. */
  readonly delta: number;
  /** Σ normal work, Σ friction work over the contacts (J). */
  readonly normal: number;
  readonly friction: number;
  /** Σ stabilisation and Σ excess parts of the normal work (J). */
  readonly stabilisation: number;
  readonly excess: number;
  /** Potential energy of displacements the velocities do not explain (J). */
  readonly positionCorrection: number;
  /** Integrator channel (J; NaN when delta is NaN). */
  readonly integrator: number;
  /** Velocity change the recorded λ does not explain (J). */
  readonly unexplained: number;
  /** Format 1.1: work of the manifold friction and twist rows (J; part of the kinetic energy change of the solve). */
  readonly manifold: number;
  /** Format 1.1: work of the recorded external impulses (J): energy from outside, never an injection. */
  readonly external: number;
  /** Per contact, in the frame's order; null when the frame's pre-solve state is not available. */
  readonly contacts: readonly ContactLedger[] | null;
}

/** Kinetic energy ½m|v|² + ½ωᵀR I_b Rᵀω of one dynamic body. */
export function bodyKinetic(mass: number, inertia: readonly number[] | null, q: Quat, v: Vec3, w: Vec3): number {
  let k = 0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!inertia) return k;
  const R = quatToMat3(q);
  const wb0 = w[0] * R[0] + w[1] * R[3] + w[2] * R[6];
  const wb1 = w[0] * R[1] + w[1] * R[4] + w[2] * R[7];
  const wb2 = w[0] * R[2] + w[1] * R[5] + w[2] * R[8];
  if (inertia.length === 3) return k + 0.5 * (inertia[0] * wb0 * wb0 + inertia[1] * wb1 * wb1 + inertia[2] * wb2 * wb2);
  const wb = [wb0, wb1, wb2];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) k += 0.5 * wb[r] * inertia[3 * r + c] * wb[c];
  return k;
}

/** The orientation the contact problem was built at: pre.q, else the previous frame's, else the frame's own. */
export function solvePose(f: RecordedFrame, prev: RecordedFrame | undefined, i: number): Quat {
  const q = f.pre?.[i]?.q ?? (prev && prev.frame === f.frame - 1 ? prev.bodies[i].q : f.bodies[i].q);
  const l = hypot4(q[0], q[1], q[2], q[3]);
  return l > 0 ? [q[0] / l, q[1] / l, q[2] / l, q[3] / l] : [1, 0, 0, 0];
}

export interface LedgerInputs {
  readonly header: RecordingHeader;
  readonly frame: RecordedFrame;
  readonly prev: RecordedFrame | undefined;
  /** Total energy of the previous frame (or the initial state), if known. */
  readonly prevEnergy: number | undefined;
  readonly energy: number;
  /** Per contact, p = −Δt·g·(linear part of the normal row over dynamic bodies) (m/s), or null. */
  readonly potentialPerImpulse: Float64Array | null;
  /** Contacts (frame order) that were already touching in the previous frame, or null. */
  readonly persistent: ((c: number) => boolean) | null;
  /** Per-contact kinematics as columns, in the frame's contact order (null: no pre-solve state). */
  readonly kinematics: KinematicsColumns | null;
  /** Pre-solve velocities of every body (recorded or reconstructed), null when not available. */
  readonly preVelocities: readonly { readonly v: Vec3; readonly w: Vec3 }[] | null;
  readonly restVelocityThreshold: number;
  readonly speedTolerance: number;
  readonly stabilisation: StabilisationModel;
  /** Format 1.1: per manifold, the work of its rows (null or absent: none). */
  readonly manifolds?: readonly ManifoldLedger[] | null;
  /** Format 1.1: work of the external impulses applied before and with the solve (absent: none known). */
  readonly external?: { readonly total: number; readonly solveKinetic: number } | null;
}

/** The law target, the stabilisation speed and the energy split of one contact (see the module comment). */
export function contactLedger(
  kin: KinematicsColumns,
  lambda: ArrayLike<number>,
  c: number,
  e: number,
  depth: number,
  dt: number,
  rest: number,
  speedTol: number,
  model: StabilisationModel,
  pNormal = 0,
  persistent = false,
  soft?: SoftContactParameters,
): ContactLedger {
  const ln = lambda[3 * c],
    lt1 = lambda[3 * c + 1],
    lt2 = lambda[3 * c + 2];
  // contact c's ġ⁻ and ġ⁺ (n, t1, t2) and m_eff from the columns (no object per contact and frame)
  const g0 = kin.gBefore[3 * c],
    g1 = kin.gBefore[3 * c + 1],
    g2 = kin.gBefore[3 * c + 2],
    h0 = kin.gAfter[3 * c],
    h1 = kin.gAfter[3 * c + 1],
    h2 = kin.gAfter[3 * c + 2];
  const normalWork = ln * 0.5 * (g0 + h0);
  const frictionWork = lt1 * 0.5 * (g1 + h1) + lt2 * 0.5 * (g2 + h2);
  const approach = -g0;
  const target = approach > rest ? e * approach : 0;
  const sep = h0;
  let s: number, source: StabilisationSource;
  const springs = soft ?? model.soft;
  if (springs) {
    // declared spring–damper: the spring's push-out in one step is bounded (softPushSpeed)
    s = softPushSpeed(springs, depth, dt, approach);
    source = 'declared-soft';
  } else if (model.source === 'declared-bias') {
    s = (model.erp / dt) * Math.max(0, depth - model.slop);
    source = 'declared-bias';
  } else if (model.source === 'declared-none') {
    s = 0;
    source = 'declared-none';
  } else if (model.source === 'declared-soft') {
    s = depth > 0 || persistent ? Infinity : 0;
    source = 'declared-soft';
  }
  // undeclared: a one-step position correction pushes out at most depth/Δt; a contact that persists from the
  // previous frame may be a soft contact (spring–damper, Todorov 2014) releasing the overlap it built up
  else {
    s = persistent ? Infinity : Math.max(0, depth) / dt;
    source = 'inferred';
  }
  let stab = 0,
    excess = 0;
  const mEff = kin.mEff[c];
  if (ln > 0 && sep > target + speedTol && mEff > 0) {
    const above = normalSpeedEnergy(mEff, pNormal, sep) - normalSpeedEnergy(mEff, pNormal, target);
    const capped = Math.min(sep, target + s);
    if (!Number.isFinite(s)) s = sep - target;
    stab = Math.max(0, normalSpeedEnergy(mEff, pNormal, capped) - normalSpeedEnergy(mEff, pNormal, target));
    if (sep <= target + s + speedTol) stab = above; // within the stabilisation's reach (rounding included)
    excess = Math.max(0, above - stab);
  }
  // two literal shapes, not a spread: V8 gives spread-built objects slow properties, and every contact of every
  // frame gets one of these, read by the attribution and the non-physical checks
  const lawWork = normalWork - stab - excess,
    slip = hypot2Exact(h1, h2),
    slipPower = lt1 * h1 + lt2 * h2;
  const ledger = {
    normalWork,
    frictionWork,
    lawWork,
    stabilisation: stab,
    excess,
    approach,
    target,
    stabilisationSpeed: s,
    stabilisationSource: source,
    separation: sep,
    slip,
    slipPower,
    mEff,
  };
  return springs ? { ...ledger, soft: springs } : ledger;
}

/** ½m_eff·x² + p·m_eff·x: the kinetic (and potential, p per unit speed) energy of normal speed x (the ledger's E). */
export function normalSpeedEnergy(mEff: number, p: number, x: number): number {
  return mEff * (0.5 * x * x + p * x);
}

/**
 * Per body, the potential energy of its displacement beyond v⁺Δt: −m g·(x⁺ − x_solve − v⁺Δt) (the position-correction
 * channel; 0 for static bodies), or null when the solve pose is unknown (no `pre` positions, no previous frame).
 */
export function positionCorrectionPerBody(header: RecordingHeader, f: RecordedFrame, prev: RecordedFrame | undefined): Float64Array | null {
  const consecutive = prev !== undefined && prev.frame === f.frame - 1;
  if (!(consecutive || f.pre?.every((p) => p.x !== undefined))) return null;
  const g = header.gravity;
  const out = new Float64Array(header.bodies.length);
  header.bodies.forEach((b, i) => {
    if (b.static || b.mass === null) return;
    const xs = f.pre?.[i]?.x ?? prev!.bodies[i].x,
      x = f.bodies[i].x,
      v = f.bodies[i].v;
    let e = 0;
    for (let r = 0; r < 3; r++) e -= b.mass * g[r] * (x[r] - xs[r] - v[r] * header.dt);
    out[i] = e;
  });
  return out;
}

/** The frame's ledger (see the module comment for the identity it satisfies). */
export function frameLedger(inp: LedgerInputs): FrameLedger {
  const { header, frame: f, prev } = inp;
  const delta = inp.prevEnergy === undefined ? Number.NaN : inp.energy - inp.prevEnergy;
  const contacts =
    inp.kinematics === null
      ? null
      : f.contacts.map((ct, c) =>
          contactLedger(
            inp.kinematics!,
            f.solver.lambda,
            c,
            ct.e,
            ct.depth,
            header.dt,
            inp.restVelocityThreshold,
            inp.speedTolerance,
            inp.stabilisation,
            inp.potentialPerImpulse?.[3 * c] ?? 0,
            inp.persistent?.(c) ?? false,
            ct.soft,
          ),
        );
  let normal = 0,
    friction = 0,
    stabilisation = 0,
    excess = 0;
  for (const c of contacts ?? []) {
    normal += c.normalWork;
    friction += c.frictionWork;
    stabilisation += c.stabilisation;
    excess += c.excess;
  }
  let manifold = 0;
  for (const m of inp.manifolds ?? []) manifold += m.work;
  const external = inp.external?.total ?? 0;
  // unexplained = KE(v⁺) − KE(v⁻) − Σ contact and manifold work − work of impulses applied with the solve, at the solve pose
  let unexplained = 0;
  if (inp.preVelocities && contacts) {
    let dk = 0;
    header.bodies.forEach((b, i) => {
      if (b.static || b.mass === null) return;
      const q = solvePose(f, prev, i),
        pre = inp.preVelocities![i],
        post = f.bodies[i];
      dk += bodyKinetic(b.mass, b.inertia, q, post.v, post.w) - bodyKinetic(b.mass, b.inertia, q, pre.v, pre.w);
    });
    unexplained = dk - normal - friction - manifold - (inp.external?.solveKinetic ?? 0);
  }
  let positionCorrection = 0;
  const perBody = positionCorrectionPerBody(header, f, prev);
  if (perBody) for (let i = 0; i < perBody.length; i++) positionCorrection += perBody[i];
  const integrator = delta - normal - friction - manifold - unexplained - positionCorrection - external;
  return {
    frame: f.frame,
    energy: inp.energy,
    delta,
    normal,
    friction,
    stabilisation,
    excess,
    positionCorrection,
    integrator,
    unexplained,
    manifold,
    external,
    contacts,
  };
}
