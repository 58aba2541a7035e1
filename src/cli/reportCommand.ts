/** `contact-lens report <rec.jsonl> [--json]`: one streaming pass over a recording, then a summary. */
import { safePath } from '../format/messages.js';
import { cliCacheOptions } from '../format/sidecarCache.js';
import { parseArgs, UsageError } from './args.js';
import { requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { formatCount, formatNumber, formatSigned } from '../engine/index.js';
import { type ReportRun, reportRecordingCli } from './recordingReport.js';
import type { KappaMax } from './reportRows.js';
import type { Output } from './output.js';
import { printRecordingIssues } from './recordingIssues.js';
import { notRecorded, solverKind } from '../session/solverDeclarations.js';

export const REPORT_HELP: CommandHelp = {
  command: 'report',
  synopsis: 'report <rec.jsonl | rec.jsonl.gz> [--check] [--json]',
  summary: "summarises a recording (ours or another engine's) in one streaming pass",
  description: [
    "Reads a recording (docs/recording-format.md), ours or another engine's, in one pass: contacts per frame,",
    'κ(A), solver iterations and failures, energy drift, the energy ledger by channel and the findings',
    '(the diagnosis `diagnose` prints, exact re-solves included: one pass serves both commands).',
  ],
  options: [
    ['--check', 'also run the writer checks for engine authors (docs/engine-authors.md); exit 1 if one fails'],
    ['--json', 'the summary as one JSON object'],
  ],
  example: 'report examples/foreign-engine.rec.jsonl --check',
};

/** Why the largest κ(A) is what it is, when that island is rank deficient. */
function kappaRankNote(k: KappaMax): string {
  if (k.rankDeficiency === 0) return '';
  return ` (rank ${k.rows - k.rankDeficiency} of ${formatCount(k.rows, 'row')}${k.cause ? ` — ${k.cause}` : ''}: κ(A) there is set by the regularisation ε)`;
}

export function runReport(argv: readonly string[], io: Output): number | Promise<number> {
  const { positionals, options } = parseArgs(argv, [], ['json', 'check']);
  if (positionals.length !== 1) throw new UsageError(`expected one recording\nusage: contact-lens ${REPORT_HELP.synopsis}`);
  const file = positionals[0];
  requireKind(file, 'report', ['recording']);
  const opts = { check: options.get('check') === true, cache: cliCacheOptions() };
  // a large plain recording's later half is read on a second thread (recordingReport.ts); any other in this call
  const run = reportRecordingCli(file, opts);
  return run instanceof Promise ? run.then((r) => printReport(file, r, options, io)) : printReport(file, run, options, io);
}

/** Prints a recording's report (--json: one object); the exit code (1 when --check found a failing check). */
function printReport(file: string, run: ReportRun, options: Map<string, string | true>, io: Output): number {
  const reader = run.reader;
  try {
    const n = reader.frameCount;
    const report = { file, ...run.report };
    const { kappaMaxFrame: kappaFrame, kappaRangeMax, kappaRangeMaxFrame: kappaRangeFrame, ledger, injected, findings: findingCounts } = report;
    const failures = report.solverFailures;
    const kappaMax = report.kappaMax === null ? null : { kappa: report.kappaMax, ...report.kappaMaxRank! };
    const rises = report.energyRises.frames;
    const risesCount = report.energyRises.count;
    const diag = { consistency: report.consistency };
    const checksFailed = report.checks?.some((c) => c.outcome === 'failed') ?? false;
    printRecordingIssues(reader, io);
    if (options.get('json')) {
      io.out(JSON.stringify(report));
      return checksFailed ? 1 : 0;
    }
    io.out(
      `${safePath(file)}: ${formatCount(n, 'frame')}, ${formatCount(report.bodies, 'body', 'bodies')}, written by ${reader.header.producer.name}${reader.header.producer.version ? ' ' + reader.header.producer.version : ''}`,
    );
    if (reader.header.converted?.length) io.out(`conventions converted on read: ${reader.header.converted.join('; ')}`);
    const missing = notRecorded(reader.header);
    if (missing) io.out(`λ: ${missing}`);
    if (reader.header.initial) io.out('initial state: recorded (the first frame is diagnosed like any other)');
    io.out(`contacts per frame: max ${report.contactsPerFrame.max}, median ${report.contactsPerFrame.median}`);
    io.out(
      `κ(A) max: ${kappaMax === null ? 'n/a (no re-assemblable frame)' : `${formatNumber(kappaMax.kappa)} at frame ${kappaFrame}${kappaRankNote(kappaMax)}`}`,
    );
    if (kappaRangeMax !== null)
      io.out(
        `κ on the range of A max: ${formatNumber(kappaRangeMax)} at frame ${kappaRangeFrame} (null directions of redundant contacts excluded; docs/physics.md "Conditioning")`,
      );
    const kind = solverKind(reader.header);
    if (kind)
      io.out(
        `solver kind: ${kind}${kind === 'iterative-fixed' ? " (a fixed iteration count: the frames' statuses are labels, not convergence tests; the diagnosis judges the data)" : ''}`,
      );
    io.out(`solver iterations: p50 ${report.iterations.p50}, p95 ${report.iterations.p95}, max ${report.iterations.max}; failures: ${failures}`);
    io.out(`energy drift: ${report.energyDrift === null ? 'n/a (no energy recorded)' : `${formatSigned(report.energyDrift)} J`}`);
    io.out(
      `frames where total energy rose: ${risesCount}${
        risesCount
          ? ' (' +
            rises
              .slice(0, 8)
              .map((r) => `${r.frame}: ${formatSigned(r.joules)} J`)
              .join(', ') +
            (risesCount > 8 ? ', …' : '') +
            ')'
          : ''
      }`,
    );
    const J = (x: number): string => `${formatSigned(x)} J`;
    io.out(
      `energy ledger (Σ over frames, from the recorded states and λ): contact normal work ${J(ledger.normal)}, friction ${J(ledger.friction)}, position correction ${J(ledger.positionCorrection)}, integrator ${J(ledger.integrator)}, unexplained by λ ${J(ledger.unexplained)}${ledger.manifold !== undefined ? `, manifold friction and twist ${J(ledger.manifold)}` : ''}${ledger.external !== undefined ? `, external impulses ${J(ledger.external)}` : ''}`,
    );
    const inj = Object.entries(injected).sort((a, b) => b[1] - a[1]);
    io.out(
      `injected energy by mechanism (the joules of the findings \`diagnose\` prints): ${inj.length ? inj.map(([m, j]) => `${m} ${J(j)}`).join(', ') : 'none'}`,
    );
    io.out(
      `findings: ${
        Object.keys(findingCounts).length
          ? Object.entries(findingCounts)
              .map(([m, c]) => `${m} ×${c}`)
              .join(', ')
          : 'none'
      }`,
    );
    if (diag.consistency)
      io.out(
        `inconsistent recording: ${diag.consistency.frames} of ${formatCount(diag.consistency.checked, 'checked frame')}, first at frame ${diag.consistency.firstFrame}: ${diag.consistency.text}`,
      );
    if (reader.errorCount > 0) io.out(`skipped ${formatCount(reader.errorCount, 'bad line')} (listed on stderr)`);
    if (report.checks) {
      io.out('writer checks (docs/engine-authors.md):');
      for (const c of report.checks) io.out(`  ${c.outcome === 'ok' ? 'ok    ' : c.outcome === 'failed' ? 'FAILED' : 'n/a   '} ${c.name}: ${c.detail}`);
    }
    return checksFailed ? 1 : 0;
  } finally {
    reader.close();
  }
}
