/**
 * Narrow phase: contact manifolds (≤ 4 points) for sphere, box and plane pairs.
 *
 * Output convention (docs/physics.md "Conventions"): for collide(a, b) every normal points FROM b INTO a (λn > 0 pushes a
 * along +n); `point` is midway between the two surfaces; `penetration` = max(0, −separation) where
 * `separation` is the signed surface distance along n (negative when overlapping). Pairs separated by
 * more than `margin` (default CONTACT_MARGIN) give no contacts; pairs within it give speculative contacts
 * with penetration 0 and separation in (0, margin]. Feature ids name the touching features (box feature
 * numbering in shapes.ts) and are stable while the same features touch, for the contact cache.
 *
 * Feature ids:  sphere–sphere "sphere|sphere";  sphere–plane "sphere|plane";
 *   sphere–box "sphere|face3" / "sphere|edge7" / "sphere|vertex2" (box region of the closest point);
 *   box–plane "vertex5|plane";
 *   box–box face contact "<ref>.face<f>><inc>.face<g>:" + point feature, where ref/inc are "a"/"b"
 *     (argument order) and the point feature is an incident vertex "b.vertex3", an incident edge clipped
 *     by a reference side face "b.edge7/a.face1", or a reference face corner "a.face0/a.face3";
 *   box–box edge contact "a.edge<i>|b.edge<j>".
 */
import { boxFrameOf, CONTACT_MARGIN, isStaticCollider, worldPlane, type BoxFrame, type Collider } from './shapes.js';
import type { Vec3 } from '../math/vec3.js';
import { hypot3 } from '../math/hypot.js';
import { boxBox } from './boxBox.js';
import {
  contact,
  DISTANCE_EPSILON,
  dot3,
  edgeIndex,
  FALLBACK_NORMAL,
  faceIndex,
  type GeometricContact,
  MAX_MANIFOLD_POINTS,
  signed,
  writeBoxVertex,
} from './contactGeometry.js';

export { type GeometricContact, MAX_MANIFOLD_POINTS, DISTANCE_EPSILON } from './contactGeometry.js';
export { AXIS_BIAS_ABSOLUTE, AXIS_BIAS_RELATIVE, CLIP_TOLERANCE, closestPointsSegments, EDGE_PARALLEL_TOLERANCE } from './boxBox.js';

/**
 * Contacts between two colliders, normals from b into a (either argument order works for every pair).
 * Plane–plane and static–static pairs return nothing.
 */
export function collide(a: Collider, b: Collider, margin: number = CONTACT_MARGIN): GeometricContact[] {
  if (isStaticCollider(a) && isStaticCollider(b)) return [];
  const ra = RANK[a.shape.kind],
    rb = RANK[b.shape.kind];
  if (ra <= rb) return collideOrdered(a, b, margin);
  // Compute with the roles swapped (normal from a into b), then flip the normals.
  const swapped = collideOrdered(b, a, margin);
  // the contacts of a manifold share one normal: flip each distinct normal once, and the flipped contacts share it
  let from: Vec3 | null = null,
    flipped: Vec3 = FALLBACK_NORMAL;
  for (let k = 0; k < swapped.length; k++) {
    const c = swapped[k];
    if (c.normal !== from) {
      from = c.normal;
      flipped = signed(c.normal, -1);
    }
    swapped[k] = contact(c.point, flipped, c.separation, c.featureId);
  }
  return swapped;
}

const RANK = { sphere: 0, box: 1, plane: 2 } as const;

function collideOrdered(a: Collider, b: Collider, margin: number): GeometricContact[] {
  const sa = a.shape,
    sb = b.shape;
  if (sa.kind === 'sphere') {
    if (sb.kind === 'sphere') return sphereSphere(a.position, sa.radius, b.position, sb.radius, margin);
    if (sb.kind === 'box') return sphereBox(a.position, sa.radius, boxFrameOf(b), margin);
    if (sb.kind === 'plane') return spherePlane(a.position, sa.radius, worldPlane(b), margin);
  } else if (sa.kind === 'box') {
    if (sb.kind === 'box') return boxBox(boxFrameOf(a), boxFrameOf(b), margin);
    if (sb.kind === 'plane') return boxPlane(boxFrameOf(a), worldPlane(b), margin);
  }
  return []; // plane–plane
}

