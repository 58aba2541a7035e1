/**
 * Box–box contacts (collide in narrowphase.ts dispatches here; conventions and feature ids in its module
 * comment): the separating-axis test over 15 axes, face contacts by clipping, edge–edge contacts.
 */
import type { BoxFrame } from './shapes.js';
import type { Vec3 } from '../math/vec3.js';
import { hypot3 } from '../math/hypot.js';
import {
  contact,
  dot3,
  edgeIndex,
  edgeOfVertices,
  FALLBACK_NORMAL,
  faceIndex,
  type GeometricContact,
  MAX_MANIFOLD_POINTS,
  signed,
  writeBoxVertex,
} from './contactGeometry.js';

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

export function boxBox(A: BoxFrame, B: BoxFrame, margin: number): GeometricContact[] {
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
 * strings). Indexed by faceFeatureId's key (< FACE_FEATURE_KEYS): an array read, not a Map lookup, per contact.
 */
const FACE_FEATURE_KEYS = 2 * 6 * 6 * 1024;
const faceFeatureIds: (string | undefined)[] = new Array<string | undefined>(FACE_FEATURE_KEYS).fill(undefined);

/** "<ref>.face<f>><inc>.face<g>:" + the point feature `f` (polyF code), see the module comment. */
function faceFeatureId(refName: string, refFace: number, incName: string, incFace: number, f: number): string {
  // f ∈ [−8, 17·32 + 17]: f + 8 < 2¹⁰.
  const key = ((((refName === 'a' ? 0 : 1) * 6 + refFace) * 6 + incFace) << 10) | (f + 8);
  let id = faceFeatureIds[key];
  if (id === undefined) {
    const point = f < 0 ? `${incName}.vertex${-1 - f}` : `${featureLabel(refName, incName, f >> 5)}/${featureLabel(refName, incName, f & 31)}`;
    id = `${refName}.face${refFace}>${incName}.face${incFace}:${point}`;
    faceFeatureIds[key] = id;
  }
  return id;
}

/**
 * The feature of clip label l: a reference side face or an incident edge. A module function, not a closure in
 * faceFeatureId: the closure made V8 allocate faceFeatureId's context on every call (once per contact), hit or miss.
 */
function featureLabel(refName: string, incName: string, l: number): string {
  return l >= SIDE_LABEL ? `${refName}.face${l - SIDE_LABEL}` : `${incName}.edge${l}`;
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
