/**
 * Contact rows per step of a world scene, by phase: how many rows the solver gets (touching and
 * speculative, docs/physics.md "Speculative contacts"), how many speculative rows end with λn > 0 and how many
 * of those the pre-solve gap rate alone would close within the step (−ġn⁻·Δt ≥ gap: what a filter on the
 * pair's current approach speed would keep), the deepest penetration and the ms per step.
 * Not a test: nothing passes or fails.
 *   npx esbuild bench/world-rows.ts --bundle --platform=node --outfile=dist/world-rows.js
 *   node dist/world-rows.js box-pile-1000 [frames] [phaseLength]
 * (the bundle must sit in dist/: scene files are found from the repository root).
 */
import { performance } from 'node:perf_hooks';
import { World } from '../src/engine/world/world.js';
import { loadScenario, WORLD_SCENES } from './world-scenes.js';

const [name = 'box-pile-1000', framesArg, phaseArg] = process.argv.slice(2);
const scene = WORLD_SCENES.find((s) => s.name === name);
if (!scene) throw new Error(`unknown scene ${name}: ${WORLD_SCENES.map((s) => s.name).join(', ')}`);
const desc = loadScenario(scene.file);
const frames = framesArg !== undefined ? Number(framesArg) : 300;
const phase = phaseArg !== undefined ? Number(phaseArg) : 30;
const world = new World(desc);
const dt = desc.config.dt;
let rows = 0,
  speculative = 0,
  pushing = 0,
  closing = 0,
  ms = 0,
  worst = 0,
  worstAll = 0,
  worstFrame = 0,
  deep = 0;
/** Rows deeper than this (m) are counted: the worst penetration alone is one chaotic event. */
const DEEP = 0.05;
const t0 = performance.now();
process.stdout.write(`${name}: frames   rows/step  speculative/step  of those λn>0  closing at ġn⁻  ms/step  max penetration (mm)\n`);
for (let k = 1; k <= frames; k++) {
  const s = performance.now();
  const f = world.step();
  ms += performance.now() - s;
  rows += f.contacts.length;
  speculative += f.speculativeRows;
  for (const c of f.contacts) {
    const gap = c.contact.gap ?? 0;
    if (gap > 0) {
      if (c.lambda[0] > 0) {
        pushing++;
        if (-c.gapBefore[0] * dt >= gap) closing++;
      }
    }
    if (c.contact.penetration > worst) worst = c.contact.penetration;
    if (c.contact.penetration > DEEP) deep++;
  }
  if (worst > worstAll) {
    worstAll = worst;
    worstFrame = k;
  }
  if (k % phase === 0 || k === frames) {
    const n = k % phase === 0 ? phase : k % phase;
    process.stdout.write(
      `  ${String(k - n + 1).padStart(4)}–${String(k).padEnd(4)} ${(rows / n).toFixed(0).padStart(9)} ${(speculative / n).toFixed(0).padStart(17)} ${(pushing / n).toFixed(0).padStart(14)} ${(closing / n).toFixed(0).padStart(15)} ${(ms / n).toFixed(1).padStart(8)} ${(1000 * worst).toFixed(1).padStart(10)}\n`,
    );
    rows = speculative = pushing = closing = ms = worst = 0;
  }
}
process.stdout.write(
  `max penetration ${(1000 * worstAll).toFixed(1)} mm (frame ${worstFrame}), ${deep} rows deeper than ${1000 * DEEP} mm; wall ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
);
