/**
 * Inspector benchmark (prints, not a test): what the extension's worker does when a recording opens in the
 * inspector, on a real recording.
 *   node dist/cli.js simulate examples/box-pile-1000.scene.json --out /tmp/pile.rec.jsonl
 *   npx tsx bench/inspector.ts /tmp/pile.rec.jsonl
 * Prints: open (one streaming pass: index + timeline with energies and κ per frame + diagnosis), 20 random
 * frame views (contact rows with v⁻/v⁺/bias, islands with A and κ), the busiest frame's detail next to the
 * whole-frame assembly frame views no longer repeat, one contact's λ series, the heat-map
 * encoding of the largest A sent (600×600) next to the same encoding with Math.log10, and the machine.
 */
import * as fs from 'node:fs';
import { InspectorModel } from '../src/extension/model/inspectorModel.js';
import { encodeHeatMap, HEAT_DECADES, HEAT_NEGATIVE, HEAT_STEPS } from '../src/protocol/heatMap.js';
import { MAX_MATRIX_ROWS } from '../src/protocol/inspector.js';
import { contactKinematics } from '../src/session/contactKinematics.js';
import { machineInfo } from './common.js';

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
  if (!file || !fs.existsSync(file)) {
    console.error(
      'usage: npx tsx bench/inspector.ts <recording.rec.jsonl>  (e.g. node dist/cli.js simulate examples/box-pile-1000.scene.json --out /tmp/pile.rec.jsonl)',
    );
    process.exit(2);
  }
  const size = fs.statSync(file).size;
  let t0 = performance.now();
  const m = await InspectorModel.fromRecording(file);
  const openMs = performance.now() - t0;
  const n = m.info.frameCount;
  const contacts = m.timeline.contacts.reduce((a, b) => a + b, 0);
  const views: number[] = [];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let k = 0; k < 20; k++) {
    const i = Math.floor(rand() * n);
    const t = performance.now();
    m.frameView(i);
    views.push(performance.now() - t);
  }
  views.sort((a, b) => a - b);
  const busiest = m.timeline.contacts.indexOf(Math.max(...m.timeline.contacts));
  const key = m.frameView(busiest).contacts[0].key;
  t0 = performance.now();
  const [s] = m.series([key]);
  const seriesMs = performance.now() - t0;
  // v⁻/v⁺ of the busiest frame: from the frame detail's island blocks (what frame views use) next to a
  // second assembly of the whole frame (what the diagnosis pass does per frame, and frame views did before)
  const busy = m.session.frame(busiest),
    busyPrev = busiest > 0 ? m.session.frame(busiest - 1) : undefined;
  const detailMs = medianMs(() => m.session.detail(busiest), 7);
  const wholeMs = medianMs(() => contactKinematics(m.session.header, busy, busyPrev), 7);
  const rows = MAX_MATRIX_ROWS,
    A = new Float64Array(rows * rows);
  for (let i = 0; i < A.length; i++) A[i] = (rand() - 0.5) * Math.pow(10, -8 * rand());
  const maxAbs = encodeHeatMap(A, rows).maxAbs;
  const heatMs = medianMs(() => encodeHeatMap(A, rows));
  const mathMs = medianMs(() => encodeWithMathLog10(A, maxAbs));
  const mi = machineInfo();
  console.log(`Inspector benchmark — ${mi.cpu} × ${mi.cores}, ${mi.platform}, Node ${mi.node}, load ${mi.loadAverage.toFixed(1)}, ${mi.date}`);
  console.log(
    `  recording    ${file}: ${n} frames, ${contacts} contacts (max ${m.timeline.contacts[busiest]} per frame), ${(size / 2 ** 20).toFixed(1)} MiB, producer ${m.info.producer}`,
  );
  console.log(
    `  open         ${openMs.toFixed(0)} ms (${(size / 2 ** 20 / (openMs / 1000)).toFixed(1)} MiB/s: index + timeline with κ per frame + diagnosis in one pass; ${m.findings.length} findings)`,
  );
  console.log(`  frame view   20 random frames: median ${views[10].toFixed(1)} ms, max ${views[19].toFixed(1)} ms`);
  console.log(
    `  kinematics   busiest frame: frame detail (islands' blocks, A, κ, v⁻/v⁺) ${detailMs.toFixed(1)} ms | extra whole-frame assembly for v⁻/v⁺ ${wholeMs.toFixed(1)} ms (median of 7)`,
  );
  console.log(`  λ series     contact ${key} over ${s.index.length} frames: ${seriesMs.toFixed(1)} ms`);
  console.log(`  heat map     ${rows}×${rows} A → levels (median of 21): table log10 ${heatMs.toFixed(1)} ms | Math.log10 ${mathMs.toFixed(1)} ms`);
  m.close();
}

void main();
