/**
 * The embedded DuckDB (the optional npm package @duckdb/node-api, ~70 MB of native library, so it is not part of
 * the extension): it writes the many-recordings tables as Parquet (COPY … TO … (FORMAT PARQUET), partitioned by
 * run, Hive-style) and answers `contact-lens query`. Rows arrive as newline-delimited JSON parts (runJob.ts) read
 * with the column types of runTables.ts, so every file of a dataset has the same schema.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { safePath } from '../format/messages.js';
import { UsageError } from './args.js';
import { FileError } from './output.js';
import { type Row, TABLE_NAMES, TABLES, type TableName } from './runTables.js';

type DuckDb = typeof import('@duckdb/node-api');

/** The DuckDB package, or one line saying how to get it. */
function duckdb(): DuckDb {
  try {
    // a plain require: esbuild leaves the optional package out of the bundle (scripts/build.mjs marks it external)
    return require('@duckdb/node-api') as DuckDb;
  } catch {
    throw new UsageError(
      'Parquet output and `query` need the optional package @duckdb/node-api (an embedded DuckDB): install it with `npm install @duckdb/node-api` beside contact-lens',
    );
  }
}

/** DuckDB's message, first line only (the rest is the SQL with a caret). */
export const duckMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0].trim();

/** Runs `sql`; a DuckDB error becomes one line naming `file`. */
async function runOn(db: Db, sql: string, file: string, what: string): Promise<void> {
  try {
    await db.run(sql);
  } catch (e) {
    throw new FileError(file, `${what} (DuckDB: ${duckMessage(e)})`);
  }
}

/** A string as an SQL literal. */
export const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** A path as DuckDB reads it (forward slashes on every platform). */
const sqlPath = (p: string): string => sqlString(path.resolve(p).split(path.sep).join('/'));

/** `columns={…}` of read_json for a table. */
const columnsOf = (t: TableName): string =>
  `{${Object.entries(TABLES[t])
    .map(([k, v]) => `${sqlString(k)}: ${sqlString(v)}`)
    .join(', ')}}`;

/** The rows of a table's parts, typed; an empty relation of the same columns when there are none. */
function source(t: TableName, parts: readonly string[]): string {
  if (parts.length === 0)
    return `(SELECT ${Object.entries(TABLES[t])
      .map(([k, v]) => `CAST(NULL AS ${v}) AS ${k}`)
      .join(', ')} WHERE false)`;
  return `read_json([${parts.map(sqlPath).join(', ')}], format = 'newline_delimited', columns = ${columnsOf(t)})`;
}

export interface Db {
  run(sql: string): Promise<void>;
  rows(sql: string): Promise<{ columns: string[]; rows: Row[] }>;
  close(): void;
}

export async function openDb(): Promise<Db> {
  const { DuckDBInstance } = duckdb();
  // nothing is fetched: the extensions this needs (json, parquet) are built in
  const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const c = await instance.connect();
  return {
    run: async (sql) => {
      await c.run(sql);
    },
    rows: async (sql) => {
      const r = await c.runAndReadAll(sql);
      const columns = r.columnNames();
      const rows = r.getRowObjectsJS().map((o) => {
        const row: Row = {};
        for (const k of columns) row[k] = plain(o[k]);
        return row;
      });
      return { columns, rows };
    },
    close: () => {
      c.closeSync();
      instance.closeSync();
    },
  };
}

/** A DuckDB value as plain JSON-able data (integers that fit a double as numbers). */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : String(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Date) return v.toISOString();
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/**
 * Writes the tables' parts into the dataset folder `dir` (dir/<table>/run=<id>/part-….parquet). A run already in
 * the dataset is refused before anything is written (the same run twice would count twice; nothing is replaced).
 */
export async function writeDataset(dir: string, parts: Partial<Record<TableName, string[]>>, runs: readonly string[], part: string): Promise<void> {
  for (const t of TABLE_NAMES)
    for (const run of runs) {
      const p = path.join(dir, t, `run=${run}`);
      if (fs.existsSync(p))
        throw new FileError(p, 'already exists: this run is in the dataset already (remove its folders to write it again, or write to another dataset)');
    }
  fs.mkdirSync(dir, { recursive: true });
  const db = await openDb();
  try {
    for (const t of TABLE_NAMES) {
      const ps = parts[t] ?? [];
      if (ps.length === 0) continue;
      await runOn(
        db,
        `COPY (SELECT * FROM ${source(t, ps)}) TO ${sqlPath(path.join(dir, t))} (FORMAT PARQUET, PARTITION_BY (run), APPEND true, FILENAME_PATTERN ${sqlString(`${part}-{uuid}`)})`,
        path.join(dir, t),
        'cannot be written',
      );
    }
  } finally {
    db.close();
  }
}

/** Writes one Parquet file with a row per run and a row per finding (`record`: 'run' or 'finding'); never over a file. */
export async function writeResults(file: string, runs: readonly string[], findings: readonly string[]): Promise<void> {
  if (fs.existsSync(file)) throw new FileError(file, 'already exists; refusing to overwrite it (choose another name)');
  const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
  const db = await openDb();
  try {
    await runOn(
      db,
      `COPY (SELECT 'run' AS record, * FROM ${source('runs', runs)} UNION ALL BY NAME SELECT 'finding' AS record, * FROM ${source('findings', findings)} ORDER BY run, record DESC, frame) TO ${sqlPath(tmp)} (FORMAT PARQUET)`,
      file,
      'cannot be written',
    );
  } finally {
    db.close();
  }
  try {
    fs.linkSync(tmp, file); // fails, rather than replaces, when the name was taken meanwhile
  } catch (e) {
    throw new FileError(file, `cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Views named after the tables over a dataset folder or a results file, for `query`. */
export async function attach(db: Db, where: string): Promise<TableName[]> {
  const st = fs.statSync(where, { throwIfNoEntry: false });
  if (!st) throw new UsageError(`${safePath(where)}: no such dataset folder or Parquet file`);
  const made: TableName[] = [];
  if (st.isFile()) {
    // a `diagnose --out` results file: its run rows and finding rows
    for (const t of ['runs', 'findings'] as const) {
      const cols = Object.keys(TABLES[t]).join(', ');
      await runOn(
        db,
        `CREATE OR REPLACE VIEW ${t} AS SELECT ${cols} FROM read_parquet(${sqlPath(where)}) WHERE record = ${sqlString(t === 'runs' ? 'run' : 'finding')}`,
        where,
        'is not a results file of `contact-lens diagnose --out`',
      );
      made.push(t);
    }
    return made;
  }
  for (const t of TABLE_NAMES) {
    const d = path.join(where, t);
    const has = fs.existsSync(d) && fs.readdirSync(d).length > 0;
    await runOn(
      db,
      has
        ? `CREATE OR REPLACE VIEW ${t} AS SELECT * FROM read_parquet(${sqlString(`${path.resolve(d).split(path.sep).join('/')}/**/*.parquet`)}, hive_partitioning = true, hive_types = {'run': VARCHAR}, union_by_name = true)`
        : `CREATE OR REPLACE VIEW ${t} AS SELECT * FROM ${source(t, [])}`,
      d,
      'holds a file that is not a table of `contact-lens export --parquet`',
    );
    if (has) made.push(t);
  }
  if (made.length === 0)
    throw new UsageError(
      `${safePath(where)}: holds none of the tables ${TABLE_NAMES.join(', ')} (write them with \`contact-lens export --parquet\` or \`diagnose --out\`)`,
    );
  return made;
}
