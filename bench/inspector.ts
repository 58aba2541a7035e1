/**
 * Inspector benchmark (prints, not a test): what the extension's worker does when a recording opens in the
 * inspector, on a real recording.
 *   node dist/cli.js simulate examples/box-pile-1000.scene.json --out /tmp/pile.rec.jsonl
 *   npx tsx bench/inspector.ts /tmp/pile.rec.jsonl
 * Prints, in one run: the disk-speed references (reading the bytes, JSON.parse of every line), the index
 * validating every line (the implementation before the byte scanner) beside the scanner's index ('on-read'),
 * the inspector open (one streaming pass: index + timeline with energies and κ per frame + diagnosis) with
 * wall and CPU time and peak RSS, 20 random frame views, the slowest detail of every third frame (and its islands' κ checked against
 * the eigenvalues of each A itself), and the busiest frames' views split into their
 * parts (read + parse, detail, the rest), seeks (random and the busiest frames), the busiest frame's detail
 * next to the whole-frame assembly frame views no longer repeat, one contact's λ series, the heat-map
 * encoding of the largest A sent (600×600) next to the same encoding with Math.log10, and the machine.
 * Targets (docs/benchmarks.md): index ≥ 150 MiB/s, open ≥ 60 MiB/s, frame view ≤ 30 ms for a 3800-contact frame,
 * seek < 50 ms (the seeks to the busiest frame and to the one nearest 3800 contacts are also printed as medians). `--profile` adds the top self-time functions of the open and of the busiest frame views.
 */
import * as fs from 'node:fs';
import { FRAME_VIEW_CACHE_SIZE, InspectorModel } from '../src/extension/model/inspectorModel.js';
import { encodeHeatMap, HEAT_DECADES, HEAT_NEGATIVE, HEAT_STEPS } from '../src/protocol/heatMap.js';
import { MAX_MATRIX_ROWS } from '../src/protocol/inspector.js';
import { contactKinematics } from '../src/session/contactKinematics.js';
import { conditioningEstimate, ESTIMATE_MIN_ROWS } from '../src/session/conditioningEstimate.js';
import { RANGE_RELATIVE_THRESHOLD, rankToleranceFor } from '../src/engine/conditioning.js';
import { symmetricEigenvalues } from '../src/engine/math/eigen.js';
import { RecordingReader } from '../src/format/recordingFile.js';
import { validateFrame } from '../src/format/recordingValidate.js';
import { diskReferences, machineInfo, peakRssMiB, rate, timed, timedAsync, topSelfTimes } from './common.js';

/** The heat-map levels with Math.log10 per entry: the reference the table-based encoder is compared with. */
function encodeWithMathLog10(A: Float64Array, maxAbs: number): Uint8Array {
  const out = new Uint8Array(A.length);
  for (let i = 0; i < A.length; i++) {
    const a = A[i];
    if (a === 0) continue;
    const t = (Math.log10(Math.abs(a) / maxAbs) + HEAT_DECADES) * (HEAT_STEPS / HEAT_DECADES);
    out[i] = (a > 0 ? 1 : HEAT_NEGATIVE) + (t <= 0 ? 0 : t >= HEAT_STEPS ? HEAT_STEPS : Math.round(t));
  }
  return out;
}

function medianMs(fn: () => void, repeats = 21): number {
  const xs: number[] = [];
  for (let k = 0; k < repeats; k++) {
    const t = performance.now();
    fn();
    xs.push(performance.now() - t);
  }
  return xs.sort((a, b) => a - b)[repeats >> 1];
}

