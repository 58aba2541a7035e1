/**
 * √(x² + y²) for hot loops. Math.hypot is exact to an ulp for any inputs but is a generic builtin call
 * in V8 (~100 ns, and it allocates a scratch array per call); √(x² + y²) is within about one ulp of it
 * (two roundings in the sum, halved by the square root; Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., §3.1 and §27.8) as long as x² + y² neither overflows nor underflows, and outside
 * that range (or for NaN / ±∞) this falls back to Math.hypot itself.
 */
const SQUARE_SUM_MIN = 1e-280;
const SQUARE_SUM_MAX = 1e280;

export function hypot2(x: number, y: number): number {
  const s = x * x + y * y;
  if (s > SQUARE_SUM_MIN && s < SQUARE_SUM_MAX) return Math.sqrt(s);
  if (x === 0 && y === 0) return 0;
  return Math.hypot(x, y);
}

/**
 * Math.hypot(x, y, z) without its per-call scratch array: the algorithm of V8's builtin (v8 src/builtins/
 * math.tq MathHypot: magnitudes scaled by the largest, Kahan-compensated sum of squares, √sum · max),
 * written out, so in Node it returns the same double as Math.hypot, which it calls for ±∞ and NaN.
 */
export function hypot3(x: number, y: number, z: number): number {
  const ax = Math.abs(x),
    ay = Math.abs(y),
    az = Math.abs(z);
  let max = ax > ay ? ax : ay;
  if (az > max) max = az;
  if (!(max < Infinity)) return Math.hypot(x, y, z); // ∞, NaN (a NaN max skips every comparison above)
  if (Number.isNaN(ax) || Number.isNaN(ay) || Number.isNaN(az)) return NaN;
  if (max === 0) return 0;
  let sum = 0,
    comp = 0;
  let n = ax / max,
    summand = n * n - comp,
    pre = sum + summand;
  comp = pre - sum - summand;
  sum = pre;
  n = ay / max;
  summand = n * n - comp;
  pre = sum + summand;
  comp = pre - sum - summand;
  sum = pre;
  n = az / max;
  summand = n * n - comp;
  pre = sum + summand;
  sum = pre;
  return Math.sqrt(sum) * max;
}

/** Math.hypot(x, y) without its scratch array: V8's algorithm as in hypot3 (the same double in Node). */
export function hypot2Exact(x: number, y: number): number {
  const ax = Math.abs(x),
    ay = Math.abs(y);
  const max = ax > ay ? ax : ay;
  if (!(max < Infinity)) return Math.hypot(x, y); // ∞, NaN
  if (Number.isNaN(ax) || Number.isNaN(ay)) return NaN;
  if (max === 0) return 0;
  const u = ax / max,
    v = ay / max;
  return Math.sqrt(u * u + v * v) * max; // V8's Kahan compensation after one summand is exactly 0
}

/** Math.hypot(x, y, z, u) without its scratch array: V8's algorithm as in hypot3 (the same double in Node). */
export function hypot4(x: number, y: number, z: number, u: number): number {
  const ax = Math.abs(x),
    ay = Math.abs(y),
    az = Math.abs(z),
    au = Math.abs(u);
  let max = ax > ay ? ax : ay;
  if (az > max) max = az;
  if (au > max) max = au;
  if (!(max < Infinity)) return Math.hypot(x, y, z, u); // ∞, NaN (a NaN max skips every comparison above)
  if (Number.isNaN(ax) || Number.isNaN(ay) || Number.isNaN(az) || Number.isNaN(au)) return NaN;
  if (max === 0) return 0;
  let sum = 0,
    comp = 0;
  let n = ax / max,
    summand = n * n - comp,
    pre = sum + summand;
  comp = pre - sum - summand;
  sum = pre;
  n = ay / max;
  summand = n * n - comp;
  pre = sum + summand;
  comp = pre - sum - summand;
  sum = pre;
  n = az / max;
  summand = n * n - comp;
  pre = sum + summand;
  comp = pre - sum - summand;
  sum = pre;
  n = au / max;
  summand = n * n - comp;
  pre = sum + summand;
  sum = pre;
  return Math.sqrt(sum) * max;
}
