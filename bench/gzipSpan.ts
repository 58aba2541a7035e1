/**
 * Access-point spacing of a plain gzip file (prints, not a test): for each spacing (GZIP_SPAN of
 * src/format/gzipIndex.ts and others), one pass over the file builds its access index (as a recording's open
 * does, GZIP_MIN_SPAN unchanged), then prints the index (points, bytes, of which deflated windows) and the CPU
 * time of 100 random frame-line reads (positioned read and inflate, no parse) and of 100 random 64 KiB reads at
 * any offset, each after forgetting the last span inflated.
 *   npx tsx bench/gzipSpan.ts /tmp/pile.rec.jsonl.gz [--spans 256,1024,4096]   (KiB)
 */
import * as fs from 'node:fs';
import { GZIP_MIN_SPAN, GZIP_SPAN, GzipIndexBuilder, GzipRangeReader } from '../src/format/gzipIndex.js';
import { GzipInflater } from '../src/format/inflate.js';
import { cpuMs, machineInfo } from './common.js';

const KiB = 1024;
const ANY_READ_BYTES = 64 * KiB;

/** One pass: the index with this spacing and the start of every line (uncompressed offsets). */
function indexWith(file: string, span: number): { builder: GzipIndexBuilder; lineStarts: number[]; passMs: number } {
  const lineStarts = [0];
  const builder = new GzipIndexBuilder(
    (out, from, to, at) => {
      for (let p = out.indexOf(0x0a, from); p >= 0 && p < to; p = out.indexOf(0x0a, p + 1)) lineStarts.push(at + (p - from) + 1);
    },
    span,
    GZIP_MIN_SPAN,
  );
  const inflater = new GzipInflater(builder);
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  const t = cpuMs();
  try {
    for (let pos = 0; ; ) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      inflater.push(buf.subarray(0, n), n === 0);
      if (n === 0) break;
      pos += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  builder.index.seal();
  return { builder, lineStarts, passMs: cpuMs() - t };
}

const quantile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

function main(): void {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--'));
  if (!file || !fs.existsSync(file)) {
    console.error('usage: npx tsx bench/gzipSpan.ts <recording.rec.jsonl.gz> [--spans 256,1024,4096]');
    process.exit(2);
  }
  const at = args.indexOf('--spans');
  const spans = at >= 0 ? args[at + 1].split(',').map((s) => Number(s) * KiB) : [GZIP_SPAN / 4, GZIP_SPAN, 4 * GZIP_SPAN];
  const mi = machineInfo();
  console.log(`gzip access-point spacing — ${mi.cpu} × ${mi.cores}, ${mi.platform}, Node ${mi.node}, load ${mi.loadAverage.toFixed(1)}, ${mi.date}`);
  console.log(
    `  ${file}: ${(fs.statSync(file).size / 2 ** 20).toFixed(1)} MiB compressed; GZIP_SPAN ${GZIP_SPAN / KiB} KiB, GZIP_MIN_SPAN ${GZIP_MIN_SPAN / KiB} KiB`,
  );
  for (const span of spans) {
    const { builder, lineStarts, passMs } = indexWith(file, span);
    const ix = builder.index;
    const fd = fs.openSync(file, 'r');
    try {
      const reader = new GzipRangeReader(() => fd, ix);
      const fail = (why: string): never => {
        throw new Error(why);
      };
      const lines = lineStarts.length - 1;
      const lineMs: number[] = [],
        anyMs: number[] = [],
        inflated: number[] = [];
      let seed = 11;
      for (let k = 0; k < 100; k++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        const i = (seed >>> 8) % lines;
        reader.forget();
        const before = reader.inflatedBytes;
        const t = cpuMs();
        reader.read(lineStarts[i], lineStarts[i + 1] - lineStarts[i], fail);
        lineMs.push(cpuMs() - t);
        inflated.push((reader.inflatedBytes - before) / (lineStarts[i + 1] - lineStarts[i]));
        const off = Math.floor(((seed >>> 3) / 2 ** 29) * Math.max(1, ix.totalOut - ANY_READ_BYTES));
        reader.forget();
        const t2 = cpuMs();
        reader.read(off, Math.min(ANY_READ_BYTES, ix.totalOut - off), fail);
        anyMs.push(cpuMs() - t2);
      }
      console.log(
        `  span ${String(span / KiB).padStart(5)} KiB: pass ${(passMs / 1000).toFixed(1)} s CPU; ${ix.count} access points, index ${(ix.bytes / 2 ** 20).toFixed(2)} MiB (windows ${(ix.wOff[ix.count] / 2 ** 20).toFixed(2)} MiB); ` +
          `frame line read median ${quantile(lineMs, 0.5).toFixed(1)} ms, max ${quantile(lineMs, 1).toFixed(1)} ms CPU (inflated / line bytes median ${quantile(inflated, 0.5).toFixed(2)}); ` +
          `64 KiB at any offset median ${quantile(anyMs, 0.5).toFixed(1)} ms, max ${quantile(anyMs, 1).toFixed(1)} ms CPU`,
      );
    } finally {
      fs.closeSync(fd);
    }
  }
}

main();
