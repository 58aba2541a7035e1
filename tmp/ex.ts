import { readFileSync, readdirSync } from 'node:fs';
import { parseSceneFile } from '../src/format/scene.js';
import { World } from '../src/engine/world/world.js';
import { frameFromWorld, headerFromWorld } from '../src/format/worldRecording.js';
import { Diagnoser } from '../src/session/diagnose.js';
const only = process.argv[2];
for (const file of readdirSync('examples').filter((f) => f.endsWith('.scene.json')).sort()) {
  if (only ? !file.includes(only) : file.includes('pile')) continue;
  for (const s of parseSceneFile(readFileSync('examples/' + file, 'utf8'), file).scenarios) {
    const world = new World(s.desc); const e = world.energy();
    const d = new Diagnoser(headerFromWorld(world), {}, e.kineticLinear + e.kineticRotational + e.potential);
    const t0 = performance.now();
    for (let k = 0; k < s.desc.frames; k++) d.add(frameFromWorld(world, world.step()));
    const byKind = new Map<string, number>();
    for (const f of d.findings) byKind.set(f.mechanism, (byKind.get(f.mechanism) ?? 0) + 1);
    const inj = d.findings.filter((f) => f.kind === 'injection');
    console.log(`${file} / ${s.desc.name} (${s.desc.config.solver.solver}): ${[...byKind].map(([k, v]) => `${k}×${v}`).join(' ')} | cf ${d.cost.frames} frames ${d.cost.ms.toFixed(0)} ms, total ${(performance.now() - t0).toFixed(0)} ms`);
    for (const f of inj.slice(0, 3)) console.log(`   ${f.frame} ${f.mechanism} ${f.joules.toExponential(2)} [${f.contacts.join(',')}] ${f.explanation.slice(0, 260)}`);
  }
}
