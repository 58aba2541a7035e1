/**
 * A synthetic box pile for the scene view's benchmark: a ground plane and `boxes` boxes stacked in a square
 * grid of columns, with frame views whose contacts (≈ 3.8 per box, like examples/box-pile-1000) sit at
 * the boxes' bottom corners. Poses move a little per frame, so every frame redraws.
 */
import type { ContactView, FrameView } from '../../src/protocol/inspector.js';
import { POSE_STRIDE, type SceneInfo } from '../../src/protocol/scene.js';
import { validateHostMessage } from '../../src/protocol/validate.js';
import { syntheticFrame } from './synthetic.js';

const HALF = 0.1;

export function pileScene(boxes: number): SceneInfo {
  return {
    bodies: [
      { name: 'ground', static: true, shape: { kind: 'plane', normal: [0, 0, 1], offset: 0 } },
      ...Array.from({ length: boxes }, (_, k) => ({
        name: `box${k}`,
        static: false,
        shape: { kind: 'box' as const, halfExtents: [HALF, HALF, HALF] as [number, number, number] },
      })),
    ],
  };
}

/** Frame `index` of the pile with `contacts` contacts (the first `boxes` boxes carry them, 4 corners each). */
export function pileFrame(index: number, boxes: number, contacts: number): FrameView {
  const base = syntheticFrame(index, contacts, { withMatrix: 3 * contacts <= 600 });
  const side = Math.ceil(Math.sqrt(boxes / 10));
  const poses = new Float64Array(POSE_STRIDE * (boxes + 1));
  poses.set([0, 0, 0, 1, 0, 0, 0], 0);
  const wobble = 0.002 * Math.sin(index);
  for (let k = 0; k < boxes; k++) {
    const col = k % (side * side),
      layer = Math.floor(k / (side * side));
    poses.set([(col % side) * 2.05 * HALF + wobble, Math.floor(col / side) * 2.05 * HALF, HALF + layer * 2 * HALF, 1, 0, 0, 0], POSE_STRIDE * (k + 1));
  }
  const friction = new Float64Array(3 * contacts);
  const cs: ContactView[] = base.contacts.map((c, i) => {
    const box = (i >> 2) % boxes,
      o = POSE_STRIDE * (box + 1);
    const sx = i & 1 ? 1 : -1,
      sy = i & 2 ? 1 : -1;
    friction.set([0.3 * c.lambdaT, 0.1 * c.lambdaT, 0], 3 * i);
    return { ...c, bodyA: `box${box}`, point: [poses[o] + sx * HALF, poses[o + 1] + sy * HALF, poses[o + 2] - HALF] };
  });
  const view: FrameView = { ...base, contacts: cs, scene: { poses, friction } };
  validateHostMessage({ type: 'frame', requestId: 0, view });
  return view;
}
