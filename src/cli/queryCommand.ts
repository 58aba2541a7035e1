/** `contact-lens query "<SQL>" [DIR | results.parquet …] [--json]`: SQL over the many-recordings tables (docs/at-scale.md). */
import { safeText } from '../format/messages.js';
import { parseArgs, UsageError } from './args.js';
import { attach, duckMessage, openDb } from './duckdb.js';
import type { CommandHelp } from './help.js';
import type { Output } from './output.js';
import { TABLE_NAMES } from './runTables.js';

export const QUERY_HELP: CommandHelp = {
  command: 'query',
  synopsis: 'query "<SQL>" [DATASET-DIR | results.parquet] [--json]',
  summary: 'answers SQL over the tables of `export --parquet` or `diagnose --out` (embedded DuckDB)',
  description: [
    `Runs one SQL statement over the tables ${TABLE_NAMES.join(', ')} of a dataset folder written by`,
    '`contact-lens export --parquet DIR` (default: the current folder), or over the runs and findings of a',
    '`diagnose --out results.parquet` file. Prints an aligned table, or with --json an array of row objects.',
    'Needs the optional package @duckdb/node-api. The tables and their columns: docs/at-scale.md.',
  ],
  options: [['--json', 'the rows as one JSON array of objects']],
  example: 'query "SELECT run, sum(joules) AS j FROM findings WHERE kind = \'injection\' GROUP BY run ORDER BY j DESC LIMIT 10" /tmp/contact-dataset',
};

/** Characters of a cell shown in the text table. */
const CELL_CHARS = 60;

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
  return safeText(s, CELL_CHARS);
}

export async function runQuery(argv: readonly string[], io: Output): Promise<number> {
  const { positionals, options } = parseArgs(argv, [], ['json']);
  if (positionals.length < 1 || positionals.length > 2)
    throw new UsageError(`expected an SQL statement and a dataset\nusage: contact-lens ${QUERY_HELP.synopsis}`);
  const [sql, where = '.'] = positionals;
  const db = await openDb();
  try {
    await attach(db, where);
    let result: Awaited<ReturnType<typeof db.rows>>;
    try {
      result = await db.rows(sql);
    } catch (e) {
      throw new UsageError(`query: ${duckMessage(e)}`);
    }
    if (options.get('json')) {
      io.out(JSON.stringify(result.rows));
      return 0;
    }
    const { columns, rows } = result;
    const texts = rows.map((r) => columns.map((c) => cell(r[c])));
    const widths = columns.map((c, i) => Math.max(c.length, ...texts.map((t) => t[i].length)));
    const numeric = columns.map((c) => rows.length > 0 && rows.every((r) => r[c] === null || typeof r[c] === 'number'));
    const line = (cells: string[]): string =>
      cells
        .map((t, i) => (numeric[i] ? t.padStart(widths[i]) : t.padEnd(widths[i])))
        .join('  ')
        .trimEnd();
    io.out(line(columns));
    io.out(widths.map((w) => '─'.repeat(w)).join('  '));
    for (const t of texts) io.out(line(t));
    io.err(`${rows.length} row${rows.length === 1 ? '' : 's'}`);
    return 0;
  } finally {
    db.close();
  }
}
