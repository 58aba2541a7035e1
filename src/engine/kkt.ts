/**
 * KKT checker for the QP-SOCP (docs/physics.md "The QP-SOCP and its KKT conditions"):
 *   λ ∈ K,  w = Aλ − b ∈ K*,  λᵢ·wᵢ = 0,  and the SOC Jordan product μ²λn·w_t + w_n·λ_t = 0.
 * The natural-map residual ‖λ − Proj_K(λ − ρw)‖∞ (ρᵢ = 1/max diag Aᵢᵢ) is the fixed-point residual
 * that projected iterations drive to zero.
 */
import type { ContactProblem } from './problem.js';
import { projectCone } from './cone.js';
import { hypot2 } from './math/hypot.js';
import { allFinite } from './math/dense.js';

export interface KktReport {
  primalAbs: number;
  dualAbs: number;
  compAbs: number;
  jordanAbs: number;
  naturalAbs: number;
  lamRef: number;
  wRef: number;
  primalRel: number;
  dualRel: number;
  compRel: number;
  jordanRel: number;
  naturalRel: number;
  /**
   * max of the relative residuals: the single number solvers and tests compare to a tolerance.
   * +∞ when λ, w or b hold a NaN or ±∞ (no tolerance is met by non-finite data).
   */
  maxRel: number;
  /** Contact with the largest relative residual (−1 when all are zero). */
  worstContact: number;
}

export const emptyKktReport = (): KktReport => ({
  primalAbs: 0,
  dualAbs: 0,
  compAbs: 0,
  jordanAbs: 0,
  naturalAbs: 0,
  lamRef: 0,
  wRef: 0,
  primalRel: 0,
  dualRel: 0,
  compRel: 0,
  jordanRel: 0,
  naturalRel: 0,
  maxRel: 0,
  worstContact: -1,
});

/** Scratch space so that solvers can evaluate KKT every iteration without allocating. */
export class KktWorkspace {
  readonly w: Float64Array;
  readonly Alam: Float64Array;
  readonly tmp: Float64Array;
  /** kktFromW's scratch: its scales (5) and per-contact maxima (6). */
  readonly scales = new Float64Array(5);
  readonly absMax = new Float64Array(6);
  readonly report: KktReport = emptyKktReport();
  private rhoBuf: Float64Array;
  constructor(n: number) {
    this.w = new Float64Array(n);
    this.Alam = new Float64Array(n);
    this.tmp = new Float64Array(3);
    this.rhoBuf = new Float64Array(Math.ceil(n / 3));
  }
  /** Per-contact natural-map steps, C entries (reused buffer). */
  rho(C: number): Float64Array {
    if (this.rhoBuf.length < C) this.rhoBuf = new Float64Array(C);
    return this.rhoBuf.length === C ? this.rhoBuf : this.rhoBuf.subarray(0, C);
  }
}

/**
 * The columns of A's non-zeros, row by row: every A[i][j] with j < first[i] or j > last[i] is an exact 0
 * (first = i + 1, last = i for a row of zeros). A need not be symmetric.
 */
export interface RowBand {
  readonly first: Int32Array;
  readonly last: Int32Array;
}

/** The RowBand of the n×n row-major matrix A (allocates; once per problem). */
export function rowBand(A: Float64Array, n: number): RowBand {
  const first = new Int32Array(n),
    last = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const row = i * n;
    let f = 0,
      l = n - 1;
    while (f < n && A[row + f] === 0) f++;
    while (l > f && A[row + l] === 0) l--;
    first[i] = f < n ? f : i + 1;
    last[i] = f < n ? l : i;
  }
  return { first, last };
}

/**
 * Computes w = Aλ − b and the KKT residuals into ws.report (no allocation). With `band` (rowBand(A)) the
 * product skips the exact zeros outside it when λ is finite: each skipped term is a ±0 that leaves the sum
 * unchanged (a sum that starts at +0 is never −0), so Aλ is the full product bit for bit.
 */
