/**
 * The exact one-contact Coulomb problem, the local solver of block Gauss–Seidel (coulombNsgs.ts): given the
 * contact's 3×3 block M (as given, not necessarily symmetric), q and μ, find r with
 *
 *   u = M r + q,   r ∈ K_μ,   ũ = u + μ‖u_t‖e_n ∈ K*_μ,   r ⊥ ũ          (De Saxcé & Feng 1991)
 *
 * by enumerating its three cases, as Siconos's enumerative local solver does (Acary, Cadoux, Lemaréchal &
 * Malick 2011 §2; Bonnefon & Daviet's So-bogus local solver, "Inverse dynamics with Coulomb friction", 2011):
 *   take-off  r = 0, valid iff q_n ≥ 0;
 *   stick     u = 0: r = −M⁻¹q, valid iff r ∈ K_μ;
 *   slide     r = r_n(1, −μcosθ, −μsinθ), r_n > 0, u_n = 0, u_t = α(cosθ, sinθ) with α > 0.
 * For the slide, a(θ) = M(1, −μcosθ, −μsinθ) gives r_n = −q_n/a_n(θ) (a_n > 0 since q_n < 0), and
 * v(θ) = a_n(θ)q_t − q_n a_t(θ) must be parallel to e(θ) = (cosθ, sinθ) with v·e > 0. Each component of v
 * is affine in (cosθ, sinθ), so g(θ) = v(θ) × e(θ) is a trigonometric polynomial of degree 2 (at most four
 * roots, the quartic of the enumerative method):
 *   g = K0 + K1 sinθ + K2 cosθ + K3 sin2θ + K4 cos2θ.
 * Its roots are bracketed on LOCAL_SAMPLES angles and refined by safeguarded Newton to rounding, or found
 * by Newton alone from the previous sweep's angle (warm start). The exact solution makes the sweep's merit
 * fall to rounding on one contact.
 */

/** Angles sampled to bracket the roots of g (four roots at most, so 32 samples separate them unless two nearly coincide). */
export const LOCAL_SAMPLES = 32;
/** Newton/bisection steps at most per root. */
export const LOCAL_ROOT_STEPS = 60;
/** A root is accepted when a step changes θ by at most this (radians): rounding of θ ∈ [−π, π]. */
export const LOCAL_ANGLE_TOLERANCE = 4e-16;

const TWO_PI = 2 * Math.PI;
const SAMPLE_COS = new Float64Array(LOCAL_SAMPLES + 1);
const SAMPLE_SIN = new Float64Array(LOCAL_SAMPLES + 1);
for (let j = 0; j <= LOCAL_SAMPLES; j++) {
  SAMPLE_COS[j] = Math.cos((TWO_PI * j) / LOCAL_SAMPLES);
  SAMPLE_SIN[j] = Math.sin((TWO_PI * j) / LOCAL_SAMPLES);
}

/** How a local solve ended: take-off, stick, slide, or none (no case gave a valid solution — M singular or far from positive definite — and r is left unchanged). */
export const LocalCase = { TakeOff: 0, Stick: 1, Slide: 2, None: 3 } as const;
export type LocalCase = (typeof LocalCase)[keyof typeof LocalCase];

/** The coefficients of g and of r_n, for one (M, q, μ); reused while refining a root. */
class SlideCoefficients {
  k0 = 0;
  k1 = 0;
  k2 = 0;
  k3 = 0;
  k4 = 0;
  /** a_n(θ) = an0 + an1 cosθ + an2 sinθ. */
  an0 = 0;
  an1 = 0;
  an2 = 0;
  /** v(θ)·e(θ) = dot0 + … (evaluated directly from the v coefficients). */
  a1 = 0;
  b1 = 0;
  c1 = 0;
  a2 = 0;
  b2 = 0;
  c2 = 0;
}

const slide = new SlideCoefficients();

