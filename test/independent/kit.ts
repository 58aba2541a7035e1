// Shared pieces of the scenario catalogue: materials, exact drop heights, stacks, write presets.

import { type Body, box, ground, type Material } from './bodies.js';
import type { Scenario } from './runner.js';
import type { Vec3 } from './vec.js';
import { type Conventions, OURS, type WriteOptions } from './writer.js';

export interface Entry {
  file: string;
  clean: boolean;
  scenario: Scenario;
  write: WriteOptions;
}

export const mat = (mu: number, e = 0): Material => ({ mu, e });

/** pre velocities, energies, no A/b, our conventions */
export const STANDARD: WriteOptions = { conventions: OURS, pre: 'velocities', matrices: false, energy: true, float32: false, initial: false };

export const withWrite = (over: Partial<WriteOptions>): WriteOptions => ({ ...STANDARD, ...over });

/** every foreign convention the format accepts (docs/recording-format.md "Conventions") */
export const FOREIGN: Conventions = { up: 'y', quaternion: 'xyzw', normal: 'a-to-b', impulse: 'per-step', angularVelocity: 'body' };

/**
 * Height of the centre at frame 0's start so that a body in free fall (semi-implicit Euler:
 * v ← v + h·g_z, z ← z + h·v) ends frame k − 1 exactly touching (centre at `rest`): frame k meets the ground.
 */
export function dropStart(rest: number, k: number, vz0: number, h: number, gz: number): number {
  // z_k = z0 + h·Σ_{j=1..k}(vz0 + j·h·gz) = z0 + h·(k·vz0 + h·gz·k(k+1)/2)
  return rest - h * (k * vz0 + (h * gz * k * (k + 1)) / 2);
}

/** A column of n boxes resting exactly on each other on the ground (indices 1 … n, bottom first). */
export function boxColumn(n: number, half: Vec3, mass: number, material: Material, at: [number, number] = [0, 0], groundMaterial = material): Body[] {
  const bodies: Body[] = [ground(groundMaterial)];
  for (let i = 0; i < n; i++) bodies.push(box(`box${i + 1}`, half, mass, [at[0], at[1], half[2] * (2 * i + 1)], material));
  return bodies;
}
