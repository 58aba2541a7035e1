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

export interface GeometricContact {
  /** World point midway between the two surfaces. */
  readonly point: Vec3;
  /** Unit normal from b into a. */
  readonly normal: Vec3;
  /** Penetration depth ≥ 0 (m); 0 for touching or speculative (separated ≤ margin) contacts. */
  readonly penetration: number;
  /** Signed surface distance along the normal (m): −penetration when overlapping, ∈ (0, margin] when speculative. */
  readonly separation: number;
  /** Stable id of the touching feature pair (see the module comment). */
  readonly featureId: string;
}

/** Most points in one manifold (4 points make a stable resting support, as in Box2D and Bullet). */
export const MAX_MANIFOLD_POINTS = 4;
/**
 * SAT axis bias (qu3e / Gregorius "The Separating Axis Test between Convex Polyhedra", GDC 2013): a
 * later candidate axis replaces the current best only if its separation is larger by
 * AXIS_BIAS_RELATIVE·|best| + AXIS_BIAS_ABSOLUTE. Order: face of a, face of b, edge–edge; so face
 * contacts (stable 4-point manifolds) win near-ties and the reference face does not flip between frames.
 */
export const AXIS_BIAS_RELATIVE = 0.05;
/** Absolute part of the SAT axis bias (m). */
export const AXIS_BIAS_ABSOLUTE = 1e-3;
/** |eA × eB| below which two box edges count as parallel and their cross axis is skipped (Ericson §4.4.1). */
export const EDGE_PARALLEL_TOLERANCE = 1e-6;
/** Sutherland–Hodgman snapping distance (m): polygon vertices this close to a side plane count as on it (kept, not split). */
export const CLIP_TOLERANCE = 1e-9;
/** Distances below this (m) count as zero when a direction must be normalised. */
export const DISTANCE_EPSILON = 1e-12;

const FALLBACK_NORMAL: Vec3 = [0, 0, 1];

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
// Small helpers

function contact(point: Vec3, normal: Vec3, separation: number, featureId: string): GeometricContact {
  return { point, normal, penetration: separation < 0 ? -separation : 0, separation, featureId };
}

/** s·v with −0 normalised to +0 (so normals compare equal with deepStrictEqual). */
const signed = (v: Vec3, s: number): Vec3 => [s * v[0] + 0, s * v[1] + 0, s * v[2] + 0];
const dot3 = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** World position of box vertex v (bit k set ⇔ +h_k along axis k; numbering in shapes.ts), written to out[o..o+3). */
function writeBoxVertex(B: BoxFrame, v: number, out: Float64Array, o: number): void {
  const s0 = (v & 1 ? 1 : -1) * B.h[0],
    s1 = (v & 2 ? 1 : -1) * B.h[1],
    s2 = (v & 4 ? 1 : -1) * B.h[2];
  const x = B.ax[0],
    y = B.ax[1],
    z = B.ax[2]; // indexed, not destructured: no iterator where V8 does not elide it
  out[o] = B.c[0] + s0 * x[0] + s1 * y[0] + s2 * z[0];
  out[o + 1] = B.c[1] + s0 * x[1] + s1 * y[1] + s2 * z[1];
  out[o + 2] = B.c[2] + s0 * x[2] + s1 * y[2] + s2 * z[2];
}

