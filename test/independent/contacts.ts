// Contact generation of the independent stepper: sphere–plane, box–plane (corners), sphere–sphere and
// axis-aligned box-on-box face contact (the 4 corners of the overlap rectangle). Each contact follows
// docs/recording-format.md: the normal points from body b into body a, t1 × t2 = n, depth ≥ 0, and a
// speculative contact (Catto, "Contact Manifolds"/"Speculative contacts", GDC 2013) carries its gap > 0.

import type { Body, Material } from './bodies.js';
import { add, dot, norm, rotate, scale, sub, tangents, type Vec3 } from './vec.js';

export interface Contact {
  a: number;
  b: number;
  point: Vec3;
  normal: Vec3;
  t1: Vec3;
  t2: Vec3;
  depth: number;
  /** speculative gap, m (0 for touching or overlapping contacts) */
  gap: number;
  mu: number;
  e: number;
  feature: string;
}

export interface DetectOptions {
  /** speculative margin, m: contacts whose surfaces are closer than this are kept with their gap (0: only touching/overlapping) */
  margin: number;
}

/** Surfaces closer than this count as touching (rounding of exactly-placed bodies). */
const TOUCH_TOLERANCE = 1e-9;

/** Box2D's material combination: μ = √(μa·μb), e = max(ea, eb). */
export function combine(a: Material, b: Material): { mu: number; e: number } {
  return { mu: Math.sqrt(a.mu * b.mu), e: Math.max(a.e, b.e) };
}

function makeContact(
  bodies: readonly Body[],
  a: number,
  b: number,
  point: Vec3,
  normal: Vec3,
  separation: number,
  feature: string,
  opts: DetectOptions,
): Contact | null {
  if (separation > Math.max(opts.margin, TOUCH_TOLERANCE)) return null;
  const [t1, t2] = tangents(normal);
  const { mu, e } = combine(bodies[a].material, bodies[b].material);
  const depth = separation < 0 ? -separation : 0;
  const gap = separation > TOUCH_TOLERANCE ? separation : 0;
  return { a, b, point, normal, t1, t2, depth, gap, mu, e, feature };
}

function boxCorners(body: Body): Vec3[] {
  if (body.shape.kind !== 'box') throw new Error(`${body.name}: not a box`);
  const [hx, hy, hz] = body.shape.half;
  const out: Vec3[] = [];
  for (const sz of [-1, 1]) for (const sy of [-1, 1]) for (const sx of [-1, 1]) out.push(add(body.x, rotate(body.q, [sx * hx, sy * hy, sz * hz])));
  return out;
}

function planeContacts(bodies: readonly Body[], ia: number, ip: number, opts: DetectOptions): Contact[] {
  const body = bodies[ia];
  const plane = bodies[ip].shape;
  if (plane.kind !== 'plane') return [];
  const n = plane.normal;
  const out: Contact[] = [];
  if (body.shape.kind === 'sphere') {
    const p = sub(body.x, scale(n, body.shape.radius));
    const c = makeContact(bodies, ia, ip, p, n, dot(n, p) - plane.offset, `${body.name}/${bodies[ip].name}`, opts);
    if (c) out.push(c);
  } else if (body.shape.kind === 'box') {
    boxCorners(body).forEach((p, i) => {
      const c = makeContact(bodies, ia, ip, p, n, dot(n, p) - plane.offset, `${body.name}:v${i}/${bodies[ip].name}`, opts);
      if (c) out.push(c);
    });
  }
  return out;
}

function sphereSphere(bodies: readonly Body[], ia: number, ib: number, opts: DetectOptions): Contact[] {
  const a = bodies[ia];
  const b = bodies[ib];
  if (a.shape.kind !== 'sphere' || b.shape.kind !== 'sphere') return [];
  const d = sub(a.x, b.x);
  const dist = norm(d);
  const n = scale(d, 1 / dist);
  const p = sub(a.x, scale(n, a.shape.radius));
  const c = makeContact(bodies, ia, ib, p, n, dist - a.shape.radius - b.shape.radius, `${a.name}/${b.name}`, opts);
  return c ? [c] : [];
}

/** Upright box on upright box: the 4 corners of the overlap of the upper box's bottom face and the lower box's top face. */
function boxOnBox(bodies: readonly Body[], i: number, j: number, opts: DetectOptions): Contact[] {
  const [ia, ib] = bodies[i].x[2] >= bodies[j].x[2] ? [i, j] : [j, i];
  const a = bodies[ia];
  const b = bodies[ib];
  if (a.shape.kind !== 'box' || b.shape.kind !== 'box') return [];
  const ha = a.shape.half;
  const hb = b.shape.half;
  const lo = [Math.max(a.x[0] - ha[0], b.x[0] - hb[0]), Math.max(a.x[1] - ha[1], b.x[1] - hb[1])];
  const hi = [Math.min(a.x[0] + ha[0], b.x[0] + hb[0]), Math.min(a.x[1] + ha[1], b.x[1] + hb[1])];
  if (lo[0] >= hi[0] || lo[1] >= hi[1]) return [];
  const bottomA = a.x[2] - ha[2];
  const separation = bottomA - (b.x[2] + hb[2]);
  const out: Contact[] = [];
  const corners: [number, number][] = [
    [lo[0], lo[1]],
    [hi[0], lo[1]],
    [hi[0], hi[1]],
    [lo[0], hi[1]],
  ];
  corners.forEach(([x, y], k) => {
    const c = makeContact(bodies, ia, ib, [x, y, bottomA], [0, 0, 1], separation, `${a.name}:c${k}/${b.name}`, opts);
    if (c) out.push(c);
  });
  return out;
}

/** All contacts of the world, ordered by body pair (i < j) and then by feature. */
export function detectContacts(bodies: readonly Body[], opts: DetectOptions): Contact[] {
  const out: Contact[] = [];
  for (let i = 0; i < bodies.length; i++) {
    for (let j = i + 1; j < bodies.length; j++) {
      const si = bodies[i].shape.kind;
      const sj = bodies[j].shape.kind;
      if (si === 'plane') out.push(...planeContacts(bodies, j, i, opts));
      else if (sj === 'plane') out.push(...planeContacts(bodies, i, j, opts));
      else if (si === 'sphere' && sj === 'sphere') out.push(...sphereSphere(bodies, j, i, opts));
      else if (si === 'box' && sj === 'box') out.push(...boxOnBox(bodies, i, j, opts));
      // sphere–box is not needed by the scenarios and is not generated
    }
  }
  return out;
}