export function kktInto(p: ContactProblem, lambda: Float64Array, ws: KktWorkspace, band?: RowBand): KktReport {
  const { A, b, size: n, contactCount: C } = p;
  productMinusB(A, lambda, b, n, band !== undefined && allFinite(lambda) ? band : undefined, ws.Alam, ws.w);
  const rho = ws.rho(C);
  for (let c = 0; c < C; c++) {
    const o = 3 * c;
    const dmax = Math.max(A[o * n + o], A[(o + 1) * n + o + 1], A[(o + 2) * n + o + 2]);
    rho[c] = dmax > 0 ? 1 / dmax : 1;
  }
  return kktFromW(p.mu, lambda, ws.w, b, rho, ws);
}

/** Alam = Aλ and w = Aλ − b, each row summed in column order (over `band` only when given). */
function productMinusB(
  A: Float64Array,
  lambda: Float64Array,
  b: Float64Array,
  n: number,
  band: RowBand | undefined,
  Alam: Float64Array,
  w: Float64Array,
): void {
  for (let i = 0; i < n; i++) {
    let s = 0;
    const row = i * n;
    for (let j = band ? band.first[i] : 0, hi = band ? band.last[i] : n - 1; j <= hi; j++) s += A[row + j] * lambda[j];
    Alam[i] = s;
    w[i] = s - b[i];
  }
}

/**
 * The KKT residuals from λ and w = Aλ − b (computed by the caller, e.g. matrix-free from body velocities),
 * with the natural-map steps ρᵢ = 1/max diag Aᵢᵢ. Writes ws.report; no allocation.
 */
export function kktFromW(mu: Float64Array, lambda: Float64Array, w: Float64Array, b: Float64Array, rho: Float64Array, ws: KktWorkspace): KktReport {
  const C = mu.length,
    n = 3 * C;
  // The two long loops run in functions of their own that write their results inside the loop: as loops
  // followed by more code, V8 entered kktFromW's on-stack-replaced code on most calls and deoptimised it
  // right after the first loop ("insufficient type feedback"), finishing in the interpreter (see pgsSweep.ts
  // SweepOutcome). Same operations in the same order.
  kktScales(mu, lambda, w, b, n, C, ws.scales);
  return kktFromScales(mu, lambda, w, rho, ws);
}

/**
 * kktFromW with ws.scales already filled as kktScales fills them ([first non-finite index of λ, w, b (−1: none),
 * ‖w + b‖∞, ‖b‖∞, ‖λ‖∞, max μ]), e.g. by a caller's own pass over the rows (the matrix-free PGS computes them
 * with w). Writes ws.report; no allocation.
 */
export function kktFromScales(mu: Float64Array, lambda: Float64Array, w: Float64Array, rho: Float64Array, ws: KktWorkspace): KktReport {
  const C = mu.length;
  const sc = ws.scales;
  const firstNonFinite = sc[0],
    aNorm = sc[1],
    bNorm = sc[2],
    lamRef = sc[3],
    muMax = sc[4];
  const wRef = Math.max(aNorm, bNorm);
  const lr = lamRef > 0 ? lamRef : 1;
  const wr = wRef > 0 ? wRef : 1;
  const jr = lr * wr * Math.max(1, muMax * muMax);
  const r = ws.report;
  const ab = ws.absMax;
  kktContacts(mu, lambda, w, rho, C, lr, wr, jr, ws.tmp, ab);
  r.primalAbs = ab[0];
  r.dualAbs = ab[1];
  r.compAbs = ab[2];
  r.jordanAbs = ab[3];
  r.naturalAbs = ab[4];
  r.worstContact = ab[5];
  r.lamRef = lamRef;
  r.wRef = wRef;
  r.primalRel = r.primalAbs / lr;
  r.dualRel = r.dualAbs / wr;
  r.compRel = r.compAbs / (lr * wr);
  r.jordanRel = r.jordanAbs / jr;
  r.naturalRel = r.naturalAbs / lr;
  r.maxRel = Math.max(r.primalRel, r.dualRel, r.compRel, r.jordanRel, r.naturalRel);
  if (firstNonFinite >= 0 || !Number.isFinite(r.maxRel)) markNonFinite(r, firstNonFinite);
  return r;
}

