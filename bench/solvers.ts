/**
 * Solver benchmark: every scene of bench/scenes.ts × every solver configuration, cold and
 * warm-started, timed with performance.now() around solve(). Prints one aligned table (or JSON).
 *   node dist/bench-solvers.js [--quick] [--json]
 * Not a test: nothing passes or fails; non-converged solves are reported as they are.
 */
import { performance } from 'node:perf_hooks';
import type { ContactProblem } from '../src/engine/problem.js';
import { solve } from '../src/engine/solvers/solve.js';
import type { SolveOptions, SolveResult } from '../src/engine/solvers/types.js';
import { benchScenes, lcg, uniform, type BenchScene } from './scenes.js';
import { machineInfo, parseBenchArgs, type BenchArgs, type MachineInfo } from './common.js';
import { loadScenario } from './world-scenes.js';
import { World } from '../src/engine/world/world.js';
import type { ContactJacobians } from '../src/engine/assembly.js';
import { solveIpmSparse, type SparseIpmLinearSolve, type SparseIpmOutput } from '../src/engine/solvers/ipmSparse.js';
import { solveNewtonSparse, type SparseNewtonOutput } from '../src/engine/solvers/newtonSparse.js';
import { solvePgsMatrixFree } from '../src/engine/solvers/matrixFree.js';
import { PILE_SETTLE_STEPS, pileIsland } from './pileIsland.js';

interface SolverConfig {
  readonly label: string;
  readonly options: SolveOptions;
}

const SOLVERS: readonly SolverConfig[] = [
  { label: 'pgs', options: { solver: 'pgs' } },
  { label: 'pgs-cone-scaled', options: { solver: 'pgs', friction: 'cone', diagonalScaling: true } },
  { label: 'newton', options: { solver: 'newton' } },
  { label: 'ipm', options: { solver: 'ipm' } },
];

type Start = 'cold' | 'warm';

interface RunPlan {
  readonly warmups: number;
  readonly repeats: number;
  /** Repeats are cut (never below MIN_REPEATS) when repeats × one solve would exceed this. */
  readonly budgetMs: number;
}

const MIN_REPEATS = 3;
/** Relative size of the "last frame" perturbation of b used to make the warm start. */
const WARM_PERTURBATION = 0.01;

export interface BenchRow {
  readonly scene: string;
  readonly contacts: number;
  readonly solver: string;
  readonly start: Start;
  readonly runs: number;
  /** True when the repeat count was cut below the plan because one solve is slow. */
  readonly reducedRuns: boolean;
  readonly medianMs: number;
  readonly minMs: number;
  readonly iterations: number;
  readonly status: string;
  readonly statusReason?: string;
  readonly kktMaxRel: number;
}

function runPlan(args: BenchArgs): RunPlan {
  return args.quick ? { warmups: 1, repeats: 3, budgetMs: 5_000 } : { warmups: 3, repeats: 15, budgetMs: 20_000 };
}

/** The same problem with every b entry scaled by 1 ± 1% (deterministic): "the last frame". */
function perturbedB(p: ContactProblem, seed: number): ContactProblem {
  const rng = lcg(seed);
  const b = p.b.map((v) => v * (1 + uniform(rng, -WARM_PERTURBATION, WARM_PERTURBATION)));
  return { ...p, b };
}

