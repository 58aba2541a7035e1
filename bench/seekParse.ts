/**
 * Frame reads (a seek's read of one frame) beside another checkout's, in one process (prints, not a test):
 *   npx tsx bench/seekParse.ts RECORDING… --base DIR [--reads N] [--all]
 *
 * Opens each recording with this checkout's RecordingReader and with DIR's (e.g. /work/main: its
 * src/format/recordingFile.ts), then reads the same N random frames (default 100, bench/open.ts's sequence)
 * with both, alternately frame by frame, timing each read's CPU; every frame read by both must be equal field
 * for field (numbers bit for bit, −0 included; key order too). `--all` also compares every frame of the
 * recording. For this build it splits a read into the line's bytes (positioned read; a plain gzip file's
 * span inflated; the base's beside it), its text, JSON.parse and the validation. Prints the machine's load
 * before and after: the CPU times are the ones to compare on a shared machine.
 */
import * as path from 'node:path';
import { RecordingReader } from '../src/format/recordingFile.js';
import { validateFrame } from '../src/format/recording.js';
import { machineInfo, timed } from './common.js';
import * as os from 'node:os';

type Reader = Pick<RecordingReader, 'frame' | 'frameCount' | 'rawLine' | 'close'>;

/** a and b hold the same value: numbers by Object.is, arrays element by element, objects key by key in order. */
export function sameValue(a: unknown, b: unknown, where = ''): string | null {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b) ? null : `${where}: ${String(a)} ≠ ${String(b)}`;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b ? null : `${where}: ${String(a)} ≠ ${String(b)}`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${where}: array ≠ object`;
  const ka = Object.keys(a),
    kb = Object.keys(b);
  if (ka.join(',') !== kb.join(',')) return `${where}: keys ${ka.join(',')} ≠ ${kb.join(',')}`;
  for (const k of ka) {
    const d = sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${where}.${k}`);
    if (d !== null) return d;
  }
  return null;
}

const quantile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const fmt = (xs: number[]): string => `median ${quantile(xs, 0.5).toFixed(1)}, p95 ${quantile(xs, 0.95).toFixed(1)}, max ${Math.max(...xs).toFixed(1)} ms`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--base');
  if (at < 0) throw new Error('usage: npx tsx bench/seekParse.ts RECORDING… --base DIR [--reads N] [--all]');
  const base = path.resolve(args[at + 1]);
  const readsAt = args.indexOf('--reads');
  const reads = readsAt >= 0 ? Number(args[readsAt + 1]) : 100;
  const all = args.includes('--all');
  const files = args.filter((a, k) => !a.startsWith('--') && k !== at + 1 && (readsAt < 0 || k !== readsAt + 1));
  const Base = ((await import(path.join(base, 'src', 'format', 'recordingFile.ts'))) as { RecordingReader: typeof RecordingReader }).RecordingReader;
  const mi = machineInfo();
  console.log(`Frame reads — ${mi.cpu} × ${mi.cores}, Node ${mi.node}, load ${mi.loadAverage.toFixed(1)}, ${mi.date}; base ${base}`);
  for (const file of files) {
    const open = (R: typeof RecordingReader): Promise<Reader> => R.open(file, { validate: 'on-read' });
    const b = await open(Base),
      t = await open(RecordingReader);
    const n = t.frameCount;
    let seed = 11;
    const order: number[] = [];
    for (let k = 0; k < reads; k++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      order.push((seed >>> 8) % n);
    }
    const cpuBase: number[] = [],
      cpuThis: number[] = [];
    let differ = 0;
    for (const i of order) {
      const x = timed(() => b.frame(i)),
        y = timed(() => t.frame(i));
      cpuBase.push(x.cpuMs);
      cpuThis.push(y.cpuMs);
      const d = sameValue(x.value, y.value, `frame index ${i}`);
      if (d !== null && differ++ === 0) console.log(`    DIFFERENT: ${d}`);
    }
    if (all)
      for (let i = 0; i < n; i++) {
        const d = sameValue(b.frame(i), t.frame(i), `frame index ${i}`);
        if (d !== null && differ++ === 0) console.log(`    DIFFERENT: ${d}`);
      }
    // this build's read in parts, on the same frames (after the timed reads: each part reads its line again)
    const bytesBase: number[] = [],
      bytes: number[] = [],
      parse: number[] = [],
      decode: number[] = [],
      check: number[] = [];
    const header = (t as RecordingReader).header;
    for (const i of order) {
      // a frame far away first: no inflated span reused; the base's line bytes beside this build's
      b.rawLine((i + (n >> 1)) % n);
      bytesBase.push(timed(() => b.rawLine(i)).cpuMs);
      t.rawLine((i + (n >> 1)) % n);
      const line = timed(() => t.rawLine(i));
      bytes.push(line.cpuMs);
      const text = timed(() => line.value.toString('latin1'));
      decode.push(text.cpuMs);
      const v = timed(() => JSON.parse(text.value));
      parse.push(v.cpuMs);
      check.push(timed(() => validateFrame(v.value, 1, file, header)).cpuMs);
    }
    console.log(`  ${file}: ${n} frames, ${reads} random frame reads (CPU, alternately base and this)`);
    console.log(`    base  ${fmt(cpuBase)}`);
    console.log(`    this  ${fmt(cpuThis)}`);
    console.log(
      `    ${differ === 0 ? `every frame read equal in both builds${all ? ` (all ${n} frames and the ${reads} reads)` : ''}` : `${differ} frames DIFFER`}`,
    );
    console.log(
      `    this build's read in parts: line bytes (read; inflate) ${quantile(bytes, 0.5).toFixed(1)} ms (base ${quantile(bytesBase, 0.5).toFixed(1)} ms), text ${quantile(decode, 0.5).toFixed(1)} ms, JSON.parse ${quantile(parse, 0.5).toFixed(1)} ms, validation ${quantile(check, 0.5).toFixed(1)} ms (medians)`,
    );
    b.close();
    t.close();
  }
  console.log(`  load at the end ${os.loadavg()[0].toFixed(1)}`);
}

void main();
