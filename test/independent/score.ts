// Scores Contact Lens' diagnosis, used as a black box (`node dist/cli.js diagnose --json`), on the planted
// set: per mechanism, how many planted faults were found at the right frame, with the right contacts and the
// right mechanism; what was named instead; and every finding a clean file got. Always exits 0 (a report).
//
//   npx tsx test/independent/score.ts [--out DIR] [--check]
//
// --out DIR keeps the recordings in DIR (default: a temporary folder); --check also runs `report --check`
// on every file and lists the files whose writer checks fail. Needs `npm run build` (dist/cli.js).

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { generatePlantedSet, type Manifest, type PlantedFault } from './generate.js';
import type { Mechanism } from './runner.js';

const run = promisify(execFile);

/** One line of `diagnose --json` (the fields the scorer reads). */
export interface Finding {
  frame: number;
  kind: string;
  severity: string;
  contacts: number[];
  mechanism: string | null;
  joules: number | null;
}

export interface PlantScore {
  file: string;
  planted: PlantedFault;
  /** an injection finding at the planted frame */
  frame: boolean;
  /** …whose largest one lists every planted contact */
  contacts: boolean;
  /** …and names the planted mechanism */
  mechanism: boolean;
  /** injection findings before the planted frame */
  earlier: number;
  /** what the largest injection finding at the frame named when it is not right (or what happened instead) */
  instead: string | null;
}

export interface CleanScore {
  file: string;
  findings: Finding[];
}

export interface ScoreReport {
  plants: PlantScore[];
  clean: CleanScore[];
}

export const MECHANISMS: Mechanism[] = [
  'restitution-overshoot',
  'bias-injection',
  'overlap-push-out',
  'non-converged-solve',
  'friction-positive-work',
  'socp-separation',
  'position-correction',
  'integrator-drift',
];

const describe = (f: Finding): string => `${f.kind === 'injection' ? '' : `${f.kind} `}${f.mechanism ?? '(none)'} [${f.contacts.join(',')}]`;

function scoreOne(file: string, p: PlantedFault, findings: Finding[]): PlantScore {
  const injections = findings.filter((f) => f.kind === 'injection');
  const atFrame = injections.filter((f) => f.frame === p.frame);
  const earlier = injections.filter((f) => f.frame < p.frame).length;
  const top = atFrame.reduce<Finding | null>((best, f) => (best === null || (f.joules ?? 0) > (best.joules ?? 0) ? f : best), null);
  const frame = top !== null;
  const contacts = top !== null && p.contacts.every((c) => top.contacts.includes(c));
  const mechanism = contacts && top?.mechanism === p.mechanism;
  let instead: string | null = null;
  if (!mechanism) {
    if (top) instead = `${describe(top)}${contacts ? '' : ' (misses planted contacts)'}`;
    else {
      const other = findings.filter((f) => f.frame === p.frame);
      const first = injections[0];
      if (other.length > 0) instead = `no injection at k; ${other.map(describe).join('; ')}`;
      else if (first) instead = `nothing at k; first injection frame ${first.frame}: ${describe(first)}`;
      else instead = 'nothing';
    }
  }
  return { file, planted: p, frame, contacts, mechanism, earlier, instead };
}

/** Scores the diagnosis of every file of the manifest (findings keyed by file name). */
export function scorePlanted(manifest: Manifest, findingsPerFile: ReadonlyMap<string, Finding[]> | Record<string, Finding[]>): ScoreReport {
  const get = (file: string): Finding[] =>
    (findingsPerFile instanceof Map ? findingsPerFile.get(file) : (findingsPerFile as Record<string, Finding[]>)[file]) ?? [];
  const plants: PlantScore[] = [];
  const clean: CleanScore[] = [];
  for (const m of manifest) {
    if (m.clean) clean.push({ file: m.file, findings: get(m.file) });
    for (const p of m.planted) plants.push(scoreOne(m.file, p, get(m.file)));
  }
  return { plants, clean };
}

const pad = (s: string | number, n: number): string => String(s).padEnd(n);

