/**
 * Number-decoding reference (prints, not a test): could a hand-written byte decoder of a frame line beat
 * JSON.parse? It times JSON.parse of the busiest frame line and of the one nearest 3800 contacts beside a
 * byte loop that only converts every number of the line into a Float64Array — the least a typed-array
 * decoder must do. Numbers with ≤ 15 significant digits and no exponent take the exact fast path
 * (mantissa and power of ten both exact doubles, one correctly rounded division: Clinger, "How to read
 * floating point numbers accurately", PLDI 1990); the others take Number() of their text. Then the same loop with
 * every number of ≤ 19 digits and |exponent| ≤ 22 converted exactly from its bytes (bench/decimalBytes.ts:
 * double-double, bit-identical to JSON.parse), and a decoder that builds the very objects JSON.parse builds from
 * the bytes with that conversion (bench/jsonFromBytes.ts): what is left of JSON.parse's cost once its numbers are
 * cheaper is the objects.
 *   npx tsx bench/numberScan.ts /tmp/pile.rec.jsonl
 */
import * as fs from 'node:fs';
import { RecordingReader } from '../src/format/recordingFile.js';
import { cpuMs, machineInfo } from './common.js';
import { decimalAt, decimalCursor } from './decimalBytes.js';
import { jsonFromBytes, NOT_DECODED } from './jsonFromBytes.js';

/** Largest count of decimal digits whose integer is always an exact double (10¹⁵ < 2⁵³). */
const FAST_DIGITS = 15;
/** 10^k is an exact double for k ≤ 22. */
const POW10 = Float64Array.from({ length: 23 }, (_, k) => 10 ** k);

function medianCpu(fn: () => void, repeats = 9): number {
  const xs: number[] = [];
  for (let k = 0; k < repeats; k++) {
    const t = cpuMs();
    fn();
    xs.push(cpuMs() - t);
  }
  return xs.sort((a, b) => a - b)[repeats >> 1];
}

/** Every number of the line into out (strings skipped); returns how many and how many took the slow path. */
function scanNumbers(buf: Buffer, out: Float64Array): { count: number; slow: number } {
  let k = 0,
    p = 0,
    slow = 0;
  const n = buf.length;
  while (p < n) {
    const c = buf[p];
    if (c === 0x22) {
      p++;
      while (buf[p] !== 0x22) p += buf[p] === 0x5c ? 2 : 1;
      p++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const s = p;
      const neg = c === 0x2d;
      if (neg) p++;
      let m = 0,
        digits = 0,
        frac = 0,
        ch = buf[p];
      while (ch >= 0x30 && ch <= 0x39) {
        m = m * 10 + (ch - 0x30);
        digits++;
        ch = buf[++p];
      }
      if (ch === 0x2e) {
        ch = buf[++p];
        while (ch >= 0x30 && ch <= 0x39) {
          m = m * 10 + (ch - 0x30);
          digits++;
          frac++;
          ch = buf[++p];
        }
      }
      if (ch === 0x65 || ch === 0x45 || digits > FAST_DIGITS) {
        while (p < n && buf[p] !== 0x2c && buf[p] !== 0x5d && buf[p] !== 0x7d) p++;
        out[k++] = Number(buf.toString('latin1', s, p));
        slow++;
      } else {
        const v = frac ? m / POW10[frac] : m;
        out[k++] = neg ? -v : v;
      }
    } else p++;
  }
  return { count: k, slow };
}

/** Every number of the line into out through decimalAt (correctly rounded from the bytes; its fallback is Number() of the text). */
function scanDecimals(buf: Buffer, out: Float64Array): number {
  let k = 0,
    p = 0;
  const n = buf.length;
  while (p < n) {
    const c = buf[p];
    if (c === 0x22) {
      p++;
      while (buf[p] !== 0x22) p += buf[p] === 0x5c ? 2 : 1;
      p++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      out[k++] = decimalAt(buf, p, n);
      p = decimalCursor.end;
    } else p++;
  }
  return k;
}

function main(): void {
  const file = process.argv[2];
  if (!file || !fs.existsSync(file)) {
    console.error('usage: npx tsx bench/numberScan.ts <recording.rec.jsonl>');
    process.exit(2);
  }
  const mi = machineInfo();
  console.log(`Number-decoding reference — ${mi.cpu} × ${mi.cores}, ${mi.platform}, Node ${mi.node}, load ${mi.loadAverage.toFixed(1)}, ${mi.date}`);
  const reader = RecordingReader.openSync(file, { validate: 'on-read' });
  const cols = (reader as unknown as { columns: { offset: ArrayLike<number>; length: ArrayLike<number> } }).columns;
  let busiest = 0,
    near = 0;
  for (let i = 0; i < reader.frameCount; i++) {
    const c = reader.summary(i).contacts;
    if (c > reader.summary(busiest).contacts) busiest = i;
    if (Math.abs(c - 3800) < Math.abs(reader.summary(near).contacts - 3800)) near = i;
  }
  const fd = fs.openSync(file, 'r');
  for (const i of [busiest, near]) {
    const buf = Buffer.allocUnsafe(cols.length[i]);
    fs.readSync(fd, buf, 0, buf.length, cols.offset[i]);
    const text = buf.toString('utf8');
    const out = new Float64Array(buf.length >> 1);
    let r = { count: 0, slow: 0 };
    const parse = medianCpu(() => JSON.parse(text));
    const scan = medianCpu(() => {
      r = scanNumbers(buf, out);
    });
    const exact = medianCpu(() => scanDecimals(buf, out));
    if (jsonFromBytes(buf) === NOT_DECODED) throw new Error(`frame ${i}: the byte decoder left the line to JSON.parse`);
    const objects = medianCpu(() => jsonFromBytes(buf));
    console.log(
      `  frame ${i} (${reader.summary(i).contacts} contacts, ${(buf.length / 2 ** 20).toFixed(2)} MiB): JSON.parse ${parse.toFixed(1)} ms CPU | numbers only ${scan.toFixed(1)} ms CPU (${r.count} numbers, ${((100 * r.slow) / r.count).toFixed(0)} % beyond ${FAST_DIGITS} digits or with an exponent, by Number() of the text) | numbers only, double-double ${exact.toFixed(1)} ms CPU | the same objects as JSON.parse from the bytes ${objects.toFixed(1)} ms CPU`,
    );
  }
  fs.closeSync(fd);
  reader.close();
}

main();