async function main(): Promise<void> {
  const file = process.argv[2];
  const profile = process.argv.includes('--profile');
  if (!file || !fs.existsSync(file)) {
    console.error(
      'usage: npx tsx bench/inspector.ts <recording.rec.jsonl> [--profile]  (e.g. node dist/cli.js simulate examples/box-pile-1000.scene.json --out /tmp/pile.rec.jsonl)',
    );
    process.exit(2);
  }
  const size = fs.statSync(file).size;
  const mib = size / 2 ** 20;
  const mi = machineInfo();
  console.log(`Inspector benchmark — ${mi.cpu} × ${mi.cores}, ${mi.platform}, Node ${mi.node}, load ${mi.loadAverage.toFixed(1)}, ${mi.date}`);
  const { read, jsonParse } = diskReferences(file);
  const every = timed(() => RecordingReader.openSync(file));
  every.value.close();
  const scanned = timed(() => RecordingReader.openSync(file, { validate: 'on-read' }));
  let largest = 0;
  for (const f of scanned.value.summaries()) largest = Math.max(largest, f.length);
  scanned.value.close();
  const rssBefore = process.memoryUsage().rss / 2 ** 20;
  const opened = await timedAsync(() => InspectorModel.fromRecording(file));
  const m = opened.value;
  const n = m.info.frameCount;
  const contacts = m.timeline.contacts.reduce((a, b) => a + b, 0);
  const views: number[] = [];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const seeks: number[] = [],
    seekCpu: number[] = [];
  for (let k = 0; k < 20; k++) {
    const i = Math.floor(rand() * n);
    m.forgetFrameViews(); // every view here is computed (the model keeps the last few)
    const t = performance.now();
    m.frameView(i);
    views.push(performance.now() - t);
    const j = Math.floor(rand() * n);
    const sk = timed(() => m.session.seek(j));
    seeks.push(sk.wallMs);
    seekCpu.push(sk.cpuMs);
  }
  views.sort((a, b) => a - b);
  // the slowest frame details of every third frame (CPU ms, frame already read): frames with many large
  // rank-deficient islands, not the busiest frames, are the worst views
  const slow = { cpu: 0, i: 0, islands: 0, deficient: 0, rows: 0 };
  for (let i = 0; i < n; i += 3) {
    m.session.frame(i);
    const d = timed(() => m.session.detail(i, { conditioning: 'estimate' }));
    if (d.cpuMs > slow.cpu) {
      const def = d.value.islands.filter((x) => (x.conditioning?.rankDeficiency ?? 0) > 0);
      slow.cpu = d.cpuMs;
      slow.i = i;
      slow.islands = d.value.islands.length;
      slow.deficient = def.length;
      slow.rows = Math.max(0, ...def.map((x) => 3 * x.contacts.length));
    }
  }
  // the slowest frame's κ as the view shows it, against the eigenvalues of each island's A itself (any size;
  // conditioning.ts's rules: rank = eigenvalues above the tolerance, λmin on the range = the smallest above the
  // range threshold)
  const kappaCheck = { islands: 0, rankEqual: 0, lambdaMax: 0, lambdaMinRange: 0, methods: new Set<string>() };
  // the estimate without the body-space Gram (Lanczos λmax + pivoted-Cholesky rank and pivot ratio), beside it
  const lanczosCheck = { rankEqual: 0, lambdaMax: 0, lambdaMinRange: 0 };
  for (const isl of m.session.detail(slow.i, { conditioning: 'estimate' }).islands) {
    const p = isl.problem,
      c = isl.conditioning;
    if (!p || !c || p.size <= ESTIMATE_MIN_ROWS) continue;
    const ev = symmetricEigenvalues(p.A, p.size),
      top = ev[p.size - 1];
    const tol = rankToleranceFor(p.size, Math.max(Math.abs(ev[0]), Math.abs(top)), p.regularization);
    const threshold = Math.max(tol, RANGE_RELATIVE_THRESHOLD * top);
    const rank = ev.filter((v) => v > tol).length,
      minRange = ev.find((v) => v > threshold) ?? 0;
    kappaCheck.islands++;
    kappaCheck.methods.add(c.method);
    if (rank === c.rank) kappaCheck.rankEqual++;
    kappaCheck.lambdaMax = Math.max(kappaCheck.lambdaMax, Math.abs(c.lambdaMax / top - 1));
    kappaCheck.lambdaMinRange = Math.max(kappaCheck.lambdaMinRange, Math.abs(c.lambdaMinRange / minRange - 1));
    const l = conditioningEstimate(p.A, p.size, p.regularization);
    if (rank === l.rank) lanczosCheck.rankEqual++;
    lanczosCheck.lambdaMax = Math.max(lanczosCheck.lambdaMax, Math.abs(l.lambdaMax / top - 1));
    lanczosCheck.lambdaMinRange = Math.max(lanczosCheck.lambdaMinRange, Math.abs(l.lambdaMinRange / minRange - 1));
  }
  // the busiest frames (most contacts), each read from disk (not from the session's cache): read + parse,
  // detail (islands, A, κ, kinematics) and the rest of the view (rows, heat maps), and a seek to each
  const byContacts = m.timeline.contacts.map((c, i) => [c, i]).sort((a, b) => b[0] - a[0]);
  const busy = byContacts.slice(0, 5).map(([, i]) => i);
  const parts: { read: number; detail: number; view: number; seek: number; seekCpu: number; cpu: number; exactCpu: number }[] = [];
  for (const i of busy) {
    for (let j = 0; j < 9; j++) m.session.frame(j); // evict i from the session's LRU
    const reader = m.session.reader!;
    const r = timed(() => reader.frame(i));
    for (let j = 0; j < 9; j++) m.session.frame(j);
    const sk = timed(() => m.session.seek(i));
    const d = timed(() => m.session.detail(i, { conditioning: 'estimate' }));
    m.forgetFrameViews();
    const v = timed(() => m.frameView(i));
    // the same view with every island's exact eigenvalues (the frame view before the κ estimate)
    const x = timed(() => m.frameView(i, { exactConditioning: true }));
    parts.push({
      read: r.wallMs,
      detail: d.wallMs,
      view: Math.max(0, v.wallMs - d.wallMs),
      seek: sk.wallMs,
      seekCpu: sk.cpuMs,
      cpu: r.cpuMs + v.cpuMs,
      exactCpu: r.cpuMs + x.cpuMs,
    });
  }
  // the frame closest to 3800 contacts (the frame size), from disk, estimate vs exact κ (CPU ms)
  let near = 0;
  m.timeline.contacts.forEach((c, i) => {
    if (Math.abs(c - 3800) < Math.abs(m.timeline.contacts[near] - 3800)) near = i;
  });
  const nearViews = { est: [] as number[], exact: [] as number[], wall: [] as number[], again: [] as number[], read: [] as number[] };
  for (let k = 0; k < 5; k++) {
    for (let j = 0; j < 9; j++) m.session.frame(j);
    m.forgetFrameViews();
    const v = timed(() => m.frameView(near));
    nearViews.est.push(v.cpuMs);
    nearViews.wall.push(v.wallMs);
    // the same frame again (going back to it): the model's last views
    nearViews.again.push(timed(() => m.frameView(near)).wallMs);
    for (let j = 0; j < 9; j++) m.session.frame(j);
    nearViews.read.push(timed(() => m.session.frame(near)).cpuMs);
    for (let j = 0; j < 9; j++) m.session.frame(j);
    nearViews.exact.push(timed(() => m.frameView(near, { exactConditioning: true })).cpuMs);
  }
  // seeks to the busiest frame and to the frame nearest 3800 contacts, each from disk (the session's cache
  // holds other frames), median of 5: what a user waits for when scrubbing to a big frame
  const seekTo = (i: number): { wall: number[]; cpu: number[] } => {
    const out = { wall: [] as number[], cpu: [] as number[] };
    for (let k = 0; k < 5; k++) {
      let loaded = 0;
      for (let j = 0; j < n && loaded < 9; j++) {
        if (j === i) continue;
        m.session.frame(j);
        loaded++;
      }
      const sk = timed(() => m.session.seek(i));
      out.wall.push(sk.wallMs);
      out.cpu.push(sk.cpuMs);
    }
    return out;
  };
  const seekBusiest = seekTo(busy[0]),
    seekNear = seekTo(near);
  // what a seek to the busiest frame spends (CPU ms): the positioned read, UTF-8 decoding, JSON.parse, validation
  const seekParts = (() => {
    const reader = m.session.reader!;
    const cols = (reader as unknown as { columns: { offset: Float64Array; length: Float64Array } }).columns;
    const fd = fs.openSync(file, 'r');
    const out = { read: [] as number[], decode: [] as number[], parse: [] as number[], validate: [] as number[] };
    for (let k = 0; k < 5; k++) {
      const buf = Buffer.allocUnsafe(cols.length[busy[0]]);
      out.read.push(timed(() => fs.readSync(fd, buf, 0, buf.length, cols.offset[busy[0]])).cpuMs);
      const text = timed(() => new TextDecoder('utf-8', { fatal: true }).decode(buf));
      out.decode.push(text.cpuMs);
      const raw = timed(() => JSON.parse(text.value) as unknown);
      out.parse.push(raw.cpuMs);
      out.validate.push(timed(() => validateFrame(raw.value, 2, file, m.session.header)).cpuMs);
    }
    fs.closeSync(fd);
    return out;
  })();
  const busiest = busy[0];
  const key = m.frameView(busiest).contacts[0].key;
  let t0 = performance.now();
  const [s] = m.series([key]);
  const seriesMs = performance.now() - t0;
  // v⁻/v⁺ of the busiest frame: from the frame detail's island blocks (what frame views use) next to a
  // second assembly of the whole frame (what the diagnosis pass does per frame, and frame views did before)
  const busyFrame = m.session.frame(busiest),
    busyPrev = busiest > 0 ? m.session.frame(busiest - 1) : undefined;
  const detailMs = medianMs(() => m.session.detail(busiest), 7);
  const wholeMs = medianMs(() => contactKinematics(m.session.header, busyFrame, busyPrev), 7);
  const rows = MAX_MATRIX_ROWS,
    A = new Float64Array(rows * rows);
  for (let i = 0; i < A.length; i++) A[i] = (rand() - 0.5) * Math.pow(10, -8 * rand());
  const maxAbs = encodeHeatMap(A, rows).maxAbs;
  const heatMs = medianMs(() => encodeHeatMap(A, rows));
  const mathMs = medianMs(() => encodeWithMathLog10(A, maxAbs));
  const openRate = mib / (opened.wallMs / 1000),
    indexRate = mib / (scanned.wallMs / 1000);
  const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const worstView = Math.max(...parts.map((p) => p.read + p.detail + p.view));
  const worstSeek = Math.max(...seeks, ...parts.map((p) => p.seek));
  const worstSeekCpu = Math.max(...seekCpu, ...parts.map((p) => p.seekCpu));
  const worstViewCpu = Math.max(...parts.map((p) => p.cpu));
  const worstExactCpu = Math.max(...parts.map((p) => p.exactCpu));
  console.log(
    `  recording    ${file}: ${n} frames, ${contacts} contacts (max ${m.timeline.contacts[busiest]} per frame), ${mib.toFixed(1)} MiB, producer ${m.info.producer}`,
  );
  console.log(`  read bytes   ${rate(size, read)}  (disk speed: 1 MiB chunks, page cache warm)`);
  console.log(`  JSON.parse   ${rate(size, jsonParse)}  (every line, no validation)`);
  console.log(`  index        before (every line validated) ${rate(size, every)}`);
  console.log(
    `               scanner ('on-read')            ${rate(size, scanned)}: ${(every.wallMs / scanned.wallMs).toFixed(1)}× — target ≥ 150 MiB/s ${indexRate >= 150 ? 'MET' : 'MISSED'} (wall)`,
  );
  console.log(
    `  open         ${rate(size, opened)} (index + timeline with κ per frame + diagnosis in one pass on one thread; ${m.findings.length} findings) — target ≥ 60 MiB/s ${openRate >= 60 ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `  memory       index ${(m.session.reader!.indexBytes / 2 ** 20).toFixed(2)} MiB + the largest frame line ${(largest / 2 ** 20).toFixed(2)} MiB (target ≤ 1.5 × their sum above the process); RSS ${rssBefore.toFixed(0)} MiB before the open, peak RSS of the process ${peakRssMiB().toFixed(0)} MiB (bench/open.ts measures the open alone in its own process)`,
  );
  console.log(`  frame view   20 random frames: median ${views[10].toFixed(1)} ms, max ${views[19].toFixed(1)} ms`);
  console.log(
    `  busiest      5 frames of ${byContacts[4][0]}–${byContacts[0][0]} contacts, from disk: read + parse median ${med(parts.map((p) => p.read)).toFixed(1)} ms, detail ${med(parts.map((p) => p.detail)).toFixed(1)} ms, rest of the view ${med(parts.map((p) => p.view)).toFixed(1)} ms; worst total ${worstView.toFixed(1)} ms (CPU ${worstViewCpu.toFixed(1)} ms) — target ≤ 30 ms ${worstView <= 30 ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `  slowest      every third frame's detail (frame read): frame ${slow.i} (${m.timeline.contacts[slow.i]} contacts, ${slow.islands} islands, ${slow.deficient} rank-deficient up to ${slow.rows} rows) ${slow.cpu.toFixed(1)} ms CPU`,
  );
  console.log(`               CPU with every island's exact eigenvalues (the view before the κ estimate): worst ${worstExactCpu.toFixed(1)} ms`);
  console.log(
    `  κ check      frame ${slow.i}: ${kappaCheck.islands} islands above ${ESTIMATE_MIN_ROWS} rows (${[...kappaCheck.methods].join(', ')}) against their A's own eigenvalues: rank equal in ${kappaCheck.rankEqual}, λmax within ${kappaCheck.lambdaMax.toExponential(1)}, λmin on the range within ${kappaCheck.lambdaMinRange.toExponential(1)} (relative)`,
  );
  console.log(
    `               the same islands by Lanczos + pivoted Cholesky (the estimate without the body-space Gram): rank equal in ${lanczosCheck.rankEqual}, λmax within ${lanczosCheck.lambdaMax.toExponential(1)}, λmin on the range within ${lanczosCheck.lambdaMinRange.toExponential(1)} (relative)`,
  );
  console.log(
    `  ~3800        frame ${near} (${m.timeline.contacts[near]} contacts), from disk, median of 5: ${med(nearViews.wall).toFixed(1)} ms wall, CPU ${med(nearViews.est).toFixed(1)} ms (κ estimate; of which read + parse ${med(nearViews.read).toFixed(1)} ms) | ${med(nearViews.exact).toFixed(1)} ms (exact κ) — target ≤ 30 ms ${med(nearViews.wall) <= 30 ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `               the same frame's view again (the model keeps the last ${FRAME_VIEW_CACHE_SIZE} views): ${med(nearViews.again).toFixed(2)} ms wall`,
  );
  console.log(
    `  seek         20 random + the 5 busiest frames: worst ${worstSeek.toFixed(1)} ms (CPU ${worstSeekCpu.toFixed(1)} ms) — target < 50 ms ${worstSeek < 50 ? 'MET' : 'MISSED'}`,
  );
  const seekMedCpu = Math.max(med(seekBusiest.cpu), med(seekNear.cpu));
  console.log(
    `  seek to big  from disk, median of 5: busiest frame ${busy[0]} (${m.timeline.contacts[busy[0]]} contacts) ${med(seekBusiest.wall).toFixed(1)} ms wall, CPU ${med(seekBusiest.cpu).toFixed(1)} ms | frame ${near} (${m.timeline.contacts[near]} contacts) ${med(seekNear.wall).toFixed(1)} ms wall, CPU ${med(seekNear.cpu).toFixed(1)} ms — CPU < 50 ms ${seekMedCpu < 50 ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `  seek parts   busiest frame, CPU median of 5: read ${med(seekParts.read).toFixed(1)} ms, UTF-8 decode ${med(seekParts.decode).toFixed(1)} ms, JSON.parse ${med(seekParts.parse).toFixed(1)} ms, validation ${med(seekParts.validate).toFixed(1)} ms`,
  );
  console.log(
    `  kinematics   busiest frame: frame detail (islands' blocks, A, κ, v⁻/v⁺) ${detailMs.toFixed(1)} ms | extra whole-frame assembly for v⁻/v⁺ ${wholeMs.toFixed(1)} ms (median of 7)`,
  );
  console.log(`  λ series     contact ${key} over ${s.index.length} frames: ${seriesMs.toFixed(1)} ms`);
  console.log(`  heat map     ${rows}×${rows} A → levels (median of 21): table log10 ${heatMs.toFixed(1)} ms | Math.log10 ${mathMs.toFixed(1)} ms`);
  if (profile) {
    console.log("  profile of the busiest frames' views (from disk), top self time:");
    for (const l of await topSelfTimes(() => {
      for (const i of busy) {
        for (let j = 0; j < 9; j++) m.session.frame(j);
        m.forgetFrameViews();
        m.frameView(i);
      }
    }))
      console.log(`    ${l}`);
  }
  if (profile) {
    console.log(`  profile of the slowest frame's detail (frame ${slow.i}), top self time:`);
    for (const l of await topSelfTimes(() => m.session.detail(slow.i, { conditioning: 'estimate' }), 6)) console.log(`    ${l}`);
  }
  m.close();
  if (profile) {
    // on one thread (the default): the sampling profiler of node:inspector sees only its own thread, never a worker
    console.log('  profile of the open on one thread (index + timeline + diagnosis), top self time:');
    t0 = performance.now();
    for (const l of await topSelfTimes(async () => (await InspectorModel.fromRecording(file)).close())) console.log(`    ${l}`);
  }
}

void main();
