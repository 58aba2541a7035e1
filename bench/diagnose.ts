/**
 * bench:diagnose — what the diagnosis costs and what it finds on real engines' recordings, side by side
 * with the ledger-only pass (no counterfactual re-solves) in the same run.
 *
 *   npm run bench:diagnose [-- --quick] [-- --json] [-- --repeat N] [-- --base DIR]
 *
 * For each real engine from npm (test/peers/: cannon-es, Rapier, Jolt, MuJoCo, Bullet/ammo.js) the
 * 300-frame stack of 10 boxes is recorded, then diagnosed: frames whose energy rose by > 1 mJ, how many
 * carry an injection finding, the mechanisms, and the time with and without counterfactuals (CPU time of
 * this process beside the wall time: other processes on the machine inflate the wall time). Our own
 * 10-box stack (PGS, 10 sweeps) and pyramid-20 (one 1600-contact island) give the counterfactual cost per
 * frame on our recordings. `--repeat N` diagnoses each recording N times with counterfactuals and reports the
 * smallest CPU time (the JIT warm, other processes' interference least). `--base DIR` loads the Diagnoser of
 * another checkout too (e.g. `git worktree add --detach /tmp/base <rev> && ln -s "$PWD/node_modules"
 * /tmp/base/node_modules`) and diagnoses each recording with both in turn, in this process: its CPU time (least
 * of N) and re-solve work units print beside this tree's.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecordedFrame, RecordingHeader } from '../src/format/recording.js';
import { Diagnoser, frameEnergy } from '../src/session/diagnose.js';
import { parseSceneFile } from '../src/format/scene.js';
import { World } from '../src/engine/world/world.js';
import { frameFromWorld, headerFromWorld } from '../src/format/worldRecording.js';
import { recordPeer } from '../test/peers/recordPeer.js';
import { PEER_ENGINES } from '../test/peers/types.js';
import { framesOf } from './recordingFrames.js';
import { machineInfo, parseBenchArgs } from './common.js';

interface Row {
  readonly source: string;
  readonly frames: number;
  readonly rising: number;
  readonly covered: number;
  readonly mechanisms: string;
  readonly ledgerMs: number;
  readonly fullMs: number;
  readonly fullCpuMs: number;
  readonly cfFrames: number;
  readonly cfIslands: number;
  readonly cfMs: number;
  readonly cfWork: number;
  /** With --base: the other checkout's Diagnoser on the same frames (CPU ms, least of --repeat; work units). */
  readonly base?: { readonly fullCpuMs: number; readonly cfWork: number };
}

type DiagnoserClass = typeof Diagnoser;
/** The other checkout's Diagnoser (--base). */
let baseDiagnoser: DiagnoserClass | null = null;

function run(
  header: RecordingHeader,
  frames: readonly RecordedFrame[],
  counterfactuals: boolean,
  e0?: number,
  D: DiagnoserClass = Diagnoser,
): { d: Diagnoser; ms: number; cpuMs: number } {
  const d = new D(header, { counterfactuals, counterfactualTotalWork: Number.POSITIVE_INFINITY }, e0);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const f of frames) d.add(f);
  const c = process.cpuUsage(c0);
  return { d, ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
}

/** Diagnoses with counterfactuals per row (--repeat): the row's CPU time is the smallest. */
let repeat = 1;

function row(source: string, header: RecordingHeader, frames: readonly RecordedFrame[], e0?: number): Row {
  const ledger = run(header, frames, false, e0);
  let full = run(header, frames, true, e0);
  let base = baseDiagnoser ? run(header, frames, true, e0, baseDiagnoser) : null;
  for (let k = 1; k < repeat; k++) {
    // in turn, so that a change of the machine's load falls on both
    const again = run(header, frames, true, e0);
    if (again.cpuMs < full.cpuMs) full = again;
    const againBase = baseDiagnoser ? run(header, frames, true, e0, baseDiagnoser) : null;
    if (base && againBase && againBase.cpuMs < base.cpuMs) base = againBase;
  }
  let prev = e0;
  const rising: number[] = [];
  for (const f of frames) {
    const e = frameEnergy(header, f);
    if (prev !== undefined && e - prev > 1e-3) rising.push(f.frame);
    prev = e;
  }
  const inj = full.d.findings.filter((f) => f.kind === 'injection');
  const covered = rising.filter((fr) => inj.some((f) => f.frame === fr)).length;
  const joules = new Map<string, number>();
  for (const f of inj) joules.set(f.mechanism, (joules.get(f.mechanism) ?? 0) + f.joules);
  const mechanisms =
    [...joules]
      .sort((a, b) => b[1] - a[1])
      .map(([m, j]) => `${m} ${j.toFixed(3)} J`)
      .join(', ') || 'none';
  return {
    source,
    frames: frames.length,
    rising: rising.length,
    covered,
    mechanisms,
    ledgerMs: ledger.ms,
    fullMs: full.ms,
    fullCpuMs: full.cpuMs,
    cfFrames: full.d.cost.frames,
    cfIslands: full.d.cost.islands,
    cfMs: full.d.cost.ms,
    cfWork: full.d.cost.work,
    ...(base ? { base: { fullCpuMs: base.cpuMs, cfWork: base.d.cost.work } } : {}),
  };
}

