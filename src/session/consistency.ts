/**
 * Recording consistency: does the recorded λ explain the recorded velocity change? For every dynamic body
 * v⁺ − v⁻ = M⁻¹Jᵀλ must hold (the definition of the contact impulse; docs/recording-format.md "pre"). When
 * it fails, the pattern names the likely writer bug:
 *   Δv_λ ≈ Δv/Δt          λ written as a force (N) instead of an impulse per step (N·s);
 *   Δv_λ ≈ −Δv            the normal points from a into b (or λ has the opposite sign convention);
 *   only λn flipped fits  the normal is flipped but the tangent impulses are not;
 *   linear fits, angular not: the header's inertia is the inverse inertia, or ω is written in the body frame.
 */
import { type ContactJacobians, type ContactPoint, jacobianVelocityChanges, quatToMat3 } from '../engine/index.js';
import type { RecordedFrame, RecordingHeader } from '../format/recording.js';
import { solvePose } from './frameLedger.js';

/** A body's velocity change is explained when |Δv − M⁻¹Jᵀλ| ≤ this fraction of |Δv| plus the floor below. */
export const CONSISTENCY_RELATIVE = 0.05;
/** Absolute floor of the mismatch (m/s and rad/s): damping and rounding in other engines stay below it. */
export const CONSISTENCY_FLOOR = 1e-3;

export type WriterBug = 'lambda-as-force' | 'normal-flipped' | 'normal-row-flipped' | 'inverse-inertia' | 'omega-body-frame' | 'unknown';

export interface FrameConsistency {
  /** First body (header index) whose velocity change λ does not explain, or −1. */
  readonly body: number;
  /** Worst mismatch |Δv − M⁻¹Jᵀλ| over bodies (m/s or rad/s) and the Δv it was measured against. */
  readonly mismatch: number;
  readonly linearOk: boolean;
  readonly angularOk: boolean;
  readonly bug: WriterBug;
  readonly text: string;
}

export const WRITER_BUG_TEXT: Record<WriterBug, string> = {
  'lambda-as-force': 'λ looks like a force: M⁻¹Jᵀλ·Δt matches the velocity change — write the impulse per step λ = F·Δt (N·s)',
  'normal-flipped': 'M⁻¹Jᵀλ has the opposite sign of the velocity change — the normal probably points from a into b (our convention: from b into a)',
  'normal-row-flipped': 'only the normal impulses have the wrong sign — the normal is flipped while the tangent impulses are not',
  'inverse-inertia':
    'the linear velocity changes match but the angular ones match only with the inertia inverted — the header probably holds the inverse inertia',
  'omega-body-frame':
    'the linear velocity changes match but the angular ones match only in the body frame — ω is probably written in body coordinates (ours: world)',
  unknown: 'the recorded λ does not explain the recorded velocity change (damping, clamping or forces applied after the solve, or a writer bug)',
};

function dist(a: Float64Array, b: Float64Array, s: number): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] - s * b[i];
    d += x * x;
  }
  return Math.sqrt(d);
}
function norm(a: Float64Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i] * a[i];
  return Math.sqrt(d);
}

/**
 * Checks frame f (which has `pre`). `bodies` are the solve-time bodies built from the recorded pre state,
 * `k` the frame's assembled blocks for `contacts` (any assembly options).
 */
