/**
 * The box pile's largest island as the world step builds it with speculative contacts:
 * examples/box-pile-1000 settled 120 steps by Rapier (as bench:world's settle engine does), then one step of
 * our World; the largest island of that step (≈ 5500 contacts, beyond the dense limit) is returned with its
 * Jacobians. Deterministic: the settled state is cached in artifacts/pile-island-state.json (not in git;
 * rebuilt when absent, ≈ 1 min) so reruns only pay the one World step. `npm run bench:solvers` prints the
 * sparse interior point's outcome on it beside matrix-free PGS.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ContactJacobians } from '../src/engine/assembly.js';
import { World } from '../src/engine/world/world.js';
import { applySnapshot, loadRapier, loadScenario, rapierSim, repoRoot, type BodySnapshot } from './world-scenes.js';

export const PILE_FILE = 'examples/box-pile-1000.scene.json';
/** Rapier steps before the island is taken (bench/world-scenes.ts WORLD_SCENES, box-pile-1000). */
export const PILE_SETTLE_STEPS = 120;

export interface PileIsland {
  readonly k: ContactJacobians;
  readonly softening: number;
}

async function settledSnapshot(): Promise<BodySnapshot[]> {
  const file = path.join(repoRoot(), 'artifacts', 'pile-island-state.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as BodySnapshot[];
  const R = await loadRapier();
  const sim = rapierSim(R, loadScenario(PILE_FILE), undefined);
  for (let i = 0; i < PILE_SETTLE_STEPS; i++) sim.step();
  const snap = sim.snapshot();
  sim.dispose();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(snap));
  return snap;
}

/** The largest matrix-free island of one World step from the settled pile (PGS solves the step; the island's contacts do not depend on it). */
export async function pileIsland(): Promise<PileIsland> {
  const desc = applySnapshot(loadScenario(PILE_FILE), await settledSnapshot());
  const world = new World({ ...desc, config: { ...desc.config, solver: { solver: 'pgs' } } });
  const frame = world.step();
  let best: ContactJacobians | null = null;
  for (const is of frame.islands) if (is.matrixFree && (!best || is.jacobians.contactCount > best.contactCount)) best = is.jacobians;
  if (!best) throw new Error(`${PILE_FILE}: no island above the dense limit after ${PILE_SETTLE_STEPS} settle steps`);
  return { k: best, softening: desc.config.softening };
}
