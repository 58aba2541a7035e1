/**
 * The interior points' parameters (ipm.ts dense, ipmSparse.ts sparse; references as in ipm.ts's file header:
 * [V] Vandenberghe, "The CVXOPT linear and quadratic cone program solvers", 2010; [M] Mehrotra 1992), one
 * source for both solvers. Split from ipm.ts so that its phases (ipmCones.ts, ipmSetup.ts, ipmDenseNewton.ts)
 * read them without importing the solver.
 */
/** Default iteration budget (CVXOPT's `maxiters` default, [V] §3). */
export const IPM_DEFAULT_MAX_ITERATIONS = 100;
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
