/**
 * findingsSnapshot — every finding of the diagnosis on recordings our code did not shape, written one line per
 * recording, so that a change meant to make the diagnosis cheaper can be shown to leave its verdicts alone.
 *
 *   npx tsx bench/findingsSnapshot.ts --dir DIR --out FILE            # the snapshot of this checkout
 *   npx tsx bench/findingsSnapshot.ts --compare BEFORE.jsonl AFTER.jsonl
 *
 * The recordings (written into DIR once, reused when present): the independent planted set
 * (test/independent/generate.ts), the peers' stack, bounce and slide at their defaults (test/peers/: cannon-es,
 * Rapier, Jolt, MuJoCo, Bullet), their stacks relabelled "converged" and "max-iterations", the controlled re-runs
 * (Jolt at 100 iterations, cannon-es without its position term), and our 10-box stack under 10 PGS sweeps.
 * Each is diagnosed as `diagnose` does (the batch budget) and as the peers' tests do (no budget). A finding is
 * kept whole (mechanism, frame, contacts, joules, texts, counterfactual savings) except the re-solves'
 * milliseconds, which vary with the machine.
 *
 * --compare prints, per recording, the findings that differ: exactly, and to the printed digits (numbers rounded
 * to 4 significant digits, texts as written, round-off below 1e-12 as 0); it exits 1 when any differs to the
 * printed digits.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordingWriter } from '../src/format/recordingFile.js';
import { Diagnoser, type DiagnosisOptions } from '../src/session/diagnose.js';
import { BATCH_DIAGNOSIS } from '../src/session/diagnosisRun.js';
import { parseSceneFile } from '../src/format/scene.js';
import { World } from '../src/engine/world/world.js';
import { frameFromWorld, headerFromWorld } from '../src/format/worldRecording.js';
import { generatePlantedSet } from '../test/independent/generate.js';
import { recordPeer, type RecordPeerOptions } from '../test/peers/recordPeer.js';
import { SCENE_NAMES } from '../test/peers/scenes.js';
import { PEER_ENGINES } from '../test/peers/types.js';
import { framesOf } from './recordingFrames.js';

interface Line {
  readonly file: string;
  readonly budget: 'batch' | 'unbounded';
  readonly findings: unknown[];
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The recordings, written into `dir` unless already there; returns the file names with their status relabel. */
async function recordings(dir: string): Promise<{ file: string; relabel?: 'converged' | 'max-iterations' }[]> {
  const indep = join(dir, 'independent');
  if (!existsSync(indep)) generatePlantedSet(indep);
  const out: { file: string; relabel?: 'converged' | 'max-iterations' }[] = readdirSync(indep)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => ({ file: join('independent', f) }));
  const peers = join(dir, 'peers');
  mkdirSync(peers, { recursive: true });
  const peer = async (name: string, engine: (typeof PEER_ENGINES)[number], scene: (typeof SCENE_NAMES)[number], o: RecordPeerOptions = {}) => {
    const file = join(peers, name);
    if (!existsSync(file)) await recordPeer(engine, scene, { ...o, out: file });
    return join('peers', name);
  };
  for (const engine of PEER_ENGINES)
    for (const scene of SCENE_NAMES) {
      const file = await peer(`${engine}-${scene}.rec.jsonl`, engine, scene);
      out.push({ file });
      if (scene === 'stack') out.push({ file, relabel: 'converged' }, { file, relabel: 'max-iterations' });
    }
  out.push({ file: await peer('jolt-stack-it100.rec.jsonl', 'jolt', 'stack', { iterations: 100 }) });
  out.push({ file: await peer('cannon-stack-nostab.rec.jsonl', 'cannon', 'stack', { stabilization: false }) });
  const ours = join(dir, 'ours-10-box-pgs10.rec.jsonl');
  if (!existsSync(ours)) {
    const s = parseSceneFile(readFileSync('examples/fault-pgs-too-few-iterations.scene.json', 'utf8'), 'examples/fault-pgs-too-few-iterations.scene.json')
      .scenarios[0];
    const world = new World(s.desc);
    const w = RecordingWriter.create(ours, headerFromWorld(world));
    for (let k = 0; k < s.desc.frames; k++) w.writeFrame(frameFromWorld(world, world.step()));
    w.close();
  }
  out.push({ file: 'ours-10-box-pgs10.rec.jsonl' });
  return out;
}