/**
 * Solves the local problem for contact block M[mo..mo+8] (row-major: n, t1, t2), q = (q0, q1, q2), μ;
 * r[o..o+2] holds the previous value on entry (its angle warm-starts the slide) and the solution on exit.
 */
export function solveContact(M: Float64Array, mo: number, q0: number, q1: number, q2: number, mu: number, r: Float64Array, o: number): LocalCase {
  if (q0 >= 0) {
    r[o] = 0;
    r[o + 1] = 0;
    r[o + 2] = 0;
    return LocalCase.TakeOff;
  }
  const m00 = M[mo],
    m01 = M[mo + 1],
    m02 = M[mo + 2],
    m10 = M[mo + 3],
    m11 = M[mo + 4],
    m12 = M[mo + 5],
    m20 = M[mo + 6],
    m21 = M[mo + 7],
    m22 = M[mo + 8];
  // stick: r = −M⁻¹q by Cramer's rule (cofactors)
  const c00 = m11 * m22 - m12 * m21,
    c01 = m12 * m20 - m10 * m22,
    c02 = m10 * m21 - m11 * m20;
  const det = m00 * c00 + m01 * c01 + m02 * c02;
  // the stick trial's tangential impulse, whose opposite is the first guess of the slip direction
  let guess1 = -q1,
    guess2 = -q2;
  if (det !== 0 && Number.isFinite(det)) {
    const inv = -1 / det;
    const s0 = (c00 * q0 + (m02 * m21 - m01 * m22) * q1 + (m01 * m12 - m02 * m11) * q2) * inv;
    const s1 = (c01 * q0 + (m00 * m22 - m02 * m20) * q1 + (m02 * m10 - m00 * m12) * q2) * inv;
    const s2 = (c02 * q0 + (m01 * m20 - m00 * m21) * q1 + (m00 * m11 - m01 * m10) * q2) * inv;
    if (s0 > 0 && s1 * s1 + s2 * s2 <= mu * mu * s0 * s0) {
      r[o] = s0;
      r[o + 1] = s1;
      r[o + 2] = s2;
      return LocalCase.Stick;
    }
    guess1 = s1;
    guess2 = s2;
  }
  if (mu <= 0) {
    // frictionless: r = (r_n, 0, 0) with u_n = 0
    if (!(m00 > 0)) return LocalCase.None;
    r[o] = -q0 / m00;
    r[o + 1] = 0;
    r[o + 2] = 0;
    return LocalCase.Slide;
  }
  // slide: the coefficients of v_k = a_k + b_k cosθ + c_k sinθ and of g = v1 sinθ − v2 cosθ
  const s = slide;
  s.a1 = -q0 * m10 + q1 * m00;
  s.a2 = -q0 * m20 + q2 * m00;
  s.b1 = mu * (q0 * m11 - q1 * m01);
  s.b2 = mu * (q0 * m21 - q2 * m01);
  s.c1 = mu * (q0 * m12 - q1 * m02);
  s.c2 = mu * (q0 * m22 - q2 * m02);
  s.k0 = 0.5 * (s.c1 - s.b2);
  s.k1 = s.a1;
  s.k2 = -s.a2;
  s.k3 = 0.5 * (s.b1 - s.c2);
  s.k4 = -0.5 * (s.c1 + s.b2);
  s.an0 = m00;
  s.an1 = -mu * m01;
  s.an2 = -mu * m02;
  // warm start: Newton from the previous angle when the previous r slid
  const pn = r[o],
    pt1 = r[o + 1],
    pt2 = r[o + 2];
  if (pn > 0 && (pt1 !== 0 || pt2 !== 0)) {
    const theta = newtonFrom(Math.atan2(-pt2, -pt1));
    if (!Number.isNaN(theta) && acceptSlide(theta, q0, mu, r, o)) return LocalCase.Slide;
  }
  if (guess1 !== 0 || guess2 !== 0) {
    const theta = newtonFrom(Math.atan2(-guess2, -guess1));
    if (!Number.isNaN(theta) && acceptSlide(theta, q0, mu, r, o)) return LocalCase.Slide;
  }
  // bracket the roots of g on the sampled angles, refine each, keep the first valid one
  let gPrev = gAt(SAMPLE_COS[0], SAMPLE_SIN[0]);
  for (let j = 1; j <= LOCAL_SAMPLES; j++) {
    const g = gAt(SAMPLE_COS[j], SAMPLE_SIN[j]);
    if ((gPrev <= 0 && g >= 0) || (gPrev >= 0 && g <= 0)) {
      const theta = bracketedRoot((TWO_PI * (j - 1)) / LOCAL_SAMPLES, (TWO_PI * j) / LOCAL_SAMPLES, gPrev);
      if (acceptSlide(theta, q0, mu, r, o)) return LocalCase.Slide;
    }
    gPrev = g;
  }
  return LocalCase.None;
}