const faceIndex = (axis: number, sign: number): number => 2 * axis + (sign > 0 ? 1 : 0);
/** Edge parallel to `axis` whose other coordinates have signs s[(axis+1)%3] (bit 0) and s[(axis+2)%3] (bit 1). */
const edgeIndex = (axis: number, signs: readonly number[]): number => 4 * axis + (signs[(axis + 1) % 3] > 0 ? 1 : 0) + (signs[(axis + 2) % 3] > 0 ? 2 : 0);
/** Edge joining two vertices that differ in exactly one bit. */
function edgeOfVertices(v1: number, v2: number): number {
  const diff = v1 ^ v2;
  const axis = diff === 1 ? 0 : diff === 2 ? 1 : 2;
  return edgeIndex(axis, [v1 & 1 ? 1 : -1, v1 & 2 ? 1 : -1, v1 & 4 ? 1 : -1]);
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

// ---------------------------------------------------------------------------------------------------
// Box–box: separating-axis test over 15 axes (Gottschalk, Lin & Manocha, "OBBTree", SIGGRAPH 1996;
// Ericson §4.4.1), face contacts by Sutherland–Hodgman clipping of the incident face against the
// reference face's side planes, edge–edge contacts at the closest points of the two edges.

/** Separation of two boxes along unit axis L: |d·L| − r_a − r_b, r = Σ_k h_k |axis_k·L| (Ericson §4.4.1). */
function axisSeparation(A: BoxFrame, B: BoxFrame, d: Vec3, L: Vec3): number {
  separationAxis[0] = L[0];
  separationAxis[1] = L[1];
  separationAxis[2] = L[2];
  axisSeparationOfScratch(A, B, d);
  return separationAxis[3];
}

/**
 * The axis (lx, ly, lz) in, its separation out, through one scratch array: V8 does not inline the separation
 * (too large for boxBox's inlining budget), and a call that passes or returns a double boxes it (a heap number
 * per argument and per result: 15 axes per box pair and step).
 */
const separationAxis = new Float64Array(4);

/** axisSeparation for the axis in separationAxis[0..2]; the separation goes to separationAxis[3]. */
function axisSeparationOfScratch(A: BoxFrame, B: BoxFrame, d: Vec3): void {
  const lx = separationAxis[0],
    ly = separationAxis[1],
    lz = separationAxis[2];
  const a = A.ax,
    b = B.ax;
  const rA =
    A.h[0] * Math.abs(a[0][0] * lx + a[0][1] * ly + a[0][2] * lz) +
    A.h[1] * Math.abs(a[1][0] * lx + a[1][1] * ly + a[1][2] * lz) +
    A.h[2] * Math.abs(a[2][0] * lx + a[2][1] * ly + a[2][2] * lz);
  const rB =
    B.h[0] * Math.abs(b[0][0] * lx + b[0][1] * ly + b[0][2] * lz) +
    B.h[1] * Math.abs(b[1][0] * lx + b[1][1] * ly + b[1][2] * lz) +
    B.h[2] * Math.abs(b[2][0] * lx + b[2][1] * ly + b[2][2] * lz);
  separationAxis[3] = Math.abs(d[0] * lx + d[1] * ly + d[2] * lz) - rA - rB;
}

/**
 * No contacts: one shared, frozen empty list for the pairs that are apart (most of a pile's candidate pairs
 * leave boxBox at a separating axis; a new [] each was an allocation per pair and step). Frozen, so a caller
 * that pushes to it fails loudly instead of sharing contacts between pairs.
 */
const NO_CONTACTS = Object.freeze([]) as unknown as GeometricContact[];
/** boxBox's centre offset d, rewritten per call (boxBox does not nest and nothing keeps d). */
const centreOffset: [number, number, number] = [0, 0, 0];

function boxBox(A: BoxFrame, B: BoxFrame, margin: number): GeometricContact[] {
  const d = centreOffset; // from b's centre to a's
  d[0] = A.c[0] - B.c[0];
  d[1] = A.c[1] - B.c[1];
  d[2] = A.c[2] - B.c[2];
  // 1. Face axes of a and of b.
  let bestA = -Infinity,
    axisA = 0;
  for (let i = 0; i < 3; i++) {
    const s = axisSeparation(A, B, d, A.ax[i]);
    if (s > margin) return NO_CONTACTS;
    if (s > bestA) {
      bestA = s;
      axisA = i;
    }
  }
  let bestB = -Infinity,
    axisB = 0;
  for (let j = 0; j < 3; j++) {
    const s = axisSeparation(A, B, d, B.ax[j]);
    if (s > margin) return NO_CONTACTS;
    if (s > bestB) {
      bestB = s;
      axisB = j;
    }
  }
  // 2. The 9 edge–edge axes a_i × b_j (skipped when the edges are parallel).
  let bestE = -Infinity,
    edgeI = -1,
    edgeJ = -1;
  let ex = FALLBACK_NORMAL[0],
    ey = FALLBACK_NORMAL[1],
    ez = FALLBACK_NORMAL[2];
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const u = A.ax[i],
        v = B.ax[j];
      const cx = u[1] * v[2] - u[2] * v[1],
        cy = u[2] * v[0] - u[0] * v[2],
        cz = u[0] * v[1] - u[1] * v[0];
      const len = hypot3(cx, cy, cz);
      if (len < EDGE_PARALLEL_TOLERANCE) continue;
      const lx = cx / len,
        ly = cy / len,
        lz = cz / len;
      separationAxis[0] = lx;
      separationAxis[1] = ly;
      separationAxis[2] = lz;
      axisSeparationOfScratch(A, B, d);
      const s = separationAxis[3];
      if (s > margin) return NO_CONTACTS;
      if (s > bestE) {
        bestE = s;
        edgeI = i;
        edgeJ = j;
        ex = lx;
        ey = ly;
        ez = lz;
      }
    }
  }
  // 3. Axis choice with a bias towards faces (and towards a's face over b's).
  const useB = beatsAxis(bestB, bestA);
  const faceBest = useB ? bestB : bestA;
  const useEdge = edgeI >= 0 && beatsAxis(bestE, faceBest);
  if (useEdge) {
    const e = boxBoxEdge(A, B, d, edgeI, edgeJ, ex, ey, ez, margin);
    if (e.length === 0) return boxBoxFace(A, B, d, useB, axisA, axisB, margin);
    // An edge–edge contact is one point: a box pivoting about it swings its faces' vertices into the other
    // box within a step. The best face manifolds' points that are still apart (separation > 0: a point
    // above a face inside its side planes is exactly that far from the box) go along as speculative contacts.
    appendApart(e, boxBoxFace(A, B, d, false, axisA, axisB, margin));
    appendApart(e, boxBoxFace(A, B, d, true, axisA, axisB, margin));
    return e;
  }
  const f = boxBoxFace(A, B, d, useB, axisA, axisB, margin);
  return f.length > 0 ? f : boxBoxEdge(A, B, d, edgeI, edgeJ, ex, ey, ez, margin);
}

