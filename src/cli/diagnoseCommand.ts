/** `contact-lens diagnose <scene.json | rec.jsonl> [--json] [--fail-on injection,non-physical,inconsistent,skipped-lines]` */
import { safePath, safeText } from '../format/messages.js';
import { parseSceneFile } from '../format/scene.js';
import { frameFromWorld, headerFromWorld } from '../format/worldRecording.js';
import { World } from '../engine/world/world.js';
import { BATCH_COUNTERFACTUAL_TOTAL_WORK, Diagnoser, type Finding } from '../session/diagnose.js';
import { parseArgs, UsageError } from './args.js';
import { openRecordingForCli } from './openRecording.js';
import { printRecordingIssues } from './recordingIssues.js';
import { readText, type Output } from './solveCommand.js';

export const FAIL_ON = ['injection', 'non-physical', 'inconsistent', 'skipped-lines'] as const;
export type FailOn = (typeof FAIL_ON)[number];
export const DIAGNOSE_USAGE = `contact-lens diagnose <scene.json | rec.jsonl> [--json] [--fail-on ${FAIL_ON.join(',')}]`;

interface Source {
  readonly label: string;
  readonly diagnoser: Diagnoser;
  readonly frames: number;
  readonly skippedLines: number;
}

/** A CLI diagnosis is a batch job (CI): the larger re-solve budget; deterministic either way. */
const BATCH = { counterfactualTotalWork: BATCH_COUNTERFACTUAL_TOTAL_WORK } as const;

function fromScene(file: string, io: Output): Source[] {
  const { scenarios, warnings } = parseSceneFile(readText(file), file);
  for (const w of warnings) io.err(`warning: ${w.message}`);
  return scenarios.map((s) => {
    const world = new World(s.desc);
    const e = world.energy();
    const d = new Diagnoser(headerFromWorld(world), BATCH, e.kineticLinear + e.kineticRotational + e.potential);
    for (let k = 0; k < s.desc.frames; k++) d.add(frameFromWorld(world, world.step()));
    return { label: `${safePath(file)} / ${safeText(s.desc.name)}`, diagnoser: d, frames: s.desc.frames, skippedLines: 0 };
  });
}

function fromRecording(file: string, io: Output): Source[] {
  const reader = openRecordingForCli(file);
  try {
    // printed in every mode (stderr): a run that skipped 294 of 300 lines must say so, also with --json
    printRecordingIssues(reader, io);
    const d = new Diagnoser(reader.header, BATCH);
    for (let i = 0; i < reader.frameCount; i++) d.add(reader.frame(i));
    return [{ label: file, diagnoser: d, frames: reader.frameCount, skippedLines: reader.errorCount }];
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

const signed = (j: number): string => (j >= 0 ? '+' : '') + j.toPrecision(3);

function line(f: Finding): string {
  const where = f.contacts.length ? f.contacts.join(',') : '-';
  const joules = f.kind === 'injection' ? `${signed(f.joules)} J` : f.severity;
  return `  frame ${String(f.frame).padStart(5)}  contact ${where.padEnd(12)} ${f.mechanism.padEnd(24)} ${joules.padStart(10)}  ${f.inconsistent ? '[inconsistent data] ' : ''}${f.explanation}`;
}

export function runDiagnose(argv: readonly string[], io: Output): number {
  const { positionals, options } = parseArgs(argv, ['fail-on'], ['json']);
  if (positionals.length !== 1) throw new UsageError(`expected one scene or recording file\nusage: ${DIAGNOSE_USAGE}`);
  const failOn = parseFailOn(options.get('fail-on'));
  const file = positionals[0];
  const json = options.get('json') === true;
  const sources = /\.jsonl(\.gz)?$/.test(file) ? fromRecording(file, io) : fromScene(file, io);
  const counts = { injection: 0, 'non-physical': 0, inconsistent: 0, 'skipped-lines': 0 };
  for (const s of sources) {
    const d = s.diagnoser;
    counts['skipped-lines'] += s.skippedLines;
    for (const f of d.findings) counts[f.kind]++;
    if (json) {
      for (const f of d.findings) {
        io.out(
          JSON.stringify({
            source: s.label,
            frame: f.frame,
            time: f.time,
            kind: f.kind,
            severity: f.severity,
            contacts: f.contacts,
            mechanism: f.mechanism,
            joules: f.joules,
            ...(f.contactJoules ? { contactJoules: f.contactJoules } : {}),
            ...(f.counterfactual ? { counterfactual: f.counterfactual } : {}),
            ...(f.inconsistent ? { inconsistent: true } : {}),
            ...(f.writerBug ? { writerBug: f.writerBug } : {}),
            explanation: f.explanation,
          }),
        );
      }
      continue;
    }
    const inj = d.findings.filter((f) => f.kind === 'injection');
    const injected = inj.reduce((a, f) => a + f.joules, 0);
    const other = d.findings.length - inj.length;
    io.out(
      `${s.label}: ${s.frames} frames, ${d.findings.length === 0 ? 'no findings' : `${inj.length} injection finding(s) (${injected.toPrecision(3)} J in all), ${other} other finding(s)`}`,
    );
    if (d.consistency)
      io.out(
        `  inconsistent recording: ${d.consistency.frames} of ${d.consistency.checked} checked frames fail Δv = M⁻¹Jᵀλ, first at frame ${d.consistency.firstFrame}: ${d.consistency.text}`,
      );
    for (const f of d.findings) io.out(line(f));
    if (d.cost.frames > 0)
      io.out(
        `  counterfactual re-solves: ${d.cost.islands} island(s) in ${d.cost.frames} frame(s), ${d.cost.ms.toFixed(0)} ms${d.cost.exhaustedAt === null ? '' : `; the re-solve budget ran out at frame ${d.cost.exhaustedAt} (later frames are attributed from the ledger alone)`}`,
      );
  }
  for (const k of failOn) if (counts[k] > 0) return 1;
  return 0;
}
