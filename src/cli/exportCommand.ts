/**
 * `contact-lens export <recordings…> --parquet DIR` (the tables of docs/at-scale.md, partitioned by run) and
 * `contact-lens export <rec> --mcap out.mcap` (Foxglove / Lichtblick: mcapExport.ts).
 */
import { formatCount } from '../engine/index.js';
import { safePath } from '../format/messages.js';
import { parseArgs, UsageError } from './args.js';
import type { CommandHelp } from './help.js';
import { exportMcap } from './mcapExport.js';
import type { Output } from './output.js';
import { requireKind } from './fileKind.js';
import { parseJobs, parseShard, runMany } from './runsCommand.js';

export const EXPORT_HELP: CommandHelp = {
  command: 'export',
  synopsis: 'export <recordings or globs…> --parquet DIR [--no-contacts] [--jobs N] [--shard i/N]\n       contact-lens export <rec.jsonl> --mcap out.mcap',
  summary: 'writes recordings as Parquet tables (runs, frames, contacts, ledger, findings) or one as MCAP',
  description: [
    'With --parquet: the tables runs, frames, contacts (λ, w, depth, state per contact and frame), ledger and',
    'findings of every recording, partitioned by run (DIR/<table>/run=<id>/part-….parquet; docs/at-scale.md), for',
    '`contact-lens query`, DuckDB, Spark, Trino or Dask. A run already in DIR is refused, never replaced. Needs the',
    'optional package @duckdb/node-api. With --mcap: the bodies and contact arrows as foxglove.SceneUpdate and λ,',
    'energy and findings as JSON messages, for Foxglove or Lichtblick.',
  ],
  options: [
    ['--parquet DIR', 'the dataset folder (created; other runs in it are kept)'],
    ['--no-contacts', 'leave out the contacts table (one row per contact of every frame: the largest)'],
    ['--jobs N', 'export N recordings at a time in worker threads'],
    ['--shard i/N', 'only the i-th of N parts of the file list (docs/at-scale.md)'],
    ['--mcap FILE', 'one recording as an MCAP file (never over an existing file)'],
  ],
  example: 'export examples/foreign-engine.rec.jsonl --parquet /tmp/contact-dataset',
};

export async function runExport(argv: readonly string[], io: Output): Promise<number> {
  const { positionals, options } = parseArgs(argv, ['parquet', 'mcap', 'jobs', 'shard'], ['no-contacts']);
  const parquet = options.get('parquet'),
    mcap = options.get('mcap');
  if ((parquet === undefined) === (mcap === undefined))
    throw new UsageError(`give one of --parquet DIR and --mcap FILE\nusage: contact-lens ${EXPORT_HELP.synopsis}`);
  if (positionals.length === 0) throw new UsageError(`expected recordings\nusage: contact-lens ${EXPORT_HELP.synopsis}`);
  if (mcap !== undefined) {
    if (mcap === true) throw new UsageError('--mcap needs a file name');
    if (positionals.length !== 1) throw new UsageError('--mcap writes one recording: give one file');
    requireKind(positionals[0], 'export', ['recording']);
    const s = await exportMcap(positionals[0], mcap);
    io.out(
      `wrote ${safePath(mcap)}: ${formatCount(s.frames, 'frame')}; ${Object.entries(s.messages)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ')}`,
    );
    return 0;
  }
  if (parquet === true) throw new UsageError('--parquet needs a folder');
  return runMany(
    positionals,
    {
      command: 'export',
      jobs: parseJobs(options.get('jobs')),
      shard: parseShard(options.get('shard')),
      dataset: parquet,
      contacts: options.get('no-contacts') !== true,
      json: false,
    },
    io,
    new Set(),
  );
}
