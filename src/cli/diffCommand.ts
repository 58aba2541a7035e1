/** `contact-lens diff <a.rec.jsonl> <b.rec.jsonl> [--json] [--tolerance REL] [--exact]` */
import { compareFiles } from '../session/compare/compareFiles.js';
import { diffJson } from '../session/compare/diffJson.js';
import type { GrowthEntry, RunDiff, UnmatchedFrames } from '../session/compare/runComparison.js';
import { DEFAULT_RELATIVE_TOLERANCE, type DiffTolerance } from '../session/compare/tolerance.js';
import { safeText } from '../format/messages.js';
import { parseArgs, UsageError } from './args.js';
import type { Output } from './output.js';
import { requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { formatCount, formatNumber } from '../engine/index.js';

export const DIFF_HELP: CommandHelp = {
  command: 'diff',
  synopsis: 'diff <a.rec.jsonl> <b.rec.jsonl> [--json] [--tolerance REL] [--exact]',
  summary: 'finds the first frame where two recordings part, the contacts involved and why',
  description: [
    'Aligns two recordings by time (bodies by name, contacts by body pair and feature, else nearest point),',
    'finds the first frame where they differ and classifies it: contact-set (a contact in one run only),',
    'problem (other contact data, A or b), solve (the same problem, another λ: which run solved it better) or',
    'state (the same λ, another post-step state); then how the difference grows and when each body first',
    'differs (docs/compare.md). Exit 0 when they do not diverge, 1 when they do, 2 on bad input.',
  ],
  options: [
    ['--json', 'one JSON object: framesCompared, firstDivergence (or null) and growth'],
    ['--tolerance REL', `relative tolerance of each quantity's scale (default ${DEFAULT_RELATIVE_TOLERANCE})`],
    ['--exact', 'bitwise: any differing bit is a divergence, sizes in units in the last place (ULPs)'],
  ],
  example: 'diff examples/foreign-engine.rec.jsonl examples/foreign-engine-rerun.rec.jsonl',
};

/** The frames the growth table shows: the divergence, then 1, 2, 4, 8, … frames after it, and the last. */
export function logSpacedRows(growth: readonly GrowthEntry[]): GrowthEntry[] {
  const out: GrowthEntry[] = [];
  for (let k = 0; k < growth.length; k = k === 0 ? 1 : 2 * k) out.push(growth[k]);
  if (growth.length > 1 && out[out.length - 1] !== growth[growth.length - 1]) out.push(growth[growth.length - 1]);
  return out;
}

/** A bar of 2 characters per decade of the relative difference above 1e-16 (its log scale). */
export function logBar(relative: number): string {
  if (!(relative > 0)) return '';
  const decades = Math.max(0, Math.min(18, Math.log10(relative) + 16));
  return '█'.repeat(Math.round(2 * decades));
}

const t = (x: number): string => formatNumber(x, 4);

function unmatchedLine(name: string, u: UnmatchedFrames): string | null {
  return u.count ? `frames only in ${name}: ${u.count} (t = ${t(u.first!)} … ${t(u.last!)} s)` : null;
}

export function diffText(d: RunDiff, fileA: string, fileB: string): string[] {
  const out: string[] = [`a: ${fileA}`, `b: ${fileB}`, ...d.notes.map((n) => `  ${n}`)];
  const tol = d.tolerance.exact ? 'bitwise (--exact)' : `relative ${d.tolerance.relative} of each quantity's scale`;
  out.push(`compared ${formatCount(d.framesCompared, 'frame')} at the same times; tolerance ${tol}`);
  for (const l of [unmatchedLine('a', d.onlyA), unmatchedLine('b', d.onlyB)]) if (l) out.push(l);
  const f = d.firstDivergence;
  if (!f) {
    out.push('no divergence: every compared frame agrees');
    return out;
  }
  const frames = f.frame === f.frameB ? `frame ${f.frame}` : `frame ${f.frame} of a, ${f.frameB} of b`;
  out.push(`first divergence: ${frames} (t = ${t(f.time)} s): ${f.kind} — ${f.field}`);
  if (f.bodies.length) out.push(`  bodies: ${f.bodies.slice(0, 12).join(', ')}${f.bodies.length > 12 ? `, … (${f.bodies.length})` : ''}`);
  if (f.contacts.length)
    out.push(`  contacts (b's indices): ${f.contacts.slice(0, 16).join(', ')}${f.contacts.length > 16 ? `, … (${f.contacts.length})` : ''}`);
  for (const l of f.lines) out.push(`  ${l}`);
  out.push('growth of the state difference (largest over the bodies; bar: log scale, 2 characters per decade above 1e-16):');
  out.push(
    `  ${'frame'.padEnd(8)}${'time s'.padEnd(10)}${'Δx m'.padEnd(11)}${'Δq rad'.padEnd(11)}${'Δv m/s'.padEnd(11)}${'Δω rad/s'.padEnd(11)}${'relative'.padEnd(11)}`,
  );
  for (const g of logSpacedRows(d.growth))
    out.push(
      `  ${String(g.frame).padEnd(8)}${t(g.time).padEnd(10)}${formatNumber(g.x).padEnd(11)}${formatNumber(g.q).padEnd(11)}${formatNumber(g.v).padEnd(11)}${formatNumber(g.w).padEnd(11)}${formatNumber(g.relative).padEnd(11)}${logBar(g.relative)}`,
    );
  if (d.bodies.length) {
    out.push('first differing frame per body:');
    const shown = d.bodies.slice(0, 20).map((b) => `${b.body} ${b.frame}`);
    out.push(`  ${shown.join(', ')}${d.bodies.length > 20 ? `, … (${d.bodies.length} bodies)` : ''}`);
  }
  return out;
}

export function parseTolerance(options: Map<string, string | true>): DiffTolerance {
  const exact = options.get('exact') === true;
  const raw = options.get('tolerance');
  if (raw === undefined) return { relative: DEFAULT_RELATIVE_TOLERANCE, exact };
  if (exact) throw new UsageError('--tolerance and --exact exclude each other (--exact compares bit for bit)');
  const v = Number(raw);
  if (raw === true || !Number.isFinite(v) || v < 0) throw new UsageError(`--tolerance must be a number ≥ 0, e.g. 1e-9 (got ${safeText(String(raw))})`);
  return { relative: v, exact: false };
}

export function runDiff(argv: readonly string[], io: Output): number {
  const { positionals, options } = parseArgs(argv, ['tolerance'], ['json', 'exact']);
  if (positionals.length !== 2) throw new UsageError(`expected two recordings\nusage: contact-lens ${DIFF_HELP.synopsis}`);
  const [a, b] = positionals;
  requireKind(a, 'diff', ['recording']);
  requireKind(b, 'diff', ['recording']);
  const tolerance = parseTolerance(options);
  let d: RunDiff;
  try {
    d = compareFiles(a, b, { tolerance });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code)
      throw new UsageError(`${(e as NodeJS.ErrnoException).path ?? `${a} or ${b}`}: cannot read the file (${code === 'ENOENT' ? 'no such file' : code})`);
    throw e;
  }
  if (d.framesCompared === 0) throw new UsageError(`${a} and ${b} have no frame at the same time: nothing to compare`);
  if (options.get('json')) {
    io.out(JSON.stringify(diffJson(d)));
    for (const l of [unmatchedLine('a', d.onlyA), unmatchedLine('b', d.onlyB)]) if (l) io.err(l);
  } else for (const l of diffText(d, a, b)) io.out(l);
  return d.firstDivergence ? 1 : 0;
}
