/**
 * The dense interior point's Newton systems (ipm.ts, whose file header derives them): the solver's state
 * (DenseIpm: scaled problem, iterate, Newton matrix and factor, every work array) and the 3×3 block Cholesky
 * of its block-Jacobi scaling. Split from ipm.ts so that the iteration there reads as its phases (start,
 * predictor–corrector, step, termination, polish); moved unchanged.
 */
import type { ContactProblem } from '../problem.js';
import { choleskyInto, choleskySolve, REGULARIZATION_MAX, symmetricEnvelope, type CholeskyFactor, type Envelope } from '../math/cholesky.js';
import { luInto, luSolve } from '../math/lu.js';
import { PolishWorkspace } from './polish.js';
import type { SolveStatus } from './types.js';
import { arwSolve, CONE_ORTHANT, ntScaleAll } from './ipmCones.js';
import { scaledProblem } from './ipmSetup.js';
import { IPM_BLOCK_PIVOT_TOLERANCE, IPM_LU_PIVOT_TOLERANCE, IPM_REFINEMENT_STEPS, IPM_SHIFT_START, IPM_START_DAMPING } from './ipmParameters.js';

/**
 * Cholesky factor L (lower, row-major, into bs[bo..bo+8]) of the symmetric 3×3 matrix whose lower
 * triangle is a[a0 + i·ld + j], j ≤ i. Returns false if it is not numerically positive definite.
 */
function blockCholesky(a: Float64Array, ld: number, a0: number, bs: Float64Array, bo: number): boolean {
  const a00 = a[a0],
    a10 = a[a0 + ld],
    a11 = a[a0 + ld + 1];
  const a20 = a[a0 + 2 * ld],
    a21 = a[a0 + 2 * ld + 1],
    a22 = a[a0 + 2 * ld + 2];
  if (!(a00 > 0)) return false;
  const l00 = Math.sqrt(a00),
    l10 = a10 / l00,
    l20 = a20 / l00;
  const d1 = a11 - l10 * l10;
  if (!(d1 > IPM_BLOCK_PIVOT_TOLERANCE * a11)) return false;
  const l11 = Math.sqrt(d1),
    l21 = (a21 - l20 * l10) / l11;
  const d2 = a22 - l20 * l20 - l21 * l21;
  if (!(d2 > IPM_BLOCK_PIVOT_TOLERANCE * a22)) return false;
  bs[bo] = l00;
  bs[bo + 1] = 0;
  bs[bo + 2] = 0;
  bs[bo + 3] = l10;
  bs[bo + 4] = l11;
  bs[bo + 5] = 0;
  bs[bo + 6] = l20;
  bs[bo + 7] = l21;
  bs[bo + 8] = Math.sqrt(d2);
  return Number.isFinite(l21) && Number.isFinite(bs[bo + 8]);
}

/** v[..] ← L⁻¹v for the 3-vector (v[i], v[i+s], v[i+2s]) and lower L at bs[bo..]. */
function blockForward(bs: Float64Array, bo: number, v: Float64Array, i: number, s: number): void {
  const y0 = v[i] / bs[bo];
  const y1 = (v[i + s] - bs[bo + 3] * y0) / bs[bo + 4];
  v[i + 2 * s] = (v[i + 2 * s] - bs[bo + 6] * y0 - bs[bo + 7] * y1) / bs[bo + 8];
  v[i] = y0;
  v[i + s] = y1;
}

/** v[i..i+2] ← L⁻ᵀv for lower L at bs[bo..]. */
function blockBackward(bs: Float64Array, bo: number, v: Float64Array, i: number): void {
  const x2 = v[i + 2] / bs[bo + 8];
  const x1 = (v[i + 1] - bs[bo + 7] * x2) / bs[bo + 4];
  v[i] = (v[i] - bs[bo + 3] * x1 - bs[bo + 6] * x2) / bs[bo];
  v[i + 1] = x1;
  v[i + 2] = x2;
}

/**
 * The dense interior point's state (setup phase): the scaled problem (file header), the iterate (x, z), the
 * Newton matrix, its factor and every work array — all allocated here, once, so that the iteration loop
 * allocates nothing. Its methods are the linear algebra of one iteration; the phases are the functions below.
 */
