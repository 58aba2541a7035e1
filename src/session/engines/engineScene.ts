/**
 * A scene file's scenario as a scene every engine can build (types.ts EngineScene): the bodies in the scenario's
 * order with their solid-shape inertia (as our World computes it), their materials, and μ and e per pair combined
 * by the scenario's rules. Spheres, boxes and planes map onto every engine.
 */
import type { ScenarioDesc } from '../../engine/index.js';
import { combine, principalInertia } from '../../engine/index.js';
import { normalizeQuat } from '../../engine/index.js';
import type { Vec3 } from '../../engine/index.js';
import type { EngineBody, EngineScene } from './types.js';

/** The default material of a body that names none (as the World uses it). */
const FALLBACK = { friction: 0.5, restitution: 0 };

export function engineScene(desc: ScenarioDesc): EngineScene {
  const materials = new Map(desc.materials.map((m) => [m.name, m] as const));
  const fallback = materials.get('default') ?? FALLBACK;
  const zero: Vec3 = [0, 0, 0];
  const bodies: EngineBody[] = desc.bodies.map((d) => {
    const isStatic = d.mass === null || d.shape.kind === 'plane';
    const m = materials.get(d.material) ?? fallback;
    const shape =
      d.shape.kind === 'box'
        ? { box: { halfExtents: d.shape.halfExtents } }
        : d.shape.kind === 'sphere'
          ? { sphere: { radius: d.shape.radius } }
          : { plane: { normal: d.shape.normal, offset: d.shape.offset } };
    return {
      name: d.name,
      shape,
      static: isStatic,
      mass: isStatic ? 0 : (d.mass as number),
      inertia: isStatic ? zero : principalInertia(d, d.mass as number),
      x: d.position,
      q: normalizeQuat(d.orientation),
      v: isStatic ? zero : d.velocity,
      w: isStatic ? zero : d.angularVelocity,
      friction: m.friction,
      restitution: m.restitution,
    };
  });
  const { frictionCombine: fr, restitutionCombine: rr } = desc.config;
  const pair = (i: number, j: number) => ({
    mu: combine(fr, bodies[i].friction, bodies[j].friction),
    e: combine(rr, bodies[i].restitution, bodies[j].restitution),
  });
  const first = bodies[0];
  const same = first !== undefined && bodies.every((b) => b.friction === first.friction && b.restitution === first.restitution);
  return {
    name: desc.name,
    dt: desc.config.dt,
    frames: desc.frames,
    gravity: desc.config.gravity,
    bodies,
    pair,
    uniform: same ? { mu: first.friction, e: first.restitution } : null,
    frictionCombine: fr,
    restitutionCombine: rr,
  };
}

/** A rotation (w, x, y, z) that carries +z onto the unit vector n (planes of engines that are z-up in their body frame). */
export function rotationFromZ(n: Vec3): [number, number, number, number] {
  // q = (1 + z·n, z × n) normalised (the half-way quaternion); n = −z needs any axis ⟂ z
  const w = 1 + n[2];
  if (w < 1e-12) return [0, 1, 0, 0];
  const x = -n[1],
    y = n[0];
  const s = Math.hypot(w, x, y);
  return [w / s, x / s, y / s, 0];
}
