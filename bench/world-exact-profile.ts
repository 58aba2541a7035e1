/**
 * Profiling aid for the exact solvers in the world step (not a benchmark table): settles one scene as
 * bench/world.ts does (Rapier at the scene's PGS iterations), then steps it with one of our solvers and
 * prints, per step, wall and CPU ms, the largest island's size, iterations and status.
 *   npx esbuild bench/world-exact-profile.ts --bundle --platform=node --outfile=dist/world-exact-profile.js
 *   node [--cpu-prof] dist/world-exact-profile.js pyramid-20 newton [warmupSteps] [timedSteps] [snapshotFile]
 * With a snapshot file the settled state is written once and reused (the same start for before/after runs); the
 * fingerprint of the final state shows whether two builds step bit-identically.
 */
import { performance } from 'node:perf_hooks';
import type { SolverName } from '../src/engine/solvers/types.js';
import { OursSim, rapierSettled, WORLD_SCENES } from './world-scenes.js';

async function main(): Promise<void> {
  const [name = 'pyramid-20', solver = 'newton', warmArg, timedArg, snapFile] = process.argv.slice(2);
  const scene = WORLD_SCENES.find((s) => s.name === name);
  if (!scene) throw new Error(`unknown scene ${name}: ${WORLD_SCENES.map((s) => s.name).join(', ')}`);
  const warmup = warmArg !== undefined ? Number(warmArg) : 2;
  const timedSteps = timedArg !== undefined ? Number(timedArg) : 5;
  const desc = await rapierSettled(scene, snapFile);
  const sim = new OursSim(desc, solver as SolverName);
  for (let i = 0; i < warmup + timedSteps; i++) {
    const t0 = performance.now(),
      c0 = process.cpuUsage();
    const info = sim.step();
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    process.stdout.write(
      `${i < warmup ? 'warm-up' : 'timed  '} step ${i}: wall ${ms.toFixed(0)} ms, CPU ${((c.user + c.system) / 1000).toFixed(0)} ms; ` +
        `${info.contacts} contacts, largest island ${info.largestIslandContacts} (${info.largestIslandMethod}): ${info.iterations} it., ${info.status}\n`,
    );
  }
  // FNV-1a over the bytes of every body's state (world-profile.ts): equal fingerprints ⇔ bit-identical trajectories
  const buf = new Float64Array(sim.snapshot().flatMap((b) => (b ? [...b] : [])));
  let h = 0x811c9dc5;
  for (const byte of new Uint8Array(buf.buffer)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  process.stdout.write(`fingerprint ${h.toString(16)}\n`);
}
void main();
