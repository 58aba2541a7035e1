/**
 * The controlled experiment on real engines (which mechanism injects energy): every engine's three scenes at its
 * defaults, with many more solver iterations, with stabilisation off, and with both. Per run: frames whose
 * total energy rose by more than 1 mJ (kinetic + potential, frameEnergy of src/session/diagnose.ts), the
 * largest rise, the bounce's rebound ratio (compare with e = 0.5), the slide's lift, and the worst
 * |Δv − M⁻¹Jᵀλ| of the recording. Prints a Markdown table: npx tsx test/peers/experiment.ts [engine …]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openRecording, peerFacts, type PeerFacts } from './analyze.js';
import { packageVersion } from './packages.js';
import { recordPeer } from './recordPeer.js';
import { SCENE_NAMES, type SceneName } from './scenes.js';
import { PEER_ENGINES, type PeerEngineName, type RecorderOptions } from './types.js';

/** "Many more iterations" per engine: 10× its default, at least 100. */
export const MANY_ITERATIONS: Record<PeerEngineName, number> = { cannon: 100, rapier: 100, jolt: 100, mujoco: 1000, bullet: 100 };

export const PACKAGES: Record<PeerEngineName, string> = {
  cannon: 'cannon-es',
  rapier: '@dimforge/rapier3d-compat',
  jolt: 'jolt-physics',
  mujoco: 'mujoco-js',
  bullet: 'ammojs-typed',
};

export interface Configuration {
  readonly label: string;
  readonly options: (e: PeerEngineName) => RecorderOptions;
}
export const CONFIGURATIONS: readonly Configuration[] = [
  { label: 'defaults', options: () => ({}) },
  { label: 'many iterations', options: (e) => ({ iterations: MANY_ITERATIONS[e] }) },
  { label: 'stabilisation off', options: () => ({ stabilization: false }) },
  { label: 'both', options: (e) => ({ iterations: MANY_ITERATIONS[e], stabilization: false }) },
];

export async function runExperiment(engine: PeerEngineName, scene: SceneName, config: Configuration, dir: string): Promise<PeerFacts> {
  const file = path.join(dir, `${engine}-${scene}-${config.label.replace(/\s+/g, '-')}.rec.jsonl`);
  await recordPeer(engine, scene, { ...config.options(engine), out: file });
  try {
    return peerFacts(await openRecording(file), scene);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

function cell(scene: SceneName, f: PeerFacts): string {
  const extra =
    scene === 'bounce'
      ? `, rebound ${f.reboundRatio === undefined ? '–' : f.reboundRatio.toFixed(2)}·v`
      : scene === 'slide'
        ? `, lift ${((f.maxLift ?? 0) * 1000).toFixed(0)} mm`
        : '';
  return `${f.rising} (max ${(f.largestRise * 1000).toFixed(1)} mJ${extra})`;
}

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const engines = asked.length ? asked.filter((e): e is PeerEngineName => (PEER_ENGINES as readonly string[]).includes(e)) : PEER_ENGINES;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-experiment-'));
  const out: string[] = [];
  out.push(
    "Frames whose total energy rose by > 1 mJ (largest rise; bounce: first rebound speed / approach speed, e = 0.5; slide: highest lift of the box's lowest point). Last column: worst |Δv − M⁻¹Jᵀλ| (m/s, rad/s) at the defaults / over all four runs.",
    '',
  );
  out.push(`| engine | scene | ${CONFIGURATIONS.map((c) => c.label).join(' | ')} | Δv check (defaults / all) |`);
  out.push(`|---|---|${CONFIGURATIONS.map(() => '---').join('|')}|---|`);
  try {
    for (const engine of engines) {
      for (const scene of SCENE_NAMES) {
        const cells: string[] = [];
        let worst = 0,
          atDefaults = 0;
        for (const c of CONFIGURATIONS) {
          const f = await runExperiment(engine, scene, c, dir);
          cells.push(cell(scene, f));
          worst = Math.max(worst, f.mismatch.worst);
          if (c === CONFIGURATIONS[0]) atDefaults = f.mismatch.worst;
        }
        const line = `| ${engine} ${packageVersion(PACKAGES[engine])} | ${scene} | ${cells.join(' | ')} | ${atDefaults.toExponential(1)} / ${worst.toExponential(1)} |`;
        out.push(line);
        process.stderr.write(`${line}\n`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

if (require.main === module) void main();
