/**
 * The tables of the many-recordings commands (docs/at-scale.md "Tables"): one run is one recording; its rows go
 * to `runs`, `findings`, `frames`, `ledger` and `contacts`, each partitioned by `run` (Hive-style directories,
 * run=<id>). The column names and types are written here once: the Parquet writer reads the rows with these
 * types and the documentation lists them.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { frameMaxima, type RecordedFrame, type RecordingHeader } from '../format/recording.js';
import { contactKeyText } from '../session/contactKeys.js';
import { contactKinematics } from '../session/contactKinematics.js';
import { contactState } from '../session/contactState.js';
import type { FrameDiagnosis } from '../session/diagnose.js';
import type { DiagnosisResult, RecordingReport } from './recordingReport.js';

/** DuckDB column types of each table, in order (`run` first: the partition column). */
export const TABLES = {
  runs: {
    run: 'VARCHAR',
    file: 'VARCHAR',
    error: 'VARCHAR',
    producer: 'VARCHAR',
    solver_kind: 'VARCHAR',
    frames: 'BIGINT',
    bodies: 'BIGINT',
    skipped_lines: 'BIGINT',
    contacts_max: 'BIGINT',
    contacts_median: 'DOUBLE',
    kappa_max: 'DOUBLE',
    kappa_max_frame: 'DOUBLE',
    iterations_p50: 'DOUBLE',
    iterations_p95: 'DOUBLE',
    iterations_max: 'DOUBLE',
    solver_failures: 'BIGINT',
    energy_drift: 'DOUBLE',
    frames_gaining_over_1mj: 'BIGINT',
    findings: 'BIGINT',
    injection_findings: 'BIGINT',
    injected_joules: 'DOUBLE',
    ledger_normal: 'DOUBLE',
    ledger_friction: 'DOUBLE',
    ledger_position_correction: 'DOUBLE',
    ledger_integrator: 'DOUBLE',
    ledger_unexplained: 'DOUBLE',
    inconsistent_frames: 'BIGINT',
  },
  findings: {
    run: 'VARCHAR',
    frame: 'DOUBLE',
    time: 'DOUBLE',
    kind: 'VARCHAR',
    mechanism: 'VARCHAR',
    severity: 'VARCHAR',
    joules: 'DOUBLE',
    contacts: 'INTEGER[]',
    headline: 'VARCHAR',
    summary: 'VARCHAR',
    inconsistent: 'BOOLEAN',
    exact_solve_saves: 'DOUBLE',
    explanation: 'VARCHAR',
  },
  frames: {
    run: 'VARCHAR',
    frame: 'DOUBLE',
    time: 'DOUBLE',
    contacts: 'BIGINT',
    status: 'VARCHAR',
    iterations: 'BIGINT',
    residual: 'DOUBLE',
    max_lambda_n: 'DOUBLE',
    max_depth: 'DOUBLE',
    energy_total: 'DOUBLE',
    injected_joules: 'DOUBLE',
  },
  ledger: {
    run: 'VARCHAR',
    frame: 'DOUBLE',
    energy: 'DOUBLE',
    delta: 'DOUBLE',
    normal: 'DOUBLE',
    friction: 'DOUBLE',
    stabilisation: 'DOUBLE',
    position_correction: 'DOUBLE',
    integrator: 'DOUBLE',
    unexplained: 'DOUBLE',
    manifold: 'DOUBLE',
    external: 'DOUBLE',
  },
  contacts: {
    run: 'VARCHAR',
    frame: 'DOUBLE',
    contact: 'INTEGER',
    key: 'VARCHAR',
    body_a: 'INTEGER',
    body_b: 'INTEGER',
    lambda_n: 'DOUBLE',
    lambda_t1: 'DOUBLE',
    lambda_t2: 'DOUBLE',
    w_n: 'DOUBLE',
    w_t1: 'DOUBLE',
    w_t2: 'DOUBLE',
    depth: 'DOUBLE',
    mu: 'DOUBLE',
    e: 'DOUBLE',
    state: 'VARCHAR',
    injected_joules: 'DOUBLE',
  },
} as const;

export type TableName = keyof typeof TABLES;
export const TABLE_NAMES = Object.keys(TABLES) as TableName[];
export type Row = Record<string, unknown>;

/**
 * A run's id, the value of its `run=` partition: the recording's name (letters, digits, . _ -) and 10 hex digits of
 * the SHA-256 of its path as given (relative paths stay the same on every machine of a CI matrix or a cluster).
 */