export class DenseIpm {
  readonly n: number;
  readonly C: number;
  readonly kind: Int8Array;
  readonly D: Float64Array;
  readonly kappa: number;
  readonly pinned: Uint8Array;
  readonly P: Float64Array;
  readonly q: Float64Array;
  /** P's envelope by whole contacts: the Newton matrix and its factor stay inside it (contacts ordered by body make it a band). */
  readonly env: Envelope;
  readonly x: Float64Array;
  readonly z: Float64Array;
  readonly xSave: Float64Array;
  readonly zSave: Float64Array;
  readonly dx: Float64Array;
  readonly dz: Float64Array;
  /** Predictor directions in the Jordan frame used. */
  readonly dxa: Float64Array;
  readonly dza: Float64Array;
  readonly u: Float64Array;
  readonly rx: Float64Array;
  readonly rhs: Float64Array;
  /** NT-scaled point λ_NT = Wz = W⁻¹x. */
  readonly nt: Float64Array;
  readonly tmp: Float64Array;
  readonly res: Float64Array;
  readonly corr: Float64Array;
  readonly y: Float64Array;
  /** W⁻¹ per cone. */
  readonly winv: Float64Array;
  /** Block-Jacobi scaling factors (3×3 lower Cholesky factors). */
  readonly bs: Float64Array;
  /** One 3×3 block. */
  readonly blk = new Float64Array(9);
  /** Scaled Newton matrix. */
  readonly H: Float64Array;
  /** Its Cholesky or LU factor. */
  readonly L: Float64Array;
  readonly piv: Int32Array;
  readonly best: Float64Array;
  readonly factor: CholeskyFactor;
  readonly pw: PolishWorkspace;
  /** [τ, merit] of dualResidual. */
  readonly measures = new Float64Array(2);
  regularization = 0;
  /** Diagonal shift of the current factorisation (0: the Newton matrix itself). */
  private shift = 0;
  /** The current factor is LU (AHO) rather than Cholesky. */
  useLu = false;
  /** H's blocks above the block diagonal are not scaled yet (buildNewtonMatrix, scaleUpperBlocks). */
  private upperPending = false;

  constructor(
    p: ContactProblem,
    readonly lam: Float64Array,
    /** Refine Newton solves only when their factor is of a shifted matrix (IpmOptions.refinement 'shifted'). */
    private readonly refineShiftedOnly = false,
  ) {
    const n = p.size,
      C = p.contactCount;
    this.n = n;
    this.C = C;
    // ---- change of variables λ = κ D x (file header) ----
    const { kind, D, kappa, pinned, P, q } = scaledProblem(p);
    this.kind = kind;
    this.D = D;
    this.kappa = kappa;
    this.pinned = pinned;
    this.P = P;
    this.q = q;
    this.env = symmetricEnvelope(P, n, 3);
    // ---- work arrays (nothing is allocated inside the iteration loop) ----
    this.x = new Float64Array(n);
    this.z = new Float64Array(n);
    this.xSave = new Float64Array(n);
    this.zSave = new Float64Array(n);
    this.dx = new Float64Array(n);
    this.dz = new Float64Array(n);
    this.dxa = new Float64Array(n);
    this.dza = new Float64Array(n);
    this.u = new Float64Array(n);
    this.rx = new Float64Array(n);
    this.rhs = new Float64Array(n);
    this.nt = new Float64Array(n);
    this.tmp = new Float64Array(n);
    this.res = new Float64Array(n);
    this.corr = new Float64Array(n);
    this.y = new Float64Array(n);
    this.winv = new Float64Array(9 * C);
    this.bs = new Float64Array(9 * C);
    this.H = new Float64Array(n * n);
    this.L = new Float64Array(n * n);
    this.piv = new Int32Array(n);
    this.best = new Float64Array(n);
    this.factor = { n, L: this.L, regularization: 0 };
    this.pw = new PolishWorkspace(n, C);
  }