// ---------------------------------------------------------------------------------------------------
// Sphere pairs

/** Centre distance vs radius sum (Ericson §4.3.1); normal along the centre line, from b's centre to a's. */
function sphereSphere(pa: Vec3, ra: number, pb: Vec3, rb: number, margin: number): GeometricContact[] {
  const dx = pa[0] - pb[0],
    dy = pa[1] - pb[1],
    dz = pa[2] - pb[2];
  const dist = hypot3(dx, dy, dz);
  const sep = dist - ra - rb;
  if (sep > margin) return [];
  const n: Vec3 = dist > DISTANCE_EPSILON ? [dx / dist, dy / dist, dz / dist] : FALLBACK_NORMAL;
  // Surfaces: pa − ra·n (on a) and pb + rb·n (on b); midway = (pa + pb)/2 + n·(rb − ra)/2.
  const k = 0.5 * (rb - ra);
  const point: Vec3 = [0.5 * (pa[0] + pb[0]) + k * n[0], 0.5 * (pa[1] + pb[1]) + k * n[1], 0.5 * (pa[2] + pb[2]) + k * n[2]];
  return [contact(point, n, sep, 'sphere|sphere')];
}

/** Signed distance of the centre to the plane minus the radius (Ericson §5.1.1 closest point on plane, §5.2.2 sphere vs plane). */
function spherePlane(c: Vec3, r: number, pl: { normal: Vec3; offset: number }, margin: number): GeometricContact[] {
  const n = pl.normal;
  const sep = dot3(n, c) - pl.offset - r;
  if (sep > margin) return [];
  // Sphere surface c − r·n, plane surface c − (r + sep)·n; midway c − (r + sep/2)·n.
  const k = r + 0.5 * sep;
  return [contact([c[0] - k * n[0], c[1] - k * n[1], c[2] - k * n[2]], n, sep, 'sphere|plane')];
}

/**
 * Sphere (a) against box (b): closest point on the OBB by clamping the box-local centre (Ericson §5.1.4).
 * Centre inside the box: push out through the nearest face (minimum h_k − |q_k|).
 */
function sphereBox(c: Vec3, r: number, B: BoxFrame, margin: number): GeometricContact[] {
  const d: Vec3 = [c[0] - B.c[0], c[1] - B.c[1], c[2] - B.c[2]];
  const q = [dot3(d, B.ax[0]), dot3(d, B.ax[1]), dot3(d, B.ax[2])]; // Rᵀ(c − p_b)
  const cl = [0, 0, 0],
    signs = [0, 0, 0];
  let clamped = 0;
  for (let k = 0; k < 3; k++) {
    const h = B.h[k];
    if (q[k] > h) {
      cl[k] = h;
      signs[k] = 1;
      clamped++;
    } else if (q[k] < -h) {
      cl[k] = -h;
      signs[k] = -1;
      clamped++;
    } else cl[k] = q[k];
  }
  const lx = q[0] - cl[0],
    ly = q[1] - cl[1],
    lz = q[2] - cl[2];
  const dist = hypot3(lx, ly, lz);
  let nl: [number, number, number], sep: number, feature: string;
  if (clamped > 0 && dist > DISTANCE_EPSILON) {
    nl = [lx / dist, ly / dist, lz / dist];
    sep = dist - r;
    if (clamped === 1) {
      const k = signs[0] !== 0 ? 0 : signs[1] !== 0 ? 1 : 2;
      feature = `face${faceIndex(k, signs[k])}`;
    } else if (clamped === 2) {
      const k = signs[0] === 0 ? 0 : signs[1] === 0 ? 1 : 2; // the unclamped axis is the edge direction
      feature = `edge${edgeIndex(k, signs)}`;
    } else {
      feature = `vertex${(signs[0] > 0 ? 1 : 0) | (signs[1] > 0 ? 2 : 0) | (signs[2] > 0 ? 4 : 0)}`;
    }
  } else {
    // Centre inside (or on) the box: nearest face.
    let k = 0,
      best = B.h[0] - Math.abs(q[0]);
    for (let j = 1; j < 3; j++) {
      const g = B.h[j] - Math.abs(q[j]);
      if (g < best) {
        best = g;
        k = j;
      }
    }
    const s = q[k] >= 0 ? 1 : -1;
    nl = [0, 0, 0];
    nl[k] = s;
    cl[k] = s * B.h[k];
    sep = -best - r;
    feature = `face${faceIndex(k, s)}`;
  }
  if (sep > margin) return [];
  const X = B.ax[0],
    Y = B.ax[1],
    Z = B.ax[2];
  const n: Vec3 = [nl[0] * X[0] + nl[1] * Y[0] + nl[2] * Z[0], nl[0] * X[1] + nl[1] * Y[1] + nl[2] * Z[1], nl[0] * X[2] + nl[1] * Y[2] + nl[2] * Z[2]];
  const pb: Vec3 = [
    B.c[0] + cl[0] * X[0] + cl[1] * Y[0] + cl[2] * Z[0],
    B.c[1] + cl[0] * X[1] + cl[1] * Y[1] + cl[2] * Z[1],
    B.c[2] + cl[0] * X[2] + cl[1] * Y[2] + cl[2] * Z[2],
  ];
  // Midway between the box surface point pb and the sphere surface point c − r·n.
  const point: Vec3 = [0.5 * (pb[0] + c[0] - r * n[0]), 0.5 * (pb[1] + c[1] - r * n[1]), 0.5 * (pb[2] + c[2] - r * n[2])];
  return [contact(point, n, sep, `sphere|${feature}`)];
}