/** kktFromW's scales into out: [first non-finite index (−1: none), ‖w + b‖∞, ‖b‖∞, ‖λ‖∞, max μ]. */
function kktScales(mu: Float64Array, lambda: Float64Array, w: Float64Array, b: Float64Array, n: number, C: number, out: Float64Array): void {
  let aNorm = 0,
    bNorm = 0,
    lamRef = 0,
    muMax = 0;
  // NaN-aware: Math.max and comparisons silently drop NaN, so non-finite entries are counted first
  let firstNonFinite = -1;
  out[0] = -1;
  out[1] = 0;
  out[2] = 0;
  out[3] = 0;
  out[4] = 0;
  // One loop (contacts, then their 3 rows; n = 3C): a second loop after the first deoptimised this
  // function's on-stack-replaced code at every call ("insufficient type feedback" at its first compare).
  for (let c = 0; c < C; c++) {
    muMax = Math.max(muMax, mu[c]);
    out[4] = muMax;
    for (let i = 3 * c; i < 3 * c + 3 && i < n; i++) {
      if (firstNonFinite < 0 && !(Number.isFinite(lambda[i]) && Number.isFinite(w[i]) && Number.isFinite(b[i]))) firstNonFinite = i;
      aNorm = Math.max(aNorm, Math.abs(w[i] + b[i]));
      bNorm = Math.max(bNorm, Math.abs(b[i]));
      lamRef = Math.max(lamRef, Math.abs(lambda[i]));
      out[0] = firstNonFinite;
      out[1] = aNorm;
      out[2] = bNorm;
      out[3] = lamRef;
    }
  }
}

/** kktFromW's per-contact residuals: out = [primal, dual, comp, jordan, natural maxima (absolute), worst contact]. */
function kktContacts(
  mu: Float64Array,
  lambda: Float64Array,
  w: Float64Array,
  rho: Float64Array,
  C: number,
  lr: number,
  wr: number,
  jr: number,
  t: Float64Array,
  out: Float64Array,
): void {
  let primalAbs = 0,
    dualAbs = 0,
    compAbs = 0,
    jordanAbs = 0,
    naturalAbs = 0,
    worstContact = -1;
  const lwr = lr * wr;
  let worst = 0;
  out[0] = 0;
  out[1] = 0;
  out[2] = 0;
  out[3] = 0;
  out[4] = 0;
  out[5] = -1;
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      m = mu[c];
    const ln = lambda[o],
      l1 = lambda[o + 1],
      l2 = lambda[o + 2];
    const wn = w[o],
      w1 = w[o + 1],
      w2 = w[o + 2];
    const wt = hypot2(w1, w2);
    const rh = rho[c];
    // An inactive contact (λ = 0) with w ∈ K*: every residual below is exactly 0 (primal, comp and Jordan
    // products of λ = 0; dual 0 by the test; natural: −ρw lies in the polar cone, which projectCone maps to 0
    // by the same comparison), so none changes a maximum or the worst contact. Tested on the numbers the full
    // path computes; NaN or ±∞ fail a comparison and take the full path. Most of a pile's speculative rows.
    if (ln === 0 && l1 === 0 && l2 === 0 && m >= 0 && m < Infinity && wn - wn === 0 && w1 - w1 === 0 && w2 - w2 === 0) {
      const pn = ln - rh * wn;
      if (m > 0 ? m * wt - wn <= 0 && m * hypot2(l1 - rh * w1, l2 - rh * w2) <= -pn : -wn <= 0 && pn <= 0) continue;
    }
    const lt = hypot2(l1, l2);
    const primal = m > 0 ? Math.max(0, lt - m * ln, -ln) : Math.max(lt, -ln, 0);
    const dual = m > 0 ? Math.max(0, m * wt - wn) : Math.max(0, -wn);
    const comp = Math.abs(ln * wn + l1 * w1 + l2 * w2);
    const jordan = hypot2(m * m * ln * w1 + wn * l1, m * m * ln * w2 + wn * l2);
    t[0] = ln - rh * wn;
    t[1] = l1 - rh * w1;
    t[2] = l2 - rh * w2;
    projectCone(t, 0, m, t);
    const natural = Math.max(Math.abs(ln - t[0]), Math.abs(l1 - t[1]), Math.abs(l2 - t[2]));
    if (primal > primalAbs) primalAbs = primal;
    if (dual > dualAbs) dualAbs = dual;
    if (comp > compAbs) compAbs = comp;
    if (jordan > jordanAbs) jordanAbs = jordan;
    if (natural > naturalAbs) naturalAbs = natural;
    // primal and natural share the scale ‖λ‖∞: max(p/l, q/l) = max(p, q)/l exactly (rounding is monotone)
    const rel = Math.max(Math.max(primal, natural) / lr, dual / wr, comp / lwr, jordan / jr);
    if (rel > worst) {
      worst = rel;
      worstContact = c;
    }
    out[0] = primalAbs;
    out[1] = dualAbs;
    out[2] = compAbs;
    out[3] = jordanAbs;
    out[4] = naturalAbs;
    out[5] = worstContact;
  }
}