function gAt(c: number, sn: number): number {
  const s = slide;
  return s.k0 + s.k1 * sn + s.k2 * c + 2 * s.k3 * sn * c + s.k4 * (c * c - sn * sn);
}

function dgAt(c: number, sn: number): number {
  const s = slide;
  return s.k1 * c - s.k2 * sn + 2 * s.k3 * (c * c - sn * sn) - 4 * s.k4 * sn * c;
}

/** Newton on g from θ0; NaN when it does not settle within LOCAL_ROOT_STEPS. */
function newtonFrom(theta0: number): number {
  let theta = theta0;
  for (let k = 0; k < LOCAL_ROOT_STEPS; k++) {
    const c = Math.cos(theta),
      sn = Math.sin(theta);
    const d = dgAt(c, sn);
    if (d === 0 || !Number.isFinite(d)) return Number.NaN;
    const step = gAt(c, sn) / d;
    if (!(Math.abs(step) < 1)) return Number.NaN; // left the basin: the bracketing search takes over
    theta -= step;
    if (Math.abs(step) <= LOCAL_ANGLE_TOLERANCE * (1 + Math.abs(theta))) return theta;
  }
  return Number.NaN;
}

/** The root of g in [lo, hi] (g(lo) = gLo, sign change inside) by Newton safeguarded by bisection. */
function bracketedRoot(lo: number, hi: number, gLo: number): number {
  let theta = 0.5 * (lo + hi);
  const loSign = gLo;
  for (let k = 0; k < LOCAL_ROOT_STEPS; k++) {
    const c = Math.cos(theta),
      sn = Math.sin(theta);
    const g = gAt(c, sn);
    if (g === 0) return theta;
    if (g < 0 === loSign < 0) lo = theta;
    else hi = theta;
    const d = dgAt(c, sn);
    let next = d !== 0 ? theta - g / d : Number.NaN;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    const step = Math.abs(next - theta);
    theta = next;
    if (step <= LOCAL_ANGLE_TOLERANCE * (1 + Math.abs(theta)) || hi - lo <= LOCAL_ANGLE_TOLERANCE * (1 + Math.abs(theta))) return theta;
  }
  return theta;
}

/** Writes the slide solution at angle θ into r when it is valid (a_n > 0, v·e > 0); returns whether it was. */
function acceptSlide(theta: number, q0: number, mu: number, r: Float64Array, o: number): boolean {
  const s = slide;
  const c = Math.cos(theta),
    sn = Math.sin(theta);
  const an = s.an0 + s.an1 * c + s.an2 * sn;
  if (!(an > 0)) return false;
  const v1 = s.a1 + s.b1 * c + s.c1 * sn,
    v2 = s.a2 + s.b2 * c + s.c2 * sn;
  if (!(v1 * c + v2 * sn > 0)) return false;
  const rn = -q0 / an;
  r[o] = rn;
  r[o + 1] = -mu * rn * c;
  r[o + 2] = -mu * rn * sn;
  return true;
}
