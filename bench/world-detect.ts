/**
 * Profiling aid for the collision part of the world step alone (broad phase, narrow phase, speculative
 * filter: detectContacts), which whole-step timings on a shared machine drown in noise. Settles a scene
 * with our own step (or reads the settled state from a snapshot file written by bench/world-profile.ts),
 * then times `calls` detections of that one state and prints process CPU ms per call and a fingerprint of
 * the contacts (equal fingerprints ⇔ bit-identical contacts, so two builds can be compared).
 *   npx esbuild bench/world-detect.ts --bundle --platform=node --outfile=dist/world-detect.js
 *   node dist/world-detect.js box-pile-1000 [settleSteps] [calls] [snapshotFile]
 */
import * as fs from 'node:fs';
import { SweepAndPrune } from '../src/engine/collision/broadphase.js';
import { detectContacts } from '../src/engine/world/detect.js';
import { World } from '../src/engine/world/world.js';
import { applySnapshot, type BodySnapshot, loadScenario, WORLD_SCENES } from './world-scenes.js';

const [name = 'box-pile-1000', settleArg, callsArg, snapFile] = process.argv.slice(2);
const scene = WORLD_SCENES.find((s) => s.name === name);
if (!scene) throw new Error(`unknown scene ${name}: ${WORLD_SCENES.map((s) => s.name).join(', ')}`);
let desc = loadScenario(scene.file);
const settleSteps = settleArg !== undefined ? Number(settleArg) : scene.settleSteps;
const calls = callsArg !== undefined ? Number(callsArg) : 40;
if (snapFile && fs.existsSync(snapFile)) {
  desc = applySnapshot(desc, JSON.parse(fs.readFileSync(snapFile, 'utf8')) as BodySnapshot[]);
} else {
  const w = new World(desc);
  for (let i = 0; i < settleSteps; i++) w.step();
  desc = applySnapshot(
    desc,
    w.bodies.map((b) => (b.isStatic ? null : [...b.x, ...b.q, ...b.v, ...b.w])),
  );
}
const world = new World(desc);
const sap = new SweepAndPrune();
const cpu: number[] = [];
let found = detectContacts(world.bodies, sap, world.config.dt);
for (let i = 0; i < calls; i++) {
  const c0 = process.cpuUsage();
  found = detectContacts(world.bodies, sap, world.config.dt);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
}
// FNV-1a over every contact's numbers and feature id.
let h = 0x811c9dc5;
const mix = (x: number): void => {
  for (const byte of new Uint8Array(new Float64Array([x]).buffer)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
};
for (const d of found) {
  for (const x of [d.bodyA, d.bodyB, ...d.point, ...d.normal, d.penetration, d.gap]) mix(x);
  for (let k = 0; k < d.featureId.length; k++) h = Math.imul(h ^ d.featureId.charCodeAt(k), 0x01000193) >>> 0;
}
const s = cpu.slice(Math.min(5, cpu.length - 1)).sort((a, b) => a - b);
process.stdout.write(
  `${name}: detectContacts ${found.length} contacts (broad phase: ${sap.lastTests} interval tests on axis ${'xyz'[sap.lastAxis]}); CPU ms/call median ${s[s.length >> 1].toFixed(2)}, min ${s[0].toFixed(2)}; fingerprint ${h.toString(16)}\n`,
);
