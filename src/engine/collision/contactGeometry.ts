/**
 * What every narrow-phase routine shares (narrowphase.ts, boxBox.ts): the contact type and its constructor,
 * small vector helpers, and the box feature numbering of shapes.ts as vertex positions, face and edge indices.
 */
import type { BoxFrame } from './shapes.js';
import type { Vec3 } from '../math/vec3.js';

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
/** Distances below this (m) count as zero when a direction must be normalised. */
export const DISTANCE_EPSILON = 1e-12;

/** The normal of a degenerate pair (coincident centres, every edge pair parallel). */
export const FALLBACK_NORMAL: Vec3 = [0, 0, 1];

export function contact(point: Vec3, normal: Vec3, separation: number, featureId: string): GeometricContact {
  return { point, normal, penetration: separation < 0 ? -separation : 0, separation, featureId };
}

/** s·v with −0 normalised to +0 (so normals compare equal with deepStrictEqual). */
export const signed = (v: Vec3, s: number): Vec3 => [s * v[0] + 0, s * v[1] + 0, s * v[2] + 0];
export const dot3 = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** World position of box vertex v (bit k set ⇔ +h_k along axis k; numbering in shapes.ts), written to out[o..o+3). */
export function writeBoxVertex(B: BoxFrame, v: number, out: Float64Array, o: number): void {
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

export const faceIndex = (axis: number, sign: number): number => 2 * axis + (sign > 0 ? 1 : 0);
/** Edge parallel to `axis` whose other coordinates have signs s[(axis+1)%3] (bit 0) and s[(axis+2)%3] (bit 1). */
export const edgeIndex = (axis: number, signs: readonly number[]): number =>
  4 * axis + (signs[(axis + 1) % 3] > 0 ? 1 : 0) + (signs[(axis + 2) % 3] > 0 ? 2 : 0);
/** Edge joining two vertices that differ in exactly one bit. */
export function edgeOfVertices(v1: number, v2: number): number {
  const diff = v1 ^ v2;
  const axis = diff === 1 ? 0 : diff === 2 ? 1 : 2;
  return edgeIndex(axis, [v1 & 1 ? 1 : -1, v1 & 2 ? 1 : -1, v1 & 4 ? 1 : -1]);
}