/** Appends the contacts of `face` that are still apart to the edge contact `e`, up to 2·MAX_MANIFOLD_POINTS + 1 in all (boxBox). */
function appendApart(e: GeometricContact[], face: readonly GeometricContact[]): void {
  for (let k = 0; k < face.length; k++) {
    const c = face[k];
    if (c.separation > 0 && e.length < 2 * MAX_MANIFOLD_POINTS + 1) e.push(c);
  }
}

/**
 * Does separation s beat the best so far by the face bias (step 3 of boxBox)? Module functions rather than
 * closures inside boxBox: closures there made V8 allocate a context and three functions per box pair.
 */
function beatsAxis(s: number, best: number): boolean {
  return s > best + AXIS_BIAS_RELATIVE * Math.abs(best) + AXIS_BIAS_ABSOLUTE;
}

/** boxBox's face contact on a's best face axis, or b's (useB), the axis oriented from b into a. */
function boxBoxFace(A: BoxFrame, B: BoxFrame, d: Vec3, useB: boolean, axisA: number, axisB: number, margin: number): GeometricContact[] {
  if (useB) {
    const sgn = dot3(d, B.ax[axisB]) >= 0 ? 1 : -1; // axis oriented from b into a
    const n = signed(B.ax[axisB], sgn);
    return faceContact(B, 'b', A, 'a', axisB, sgn, n, n, margin);
  }
  const sgn = dot3(d, A.ax[axisA]) >= 0 ? 1 : -1;
  const n = signed(A.ax[axisA], sgn);
  // a's reference face faces b: outward normal −n.
  return faceContact(A, 'a', B, 'b', axisA, -sgn, signed(n, -1), n, margin);
}

