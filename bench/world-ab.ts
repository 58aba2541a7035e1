/**
 * Before/after of the world step in ONE process (not a benchmark table): two builds' World classes step the same
 * settled scene alternately, step by step (which one goes first swaps every step), so both see the same machine
 * load; prints the process CPU ms per step of each (median, mean, min), the ratio of the means and medians, and
 * whether the two end in bit-identical body states. Both builds are loaded the same way (each World bundled on
 * its own: a World bundled into this script beside its helpers came out ~20 % slower than the same World loaded
 * as a separate bundle). On a shared machine whose load swings by ±30 % between runs this narrows a comparison to
 * about ±7 % (the same build against itself); run it twice with the sides swapped.
 *   npx esbuild DIR/src/engine/world/world.ts --bundle --platform=node --format=cjs --outfile=dist/world-before.cjs
 *   npx esbuild src/engine/world/world.ts --bundle --platform=node --format=cjs --outfile=dist/world-after.cjs
 *   npx esbuild bench/world-ab.ts --bundle --platform=node --outfile=dist/world-ab.js
 *   node dist/world-ab.js SCENE dist/world-before.cjs dist/world-after.cjs [warmupSteps] [timedSteps] [snapshotFile] [solver]
 * (DIR: a checkout of the other build; scene files are found from this repository's root, so the bundle sits in
 * dist/). The scene is settled by this repository's World (its settleSteps) unless a snapshot file written by
 * world-profile.ts is given. Garbage collection is charged to the step that triggers it: both worlds share one
 * heap, so one world's garbage shows partly in the other's steps; compare over many steps. `solver` (e.g. newton, ipm):
 * both worlds step with that solver as bench:world's rows do (the scene's own options when it names it, else its
 * defaults); default the scene's own solver.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { World } from '../src/engine/world/world.js';
import type { ScenarioDesc } from '../src/engine/world/types.js';
import type { SolverName } from '../src/engine/solvers/types.js';
import { applySnapshot, loadScenario, oursSolverOptions, WORLD_SCENES, type BodySnapshot } from './world-scenes.js';

/** What this script needs of a World of any build: construct from a scene, step, read the bodies' states. */
interface SteppedWorld {
  readonly bodies: readonly { readonly x: readonly number[]; readonly q: readonly number[]; readonly v: readonly number[]; readonly w: readonly number[] }[];
  step(): unknown;
}
type WorldClass = new (desc: ScenarioDesc) => SteppedWorld;

const [name = 'pyramid-20', beforeFile, afterFile, warmArg, timedArg, snapFile, solverArg] = process.argv.slice(2);
const scene = WORLD_SCENES.find((s) => s.name === name);
if (!scene) throw new Error(`unknown scene ${name}: ${WORLD_SCENES.map((s) => s.name).join(', ')}`);
if (!beforeFile || !afterFile) throw new Error('usage: node dist/world-ab.js SCENE BEFORE.cjs AFTER.cjs [warmupSteps] [timedSteps] [snapshotFile]');
/** The World class of a CommonJS bundle of some build's src/engine/world/world.ts. */
function worldClass(file: string): WorldClass {
  const W = (createRequire(__filename)(path.resolve(file)) as { World?: WorldClass }).World;
  if (typeof W !== 'function') throw new Error(`${file}: exports no World (bundle DIR/src/engine/world/world.ts with --format=cjs)`);
  return W;
}
const Before = worldClass(beforeFile),
  After = worldClass(afterFile);
const warmupSteps = Number(warmArg ?? 10),
  timedSteps = Number(timedArg ?? 40);

let desc = loadScenario(scene.file);
if (snapFile && fs.existsSync(snapFile)) desc = applySnapshot(desc, JSON.parse(fs.readFileSync(snapFile, 'utf8')) as BodySnapshot[]);
else {
  const settle = new World(desc);
  for (let i = 0; i < scene.settleSteps; i++) settle.step();
  desc = applySnapshot(
    desc,
    settle.bodies.map((b) => (b.isStatic ? null : [...b.x, ...b.q, ...b.v, ...b.w])),
  );
}

if (solverArg) desc = { ...desc, config: { ...desc.config, solver: oursSolverOptions(desc, solverArg as SolverName) } };

const loadAtStart = os.loadavg()[0];
const worlds: Record<'before' | 'after', SteppedWorld> = { before: new Before(desc), after: new After(desc) };
const cpu: Record<'before' | 'after', number[]> = { before: [], after: [] };
for (let i = 0; i < warmupSteps + timedSteps; i++) {
  const order: readonly ('before' | 'after')[] = i % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  for (const k of order) {
    const c0 = process.cpuUsage();
    worlds[k].step();
    const c = process.cpuUsage(c0);
    if (i >= warmupSteps) cpu[k].push((c.user + c.system) / 1000);
  }
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];
function stats(xs: readonly number[]): string {
  return `median ${median(xs).toFixed(2)}, mean ${(sum(xs) / xs.length).toFixed(2)}, min ${Math.min(...xs).toFixed(2)}`;
}
const state = (w: SteppedWorld): string => JSON.stringify(w.bodies.map((b) => [b.x, b.q, b.v, b.w]));
process.stdout.write(
  `${name}${solverArg ? ` (${solverArg})` : ''}: ${timedSteps} timed steps each after ${warmupSteps} warm-up, alternating; process CPU ms/step: before ${stats(cpu.before)}; ` +
    `after ${stats(cpu.after)}; after/before ${(median(cpu.after) / median(cpu.before)).toFixed(3)} (medians), ` +
    `${(sum(cpu.after) / sum(cpu.before)).toFixed(3)} (means); ` +
    `bit-identical states: ${state(worlds.before) === state(worlds.after) ? 'yes' : 'no'}; load average ${loadAtStart.toFixed(2)} at start, ` +
    `${os.loadavg()[0].toFixed(2)} at end on ${os.cpus().length} cores\n`,
);
