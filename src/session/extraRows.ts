/**
 * Format 1.1 velocity changes besides the per-contact rows (docs/recording-format.md "Manifolds" and
 * "External impulses"):
 *   manifold rows   friction at the manifold point along t1, t2 (J_a = [dᵀ, (r_a × d)ᵀ], J_b = −[dᵀ, (r_b × d)ᵀ])
 *                   and a twist row about n (J_a = [0, nᵀ], J_b = [0, −nᵀ]) — Box2D v3, Rapier, Jolt;
 *   external        impulses besides gravity and contacts: "with-solve" ones act with the contact impulses
 *                   (v⁺ − v⁻ = M⁻¹(Jᵀλ + p)), "before-solve" ones are already in v⁻ (like gravity).
 * Their work is the impulse times the mean velocity, λ·½(ġ⁻ + ġ⁺) (Stewart & Trinkle 1996), so the ledger's
 * identity ΔKE = Σ rows' work holds with them (frameLedger.ts).
 */
import type { BodyState } from '../engine/index.js';
import type { RecordedFrame, RecordedManifold } from '../format/recording.js';

/** Row of direction d at point p on body i: linear part d, angular part r × d (r = p − x_i). */
function rowAngular(b: BodyState, p: readonly number[], d: readonly number[]): [number, number, number] {
  const r0 = p[0] - b.x[0],
    r1 = p[1] - b.x[1],
    r2 = p[2] - b.x[2];
  return [r1 * d[2] - r2 * d[1], r2 * d[0] - r0 * d[2], r0 * d[1] - r1 * d[0]];
}

/** into[6i…6i+5] += M_i⁻¹ (linear λ·d, angular λ·a) for a dynamic body. */
function addImpulse(into: Float64Array, i: number, b: BodyState, lin: readonly number[], ang: readonly number[], s: number): void {
  const o = 6 * i,
    I = b.invInertiaWorld;
  for (let r = 0; r < 3; r++) {
    into[o + r] += s * b.invMass * lin[r];
    into[o + 3 + r] += s * (I[3 * r] * ang[0] + I[3 * r + 1] * ang[1] + I[3 * r + 2] * ang[2]);
  }
}

/** The three rows of a manifold on one side: (linear, angular) for t1, t2 and the twist. */
function manifoldRows(m: RecordedManifold, b: BodyState): [readonly number[], readonly number[]][] {
  return [
    [m.t1, rowAngular(b, m.point, m.t1)],
    [m.t2, rowAngular(b, m.point, m.t2)],
    [[0, 0, 0], m.normal],
  ];
}

/** Accumulates M⁻¹Jᵀλ of the frame's manifold rows and M⁻¹p of its "with-solve" external impulses into `into` (6 per body). */
export function extraVelocityChanges(f: RecordedFrame, bodies: readonly BodyState[], into: Float64Array): Float64Array {
  for (const m of f.manifolds ?? []) {
    for (const [i, sign] of [
      [m.a, 1],
      [m.b, -1],
    ] as const) {
      if (i < 0) continue;
      const b = bodies[i];
      if (b.invMass === 0) continue;
      manifoldRows(m, b).forEach(([lin, ang], r) => addImpulse(into, i, b, lin, ang, sign * m.lambda[r]));
    }
  }
  for (const x of f.external ?? []) {
    if (x.stage !== 'with-solve') continue;
    const b = bodies[x.body];
    if (b.invMass !== 0) addImpulse(into, x.body, b, x.impulse, x.angular ?? [0, 0, 0], 1);
  }
  return into;
}

/** True when the frame has rows besides its contacts' that change velocities during the solve. */
export function hasExtraRows(f: RecordedFrame): boolean {
  return (f.manifolds?.length ?? 0) > 0 || (f.external?.some((x) => x.stage === 'with-solve') ?? false);
}

