/**
 * 3×3 block kernels of the sparse interior point's Newton systems (ipmSparseNewton.ts): H = W⁻² + Σ, Ĥ = I + WΣW,
 * products and the SPD inverse of one contact's block (row-major, at an offset). Written out term by term in the
 * loop order of the sums (no rounding change when moved); moved from ipmSparseNewton.ts unchanged.
 */
/** out = diag(d) + a a (3×3 row-major at a[ao..], d[dof..dof+2]); the loop order of the sums kept (no rounding change). */
export function gramPlusDiag3(a: Float64Array, ao: number, d: Float64Array, dof: number, out: Float64Array, oo: number): void {
  out[oo + 0] = d[dof + 0] + a[ao + 0] * a[ao + 0] + a[ao + 1] * a[ao + 3] + a[ao + 2] * a[ao + 6];
  out[oo + 1] = a[ao + 0] * a[ao + 1] + a[ao + 1] * a[ao + 4] + a[ao + 2] * a[ao + 7];
  out[oo + 2] = a[ao + 0] * a[ao + 2] + a[ao + 1] * a[ao + 5] + a[ao + 2] * a[ao + 8];
  out[oo + 3] = a[ao + 3] * a[ao + 0] + a[ao + 4] * a[ao + 3] + a[ao + 5] * a[ao + 6];
  out[oo + 4] = d[dof + 1] + a[ao + 3] * a[ao + 1] + a[ao + 4] * a[ao + 4] + a[ao + 5] * a[ao + 7];
  out[oo + 5] = a[ao + 3] * a[ao + 2] + a[ao + 4] * a[ao + 5] + a[ao + 5] * a[ao + 8];
  out[oo + 6] = a[ao + 6] * a[ao + 0] + a[ao + 7] * a[ao + 3] + a[ao + 8] * a[ao + 6];
  out[oo + 7] = a[ao + 6] * a[ao + 1] + a[ao + 7] * a[ao + 4] + a[ao + 8] * a[ao + 7];
  out[oo + 8] = d[dof + 2] + a[ao + 6] * a[ao + 2] + a[ao + 7] * a[ao + 5] + a[ao + 8] * a[ao + 8];
}

/** out = I + a diag(d) b (3×3 row-major); the loop order of the sums kept. */
export function identityPlusScaledGram3(
  a: Float64Array,
  ao: number,
  d: Float64Array,
  dof: number,
  b: Float64Array,
  bo: number,
  out: Float64Array,
  oo: number,
): void {
  out[oo + 0] = 1 + a[ao + 0] * d[dof + 0] * b[bo + 0] + a[ao + 1] * d[dof + 1] * b[bo + 3] + a[ao + 2] * d[dof + 2] * b[bo + 6];
  out[oo + 1] = a[ao + 0] * d[dof + 0] * b[bo + 1] + a[ao + 1] * d[dof + 1] * b[bo + 4] + a[ao + 2] * d[dof + 2] * b[bo + 7];
  out[oo + 2] = a[ao + 0] * d[dof + 0] * b[bo + 2] + a[ao + 1] * d[dof + 1] * b[bo + 5] + a[ao + 2] * d[dof + 2] * b[bo + 8];
  out[oo + 3] = a[ao + 3] * d[dof + 0] * b[bo + 0] + a[ao + 4] * d[dof + 1] * b[bo + 3] + a[ao + 5] * d[dof + 2] * b[bo + 6];
  out[oo + 4] = 1 + a[ao + 3] * d[dof + 0] * b[bo + 1] + a[ao + 4] * d[dof + 1] * b[bo + 4] + a[ao + 5] * d[dof + 2] * b[bo + 7];
  out[oo + 5] = a[ao + 3] * d[dof + 0] * b[bo + 2] + a[ao + 4] * d[dof + 1] * b[bo + 5] + a[ao + 5] * d[dof + 2] * b[bo + 8];
  out[oo + 6] = a[ao + 6] * d[dof + 0] * b[bo + 0] + a[ao + 7] * d[dof + 1] * b[bo + 3] + a[ao + 8] * d[dof + 2] * b[bo + 6];
  out[oo + 7] = a[ao + 6] * d[dof + 0] * b[bo + 1] + a[ao + 7] * d[dof + 1] * b[bo + 4] + a[ao + 8] * d[dof + 2] * b[bo + 7];
  out[oo + 8] = 1 + a[ao + 6] * d[dof + 0] * b[bo + 2] + a[ao + 7] * d[dof + 1] * b[bo + 5] + a[ao + 8] * d[dof + 2] * b[bo + 8];
}

