/**
 * λ fitted to an engine's own velocity change, for bindings that hide contact impulses (Jolt): the
 * mass-weighted least-squares problem  min ‖M^½ (M⁻¹Jᵀλ − Δv)‖²  subject to λn ≥ 0, whose normal equations
 * are J M⁻¹Jᵀ λ = J Δv (A λ = J Δv, docs/physics.md "Contact model"). Solved by projected Gauss–Seidel on the blocks from
 * assembleJacobians (matrix-free, rows n, t1, t2 per contact; normals clamped at 0, tangents free): PGS
 * minimises ½λᵀAλ − λᵀJΔv, which is the objective above up to a constant. A is singular when several
 * contacts share a face (4 box corners), so λ is one of many that explain Δv equally well. Started from a
 * dense ridge solve (denseStart), PGS then only enforces λn ≥ 0.
 */
import { assembleJacobians, jacobianVelocityChanges, denseProblem } from '../../engine/index.js';
import type { BodyState, ContactPoint } from '../../engine/index.js';

/** Sweeps and the stopping rule (largest |Δλ| of a sweep, N·s) of the fit. */
export const FIT_MAX_SWEEPS = 1000;
export const FIT_TOLERANCE = 1e-10;

/**
 * dvTarget: 6 numbers per body (dv, dω) — the velocity change the contacts must explain.
 * Returns λ in the 3C layout.
 */
export function fitLambda(
  bodies: readonly BodyState[],
  contacts: readonly ContactPoint[],
  dvTarget: Float64Array,
  fixedNormals?: ArrayLike<number>,
): Float64Array {
  const C = contacts.length;
  const lambda = new Float64Array(3 * C);
  if (C === 0) return lambda;
  // With fixedNormals (the engine's own λn per contact), only the tangential rows are fitted.
  if (fixedNormals) for (let c = 0; c < C; c++) lambda[3 * c] = fixedNormals[c];
  const k = assembleJacobians(bodies, contacts, { baumgarte: false, regularization: 0 });
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  denseStart(k, contacts, dvTarget, lambda, fixedNormals !== undefined);
  const u = jacobianVelocityChanges(k, contacts, lambda, dvTarget.length / 6); // M⁻¹Jᵀλ of the start
  // Diagonal A_rr = J_r M⁻¹ J_rᵀ per row.
  const diag = new Float64Array(3 * C);
  for (let c = 0; c < C; c++)
    for (let r = 0; r < 3; r++) {
      let s = 0;
      const o = 18 * c + 6 * r;
      for (let q = 0; q < 6; q++) s += (k.staticA[c] ? 0 : JA[o + q] * k.invMassJA[o + q]) + (k.staticB[c] ? 0 : JB[o + q] * k.invMassJB[o + q]);
      diag[3 * c + r] = s;
    }
  for (let sweep = 0; sweep < FIT_MAX_SWEEPS; sweep++) {
    let biggest = 0;
    for (let c = 0; c < C; c++) {
      const a = contacts[c].bodyA,
        b = contacts[c].bodyB;
      for (let r = 0; r < 3; r++) {
        const row = 3 * c + r,
          o = 18 * c + 6 * r;
        if (!(diag[row] > 0) || (r === 0 && fixedNormals)) continue;
        // residual of this row: J_r (Δv − u)
        let res = 0;
        if (!k.staticA[c]) for (let q = 0; q < 6; q++) res += JA[o + q] * (dvTarget[6 * a + q] - u[6 * a + q]);
        if (!k.staticB[c]) for (let q = 0; q < 6; q++) res += JB[o + q] * (dvTarget[6 * b + q] - u[6 * b + q]);
        let next = lambda[row] + res / diag[row];
        if (r === 0 && next < 0) next = 0;
        const d = next - lambda[row];
        if (d === 0) continue;
        lambda[row] = next;
        biggest = Math.max(biggest, Math.abs(d));
        if (!k.staticA[c]) for (let q = 0; q < 6; q++) u[6 * a + q] += k.invMassJA[o + q] * d;
        if (!k.staticB[c]) for (let q = 0; q < 6; q++) u[6 * b + q] += k.invMassJB[o + q] * d;
      }
    }
    if (biggest < FIT_TOLERANCE) break;
  }
  return lambda;
}

/** Ridge added to A's diagonal in the dense start (A is singular with coplanar corners), 1/kg. */
export const FIT_RIDGE = 1e-12;

/**
 * Dense start: λ = (A + εI)⁻¹ J Δv by Gaussian elimination (A is small: ≤ a few hundred rows here),
 * negative normals clamped to 0 (or, with λn fixed, the tangential rows only); PGS then restores λn ≥ 0. Long stacks converge slowly under PGS
 * alone (the tangential coupling travels one body per sweep).
 */
function denseStart(
  k: ReturnType<typeof assembleJacobians>,
  contacts: readonly ContactPoint[],
  dv: Float64Array,
  out: Float64Array,
  normalsFixed: boolean,
): void {
  const size = k.size;
  // Free rows: all, or only the tangential ones when λn is given (then rhs_F = (JΔv)_F − A_F,n λn).
  const free: number[] = [];
  for (let i = 0; i < size; i++) if (!normalsFixed || i % 3 !== 0) free.push(i);
  const n = free.length;
  if (n === 0 || n > 600) return;
  const A = denseProblem(k, FIT_RIDGE).A;
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const full = new Float64Array(size);
  for (let c = 0; c < contacts.length; c++)
    for (let r = 0; r < 3; r++) {
      const o = 18 * c + 6 * r;
      let s = 0;
      if (!k.staticA[c]) for (let q = 0; q < 6; q++) s += JA[o + q] * dv[6 * contacts[c].bodyA + q];
      if (!k.staticB[c]) for (let q = 0; q < 6; q++) s += JB[o + q] * dv[6 * contacts[c].bodyB + q];
      full[3 * c + r] = s;
    }
  const rhs = new Float64Array(n);
  const M = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    let s = full[free[i]];
    if (normalsFixed) for (let c = 0; c < contacts.length; c++) s -= A[free[i] * size + 3 * c] * out[3 * c];
    rhs[i] = s;
    for (let j = 0; j < n; j++) M[i * n + j] = A[free[i] * size + free[j]];
  }
  for (let i = 0; i < n; i++) {
    const piv = M[i * n + i];
    if (!(piv > 0)) return;
    for (let j = i + 1; j < n; j++) {
      const f = M[j * n + i] / piv;
      if (f === 0) continue;
      for (let q = i; q < n; q++) M[j * n + q] -= f * M[i * n + q];
      rhs[j] -= f * rhs[i];
    }
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = rhs[i];
    for (let q = i + 1; q < n; q++) s -= M[i * n + q] * x[q];
    x[i] = s / M[i * n + i];
  }
  for (let i = 0; i < n; i++) out[free[i]] = x[i];
  if (!normalsFixed) for (let c = 0; c < contacts.length; c++) if (out[3 * c] < 0) out[3 * c] = 0;
}

/** M⁻¹Jᵀλ per body (6 numbers each), for checks. */
export function impulseVelocityChange(bodies: readonly BodyState[], contacts: readonly ContactPoint[], lambda: ArrayLike<number>): Float64Array {
  if (contacts.length === 0) return new Float64Array(6 * bodies.length);
  const k = assembleJacobians(bodies, contacts, { baumgarte: false, regularization: 0 });
  return jacobianVelocityChanges(k, contacts, lambda, bodies.length);
}