export function checkFrameConsistency(
  header: RecordingHeader,
  f: RecordedFrame,
  prev: RecordedFrame | undefined,
  k: ContactJacobians | null,
  contacts: readonly ContactPoint[],
  /** M⁻¹Jᵀλ per body (6 per body) when the caller has it already (the kinematics computed it). */
  dvLambda?: Float64Array,
): FrameConsistency | null {
  const pre = f.pre;
  if (!pre) return null;
  const N = header.bodies.length;
  const lam = f.solver.lambda;
  const dvL = dvLambda ?? (k ? jacobianVelocityChanges(k, contacts, lam, N) : new Float64Array(6 * N));
  const dvR = new Float64Array(6 * N);
  const dyn: number[] = [];
  for (let i = 0; i < N; i++) {
    if (header.bodies[i].static) continue;
    dyn.push(i);
    for (let r = 0; r < 3; r++) {
      dvR[6 * i + r] = f.bodies[i].v[r] - pre[i].v[r];
      dvR[6 * i + 3 + r] = f.bodies[i].w[r] - pre[i].w[r];
    }
  }
  const part = (src: Float64Array, ang: boolean): Float64Array => {
    const out = new Float64Array(3 * dyn.length);
    dyn.forEach((i, j) => {
      for (let r = 0; r < 3; r++) out[3 * j + r] = src[6 * i + (ang ? 3 : 0) + r];
    });
    return out;
  };
  const linR = part(dvR, false),
    linL = part(dvL, false),
    angR = part(dvR, true),
    angL = part(dvL, true);
  const ok = (rec: Float64Array, mod: Float64Array, s = 1): boolean =>
    dist(rec, mod, s) <= CONSISTENCY_RELATIVE * Math.max(norm(rec), Math.abs(s) * norm(mod)) + CONSISTENCY_FLOOR * Math.sqrt(Math.max(1, rec.length / 3));
  const linearOk = ok(linR, linL),
    angularOk = ok(angR, angL);
  let body = -1,
    mismatch = 0;
  for (const i of dyn) {
    let d = 0,
      m = 0;
    for (let r = 0; r < 6; r++) {
      const x = dvR[6 * i + r] - dvL[6 * i + r];
      d += x * x;
      m += dvR[6 * i + r] ** 2;
    }
    d = Math.sqrt(d);
    if (d > mismatch) mismatch = d;
    if (body < 0 && d > CONSISTENCY_RELATIVE * Math.sqrt(m) + CONSISTENCY_FLOOR) body = i;
  }
  if (linearOk && angularOk) return { body: -1, mismatch, linearOk, angularOk, bug: 'unknown', text: '' };
  let bug: WriterBug = 'unknown';
  const allR = Float64Array.from([...linR, ...angR]),
    allL = Float64Array.from([...linL, ...angL]);
  if (ok(allR, allL, header.dt)) bug = 'lambda-as-force';
  else if (ok(allR, allL, -1)) bug = 'normal-flipped';
  else if (k) {
    const flipped = Float64Array.from(lam);
    for (let c = 0; c < contacts.length; c++) flipped[3 * c] = -flipped[3 * c];
    const dvF = jacobianVelocityChanges(k, contacts, flipped, N);
    if (ok(linR, part(dvF, false)) && ok(angR, part(dvF, true))) bug = 'normal-row-flipped';
  }
  if (bug === 'unknown' && linearOk && !angularOk) {
    // inertia inverted: Δω_alt = I_w·I_w·Δω_λ with I_w built from the header's (presumed inverse) inertia
    const inv = new Float64Array(angL.length),
      body3 = new Float64Array(angL.length);
    dyn.forEach((i, j) => {
      const b = header.bodies[i];
      const R = quatToMat3(solvePose(f, prev, i));
      const Ib = b.inertia ?? [0, 0, 0];
      const Im = Ib.length === 3 ? [Ib[0], 0, 0, 0, Ib[1], 0, 0, 0, Ib[2]] : Ib;
      const w = [angL[3 * j], angL[3 * j + 1], angL[3 * j + 2]];
      // to body frame, apply I_b twice, back to world
      const wb = [0, 1, 2].map((c) => w[0] * R[c] + w[1] * R[3 + c] + w[2] * R[6 + c]);
      const once = [0, 1, 2].map((r) => Im[3 * r] * wb[0] + Im[3 * r + 1] * wb[1] + Im[3 * r + 2] * wb[2]);
      const twice = [0, 1, 2].map((r) => Im[3 * r] * once[0] + Im[3 * r + 1] * once[1] + Im[3 * r + 2] * once[2]);
      for (let r = 0; r < 3; r++) {
        inv[3 * j + r] = R[3 * r] * twice[0] + R[3 * r + 1] * twice[1] + R[3 * r + 2] * twice[2];
        body3[3 * j + r] = wb[r]; // Rᵀ·Δω_λ: what a body-frame writer's Δω would be
      }
    });
    if (ok(angR, inv)) bug = 'inverse-inertia';
    else if (ok(angR, body3)) bug = 'omega-body-frame';
  }
  const where = body >= 0 ? `body ${body} (${header.bodies[body].name})` : 'the bodies';
  return {
    body,
    mismatch,
    linearOk,
    angularOk,
    bug,
    text: `${where}: |Δv − M⁻¹Jᵀλ| = ${mismatch.toPrecision(3)}${linearOk ? ' (angular part)' : ''}; ${WRITER_BUG_TEXT[bug]}`,
  };
}