/** ġ = J v of one side's row at velocities v, ω (plus Δv when given). */
function rowRate(lin: readonly number[], ang: readonly number[], b: BodyState, dv: Float64Array | null, i: number): [number, number] {
  let before = 0,
    after = 0;
  for (let r = 0; r < 3; r++) {
    before += lin[r] * b.v[r] + ang[r] * b.omega[r];
    after += lin[r] * (b.v[r] + (dv ? dv[6 * i + r] : 0)) + ang[r] * (b.omega[r] + (dv ? dv[6 * i + 3 + r] : 0));
  }
  return [before, after];
}

export interface ManifoldLedger {
  /** Σ rows λ·½(ġ⁻ + ġ⁺) of the friction and twist rows (J); ≤ 0 for friction that opposes the slip. */
  readonly work: number;
  /** λ·ġ⁺ over the rows: > 0 when the impulses push along the post-step slip (against maximal dissipation). */
  readonly slipPower: number;
}

/** Work of each manifold's rows between the pre-solve velocities (`bodies`) and v⁻ + dv (dv: the frame's full M⁻¹Jᵀλ). */
export function manifoldLedgers(f: RecordedFrame, bodies: readonly BodyState[], dv: Float64Array): ManifoldLedger[] {
  return (f.manifolds ?? []).map((m) => {
    let work = 0,
      slipPower = 0;
    for (let r = 0; r < 3; r++) {
      let g0 = 0,
        g1 = 0;
      for (const [i, sign] of [
        [m.a, 1],
        [m.b, -1],
      ] as const) {
        if (i < 0) continue;
        const b = bodies[i];
        const [lin, ang] = manifoldRows(m, b)[r];
        const [x0, x1] = rowRate(lin, ang, b, b.invMass === 0 ? null : dv, i);
        g0 += sign * x0;
        g1 += sign * x1;
      }
      work += m.lambda[r] * 0.5 * (g0 + g1);
      slipPower += m.lambda[r] * g1;
    }
    return { work, slipPower };
  });
}

/**
 * Energy the frame's external impulses add to the step (J), for semi-implicit Euler (docs/physics.md "Energy
 * ledger"): the step's ΔE with the impulse minus without it. "before-solve" impulses (in v⁻ like gravity):
 * p·(v_start + ½M⁻¹p) with v_start = v⁻ − gΔt − M⁻¹p the velocity the step started from (kinetic and the
 * potential of the extra displacement together). "with-solve" impulses: their share of the solve's kinetic
 * energy change p·½(v⁻ + v⁺), v⁺ = v⁻ + dv (the same identity as the contact rows'), plus the potential
 * −Δt·g·p of the displacement their velocity change causes. Angular impulses L likewise with ω and I⁻¹ (no potential).
 * `solveKinetic` is the with-solve kinetic part (it belongs to the solve's velocity change).
 */
export function externalWork(
  f: RecordedFrame,
  bodies: readonly BodyState[],
  dv: Float64Array | null,
  gravity: readonly number[],
  dt: number,
): { total: number; solveKinetic: number } {
  let total = 0,
    solveKinetic = 0;
  for (const x of f.external ?? []) {
    const b = bodies[x.body];
    if (b.invMass === 0) continue;
    const L = x.angular ?? [0, 0, 0];
    const I = b.invInertiaWorld;
    const dw = [0, 1, 2].map((r) => I[3 * r] * L[0] + I[3 * r + 1] * L[1] + I[3 * r + 2] * L[2]);
    const o = 6 * x.body;
    let w = 0;
    for (let r = 0; r < 3; r++) {
      if (x.stage === 'with-solve') {
        const k = x.impulse[r] * (b.v[r] + 0.5 * (dv ? dv[o + r] : b.invMass * x.impulse[r])) + L[r] * (b.omega[r] + 0.5 * (dv ? dv[o + 3 + r] : dw[r]));
        solveKinetic += k;
        w += k - dt * gravity[r] * x.impulse[r];
      } else {
        w += x.impulse[r] * (b.v[r] - gravity[r] * dt - 0.5 * b.invMass * x.impulse[r]) + L[r] * (b.omega[r] - 0.5 * dw[r]);
      }
    }
    total += w;
  }
  return { total, solveKinetic };
}