  /** Factorises H + shift·I, shift = 0 first, then IPM_SHIFT_START·10ᵏ up to REGULARIZATION_MAX. */
  factorise(lu: boolean): boolean {
    const { H, n, L, piv } = this;
    this.useLu = lu;
    if (lu) this.scaleUpperBlocks(); // LU reads the whole of H
    for (let shift = 0; shift <= REGULARIZATION_MAX * (1 + 1e-12); shift = shift === 0 ? IPM_SHIFT_START : shift * 10) {
      const ok = lu ? luInto(H, n, shift, L, piv, IPM_LU_PIVOT_TOLERANCE) : choleskyInto(H, n, shift, L);
      if (ok) {
        this.shift = shift;
        if (shift > this.regularization) this.regularization = shift;
        return true;
      }
    }
    return false;
  }

  private factorSolve(r: Float64Array, out: Float64Array): void {
    if (this.useLu) luSolve(this.L, this.n, this.piv, r, out);
    else choleskySolve(this.factor, r, out, this.env);
  }

  /**
   * dx = (Newton matrix)⁻¹ rhs via the scaled matrix H = L⁻¹(·)L⁻ᵀ: dx = L⁻ᵀ H⁻¹ L⁻¹ rhs, with
   * iterative refinement against the unshifted H (removes the bias of a shift; [V] §3 refines too) — with
   * the option refinement: 'shifted', only when the factor is of a shifted H.
   */
  newtonSolve(): void {
    const { tmp, rhs, bs, y, res, corr, H, n, C, env, dx } = this;
    tmp.set(rhs);
    for (let c = 0; c < C; c++) blockForward(bs, 9 * c, tmp, 3 * c, 1);
    this.factorSolve(tmp, y);
    const steps = this.refineShiftedOnly && this.shift === 0 ? 0 : IPM_REFINEMENT_STEPS;
    if (steps > 0) this.scaleUpperBlocks();
    for (let it = 0; it < steps; it++) {
      for (let i = 0; i < n; i++) {
        let s = tmp[i];
        const row = i * n;
        for (let j = env.first[i], hi = env.last[i]; j <= hi; j++) s -= H[row + j] * y[j];
        res[i] = s;
      }
      this.factorSolve(res, corr);
      for (let i = 0; i < n; i++) y[i] += corr[i];
    }
    dx.set(y);
    for (let c = 0; c < C; c++) blockBackward(bs, 9 * c, dx, 3 * c);
  }

