/** `contact-lens simulate <scene.json> [--scenario NAME] [--solver …] [--frames N] --out rec.jsonl [--gzip] [--force]` */
import { MAX_SCENE_FRAMES, parseSceneFile, type ParsedScenario } from '../format/scene.js';
import { safeText } from '../format/messages.js';
import { RecordingWriter } from '../format/recordingFile.js';
import { frameFromWorld, headerFromWorld } from '../format/worldRecording.js';
import { World } from '../engine/world/world.js';
import { SOLVER_NAMES, type SolverName } from '../engine/solvers/types.js';
import type { ScenarioDesc } from '../engine/world/types.js';
import { existsSync } from 'node:fs';
import { oneOf, parseArgs, UsageError } from './args.js';
import { readText, type Output } from './solveCommand.js';
import { checkOutputTarget, withFileErrors } from './output.js';
import { requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { formatCount, formatNumber } from '../engine/numberText.js';

export const SIMULATE_HELP: CommandHelp = {
  command: 'simulate',
  synopsis: `simulate <scene.json> --out rec.jsonl [--scenario NAME] [--solver ${SOLVER_NAMES.join('|')}] [--frames N] [--gzip] [--force]`,
  summary: 'runs one scenario of a scene file and writes its recording',
  description: [
    'Runs a scenario of a scene file (docs/scene-format.md) and writes every frame to a recording',
    '(docs/recording-format.md); progress on stderr. Never overwrites a file unless --force is given.',
  ],
  options: [
    ['--out FILE', 'the recording to write (required); a name ending in .gz is written as blocked gzip'],
    ['--scenario NAME', 'the scenario to run (needed when the file holds several)'],
    ['--solver NAME', `run with ${SOLVER_NAMES.join(', ')} instead of the scenario's own solver`],
    ['--frames N', "how many frames to simulate (default: the scenario's frames)"],
    ['--gzip', 'write blocked gzip (BGZF), which the inspector opens and seeks frame by frame'],
    ['--force', 'replace an existing output file'],
  ],
  example: 'simulate examples/box-stack-10.scene.json --out box-stack-10.rec.jsonl',
};

/** Picks one scenario by name (or the only one), naming the choices when that is ambiguous. */
export function pickScenario(scenarios: readonly ParsedScenario[], name: string | undefined, file: string): ParsedScenario {
  if (name !== undefined) {
    const s = scenarios.find((x) => x.desc.name === name);
    if (!s) throw new UsageError(`${file}: no scenario named "${safeText(name)}" (scenarios: ${scenarios.map((x) => safeText(x.desc.name)).join(', ')})`);
    return s;
  }
  if (scenarios.length !== 1)
    throw new UsageError(
      `${file} holds ${formatCount(scenarios.length, 'scenario')}; choose one with --scenario (${scenarios.map((x) => safeText(x.desc.name)).join(', ')})`,
    );
  return scenarios[0];
}

export function withOverrides(desc: ScenarioDesc, solver: SolverName | undefined, frames: number | undefined): ScenarioDesc {
  return {
    ...desc,
    frames: frames ?? desc.frames,
    config: solver && solver !== desc.config.solver.solver ? { ...desc.config, solver: { solver } } : desc.config,
  };
}

export function parsePositiveInt(v: string | true | undefined, name: string, max = MAX_SCENE_FRAMES): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v === true || !Number.isInteger(n) || n < 1 || n > max)
    throw new UsageError(`--${name} must be an integer from 1 to ${max} (got ${safeText(String(v))})`);
  return n;
}

export function runSimulate(argv: readonly string[], io: Output): number {
  const { positionals, options } = parseArgs(argv, ['scenario', 'solver', 'frames', 'out'], ['force', 'gzip']);
  const usage = `usage: contact-lens ${SIMULATE_HELP.synopsis}`;
  if (positionals.length !== 1) throw new UsageError(`expected one scene file\n${usage}`);
  const out = options.get('out');
  if (typeof out !== 'string') throw new UsageError(`--out rec.jsonl is required\n${usage}`);
  const file = positionals[0];
  requireKind(file, 'simulate', ['scene']);
  const solver = options.has('solver') ? oneOf(options.get('solver'), SOLVER_NAMES, 'solver', 'newton') : undefined;
  const frames = parsePositiveInt(options.get('frames'), 'frames');
  const scenarioName = options.get('scenario');
  const { scenarios, warnings } = parseSceneFile(readText(file), file);
  const picked = pickScenario(scenarios, typeof scenarioName === 'string' ? scenarioName : undefined, file);
  for (const w of warnings) io.err(`warning: ${w.message}`);
  checkOutputTarget(out);
  if (existsSync(out) && !options.get('force')) throw new UsageError(`${out}: already exists; refusing to overwrite it (use --force to replace it)`);
  const desc = withOverrides(picked.desc, solver, frames);
  const world = new World(desc);
  // blocked gzip when asked, or when the name says .gz (a plain file named .gz would puzzle every tool)
  const gzip = options.get('gzip') === true || out.endsWith('.gz');
  // every write goes through withFileErrors: ENOENT/EACCES/EISDIR/ENOSPC become one line naming the file (exit 2)
  const writer = withFileErrors(out, 'write', () => RecordingWriter.create(out, headerFromWorld(world), { force: options.get('force') === true, gzip }));
  const t0 = performance.now();
  let nextReport = 0;
  try {
    for (let k = 0; k < desc.frames; k++) {
      const f = world.step();
      withFileErrors(out, 'write', () => writer.writeFrame(frameFromWorld(world, f)));
      const pct = Math.floor((100 * (k + 1)) / desc.frames);
      if (pct >= nextReport) {
        io.err(`simulate ${desc.name}: frame ${k + 1}/${desc.frames} (${pct}%)`);
        nextReport = pct + 10;
      }
    }
  } finally {
    withFileErrors(out, 'write', () => writer.close());
  }
  const ms = performance.now() - t0;
  io.err(
    `wrote ${formatCount(desc.frames, 'frame')} to ${out} in ${formatNumber(ms / 1000)} s (${formatNumber(ms / desc.frames)} ms per frame, solver ${desc.config.solver.solver})`,
  );
  return 0;
}
