/**
 * The scene view's data (src/protocol/scene.ts) from a recording header and frame: shapes once, poses per
 * frame. Pure (no vscode, no DOM). Recordings are already converted to the product's conventions on read
 * (z up, quaternions [w, x, y, z]), so positions and orientations are copied as they are.
 */
import type { RecordedFrame, RecordingHeader, RecordedShape } from '../../format/recording.js';
import { POSE_STRIDE, type SceneFrame, type SceneInfo, type SceneShape } from '../../protocol/scene.js';

function shapeOf(s: RecordedShape): SceneShape {
  if ('sphere' in s) return { kind: 'sphere', radius: s.sphere.radius };
  if ('box' in s) {
    const h = s.box.halfExtents;
    return { kind: 'box', halfExtents: [h[0], h[1], h[2]] };
  }
  if ('plane' in s) {
    const n = s.plane.normal;
    return { kind: 'plane', normal: [n[0], n[1], n[2]], offset: s.plane.offset };
  }
  return { kind: 'other', type: typeof s.other.type === 'string' ? s.other.type : 'other' };
}

export function sceneInfo(header: RecordingHeader): SceneInfo {
  return { bodies: header.bodies.map((b) => ({ name: b.name, static: b.static, shape: shapeOf(b.shape) })) };
}

/**
 * x, y, z, qw, qx, qy, qz per body (a body the frame does not list keeps NaN: the view hides it), and each
 * contact's friction impulse λt1·t1 + λt2·t2 in world coordinates (docs/recording-format.md: λ = (λn, λt1, λt2)),
 * and the poses before the step when the frame records them for every body.
 */
export function sceneFrame(bodyCount: number, f: RecordedFrame): SceneFrame {
  const poses = new Float64Array(POSE_STRIDE * bodyCount).fill(NaN);
  const n = Math.min(bodyCount, f.bodies.length);
  for (let i = 0; i < n; i++) {
    const { x, q } = f.bodies[i];
    poses.set([x[0], x[1], x[2], q[0], q[1], q[2], q[3]], POSE_STRIDE * i);
  }
  const C = f.contacts.length,
    lam = f.solver.lambda;
  const friction = new Float64Array(3 * C);
  for (let k = 0; k < C; k++) {
    const { t1, t2 } = f.contacts[k];
    const a = lam[3 * k + 1] ?? 0,
      b = lam[3 * k + 2] ?? 0;
    for (let j = 0; j < 3; j++) friction[3 * k + j] = a * t1[j] + b * t2[j];
  }
  const pre = f.pre;
  if (pre && pre.length >= bodyCount && pre.slice(0, bodyCount).every((s) => s.x && s.q)) {
    const prePoses = new Float64Array(POSE_STRIDE * bodyCount);
    for (let i = 0; i < bodyCount; i++) {
      const { x, q } = pre[i];
      prePoses.set([x![0], x![1], x![2], q![0], q![1], q![2], q![3]], POSE_STRIDE * i);
    }
    return { poses, friction, prePoses };
  }
  return { poses, friction };
}
