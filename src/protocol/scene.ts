/**
 * What the scene view (webview/sceneView/) needs, kept apart from the other protocol types: the bodies'
 * shapes once per session (init.scene) and their poses per frame (FrameView.scene). Plain types only.
 * Conventions are the product's (docs/recording-format.md): z up, quaternions [w, x, y, z] body → world.
 */

export type SceneShape =
  | { readonly kind: 'sphere'; readonly radius: number }
  | { readonly kind: 'box'; readonly halfExtents: readonly [number, number, number] }
  /** Static half-space {x : n·x ≤ offset} (the recording format's plane). */
  | { readonly kind: 'plane'; readonly normal: readonly [number, number, number]; readonly offset: number }
  /** A shape Contact Lens does not draw (capsule, mesh, …): shown as a marker with its name; `type` as written. */
  | { readonly kind: 'other'; readonly type: string };

export interface SceneBody {
  readonly name: string;
  readonly static: boolean;
  readonly shape: SceneShape;
}

/** Sent once with `init`. */
export interface SceneInfo {
  readonly bodies: readonly SceneBody[];
}

/** Numbers per body in SceneFrame.poses: x, y, z, qw, qx, qy, qz. */
export const POSE_STRIDE = 7;

/**
 * A what-if contact's relative velocity at the contact point after the step (body a relative to body b,
 * world, m/s: ġ⁺ = ġ⁻ + Aλ along n, t1, t2, docs/physics.md "Contact model"), with the recorded λ and with the alternative's.
 */
export interface WhatIfContactScene {
  readonly recordedVelocity: readonly [number, number, number];
  readonly alternativeVelocity: readonly [number, number, number];
}

/** Sent with every frame view. */
export interface SceneFrame {
  /** POSE_STRIDE numbers per body of SceneInfo.bodies, in the same order (a Float64Array travels as one block). */
  readonly poses: Float64Array;
  /**
   * The friction impulse of each contact of FrameView.contacts as a world vector λt1·t1 + λt2·t2 (N·s),
   * 3 numbers per contact (the table only carries its length ‖λt‖).
   */
  readonly friction: Float64Array;
  /**
   * The poses before the step (the geometry the contacts were found at), same layout as `poses`; only
   * when the frame records them for every body (recording format `pre[].x`, `pre[].q`).
   */
  readonly prePoses?: Float64Array;
}