function timedSolve(p: ContactProblem, options: SolveOptions, warm: Float64Array | undefined): { ms: number; result: SolveResult } {
  const t0 = performance.now();
  const result = solve(p, options, warm);
  return { ms: performance.now() - t0, result };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Warm-ups (fewer when one solve is slow), then the repeats (cut to fit the time budget, never
 * below MIN_REPEATS). Iterations, status and KKT come from the last timed run.
 */
function measure(
  p: ContactProblem,
  options: SolveOptions,
  warm: Float64Array | undefined,
  plan: RunPlan,
): { times: number[]; result: SolveResult; reduced: boolean } {
  let slowest = 0,
    spent = 0;
  for (let i = 0; i < plan.warmups && spent < plan.budgetMs / 4; i++) {
    const { ms } = timedSolve(p, options, warm);
    slowest = Math.max(slowest, ms);
    spent += ms;
  }
  const affordable = slowest > 0 ? Math.floor(plan.budgetMs / slowest) : plan.repeats;
  const repeats = Math.max(MIN_REPEATS, Math.min(plan.repeats, affordable));
  const times: number[] = [];
  let last = timedSolve(p, options, warm);
  times.push(last.ms);
  while (times.length < repeats) {
    last = timedSolve(p, options, warm);
    times.push(last.ms);
  }
  return { times, result: last.result, reduced: repeats < plan.repeats };
}

function benchOne(scene: BenchScene, cfg: SolverConfig, start: Start, warm: Float64Array | undefined, plan: RunPlan): { row: BenchRow; result: SolveResult } {
  const { times, result, reduced } = measure(scene.problem, cfg.options, warm, plan);
  const st = result.status;
  const row: BenchRow = {
    scene: scene.name,
    contacts: scene.problem.contactCount,
    solver: cfg.label,
    start,
    runs: times.length,
    reducedRuns: reduced,
    medianMs: median(times),
    minMs: Math.min(...times),
    iterations: result.iterations,
    status: st.kind,
    ...(st.kind === 'converged' ? {} : { statusReason: st.reason }),
    kktMaxRel: result.kkt.maxRel,
  };
  return { row, result };
}

/** "46 sticking, 2 separating" at one solution. */
function contactMix(result: SolveResult): string {
  const count = new Map<string, number>();
  for (const c of result.contactClass) count.set(c, (count.get(c) ?? 0) + 1);
  return [...count].map(([k, v]) => `${v} ${k}`).join(', ');
}

interface SceneBench {
  readonly rows: BenchRow[];
  /** Contact classes at the IPM cold solution (with its status), to show how many contacts slide. */
  readonly mix: string;
}

function benchScene(scene: BenchScene, plan: RunPlan, seed: number): SceneBench {
  const rows: BenchRow[] = [];
  let mix = '';
  const lastFrame = perturbedB(scene.problem, seed);
  for (const cfg of SOLVERS) {
    const cold = benchOne(scene, cfg, 'cold', undefined, plan);
    rows.push(cold.row);
    if (cfg.options.solver === 'ipm') mix = `${contactMix(cold.result)} (ipm cold, ${cold.row.status})`;
    const warm = solve(lastFrame, cfg.options).lambda;
    rows.push(benchOne(scene, cfg, 'warm', warm, plan).row);
  }
  return { rows, mix };
}

// ---------------------------------------------------------------- output

const fmtMs = (ms: number): string => (ms >= 100 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(3) : ms.toFixed(4));

const TABLE_COLUMNS = ['scene', 'C', 'solver', 'start', 'runs', 'median ms', 'min ms', 'iterations', 'status', 'KKT max_rel'] as const;
/** Columns aligned to the right (numbers). */
const RIGHT_ALIGNED = new Set<string>(['C', 'runs', 'median ms', 'min ms', 'iterations', 'KKT max_rel']);

function tableCells(r: BenchRow): string[] {
  return [
    r.scene,
    String(r.contacts),
    r.solver,
    r.start,
    `${r.runs}${r.reducedRuns ? '*' : ''}`,
    fmtMs(r.medianMs),
    fmtMs(r.minMs),
    String(r.iterations),
    r.status,
    r.kktMaxRel.toExponential(2),
  ];
}

function renderTable(rows: readonly BenchRow[]): string[] {
  const body = rows.map(tableCells);
  const widths = TABLE_COLUMNS.map((h, c) => Math.max(h.length, ...body.map((cells) => cells[c].length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => (RIGHT_ALIGNED.has(TABLE_COLUMNS[c]) ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd();
  const out = [line(TABLE_COLUMNS), widths.map((w) => '-'.repeat(w)).join('  ')];
  let prevScene = '';
  for (let i = 0; i < rows.length; i++) {
    if (prevScene && rows[i].scene !== prevScene) out.push('');
    prevScene = rows[i].scene;
    out.push(line(body[i]));
  }
  return out;
}

function headerLines(m: MachineInfo, plan: RunPlan, args: BenchArgs): string[] {
  return [
    'Contact Lens solver benchmark',
    `machine: ${m.cpu}, ${m.cores} cores, ${m.platform}, Node ${m.node}, ${m.date}`,
    `runs: ${plan.warmups} warm-up + ${plan.repeats} timed per row${args.quick ? ' (--quick)' : ''}; ` +
      `runs marked * were cut (min ${MIN_REPEATS}, fewer warm-ups too) because ${plan.repeats} solves would exceed ${plan.budgetMs / 1000} s`,
    'time: wall clock (performance.now) around solve(), which includes its final KKT check and w = Aλ − b',
    `warm: warm start = λ of a cold solve (same solver) of the same problem with b scaled by 1 ± ${WARM_PERTURBATION * 100}% ("last frame")`,
    'note: solveIpm ignores the warm start (its iterates start in the cone interior), so ipm warm rows are cold solves',
    'solvers: pgs = PGS Coulomb disk (default); pgs-cone-scaled = PGS cone projection + per-contact diagonal scaling; newton = projected Newton; ipm = interior point',
    '',
  ];
}

/** One median per solver for the scene with C closest to 50, cold and warm. */
function summaryLines(rows: readonly BenchRow[]): string[] {
  if (rows.length === 0) return [];
  const target = rows.reduce((best, r) => (Math.abs(r.contacts - 50) < Math.abs(best - 50) ? r.contacts : best), rows[0].contacts);
  const at = rows.filter((r) => r.contacts === target);
  const order = ['newton', 'ipm', 'pgs', 'pgs-cone-scaled'];
  const part = (start: Start): string =>
    order
      .map((s) => at.find((r) => r.solver === s && r.start === start))
      .filter((r): r is BenchRow => r !== undefined)
      .map((r) => `${r.solver} ${fmtMs(r.medianMs)} ms (${r.status})`)
      .join(' | ');
  return ['', `C≈50 summary — ${at[0].scene}, median:`, `  cold: ${part('cold')}`, `  warm: ${part('warm')}`];
}

/** Distinct reasons of the non-converged rows, so the status column stays short. */
function reasonLines(rows: readonly BenchRow[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const r of rows) {
    if (!r.statusReason) continue;
    const key = `${r.scene} ${r.solver} ${r.start}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(`  ${key}: ${r.status} — ${r.statusReason}`);
  }
  return out.length ? ['', 'non-converged rows:', ...out] : [];
}

function mixLines(scenes: readonly BenchScene[], benches: readonly SceneBench[]): string[] {
  return ['contact mix per scene:', ...scenes.map((s, i) => `  ${s.name}: ${benches[i].mix}`), ''];
}

// ---------------------------------------------------------------- large islands (no dense A)

/** Scenes whose largest island is beyond the dense limit, and the steps simulated (PGS) before it is taken. */
const LARGE_ISLANDS = [
  { file: 'examples/pyramid-20.scene.json', steps: 30 },
  { file: 'examples/box-pile-1000.scene.json', steps: 120 },
] as const;
/** Target of the exact large-island solves (issue "exact solves at any island size"). */
const LARGE_TOLERANCE = 1e-8;

/** The largest island of the scene after `steps` steps: its Jacobians as the World assembled them, and the softening. */
function largestIsland(file: string, steps: number): { k: ContactJacobians; softening: number; settleMs: number } {
  const desc = loadScenario(file);
  const t0 = performance.now();
  const world = new World({ ...desc, config: { ...desc.config, solver: { solver: 'pgs' } } });
  let frame = world.step();
  for (let i = 1; i < steps; i++) frame = world.step();
  let best: ContactJacobians | null = null;
  for (const is of frame.islands) if (is.matrixFree && (!best || is.jacobians.contactCount > best.contactCount)) best = is.jacobians;
  if (!best) throw new Error(`${file}: no island above the dense limit after ${steps} steps`);
  return { k: best, softening: desc.config.softening, settleMs: performance.now() - t0 };
}

/** Tolerance of the world-step pile island's row: the IPM default the world step uses. */
const WORLD_ISLAND_TOLERANCE = 1e-10;

interface LargeIsland {
  readonly name: string;
  readonly k: ContactJacobians;
  readonly softening: number;
  readonly tolerance: number;
  /** Timed solves (the first solve is an untimed warm-up when > 1). */
  readonly solves: number;
  readonly note: string;
}

async function largeIslandLines(args: BenchArgs): Promise<string[]> {
  const out = [
    '',
    `large islands (A never formed): ipm-sparse = sparse interior point (src/engine/solvers/ipmSparse.ts) to the tolerance in its row, Newton systems by PCG on the NT-scaled operator, then the sparse natural-map polish (docs/physics.md "Solvers"); newton-sparse = sparse semismooth Newton (src/engine/solvers/newtonSparse.ts: cold start Proj_K(A⁻¹b), local Newton steps, the sparse interior point if they stall); ipm-sparse contact-space = the earlier path (Woodbury refinement, then the contact-space factor), one solve; beside matrix-free PGS (100 sweeps); median of ${args.quick ? 1 : 3} cold solves (1 for the world-step island)`,
  ];
  const islands: LargeIsland[] = [];
  for (const sc of LARGE_ISLANDS) {
    const { k, softening, settleMs } = largestIsland(sc.file, sc.steps);
    const name = `${sc.file.replace(/^examples\//, '').replace(/\.scene\.json$/, '')} @${sc.steps}`;
    const mem = (8 * k.size * k.size) / 1e6;
    islands.push({
      name,
      k,
      softening,
      tolerance: LARGE_TOLERANCE,
      solves: args.quick ? 1 : 3,
      note: `  ${name}: settled in ${(settleMs / 1000).toFixed(1)} s; a dense A would hold ${mem.toFixed(2)} MB`,
    });
  }
  {
    const t0 = performance.now();
    const { k, softening } = await pileIsland();
    islands.push({
      name: 'box-pile-1000 world step',
      k,
      softening,
      tolerance: WORLD_ISLAND_TOLERANCE,
      solves: 1,
      note: `  box-pile-1000 world step: the largest island of one World step (speculative contacts) after ${PILE_SETTLE_STEPS} Rapier steps (bench/pileIsland.ts, ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    });
  }
  const rows: string[][] = [['island', 'C', 'bodies', 'solver', 'tolerance', 'median ms', 'iterations', 'status', 'KKT max_rel', 'memory', 'bytes/contact']];
  const mem = (b: number): string => `${(b / 1e6).toFixed(2)} MB`;
  /** Median time and the last outcome of `solves` timed solves (one untimed warm-up first when > 1). */
  const timed = (
    k: ContactJacobians,
    tolerance: number,
    softening: number,
    solves: number,
    linear: SparseIpmLinearSolve,
  ): { ms: number; ipm: SparseIpmOutput } => {
    const run = (): SparseIpmOutput => solveIpmSparse(k, { solver: 'ipm', tolerance }, softening, linear);
    if (solves > 1) run(); // untimed warm-up
    const times: number[] = [];
    let ipm: SparseIpmOutput | null = null;
    for (let r = 0; r < Math.max(1, solves); r++) {
      const t0 = performance.now();
      ipm = run();
      times.push(performance.now() - t0);
    }
    return { ms: median(times), ipm: ipm as SparseIpmOutput };
  };
  const ipmRow = (name: string, k: ContactJacobians, tolerance: number, label: string, ms: number, ipm: SparseIpmOutput): string[] => {
    const pcg =
      ipm.krylovFrom >= 0
        ? `PCG from iteration ${ipm.krylovFrom}: ${ipm.krylovIterations} steps, ${ipm.inexactSolves} inexact${ipm.inexactSolves > 0 ? ` ≤ ${ipm.worstInexact.toExponential(1)}` : ''}`
        : '';
    const cs = ipm.contactSpaceFrom >= 0 ? `contact-space factor from iteration ${ipm.contactSpaceFrom}` : '';
    const pol = ipm.polishSteps > 0 ? `polish: ${ipm.polishSteps} step(s)` : '';
    const how = pcg || cs || pol ? ` (${[pcg, cs, pol].filter((x) => x).join('; ')})` : '';
    return [
      name,
      String(k.contactCount),
      String(ipm.bodyCount),
      label,
      String(tolerance),
      fmtMs(ms),
      String(ipm.iterations),
      ipm.status.kind + how,
      ipm.kkt.maxRel.toExponential(2),
      mem(ipm.memoryBytes),
      (ipm.memoryBytes / k.contactCount).toFixed(0),
    ];
  };
  const newtonNotes: string[] = [];
  for (const { name, k, softening, tolerance, solves, note } of islands) {
    const { ms, ipm } = timed(k, tolerance, softening, solves, 'krylov');
    rows.push(ipmRow(name, k, tolerance, 'ipm-sparse', ms, ipm));
    // the sparse Newton (newtonSparse.ts), cold, same tolerance and number of solves
    {
      const times: number[] = [];
      let nw: SparseNewtonOutput | null = null;
      if (solves > 1) solveNewtonSparse(k, { solver: 'newton', tolerance }, softening);
      for (let r = 0; r < Math.max(1, solves); r++) {
        const t0 = performance.now();
        nw = solveNewtonSparse(k, { solver: 'newton', tolerance }, softening);
        times.push(performance.now() - t0);
      }
      const out = nw as SparseNewtonOutput;
      const how = ` (${out.localSteps} local steps${out.ipmIterations >= 0 ? `, interior point ${out.ipmIterations}` : ''})`;
      rows.push([
        name,
        String(k.contactCount),
        String(ipm.bodyCount),
        'newton-sparse',
        String(tolerance),
        fmtMs(median(times)),
        String(out.iterations),
        out.status.kind + how,
        out.kkt.maxRel.toExponential(2),
        mem(out.memoryBytes),
        (out.memoryBytes / k.contactCount).toFixed(0),
      ]);
      if (out.status.kind !== 'converged') newtonNotes.push(`  ${name}: newton-sparse ${out.status.kind} — ${out.status.reason}`);
    }
    const before = timed(k, tolerance, softening, 1, 'contact-space');
    rows.push(ipmRow(name, k, tolerance, 'ipm-sparse contact-space', before.ms, before.ipm));
    const t0 = performance.now();
    const pgs = solvePgsMatrixFree(k, { solver: 'pgs', maxIterations: 100 }, undefined, softening);
    const pgsMs = performance.now() - t0;
    rows.push([
      name,
      String(k.contactCount),
      String(ipm.bodyCount),
      'pgs matrix-free',
      '-',
      fmtMs(pgsMs),
      String(pgs.iterations),
      pgs.status.kind,
      pgs.kkt.maxRel.toExponential(2),
      '-',
      '-',
    ]);
    out.push(note);
    if (ipm.status.kind !== 'converged') out.push(`  ${name}: ipm-sparse ${ipm.status.kind} — ${ipm.status.reason}`);
  }
  out.push(...newtonNotes);
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  out.push(
    ...rows.map((r) =>
      r
        .map((cell, c) => (c === 0 || c === 3 || c === 7 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
        .join('  ')
        .trimEnd(),
    ),
  );
  return out;
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  const plan = runPlan(args);
  const machine = machineInfo();
  const scenes = benchScenes();
  const benches = scenes.map((scene, i) => benchScene(scene, plan, 1000 + i));
  const rows = benches.flatMap((b) => b.rows);
  if (args.json) {
    const mix = Object.fromEntries(scenes.map((s, i) => [s.name, benches[i].mix]));
    process.stdout.write(`${JSON.stringify({ machine, plan, contactMix: mix, rows }, null, 2)}\n`);
    return;
  }
  const lines = [
    ...headerLines(machine, plan, args),
    ...mixLines(scenes, benches),
    ...renderTable(rows),
    ...summaryLines(rows),
    ...reasonLines(rows),
    ...(await largeIslandLines(args)),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

void main();
