/**
 * World benchmark: milliseconds per simulation step of whole scenes (examples/pyramid-20 and
 * examples/box-pile-1000) in our engine with each solver (pgs, newton, ipm) and, in the same run, in
 * cannon-es and Rapier (@dimforge/rapier3d-compat), with the ratio ours/theirs.
 *   node dist/bench-world.js [--quick] [--json] [--pgs-only] [--baseline DIR]      (npm run bench:world -- --quick)
 *   --pgs-only      our PGS and the peers only (no ours/newton, ours/ipm rows)
 *   --baseline DIR  also runs ours/pgs (and, without --pgs-only, ours/newton and ours/ipm) from another build's bundle,
 *                   DIR/dist/bench-world.js (e.g. a checkout of an earlier commit after `npm run build`), in the same run:
 *                   before and after beside cannon-es and Rapier
 * Not a test: nothing passes or fails.
 *
 * Every configuration runs in its own worker thread (a fresh heap, and a step that takes minutes, e.g. a
 * dense Newton solve on an island of 1600 contacts, can be killed): warm-up steps, then timed steps
 * until the step count or the time budget is reached (never fewer than MIN_TIMED). A configuration
 * whose step does not finish within the per-step limit is reported as skipped.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { ScenarioDesc } from '../src/engine/world/types.js';
import * as islandModule from '../src/engine/island/solveIsland.js';
import * as matrixFreeModule from '../src/engine/island/solveMatrixFree.js';
import type { SolverName } from '../src/engine/solvers/types.js';
import {
  applySnapshot,
  cannonSim,
  loadCannon,
  loadRapier,
  loadScenario,
  OursSim,
  probeContacts,
  rapierSim,
  repoRoot,
  WORLD_SCENES,
  type BodySnapshot,
  type ContactProbe,
  type EngineName,
  type MethodShare,
  type OurStepInfo,
  type Sim,
  type WorldBenchScene,
} from './world-scenes.js';
import { machineInfo, parseBenchArgs, type BenchArgs, type MachineInfo } from './common.js';

const JOB_KIND = 'contact-lens-world-bench';
const MIN_TIMED = 3;
/** Library defaults (cannon-es GSSolver.iterations, Rapier numSolverIterations), for the "default" rows. */
const CANNON_DEFAULT_ITERATIONS = 10;
const RAPIER_DEFAULT_ITERATIONS = 4;

/**
 * The World's matrix-free switch-over (read by name, so the benchmark still builds if they move): islands
 * beyond DENSE_ISLAND_LIMIT contacts never form A (PGS matrix-free; newton by the sparse Newton, ipm by
 * MATRIX_FREE_FALLBACK, the sparse interior point); PGS itself goes matrix-free beyond PGS_MATRIX_FREE_FROM.
 */
interface MatrixFreeRules {
  readonly denseIslandLimit?: number;
  readonly pgsMatrixFreeFrom?: number;
  readonly exactDenseIslandLimit?: number;
  readonly fallback?: { readonly solver?: string; readonly maxIterations?: number };
}

