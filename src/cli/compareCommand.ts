/** `contact-lens compare <scene.json> [--scenario NAME] [--engines LIST] [--frames N] [--out DIR] [--json]` */
import { parseSceneFile, type ParsedScenario } from '../format/scene.js';
import { compareEngines, type EngineRow, type EngineTable } from '../session/engines/engineTable.js';
import { ENGINE_NAMES, type EngineName } from '../session/engines/types.js';
import { BATCH_DIAGNOSIS } from '../session/diagnosisRun.js';
import { safeText } from '../format/messages.js';
import { parseArgs, UsageError } from './args.js';
import { readInputText, type Output } from './output.js';
import { requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { parsePositiveInt, pickScenario } from './simulateCommand.js';
import { formatNumber, formatSigned } from '../engine/index.js';

export const COMPARE_HELP: CommandHelp = {
  command: 'compare',
  synopsis: `compare <scene.json> [--scenario NAME] [--engines ${ENGINE_NAMES.join(',')}] [--frames N] [--out DIR] [--json]`,
  summary: "runs a scene's scenarios in five engines and prints one row per engine",
  description: [
    'Runs each scenario of a scene file in our engine, cannon-es, Rapier, Jolt and MuJoCo (the others are optional',
    'packages: an absent one is reported in its row) and prints per engine: the energy drift, the joules injected by',
    'mechanism (the diagnosis), the deepest penetration, jitter, friction-cone violations, iterations, the step time and',
    "where the engine's run first parts from ours (diff). Every run is written as a recording (docs/compare.md).",
    'Exit 0 when every available engine ran, 1 when one failed, 2 on bad input.',
  ],
  options: [
    ['--scenario NAME', 'only this scenario (default: every scenario of the file)'],
    ['--engines LIST', `a comma-separated list of ${ENGINE_NAMES.join(', ')} (default: all)`],
    ['--frames N', "frames to run (default: the scenario's)"],
    ['--out DIR', 'write the recordings into DIR as <scenario>.<engine>.rec.jsonl (default: a temporary folder); existing ones are replaced'],
    ['--json', 'one JSON object per scenario: the rows with every figure'],
  ],
  example: 'compare examples/box-stack-10.scene.json',
};

function parseEngines(v: string | true | undefined): readonly EngineName[] {
  if (v === undefined) return ENGINE_NAMES;
  const list = v === true ? [] : v.split(',').map((s) => s.trim());
  const bad = list.find((e) => !(ENGINE_NAMES as readonly string[]).includes(e));
  if (bad !== undefined || list.length === 0)
    throw new UsageError(`--engines must be a comma-separated list of ${ENGINE_NAMES.join(', ')} (got ${safeText(String(v))})`);
  return [...new Set(list)] as EngineName[];
}

const pad = (s: string, n: number): string => (s.length >= n ? `${s} ` : s.padEnd(n));

function rowText(r: EngineRow, w: number): string {
  const s = r.stats;
  if (!s) return `${pad(r.title, w)}${r.status}: ${r.error ?? ''}`;
  const d =
    r.engine === 'ours'
      ? '—'
      : r.divergence === undefined
        ? '?'
        : r.divergence === null
          ? 'never'
          : `frame ${r.divergence.frame}: ${r.divergence.kind} (${r.divergence.field})`;
  const fitted = s.lambda.tangent === 'fitted' ? '*' : '';
  return [
    pad(r.title, w),
    pad(formatSigned(s.energyDrift), 10),
    pad(formatNumber(s.injectedTotal), 12),
    pad(formatNumber(1000 * s.maxPenetration), 13),
    pad(String(s.jitter), 8),
    pad(`${s.coneViolations}${fitted}`, 12),
    pad(`${formatNumber(s.iterationsMean)} / ${s.iterationsMax}`, 16),
    pad(formatNumber(s.stepMs), 9),
    d,
  ].join('');
}

export function tableText(t: EngineTable, where: string): string[] {
  const w = Math.max(12, ...t.rows.map((r) => r.title.length + 2));
  const out = [
    `${t.scenario} (${where}): ${t.frames} frames, E₀ = ${formatNumber(t.initialEnergy, 6)} J; recordings in ${t.dir}`,
    `${pad('engine', w)}${pad('ΔE J', 10)}${pad('injected J', 12)}${pad('max pen. mm', 13)}${pad('jitter', 8)}${pad('cone viol.', 12)}${pad('iter. mean/max', 16)}${pad('step ms', 9)}parts from ours`,
    ...t.rows.map((r) => rowText(r, w)),
  ];
  const injected = t.rows.filter((r) => r.stats && r.stats.injectedTotal > 0);
  if (injected.length) {
    out.push('injected by mechanism (the diagnosis, docs/physics.md "Diagnosis"):');
    for (const r of injected)
      out.push(
        `  ${r.title}: ${Object.entries(r.stats!.injected)
          .sort((a, b) => b[1] - a[1])
          .map(([m, j]) => `${m} ${formatNumber(j)} J`)
          .join(', ')}`,
      );
  }
  if (t.rows.some((r) => r.stats?.lambda.tangent === 'fitted'))
    out.push("* friction impulses fitted to the engine's velocity change (the binding hides them): their cone violations are not the engine's");
  for (const r of t.rows) for (const n of r.notes) out.push(`note: ${r.title}: ${n}`);
  return out;
}

export function tableJson(t: EngineTable): Record<string, unknown> {
  return {
    scenario: t.scenario,
    frames: t.frames,
    initialEnergy: t.initialEnergy,
    recordings: t.dir,
    engines: t.rows.map((r) => ({
      engine: r.engine,
      title: r.title,
      status: r.status,
      ...(r.error ? { error: r.error } : {}),
      ...(r.stats ? { ...r.stats, lambdaSource: r.stats.lambda, lambda: undefined } : {}),
      ...(r.recording ? { recording: r.recording } : {}),
      ...(r.divergence !== undefined ? { divergence: r.divergence } : {}),
      notes: r.notes,
    })),
  };
}

export async function runCompare(argv: readonly string[], io: Output): Promise<number> {
  const { positionals, options } = parseArgs(argv, ['scenario', 'engines', 'frames', 'out'], ['json']);
  if (positionals.length !== 1) throw new UsageError(`expected one scene file\nusage: contact-lens ${COMPARE_HELP.synopsis}`);
  const file = positionals[0];
  requireKind(file, 'compare', ['scene']);
  const engines = parseEngines(options.get('engines'));
  const frames = parsePositiveInt(options.get('frames'), 'frames');
  const out = options.get('out');
  if (out === true) throw new UsageError('--out needs a folder');
  const { scenarios, warnings } = parseSceneFile(readInputText(file), file);
  for (const w of warnings) io.err(`warning: ${w.message}`);
  const name = options.get('scenario');
  const picked: ParsedScenario[] = name === undefined ? [...scenarios] : [pickScenario(scenarios, typeof name === 'string' ? name : undefined, file)];
  let failed = false;
  for (const s of picked) {
    let last = '';
    const t = await compareEngines(s.desc, {
      engines,
      diagnosis: BATCH_DIAGNOSIS,
      ...(frames !== undefined ? { frames } : {}),
      ...(typeof out === 'string' ? { dir: out } : {}),
      onProgress: (engine, fraction) => {
        const msg = `compare ${s.desc.name}: ${engine} ${Math.round(100 * fraction)}%`;
        if (fraction >= 1 && msg !== last) io.err(msg);
        last = msg;
      },
    });
    failed ||= t.rows.some((r) => r.status === 'failed');
    if (options.get('json')) io.out(JSON.stringify(tableJson(t)));
    else for (const l of tableText(t, `${file}:${s.range.line}`)) io.out(l);
  }
  return failed ? 1 : 0;
}