/** boxBox's edge–edge contact on the best edge axis (ex, ey, ez) (none when every edge pair was parallel). */
function boxBoxEdge(A: BoxFrame, B: BoxFrame, d: Vec3, edgeI: number, edgeJ: number, ex: number, ey: number, ez: number, margin: number): GeometricContact[] {
  if (edgeI < 0) return [];
  const edgeAxis: Vec3 = [ex, ey, ez];
  const L = signed(edgeAxis, dot3(d, edgeAxis) >= 0 ? 1 : -1);
  return edgeContact(A, B, edgeI, edgeJ, L, margin);
}

// Scratch polygons for the clipper (an incident quad clipped by 4 planes has at most 8 vertices).
const MAX_POLY = 16;
const polyX = [new Float64Array(3 * MAX_POLY), new Float64Array(3 * MAX_POLY)];
/** Per vertex: feature code (≥ 0: edge label·32 + plane label for a clip point; < 0: −1 − incident vertex). */
const polyF = [new Int32Array(MAX_POLY), new Int32Array(MAX_POLY)];
/** Per vertex: label of the edge from this vertex to the next (0..11 incident edge, 12 + f: reference face f). */
const polyE = [new Int32Array(MAX_POLY), new Int32Array(MAX_POLY)];
const SIDE_LABEL = 12;
/** Scratch: the incident face's 4 vertex numbers. */
const quadVerts = new Int32Array(4);
/** Scratch: the clipped points kept by faceContact (midway point, depth, feature code). */
const keptX = new Float64Array(3 * MAX_POLY),
  keptDepth = new Float64Array(MAX_POLY),
  keptFeature = new Int32Array(MAX_POLY);

/**
 * Face contact: clip the incident face (the face of `inc` most anti-parallel to the reference normal nR)
 * against the 4 side planes of the reference face (Sutherland–Hodgman, Ericson §8.3.4), keep the points
 * at most `margin` above the reference face, place each midway between the incident point and its
 * projection on the reference face, and reduce to ≤ 4 points.
 */
function faceContact(
  ref: BoxFrame,
  refName: string,
  inc: BoxFrame,
  incName: string,
  refAxis: number,
  refSign: number,
  nR: Vec3,
  n: Vec3,
  margin: number,
): GeometricContact[] {
  const refFace = faceIndex(refAxis, refSign);
  const refOffset = dot3(nR, ref.c) + ref.h[refAxis]; // reference face plane nR·x = refOffset
  // Incident face: outward normal −sign(inc_m·nR)·inc_m for the axis m maximising |inc_m·nR|.
  let m = 0,
    best = -1,
    dm = 0;
  for (let k = 0; k < 3; k++) {
    const t = dot3(inc.ax[k], nR);
    if (Math.abs(t) > best) {
      best = Math.abs(t);
      m = k;
      dm = t;
    }
  }
  const incSign = dm > 0 ? -1 : 1;
  const incFace = faceIndex(m, incSign);
  // Incident quad as a closed loop of vertices (orientation does not matter to the clipper).
  const u = (m + 1) % 3,
    w = (m + 2) % 3;
  // Loop (s_u, s_w) = (−,−), (+,−), (+,+), (−,+) on the incident face.
  const base = incSign > 0 ? 1 << m : 0;
  const verts = quadVerts;
  verts[0] = base;
  verts[1] = base | (1 << u);
  verts[2] = base | (1 << u) | (1 << w);
  verts[3] = base | (1 << w);
  let cur = 0,
    count = 4;
  for (let i = 0; i < 4; i++) {
    writeBoxVertex(inc, verts[i], polyX[0], 3 * i);
    polyF[0][i] = -1 - verts[i];
    polyE[0][i] = edgeOfVertices(verts[i], verts[(i + 1) % 4]);
  }
  // Clip against the side planes ±ref_k·x ≤ ±ref_k·c + h_k for the two other reference axes.
  for (let kk = 1; kk <= 2; kk++) {
    const k = (refAxis + kk) % 3,
      e = ref.ax[k];
    for (let s = -1; s <= 1; s += 2) {
      const nx = s * e[0],
        ny = s * e[1],
        nz = s * e[2];
      const off = nx * ref.c[0] + ny * ref.c[1] + nz * ref.c[2] + ref.h[k];
      count = clipPolygon(cur, count, nx, ny, nz, off, SIDE_LABEL + faceIndex(k, s));
      cur ^= 1;
      if (count === 0) return [];
    }
  }
  // Keep points within the margin above the reference face; contact point midway (into scratch arrays:
  // the point arrays are made only for the contacts returned).
  const X = polyX[cur],
    F = polyF[cur];
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const px = X[3 * i],
      py = X[3 * i + 1],
      pz = X[3 * i + 2];
    const dep = refOffset - (nR[0] * px + nR[1] * py + nR[2] * pz);
    if (dep < -margin) continue;
    keptX[3 * kept] = px + 0.5 * dep * nR[0];
    keptX[3 * kept + 1] = py + 0.5 * dep * nR[1];
    keptX[3 * kept + 2] = pz + 0.5 * dep * nR[2];
    keptDepth[kept] = dep;
    keptFeature[kept] = F[i];
    kept++;
  }
  const out: GeometricContact[] = [];
  if (kept <= MAX_MANIFOLD_POINTS) {
    for (let i = 0; i < kept; i++) out.push(keptContact(i, n, faceFeatureId(refName, refFace, incName, incFace, keptFeature[i])));
    return out;
  }
  const pts: Vec3[] = [],
    depth: number[] = [];
  for (let i = 0; i < kept; i++) {
    pts.push([keptX[3 * i], keptX[3 * i + 1], keptX[3 * i + 2]]);
    depth.push(keptDepth[i]);
  }
  for (const i of reduceManifold(pts, depth, nR)) out.push(keptContact(i, n, faceFeatureId(refName, refFace, incName, incFace, keptFeature[i])));
  return out;
}

