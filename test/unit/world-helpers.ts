/** Scenario builders for world tests (no file format involved). */
import type { BodyDesc, ScenarioDesc, StepConfig, MaterialDesc } from '../../src/engine/world/types.js';
import type { Vec3 } from '../../src/engine/math/vec3.js';

export const baseConfig = (over: Partial<StepConfig> = {}): StepConfig => ({
  dt: 1 / 60,
  gravity: [0, 0, -9.81],
  solver: { solver: 'newton' },
  erp: 0.2,
  slop: 0.005,
  splitImpulse: false,
  softening: 0,
  restVelocityThreshold: 0.5,
  frictionCombine: 'geometric-mean',
  restitutionCombine: 'geometric-mean',
  warmStart: true,
  faults: {},
  ...over,
});

export function sphere(name: string, radius: number, mass: number | null, position: Vec3, velocity: Vec3 = [0, 0, 0], material = 'default'): BodyDesc {
  return { name, shape: { kind: 'sphere', radius }, mass, position, orientation: [1, 0, 0, 0], velocity, angularVelocity: [0, 0, 0], material };
}

export function box(name: string, half: Vec3, mass: number | null, position: Vec3, velocity: Vec3 = [0, 0, 0], material = 'default'): BodyDesc {
  return { name, shape: { kind: 'box', halfExtents: half }, mass, position, orientation: [1, 0, 0, 0], velocity, angularVelocity: [0, 0, 0], material };
}

export const ground = (material = 'default'): BodyDesc => ({
  name: 'ground',
  shape: { kind: 'plane', normal: [0, 0, 1], offset: 0 },
  mass: null,
  position: [0, 0, 0],
  orientation: [1, 0, 0, 0],
  velocity: [0, 0, 0],
  angularVelocity: [0, 0, 0],
  material,
});

export function scenario(bodies: BodyDesc[], config: Partial<StepConfig> = {}, materials: MaterialDesc[] = [], frames = 60): ScenarioDesc {
  return { name: 'test', frames, config: baseConfig(config), materials, bodies };
}
