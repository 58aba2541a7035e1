/** `contact-lens simulate <scene.json> [--scenario NAME] [--engine …] [--solver …] [--frames N] --out rec.jsonl [--gzip] [--force]` */
import { MAX_SCENE_FRAMES, parseSceneFile, type ParsedScenario } from '../format/scene.js';
import { safePath, safeText } from '../format/messages.js';
import { RecordingWriter } from '../format/recordingFile.js';
import { formatCount, formatNumber, type ScenarioDesc, SOLVER_NAMES, type SolverName } from '../engine/index.js';
import { oneOf, parseArgs, UsageError } from './args.js';
import { OutputFile, readInputText, withFileErrors, type Output } from './output.js';
import { requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { ENGINE_NAMES, type EngineName } from '../session/engines/types.js';
import { startEngineRun, startOurRun, type EngineRun } from '../session/engines/engineRun.js';
import { EngineUnavailableError } from '../session/engines/enginePackages.js';
import { blowUpMessage } from '../session/runScenario.js';

/** The simulation loop gives the event loop a turn at least this often (ms). */
const YIELD_MS = 50;

export const SIMULATE_HELP: CommandHelp = {
  command: 'simulate',
  synopsis: `simulate <scene.json> --out rec.jsonl [--scenario NAME] [--engine ${ENGINE_NAMES.join('|')}] [--solver ${SOLVER_NAMES.join('|')}] [--frames N] [--gzip] [--force]`,
  summary: 'runs one scenario of a scene file (in our engine or another) and writes its recording',
  description: [
    'Runs a scenario of a scene file (docs/scene-format.md) and writes every frame to a recording',
    '(docs/recording-format.md); progress on stderr. Never overwrites a file unless --force is given.',
    'With --engine the scenario runs in cannon-es, Rapier, Jolt or MuJoCo (optional packages, docs/compare.md).',
  ],
  options: [
    ['--out FILE', 'the recording to write (required); a name ending in .gz is written as blocked gzip'],
    ['--scenario NAME', 'the scenario to run (needed when the file holds several)'],
    ['--engine NAME', `the engine: ${ENGINE_NAMES.join(', ')} (default ours)`],
    ['--solver NAME', `run with ${SOLVER_NAMES.join(', ')} instead of the scenario's own solver (our engine)`],
    ['--iterations N', "the engine's velocity iterations (other engines; default: the engine's own)"],
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
    if (!s)
      throw new UsageError(`${safePath(file)}: no scenario named "${safeText(name)}" (scenarios: ${scenarios.map((x) => safeText(x.desc.name)).join(', ')})`);
    return s;
  }
  if (scenarios.length !== 1)
    throw new UsageError(
      `${safePath(file)} holds ${formatCount(scenarios.length, 'scenario')}; choose one with --scenario (${scenarios.map((x) => safeText(x.desc.name)).join(', ')})`,
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

/** Async so that Ctrl-C is handled while it runs (the event loop is given a turn every YIELD_MS): see OutputFile. */
export async function runSimulate(argv: readonly string[], io: Output): Promise<number> {
  const { positionals, options } = parseArgs(argv, ['scenario', 'solver', 'frames', 'out', 'engine', 'iterations'], ['force', 'gzip']);
  const usage = `usage: contact-lens ${SIMULATE_HELP.synopsis}`;
  if (positionals.length !== 1) throw new UsageError(`expected one scene file\n${usage}`);
  const out = options.get('out');
  if (typeof out !== 'string') throw new UsageError(`--out rec.jsonl is required\n${usage}`);
  const file = positionals[0];
  requireKind(file, 'simulate', ['scene']);
  const solver = options.has('solver') ? oneOf(options.get('solver'), SOLVER_NAMES, 'solver', 'newton') : undefined;
  const frames = parsePositiveInt(options.get('frames'), 'frames');
  const engine = oneOf(options.get('engine'), ENGINE_NAMES, 'engine', 'ours');
  if (engine !== 'ours' && solver) throw new UsageError(`--solver chooses one of our solvers; ${engine} runs its own (omit --solver, or use --engine ours)`);
  const iterations = parsePositiveInt(options.get('iterations'), 'iterations', 100000);
  if (engine === 'ours' && iterations !== undefined)
    throw new UsageError("--iterations sets another engine's iterations; for ours give the scenario a solver block (or --solver)");
  const scenarioName = options.get('scenario');
  const { scenarios, warnings } = parseSceneFile(readInputText(file), file);
  const picked = pickScenario(scenarios, typeof scenarioName === 'string' ? scenarioName : undefined, file);
  for (const w of warnings) io.err(`warning: ${w.message}`);
  const desc = withOverrides(picked.desc, solver, frames);
  // not the scene file (device and inode), --force to replace; written under a temporary name, renamed when complete
  const target = new OutputFile(out, options.get('force') === true, [file]);
  // blocked gzip when asked, or when the name says .gz (a plain file named .gz would puzzle every tool)
  const gzip = options.get('gzip') === true || out.endsWith('.gz');
  let run: EngineRun;
  try {
    // our engine at once; another is loaded first (its WebAssembly starts asynchronously)
    run = engine === 'ours' ? startOurRun(desc) : await startRun(engine, desc, iterations);
  } catch (e) {
    target.abandon();
    throw e;
  }
  return writeRun(run, desc, { file, out, target, gzip }, io);
}

/** The run of the engine, with a missing engine as one line of bad input. */
async function startRun(engine: EngineName, desc: ScenarioDesc, iterations: number | undefined): Promise<EngineRun> {
  try {
    return await startEngineRun(engine, desc, iterations !== undefined ? { iterations } : {});
  } catch (e) {
    if (e instanceof EngineUnavailableError) throw new UsageError(e.message);
    throw e;
  }
}

async function writeRun(
  run: EngineRun,
  desc: ScenarioDesc,
  to: { readonly file: string; readonly out: string; readonly target: OutputFile; readonly gzip: boolean },
  io: Output,
): Promise<number> {
  const { file, out, target, gzip } = to;
  // every write goes through withFileErrors: ENOENT/EACCES/EISDIR/ENOSPC become one line naming the file (exit 2)
  let writer: RecordingWriter;
  try {
    writer = withFileErrors(out, 'write', () => RecordingWriter.create(target.tempPath, run.header, { gzip, name: out }));
  } catch (e) {
    target.abandon();
    run.dispose();
    throw e;
  }
  for (const n of run.notes) io.err(`note: ${run.engine}: ${n}`);
  const t0 = performance.now();
  let nextReport = 0,
    stepMs = 0,
    lastYield = performance.now();
  try {
    for (let k = 0; k < run.frames; k++) {
      if (performance.now() - lastYield > YIELD_MS) {
        await new Promise((r) => setImmediate(r)); // a pending SIGINT/SIGTERM runs here: the temporary file is removed
        lastYield = performance.now();
      }
      const next = run.next();
      if (!next) break; // blown up: the frames before it are kept
      stepMs += next.stepMs;
      withFileErrors(out, 'write', () => writer.writeFrame(next.frame));
      const pct = Math.floor((100 * (k + 1)) / run.frames);
      if (pct >= nextReport) {
        io.err(`simulate ${desc.name}: frame ${k + 1}/${run.frames} (${pct}%)`);
        nextReport = pct + 10;
      }
    }
    withFileErrors(out, 'write', () => writer.close());
    target.commit();
  } catch (e) {
    try {
      writer.close();
    } catch {
      // the write already failed: its error is the one to report
    }
    target.abandon(); // no partial recording is left behind; an existing one stays as it was
    throw e;
  } finally {
    run.dispose();
  }
  const ms = performance.now() - t0;
  if (run.blowUp) {
    io.err(
      `contact-lens: ${safePath(file)}: scenario ${safeText(desc.name)}: ${blowUpMessage(run.blowUp)}; wrote the ${writer.frameCount} frames before it to ${safePath(out)}`,
    );
    return 1;
  }
  const solver = run.engine === 'ours' ? `solver ${desc.config.solver.solver}` : `${run.header.producer.name} ${run.header.producer.version ?? ''}`.trim();
  io.err(
    `wrote ${formatCount(run.frames, 'frame')} to ${safePath(out)} in ${formatNumber(ms / 1000)} s (${formatNumber(ms / Math.max(1, run.frames))} ms per frame, ${formatNumber(stepMs / Math.max(1, run.frames))} ms in the engine's step; ${solver})`,
  );
  return 0;
}
