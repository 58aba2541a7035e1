/**
 * The number conversion a typed-column decoder of a frame line needs (bench/numberScan.ts times it against
 * JSON.parse): a JSON number's bytes to the nearest double, without building its text: the decimal M·10^E (M of at most
 * 19 significant digits, |E| ≤ 22) is formed exactly as a double-double (Dekker, "A floating-point technique for
 * extending the available precision", Numer. Math. 18, 1971: TwoProduct, TwoSum) and divided by the exact
 * 10^E with one remainder step, so the quotient is known to about 2⁻¹⁰⁰ relative; its rounding to a double is
 * then the correctly rounded value unless it lies within 2⁻⁸⁰ relative of a midpoint between two doubles, which
 * is tested, and then (as for more digits or a larger exponent) Number() of the text decides, as JSON.parse
 * would. With ≤ 15 digits and no remainder this is Clinger's exact fast path (PLDI 1990). The result is
 * bit-identical to JSON.parse of the same token (test/unit/decimal-bytes.test.ts).
 */
import { latin1 } from '../src/format/jsonBytes.js';

/** 10^k for k ≤ 22: exact doubles. */
const POW10 = Float64Array.from({ length: 23 }, (_, k) => 10 ** k);
/** Dekker's splitter 2^27 + 1. */
const SPLIT = 134217729;
/** Digits of M accumulated exactly in one double (10^15 < 2^53). */
const HI_DIGITS = 15;
/** Most significant digits the double-double path takes (10^19 < 2^64: M is exact in 106 bits). */
const MAX_DIGITS = 19;
/** Relative distance from a midpoint below which Number() of the text decides (the double-double's error ≈ 2⁻¹⁰⁰). */
const MIDPOINT_MARGIN = 2 ** -80;

/**
 * Where the last number read by decimalAt ended (the byte after it): a property of a shared object, not an
 * exported `let`, whose live binding a CommonJS build (tsx) reads through a getter per number.
 */
export const decimalCursor = { end: 0 };

/** Exact a·b as p + e (Dekker's TwoProduct; |a|, |b| far below 2^996). */
let prodErr = 0;
function twoProduct(a: number, b: number): number {
  const p = a * b;
  let t = SPLIT * a;
  const ah = t - (t - a),
    al = a - ah;
  t = SPLIT * b;
  const bh = t - (t - b),
    bl = b - bh;
  prodErr = al * bl - (p - ah * bh - al * bh - ah * bl);
  return p;
}

/**
 * The JSON number at buf[p] (RFC 8259 §6 grammar: the caller has checked buf[p] is '-' or a digit); sets
 * decimalCursor.end. Returns NaN when the bytes are not a JSON number (the caller then reports the token).
 */
export function decimalAt(buf: Uint8Array, p: number, end: number): number {
  const start = p;
  let neg = false;
  if (buf[p] === 0x2d) {
    neg = true;
    p++;
  }
  let hi = 0,
    lo = 0,
    loDigits = 0,
    digits = 0,
    frac = 0,
    c = p < end ? buf[p] : 0;
  if (c === 0x30) {
    c = ++p < end ? buf[p] : 0;
    if (c >= 0x30 && c <= 0x39) return NaN; // a leading zero
  } else if (c >= 0x31 && c <= 0x39) {
    while (c >= 0x30 && c <= 0x39) {
      if (digits < HI_DIGITS) hi = hi * 10 + (c - 0x30);
      else {
        lo = lo * 10 + (c - 0x30);
        loDigits++;
      }
      digits++;
      c = ++p < end ? buf[p] : 0;
    }
  } else return NaN;
  if (c === 0x2e) {
    c = ++p < end ? buf[p] : 0;
    if (!(c >= 0x30 && c <= 0x39)) return NaN;
    while (c >= 0x30 && c <= 0x39) {
      if (digits > 0 || c !== 0x30) {
        if (digits < HI_DIGITS) hi = hi * 10 + (c - 0x30);
        else {
          lo = lo * 10 + (c - 0x30);
          loDigits++;
        }
        digits++;
      }
      frac++;
      c = ++p < end ? buf[p] : 0;
    }
  }
  let exp = 0;
  if (c === 0x65 || c === 0x45) {
    c = ++p < end ? buf[p] : 0;
    let eneg = false;
    if (c === 0x2d || c === 0x2b) {
      eneg = c === 0x2d;
      c = ++p < end ? buf[p] : 0;
    }
    if (!(c >= 0x30 && c <= 0x39)) return NaN;
    while (c >= 0x30 && c <= 0x39) {
      if (exp < 1e6) exp = exp * 10 + (c - 0x30);
      c = ++p < end ? buf[p] : 0;
    }
    if (eneg) exp = -exp;
  }
  decimalCursor.end = p;
  const e10 = exp - frac;
  let v: number;
  if (digits === 0) v = 0;
  else if (loDigits === 0 && e10 >= -22 && e10 <= 22)
    v = e10 < 0 ? hi / POW10[-e10] : hi * POW10[e10]; // Clinger: one rounding
  else if (digits <= MAX_DIGITS && e10 < 0 && e10 >= -22) v = quotient(hi, lo, loDigits, POW10[-e10]);
  else v = NaN;
  if (Number.isNaN(v)) v = Number(latin1(buf, neg ? start + 1 : start, p));
  return neg ? -v : v;
}

/** (hi·10^loDigits + lo) / d correctly rounded, or NaN when it lies too near a midpoint to tell here. */
function quotient(hi: number, lo: number, loDigits: number, d: number): number {
  // M = s + t exactly (s = fl(M))
  const p = twoProduct(hi, POW10[loDigits]),
    pe = prodErr;
  const s = p + lo,
    bb = s - p,
    sErr = p - (s - bb) + (lo - bb);
  const t = pe + sErr;
  // q1 = fl(s / d); s − q1·d exactly; the rest of the quotient
  const q1 = s / d;
  const m = twoProduct(q1, d),
    me = prodErr;
  const r = s - m - me + t;
  const q2 = r / d;
  const x = q1 + q2;
  const y = q2 - (x - q1); // x + y = q1 + q2 (|q2| ≤ ulp(q1): Fast2Sum)
  const margin = Math.abs(x) * MIDPOINT_MARGIN;
  return x + (y + margin) === x && x + (y - margin) === x ? x : NaN;
}
