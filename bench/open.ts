/**
 * Inspector-open benchmark (prints, not a test): `npx tsx bench/open.ts [recording.rec.jsonl]`.
 *
 * Times only what the extension's worker does when a recording opens in the inspector
 * (InspectorModel.fromRecording: index + timeline with κ + diagnosis), in a child process of its own so that
 * the peak RSS is the open's. Without a file it writes the 10 000-frame synthetic recording of
 * bench/session.ts to os.tmpdir() (deleted afterwards). Prints wall and CPU time with MiB/s, peak RSS, the
 * findings count and a digest of the findings and the timeline (to compare builds: run this file in a
 * worktree of the other commit), and the issue 16 target (open ≥ 60 MiB/s; memory ≤ 1.5× the index plus one
 * frame). For a profile: `node --import tsx --cpu-prof bench/open.ts FILE --child`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { InspectorModel } from '../src/extension/model/inspectorModel.js';
import { machineInfo, peakRssMiB, timedAsync } from './common.js';
import { writeSyntheticRecording } from './syntheticRecording.js';

interface ChildResult {
  wallMs: number;
  cpuMs: number;
  peakRssMiB: number;
  rssBeforeMiB: number;
  findings: number;
  digest: string;
  frames: number;
  largestLine: number;
}

async function child(file: string): Promise<void> {
  const rssBeforeMiB = process.memoryUsage().rss / 2 ** 20;
  const c0 = process.cpuUsage();
  const opened = await timedAsync(() => InspectorModel.fromRecording(file));
  const c1 = process.cpuUsage(c0);
  const m = opened.value;
  const digest = createHash('sha256').update(JSON.stringify(m.findings)).update(JSON.stringify(m.timeline)).digest('hex').slice(0, 16);
  let largestLine = 0;
  for (let i = 0; i < m.info.frameCount; i++) largestLine = Math.max(largestLine, m.session.reader!.summary(i).length);
  const out: ChildResult = {
    wallMs: opened.wallMs,
    cpuMs: (c1.user + c1.system) / 1000,
    peakRssMiB: peakRssMiB(),
    rssBeforeMiB,
    findings: m.findings.length,
    digest,
    frames: m.info.frameCount,
    largestLine,
  };
  m.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const childAt = args.indexOf('--child');
  if (childAt >= 0) return child(args[0]);
  let file = args[0] && !args[0].startsWith('--') ? args[0] : '';
  let tmp = '';
  if (!file) {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-bench-open-'));
    file = path.join(tmp, 'synthetic.rec.jsonl');
    writeSyntheticRecording(file);
  }
  try {
    const size = fs.statSync(file).size,
      mib = size / 2 ** 20;
    const mi = machineInfo();
    console.log(`Inspector open — ${mi.cpu} × ${mi.cores}, ${mi.platform}, Node ${mi.node}, load ${mi.loadAverage.toFixed(1)}, ${mi.date}`);
    console.log(`  recording ${tmp ? 'synthetic (bench/session.ts, 10 000 frames)' : file}: ${mib.toFixed(1)} MiB`);
    const me = __filename;
    const r = spawnSync(process.execPath, [...process.execArgv, me, file, '--child'], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
    const res = JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildResult;
    const index = (70 * res.frames) / 2 ** 20;
    const memTarget = 1.5 * index + res.largestLine / 2 ** 20;
    console.log(
      `  open ${res.wallMs.toFixed(0)} ms (${(mib / (res.wallMs / 1000)).toFixed(1)} MiB/s), CPU ${res.cpuMs.toFixed(0)} ms (${(mib / (res.cpuMs / 1000)).toFixed(1)} MiB/s); ${res.findings} findings, digest ${res.digest}; peak RSS ${res.peakRssMiB.toFixed(0)} MiB (${res.rssBeforeMiB.toFixed(0)} MiB before the open) — open ≥ 60 MiB/s ${mib / (res.wallMs / 1000) >= 60 ? 'MET' : 'MISSED'}, memory ≤ 1.5 × index + one frame (${memTarget.toFixed(1)} MiB above the process) ${res.peakRssMiB - res.rssBeforeMiB <= memTarget ? 'MET' : 'MISSED'}`,
    );
  } finally {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

void main();
