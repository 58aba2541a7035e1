/** The scene view's trail: the selected body's path over the frames shown last (the "trail" option). */
import { BufferGeometry, Float32BufferAttribute, Line, LineBasicMaterial, type Scene } from 'three';
import { POSE_STRIDE } from '../../src/protocol/scene.js';

/** Frames of body positions kept for trails. */
export const TRAIL_FRAMES = 120;

export class BodyTrail {
  private readonly trail: Line;
  /** Body positions of recently shown frames (session index → poses) for trails. */
  private readonly history = new Map<number, Float64Array>();
  /** Frames kept in `history` (positions only, 3 numbers per body: 24 KB a frame for the 1000-box pile). */
  private static readonly HISTORY_FRAMES = 2 * TRAIL_FRAMES;

  constructor(scene: Scene) {
    this.trail = new Line(new BufferGeometry(), new LineBasicMaterial());
    this.trail.frustumCulled = false;
    scene.add(this.trail);
  }

  /** Points of the drawn trail (0: none). */
  get points(): number {
    return this.trail.geometry.getAttribute('position')?.count ?? 0;
  }

  /** A new session: no frame shown yet. */
  clear(): void {
    this.history.clear();
  }

  /** Keeps the body positions of the frame shown at session index `index` (`poses`: POSE_STRIDE numbers per body). */
  record(index: number, poses: Float64Array): void {
    const n = Math.floor(poses.length / POSE_STRIDE),
      xyz = new Float64Array(3 * n);
    for (let b = 0; b < n; b++) {
      xyz[3 * b] = poses[POSE_STRIDE * b];
      xyz[3 * b + 1] = poses[POSE_STRIDE * b + 1];
      xyz[3 * b + 2] = poses[POSE_STRIDE * b + 2];
    }
    this.history.delete(index); // re-inserted as the newest
    this.history.set(index, xyz);
    if (this.history.size > BodyTrail.HISTORY_FRAMES) this.history.delete(this.history.keys().next().value as number);
  }

  /** The path of `body` over the TRAIL_FRAMES frames up to `index` (none when `show` is off or no body is selected). */
  update(index: number, body: number | undefined, show: boolean, color: string): void {
    const pts: number[] = [];
    if (show && body !== undefined) {
      for (let i = Math.max(0, index - TRAIL_FRAMES); i <= index; i++) {
        const p = this.history.get(i),
          o = 3 * body;
        if (p && o + 3 <= p.length && Number.isFinite(p[o])) pts.push(p[o], p[o + 1], p[o + 2]);
      }
    }
    this.trail.geometry.setAttribute('position', new Float32BufferAttribute(pts, 3));
    (this.trail.material as LineBasicMaterial).color.setStyle(color);
  }
}
