/**
 * Compare mode's ghost (docs/compare.md "In the editor"): the second run's bodies drawn see-through in one colour
 * beside the first run's, at the first run's body order (FrameView.compare.ghost; NaN hides a body without a
 * partner). Planes are the same in both runs and are not drawn twice.
 */
import type { Scene } from 'three';
import { POSE_STRIDE, type SceneBody, type SceneInfo } from '../../src/protocol/scene.js';
import { BodyLayer } from './bodyLayer.js';
import type { SceneColors } from './sceneColors.js';

export class GhostBodies {
  private readonly layer: BodyLayer;
  private count = 0;
  private shown = false;

  constructor(scene: Scene) {
    this.layer = new BodyLayer(scene);
    this.layer.setXray(true);
  }

  /** The session's bodies (planes left out: an empty marker that is never placed). */
  setBodies(info: SceneInfo | undefined): void {
    const bodies: SceneBody[] = (info?.bodies ?? []).map((b) => (b.shape.kind === 'plane' ? { ...b, shape: { kind: 'other', type: 'plane' } } : b));
    this.count = bodies.length;
    this.layer.setBodies(bodies);
    this.layer.setXray(true);
    this.layer.setMarkerSize(0);
    this.hide();
  }

  /** b's poses at a's body order, or undefined (not comparing): hides the ghost. */
  update(poses: Float64Array | undefined): void {
    if (!poses || poses.length !== POSE_STRIDE * this.count) return this.hide();
    this.layer.update(poses);
    this.shown = true;
  }

  get visible(): boolean {
    return this.shown;
  }

  applyColors(c: SceneColors, color: string): void {
    this.layer.applyColors({ ...c, bodyColor: () => color, staticBody: color, edge: color }, new Set());
  }

  private hide(): void {
    if (this.count === 0) return;
    this.layer.update(new Float64Array(POSE_STRIDE * this.count).fill(Number.NaN));
    this.shown = false;
  }
}