/** out = a b (3×3 row-major); the loop order of the sums kept. */
export function mul3x3(a: Float64Array, ao: number, b: Float64Array, bo: number, out: Float64Array, oo: number): void {
  out[oo + 0] = a[ao + 0] * b[bo + 0] + a[ao + 1] * b[bo + 3] + a[ao + 2] * b[bo + 6];
  out[oo + 1] = a[ao + 0] * b[bo + 1] + a[ao + 1] * b[bo + 4] + a[ao + 2] * b[bo + 7];
  out[oo + 2] = a[ao + 0] * b[bo + 2] + a[ao + 1] * b[bo + 5] + a[ao + 2] * b[bo + 8];
  out[oo + 3] = a[ao + 3] * b[bo + 0] + a[ao + 4] * b[bo + 3] + a[ao + 5] * b[bo + 6];
  out[oo + 4] = a[ao + 3] * b[bo + 1] + a[ao + 4] * b[bo + 4] + a[ao + 5] * b[bo + 7];
  out[oo + 5] = a[ao + 3] * b[bo + 2] + a[ao + 4] * b[bo + 5] + a[ao + 5] * b[bo + 8];
  out[oo + 6] = a[ao + 6] * b[bo + 0] + a[ao + 7] * b[bo + 3] + a[ao + 8] * b[bo + 6];
  out[oo + 7] = a[ao + 6] * b[bo + 1] + a[ao + 7] * b[bo + 4] + a[ao + 8] * b[bo + 7];
  out[oo + 8] = a[ao + 6] * b[bo + 2] + a[ao + 7] * b[bo + 5] + a[ao + 8] * b[bo + 8];
}

/** Inverse of the symmetric positive definite 3×3 block at a[o..] into out[oo..] (via Cholesky); false if not PD. */
export function spdInverse3(a: Float64Array, o: number, out: Float64Array, oo: number): boolean {
  const l00 = Math.sqrt(a[o]);
  if (!(l00 > 0)) return false;
  const l10 = a[o + 3] / l00,
    l20 = a[o + 6] / l00;
  const d1 = a[o + 4] - l10 * l10;
  if (!(d1 > 0)) return false;
  const l11 = Math.sqrt(d1),
    l21 = (a[o + 7] - l20 * l10) / l11;
  const d2 = a[o + 8] - l20 * l20 - l21 * l21;
  if (!(d2 > 0)) return false;
  const l22 = Math.sqrt(d2);
  // Linv (lower), then A⁻¹ = Linvᵀ Linv
  const i00 = 1 / l00,
    i11 = 1 / l11,
    i22 = 1 / l22;
  const i10 = (-l10 * i00) / l11;
  const i21 = (-l21 * i11) / l22;
  const i20 = (-(l20 * i00) - l21 * i10) / l22;
  out[oo] = i00 * i00 + i10 * i10 + i20 * i20;
  out[oo + 1] = out[oo + 3] = i11 * i10 + i21 * i20;
  out[oo + 2] = out[oo + 6] = i22 * i20;
  out[oo + 4] = i11 * i11 + i21 * i21;
  out[oo + 5] = out[oo + 7] = i22 * i21;
  out[oo + 8] = i22 * i22;
  return Number.isFinite(out[oo]) && Number.isFinite(out[oo + 4]) && Number.isFinite(out[oo + 8]);
}

/** out[o..o+2] = H⁻¹ block (row-major 3×3 at h[ho..]) · v[o..o+2]. */
export function mul3(h: Float64Array, ho: number, v: Float64Array, o: number, out: Float64Array): void {
  const v0 = v[o],
    v1 = v[o + 1],
    v2 = v[o + 2];
  out[o] = h[ho] * v0 + h[ho + 1] * v1 + h[ho + 2] * v2;
  out[o + 1] = h[ho + 3] * v0 + h[ho + 4] * v1 + h[ho + 5] * v2;
  out[o + 2] = h[ho + 6] * v0 + h[ho + 7] * v1 + h[ho + 8] * v2;
}