function matrixFreeRules(): MatrixFreeRules {
  const m = islandModule as unknown as Record<string, unknown>;
  const num = (k: string): number | undefined => (typeof m[k] === 'number' ? (m[k] as number) : undefined);
  const fb = (matrixFreeModule as unknown as Record<string, unknown>).MATRIX_FREE_FALLBACK;
  return {
    ...(num('DENSE_ISLAND_LIMIT') !== undefined ? { denseIslandLimit: num('DENSE_ISLAND_LIMIT') } : {}),
    ...(num('PGS_MATRIX_FREE_FROM') !== undefined ? { pgsMatrixFreeFrom: num('PGS_MATRIX_FREE_FROM') } : {}),
    ...(num('EXACT_DENSE_ISLAND_LIMIT') !== undefined ? { exactDenseIslandLimit: num('EXACT_DENSE_ISLAND_LIMIT') } : {}),
    ...(fb && typeof fb === 'object' ? { fallback: fb as MatrixFreeRules['fallback'] } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// Jobs (main → worker) and messages (worker → main)

interface Job {
  readonly kind: typeof JOB_KIND;
  readonly engine: EngineName;
  readonly solver?: SolverName;
  /** Solver iterations for cannon-es / Rapier; undefined = the library's default. */
  readonly iterations?: number;
  readonly desc: ScenarioDesc;
  readonly warmupSteps: number;
  /** No further warm-up step starts once the warm-up steps took this long (at least one runs). */
  readonly warmupBudgetMs: number;
  readonly timedSteps: number;
  /** No further timed step starts once the timed steps took this long (at least minTimed run). */
  readonly timedBudgetMs: number;
  readonly minTimed: number;
  readonly wantSnapshot: boolean;
}

type Phase = 'warmup' | 'timed';

type WorkerMessage =
  | { readonly type: 'ready'; readonly setupMs: number }
  | { readonly type: 'probe'; readonly probe: ContactProbe }
  | { readonly type: 'step'; readonly phase: Phase; readonly ms: number; readonly cpuMs: number; readonly info?: OurStepInfo }
  | { readonly type: 'done'; readonly snapshot?: BodySnapshot[] }
  | { readonly type: 'error'; readonly message: string };

interface StepRecord {
  readonly ms: number;
  /** CPU time of the process during the step (all its threads: the one running worker, GC helpers). */
  readonly cpuMs: number;
  readonly info?: OurStepInfo;
}

interface JobOutcome {
  readonly setupMs?: number;
  readonly probe?: ContactProbe;
  readonly warmup: StepRecord[];
  readonly timed: StepRecord[];
  readonly snapshot?: BodySnapshot[];
  readonly error?: string;
  /** The worker was killed: a step (or the setup) did not finish within the limit. */
  readonly killed?: { readonly phase: Phase | 'setup'; readonly limitMs: number };
}

// ---------------------------------------------------------------------------------------------------
// Worker side

async function createSim(job: Job): Promise<Sim> {
  switch (job.engine) {
    case 'ours':
      return new OursSim(job.desc, job.solver ?? 'pgs');
    case 'cannon': {
      let C: Awaited<ReturnType<typeof loadCannon>>;
      try {
        C = await loadCannon();
      } catch (e) {
        throw new Error(`cannot load cannon-es: ${errorText(e)}`);
      }
      return cannonSim(C, job.desc, job.iterations);
    }
    case 'rapier': {
      let R: Awaited<ReturnType<typeof loadRapier>>;
      try {
        R = await loadRapier();
      } catch (e) {
        throw new Error(`Rapier init failed: ${errorText(e)}`);
      }
      return rapierSim(R, job.desc, job.iterations);
    }
  }
}

async function workerMain(job: Job): Promise<void> {
  const port = parentPort!;
  const send = (m: WorkerMessage): void => port.postMessage(m);
  try {
    const t0 = performance.now();
    const sim = await createSim(job);
    send({ type: 'ready', setupMs: performance.now() - t0 });
    if (sim instanceof OursSim) send({ type: 'probe', probe: sim.probe() });
    const stepOnce = (phase: Phase): number => {
      const s = performance.now(),
        c0 = process.cpuUsage();
      const info = sim.step();
      const ms = performance.now() - s;
      const c = process.cpuUsage(c0);
      send({ type: 'step', phase, ms, cpuMs: (c.user + c.system) / 1000, ...(info ? { info } : {}) });
      return ms;
    };
    let spent = 0;
    for (let i = 0; i < job.warmupSteps && (i === 0 || spent < job.warmupBudgetMs); i++) spent += stepOnce('warmup');
    spent = 0;
    for (let n = 0; n < job.timedSteps && (n < job.minTimed || spent < job.timedBudgetMs); n++) spent += stepOnce('timed');
    send({ type: 'done', ...(job.wantSnapshot ? { snapshot: sim.snapshot() } : {}) });
    sim.dispose();
  } catch (e) {
    send({ type: 'error', message: errorText(e) });
  }
}

/** Seconds for messages: "0.5 s", "30 s". */
function fmtSec(ms: number): string {
  const sec = ms / 1000;
  return `${sec < 10 ? Number(sec.toPrecision(2)) : Math.round(sec)} s`;
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message.split('\n')[0];
  return String(e);
}

// ---------------------------------------------------------------------------------------------------
// Main side: one worker per job, killed when a step exceeds the limit

/** `workerFile`: the bundle the worker runs (default this one; --baseline: another build's). */
function runJob(job: Job, stepLimitMs: number, setupLimitMs: number, workerFile: string = __filename): Promise<JobOutcome> {
  return new Promise((resolve) => {
    const warmup: StepRecord[] = [],
      timed: StepRecord[] = [];
    let setupMs: number | undefined, probe: ContactProbe | undefined;
    let settled = false,
      ready = false,
      phase: Phase = 'warmup';
    let timer: NodeJS.Timeout | undefined;
    let worker: Worker;
    const finish = (extra: Partial<JobOutcome>): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      const outcome: JobOutcome = { warmup, timed, ...(setupMs !== undefined ? { setupMs } : {}), ...(probe ? { probe } : {}), ...extra };
      // Resolve once the worker is gone, so the next configuration never shares the CPU with it.
      worker.terminate().then(
        () => resolve(outcome),
        () => resolve(outcome),
      );
    };
    const arm = (): void => {
      if (timer) clearTimeout(timer);
      const limit = ready ? stepLimitMs : setupLimitMs;
      timer = setTimeout(() => finish({ killed: { phase: ready ? phase : 'setup', limitMs: limit } }), limit);
    };
    try {
      worker = new Worker(workerFile, { workerData: job, stdout: true, stderr: true });
    } catch (e) {
      resolve({ warmup, timed, error: `cannot start a worker thread: ${errorText(e)}` });
      return;
    }
    // Library output (warnings) must not end up in the table or the JSON.
    worker.stdout.pipe(process.stderr);
    worker.stderr.pipe(process.stderr);
    arm();
    worker.on('message', (m: WorkerMessage) => {
      switch (m.type) {
        case 'ready':
          ready = true;
          setupMs = m.setupMs;
          phase = job.warmupSteps > 0 ? 'warmup' : 'timed';
          arm();
          break;
        case 'probe':
          probe = m.probe;
          arm();
          break;
        case 'step':
          (m.phase === 'warmup' ? warmup : timed).push({ ms: m.ms, cpuMs: m.cpuMs, ...(m.info ? { info: m.info } : {}) });
          // The phase of the step now running, by the worker's rule (for the "killed" report).
          phase = m.phase === 'warmup' && warmup.length < job.warmupSteps && warmup.reduce((a, s) => a + s.ms, 0) < job.warmupBudgetMs ? 'warmup' : 'timed';
          arm();
          break;
        case 'done':
          finish(m.snapshot ? { snapshot: m.snapshot } : {});
          break;
        case 'error':
          finish({ error: m.message });
          break;
      }
    });
    worker.on('error', (e) => finish({ error: `worker error: ${errorText(e)}` }));
    worker.on('exit', (code) => finish({ error: `worker exited with code ${code} before finishing` }));
  });
}

// ---------------------------------------------------------------------------------------------------
// Plan and configurations

interface Plan {
  readonly oursWarmupSteps: number;
  readonly oursWarmupBudgetMs: number;
  readonly libWarmupSteps: number;
  readonly timedSteps: number;
  readonly timedBudgetMs: number;
  readonly minTimed: number;
  /** A configuration whose step (warm-up or timed) takes longer than this is killed. */
  readonly stepLimitMs: number;
  /** Worker start, scene construction, Rapier init. */
  readonly setupLimitMs: number;
  readonly settleBudgetMs: number;
}

function makePlan(args: BenchArgs): Plan {
  // --quick times fewer steps but warms up as many as a full run within its budget: with 2 warm-up steps the PGS
  // rows timed a cold JIT (pyramid-20 median 58 ms against 24 ms after 10), which skewed every "× ours/pgs" ratio
  return args.quick
    ? {
        oursWarmupSteps: 10,
        oursWarmupBudgetMs: 2_000,
        libWarmupSteps: 10,
        timedSteps: 5,
        timedBudgetMs: 5_000,
        minTimed: MIN_TIMED,
        stepLimitMs: 15_000,
        setupLimitMs: 60_000,
        settleBudgetMs: 60_000,
      }
    : {
        oursWarmupSteps: 10,
        oursWarmupBudgetMs: 5_000,
        libWarmupSteps: 10,
        timedSteps: 30,
        timedBudgetMs: 20_000,
        minTimed: MIN_TIMED,
        stepLimitMs: 30_000,
        setupLimitMs: 60_000,
        settleBudgetMs: 120_000,
      };
}

interface RunConfig {
  /** e.g. "ours/pgs", "cannon-es (50 it.)". */
  readonly label: string;
  readonly engine: EngineName;
  readonly solver?: SolverName;
  readonly iterations?: number;
  /** The row the ours/cannon resp. ours/rapier ratio divides by. */
  readonly reference: boolean;
  /** Run by the --baseline build's bundle (an earlier build of ours), not this one. */
  readonly baseline?: boolean;
}

/** Options of this benchmark besides --quick and --json. */
interface WorldBenchOptions {
  readonly pgsOnly: boolean;
  /** The bench bundle of an earlier build (--baseline DIR: DIR/dist/bench-world.js). */
  readonly baselineBundle?: string;
}

/** Splits --pgs-only and --baseline DIR off the arguments (the rest goes to parseBenchArgs). */
function worldOptions(argv: readonly string[]): { options: WorldBenchOptions; rest: string[] } {
  const rest: string[] = [];
  let pgsOnly = false,
    baselineBundle: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--pgs-only') pgsOnly = true;
    else if (argv[i] === '--baseline') {
      const dir = argv[++i];
      if (!dir) throw new Error('--baseline needs a directory (a build of the repository: DIR/dist/bench-world.js)');
      baselineBundle = path.resolve(dir, 'dist', 'bench-world.js');
      if (!fs.existsSync(baselineBundle)) throw new Error(`--baseline ${dir}: ${baselineBundle} not found (run npm run build there)`);
    } else rest.push(argv[i]);
  }
  return { options: { pgsOnly, ...(baselineBundle ? { baselineBundle } : {}) }, rest };
}

/** Our PGS iteration cap in the scene (pyramid 50, pile 20): the count cannon-es and Rapier get. */
function matchedIterations(desc: ScenarioDesc): number | undefined {
  const s = desc.config.solver;
  return s.solver === 'pgs' ? s.maxIterations : undefined;
}

function configsFor(desc: ScenarioDesc, opts: WorldBenchOptions): RunConfig[] {
  const n = matchedIterations(desc);
  const it = (k: number | undefined, dflt: number): string => (k === undefined ? `default, ${dflt} it.` : `${k} it.`);
  return [
    // the baseline first and ours right after it: the two run in the same minute of the machine's load
    ...(opts.baselineBundle ? [{ label: 'ours/pgs (baseline)', engine: 'ours' as const, solver: 'pgs' as const, reference: false, baseline: true }] : []),
    { label: 'ours/pgs', engine: 'ours', solver: 'pgs', reference: false },
    ...(opts.pgsOnly
      ? []
      : (['newton', 'ipm'] as const).flatMap((solver) => [
          // with --baseline, the baseline build's exact solver right before this build's (same minute of load)
          ...(opts.baselineBundle ? [{ label: `ours/${solver} (baseline)`, engine: 'ours' as const, solver, reference: false, baseline: true }] : []),
          { label: `ours/${solver}`, engine: 'ours' as const, solver, reference: false },
        ])),
    { label: `cannon-es (${it(n, CANNON_DEFAULT_ITERATIONS)})`, engine: 'cannon', ...(n !== undefined ? { iterations: n } : {}), reference: true },
    { label: `rapier (${it(n, RAPIER_DEFAULT_ITERATIONS)})`, engine: 'rapier', ...(n !== undefined ? { iterations: n } : {}), reference: true },
    ...(n !== undefined && n !== CANNON_DEFAULT_ITERATIONS
      ? [{ label: `cannon-es (default, ${CANNON_DEFAULT_ITERATIONS} it.)`, engine: 'cannon' as const, reference: false }]
      : []),
    ...(n !== undefined && n !== RAPIER_DEFAULT_ITERATIONS
      ? [{ label: `rapier (default, ${RAPIER_DEFAULT_ITERATIONS} it.)`, engine: 'rapier' as const, reference: false }]
      : []),
  ];
}

// ---------------------------------------------------------------------------------------------------
// Rows

interface OursDetail {
  readonly contactsMin: number;
  readonly contactsMedian: number;
  readonly speculativeMedian: number;
  readonly contactsMax: number;
  readonly islandsMedian: number;
  readonly largestIslandContacts: number;
  readonly largestIslandBodies: number;
  /** How the largest island was solved ("pgs matrix-free", "newton dense"). */
  readonly largestIslandMethod: string;
  /** Iterations of the largest island's solve, median over the timed steps, and its statuses. */
  readonly iterationsMedian: number;
  readonly statuses: Record<string, number>;
  /** Islands/contacts per solve method in the last timed step. */
  readonly methods: readonly MethodShare[];
}

export interface WorldBenchRow {
  readonly scene: string;
  readonly config: string;
  readonly engine: EngineName;
  readonly solver?: SolverName;
  readonly iterations?: number;
  readonly warmupSteps: number;
  /** Fewer warm-up steps than planned because one step is slow. */
  readonly warmupCut: boolean;
  readonly steps: number;
  /** Fewer timed steps than planned because of the time budget. */
  readonly stepsCut: boolean;
  readonly medianMs: number | null;
  readonly minMs: number | null;
  /** Median CPU ms per step: on a shared machine less inflated by other processes than wall time. */
  readonly medianCpuMs: number | null;
  /** Ours: median contact count over the timed steps; null for cannon-es / Rapier. */
  readonly contacts: number | null;
  readonly ratioCannon: number | null;
  readonly ratioRapier: number | null;
  /** Why the row has no timings ("skipped: …", "not run: …"). */
  readonly skipped?: string;
  readonly note?: string;
  readonly setupMs?: number;
  /** Ours: our detection on the state the configuration starts from (before its first step). */
  readonly probe?: ContactProbe;
  readonly ours?: OursDetail;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function oursDetail(steps: readonly StepRecord[]): OursDetail | undefined {
  const infos = steps.map((s) => s.info).filter((i): i is OurStepInfo => i !== undefined);
  if (infos.length === 0) return undefined;
  const contacts = infos.map((i) => i.contacts);
  const statuses: Record<string, number> = {};
  for (const i of infos) statuses[i.status] = (statuses[i.status] ?? 0) + 1;
  const largest = infos.reduce((a, b) => (b.largestIslandContacts > a.largestIslandContacts ? b : a));
  return {
    contactsMin: Math.min(...contacts),
    contactsMedian: median(contacts),
    speculativeMedian: median(infos.map((i) => i.speculative)),
    contactsMax: Math.max(...contacts),
    islandsMedian: median(infos.map((i) => i.islands)),
    largestIslandContacts: largest.largestIslandContacts,
    largestIslandBodies: largest.largestIslandBodies,
    largestIslandMethod: largest.largestIslandMethod,
    iterationsMedian: median(infos.map((i) => i.iterations)),
    statuses,
    methods: infos[infos.length - 1].methods,
  };
}

/** Largest island known for the step that was killed: the last completed step's, else the probe's. */
function lastKnownIsland(o: JobOutcome): number | undefined {
  const all = [...o.warmup, ...o.timed].map((s) => s.info).filter((i): i is OurStepInfo => i !== undefined);
  if (all.length) return all[all.length - 1].largestIslandContacts;
  return o.probe?.largestIslandContacts;
}

/** `startProbe`: our detection on the state the configuration starts from (when the worker died before its own probe). */
function skipText(cfg: RunConfig, o: JobOutcome, startProbe: ContactProbe | undefined): string {
  if (o.error) return `not run: ${o.error}`;
  const k = o.killed!;
  const s = fmtSec(k.limitMs);
  if (k.phase === 'setup') return `skipped: setup took > ${s}`;
  if (cfg.engine !== 'ours') return `skipped: > ${s} per step`;
  const c = lastKnownIsland(o) ?? startProbe?.largestIslandContacts;
  const rules = matrixFreeRules();
  const limit = cfg.solver === 'ipm' ? (rules.exactDenseIslandLimit ?? rules.denseIslandLimit) : rules.denseIslandLimit;
  const dense = cfg.solver !== 'pgs' && (limit === undefined || c === undefined || c <= limit);
  const what = dense ? `dense solver (${cfg.solver})` : cfg.solver;
  return `skipped: > ${s} per step (${what} on an island of ${c ?? '?'} contacts)`;
}

/** "1582 of 1582 contacts: pgs matrix-free" when a configuration's solver did not run on every island. */
function replacedNote(cfg: RunConfig, d: OursDetail | undefined): string | undefined {
  if (!d || !cfg.solver) return undefined;
  const other = d.methods.filter((m) => !m.method.startsWith(`${cfg.solver} `));
  if (other.length === 0) return undefined;
  const total = d.methods.reduce((a, m) => a + m.contacts, 0);
  return other.map((m) => `${m.contacts} of ${total} contacts by ${m.method}`).join(', ') + ` (not ${cfg.solver})`;
}

function makeRow(scene: string, cfg: RunConfig, o: JobOutcome, plan: Plan, startProbe: ContactProbe | undefined): WorldBenchRow {
  const planned = cfg.engine === 'ours' ? plan.oursWarmupSteps : plan.libWarmupSteps;
  const times = o.timed.map((s) => s.ms);
  const base = {
    scene,
    config: cfg.label,
    engine: cfg.engine,
    ...(cfg.solver ? { solver: cfg.solver } : {}),
    ...(cfg.iterations !== undefined ? { iterations: cfg.iterations } : {}),
    warmupSteps: o.warmup.length,
    warmupCut: o.warmup.length < planned,
    steps: times.length,
    stepsCut: times.length < plan.timedSteps,
    ...(o.setupMs !== undefined ? { setupMs: o.setupMs } : {}),
    ...(o.probe ? { probe: o.probe } : {}),
    ratioCannon: null,
    ratioRapier: null,
  };
  const detail = oursDetail(o.timed);
  if (times.length === 0) {
    return {
      ...base,
      medianMs: null,
      minMs: null,
      medianCpuMs: null,
      contacts: null,
      skipped: skipText(cfg, o, startProbe),
      ...(detail ? { ours: detail } : {}),
    };
  }
  const notes: string[] = [];
  if (o.killed) notes.push(`stopped: a ${o.killed.phase} step took > ${fmtSec(o.killed.limitMs)}`);
  else if (o.error) notes.push(`stopped: ${o.error}`);
  const replaced = replacedNote(cfg, detail);
  if (replaced) notes.push(replaced);
  const note = notes.length ? notes.join('; ') : undefined;
  return {
    ...base,
    medianMs: median(times),
    minMs: Math.min(...times),
    medianCpuMs: median(o.timed.map((t) => t.cpuMs)),
    contacts: detail ? detail.contactsMedian : null,
    ...(note ? { note } : {}),
    ...(detail ? { ours: detail } : {}),
  };
}

function withRatios(rows: readonly WorldBenchRow[], configs: readonly RunConfig[]): WorldBenchRow[] {
  const ref = (engine: EngineName): number | null => {
    const i = configs.findIndex((c) => c.engine === engine && c.reference);
    return i >= 0 ? rows[i].medianMs : null;
  };
  const cannon = ref('cannon'),
    rapier = ref('rapier');
  return rows.map((r) =>
    r.engine !== 'ours' || r.medianMs === null
      ? r
      : {
          ...r,
          ratioCannon: cannon ? r.medianMs / cannon : null,
          ratioRapier: rapier ? r.medianMs / rapier : null,
        },
  );
}

// ---------------------------------------------------------------------------------------------------
// Settling: one engine advances the scene, every configuration starts from its state

interface SettleInfo {
  readonly steps: number;
  readonly engine?: string;
  readonly ms?: number;
  /** Why the preferred settle engines could not be used. */
  readonly failures: string[];
  /** Our detection on the settled state. */
  readonly probe?: ContactProbe;
}

async function settle(
  scene: WorldBenchScene,
  desc: ScenarioDesc,
  plan: Plan,
  progress: (s: string) => void,
): Promise<{ desc: ScenarioDesc; info: SettleInfo }> {
  const failures: string[] = [];
  const n = matchedIterations(desc);
  const candidates: { engine: EngineName; label: string }[] = [
    { engine: 'rapier', label: `rapier (${n ?? `default ${RAPIER_DEFAULT_ITERATIONS}`} it.)` },
    { engine: 'cannon', label: `cannon-es (${n ?? `default ${CANNON_DEFAULT_ITERATIONS}`} it.)` },
    { engine: 'ours', label: 'ours/pgs' },
  ];
  for (const c of candidates) {
    progress(`${scene.name}: settling ${scene.settleSteps} steps with ${c.label}`);
    const job: Job = {
      kind: JOB_KIND,
      engine: c.engine,
      ...(c.engine === 'ours' ? { solver: 'pgs' as const } : {}),
      ...(n !== undefined && c.engine !== 'ours' ? { iterations: n } : {}),
      desc,
      warmupSteps: 0,
      warmupBudgetMs: 0,
      timedSteps: scene.settleSteps,
      timedBudgetMs: plan.settleBudgetMs,
      minTimed: 0,
      wantSnapshot: true,
    };
    const o = await runJob(job, plan.stepLimitMs, plan.setupLimitMs);
    if (o.snapshot) {
      const settled = applySnapshot(desc, o.snapshot);
      const probe = probeContacts(settled);
      return { desc: settled, info: { steps: o.timed.length, engine: c.label, ms: o.timed.reduce((a, s) => a + s.ms, 0), failures, probe } };
    }
    failures.push(`${c.label}: ${o.error ?? (o.killed ? `a step took > ${fmtSec(o.killed.limitMs)}` : 'no state returned')}`);
  }
  return { desc, info: { steps: 0, failures, probe: probeContacts(desc) } };
}

// ---------------------------------------------------------------------------------------------------
// Output

function packageVersion(name: string): string {
  try {
    const p = path.join(repoRoot(), 'node_modules', ...name.split('/'), 'package.json');
    return (JSON.parse(fs.readFileSync(p, 'utf8')) as { version?: string }).version ?? '?';
  } catch {
    return 'not installed';
  }
}

const fmtMs = (ms: number | null): string => (ms === null ? '-' : ms >= 100 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const fmtRatio = (r: number | null): string => (r === null ? '-' : `${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`);

const COLUMNS = [
  'scene',
  'engine/solver',
  'warm-up',
  'steps',
  'median ms/step',
  'min ms/step',
  'median CPU ms',
  'contacts',
  'ours/cannon',
  'ours/rapier',
  'note',
] as const;
const RIGHT = new Set<string>(['warm-up', 'steps', 'median ms/step', 'min ms/step', 'median CPU ms', 'contacts', 'ours/cannon', 'ours/rapier']);

function cells(r: WorldBenchRow): string[] {
  return [
    r.scene,
    r.config,
    r.setupMs === undefined ? '-' : `${r.warmupSteps}${r.warmupCut ? '*' : ''}`,
    r.skipped ? '0' : `${r.steps}${r.stepsCut ? '*' : ''}`,
    fmtMs(r.medianMs),
    fmtMs(r.minMs),
    fmtMs(r.medianCpuMs),
    r.contacts === null ? '-' : String(Math.round(r.contacts)),
    fmtRatio(r.ratioCannon),
    fmtRatio(r.ratioRapier),
    r.skipped ?? r.note ?? '',
  ];
}

function renderTable(rows: readonly WorldBenchRow[]): string[] {
  const body = rows.map(cells);
  const widths = COLUMNS.map((h, c) => Math.max(h.length, ...body.map((b) => b[c].length)));
  const line = (cs: readonly string[]): string =>
    cs
      .map((cell, c) => (RIGHT.has(COLUMNS[c]) ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd();
  const out = [line(COLUMNS), widths.map((w) => '-'.repeat(w)).join('  ')];
  rows.forEach((r, i) => {
    if (i > 0 && r.scene !== rows[i - 1].scene) out.push('');
    out.push(line(body[i]));
  });
  return out;
}

const islandText = (contacts: number, bodies: number): string => `${contacts} contacts / ${bodies} bodies`;

function probeText(p: ContactProbe): string {
  return `${p.contacts} contacts in ${p.islands} island${p.islands === 1 ? '' : 's'}, largest ${islandText(p.largestIslandContacts, p.largestIslandBodies)}`;
}

function headerLines(m: MachineInfo, plan: Plan, args: BenchArgs, libs: Record<string, string>): string[] {
  const s = (ms: number): string => `${ms / 1000} s`;
  return [
    'Contact Lens world benchmark: ms per simulation step, ours vs cannon-es and Rapier',
    `machine: ${m.cpu}, ${m.cores} cores, ${m.platform}, Node ${m.node}, ${m.date}, load average ${m.loadAverage.toFixed(2)} at start`,
    `libraries: cannon-es ${libs['cannon-es']}, @dimforge/rapier3d-compat ${libs['@dimforge/rapier3d-compat']}` +
      `${/^\d/.test(libs['@dimforge/rapier3d-compat']) ? ' (its WASM is embedded in the package: init() needs no download)' : ''}`,
    `plan${args.quick ? ' (--quick)' : ''}: each scene is first advanced once by a settle engine (Rapier; cannon-es or ours if it fails); every configuration starts from that ` +
      'state (same poses and velocities) in its own worker thread, runs its warm-up steps (JIT, contact caches, warm starts), then the timed steps',
    `  warm-up: cannon-es/Rapier ${plan.libWarmupSteps} steps; ours up to ${plan.oursWarmupSteps} steps, no new one after ${s(plan.oursWarmupBudgetMs)} (at least 1)`,
    `  timed: up to ${plan.timedSteps} steps, no new one after ${s(plan.timedBudgetMs)} (at least ${plan.minTimed}); a step (warm-up or timed) that takes > ${s(plan.stepLimitMs)} is killed and the row skipped`,
    '  * = fewer steps than planned because one step is slow',
    'time: performance.now() (and process CPU time) around one step — ours World.step() (detection, islands, assembly, solve, impulses, ' +
      'integration, energy ledger), cannon-es world.step(dt), Rapier world.step(); median and min over the timed steps; CPU: process.cpuUsage() of the worker process (its threads: the worker, GC helpers), median',
    ...matrixFreeLines(),
    'same in all engines: dt and gravity of the scene, boxes (half extents, mass, box inertia, pose, velocities), ground half-space, friction and ' +
      'restitution per pair (scene materials and combine rules); cannon-es uses SAPBroadphase (axis auto-detected; ours: sweep and prune), Rapier bodies may not sleep',
    'not the same: contact models (ours: velocity-level, Baumgarte erp/slop; cannon-es: SPOOK; Rapier: soft TGS with substeps) and collision detection (contact counts differ; shown for ours only)',
    'iterations: ours pgs maxIterations N (scene: pyramid 50, pile 20) ↔ cannon-es world.solver.iterations = N (Gauss–Seidel sweeps) ↔ Rapier ' +
      'numSolverIterations = N with numInternalPgsIterations = 1 (N substeps of one PGS sweep); ours newton/ipm: their own default caps (not sweep-comparable)',
    `  "default" rows: each library's defaults (cannon-es ${CANNON_DEFAULT_ITERATIONS} iterations, Rapier ${RAPIER_DEFAULT_ITERATIONS}); ratios ours/cannon and ours/rapier divide by the N-iteration rows (>1: ours is slower)`,
    '',
  ];
}

function matrixFreeLines(): string[] {
  const r = matrixFreeRules();
  if (r.denseIslandLimit === undefined) return ['ours: every island is solved with the configured solver on a dense A (no matrix-free path found in World)'];
  const fb = r.fallback ? `${r.fallback.solver ?? 'pgs'}${r.fallback.maxIterations !== undefined ? `, ${r.fallback.maxIterations} it.` : ''}` : 'pgs';
  return [
    `ours: World solves islands of more than ${r.denseIslandLimit} contacts without forming A: PGS matrix-free, newton scenarios by the sparse Newton (src/engine/solvers/newtonSparse.ts), ipm scenarios by ${fb === 'ipm' ? 'the sparse interior point' : fb}` +
      `${r.pgsMatrixFreeFrom !== undefined ? `; PGS goes matrix-free above ${r.pgsMatrixFreeFrom} contacts` : ''}${r.exactDenseIslandLimit !== undefined ? `, ipm above ${r.exactDenseIslandLimit}` : ''} — the note column says when newton/ipm did not run`,
  ];
}

/** The world-step targets for our PGS at matched iterations: ours/Rapier ≤ 1.0, ours/cannon-es ≤ 0.5 (median ms/step). */
const TARGET_RATIO_RAPIER = 1.0;
const TARGET_RATIO_CANNON = 0.5;

/**
 * One line per scene: our PGS against the targets, from the same run: by median wall time (the table's
 * ratios), by min wall time and by median CPU time (other processes on a shared machine inflate wall times,
 * and not equally for every configuration since they run one after the other).
 */
function targetLines(scenes: readonly SceneReport[]): string[] {
  const out = [
    '',
    `targets (ours/pgs vs the matched-iteration rows): ≤ ${TARGET_RATIO_RAPIER}× Rapier, ≤ ${TARGET_RATIO_CANNON}× cannon-es; ratios by median wall / min wall / median CPU time`,
  ];
  const verdict = (ratio: number | null, target: number): string =>
    ratio === null ? 'not measured' : `${fmtRatio(ratio)} ${ratio <= target ? 'met' : 'missed'}`;
  for (const sc of scenes) out.push(...exactTargetLines(sc));
  for (const sc of scenes) {
    const ours = sc.rows.find((x) => x.engine === 'ours' && x.solver === 'pgs' && !x.config.includes('baseline'));
    const before = sc.rows.find((x) => x.engine === 'ours' && x.solver === 'pgs' && x.config.includes('baseline'));
    const ref = (engine: EngineName): WorldBenchRow | undefined => sc.rows.find((x) => x.engine === engine && x.iterations !== undefined);
    const ratio = (row: WorldBenchRow | undefined, engine: EngineName, key: 'medianMs' | 'minMs' | 'medianCpuMs'): number | null => {
      const a = row?.[key],
        r = ref(engine)?.[key];
      return a != null && r ? a / r : null;
    };
    const three = (row: WorldBenchRow | undefined, engine: EngineName, target: number): string =>
      (['medianMs', 'minMs', 'medianCpuMs'] as const).map((k) => verdict(ratio(row, engine, k), target)).join(' / ');
    out.push(`  ${sc.name}: ours/rapier ${three(ours, 'rapier', TARGET_RATIO_RAPIER)}; ours/cannon ${three(ours, 'cannon', TARGET_RATIO_CANNON)}`);
    if (before) {
      out.push(
        `  ${sc.name} (baseline build): ours/rapier ${three(before, 'rapier', TARGET_RATIO_RAPIER)}; ours/cannon ${three(before, 'cannon', TARGET_RATIO_CANNON)}`,
      );
    }
  }
  return out;
}

/** The exact solvers' world-step target: ≤ this × ours/pgs (median ms/step), converged on every timed step. */
const TARGET_RATIO_EXACT = 10;

/** One line per exact configuration (newton, ipm, and their baseline rows): × ours/pgs by median wall and median CPU time, and its statuses. */
function exactTargetLines(sc: SceneReport): string[] {
  const pgs = sc.rows.find((x) => x.engine === 'ours' && x.solver === 'pgs' && !x.config.includes('baseline'));
  const times = (r: WorldBenchRow, key: 'medianMs' | 'medianCpuMs'): string => {
    const a = r[key],
      b = pgs?.[key];
    return a != null && b ? `${fmtRatio(a / b)} ${a / b <= TARGET_RATIO_EXACT ? 'met' : 'missed'}` : 'not measured';
  };
  return sc.rows
    .filter((r) => r.engine === 'ours' && (r.solver === 'newton' || r.solver === 'ipm'))
    .map((r) => {
      const st = r.ours
        ? Object.entries(r.ours.statuses)
            .map(([k, v]) => `${k} ×${v}`)
            .join(', ')
        : 'not timed';
      return `  ${sc.name} ${r.config}: × ours/pgs ${times(r, 'medianMs')} / ${times(r, 'medianCpuMs')} (median wall / CPU; ≤ ${TARGET_RATIO_EXACT}×), largest island ${st}`;
    });
}

interface SceneReport {
  readonly name: string;
  readonly file: string;
  readonly bodies: number;
  readonly dynamicBodies: number;
  readonly settle: SettleInfo;
  readonly rows: WorldBenchRow[];
}

function sceneLines(scenes: readonly SceneReport[]): string[] {
  const out = ['scenes:'];
  for (const sc of scenes) {
    const st = sc.settle;
    const how = st.engine
      ? `settled ${st.steps} steps with ${st.engine} (${fmtMs(st.ms ?? 0)} ms)`
      : 'NOT settled (every settle engine failed), all configurations start from the scene file';
    out.push(`  ${sc.name} (${sc.file}): ${sc.dynamicBodies} boxes + ground; ${how}`);
    for (const f of st.failures) out.push(`    settle engine failed: ${f}`);
    if (st.probe) out.push(`    our detection on that state: ${probeText(st.probe)}`);
  }
  out.push('');
  return out;
}

function oursLines(scenes: readonly SceneReport[]): string[] {
  const out = [
    '',
    "our engine, contacts and islands per configuration (timed steps; contacts min/median/max; largest island: its solve's median iterations and statuses):",
  ];
  const rows = scenes.flatMap((s) => s.rows).filter((r) => r.engine === 'ours');
  const w1 = Math.max(...rows.map((r) => r.scene.length)),
    w2 = Math.max(...rows.map((r) => r.config.length));
  for (const r of rows) {
    const head = `  ${r.scene.padEnd(w1)}  ${r.config.padEnd(w2)}  `;
    const d = r.ours;
    if (d && !r.skipped && d.islandsMedian === 0 && d.contactsMax === 0) {
      out.push(`${head}no contacts in the timed steps`);
    } else if (d && !r.skipped) {
      const st = Object.entries(d.statuses)
        .map(([k, v]) => `${k} ×${v}`)
        .join(', ');
      const methods = d.methods.map((m) => `${m.method} ${m.islands} island${m.islands === 1 ? '' : 's'} / ${m.contacts} contacts`).join(', ');
      out.push(
        `${head}contacts ${d.contactsMin}/${d.contactsMedian}/${d.contactsMax} (speculative median ${d.speculativeMedian}), islands ${d.islandsMedian}, largest island ` +
          `${islandText(d.largestIslandContacts, d.largestIslandBodies)} by ${d.largestIslandMethod}: ${d.iterationsMedian} iterations (${st}); last step: ${methods}`,
      );
    } else if (r.probe) {
      out.push(`${head}not timed; at its first step: ${probeText(r.probe)}${d ? ` (${r.warmupSteps} warm-up step(s) completed)` : ''}`);
    } else {
      out.push(`${head}not timed`);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const { options, rest } = worldOptions(process.argv.slice(2));
  const args = parseBenchArgs(rest);
  const plan = makePlan(args);
  const machine = machineInfo();
  const libs = { 'cannon-es': packageVersion('cannon-es'), '@dimforge/rapier3d-compat': packageVersion('@dimforge/rapier3d-compat') };
  const progress = (s: string): void => {
    if (process.stderr.isTTY) process.stderr.write(`… ${s}\n`);
  };
  const scenes: SceneReport[] = [];
  for (const scene of WORLD_SCENES) {
    let desc: ScenarioDesc;
    try {
      desc = loadScenario(scene.file);
    } catch (e) {
      process.stderr.write(`${scene.name}: cannot load ${scene.file}: ${errorText(e)}\n`);
      continue;
    }
    const settled = await settle(scene, desc, plan, progress);
    const configs = configsFor(desc, options);
    const rows: WorldBenchRow[] = [];
    for (const cfg of configs) {
      progress(`${scene.name}: ${cfg.label}`);
      const ours = cfg.engine === 'ours';
      const job: Job = {
        kind: JOB_KIND,
        engine: cfg.engine,
        ...(cfg.solver ? { solver: cfg.solver } : {}),
        ...(cfg.iterations !== undefined ? { iterations: cfg.iterations } : {}),
        desc: settled.desc,
        warmupSteps: ours ? plan.oursWarmupSteps : plan.libWarmupSteps,
        warmupBudgetMs: ours ? plan.oursWarmupBudgetMs : Infinity,
        timedSteps: plan.timedSteps,
        timedBudgetMs: plan.timedBudgetMs,
        minTimed: plan.minTimed,
        wantSnapshot: false,
      };
      const file = cfg.baseline && options.baselineBundle ? options.baselineBundle : __filename;
      rows.push(makeRow(scene.name, cfg, await runJob(job, plan.stepLimitMs, plan.setupLimitMs, file), plan, settled.info.probe));
    }
    scenes.push({
      name: scene.name,
      file: scene.file,
      bodies: desc.bodies.length,
      dynamicBodies: desc.bodies.filter((b) => b.mass !== null && b.shape.kind !== 'plane').length,
      settle: settled.info,
      rows: withRatios(rows, configs),
    });
  }
  const loadAverageAtEnd = os.loadavg()[0];
  if (args.json) {
    process.stdout.write(
      `${JSON.stringify(
        {
          machine: { ...machine, loadAverageAtEnd },
          libraries: libs,
          plan,
          iterationMapping: 'ours pgs maxIterations N = cannon-es world.solver.iterations N = Rapier numSolverIterations N (numInternalPgsIterations 1)',
          scenes,
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  const lines = [
    ...headerLines(machine, plan, args, libs),
    ...(options.baselineBundle
      ? [`baseline: the "(baseline)" rows run ${options.baselineBundle} (another build), each right before this build's row of the same solver`, '']
      : []),
    ...(options.pgsOnly ? ['--pgs-only: the ours/newton and ours/ipm rows are not run', ''] : []),
    ...sceneLines(scenes),
    ...renderTable(scenes.flatMap((s) => s.rows)),
    ...targetLines(scenes),
    ...oursLines(scenes),
    '',
    `load average ${machine.loadAverage.toFixed(2)} at start, ${loadAverageAtEnd.toFixed(2)} at end on ${machine.cores} cores` +
      (Math.max(machine.loadAverage, loadAverageAtEnd) > machine.cores - 1
        ? ': other processes competed for the CPU, timings are noisy (compare min with median)'
        : ''),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (isMainThread) {
  main().catch((e) => {
    process.stderr.write(`bench-world: ${errorText(e)}\n`);
    process.exitCode = 1;
  });
} else if ((workerData as Job | undefined)?.kind === JOB_KIND) {
  void workerMain(workerData as Job);
}
