/**
 * The three bundled peer scenes, in our conventions (z-up, SI), shared by every engine's recorder:
 *   stack  — 10 unit boxes (1 kg, edge 1 m) stacked on a static ground plane z = 0, 300 frames;
 *   bounce — a sphere (r = 0.5 m, 1 kg) dropped from 2 m (centre) on the ground, e = 0.5, 180 frames;
 *   slide  — a 1 kg unit box on the ground moving at 5 m/s along +x, μ = 0.5, 120 frames.
 * dt = 1/60, gravity (0, 0, −9.81). μ and e are the values of every contact (each engine is set up so
 * that its combination rule yields them).
 */
import type { Vec3 } from '../../src/engine/math/vec3.js';
import type { Quat } from '../../src/engine/math/quat.js';
import type { EngineScene } from '../../src/session/engines/types.js';

export type SceneName = 'stack' | 'bounce' | 'slide';
export const SCENE_NAMES: readonly SceneName[] = ['stack', 'bounce', 'slide'];

export interface PeerBody {
  readonly name: string;
  readonly shape: { readonly box: { readonly halfExtents: Vec3 } } | { readonly sphere: { readonly radius: number } };
  readonly mass: number;
  /** Body-frame principal moments of the solid shape (kg·m²). */
  readonly inertia: Vec3;
  readonly x: Vec3;
  readonly q: Quat;
  readonly v: Vec3;
  readonly w: Vec3;
}

export interface PeerScene {
  readonly name: SceneName;
  readonly dt: number;
  readonly frames: number;
  readonly gravity: Vec3;
  /** Friction and restitution of every contact. */
  readonly mu: number;
  readonly e: number;
  /** Dynamic bodies; the ground (half-space z ≤ 0) is body 0 of every recording, these follow. */
  readonly bodies: readonly PeerBody[];
}

const DT = 1 / 60;
const G: Vec3 = [0, 0, -9.81];
const ID: Quat = [1, 0, 0, 0];
const ZERO: Vec3 = [0, 0, 0];

/** Solid box inertia m/3·(b² + c²) about the first axis, etc. (half extents a, b, c). */
export function boxInertia(m: number, h: Vec3): Vec3 {
  return [(m / 3) * (h[1] ** 2 + h[2] ** 2), (m / 3) * (h[0] ** 2 + h[2] ** 2), (m / 3) * (h[0] ** 2 + h[1] ** 2)];
}
/** Solid sphere inertia 2/5·m·r². */
export const sphereInertia = (m: number, r: number): Vec3 => [0.4 * m * r * r, 0.4 * m * r * r, 0.4 * m * r * r];

const UNIT_HALF: Vec3 = [0.5, 0.5, 0.5];
const unitBox = (name: string, x: Vec3, v: Vec3 = ZERO): PeerBody => ({
  name,
  shape: { box: { halfExtents: UNIT_HALF } },
  mass: 1,
  inertia: boxInertia(1, UNIT_HALF),
  x,
  q: ID,
  v,
  w: ZERO,
});

export function peerScene(name: SceneName): PeerScene {
  switch (name) {
    case 'stack':
      return {
        name,
        dt: DT,
        frames: 300,
        gravity: G,
        mu: 0.5,
        e: 0,
        bodies: Array.from({ length: 10 }, (_, i) => unitBox(`box${i}`, [0, 0, 0.5 + i])),
      };
    case 'bounce':
      return {
        name,
        dt: DT,
        frames: 180,
        gravity: G,
        mu: 0.5,
        e: 0.5,
        bodies: [{ name: 'ball', shape: { sphere: { radius: 0.5 } }, mass: 1, inertia: sphereInertia(1, 0.5), x: [0, 0, 2], q: ID, v: ZERO, w: ZERO }],
      };
    case 'slide':
      return { name, dt: DT, frames: 120, gravity: G, mu: 0.5, e: 0, bodies: [unitBox('box', [0, 0, 0.5], [5, 0, 0])] };
  }
}

export function isSceneName(s: string): s is SceneName {
  return (SCENE_NAMES as readonly string[]).includes(s);
}

/** A bundled scene as the runtime engines take it (src/session/engines/): the ground plane first, one μ and e for every pair. */
export function peerEngineScene(scene: PeerScene): EngineScene {
  const material = { friction: scene.mu, restitution: scene.e };
  const ground = {
    name: 'ground',
    shape: { plane: { normal: [0, 0, 1] as Vec3, offset: 0 } },
    static: true,
    mass: 0,
    inertia: ZERO,
    x: ZERO,
    q: ID,
    v: ZERO,
    w: ZERO,
    ...material,
  };
  const uniform = { mu: scene.mu, e: scene.e };
  return {
    name: scene.name,
    dt: scene.dt,
    frames: scene.frames,
    gravity: scene.gravity,
    bodies: [ground, ...scene.bodies.map((b) => ({ ...b, static: false, ...material }))],
    pair: () => uniform,
    uniform,
    frictionCombine: 'max',
    restitutionCombine: 'max',
  };
}