/** The contact of faceContact's kept point i (scratch arrays keptX, keptDepth). */
function keptContact(i: number, n: Vec3, featureId: string): GeometricContact {
  return contact([keptX[3 * i], keptX[3 * i + 1], keptX[3 * i + 2]], n, -keptDepth[i], featureId);
}

/**
 * Feature ids of face contacts, built once per distinct id: the same few hundred ids recur every step, and
 * building each by concatenation made ~6 strings per contact (and the contact cache then compared unflattened
 * strings).
 */
const faceFeatureIds = new Map<number, string>();

/** "<ref>.face<f>><inc>.face<g>:" + the point feature `f` (polyF code), see the module comment. */
function faceFeatureId(refName: string, refFace: number, incName: string, incFace: number, f: number): string {
  // f ∈ [−8, 17·32 + 17]: f + 8 < 2¹⁰.
  const key = ((((refName === 'a' ? 0 : 1) * 6 + refFace) * 6 + incFace) << 10) | (f + 8);
  let id = faceFeatureIds.get(key);
  if (id === undefined) {
    const label = (l: number): string => (l >= SIDE_LABEL ? `${refName}.face${l - SIDE_LABEL}` : `${incName}.edge${l}`);
    const point = f < 0 ? `${incName}.vertex${-1 - f}` : `${label(f >> 5)}/${label(f & 31)}`;
    id = `${refName}.face${refFace}>${incName}.face${incFace}:${point}`;
    faceFeatureIds.set(key, id);
  }
  return id;
}

/**
 * One Sutherland–Hodgman pass (Sutherland & Hodgman 1974; Ericson §8.3.4): keeps the part of polygon
 * `src` with N·x ≤ off, writes it to the other buffer and returns its vertex count. Tracks, per vertex,
 * which features it lies on and, per edge, which feature the edge lies on.
 */