function ours(file: string, scenario: number, frames?: number): { header: RecordingHeader; frames: RecordedFrame[]; e0: number } {
  const s = parseSceneFile(readFileSync(file, 'utf8'), file).scenarios[scenario];
  const world = new World(s.desc);
  const e = world.energy();
  const header = headerFromWorld(world);
  const out: RecordedFrame[] = [];
  for (let k = 0; k < (frames ?? s.desc.frames); k++) out.push(frameFromWorld(world, world.step()));
  return { header, frames: out, e0: e.kineticLinear + e.kineticRotational + e.potential };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const r = argv.indexOf('--repeat');
  if (r >= 0) {
    repeat = Number(argv[r + 1]);
    if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`--repeat needs a whole number ≥ 1, got ${argv[r + 1]}`);
    argv.splice(r, 2);
  }
  const b = argv.indexOf('--base');
  if (b >= 0) {
    const dir = argv[b + 1];
    if (!dir) throw new Error('--base needs the directory of another checkout');
    baseDiagnoser = ((await import(pathToFileURL(resolve(dir, 'src/session/diagnose.ts')).href)) as { Diagnoser: DiagnoserClass }).Diagnoser;
    argv.splice(b, 2);
  }
  const args = parseBenchArgs(argv);
  const m = machineInfo();
  const rows: Row[] = [];
  for (const engine of PEER_ENGINES) {
    const file = await recordPeer(engine, 'stack', args.quick ? { frames: 100 } : {});
    const { header, frames } = framesOf(file);
    rows.push(row(`${engine} stack (${header.producer.name} ${header.producer.version ?? ''})`.trim(), header, frames));
  }
  const stack = ours('examples/fault-pgs-too-few-iterations.scene.json', 0, args.quick ? 100 : undefined);
  rows.push(row('ours: 10-box stack, PGS 10 sweeps', stack.header, stack.frames, stack.e0));
  const pyr = ours('examples/pyramid-20.scene.json', 0, args.quick ? 10 : 40);
  rows.push(row('ours: pyramid-20 (1600-contact island)', pyr.header, pyr.frames, pyr.e0));
  if (args.json) {
    console.log(JSON.stringify({ machine: m, rows }));
    return;
  }
  console.log(`bench:diagnose — ${m.cpu}, ${m.cores} cores, ${m.node}, ${m.platform}, load ${m.loadAverage.toFixed(2)}, ${m.date}`);
  console.log('frames rising > 1 mJ, those carrying an injection finding, time ledger-only vs with counterfactual exact re-solves');
  if (repeat > 1) console.log(`with counterfactuals: the run of ${repeat} with the least CPU time`);
  if (baseDiagnoser) console.log("base: the --base checkout's Diagnoser, run in turn with this one in this process");
  for (const r of rows) {
    console.log(
      `${r.source}\n  ${r.frames} frames, rising ${r.rising}, covered ${r.covered} (${r.rising ? ((100 * r.covered) / r.rising).toFixed(0) : '100'} %); ${r.mechanisms}`,
    );
    console.log(
      `  ledger only ${r.ledgerMs.toFixed(0)} ms | with counterfactuals ${r.fullMs.toFixed(0)} ms wall, ${r.fullCpuMs.toFixed(0)} ms CPU; re-solved ${r.cfIslands} island(s) in ${r.cfFrames} frame(s): ${r.cfMs.toFixed(0)} ms, ${(r.cfFrames ? r.cfMs / r.cfFrames : 0).toFixed(1)} ms per frame, ${(r.cfWork / 1e6).toFixed(1)}M work units (${r.cfWork ? ((1e6 * r.cfMs) / r.cfWork).toFixed(0) : '-'} ns per unit)`,
    );
    if (r.base)
      console.log(
        `  base: with counterfactuals ${r.base.fullCpuMs.toFixed(0)} ms CPU, ${(r.base.cfWork / 1e6).toFixed(1)}M work units | this tree ${r.fullCpuMs.toFixed(0)} ms CPU (${((100 * r.fullCpuMs) / r.base.fullCpuMs - 100).toFixed(0)} %), ${(r.cfWork / 1e6).toFixed(1)}M work units (${r.base.cfWork ? ((100 * r.cfWork) / r.base.cfWork - 100).toFixed(0) : '-'} %)`,
      );
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
