/**
 * Dense against sparse per island (the measurement behind solveIsland.ts's EXACT_DENSE_ISLAND_LIMIT; not a
 * benchmark table): settles one scene as bench/world.ts does (Rapier at the scene's PGS iterations), then steps
 * our World with an exact solver; before each step's islands are solved, every island of at most `maxContacts`
 * contacts is solved both ways from the same warm start — dense (A formed, the scenario's solver: what
 * solveIsland does up to the dense limit) and sparse (solveMatrixFree: the sparse Newton / interior point) —
 * `repeats` times each, alternately, and the process CPU ms of each kept (minimum over repeats). Prints one
 * line per island (contacts, dense ms, sparse ms, both statuses) and the sums per size band. The World itself
 * then steps as usual.
 *   npx esbuild bench/island-limit.ts --bundle --platform=node --outfile=dist/island-limit.js
 *   node dist/island-limit.js box-pile-1000 newton [steps] [maxContacts] [repeats] [snapshotFile]
 */
import * as os from 'node:os';
import { assembleJacobians, denseProblem } from '../src/engine/assembly.js';
import { buildIslands } from '../src/engine/collision/islands.js';
import { assemblyOptions } from '../src/engine/island/solveIsland.js';
import { solveMatrixFree } from '../src/engine/island/solveMatrixFree.js';
import type { BodyState, ContactPoint } from '../src/engine/problem.js';
import { solve } from '../src/engine/solvers/solve.js';
import type { SolverName } from '../src/engine/solvers/types.js';
import type { StepConfig } from '../src/engine/world/types.js';
import { OursSim, rapierSettled, WORLD_SCENES } from './world-scenes.js';

interface Row {
  readonly step: number;
  readonly contacts: number;
  readonly denseMs: number;
  readonly sparseMs: number;
  readonly denseStatus: string;
  readonly sparseStatus: string;
}

function cpuMs(f: () => void): number {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

/** One island both ways, `repeats` times alternately; the minimum CPU ms of each. */
function measure(states: readonly BodyState[], cs: readonly ContactPoint[], cfg: StepConfig, warm: Float64Array | undefined, repeats: number): Row {
  let denseMs = Infinity,
    sparseMs = Infinity,
    denseStatus = '',
    sparseStatus = '';
  const dv = new Float64Array(6 * states.length);
  for (let r = 0; r < repeats; r++) {
    denseMs = Math.min(
      denseMs,
      cpuMs(() => {
        const k = assembleJacobians(states, cs, assemblyOptions(cfg));
        const p = denseProblem(k, k.regularization);
        const A = p.A as Float64Array;
        if (cfg.softening > 0) for (let c = 0; c < p.contactCount; c++) A[3 * c * p.size + 3 * c] += cfg.softening;
        const r = solve(p, cfg.solver, warm);
        denseStatus = `${r.status.kind}, ${r.iterations} it.`;
      }),
    );
    sparseMs = Math.min(
      sparseMs,
      cpuMs(() => {
        const k = assembleJacobians(states, cs, assemblyOptions(cfg));
        dv.fill(0);
        const r = solveMatrixFree(k, cfg.solver, cfg.softening, warm, dv);
        sparseStatus = `${r.status.kind}, ${r.iterations} it.`;
      }),
    );
  }
  return { step: 0, contacts: cs.length, denseMs, sparseMs, denseStatus, sparseStatus };
}

async function main(): Promise<void> {
  const [name = 'box-pile-1000', solver = 'newton', stepsArg, maxArg, repArg, snapFile] = process.argv.slice(2);
  const scene = WORLD_SCENES.find((s) => s.name === name);
  if (!scene) throw new Error(`unknown scene ${name}: ${WORLD_SCENES.map((s) => s.name).join(', ')}`);
  const steps = stepsArg !== undefined ? Number(stepsArg) : 2;
  const maxContacts = maxArg !== undefined ? Number(maxArg) : 400;
  const repeats = repArg !== undefined ? Number(repArg) : 3;
  const desc = await rapierSettled(scene, snapFile);
  const sim = new OursSim(desc, solver as SolverName);
  // The World's own inputs to its island solves (world.ts solveIslands), read before it runs them.
  const w = sim.world as unknown as {
    config: StepConfig;
    bodies: { invMass: number; x: BodyState['x']; v: BodyState['v']; w: BodyState['omega']; isStatic: boolean }[];
    invInertiaWorld(b: unknown): BodyState['invInertiaWorld'];
    cache: { warmStart(cs: readonly ContactPoint[]): Float64Array | undefined };
    solveIslands(contacts: readonly ContactPoint[]): unknown;
  };
  const rows: Row[] = [];
  let step = 0;
  const original = w.solveIslands.bind(w);
  w.solveIslands = (contacts) => {
    const cfg = w.config;
    const states: BodyState[] = w.bodies.map((b) => ({ invMass: b.invMass, invInertiaWorld: w.invInertiaWorld(b), x: b.x, v: b.v, omega: b.w }));
    const islands = buildIslands(
      w.bodies.length,
      contacts.map((c) => [c.bodyA, c.bodyB] as const),
      w.bodies.map((b) => b.isStatic),
    );
    for (const island of islands) {
      if (island.contacts.length > maxContacts) continue;
      const cs = island.contacts.map((i) => contacts[i]);
      rows.push({ ...measure(states, cs, cfg, cfg.warmStart ? w.cache.warmStart(cs) : undefined, repeats), step });
    }
    return original(contacts);
  };
  for (; step < steps; step++) sim.step();
  const [l1, l5] = os.loadavg();
  process.stdout.write(`${name} ${solver}: ${steps} steps, islands ≤ ${maxContacts} contacts, min of ${repeats}; load ${l1.toFixed(2)} ${l5.toFixed(2)}\n`);
  rows.sort((a, b) => a.contacts - b.contacts);
  for (const r of rows)
    process.stdout.write(
      `step ${r.step} ${String(r.contacts).padStart(4)} contacts: dense ${r.denseMs.toFixed(2).padStart(8)} ms (${r.denseStatus}), sparse ${r.sparseMs.toFixed(2).padStart(8)} ms (${r.sparseStatus})\n`,
    );
  const bands = [0, 8, 16, 32, 64, 100, 150, 200, 300, 400, Infinity];
  for (let b = 0; b + 1 < bands.length; b++) {
    const inBand = rows.filter((r) => r.contacts > bands[b] && r.contacts <= bands[b + 1]);
    if (inBand.length === 0) continue;
    const d = inBand.reduce((s, r) => s + r.denseMs, 0),
      s = inBand.reduce((t, r) => t + r.sparseMs, 0);
    process.stdout.write(`(${bands[b]}, ${bands[b + 1]}] contacts: ${inBand.length} islands, dense ${d.toFixed(1)} ms, sparse ${s.toFixed(1)} ms\n`);
  }
}
void main();
