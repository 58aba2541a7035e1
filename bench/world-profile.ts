/**
 * Profiling aid for the world step (not a benchmark table): advances one scene with our PGS, then times
 * steps and prints ms/step and a fingerprint of the final state (so a faster step can be checked for
 * bit-identical results).
 *   npx esbuild bench/world-profile.ts --bundle --platform=node --outfile=dist/world-profile.js
 *   node [--cpu-prof] dist/world-profile.js pyramid-20 [settleSteps] [timedSteps] [snapshotFile]
 * (the bundle must sit in dist/: scene files are found from the repository root). Settling runs our own
 * step; with a snapshot file the settled state is written once and reused. CPU ms are process CPU time
 * (less sensitive than wall time to other processes on a shared machine).
 */
import * as fs from 'node:fs';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { World } from '../src/engine/world/world.js';
import { applySnapshot, loadScenario, WORLD_SCENES, type BodySnapshot } from './world-scenes.js';

const [name = 'pyramid-20', settleArg, timedArg, snapFile] = process.argv.slice(2);
const scene = WORLD_SCENES.find((s) => s.name === name);
if (!scene) throw new Error(`unknown scene ${name}: ${WORLD_SCENES.map((s) => s.name).join(', ')}`);
let desc = loadScenario(scene.file);
const settleSteps = settleArg !== undefined ? Number(settleArg) : scene.settleSteps;
const timedSteps = timedArg !== undefined ? Number(timedArg) : 20;
if (snapFile && fs.existsSync(snapFile)) {
  desc = applySnapshot(desc, JSON.parse(fs.readFileSync(snapFile, 'utf8')) as BodySnapshot[]);
} else {
  const w = new World(desc);
  for (let i = 0; i < settleSteps; i++) w.step();
  const snap = w.bodies.map((b) => (b.isStatic ? null : [...b.x, ...b.q, ...b.v, ...b.w]));
  if (snapFile) fs.writeFileSync(snapFile, JSON.stringify(snap));
  desc = applySnapshot(desc, snap);
}
const world = new World(desc);
/** Garbage-collection pauses (ms, wall) and their count during the timed steps (perf_hooks 'gc' entries). */
let gcMs = 0,
  gcCount = 0,
  timedFrom = Infinity,
  timedTo = Infinity;
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.startTime < timedFrom || e.startTime > timedTo) continue;
    gcMs += e.duration;
    gcCount++;
  }
});
gcObserver.observe({ entryTypes: ['gc'] });
const times: number[] = [],
  cpu: number[] = [];
let iterations = 0,
  contacts = 0;
timedFrom = performance.now();
for (let i = 0; i < timedSteps; i++) {
  const t0 = performance.now(),
    c0 = process.cpuUsage();
  const f = world.step();
  times.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
  contacts = f.points.length;
  iterations = Math.max(...f.islands.map((s) => s.result.iterations));
}
timedTo = performance.now();
// FNV-1a over the bytes of every body's state: equal fingerprints ⇔ bit-identical trajectories.
const buf = new Float64Array(world.bodies.flatMap((b) => [...b.x, ...b.q, ...b.v, ...b.w]));
let h = 0x811c9dc5;
for (const byte of new Uint8Array(buf.buffer)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
const skip = Math.min(5, times.length - 1);
const med = (xs: number[]): string => {
  const s = xs.slice(skip).sort((a, b) => a - b);
  return `median ${s[s.length >> 1].toFixed(2)}, min ${s[0].toFixed(2)}`;
};
// the observer's entries arrive in a later task
setTimeout(() => {
  gcObserver.disconnect();
  const totalMs = times.reduce((a, b) => a + b, 0);
  process.stdout.write(
    `${name}: ${contacts} contacts, max iterations ${iterations}; after ${skip} warm-up steps, wall ms/step ${med(times)}; CPU ms/step ${med(cpu)}; ` +
      `GC ${gcCount} pauses, ${(gcMs / timedSteps).toFixed(1)} ms/step (${((100 * gcMs) / totalMs).toFixed(0)} % of wall); fingerprint ${h.toString(16)}\n`,
  );
}, 100);
