/**
 * The interior points' parameters (ipm.ts dense, ipmSparse.ts sparse; references as in ipm.ts's file header:
 * [V] Vandenberghe, "The CVXOPT linear and quadratic cone program solvers", 2010; [M] Mehrotra 1992), one
 * source for both solvers. Split from ipm.ts so that its phases (ipmCones.ts, ipmSetup.ts, ipmDenseNewton.ts)
 * read them without importing the solver.
 */
/** Default iteration budget (CVXOPT's `maxiters` default, [V] §3). */
export const IPM_DEFAULT_MAX_ITERATIONS = 100;
/** The iteration budget of a solve: the options' maxIterations (whole, ≥ 0) or IPM_DEFAULT_MAX_ITERATIONS. */
export function ipmIterationBudget(opts: { readonly maxIterations?: number }): number {
  return Math.max(0, Math.floor(opts.maxIterations ?? IPM_DEFAULT_MAX_ITERATIONS));
}
/** Default KKT max_rel tolerance (kkt.ts). */
export const IPM_DEFAULT_TOLERANCE = 1e-10;
/** Fraction of the step to the cone boundary that is taken ([V] §3, STEP = 0.99). */
export const IPM_STEP_FRACTION = 0.99;
/** Mehrotra centring σ = (1 − α_aff)^EXPON ([V] §3, EXPON = 3; [M]). */
export const IPM_SIGMA_EXPONENT = 3;
/**
 * δ₀ of the starting point x̂ = −(P + δ₀I)⁻¹q. CVXOPT uses δ₀ = 1 ([V] §3); a small δ₀ starts near
 * the unconstrained minimiser, which is close to the answer for resting stacks whose solution is
 * large in the scaled units (mass ratios), and saves ~10 iterations there.
 */
export const IPM_START_DAMPING = 1e-4;
/** Switch from the NT to the AHO direction once KKT max_rel ≤ this (see file header, step 3). */
export const IPM_AHO_SWITCH = 1e-6;
/** Halvings of the step tried when rounding pushed an updated iterate out of the open cone. */
export const IPM_MAX_INTERIOR_BACKTRACKS = 30;
/** Iterative-refinement sweeps of each Newton solve against the unshifted scaled matrix (Wilkinson). */
export const IPM_REFINEMENT_STEPS = 3;
/**
 * First diagonal shift of the (block-scaled, unit-diagonal) Newton matrix when it does not factorise;
 * multiplied by 10 up to REGULARIZATION_MAX (math/cholesky.ts). 10× the Cholesky pivot tolerance
 * (PIVOT_RELATIVE_TOLERANCE = 1e-13), the smallest shift that guarantees the factorisation proceeds.
 */
export const IPM_SHIFT_START = 1e-12;
/** Relative pivot tolerance of the 3×3 block Cholesky factors used for the block-Jacobi scaling. */
export const IPM_BLOCK_PIVOT_TOLERANCE = 1e-15;
/** LU pivots (of unit-diagonal-block matrices) at or below this count as singular. */
export const IPM_LU_PIVOT_TOLERANCE = 1e-13;
/**
 * Smallest eigenvalue (x₀ − ‖(x₁, x₂)‖, or x₀ for a 1-D cone) of every cone's x and z at a warm start, in the
 * scaled units (|q|∞ = 1, unit diagonal blocks of P). Measured on the generated stacks (bench/stacks.ts, warm
 * start = the previous frame's λ): Newton's warm median 10 iterations with 0.1; 11 with 0.03 and with 0.3.
 */
export const IPM_WARM_START_MARGIN = 0.1;
/**
 * Maximum polishing steps after the interior-point phase (each counts as an iteration; the polish stops at the
 * tolerance, so converged solves never take more). 4 left bench:solvers' grid-50 at KKT 3.2e-10 one step short
 * of 7.9e-11 (test/unit/bench-scenes-exact.test.ts).
 */
export const IPM_POLISH_STEPS = 8;

// ---- the sparse interior point's Newton systems (ipmSparse.ts, ipmSparseNewton.ts) ----
/**
 * A Woodbury solve (refined up to IPM_REFINEMENT_STEPS times) whose relative residual stays above this
 * switches the remaining iterations to PCG on the NT-scaled system ('krylov') or to the contact-space
 * factor ('contact-space'); also PCG's target (file header).
 */
export const SPARSE_IPM_WOODBURY_RESIDUAL = 1e-10;
/**
 * Conjugate-gradient steps allowed per Newton solve on the 'krylov' path (pcg.ts); a solve that has not
 * reached SPARSE_IPM_WOODBURY_RESIDUAL by then is judged by SPARSE_IPM_FORCING.
 */
export const SPARSE_IPM_PCG_MAX_ITERATIONS = 4;
/**
 * Forcing term of the inexact Newton steps (Dembo, Eisenstat & Steihaug, "Inexact Newton methods", SIAM J.
 * Numer. Anal. 19, 1982: ‖r − A dx‖ ≤ η‖r‖ with η < 1): a PCG solve that stops above
 * SPARSE_IPM_WOODBURY_RESIDUAL but at or below this is used as the Newton direction (counted in
 * inexactSolves); the status is still the KKT checker's on the true problem, so an inexact direction can
 * only cost iterations, never overstate convergence. Above it, the contact-space factor takes over.
 */
export const SPARSE_IPM_FORCING = 0.5;
/**
 * How the Newton systems are solved once Woodbury with refinement misses SPARSE_IPM_WOODBURY_RESIDUAL
 * (file header): 'krylov' (default) by PCG on the NT-scaled system, the contact-space factor only if that
 * fails; 'contact-space' (the earlier path, kept so that benchmarks show both) by the contact-space factor.
 */
export type SparseIpmLinearSolve = 'krylov' | 'contact-space';
/** Contact-space refinement stops once the relative residual is at or below this (a few ulps of the data). */
export const SPARSE_IPM_REFINED_RESIDUAL = 1e-14;
/**
 * Floor of a contact-space pivot relative to its diagonal entry: pivots below it (lost to cancellation
 * between a cone block's huge and tiny barrier curvatures) are replaced by it (blockSparseCholesky.ts
 * PivotRegularization) and each solve is refined against the exact operator.
 */
export const SPARSE_IPM_PIVOT_FLOOR = 1e-12;
/**
 * Complementarity at rounding level: once the stall test is armed (ipmSparse.ts SPARSE_IPM_STALL_ARM), the sparse
 * interior-point phase ends when τ = xᵀz/C of the scaled problem (x and z of order one: D normalises A's diagonal
 * and κ the right-hand side, ipmSetup.ts) is at or below this, and the natural-map polish finishes. Below it the
 * Newton systems are solved to rounding only and the iterations hardly lower the KKT max_rel: measured on a
 * 4259-contact box-pile-1000 world-step island, five iterations at τ ≈ 2e-17 took it from 2.9e-9 to 1.5e-9 before
 * the stall test's window closed (43 linear systems to converge; with this floor 37, the polish converging from
 * 4.2e-9 instead). 1e-14 and 1e-15 converged too; 1e-13 left the polish short of the tolerance. Not a tolerance:
 * the status is still the KKT checker's after the polish.
 */
export const SPARSE_IPM_TAU_ROUNDING = 1e-16;
