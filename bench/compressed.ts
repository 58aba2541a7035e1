/**
 * bench:compressed — a recording as plain JSON Lines beside the same bytes as blocked gzip (BGZF), in one run:
 * file size, index time (one streaming pass), random seeks (frame(i): positioned read + inflate of the blocks
 * holding the line + parse), and the longest frame. Prints, not a test.
 *
 *   node dist/cli.js simulate examples/box-pile-1000.scene.json --out /tmp/pile.rec.jsonl
 *   node dist/cli.js compress /tmp/pile.rec.jsonl /tmp/pile.rec.jsonl.gz
 *   npm run bench:compressed -- /tmp/pile.rec.jsonl /tmp/pile.rec.jsonl.gz
 */
import * as fs from 'node:fs';
import { RecordingReader } from '../src/format/recordingFile.js';
import { machineInfo } from './common.js';

interface Row {
  readonly file: string;
  readonly mib: number;
  readonly indexMs: number;
  readonly seeks: number[];
  readonly longestMs: number;
}

async function measure(file: string, picks: readonly number[]): Promise<Row> {
  const r = await RecordingReader.open(file);
  try {
    const seeks = picks.map((i) => {
      const t = performance.now();
      r.frame(i % r.frameCount);
      return performance.now() - t;
    });
    let longest = 0;
    for (let i = 1; i < r.frameCount; i++) if (r.summary(i).length > r.summary(longest).length) longest = i;
    const t = performance.now();
    r.frame(longest);
    return { file, mib: fs.statSync(file).size / 2 ** 20, indexMs: r.indexMs, seeks: seeks.sort((a, b) => a - b), longestMs: performance.now() - t };
  } finally {
    r.close();
  }
}

async function main(): Promise<void> {
  const files = process.argv.slice(2);
  if (files.length < 2 || !files.every((f) => fs.existsSync(f))) {
    console.error('usage: npm run bench:compressed -- <plain.rec.jsonl> <compressed.rec.jsonl.gz> (see the file header)');
    process.exit(2);
  }
  let seed = 11;
  const picks = Array.from({ length: 100 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 8);
  const rows: Row[] = [];
  for (const f of files) rows.push(await measure(f, picks));
  const m = machineInfo();
  console.log(`bench:compressed — ${m.cpu}, ${m.cores} cores, Node ${m.node}, ${m.platform}, load ${m.loadAverage.toFixed(2)}, ${m.date}`);
  const q = (xs: number[], p: number): string => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(1);
  for (const r of rows)
    console.log(
      `  ${r.file}: ${r.mib.toFixed(1)} MiB | index ${(r.indexMs / 1000).toFixed(2)} s | 100 random seeks: median ${q(r.seeks, 0.5)} ms, p95 ${q(r.seeks, 0.95)} ms, max ${r.seeks[r.seeks.length - 1].toFixed(1)} ms | longest frame ${r.longestMs.toFixed(1)} ms`,
    );
  const [a, b] = rows;
  console.log(
    `  ratio compressed/plain: size ${(b.mib / a.mib).toFixed(3)}, index ${(b.indexMs / a.indexMs).toFixed(2)}×, median seek ${(Number(q(b.seeks, 0.5)) / Number(q(a.seeks, 0.5))).toFixed(2)}×, max seek ${(b.seeks[b.seeks.length - 1] / a.seeks[a.seeks.length - 1]).toFixed(2)}×`,
  );
}

void main();