/** A residual of non-finite data: every NaN becomes +∞, the max is +∞, the worst contact the first bad one. */
function markNonFinite(r: KktReport, firstNonFinite: number): void {
  const inf = (x: number): number => (Number.isNaN(x) ? Infinity : x);
  r.primalAbs = inf(r.primalAbs);
  r.dualAbs = inf(r.dualAbs);
  r.compAbs = inf(r.compAbs);
  r.jordanAbs = inf(r.jordanAbs);
  r.naturalAbs = inf(r.naturalAbs);
  r.primalRel = inf(r.primalRel);
  r.dualRel = inf(r.dualRel);
  r.compRel = inf(r.compRel);
  r.jordanRel = inf(r.jordanRel);
  r.naturalRel = inf(r.naturalRel);
  r.maxRel = Infinity;
  if (firstNonFinite >= 0) r.worstContact = Math.floor(firstNonFinite / 3);
  else if (r.worstContact < 0) r.worstContact = 0;
}

/** KKT residuals of λ for problem p (allocates; for tests, CLI and the inspector). */
export function kkt(p: ContactProblem, lambda: ArrayLike<number>): KktReport {
  const ws = new KktWorkspace(p.size);
  return { ...kktInto(p, Float64Array.from(lambda), ws) };
}

export type ContactClass = 'separating' | 'sticking' | 'sliding';

/** Relative tolerance of the separating/sticking/sliding labels (docs/physics.md "The QP-SOCP and its KKT conditions", Contact classes). */
export const CLASSIFY_TOLERANCE = 1e-7;

/**
 * Labels each contact: separating (λn ≈ 0), sticking (λn > 0, ‖w_t‖ ≈ 0), sliding (λn > 0, ‖w_t‖ > 0),
 * with ≈ relative to ‖λ‖∞ and max(‖b‖∞, ‖Aλ‖∞) as in the oracle.
 */
export function classifyContacts(p: { readonly contactCount: number }, lambda: Float64Array, w: Float64Array, lamRef: number, wRef: number): ContactClass[] {
  const out: ContactClass[] = new Array(p.contactCount);
  const lt = CLASSIFY_TOLERANCE * (lamRef > 0 ? lamRef : 1);
  const wt = CLASSIFY_TOLERANCE * (wRef > 0 ? wRef : 1);
  for (let c = 0; c < p.contactCount; c++) {
    const o = 3 * c;
    if (lambda[o] <= lt) out[c] = 'separating';
    else out[c] = hypot2(w[o + 1], w[o + 2]) <= wt ? 'sticking' : 'sliding';
  }
  return out;
}

/**
 * Projected-gradient residual (natural map, Facchinei & Pang 2003) with one step ρ for every contact:
 * ‖λ − Proj_K(λ − ρ(Aλ − b))‖₂ (a common convergence test, ρ = 1).
 */
export function projectedGradientResidual(p: ContactProblem, lambda: ArrayLike<number>, rho = 1): number {
  const { A, b, size: n } = p;
  const t = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = -b[i];
    for (let j = 0; j < n; j++) s += A[i * n + j] * lambda[j];
    t[i] = lambda[i] - rho * s;
  }
  let r2 = 0;
  for (let c = 0; c < p.contactCount; c++) {
    projectCone(t, 3 * c, p.mu[c], t);
    for (let k = 0; k < 3; k++) r2 += (lambda[3 * c + k] - t[3 * c + k]) ** 2;
  }
  return Math.sqrt(r2);
}
