/**
 * Session benchmark (prints, not a test): `npx tsx bench/session.ts [frames] [contactsPerFrame]`.
 *
 * Generates a recording of 10 000 frames with ~200 contacts per frame and opens it with
 * Session.fromRecording. The frames are SYNTHESISED with serializeFrame from made-up but valid data (not
 * simulated): 50 unit boxes on a ground plane, each touching it at 4 corners (50 islands of 4 contacts),
 * with small pseudo-random motion, depths and λ. The file is written to os.tmpdir() and deleted afterwards.
 *
 * Prints, in one run: generation time and file size; the disk-speed references (reading the bytes, JSON.parse
 * of every line); the index validating every line (RecordingReader's default, the implementation before the
 * byte scanner) beside the index with 'on-read' validation (the scanner, src/format/recordingScan.ts), with
 * wall and CPU time, the bytes the index keeps and the peak RSS; the summary pass; median/max seek over 200
 * random seeks (target < 50 ms); detail() (re-assembly + conditioning of all islands); the inspector open
 * (index + timeline with κ + diagnosis, target ≥ 60 MiB/s) and its frame views; machine and load.
 * Targets (docs/benchmarks.md): index ≥ 150 MiB/s, inspector open ≥ 60 MiB/s, seek < 50 ms.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Session } from '../src/session/session.js';
import { InspectorModel } from '../src/extension/model/inspectorModel.js';
import { rng } from '../test/rng.js';
import { writeSyntheticRecording } from './syntheticRecording.js';
import { RecordingReader } from '../src/format/recordingFile.js';
import { cpuMs, diskReferences, machineInfo, peakRssMiB, rate, timed, timedAsync } from './common.js';

const FRAMES = Number(process.argv[2] ?? 10_000);
const CONTACTS = Number(process.argv[3] ?? 200);
const BOXES = Math.max(1, Math.round(CONTACTS / 4));
const SEEKS = 200;

function stats(xs: number[]): { median: number; max: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], p95: s[Math.min(s.length - 1, Math.floor(0.95 * s.length))], max: s[s.length - 1] };
}

const ms = (x: number): string => `${x.toFixed(2)} ms`;

async function main(): Promise<void> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-bench-session-')), 'synthetic.rec.jsonl');
  let t0 = performance.now();
  writeSyntheticRecording(file, FRAMES, CONTACTS);
  const genMs = performance.now() - t0;
  const size = fs.statSync(file).size;

  try {
    const mi = machineInfo();
    console.log(
      `Session benchmark — ${mi.cpu} × ${mi.cores}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${mi.platform}, Node ${mi.node}, load ${mi.loadAverage.toFixed(1)}, ${mi.date}`,
    );
    console.log('  (synthetic recording: frames built with serializeFrame from made-up valid data, not simulated)');
    const { read, jsonParse } = diskReferences(file);
    const rssBefore = process.memoryUsage().rss / 2 ** 20;
    const every = timed(() => RecordingReader.openSync(file));
    every.value.close();
    // the scanner's index, async as the extension opens it, sampling the RSS after every chunk
    let peakRss = 0;
    const scanned = await timedAsync(() =>
      RecordingReader.open(file, { validate: 'on-read', onProgress: () => (peakRss = Math.max(peakRss, process.memoryUsage().rss / 2 ** 20)) }),
    );
    let largest = 0;
    for (const f of scanned.value.summaries()) largest = Math.max(largest, f.length);
    const scannedLines = scanned.value.scannedLines;
    scanned.value.close();

    t0 = performance.now();
    const s = Session.fromRecording(file, { validate: 'on-read' });
    const openMs = performance.now() - t0;

    t0 = performance.now();
    let contacts = 0,
      maxDepth = 0,
      converged = 0;
    for (let i = 0; i < s.frameCount; i++) {
      const sum = s.summary(i);
      contacts += sum.contacts;
      maxDepth = Math.max(maxDepth, sum.maxDepth);
      if (sum.status === 'converged') converged++;
    }
    const summaryMs = performance.now() - t0;

    const r = rng(7);
    const seekTimes: number[] = [],
      seekCpu: number[] = [];
    for (let k = 0; k < SEEKS; k++) {
      const i = Math.floor(r() * s.frameCount);
      const c = cpuMs(),
        t = performance.now();
      const f = s.seek(i);
      seekTimes.push(performance.now() - t);
      seekCpu.push(cpuMs() - c);
      if (f.contacts.length !== s.summary(i).contacts) throw new Error('seek returned the wrong frame');
    }
    const detailTimes: number[] = [];
    let islands = 0;
    for (let k = 0; k < 20; k++) {
      const i = Math.floor(r() * s.frameCount);
      s.seek(i);
      const t = performance.now();
      const d = s.detail(i);
      detailTimes.push(performance.now() - t);
      islands = d.islands.length;
      if (d.reason || d.islands.some((isl) => !isl.problem)) throw new Error(`detail failed: ${d.reason ?? d.islands.find((isl) => !isl.problem)?.reason}`);
    }
    const seek = stats(seekTimes),
      det = stats(detailTimes);
    console.log(
      `  recording      ${s.frameCount} frames, ${BOXES + 1} bodies, ${CONTACTS} contacts/frame (${contacts} total), ${(size / 2 ** 20).toFixed(1)} MiB, generated in ${ms(genMs)}`,
    );
    console.log(`  read bytes     ${rate(size, read)}  (disk speed: 1 MiB chunks, page cache warm)`);
    console.log(`  JSON.parse     ${rate(size, jsonParse)}  (every line, no validation: the reference any JSON reader pays)`);
    console.log(`  index, before  ${rate(size, every)}  (every line parsed and validated: the default 'every-line')`);
    console.log(
      `  index, scanner ${rate(size, scanned)}  ('on-read': ${scannedLines} of ${s.frameCount} lines scanned as bytes; target ≥ 150 MiB/s ${size / 2 ** 20 / (scanned.wallMs / 1000) >= 150 ? 'MET' : 'MISSED'} (wall), ${(every.wallMs / scanned.wallMs).toFixed(1)}× the 'every-line' index)`,
    );
    console.log(
      `  memory         the index keeps ~70 bytes per frame (${((70 * s.frameCount) / 2 ** 20).toFixed(2)} MiB) + the largest frame line ${(largest / 2 ** 20).toFixed(2)} MiB; RSS ${rssBefore.toFixed(0)} MiB before indexing, peak ${peakRss.toFixed(0)} MiB while the scanner indexed (+${(peakRss - rssBefore).toFixed(0)} MiB)`,
    );
    console.log(`  session open   ${ms(openMs)} (Session.fromRecording, 'on-read')`);
    console.log(
      `  summary pass   ${ms(summaryMs)} for ${s.frameCount} summaries (${((1000 * summaryMs) / s.frameCount).toFixed(2)} µs each; ${converged} converged, max depth ${maxDepth})`,
    );
    console.log(
      `  seek           ${SEEKS} random seeks: median ${ms(seek.median)}, p95 ${ms(seek.p95)}, max ${ms(seek.max)} (target < 50 ms) ${seek.max < 50 ? 'MET' : 'MISSED'}; CPU time max ${ms(Math.max(...seekCpu))} (wall beyond it is waiting for a core)`,
    );
    console.log(`  detail         20 random frames (${islands} islands of 4 contacts, A + conditioning each): median ${ms(det.median)}, max ${ms(det.max)}`);
    s.close();

    // The inspector (what the extension's worker does when a recording opens): index + one pass for the
    // timeline (energies, κ per frame) and the diagnosis, then frame views and a contact series.
    const opened = await timedAsync(() => InspectorModel.fromRecording(file));
    const m = opened.value;
    const viewTimes: number[] = [];
    for (let k = 0; k < 20; k++) {
      const i = Math.floor(r() * m.info.frameCount);
      const t = performance.now();
      m.frameView(i);
      viewTimes.push(performance.now() - t);
    }
    t0 = performance.now();
    const [series] = m.series([m.frameView(0).contacts[0].key]);
    const seriesMs = performance.now() - t0;
    const vv = stats(viewTimes);
    const openRate = size / 2 ** 20 / (opened.wallMs / 1000);
    console.log(
      `  inspector open ${rate(size, opened)} (index + timeline with κ per frame + diagnosis on one thread; ${m.findings.length} findings; target ≥ 60 MiB/s ${openRate >= 60 ? 'MET' : 'MISSED'}; peak RSS of the process so far ${peakRssMiB().toFixed(0)} MiB)`,
    );
    console.log(`  frame view     20 random frames (table rows, islands with A, κ, causes): median ${ms(vv.median)}, max ${ms(vv.max)}`);
    console.log(`  λ series       one contact over ${series.index.length} sampled frames: ${ms(seriesMs)}`);
    m.close();
  } finally {
    if (process.env.CONTACT_LENS_BENCH_KEEP) fs.copyFileSync(file, process.env.CONTACT_LENS_BENCH_KEEP); // to profile it
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

void main();