/** The table, as printed by the command line. */
export function formatReport(r: ScoreReport): string {
  const lines: string[] = [];
  lines.push(`${pad('mechanism', 24)}${pad('planted', 9)}${pad('frame', 7)}${pad('+contacts', 11)}${pad('+mechanism', 12)}earlier findings`);
  const total = { n: 0, f: 0, c: 0, m: 0, e: 0 };
  for (const mech of MECHANISMS) {
    const ps = r.plants.filter((p) => p.planted.mechanism === mech);
    const n = ps.length;
    const f = ps.filter((p) => p.frame).length;
    const c = ps.filter((p) => p.contacts).length;
    const m = ps.filter((p) => p.mechanism).length;
    const e = ps.filter((p) => p.earlier > 0).length;
    Object.assign(total, { n: total.n + n, f: total.f + f, c: total.c + c, m: total.m + m, e: total.e + e });
    lines.push(`${pad(mech, 24)}${pad(n, 9)}${pad(f, 7)}${pad(c, 11)}${pad(m, 12)}${e}`);
  }
  lines.push(`${pad('all', 24)}${pad(total.n, 9)}${pad(total.f, 7)}${pad(total.c, 11)}${pad(total.m, 12)}${total.e}`);
  lines.push('', 'named instead (planted mechanism ← what the largest injection finding at frame k said):');
  for (const mech of MECHANISMS) {
    const counts = new Map<string, number>();
    for (const p of r.plants)
      if (p.planted.mechanism === mech && p.instead)
        counts.set(p.instead.replace(/\[[^\]]*\]/g, '[…]'), (counts.get(p.instead.replace(/\[[^\]]*\]/g, '[…]')) ?? 0) + 1);
    for (const [what, n] of counts) lines.push(`  ${pad(mech, 24)}← ${n}× ${what}`);
  }
  lines.push('', 'per planted file (✓ frame / contacts / mechanism):');
  for (const p of r.plants) {
    const mark = (b: boolean) => (b ? '✓' : '✗');
    const q = p.planted;
    lines.push(
      `  ${mark(p.frame)}${mark(p.contacts)}${mark(p.mechanism)} ${pad(p.file, 62)} k=${q.frame} [${q.contacts.join(',')}] ${q.joules.toFixed(3)} J${p.earlier ? `, ${p.earlier} earlier` : ''}${p.instead ? ` → ${p.instead}` : ''}`,
    );
  }
  lines.push('', 'clean files (findings they got):');
  for (const c of r.clean)
    lines.push(`  ${pad(c.file, 52)} ${c.findings.length === 0 ? 'none' : c.findings.map((f) => `frame ${f.frame}: ${describe(f)}`).join('; ')}`);
  return lines.join('\n');
}

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');

/** Runs the CLI as a user would; stdout's JSON lines (exit codes other than 0 still carry findings). */
async function cli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { maxBuffer: 1 << 28 });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: typeof e.code === 'number' ? e.code : 1 };
  }
}

export function parseFindings(stdout: string): Finding[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Finding);
}

async function pool<T, R>(items: T[], width: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outIdx = args.indexOf('--out');
  const dir = outIdx >= 0 && args[outIdx + 1] ? resolve(args[outIdx + 1]) : mkdtempSync(join(tmpdir(), 'contact-lens-planted-'));
  if (!existsSync(CLI)) {
    console.log(`${CLI} is missing: run \`npm run build\` first.`);
    return;
  }
  const t0 = Date.now();
  const manifest = generatePlantedSet(dir);
  const tGen = Date.now() - t0;
  const findings = new Map<string, Finding[]>();
  const stderrs: string[] = [];
  await pool(manifest, 2, async (m) => {
    const r = await cli(['diagnose', '--json', join(dir, m.file)]);
    findings.set(m.file, parseFindings(r.stdout));
    if (r.stderr.trim()) stderrs.push(`${m.file}: ${r.stderr.trim().split('\n').join(' | ')}`);
  });
  const tDiag = Date.now() - t0 - tGen;
  const planted = manifest.filter((m) => !m.clean).length;
  console.log(
    `${manifest.length} recordings in ${dir} (${planted} planted, ${manifest.length - planted} clean), generated in ${(tGen / 1000).toFixed(1)} s, diagnosed in ${(tDiag / 1000).toFixed(1)} s`,
  );
  console.log('');
  console.log(formatReport(scorePlanted(manifest, findings)));
  if (stderrs.length > 0) console.log(['', 'diagnose stderr:', ...stderrs.map((s) => `  ${s}`)].join('\n'));
  if (args.includes('--check')) {
    const failures: string[] = [];
    await pool(manifest, 2, async (m) => {
      const r = await cli(['report', '--check', join(dir, m.file)]);
      // `report --check` exits 1 when a writer check fails (docs/engine-authors.md); list its non-ok check lines
      const checks = r.stdout.split('writer checks')[1] ?? '';
      const bad = checks.split('\n').filter((l) => /^\s{2}\S/.test(l) && !/^\s{2}(ok|n\/a)\s/.test(l));
      if (r.code !== 0) failures.push(`${m.file} (exit ${r.code}): ${[...bad.map((l) => l.trim()), r.stderr.trim()].filter(Boolean).join(' | ')}`);
    });
    console.log(
      [
        '',
        `report --check: ${failures.length === 0 ? 'every file passes the writer checks' : `${failures.length} files rejected`}`,
        ...failures.map((f) => `  ${f}`),
      ].join('\n'),
    );
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.log(`score: ${(err as Error).message}`);
  });
}