function clipPolygon(src: number, count: number, n0: number, n1: number, n2: number, off: number, planeLabel: number): number {
  const X = polyX[src],
    F = polyF[src],
    E = polyE[src];
  const dst = src ^ 1,
    Y = polyX[dst],
    G = polyF[dst],
    H = polyE[dst];
  let out = 0;
  for (let i = 0; i < count; i++) {
    const j = i + 1 === count ? 0 : i + 1;
    let dP = n0 * X[3 * i] + n1 * X[3 * i + 1] + n2 * X[3 * i + 2] - off;
    let dQ = n0 * X[3 * j] + n1 * X[3 * j + 1] + n2 * X[3 * j + 2] - off;
    if (Math.abs(dP) <= CLIP_TOLERANCE) dP = 0; // on the plane: kept as it is, no near-duplicate crossing
    if (Math.abs(dQ) <= CLIP_TOLERANCE) dQ = 0;
    if (dP <= 0) {
      Y[3 * out] = X[3 * i];
      Y[3 * out + 1] = X[3 * i + 1];
      Y[3 * out + 2] = X[3 * i + 2];
      G[out] = F[i];
      // A vertex on the plane whose successor is outside starts an edge along the clip plane.
      H[out] = dP === 0 && dQ > 0 ? planeLabel : E[i];
      out++;
    }
    if (((dP < 0 && dQ > 0) || (dP > 0 && dQ < 0)) && out < MAX_POLY) {
      const t = dP / (dP - dQ); // N·(P + t(Q − P)) = off
      for (let c = 0; c < 3; c++) Y[3 * out + c] = X[3 * i + c] + t * (X[3 * j + c] - X[3 * i + c]);
      G[out] = (E[i] << 5) | planeLabel;
      // Leaving: the next edge runs along the clip plane; entering: it continues along the old edge.
      H[out] = dP < 0 ? planeLabel : E[i];
      out++;
    }
  }
  return out;
}

/**
 * Chooses ≤ 4 of the candidate points: the deepest, the one farthest from it, the one maximising the
 * triangle area with those two, then the one adding most area to that triangle (contact reduction as in
 * Gregorius, "Robust Contact Creation for Physics Simulations", GDC 2015). Returns ascending indices.
 */
function reduceManifold(pts: readonly Vec3[], depth: readonly number[], n: Vec3): number[] {
  const count = pts.length;
  if (count <= MAX_MANIFOLD_POINTS) return pts.map((_, i) => i);
  let i1 = 0;
  for (let i = 1; i < count; i++) if (depth[i] > depth[i1]) i1 = i;
  let i2 = -1,
    far = -1;
  for (let i = 0; i < count; i++) {
    if (i === i1) continue;
    const dx = pts[i][0] - pts[i1][0],
      dy = pts[i][1] - pts[i1][1],
      dz = pts[i][2] - pts[i1][2];
    const q = dx * dx + dy * dy + dz * dz;
    if (q > far) {
      far = q;
      i2 = i;
    }
  }
  // Signed doubled area of triangle (p, q, r) about n: ((q − p) × (r − p))·n.
  const area = (p: Vec3, q: Vec3, r: Vec3): number => {
    const ux = q[0] - p[0],
      uy = q[1] - p[1],
      uz = q[2] - p[2],
      vx = r[0] - p[0],
      vy = r[1] - p[1],
      vz = r[2] - p[2];
    return (uy * vz - uz * vy) * n[0] + (uz * vx - ux * vz) * n[1] + (ux * vy - uy * vx) * n[2];
  };
  let i3 = -1,
    best = -1,
    sign = 1;
  for (let i = 0; i < count; i++) {
    if (i === i1 || i === i2) continue;
    const a = area(pts[i1], pts[i2], pts[i]);
    if (Math.abs(a) > best) {
      best = Math.abs(a);
      i3 = i;
      sign = a >= 0 ? 1 : -1;
    }
  }
  // Fourth point: largest area outside the triangle (i1, i2, i3), oriented so its own area is positive.
  const tri = [i1, i2, i3];
  let i4 = -1,
    gain = 0;
  for (let i = 0; i < count; i++) {
    if (i === i1 || i === i2 || i === i3) continue;
    let g = 0;
    for (let e = 0; e < 3; e++) g = Math.max(g, -sign * area(pts[tri[e]], pts[tri[(e + 1) % 3]], pts[i]));
    if (g > gain) {
      gain = g;
      i4 = i;
    }
  }
  const keep = i4 >= 0 ? [i1, i2, i3, i4] : [i1, i2, i3];
  return keep.sort((x, y) => x - y);
}

