/** `contact-lens diagnose <scene.json | rec.jsonl> [--json] [--fail-on injection,non-physical,inconsistent,skipped-lines]` */
import { safePath, safeText } from '../format/messages.js';
import { parseSceneFile } from '../format/scene.js';
import type { Finding, InjectionMechanism } from '../session/diagnose.js';
import { BATCH_DIAGNOSIS, diagnoseScenario } from '../session/diagnosisRun.js';
import { cliCacheOptions } from '../format/sidecarCache.js';
import { type DiagnosisResult, type ReportRun, reportRecordingCli } from './recordingReport.js';
import { MECHANISM_SOURCE } from '../session/diagnosis/wording.js';
import * as fs from 'node:fs';
import { parseArgs, UsageError } from './args.js';
import { parseJobs, parseShard, runMany } from './runsCommand.js';
import { printRecordingIssues } from './recordingIssues.js';
import { readInputText, type Output } from './output.js';
import { kindOfFile, requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { formatCount, formatNumber, formatSigned } from '../engine/index.js';
import { followDiagnose } from './followDiagnose.js';

export const FAIL_ON = ['injection', 'non-physical', 'inconsistent', 'skipped-lines'] as const;
export type FailOn = (typeof FAIL_ON)[number];
export const DIAGNOSE_HELP: CommandHelp = {
  command: 'diagnose',
  synopsis: `diagnose <scene.json | rec.jsonl> [--json] [--verbose] [--fail-on ${FAIL_ON.join(',')}] [--follow [--idle-exit S]]\n       contact-lens diagnose <recordings or globs…> [--jobs N] [--shard i/N] [--out results.parquet] [--json]`,
  summary: "finds energy injection (frame, contacts, mechanism, joules) in a scene's run or a recording",
  description: [
    'Runs every scenario of a scene file, or reads a recording, and finds the frames where contacts inject energy:',
    'the frame, the contacts, the mechanism and the joules, confirmed by exact re-solves of the same frame, and',
    'non-physical behaviour that adds no energy yet (docs/physics.md "Energy ledger of a recorded frame").',
    'With many recordings (several files, quoted globs such as "runs/**/*.rec.jsonl.gz", or --jobs/--shard/--out) it',
    'diagnoses them in a worker pool and prints a table of the runs with the most injected joules (docs/at-scale.md).',
  ],
  options: [
    ['--fail-on KINDS', `exit 1 when a finding of these kinds exists: a comma-separated list of ${FAIL_ON.join(', ')}`],
    ['--json', 'one JSON object per finding (frame, contacts, mechanism, joules, headline, evidence, counterfactuals, …)'],
    ['--verbose', 'every finding with its evidence (without it: a summary per mechanism, its largest findings, the sources once)'],
    [
      '--follow',
      'a recording still being written: print each finding as soon as its frame is complete; ends at the closing line the writer writes on close (docs/recording-format.md "Closing line"), on Ctrl-C, or with --idle-exit',
    ],
    ['--idle-exit S', 'with --follow: stop after S seconds without growth'],
    ['--jobs N', 'many recordings: diagnose N at a time in worker threads (default 1)'],
    ['--shard i/N', 'many recordings: only the i-th of N parts of the file list (the same split on every machine; docs/at-scale.md)'],
    ['--out FILE.parquet', 'many recordings: a Parquet file with a row per run and per finding (needs the optional @duckdb/node-api)'],
  ],
  example: 'diagnose examples/fault-restitution-target.scene.json --fail-on injection',
};

interface Source {
  readonly label: string;
  readonly diagnoser: DiagnosisResult;
  readonly frames: number;
  readonly skippedLines: number;
}

function fromScene(file: string, io: Output): Source[] {
  const { scenarios, warnings } = parseSceneFile(readInputText(file), file);
  for (const w of warnings) io.err(`warning: ${w.message}`);
  return scenarios.map((s) => ({
    label: `${safePath(file)} / ${safeText(s.desc.name)}`,
    diagnoser: diagnoseScenario(s.desc, BATCH_DIAGNOSIS).diagnoser,
    frames: s.desc.frames,
    skippedLines: 0,
  }));
}

/** The recording's findings: one pass (each frame parsed once), or the sidecar cache's diagnosis: the same as `report`'s. */
function fromRecording(file: string, io: Output): Source[] | Promise<Source[]> {
  const options = { cache: cliCacheOptions(), diagnosisOnly: true };
  // a large plain recording's later half is read on a second thread (recordingReport.ts); any other in this call
  const run = reportRecordingCli(file, options);
  return run instanceof Promise ? run.then((r) => sourcesOf(file, r, io)) : sourcesOf(file, run, io);
}

function sourcesOf(file: string, { reader, diagnosis }: ReportRun, io: Output): Source[] {
  try {
    // printed in every mode (stderr): a run that skipped 294 of 300 lines must say so, also with --json
    printRecordingIssues(reader, io);
    return [{ label: file, diagnoser: diagnosis, frames: reader.frameCount, skippedLines: reader.errorCount }];
  } finally {
    reader.close();
  }
}

function parseFailOn(v: string | true | undefined): Set<FailOn> {
  if (v === undefined) return new Set();
  const parts =
    v === true
      ? []
      : v
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
  for (const p of parts)
    if (!(FAIL_ON as readonly string[]).includes(p))
      throw new UsageError(`--fail-on: unknown value "${p}" (expected a comma-separated list of ${FAIL_ON.join(', ')})`);
  if (parts.length === 0) throw new UsageError(`--fail-on needs a value: ${FAIL_ON.join(', ')}`);
  return new Set(parts as FailOn[]);
}

/** One finding as a JSON object (`--json`, one per line). */
export function findingJson(source: string, f: Finding): Record<string, unknown> {
  return {
    source,
    frame: f.frame,
    time: f.time,
    kind: f.kind,
    severity: f.severity,
    contacts: f.contacts,
    mechanism: f.mechanism,
    joules: f.joules,
    headline: f.headline,
    evidence: f.evidence,
    ...(f.contactJoules ? { contactJoules: f.contactJoules } : {}),
    ...(f.laws ? { laws: f.laws } : {}),
    ...(f.counterfactual
      ? {
          counterfactual: f.counterfactual,
          counterfactuals: [
            { resolve: 'the problem the contacts obey, solved exactly', saves: f.counterfactual.exactSolve },
            { resolve: 'without the stabilisation term', saves: f.counterfactual.noStabilisation },
            { resolve: "with Newton's restitution law for the targets", saves: f.counterfactual.restitutionLaw },
          ],
        }
      : {}),
    ...(f.continuation ? { continuation: f.continuation } : {}),
    ...(f.inconsistent ? { inconsistent: true } : {}),
    ...(f.writerBug ? { writerBug: f.writerBug } : {}),
    explanation: f.explanation,
  };
}

/** Findings listed per mechanism without --verbose; the rest are counted. */
export const LISTED_PER_MECHANISM = 8;

/** Words of `text` wrapped to `width` columns, continuation lines indented by `indent` (no wrapping without a width). */
export function wrapText(text: string, width: number | undefined, indent: string): string[] {
  if (!width || text.length + indent.length <= width) return [text];
  const out: string[] = [];
  let lineText = '';
  for (const word of text.split(' ')) {
    const limit = width - (out.length === 0 ? 0 : indent.length);
    if (lineText && lineText.length + 1 + word.length > limit) {
      out.push(lineText);
      lineText = word;
    } else lineText = lineText ? `${lineText} ${word}` : word;
  }
  if (lineText) out.push(lineText);
  return out.map((l, i) => (i === 0 ? l : indent + l));
}

/** The text report of one source: a summary line per mechanism, its findings' headlines, the literature once. */
function printSource(s: Source, io: Output, verbose: boolean): void {
  const d = s.diagnoser;
  const inj = d.findings.filter((f) => f.kind === 'injection');
  const injected = inj.reduce((a, f) => a + f.joules, 0);
  const other = d.findings.length - inj.length;
  const put = (text: string, indent: string): void => {
    for (const l of wrapText(indent + text, io.columns, indent + '    ')) io.out(l);
  };
  put(
    `${s.label}: ${formatCount(s.frames, 'frame')}, ${d.findings.length === 0 ? 'no findings' : `${formatCount(inj.length, 'injection finding')} (${formatNumber(injected)} J in all), ${formatCount(other, 'other finding')}`}`,
    '',
  );
  if (d.consistency)
    put(
      `inconsistent recording: ${d.consistency.frames} of ${formatCount(d.consistency.checked, 'checked frame')} fail Δv = M⁻¹Jᵀλ, first at frame ${d.consistency.firstFrame}: ${d.consistency.text}`,
      '  ',
    );
  const groups = new Map<string, Finding[]>();
  for (const f of d.findings) groups.set(f.mechanism, [...(groups.get(f.mechanism) ?? []), f]);
  // the injections first, the largest first; then the other findings, errors before warnings, the most frequent first
  const injectedBy = (fs: readonly Finding[]): number => fs.reduce((a, f) => a + (f.kind === 'injection' ? f.joules : 0), 0);
  const severity = (fs: readonly Finding[]): number => Math.max(...fs.map((f) => (f.severity === 'error' ? 2 : f.severity === 'warning' ? 1 : 0)));
  const ordered = [...groups].sort(
    ([, a], [, b]) =>
      Number(b[0].kind === 'injection') - Number(a[0].kind === 'injection') ||
      injectedBy(b) - injectedBy(a) ||
      severity(b) - severity(a) ||
      b.length - a.length,
  );
  for (const [m, fs] of ordered) {
    const joules = fs.reduce((a, f) => a + f.joules, 0);
    const frames = fs.map((f) => f.frame);
    const severity = fs.some((f) => f.severity === 'error') ? 'error' : fs.some((f) => f.severity === 'warning') ? 'warning' : 'info';
    put(
      `${m} (${severity}): ${formatCount(fs.length, 'finding')}${fs[0].kind === 'injection' ? `, ${formatSigned(joules)} J` : ''}, frame${fs.length > 1 ? 's' : ''} ${frames[0]}${fs.length > 1 ? `–${frames.at(-1)}` : ''}`,
      '  ',
    );
    const shown = verbose
      ? fs
      : [...fs]
          .sort((a, b) => b.joules - a.joules)
          .slice(0, LISTED_PER_MECHANISM)
          .sort((a, b) => a.frame - b.frame);
    for (const f of shown) {
      put(`${f.inconsistent ? '[inconsistent data] ' : ''}${f.headline}`, '    ');
      if (verbose) for (const e of f.evidence) put(e, '      ');
    }
    if (shown.length < fs.length) io.out(`    … ${fs.length - shown.length} more (--verbose lists every finding with its evidence)`);
  }
  const sources = [...groups.keys()].filter((m): m is InjectionMechanism => m in MECHANISM_SOURCE);
  if (!verbose && sources.length) {
    io.out('  sources:');
    for (const m of sources) put(`${m}: ${MECHANISM_SOURCE[m]}`, '    ');
  }
  if (d.cost.frames > 0)
    put(
      `counterfactual re-solves: ${formatCount(d.cost.islands, 'island')} in ${formatCount(d.cost.frames, 'frame')}, ${formatNumber(d.cost.ms)} ms${d.cost.exhaustedAt === null ? '' : `; the re-solve budget ran out at frame ${d.cost.exhaustedAt} (later frames are attributed from the ledger alone)`}`,
      '  ',
    );
}

export function runDiagnose(argv: readonly string[], io: Output): number | Promise<number> {
  const { positionals, options } = parseArgs(argv, ['fail-on', 'idle-exit', 'jobs', 'shard', 'out'], ['json', 'verbose', 'follow']);
  const failOn = parseFailOn(options.get('fail-on'));
  const many = positionals.length > 1 || positionals.some((p) => /[*?{]/.test(p) && !fs.existsSync(p)) || ['jobs', 'shard', 'out'].some((k) => options.has(k));
  if (many) {
    if (positionals.length === 0) throw new UsageError(`expected recordings or patterns\nusage: contact-lens ${DIAGNOSE_HELP.synopsis}`);
    if (options.get('verbose'))
      throw new UsageError('--verbose lists the findings of one recording; with many, use --out results.parquet and `contact-lens query`');
    const out = options.get('out');
    if (out === true || (out !== undefined && !out.endsWith('.parquet'))) throw new UsageError('--out needs a file name ending in .parquet');
    return runMany(
      positionals,
      {
        command: 'diagnose',
        jobs: parseJobs(options.get('jobs')),
        shard: parseShard(options.get('shard')),
        results: out,
        contacts: false,
        json: options.get('json') === true,
      },
      io,
      failOn,
    );
  }
  if (positionals.length !== 1) throw new UsageError(`expected one scene file or recording\nusage: contact-lens ${DIAGNOSE_HELP.synopsis}`);
  const file = positionals[0];
  if (options.get('follow') === true) return runFollow(file, io, options, failOn);
  if (options.has('idle-exit')) throw new UsageError('--idle-exit goes with --follow');
  requireKind(file, 'diagnose', ['scene', 'recording']);
  const json = options.get('json') === true;
  const recording = /\.jsonl(\.gz)?$/.test(file) || kindOfFile(file) === 'recording';
  const verbose = options.get('verbose') === true;
  const sources = recording ? fromRecording(file, io) : fromScene(file, io);
  return Array.isArray(sources) ? printSources(sources, io, json, verbose, failOn) : sources.then((s) => printSources(s, io, json, verbose, failOn));
}

/** Prints the findings of one file's sources; the exit code (1 when a --fail-on kind was found). */
function printSources(sources: readonly Source[], io: Output, json: boolean, verbose: boolean, failOn: Set<FailOn>): number {
  const counts = { injection: 0, 'non-physical': 0, inconsistent: 0, 'skipped-lines': 0 };
  for (const s of sources) {
    counts['skipped-lines'] += s.skippedLines;
    for (const f of s.diagnoser.findings) counts[f.kind]++;
    if (json) for (const f of s.diagnoser.findings) io.out(JSON.stringify(findingJson(s.label, f)));
    else printSource(s, io, verbose);
  }
  for (const k of failOn) if (counts[k] > 0) return 1;
  return 0;
}

/** `diagnose --follow`: findings printed as their frames arrive (followDiagnose.ts). */
async function runFollow(file: string, io: Output, options: Map<string, string | true>, failOn: Set<FailOn>): Promise<number> {
  if (/\.(scene\.json|gz)$/.test(file))
    throw new UsageError(`--follow reads a plain recording (.rec.jsonl) as it is written, not ${file.endsWith('.gz') ? 'a compressed one' : 'a scene file'}`);
  if (options.get('verbose') === true) throw new UsageError('--follow prints each finding as it comes; --verbose does not apply');
  const idle = options.get('idle-exit');
  const idleExitS = idle === undefined ? undefined : Number(idle);
  if (idleExitS !== undefined && !(Number.isFinite(idleExitS) && idleExitS > 0))
    throw new UsageError(`--idle-exit must be a number of seconds > 0 (got ${String(idle)})`);
  const json = options.get('json') === true;
  const r = await followDiagnose(file, io, { json, idleExitS }, (f) =>
    json ? JSON.stringify(findingJson(file, f)) : `${f.inconsistent ? '[inconsistent data] ' : ''}[${f.severity}] ${f.headline}`,
  );
  if (r.why === 'failed') return 2;
  const counts = { injection: 0, 'non-physical': 0, inconsistent: 0, 'skipped-lines': r.skippedLines };
  for (const f of r.findings) counts[f.kind]++;
  if (!json) {
    const inj = r.findings.filter((f) => f.kind === 'injection').length;
    io.out(
      `${file}: ${formatCount(r.frames, 'frame')}, ${r.findings.length === 0 ? 'no findings' : `${formatCount(inj, 'injection finding')}, ${formatCount(r.findings.length - inj, 'other finding')}`}`,
    );
  }
  for (const k of failOn) if (counts[k] > 0) return 1;
  return 0;
}
