/**
 * Colliders (a shape placed in the world) and their world-space axis-aligned bounding boxes.
 *
 * Box feature numbering, used by the narrow phase in its stable feature ids (body frame, half extents h):
 *   vertex v ∈ 0..7   : local corner (s0·h0, s1·h1, s2·h2) with s_k = +1 if bit k of v is set, else −1;
 *   face   f ∈ 0..5   : axis k = f >> 1, outward normal sign +1 if f is odd (0: −x, 1: +x, 2: −y, 3: +y, 4: −z, 5: +z);
 *   edge   e ∈ 0..11  : parallel to axis k = e >> 2; bit 0 of (e & 3) is the sign of axis (k+1) mod 3,
 *                       bit 1 the sign of axis (k+2) mod 3.
 * Planes: a plane collider's normal and offset are given in its body frame and mapped by its pose
 * (identity pose: they are world values, as ShapeDesc documents).
 */
import type { ShapeDesc } from '../world/types.js';
import { quatToMat3, type Quat } from '../math/quat.js';
import type { Vec3 } from '../math/vec3.js';
import { hypot3 } from '../math/hypot.js';

/**
 * Speculative contact margin (m): pairs whose surfaces are separated by at most this distance still
 * produce contacts (with penetration 0 and a positive `separation`), so a resting contact does not
 * flicker on and off; pairs farther apart produce nothing. AABBs are fattened by it in the broad phase.
 */
export const CONTACT_MARGIN = 0.01;

/** A shape placed in the world. Planes are always static; `isStatic` marks other static bodies. */
export interface Collider {
  readonly shape: ShapeDesc;
  /** Centre of the shape (= centre of mass), world frame. */
  readonly position: Vec3;
  /** Unit quaternion [w, x, y, z], body → world. */
  readonly orientation: Quat;
  /** Static (infinite mass) body; two static colliders never collide. Planes are static regardless. */
  readonly isStatic?: boolean;
  /**
   * A box's world frame (boxFrameOf of this collider), when the caller built it once for the step: the
   * narrow phase then does not recompute the rotation for every pair the box is in.
   */
  readonly frame?: BoxFrame;
  /** A plane's world surface (worldPlane of this collider), when the caller built it once for the step. */
  readonly surface?: WorldPlane;
}

/** A plane's world surface n·x = offset (n unit, pointing out of the solid). */
export interface WorldPlane {
  readonly normal: Vec3;
  readonly offset: number;
}

/** A box in world space: centre, local axes as world unit vectors (columns of R), half extents. */
export interface BoxFrame {
  readonly c: Vec3;
  readonly ax: readonly [Vec3, Vec3, Vec3];
  readonly h: Vec3;
}

/** The world frame of a box collider: its axes are the columns of R(q) (docs/physics.md "Conventions": [w, x, y, z], body → world). */
export function boxFrameOf(col: Collider): BoxFrame {
  if (col.frame) return col.frame;
  if (col.shape.kind !== 'box') throw new Error(`boxFrameOf: collider is a ${col.shape.kind}, not a box`);
  const m = quatToMat3(col.orientation);
  return {
    c: col.position,
    ax: [
      [m[0], m[3], m[6]],
      [m[1], m[4], m[7]],
      [m[2], m[5], m[8]],
    ],
    h: col.shape.halfExtents,
  };
}

/** World-space axis-aligned box: min and max corners. */
export interface Aabb {
  readonly min: Vec3;
  readonly max: Vec3;
}

export const isPlane = (c: Collider): boolean => c.shape.kind === 'plane';
export const isStaticCollider = (c: Collider): boolean => c.shape.kind === 'plane' || c.isStatic === true;

/** The world-space surface n·x = offset of a plane collider (n unit, pointing out of the solid). */
export function worldPlane(c: Collider): WorldPlane {
  if (c.surface) return c.surface;
  if (c.shape.kind !== 'plane') throw new Error(`worldPlane: collider is a ${c.shape.kind}, not a plane`);
  const m = quatToMat3(c.orientation);
  const nb = c.shape.normal;
  const nx = m[0] * nb[0] + m[1] * nb[1] + m[2] * nb[2];
  const ny = m[3] * nb[0] + m[4] * nb[1] + m[5] * nb[2];
  const nz = m[6] * nb[0] + m[7] * nb[1] + m[8] * nb[2];
  const l = hypot3(nx, ny, nz);
  if (!(l > 0)) throw new Error('worldPlane: plane normal has zero length');
  const normal: Vec3 = [nx / l, ny / l, nz / l];
  // Body-frame surface n_b·y = o_b, y = Rᵀ(x − p)  ⇒  (R n_b)·x = o_b + (R n_b)·p (divided by |n_b|).
  const p = c.position;
  return { normal, offset: c.shape.offset / l + normal[0] * p[0] + normal[1] * p[1] + normal[2] * p[2] };
}

/**
 * Writes the world AABB of a finite collider, fattened by `margin` on every side, into
 * out[o..o+6) = (minx, miny, minz, maxx, maxy, maxz). Returns false for planes (infinite; the broad phase
 * pairs them separately). Box: world half-widths e_i = Σ_j |R_ij| h_j (Ericson, Real-Time Collision
 * Detection §4.2.6, "AABB recomputed from rotated AABB").
 */
export function writeAabb(c: Collider, margin: number, out: Float64Array, o: number): boolean {
  const p = c.position;
  let ex: number, ey: number, ez: number;
  switch (c.shape.kind) {
    case 'plane':
      return false;
    case 'sphere':
      ex = ey = ez = c.shape.radius;
      break;
    case 'box': {
      const h = c.shape.halfExtents;
      const ax = boxFrameOf(c).ax; // columns of R: R_ij = ax[j][i]
      const X = ax[0],
        Y = ax[1],
        Z = ax[2];
      ex = Math.abs(X[0]) * h[0] + Math.abs(Y[0]) * h[1] + Math.abs(Z[0]) * h[2];
      ey = Math.abs(X[1]) * h[0] + Math.abs(Y[1]) * h[1] + Math.abs(Z[1]) * h[2];
      ez = Math.abs(X[2]) * h[0] + Math.abs(Y[2]) * h[1] + Math.abs(Z[2]) * h[2];
      break;
    }
  }
  out[o] = p[0] - ex - margin;
  out[o + 1] = p[1] - ey - margin;
  out[o + 2] = p[2] - ez - margin;
  out[o + 3] = p[0] + ex + margin;
  out[o + 4] = p[1] + ey + margin;
  out[o + 5] = p[2] + ez + margin;
  return true;
}

/** World AABB of a collider (fattened by `margin`, default 0), or null for a plane (infinite). */
export function computeAabb(c: Collider, margin = 0): Aabb | null {
  const b = new Float64Array(6);
  if (!writeAabb(c, margin, b, 0)) return null;
  return { min: [b[0], b[1], b[2]], max: [b[3], b[4], b[5]] };
}
