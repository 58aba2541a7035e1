/**
 * One run of the many-recordings commands: a recording's report and diagnosis (recordingReport.ts: one pass, or
 * its sidecar cache) turned into table rows (runTables.ts), written as newline-delimited JSON parts into a
 * scratch folder for the Parquet writer. Runs in a worker thread (runPool.ts) or in the calling thread; what it
 * returns is small (counts and the parts' paths), whatever the recording's size.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CacheOptions } from '../format/sidecarCache.js';
import type { Finding } from '../session/diagnose.js';
import { reportRecording } from './recordingReport.js';
import { failedRunRow, findingRows, frameRows, type Row, runRow, type TableName } from './runTables.js';
import { LISTED_SKIPPED_LINES } from './recordingIssues.js';

export interface RunTask {
  readonly file: string;
  readonly run: string;
  /** The scratch folder the parts go to. */
  readonly scratch: string;
  /** Also the per-frame tables (frames, ledger) and, with contacts, one row per contact of every frame. */
  readonly frames: boolean;
  readonly contacts: boolean;
  readonly cache: CacheOptions;
}

export interface RunOutcome {
  readonly run: string;
  readonly file: string;
  /** The one-line reason the recording could not be read (null: read). */
  readonly error: string | null;
  readonly frames: number;
  readonly findings: number;
  readonly injected: number;
  /** The mechanism with the most injected joules (null: none). */
  readonly top: string | null;
  readonly counts: Record<Finding['kind'] | 'skipped-lines', number>;
  /** Lines for stderr: skipped lines and warnings, as report prints them. */
  readonly issues: readonly string[];
  /** The newline-delimited JSON part written for each table. */
  readonly parts: Partial<Record<TableName, string>>;
  readonly cached: boolean;
}

/** Rows buffered before a write (a few hundred KiB of JSON). */
const ROWS_PER_WRITE = 2048;

/** Newline-delimited JSON, written ROWS_PER_WRITE rows at a time. */
class PartWriter {
  private fd: number;
  private buf: string[] = [];
  rows = 0;
  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'wx');
  }
  add(row: Row): void {
    this.buf.push(JSON.stringify(row), '\n');
    this.rows++;
    if (this.buf.length >= 2 * ROWS_PER_WRITE) this.flush();
  }
  flush(): void {
    if (this.buf.length) fs.writeSync(this.fd, this.buf.join(''));
    this.buf = [];
  }
  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}

export function runJob(task: RunTask): RunOutcome {
  const writers = new Map<TableName, PartWriter>();
  const out = (table: TableName): PartWriter => {
    let w = writers.get(table);
    if (!w) {
      fs.mkdirSync(path.join(task.scratch, table), { recursive: true });
      w = new PartWriter(path.join(task.scratch, table, `${task.run}.ndjson`));
      writers.set(table, w);
    }
    return w;
  };
  const counts = { injection: 0, 'non-physical': 0, inconsistent: 0, 'skipped-lines': 0 };
  try {
    const r = reportRecording(task.file, {
      cache: task.cache,
      diagnosisOnly: false,
      ...(task.frames
        ? {
            hook: (f, d, header, prev) => {
              const rows = frameRows(task.run, f, d, header, prev, task.contacts);
              out('frames').add(rows.frames);
              if (rows.ledger) out('ledger').add(rows.ledger);
              if (task.contacts) for (const c of rows.contacts) out('contacts').add(c);
            },
          }
        : {}),
    });
    const { reader, report, diagnosis } = r;
    const issues: string[] = [];
    try {
      if (reader.errorCount > 0) {
        issues.push(`warning: ${reader.file}: skipped ${reader.errorCount} frame lines`);
        for (const e of reader.errors.slice(0, LISTED_SKIPPED_LINES)) issues.push(`  ${e.message}`);
      }
      for (const w of reader.warnings) issues.push(`warning: ${w}`);
    } finally {
      reader.close();
    }
    out('runs').add(runRow(task.run, task.file, report, diagnosis));
    const fw = out('findings');
    for (const row of findingRows(task.run, diagnosis)) fw.add(row);
    counts['skipped-lines'] = report.skippedLines;
    const byMechanism = new Map<string, number>();
    let injected = 0;
    for (const f of diagnosis.findings) {
      counts[f.kind]++;
      if (f.kind !== 'injection') continue;
      injected += f.joules;
      byMechanism.set(f.mechanism, (byMechanism.get(f.mechanism) ?? 0) + f.joules);
    }
    const top = [...byMechanism].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    return finish({ error: null, frames: report.frames, findings: diagnosis.findings.length, injected, top, issues, cached: r.cached });
  } catch (e) {
    // a recording that cannot be read is one row with its reason: the other runs go on
    const message = e instanceof Error ? e.message : String(e);
    for (const w of writers.values()) w.close();
    for (const w of writers.values()) fs.rmSync(w.file, { force: true });
    writers.clear();
    out('runs').add(failedRunRow(task.run, task.file, message.split('\n')[0]));
    return finish({ error: message.split('\n')[0], frames: 0, findings: 0, injected: 0, top: null, issues: [], cached: false });
  }

  function finish(o: Omit<RunOutcome, 'run' | 'file' | 'parts' | 'counts'>): RunOutcome {
    const parts: Partial<Record<TableName, string>> = {};
    for (const [t, w] of writers) {
      w.close();
      parts[t] = w.file;
    }
    return { run: task.run, file: task.file, counts, parts, ...o };
  }
}
