/**
 * When two numbers of two runs "differ" (docs/compare.md "Tolerance"): by default when |a − b| exceeds a
 * relative tolerance (1e-9) of the quantity's scale — the size of that kind of quantity in the frame (the
 * largest speed, the largest impulse, the bodies' size …), so a body at rest in a moving scene is not held to
 * an absolute 1e-9 of zero; with `exact`, when their bits differ (counted in units in the last place, ULPs).
 */

/** Default relative tolerance of `diff` (of each quantity's scale). */
export const DEFAULT_RELATIVE_TOLERANCE = 1e-9;

export interface DiffTolerance {
  /** |a − b| ≤ relative·scale counts as equal (ignored when exact). */
  readonly relative: number;
  /** Bitwise comparison: any differing bit (including the sign of zero) is a difference. */
  readonly exact: boolean;
}

export const DEFAULT_TOLERANCE: DiffTolerance = { relative: DEFAULT_RELATIVE_TOLERANCE, exact: false };

const f64 = new Float64Array(1);
const i64 = new BigInt64Array(f64.buffer);

/** The double's position on the number line in ULPs (IEEE 754 bits as a sign-magnitude integer; −0 and +0 both 0). */
function ordered(x: number): bigint {
  f64[0] = x;
  const bits = i64[0];
  return bits < 0n ? -(bits & 0x7fffffffffffffffn) : bits;
}

/** Units in the last place between two finite doubles (0 for a = b, also for −0 and +0). */
export function ulpDistance(a: number, b: number): number {
  const d = ordered(a) - ordered(b);
  return Number(d < 0n ? -d : d);
}

/** Do a and b differ under the tolerance, for a quantity of this scale? */
export function differs(a: number, b: number, scale: number, tol: DiffTolerance): boolean {
  if (tol.exact) return !Object.is(a, b);
  return Math.abs(a - b) > tol.relative * scale;
}

/** Is rel a difference under the tolerance? */
export const exceeds = (rel: number, tol: DiffTolerance): boolean => (tol.exact ? rel > 0 : rel > tol.relative);

/** Difference of two 3-vectors (b multiplied by sign): ‖Δ‖/scale, or the largest ULP distance. */
export function vecRel(a: readonly number[], b: readonly number[], sign: number, scale: number, tol: DiffTolerance): number {
  if (tol.exact) {
    let u = 0;
    for (let k = 0; k < a.length; k++) {
      const y = sign * b[k];
      if (!Object.is(a[k], y)) u = Math.max(u, 1, ulpDistance(a[k], y));
    }
    return u;
  }
  let s = 0;
  for (let k = 0; k < a.length; k++) s += (a[k] - sign * b[k]) ** 2;
  return Math.sqrt(s) / scale;
}

export function numRel(a: number, b: number, scale: number, tol: DiffTolerance): number {
  if (tol.exact) return Object.is(a, b) ? 0 : Math.max(1, ulpDistance(a, b));
  return Math.abs(a - b) / scale;
}
