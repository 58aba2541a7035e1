/**
 * Many-recordings benchmark (prints, not a test): `npm run bench:runs -- [N] [--frames F] [--jobs J] [--keep DIR]`
 * (defaults: 200 recordings of 120 frames, 2 jobs).
 *
 * Writes N recordings simulated by the engine (writeRunRecordings below: real steps, not made-up frames), then
 * times, each as the built CLI in a process of its own (dist/cli.js, so `npm run build` first):
 *   diagnose DIR/*.rec.jsonl* --jobs J --out results.parquet
 *   query "<top 10 runs by injected joules per mechanism>" results.parquet
 *   export DIR/*.rec.jsonl* --parquet dataset --jobs J, and a query over the dataset's contacts
 * and prints the wall times with the machine's load (other processes share the CPU).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { main } from '../src/cli/main.js';
import { machineInfo } from './common.js';

/**
 * N recordings of a ball dropped on a plane, each simulated from a scene of its own: the drop height (0.5–2 m),
 * restitution (0–0.8) and friction vary with the run, and every fourth run has the deliberate restitution fault
 * (docs/physics.md "Restitution as a target"), so runs differ in findings and injected joules. A third are
 * written as blocked gzip, a third as plain gzip (what `gzip` and Python's gzip module write), the rest plain.
 */
export async function writeRunRecordings(dir: string, n: number, frames: number): Promise<string[]> {
  fs.mkdirSync(path.join(dir, 'scenes'), { recursive: true });
  const files: string[] = [];
  const quiet = { out: () => {}, err: () => {} };
  for (let k = 0; k < n; k++) {
    const name = `drop-${String(k).padStart(5, '0')}`;
    const scene = {
      scenarios: [
        {
          name,
          frames,
          materials: [{ name: 'm', friction: 0.2 + 0.6 * ((k * 7) % 11) * 0.1, restitution: 0.1 * (k % 9) }],
          bodies: [
            { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, static: true, material: 'm' },
            { name: 'ball', shape: { sphere: { radius: 0.1 } }, mass: 1, position: [0, 0, 0.5 + (1.5 * ((k * 13) % 17)) / 16], material: 'm' },
          ],
          ...(k % 4 === 3 ? { faultInjection: { restitutionAsTarget: true } } : {}),
        },
      ],
    };
    const sceneFile = path.join(dir, 'scenes', `${name}.scene.json`);
    fs.writeFileSync(sceneFile, JSON.stringify(scene));
    const plain = path.join(dir, `${name}.rec.jsonl`);
    const out = k % 3 === 1 ? `${plain}.gz` : plain;
    const code = await main(['simulate', sceneFile, '--out', out], quiet);
    if (code !== 0) throw new Error(`simulate ${sceneFile} exited ${code}`);
    if (k % 3 === 2) {
      fs.writeFileSync(`${plain}.gz`, zlib.gzipSync(fs.readFileSync(plain)));
      fs.rmSync(plain);
      files.push(`${plain}.gz`);
    } else files.push(out);
  }
  return files;
}

function cli(args: string[]): { ms: number; stdout: string; stderr: string; status: number | null } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [path.join(__dirname, '..', 'dist', 'cli.js'), ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return { ms: performance.now() - t0, stdout: r.stdout, stderr: r.stderr, status: r.status };
}

async function run(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (name: string, d: number): number => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : d;
  };
  const n = Number(argv.find((a, i) => /^\d+$/.test(a) && !argv[i - 1]?.startsWith('--')) ?? 200);
  const frames = opt('frames', 120),
    jobs = opt('jobs', 2);
  const keep = argv.indexOf('--keep') >= 0 ? argv[argv.indexOf('--keep') + 1] : null;
  if (!fs.existsSync(path.join(__dirname, '..', 'dist', 'cli.js'))) throw new Error('run `npm run build` first (this times dist/cli.js)');
  const m = machineInfo();
  console.log(
    `bench:runs — ${m.cpu}, ${m.cores} cores, Node ${m.node}, ${m.platform}, ${m.date}, load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cl-bench-runs-'));
  fs.mkdirSync(dir, { recursive: true });
  try {
    const t0 = performance.now();
    const files = await writeRunRecordings(dir, n, frames);
    const bytes = files.reduce((a, f) => a + fs.statSync(f).size, 0);
    console.log(`wrote ${n} recordings of ${frames} frames (${(bytes / 2 ** 20).toFixed(1)} MiB on disk) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const pattern = path.join(dir, '*.rec.jsonl*');
    const results = path.join(dir, 'results.parquet');
    const d = cli(['diagnose', pattern, '--jobs', String(jobs), '--out', results]);
    if (d.status !== 0 && d.status !== 1) throw new Error(d.stderr);
    console.log(
      `diagnose --jobs ${jobs} --out: ${(d.ms / 1000).toFixed(2)} s (${(d.ms / n).toFixed(1)} ms per recording); ${d.stdout.trim().split('\n').slice(-2, -1)[0]}`,
    );
    const top =
      "SELECT mechanism, run, j FROM (SELECT mechanism, run, sum(joules) AS j, row_number() OVER (PARTITION BY mechanism ORDER BY sum(joules) DESC) AS k FROM findings WHERE kind = 'injection' GROUP BY mechanism, run) WHERE k <= 10 ORDER BY mechanism, j DESC";
    const q = cli(['query', top, results, '--json']);
    if (q.status !== 0) throw new Error(q.stderr);
    console.log(
      `query (top 10 runs by injected joules per mechanism) over ${n} runs: ${(q.ms / 1000).toFixed(2)} s, ${JSON.parse(q.stdout).length} rows (a process of its own: DuckDB's start included)`,
    );
    const dataset = path.join(dir, 'dataset');
    const e = cli(['export', pattern, '--parquet', dataset, '--jobs', String(jobs)]);
    if (e.status !== 0) throw new Error(e.stderr);
    console.log(`export --parquet --jobs ${jobs}: ${(e.ms / 1000).toFixed(2)} s`);
    const c = cli(['query', 'SELECT run, sum(injected_joules) AS j FROM contacts WHERE e > 0 GROUP BY run HAVING j > 1 ORDER BY j DESC', dataset, '--json']);
    if (c.status !== 0) throw new Error(c.stderr);
    console.log(
      `query (runs injecting > 1 J at contacts with restitution) over the dataset: ${(c.ms / 1000).toFixed(2)} s, ${JSON.parse(c.stdout).length} runs`,
    );
    console.log(
      `load after: ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module)
  run().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
