/**
 * Many recordings at once (docs/at-scale.md): `diagnose <files or globs…> --jobs N [--shard i/N] [--out results.parquet]`
 * and `export <files…> --parquet DIR`. The files are expanded and sorted, a shard keeps the files whose run id
 * hashes to it (the same split on every machine, stable when files are added), a worker pool runs them
 * (runPool.ts), and the rows go to Parquet through the embedded DuckDB (duckdb.ts).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliCacheOptions } from '../format/sidecarCache.js';
import { formatCount, formatNumber, formatSigned } from '../engine/index.js';
import { UsageError } from './args.js';
import { writeDataset, writeResults } from './duckdb.js';
import { expandFiles } from './globFiles.js';
import type { Output } from './output.js';
import { runAll } from './runPool.js';
import type { RunOutcome, RunTask } from './runJob.js';
import { runId, TABLE_NAMES, type TableName } from './runTables.js';

export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** `--shard i/N`: the i-th of N parts (1 ≤ i ≤ N). */
export function parseShard(v: string | true | undefined): Shard | null {
  if (v === undefined) return null;
  const m = typeof v === 'string' ? /^(\d+)\/(\d+)$/.exec(v.trim()) : null;
  const index = m ? Number(m[1]) : NaN,
    count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1) || !(index >= 1 && index <= count) || count > 1_000_000)
    throw new UsageError(`--shard must be i/N with 1 ≤ i ≤ N, e.g. --shard 3/8 for the third of eight parts (got ${String(v)})`);
  return { index, count };
}

/** `--jobs N` (default 1). */
export function parseJobs(v: string | true | undefined): number {
  if (v === undefined) return 1;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= 256)) throw new UsageError(`--jobs must be a whole number from 1 to 256 (got ${String(v)})`);
  return n;
}

/** The shard (0-based) a run belongs to: its id's SHA-256, modulo the count. */
export const shardOf = (run: string, count: number): number => createHash('sha256').update(run).digest().readUInt32BE(0) % count;

export interface RunsOptions {
  readonly command: 'diagnose' | 'export';
  readonly jobs: number;
  readonly shard: Shard | null;
  /** `diagnose --out`: one Parquet file of run rows and finding rows. */
  readonly results?: string;
  /** `export --parquet`: the dataset folder (every table, partitioned by run). */
  readonly dataset?: string;
  readonly contacts: boolean;
  readonly json: boolean;
}

/** The files of this shard, with their run ids (two arguments naming the same file count once). */
export function selectRuns(args: readonly string[], shard: Shard | null): { file: string; run: string }[] {
  const files = expandFiles(args);
  const seen = new Map<string, string>();
  const out: { file: string; run: string }[] = [];
  for (const file of files) {
    const run = runId(file);
    const other = seen.get(run);
    if (other !== undefined) {
      if (path.resolve(other) === path.resolve(file)) continue;
      throw new UsageError(`${file} and ${other} get the same run id ${run}; rename one of them`);
    }
    seen.set(run, file);
    if (shard === null || shardOf(run, shard.count) === shard.index - 1) out.push({ file, run });
  }
  return out;
}

/** Runs the recordings and writes the tables; the exit code (2 when a recording could not be read). */
export async function runMany(args: readonly string[], o: RunsOptions, io: Output, failOn: ReadonlySet<string>): Promise<number> {
  if (o.results && fs.existsSync(o.results)) throw new UsageError(`${o.results}: already exists; refusing to overwrite it (choose another name)`);
  const runs = selectRuns(args, o.shard);
  if (runs.length === 0) {
    io.err(`${o.command}: no recording falls in shard ${o.shard?.index}/${o.shard?.count} (of ${expandFiles(args).length})`);
    return 0;
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-runs-'));
  try {
    const withFrames = o.dataset !== undefined;
    const tasks: RunTask[] = runs.map(({ file, run }) => ({
      file,
      run,
      scratch,
      frames: withFrames,
      contacts: withFrames && o.contacts,
      cache: cliCacheOptions(),
    }));
    const outcomes = await runAll(tasks, o.jobs, io, o.command);
    for (const r of outcomes) for (const line of r.issues) io.err(line);
    for (const r of outcomes) if (r.error) io.err(`contact-lens: ${r.error}`);
    const parts: Partial<Record<TableName, string[]>> = {};
    for (const t of TABLE_NAMES) parts[t] = outcomes.flatMap((r) => (r.parts[t] ? [r.parts[t]] : []));
    if (o.results) await writeResults(o.results, parts.runs ?? [], parts.findings ?? []);
    if (o.dataset)
      await writeDataset(
        o.dataset,
        parts,
        runs.map((r) => r.run),
        o.shard ? `part-${o.shard.index}of${o.shard.count}` : 'part',
      );
    if (o.json) for (const r of outcomes) io.out(JSON.stringify(runJson(r)));
    else printSummary(outcomes, io, o);
    const failed = outcomes.some((r) => r.error !== null);
    for (const k of failOn) if (outcomes.some((r) => (r.counts as Record<string, number>)[k] > 0)) return failed ? 2 : 1;
    return failed ? 2 : 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function runJson(r: RunOutcome): Record<string, unknown> {
  return {
    run: r.run,
    file: r.file,
    ...(r.error ? { error: r.error } : {}),
    frames: r.frames,
    findings: r.findings,
    injectedJoules: r.injected,
    topMechanism: r.top,
    kinds: r.counts,
  };
}

/** Runs listed in the summary table (the ones with the most injected joules); the rest are counted. */
export const SUMMARY_ROWS = 20;

function printSummary(outcomes: readonly RunOutcome[], io: Output, o: RunsOptions): void {
  const ok = outcomes.filter((r) => !r.error);
  const rows = [...ok].sort((a, b) => b.injected - a.injected || a.file.localeCompare(b.file)).slice(0, SUMMARY_ROWS);
  const name = (r: RunOutcome): string => (r.file.length > 48 ? `…${r.file.slice(-47)}` : r.file);
  const w = Math.max(9, ...rows.map((r) => name(r).length));
  io.out(`${'recording'.padEnd(w)}  ${'frames'.padStart(7)}  ${'findings'.padStart(8)}  ${'injected J'.padStart(10)}  top mechanism`);
  for (const r of rows)
    io.out(
      `${name(r).padEnd(w)}  ${String(r.frames).padStart(7)}  ${String(r.findings).padStart(8)}  ${formatNumber(r.injected).padStart(10)}  ${r.top ?? '—'}`,
    );
  if (ok.length > rows.length) io.out(`… ${ok.length - rows.length} more (--json lists every run)`);
  const frames = ok.reduce((a, r) => a + r.frames, 0),
    findings = ok.reduce((a, r) => a + r.findings, 0),
    injected = ok.reduce((a, r) => a + r.injected, 0),
    cached = ok.filter((r) => r.cached).length;
  const failed = outcomes.length - ok.length;
  io.out(
    `${formatCount(outcomes.length, 'recording')}${failed ? ` (${failed} could not be read)` : ''}${cached ? `, ${cached} from their caches` : ''}: ${formatCount(frames, 'frame')}, ${formatCount(findings, 'finding')}, ${formatSigned(injected)} J injected`,
  );
  if (o.results) io.out(`wrote ${o.results} (a row per run and per finding; \`contact-lens query "SELECT …" ${o.results}\`)`);
  if (o.dataset) io.out(`wrote the tables ${TABLE_NAMES.join(', ')} into ${o.dataset} (partitioned by run; \`contact-lens query "SELECT …" ${o.dataset}\`)`);
}
