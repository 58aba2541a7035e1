/**
 * The box pile's largest island as the world step builds it with speculative contacts (issue 12 item 2):
 * examples/box-pile-1000 settled 120 steps by Rapier (as bench:world's settle engine does), then one step of
 * our World; the largest island of that step (≈ 5500 contacts, beyond the dense limit) is returned with its
 * Jacobians. Deterministic: the settled state is cached in artifacts/pile-island-state.json (not in git;
 * rebuilt when absent, ≈ 1 min) so reruns only pay the one World step.
 *   npx tsx bench/pileIsland.ts      prints the island's size and the sparse interior point's outcome
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ContactJacobians } from '../src/engine/assembly.js';
import { solveIpmSparse } from '../src/engine/solvers/ipmSparse.js';
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

async function main(): Promise<void> {
  const { k, softening } = await pileIsland();
  const t0 = performance.now();
  const out = solveIpmSparse(k, { solver: 'ipm' }, softening);
  const ms = performance.now() - t0;
  const reason = out.status.kind === 'converged' ? '' : ` — ${out.status.reason}`;
  process.stdout.write(
    `pile island: ${k.contactCount} contacts, ${out.bodyCount} bodies; ipm-sparse (tolerance 1e-10): ${out.status.kind}${reason}, ` +
      `KKT max_rel ${out.kkt.maxRel.toExponential(2)}, ${out.iterations} iterations, ${ms.toFixed(0)} ms, ${(out.memoryBytes / 1e6).toFixed(1)} MB\n`,
  );
}

if (require.main === module) void main();