  /**
   * Newton matrix P + (block diagonal): δ₀I (mode 0, starting point), W⁻² (mode 1, NT: [V] eq. (11)
   * with G = −I) or Arw(x)⁻¹Arw(z) (mode 2, AHO); pinned rows/columns are identity. Then block-Jacobi
   * scaled, H = L⁻¹(·)L⁻ᵀ with L the Cholesky factors of the (symmetric parts of the) 3×3 diagonal
   * blocks, so that every diagonal block becomes (close to) the identity. Per-coordinate scaling is not
   * enough: the diagonal of a sliding contact's block is dominated by the huge barrier curvature
   * normal to the cone, which hides the O(1) curvature along the cone surface and makes the matrix
   * look singular (e.g. near-duplicate contacts). `jacobi` selects per-coordinate scaling instead
   * (fallback when the block-scaled matrix does not factorise). Returns false if a diagonal block is
   * singular.
   */
  buildNewtonMatrix(mode: 0 | 1 | 2, jacobi = false): boolean {
    const { H, P, n, C, kind, winv, x, z, blk, bs } = this;
    H.set(P);
    for (let c = 0; c < C; c++) {
      const o = 3 * c,
        wo = 9 * c;
      if (kind[c] === CONE_ORTHANT) {
        H[o * n + o] += mode === 0 ? IPM_START_DAMPING : mode === 1 ? winv[wo] * winv[wo] : z[o] / x[o];
        H[(o + 1) * n + o + 1] = 1;
        H[(o + 2) * n + o + 2] = 1;
      } else if (mode === 2) {
        // columns of Arw(x)⁻¹Arw(z); Arw(z) has columns (z0, z1, z2), (z1, z0, 0), (z2, 0, z0) ([V] §2.2)
        arwSolve(x, o, z[o], z[o + 1], z[o + 2], blk, 0);
        arwSolve(x, o, z[o + 1], z[o], 0, blk, 3);
        arwSolve(x, o, z[o + 2], 0, z[o], blk, 6);
        for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) H[(o + i) * n + o + j] += blk[3 * j + i];
      } else {
        for (let i = 0; i < 3; i++) {
          for (let j = 0; j < 3; j++) {
            let s = 0;
            if (mode === 0) s = i === j ? IPM_START_DAMPING : 0;
            else for (let k = 0; k < 3; k++) s += winv[wo + 3 * i + k] * winv[wo + 3 * k + j];
            H[(o + i) * n + o + j] += s;
          }
        }
      }
    }
    for (let c = 0; c < C; c++) {
      const o = 3 * c;
      if (jacobi) {
        // fallback: per-coordinate (Jacobi) scaling, L = diag(√|H_ii|)
        bs.fill(0, 9 * c, 9 * c + 9);
        for (let i = 0; i < 3; i++) {
          const d = Math.abs(H[(o + i) * n + o + i]);
          bs[9 * c + 4 * i] = d > 0 && Number.isFinite(d) ? Math.sqrt(d) : 1;
        }
      } else if (mode === 2) {
        for (let i = 0; i < 3; i++) for (let j = 0; j <= i; j++) blk[3 * i + j] = 0.5 * (H[(o + i) * n + o + j] + H[(o + j) * n + o + i]);
        if (!blockCholesky(blk, 3, 0, bs, 9 * c)) return false;
      } else if (!blockCholesky(H, n, o * n + o, bs, 9 * c)) return false;
    }
    // only inside H's envelope: outside it the entries are exact zeros and stay zero. Each 3×3 block of H is
    // scaled from its own entries only, so the blocks above the diagonal, which only the LU (AHO) and the
    // refinement read, are scaled when one of them first needs them (scaleUpperBlocks): the same H bit for bit
    this.scaleBlocks(false);
    this.upperPending = true;
    if (mode === 2) this.scaleUpperBlocks();
    return true;
  }

  /** H's blocks above the block diagonal (upper) or on and below it (!upper): L⁻¹H, then (L⁻¹H)L⁻ᵀ, block by block. */
  private scaleBlocks(upper: boolean): void {
    const { H, n, C, bs, env } = this;
    for (let c = 0; c < C; c++) {
      const lo = upper ? 3 * c + 3 : env.first[3 * c],
        hi = upper ? env.last[3 * c] : 3 * c + 2;
      for (let j = lo; j <= hi; j++) blockForward(bs, 9 * c, H, 3 * c * n + j, n); // L⁻¹H
    }
    for (let i = 0; i < n; i++) {
      const d = (i - (i % 3)) / 3,
        lo = upper ? d + 1 : env.first[i] / 3,
        hi = upper ? env.last[i] / 3 : d;
      for (let c = lo; c <= hi; c++) blockForward(bs, 9 * c, H, i * n + 3 * c, 1); // (L⁻¹H)L⁻ᵀ
    }
  }

  /** Scales H's upper blocks if buildNewtonMatrix left them for later (the Cholesky factor reads the lower triangle only). */
  private scaleUpperBlocks(): void {
    if (!this.upperPending) return;
    this.scaleBlocks(true);
    this.upperPending = false;
  }

  /** λ = κ D x (0 on pinned rows). */
  toLambda(src: Float64Array): void {
    const { lam, pinned, kappa, D, n } = this;
    for (let i = 0; i < n; i++) lam[i] = pinned[i] ? 0 : kappa * D[i] * src[i];
  }

  /**
   * The iteration's Newton matrix, factorised: AHO if in that phase and it factorises, else NT. Returns
   * 'aho' or 'nt', or the failed status when neither can be formed.
   */
  newtonMatrixFor(aho: boolean, iterations: number): 'aho' | 'nt' | SolveStatus {
    if (aho && this.buildNewtonMatrix(2) && this.factorise(true)) return 'aho';
    if (!ntScaleAll(this.x, this.z, this.kind, this.C, this.winv, this.nt))
      return { kind: 'failed', reason: `iterate left the cone interior at iteration ${iterations}` };
    if (!(this.buildNewtonMatrix(1) && this.factorise(false)) && !(this.buildNewtonMatrix(1, true) && this.factorise(false)))
      return { kind: 'failed', reason: `Newton matrix not factorisable even with shift ${REGULARIZATION_MAX} at iteration ${iterations}` };
    return 'nt';
  }
}