/**
 * Edge–edge contact (Ericson, Real-Time Collision Detection, 2004, §5.1.9): the edge of a extremal along −L and the edge of b extremal along +L
 * (L from b into a, ⟂ both edges), closest points of the two segments (Ericson §5.1.9), point midway,
 * normal L, separation (p_a − p_b)·L.
 */
/** Edge–edge feature ids "a.edge<i>|b.edge<j>", index 12i + j. */
const EDGE_EDGE_IDS = Array.from({ length: 144 }, (_, k) => `a.edge${Math.floor(k / 12)}|b.edge${k % 12}`);

function edgeContact(A: BoxFrame, B: BoxFrame, i: number, j: number, L: Vec3, margin: number): GeometricContact[] {
  const sA = [0, 0, 0],
    sB = [0, 0, 0];
  const cA = [A.c[0], A.c[1], A.c[2]],
    cB = [B.c[0], B.c[1], B.c[2]];
  for (let k = 0; k < 3; k++) {
    if (k !== i) {
      sA[k] = dot3(A.ax[k], L) > 0 ? -1 : 1;
      for (let c = 0; c < 3; c++) cA[c] += sA[k] * A.h[k] * A.ax[k][c];
    }
    if (k !== j) {
      sB[k] = dot3(B.ax[k], L) >= 0 ? 1 : -1;
      for (let c = 0; c < 3; c++) cB[c] += sB[k] * B.h[k] * B.ax[k][c];
    }
  }
  const closest = closestPointsSegments([cA[0], cA[1], cA[2]], A.ax[i], A.h[i], [cB[0], cB[1], cB[2]], B.ax[j], B.h[j]);
  const pa = closest[0],
    pb = closest[1];
  const sep = (pa[0] - pb[0]) * L[0] + (pa[1] - pb[1]) * L[1] + (pa[2] - pb[2]) * L[2];
  if (sep > margin) return [];
  const point: Vec3 = [0.5 * (pa[0] + pb[0]), 0.5 * (pa[1] + pb[1]), 0.5 * (pa[2] + pb[2])];
  return [contact(point, L, sep, EDGE_EDGE_IDS[12 * edgeIndex(i, sA) + edgeIndex(j, sB)])];
}

/**
 * Closest points of segments c1 + s·u1 (|s| ≤ h1) and c2 + t·u2 (|t| ≤ h2), u unit
 * (Ericson §5.1.9 ClosestPtSegmentSegment, centred parametrisation).
 */
export function closestPointsSegments(c1: Vec3, u1: Vec3, h1: number, c2: Vec3, u2: Vec3, h2: number): [Vec3, Vec3] {
  const r: Vec3 = [c1[0] - c2[0], c1[1] - c2[1], c1[2] - c2[2]];
  const b = dot3(u1, u2),
    c = dot3(u1, r),
    f = dot3(u2, r);
  const denom = 1 - b * b;
  const clamp = (x: number, h: number): number => (x < -h ? -h : x > h ? h : x);
  // Minimise |r + s·u1 − t·u2|²: s = (b·f − c)/(1 − b²) for non-parallel lines, then t = b·s + f.
  let s = denom > EDGE_PARALLEL_TOLERANCE * EDGE_PARALLEL_TOLERANCE ? clamp((b * f - c) / denom, h1) : 0;
  let t = b * s + f;
  if (t < -h2 || t > h2) {
    t = clamp(t, h2);
    s = clamp(b * t - c, h1);
  }
  return [
    [c1[0] + s * u1[0], c1[1] + s * u1[1], c1[2] + s * u1[2]],
    [c2[0] + t * u2[0], c2[1] + t * u2[1], c2[2] + t * u2[2]],
  ];
}
