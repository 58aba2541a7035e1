/**
 * The matrix the convex solvers (projected Newton, interior point: the QP-SOCP) are given when A was taken as a
 * file wrote it (problem.ts asGiven; FCLIB's W from real simulation codes, slightly asymmetric or indefinite):
 * its symmetric part plus the smallest multiple of the identity that makes it positive semidefinite,
 *
 *   Â = ½(A + Aᵀ) + δI,   δ = max(0, −λmin(½(A + Aᵀ))),
 *
 * since ½λᵀAλ = ½λᵀ·½(A + Aᵀ)·λ (the QP's objective sees the symmetric part only) and the QP is convex only
 * when its matrix is positive semidefinite. δ is then raised, doubling, until our positive-semidefiniteness test
 * (problem.ts checkPositiveSemidefinite: Cholesky of Â + 1e-9·max diag·I) passes. Coulomb and PGS use A itself.
 */
import { DEFAULT_EXACT_LIMIT } from '../conditioning.js';
import { estimateExtremeEigenvalues, symmetricEigenvalues } from '../math/eigen.js';
import { checkPositiveSemidefinite, PSD_RELATIVE_TOLERANCE, ProblemError, SYMMETRY_TOLERANCE, type ContactProblem } from '../problem.js';

/** What the convex solvers were given instead of A (reported in their row). */
export interface ConvexifiedMatrix {
  /** ‖A − Aᵀ‖_F/‖A‖_F of the given A. */
  readonly asymmetry: number;
  /** δ ≥ 0 added to the diagonal of the symmetric part. */
  readonly shift: number;
}

/** Largest n whose smallest eigenvalue is computed exactly (values-only QL, ≈ 4n³/3 flops); an estimate above. */
export const CONVEXIFY_EXACT_LIMIT = 4 * DEFAULT_EXACT_LIMIT;
/** Doublings of δ tried before giving up (the matrix then goes to the solver as it is, and the row says so). */
export const CONVEXIFY_MAX_DOUBLINGS = 60;

/**
 * Â for a problem whose A was taken as given, or null when A is symmetric to SYMMETRY_TOLERANCE and passes the
 * positive-semidefiniteness test (the convex solvers then use A itself), or when A was not taken as given.
 */
export function convexified(p: ContactProblem): { readonly problem: ContactProblem; readonly matrix: ConvexifiedMatrix } | null {
  if (!p.asGiven) return null;
  const { A, size: n } = p;
  const asymmetry = p.asGiven.asymmetry;
  if (asymmetry <= SYMMETRY_TOLERANCE && positiveSemidefinite(A, n)) return null;
  const S = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) S[i * n + j] = 0.5 * (A[i * n + j] + A[j * n + i]);
  let maxDiag = 0;
  for (let i = 0; i < n; i++) maxDiag = Math.max(maxDiag, Math.abs(S[i * n + i]));
  let shift = 0;
  if (!positiveSemidefinite(S, n)) {
    const lambdaMin = n <= CONVEXIFY_EXACT_LIMIT ? symmetricEigenvalues(S, n)[0] : estimateExtremeEigenvalues(S, n).lambdaMin;
    shift = Math.max(0, -lambdaMin);
    const floor = PSD_RELATIVE_TOLERANCE * (maxDiag > 0 ? maxDiag : 1);
    for (let k = 0; k < CONVEXIFY_MAX_DOUBLINGS && !positiveSemidefinite(shifted(S, n, shift), n); k++) shift = Math.max(2 * shift, floor);
    for (let i = 0; i < n; i++) S[i * n + i] += shift;
  }
  const { asGiven: _, ...rest } = p;
  return { problem: { ...rest, A: S }, matrix: { asymmetry, shift } };
}

function shifted(S: Float64Array, n: number, shift: number): Float64Array {
  const T = Float64Array.from(S);
  for (let i = 0; i < n; i++) T[i * n + i] += shift;
  return T;
}

function positiveSemidefinite(A: Float64Array, n: number): boolean {
  try {
    checkPositiveSemidefinite(A, n);
    return true;
  } catch (e) {
    if (e instanceof ProblemError) return false;
    throw e;
  }
}

/** The row's note: what the convex solver was given instead of A, and why. */
export function convexifiedNote(m: ConvexifiedMatrix): string {
  const d = m.shift.toExponential(2);
  const given = m.shift > 0 ? `its smallest eigenvalue is −${d}` : 'it is positive semidefinite';
  const asym = m.asymmetry > 0 ? `A as given is asymmetric (‖A − Aᵀ‖/‖A‖ = ${m.asymmetry.toExponential(2)}); ` : '';
  return `solved with the symmetric part of A${m.shift > 0 ? ` plus ${d}·I` : ''}: ${asym}${given}`;
}