// ---------------------------------------------------------------------------------------------------
// Box–plane

/**
 * Box (a) against plane (b): signed vertex distances s_v = n·x_v − offset; the (up to) 4 deepest vertices
 * with s_v ≤ margin, ties broken by vertex index, each at midway x_v − (s_v/2)·n (vertex–face).
 */
/** Box–plane feature ids "vertex<v>|plane". */
const VERTEX_PLANE_IDS = Array.from({ length: 8 }, (_, v) => `vertex${v}|plane`);

/** Scratch of boxPlane: the 8 vertices (3 numbers each), their signed distances, the candidates in order. */
const planeX = new Float64Array(24),
  planeS = new Float64Array(8),
  planeOrder = new Int32Array(8),
  planeKeep = new Int32Array(MAX_MANIFOLD_POINTS);

function boxPlane(B: BoxFrame, pl: { normal: Vec3; offset: number }, margin: number): GeometricContact[] {
  const n = pl.normal;
  // Candidates (s_v ≤ margin) ordered by (s_v, v): insertion in ascending v keeps ties in vertex order.
  let count = 0;
  for (let v = 0; v < 8; v++) {
    writeBoxVertex(B, v, planeX, 3 * v);
    const s = n[0] * planeX[3 * v] + n[1] * planeX[3 * v + 1] + n[2] * planeX[3 * v + 2] - pl.offset;
    planeS[v] = s;
    if (!(s <= margin)) continue;
    let q = count++;
    while (q > 0 && planeS[planeOrder[q - 1]] > s) {
      planeOrder[q] = planeOrder[q - 1];
      q--;
    }
    planeOrder[q] = v;
  }
  // The (up to) 4 deepest, returned in vertex order (their feature ids "vertex<v>|plane" sort that way).
  const kept = Math.min(count, MAX_MANIFOLD_POINTS);
  for (let i = 0; i < kept; i++) {
    let q = i;
    while (q > 0 && planeKeep[q - 1] > planeOrder[i]) {
      planeKeep[q] = planeKeep[q - 1];
      q--;
    }
    planeKeep[q] = planeOrder[i];
  }
  const out: GeometricContact[] = [];
  for (let i = 0; i < kept; i++) {
    const v = planeKeep[i],
      s = planeS[v];
    const x0 = planeX[3 * v],
      x1 = planeX[3 * v + 1],
      x2 = planeX[3 * v + 2];
    out.push(contact([x0 - 0.5 * s * n[0], x1 - 0.5 * s * n[1], x2 - 0.5 * s * n[2]], n, s, VERTEX_PLANE_IDS[v]));
  }
  return out;
}