/** A finding without the machine-dependent milliseconds. */
function canonical(f: object): unknown {
  return JSON.parse(JSON.stringify(f, (k, v) => (k === 'timeMs' ? undefined : v)));
}

async function snapshot(dir: string, out: string): Promise<void> {
  const lines: string[] = [];
  const budgets: [Line['budget'], Partial<DiagnosisOptions>][] = [
    ['batch', BATCH_DIAGNOSIS],
    ['unbounded', { counterfactualTotalWork: Number.POSITIVE_INFINITY, counterfactualFrameWork: Number.POSITIVE_INFINITY }],
  ];
  let work = 0;
  const c0 = process.cpuUsage();
  for (const { file, relabel } of await recordings(dir)) {
    const { header, frames } = framesOf(join(dir, file));
    const fs = relabel ? frames.map((f) => ({ ...f, solver: { ...f.solver, status: relabel } })) : frames;
    for (const [budget, options] of budgets) {
      const d = new Diagnoser(header, options);
      for (const f of fs) d.add(f);
      work += d.cost.work;
      const line: Line = { file: relabel ? `${file} (relabelled ${relabel})` : file, budget, findings: d.findings.map(canonical) };
      lines.push(JSON.stringify(line));
    }
  }
  const c = process.cpuUsage(c0);
  writeFileSync(out, `${lines.join('\n')}\n`);
  console.log(`${lines.length} diagnoses written to ${out}; re-solve work ${(work / 1e6).toFixed(1)}M units, ${((c.user + c.system) / 1e6).toFixed(1)} s CPU`);
}

/** Below this magnitude a number is round-off (joules, m/s: 1e-17 J is no energy) and compares as 0. */
const ROUND_OFF = 1e-12;

/**
 * Numbers rounded to 4 significant digits (what the texts print at most), round-off as 0, in texts too (a
 * printed 6.94e-18 J), recursively.
 */
function printed(x: unknown): unknown {
  if (typeof x === 'number') return Number.isFinite(x) && Math.abs(x) >= ROUND_OFF ? Number(x.toPrecision(4)) : Number.isFinite(x) ? 0 : x;
  if (typeof x === 'string') return x.replace(/-?\d+(\.\d+)?e-\d+/g, (m) => (Math.abs(Number(m)) < ROUND_OFF ? '0' : m));
  if (Array.isArray(x)) return x.map(printed);
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, printed(v)]));
  return x;
}

function compare(a: string, b: string): void {
  const read = (f: string): Map<string, Line> =>
    new Map(
      readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line)
        .map((l) => [`${l.file} [${l.budget}]`, l]),
    );
  const before = read(a),
    after = read(b);
  let exact = 0,
    digits = 0,
    findings = 0;
  for (const [key, l] of before) {
    const m = after.get(key);
    if (!m) {
      console.log(`${key}: missing after`);
      digits++;
      continue;
    }
    findings += l.findings.length;
    const n = Math.max(l.findings.length, m.findings.length);
    for (let i = 0; i < n; i++) {
      const x = l.findings[i],
        y = m.findings[i];
      if (JSON.stringify(x) === JSON.stringify(y)) continue;
      exact++;
      if (JSON.stringify(printed(x)) === JSON.stringify(printed(y))) continue;
      digits++;
      console.log(`${key} finding ${i}:\n  before ${JSON.stringify(x)}\n  after  ${JSON.stringify(y)}`);
    }
  }
  console.log(
    `${before.size} diagnoses, ${findings} findings before: ${exact} differ in some digit, ${digits} differ to the printed digits (4 significant)${after.size !== before.size ? `; ${after.size} diagnoses after` : ''}`,
  );
  if (digits > 0 || after.size !== before.size) process.exitCode = 1;
}

async function main(): Promise<void> {
  const cmp = process.argv.indexOf('--compare');
  if (cmp >= 0) return compare(process.argv[cmp + 1], process.argv[cmp + 2]);
  const dir = arg('--dir'),
    out = arg('--out');
  if (!dir || !out) throw new Error('usage: findingsSnapshot.ts --dir DIR --out FILE | --compare BEFORE AFTER');
  await snapshot(dir, out);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