export function runId(file: string): string {
  const name = path
    .basename(file)
    .replace(/\.rec\.jsonl(\.gz)?$|\.jsonl(\.gz)?$/, '')
    .replace(/[^\w.-]/g, '_')
    .slice(0, 48);
  const key = path.normalize(file).split(path.sep).join('/');
  return `${name || 'run'}-${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
}

const num = (x: number | null | undefined): number | string | null => (x === null || x === undefined ? null : Number.isFinite(x) ? x : String(x)); // ±Infinity and NaN as DuckDB reads them

/** The run's row (from `report --json`'s object: the same numbers). */
export function runRow(run: string, file: string, report: RecordingReport, diagnosis: DiagnosisResult): Row {
  const inj = diagnosis.findings.filter((f) => f.kind === 'injection');
  return {
    run,
    file,
    error: null,
    producer: `${report.producer.name}${report.producer.version ? ` ${report.producer.version}` : ''}`,
    solver_kind: report.solverKind ?? null,
    frames: report.frames,
    bodies: report.bodies,
    skipped_lines: report.skippedLines,
    contacts_max: report.contactsPerFrame.max,
    contacts_median: report.contactsPerFrame.median,
    kappa_max: num(report.kappaMax),
    kappa_max_frame: report.kappaMaxFrame,
    iterations_p50: report.iterations.p50,
    iterations_p95: report.iterations.p95,
    iterations_max: report.iterations.max,
    solver_failures: report.solverFailures,
    energy_drift: num(report.energyDrift),
    frames_gaining_over_1mj: report.framesGainingOver1mJ,
    findings: diagnosis.findings.length,
    injection_findings: inj.length,
    injected_joules: num(inj.reduce((a, f) => a + f.joules, 0)),
    ledger_normal: num(report.ledger.normal),
    ledger_friction: num(report.ledger.friction),
    ledger_position_correction: num(report.ledger.positionCorrection),
    ledger_integrator: num(report.ledger.integrator),
    ledger_unexplained: num(report.ledger.unexplained),
    inconsistent_frames: report.consistency ? report.consistency.frames : null,
  };
}

/** The row of a recording that could not be read (its error, one line). */
export function failedRunRow(run: string, file: string, error: string): Row {
  return { run, file, error };
}

export function findingRows(run: string, diagnosis: DiagnosisResult): Row[] {
  return diagnosis.findings.map((f) => ({
    run,
    frame: f.frame,
    time: num(f.time),
    kind: f.kind,
    mechanism: f.mechanism,
    severity: f.severity,
    joules: num(f.joules),
    contacts: f.contacts,
    headline: f.headline,
    summary: f.summary,
    inconsistent: f.inconsistent === true,
    exact_solve_saves: num(f.counterfactual?.exactSolve),
    explanation: f.explanation,
  }));
}

/** Rows of one frame for the frames, ledger and contacts tables (contacts only when asked: one row per contact). */
export function frameRows(
  run: string,
  f: RecordedFrame,
  d: FrameDiagnosis | undefined,
  header: RecordingHeader,
  prev: RecordedFrame | undefined,
  withContacts: boolean,
): { frames: Row; ledger: Row | null; contacts: Row[] } {
  const s = f.solver;
  const { maxLambdaN, maxDepth } = frameMaxima(f);
  let injected = 0;
  for (const j of d?.injected.values() ?? []) injected += j;
  const frames: Row = {
    run,
    frame: f.frame,
    time: f.time,
    contacts: f.contacts.length,
    status: s.status,
    iterations: s.iterations ?? null,
    residual: s.residuals?.length ? num(s.residuals[s.residuals.length - 1]) : null,
    max_lambda_n: maxLambdaN,
    max_depth: maxDepth,
    energy_total: num(f.energy?.total),
    injected_joules: num(injected),
  };
  const L = d?.ledger;
  const ledger: Row | null = L
    ? {
        run,
        frame: f.frame,
        energy: num(L.energy),
        delta: num(L.delta),
        normal: num(L.normal),
        friction: num(L.friction),
        stabilisation: num(L.stabilisation),
        position_correction: num(L.positionCorrection),
        integrator: num(L.integrator),
        unexplained: num(L.unexplained),
        manifold: num(L.manifold),
        external: num(L.external),
      }
    : null;
  const contacts: Row[] = [];
  if (withContacts && f.contacts.length > 0) {
    const kin = contactKinematics(header, f, prev);
    f.contacts.forEach((c, k) => {
      const w = kin?.[k]?.gAfter;
      const l1 = s.lambda[3 * k + 1],
        l2 = s.lambda[3 * k + 2];
      const state = contactState(
        s.lambda[3 * k],
        Math.hypot(l1, l2),
        c.mu,
        w ? { normal: w[0], slip: Math.hypot(w[1], w[2]), depth: c.depth, dt: header.dt } : null,
      );
      contacts.push({
        run,
        frame: f.frame,
        contact: k,
        key: contactKeyText(c),
        body_a: c.a,
        body_b: c.b,
        lambda_n: num(s.lambda[3 * k]),
        lambda_t1: num(l1),
        lambda_t2: num(l2),
        w_n: w ? num(w[0]) : null,
        w_t1: w ? num(w[1]) : null,
        w_t2: w ? num(w[2]) : null,
        depth: num(c.depth),
        mu: num(c.mu),
        e: num(c.e),
        state,
        injected_joules: num(d?.byContact.get(k) ?? 0),
      });
    });
  }
  return { frames, ledger, contacts };
}
