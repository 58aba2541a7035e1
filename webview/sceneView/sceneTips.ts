/** The scene view's hover text: a contact's numbers, or a body's name, shape and position. */
import type { Vector3 } from 'three';
import type { ContactView } from '../../src/protocol/inspector.js';
import type { SceneInfo } from '../../src/protocol/scene.js';
import { si, vec3 } from '../format.js';

export function contactTip(c: ContactView): string {
  return (
    `contact #${c.index} ${c.bodyA}–${c.bodyB} · ${c.state} · λn ${si(c.lambdaN, 'N·s', 4)} · ‖λt‖ ${si(c.lambdaT, 'N·s', 4)} · depth ${si(c.depth, 'm')} · ` +
    `vn ${si(c.vnBefore, 'm/s')} → ${si(c.vnAfter, 'm/s')} · excess ${si(c.excess, 'm/s')} · at ${vec3(c.point)} m`
  );
}

export function bodyTip(info: SceneInfo | undefined, i: number, at: Vector3 | null): string {
  const b = info?.bodies[i];
  if (!b) return '';
  const shape = b.shape.kind === 'other' ? b.shape.type : b.shape.kind;
  return `${b.name} · ${shape}${b.static ? ' · static' : ''}${at ? ` · at ${vec3([at.x, at.y, at.z])}` : ''}`;
}
