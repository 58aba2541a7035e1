/**
 * Numbers and counts as text for people (CLI output, solver reasons, check messages): one rule for
 * significant digits and one for plurals, so "KKT 2.1e-1", "0.21" and "0.210000" never describe the same
 * number in one screen, and "1 iterations" never appears. Machine output (--json) keeps full precision.
 */

/** Significant digits of a measured value unless the caller needs more (λ tables use 4). */
export const SIGNIFICANT_DIGITS = 3;

/** Magnitudes printed without an exponent: [FIXED_MIN, FIXED_MAX); others as 1.23e-7 or 4.56e+9. */
const FIXED_MIN = 1e-3;
const FIXED_MAX = 1e5;

/** Trailing zeros of a mantissa dropped: "2.10" → "2.1", "3.00" → "3". */
const trimZeros = (m: string): string => (m.includes('.') ? m.replace(/\.?0+$/, '') : m);

/**
 * x to `digits` significant digits: 0.2104 → "0.21" (digits 2), 3.4e-11 → "3.4e-11", 1.043e11 → "1.04e+11",
 * 38.823 → "38.8", 200 → "200"; 0 → "0"; ±∞ → "∞" / "-∞"; NaN → "NaN". Trailing zeros are dropped.
 */
export function formatNumber(x: number, digits = SIGNIFICANT_DIGITS): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  if (x === 0) return '0';
  const a = Math.abs(x);
  // rounding may carry into the next decade (99999.7 → 1.00e+5): decide on the rounded value
  const rounded = Number(x.toPrecision(digits));
  const ra = Math.abs(rounded);
  if (a >= FIXED_MIN && ra < FIXED_MAX) return String(rounded);
  const [mantissa, exponent] = x.toExponential(digits - 1).split('e');
  return `${trimZeros(mantissa)}e${exponent}`;
}

/** formatNumber with an explicit sign: "+0.055", "-4.5", "0". */
export function formatSigned(x: number, digits = SIGNIFICANT_DIGITS): string {
  const t = formatNumber(x, digits);
  return x > 0 ? `+${t}` : t;
}

/** A value and its unit: "38.8 ms", "1e-6 J". */
export function formatQuantity(x: number, unit: string, digits = SIGNIFICANT_DIGITS): string {
  return `${formatNumber(x, digits)} ${unit}`;
}

/** "1 iteration", "200 iterations", "1 body" / "3 bodies" (give the plural when it is not noun + "s"). */
export function formatCount(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
