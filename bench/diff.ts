/**
 * `contact-lens diff` streaming benchmark (prints, not a test):
 *   npx tsx bench/diff.ts A.rec.jsonl B.rec.jsonl [C.rec.jsonl …]
 * Compares A with each further file in a child process of its own (so the peak RSS is the diff's), and prints per
 * pair: wall and CPU time, MiB/s per file (each file's size over the time), peak RSS, the first divergence and the
 * frames compared. For the 1000-box pile: `node dist/cli.js simulate examples/box-pile-1000.scene.json --out
 * pile.rec.jsonl`, a copy of it (identical pair), and the same scene with `"maxIterations": 19` (a pair that parts
 * at the first frame whose solve needs the 20th sweep).
 */
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { compareFiles } from '../src/session/compare/compareFiles.js';
import { cpuMs, machineInfo } from './common.js';

const MiB = 2 ** 20;

function child(a: string, b: string): void {
  const t = performance.now(),
    c = cpuMs();
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const d = compareFiles(a, b);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const f = d.firstDivergence;
  process.stdout.write(
    `${JSON.stringify({
      wallMs: performance.now() - t,
      cpuMs: cpuMs() - c,
      peakRssMiB: peak / MiB,
      frames: d.framesCompared,
      divergence: f ? `${f.kind} at frame ${f.frame} (${f.field})` : 'none',
      notes: d.notes.filter((n) => /byte for byte/.test(n)),
    })}\n`,
  );
}

function main(): void {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1], args[2]);
  if (args.length < 2) throw new Error('usage: npx tsx bench/diff.ts A.rec.jsonl B.rec.jsonl [C.rec.jsonl …]');
  const m = machineInfo();
  console.log(`diff benchmark — ${m.cpu}, ${m.cores} cores, Node ${m.node}, load ${m.loadAverage.toFixed(2)}, ${m.date}`);
  const [a, ...others] = args;
  for (const b of others) {
    const r = spawnSync(process.execPath, [...process.execArgv, __filename, '--child', a, b], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (r.status !== 0) throw new Error(r.stderr);
    const o = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      wallMs: number;
      cpuMs: number;
      peakRssMiB: number;
      frames: number;
      divergence: string;
      notes: string[];
    };
    const sa = fs.statSync(a).size / MiB,
      sb = fs.statSync(b).size / MiB;
    const rate = (ms: number): string => `${(Math.min(sa, sb) / (ms / 1000)).toFixed(1)}`;
    console.log(
      `${a} (${sa.toFixed(1)} MiB) vs ${b} (${sb.toFixed(1)} MiB): ${o.frames} frames, ${o.divergence}; wall ${(o.wallMs / 1000).toFixed(2)} s (${rate(o.wallMs)} MiB/s per file), CPU ${(o.cpuMs / 1000).toFixed(2)} s (${rate(o.cpuMs)} MiB/s per file), peak RSS ${o.peakRssMiB.toFixed(0)} MiB${o.notes.length ? `; ${o.notes.join('; ')}` : ''}`,
    );
  }
  console.log(`load at the end ${machineInfo().loadAverage.toFixed(2)}`);
}

main();
