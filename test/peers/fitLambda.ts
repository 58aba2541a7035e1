/**
 * λ fitted to an engine's own velocity change, for bindings that hide contact impulses (Jolt): the
 * mass-weighted least-squares problem  min ‖M^½ (M⁻¹Jᵀλ − Δv)‖²  subject to λn ≥ 0, whose normal equations
 * are J M⁻¹Jᵀ λ = J Δv (A λ = J Δv, seed 000 §4). Solved by projected Gauss–Seidel on the blocks from
 * assembleBlocks (matrix-free, rows n, t1, t2 per contact; normals clamped at 0, tangents free): PGS
 * minimises ½λᵀAλ − λᵀJΔv, which is the objective above up to a constant. A is singular when several
 * contacts share a face (4 box corners), so λ is one of many that explain Δv equally well.
 */
import { assembleBlocks, blockVelocityChanges } from '../../src/engine/assembly.js';
import type { BodyState, ContactPoint } from '../../src/engine/problem.js';

/** Sweeps and the stopping rule (largest |Δλ| of a sweep, N·s) of the fit. */
export const FIT_MAX_SWEEPS = 300;
export const FIT_TOLERANCE = 1e-10;

/**
 * dvTarget: 6 numbers per body (dv, dω) — the velocity change the contacts must explain.
 * Returns λ in the 3C layout.
 */
export function fitLambda(bodies: readonly BodyState[], contacts: readonly ContactPoint[], dvTarget: Float64Array, fixedNormals?: ArrayLike<number>): Float64Array {
  const C = contacts.length;
  const lambda = new Float64Array(3 * C);
  if (C === 0) return lambda;
  // With fixedNormals (the engine's own λn per contact), only the tangential rows are fitted.
  if (fixedNormals) for (let c = 0; c < C; c++) lambda[3 * c] = fixedNormals[c];
  const k = assembleBlocks(bodies, contacts, { baumgarte: false, regularization: 0 });
  const { jacobianA: JA, jacobianB: JB } = k.physics;
  const u = fixedNormals ? blockVelocityChanges(k, contacts, lambda, dvTarget.length / 6) : new Float64Array(dvTarget.length); // M⁻¹Jᵀλ so far
  // Diagonal A_rr = J_r M⁻¹ J_rᵀ per row.
  const diag = new Float64Array(3 * C);
  for (let c = 0; c < C; c++) for (let r = 0; r < 3; r++) {
    let s = 0;
    const o = 18 * c + 6 * r;
    for (let q = 0; q < 6; q++) s += (k.staticA[c] ? 0 : JA[o + q] * k.invMassJA[o + q]) + (k.staticB[c] ? 0 : JB[o + q] * k.invMassJB[o + q]);
    diag[3 * c + r] = s;
  }
  for (let sweep = 0; sweep < FIT_MAX_SWEEPS; sweep++) {
    let biggest = 0;
    for (let c = 0; c < C; c++) {
      const a = contacts[c].bodyA, b = contacts[c].bodyB;
      for (let r = 0; r < 3; r++) {
        const row = 3 * c + r, o = 18 * c + 6 * r;
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

/** M⁻¹Jᵀλ per body (6 numbers each), for checks. */
export function impulseVelocityChange(bodies: readonly BodyState[], contacts: readonly ContactPoint[], lambda: ArrayLike<number>): Float64Array {
  if (contacts.length === 0) return new Float64Array(6 * bodies.length);
  const k = assembleBlocks(bodies, contacts, { baumgarte: false, regularization: 0 });
  return blockVelocityChanges(k, contacts, lambda, bodies.length);
}
