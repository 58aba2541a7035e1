/**
 * Real friction-contact problems: every FCLIB local problem (*.hdf5, *.h5) in the given folders, read with our
 * reader (src/format/fclib.ts: W as given), solved by each of our solvers and — when Debian's python3-siconos
 * is importable — by Siconos's NSGS, NSN_AC, PROX, VI_EG and ADMM in the same run (bench/siconos_fc3d.py), every
 * λ judged by the same FCLIB merit (src/engine/coulombMerit.ts) at one tolerance. Warm times: one run to warm the
 * JIT, then several runs in the same process, min and median. Prints the per-problem table, solved counts and the
 * Dolan–Moré performance profile, per-family figures and the exact Coulomb solver's ratio to Siconos's best.
 *
 *   npm run bench:fclib [-- dir…] [--runs N] [--tolerance T] [--no-siconos] [--solvers a,b] [--clock cpu|wall] [--json]
 *
 * --clock cpu (default): solve times are CPU time of the solving process, ours and Siconos's alike, so the waits
 * for a core on a machine shared with other jobs are not counted (on 2 cores at load 15, the median of five
 * 1-ms batches of a 5 µs solve read 10–100× its minimum in wall time, on either side); --clock wall: wall time.
 *
 * Default folder: ../shared/fclib/siconos beside the repository ($CONTACT_LENS_FCLIB_DIR overrides it). Prints;
 * asserts nothing.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { coulombMerit } from '../src/engine/coulombMerit.js';
import type { ContactProblem } from '../src/engine/problem.js';
import { solve } from '../src/engine/solvers/solve.js';
import { SOLVER_NAMES, type SolverName } from '../src/engine/solvers/types.js';
import { eigenRatio, openProblemFile, type OpenedProblem } from '../src/session/problemFile.js';
import { exactIslandConditioning } from '../src/session/conditioningEstimate.js';
import { kaplaTower } from './kaplaTower.js';
import { machineInfo } from './common.js';
import { familyOf, familyTable, minOf, medianOf, type ProblemRow, problemTable, profileTable, type Run, verdict } from './fclibReport.js';

const ROOT = resolve(__dirname, '..');
const DEFAULT_DIR = resolve(process.env.CONTACT_LENS_FCLIB_DIR ?? join(ROOT, '..', 'shared', 'fclib', 'siconos'));
const SICONOS_SOLVERS = ['NSGS', 'NSN_AC', 'PROX', 'VI_EG', 'ADMM'] as const;
/** After the first measured run, a solver stops repeating once it has spent this long on a problem. */
const MAX_SECONDS = 3;
/** A solve faster than this (ms) is timed over a batch of solves taking about this long. */
const BATCH_MS = 1;
/**
 * Our batch under --clock cpu: process.cpuUsage counts every thread of the process, and V8's GC threads work in
 * bursts of up to a millisecond (the GC work our allocations cause, but in bursts): a 1-ms batch read 2–10× a
 * 20-ms one. Siconos's process_time around each call has no such threads to count.
 */
const CPU_BATCH_MS = 20;
/** Warm-up before the measured runs: this many solves, or until this many ms have passed (Siconos's too). */
const WARMUP_RUNS = 2000;
const WARMUP_MS = 500;

interface Args {
  dirs: string[];
  runs: number;
  tolerance: number;
  siconos: boolean;
  solvers: SolverName[];
  json: boolean;
  /** Layers of the synthetic Kapla tower added to the problems (bench/kaplaTower.ts), 0 for none. */
  kapla: number;
  /** What a solve's time counts: CPU time of the process (default) or wall time. */
  clock: 'cpu' | 'wall';
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = { dirs: [], runs: 5, tolerance: 1e-8, siconos: true, solvers: [...SOLVER_NAMES], json: false, kapla: 0, clock: 'cpu' };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    if (x === '--runs') a.runs = Math.max(1, Number(argv[++i]));
    else if (x === '--tolerance') a.tolerance = Number(argv[++i]);
    else if (x === '--no-siconos') a.siconos = false;
    else if (x === '--json') a.json = true;
    else if (x === '--clock') {
      const c = argv[++i];
      if (c !== 'cpu' && c !== 'wall') throw new Error(`--clock ${c ?? ''}: expected cpu or wall`);
      a.clock = c;
    } else if (x === '--kapla') a.kapla = /^\d+$/.test(argv[i + 1] ?? '') ? Number(argv[++i]) : 36;
    else if (x === '--only-kapla') {
      a.kapla = /^\d+$/.test(argv[i + 1] ?? '') ? Number(argv[++i]) : 36;
      a.dirs.push('');
    } else if (x === '--solvers') a.solvers = argv[++i].split(',').filter((s): s is SolverName => (SOLVER_NAMES as readonly string[]).includes(s));
    else if (x.startsWith('--'))
      throw new Error(
        `unknown option ${x} (expected --runs N, --tolerance T, --no-siconos, --solvers a,b, --kapla [layers], --only-kapla [layers], --clock cpu|wall, --json)`,
      );
    else a.dirs.push(resolve(x));
  }
  if (!(a.tolerance > 0)) throw new Error('--tolerance must be a positive number');
  if (!a.dirs.length) a.dirs.push(DEFAULT_DIR);
  return a;
}

function problemFiles(dirs: readonly string[]): string[] {
  const files: string[] = [];
  for (const d of dirs) {
    if (d === '') continue; // --only-kapla
    if (!existsSync(d)) throw new Error(`${d}: no such folder (give FCLIB folders as arguments, or set CONTACT_LENS_FCLIB_DIR)`);
    if (statSync(d).isFile()) files.push(d);
    else for (const f of readdirSync(d).sort()) if (/\.(hdf5|h5)$/i.test(f)) files.push(join(d, f));
  }
  return files;
}

/**
 * Our solver's warm runs: one to warm up, then up to `runs` (fewer once MAX_SECONDS are spent); a solve faster
 * than BATCH_MS is timed over a batch of solves (the mean per solve). CPU time: the batch's, as a whole (the loop
 * costs nothing next to a solve); wall time: each solve on its own, summed, as bench/siconos_fc3d.py times Siconos's
 * (a batch timed as a whole also counted the waits for a core between solves, on our side only).
 */
function runOurs(p: ContactProblem, solver: SolverName, runs: number, tol: number, clock: Args['clock']): Run {
  const options = solver === 'coulomb' || solver === 'pgs' ? { solver, tolerance: tol } : { solver };
  // warm-up: the JIT and the buffers (WARMUP_RUNS solves, or WARMUP_MS)
  let r = solve(p, options);
  let first = Number.POSITIVE_INFINITY;
  const w0 = performance.now();
  for (let k = 0; k < WARMUP_RUNS && performance.now() - w0 < WARMUP_MS; k++) {
    const t = performance.now();
    r = solve(p, options);
    first = Math.min(first, performance.now() - t);
  }
  const target = clock === 'cpu' ? CPU_BATCH_MS : BATCH_MS;
  const batch = first >= target ? 1 : Math.min(20000, Math.floor(target / Math.max(first, 1e-4)) + 1);
  const times: number[] = [];
  const start = performance.now();
  for (let k = 0; k < runs; k++) {
    let total = 0;
    if (clock === 'cpu') {
      // process.cpuUsage counts microseconds: read around the batch (the loop adds nothing measurable)
      const c0 = process.cpuUsage();
      for (let j = 0; j < batch; j++) r = solve(p, options);
      const c = process.cpuUsage(c0);
      total = (c.user + c.system) / 1000;
    } else
      for (let j = 0; j < batch; j++) {
        const t0 = performance.now();
        r = solve(p, options);
        total += performance.now() - t0;
      }
    times.push(total / batch);
    if (performance.now() - start > MAX_SECONDS * 1000) break;
  }
  const note = r.status.kind === 'converged' ? `converged (${r.merit.problem === 'coulomb' ? 'Coulomb merit' : 'KKT'})` : r.status.kind;
  return { solver, origin: 'ours', times, iterations: r.iterations, merit: r.merit.problem === 'coulomb' ? r.merit.value : coulombMerit(p, r.lambda), note };
}

/** The first Python that imports siconos.numerics, or null. */
function findSiconosPython(): { python: string; version: string; storage: string } | null {
  for (const python of ['python3', '/usr/bin/python3']) {
    const probe = spawnSync(python, [join(__dirname, 'siconos_fc3d.py')], { input: '{"probe":true}\n', encoding: 'utf8' });
    const line = probe.stdout?.split('\n').find((l) => l.startsWith('{'));
    if (probe.status === 0 && line) {
      const info = JSON.parse(line) as { siconos: string; storage: string };
      return { python, version: info.siconos, storage: info.storage };
    }
  }
  return null;
}

interface SiconosLine {
  id: string;
  solver: string;
  times?: number[];
  iterations?: number;
  info?: number;
  error?: number;
  r?: number[];
  exception?: string;
}

/** One Python process running Siconos's solvers, one problem per request (bench/siconos_fc3d.py). */
class SiconosProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private waiting: ((line: string | null) => void) | null = null;
  private readonly lines: string[] = [];
  private closed = false;
  constructor(python: string) {
    this.child = spawn(python, [join(__dirname, 'siconos_fc3d.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8').on('data', (d: string) => {
      this.buffer += d;
      let k = this.buffer.indexOf('\n');
      while (k >= 0) {
        const line = this.buffer.slice(0, k);
        this.buffer = this.buffer.slice(k + 1);
        if (line.startsWith('{')) this.push(line); // Siconos prints its own messages too
        k = this.buffer.indexOf('\n');
      }
    });
    this.child.stderr.resume(); // Siconos's warnings (LU breakdowns, storage conversions)
    this.child.on('close', () => {
      this.closed = true;
      this.waiting?.(null);
    });
  }
  private push(line: string): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(line);
    } else this.lines.push(line);
  }
  private next(): Promise<string | null> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.closed) return Promise.resolve(null);
    return new Promise((done) => (this.waiting = done));
  }
  /** Siconos's solvers on one problem (W sent as its nonzero triplets). */
  async solve(o: OpenedProblem, args: Args): Promise<SiconosLine[]> {
    const { A, b, mu, size: n } = o.problem;
    const rows: number[] = [],
      cols: number[] = [],
      vals: number[] = [];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        if (A[i * n + j] === 0) continue;
        rows.push(i);
        cols.push(j);
        vals.push(A[i * n + j]);
      }
    }
    const problem = { id: o.id, n, rows, cols, vals, q: Array.from(b, (x) => -x), mu: Array.from(mu) };
    this.child.stdin.write(
      `${JSON.stringify({ tolerance: args.tolerance, runs: args.runs, maxSeconds: MAX_SECONDS, batchMs: BATCH_MS, warmupRuns: WARMUP_RUNS, warmupMs: WARMUP_MS, clock: args.clock, solvers: SICONOS_SOLVERS, problem })}\n`,
    );
    const out: SiconosLine[] = [];
    for (;;) {
      const line = await this.next();
      if (line === null) return out;
      const parsed = JSON.parse(line) as SiconosLine & { done?: string };
      if (parsed.done !== undefined) return out;
      out.push(parsed);
    }
  }
  close(): void {
    this.child.stdin.end();
  }
}

function siconosRun(line: SiconosLine, p: ContactProblem): Run {
  if (line.exception !== undefined || !line.r || !line.times)
    return { solver: line.solver, origin: 'siconos', times: [], iterations: 0, merit: Number.NaN, note: `exception: ${line.exception ?? 'no result'}` };
  const times = line.times;
  const merit = coulombMerit(p, Float64Array.from(line.r));
  return {
    solver: line.solver,
    origin: 'siconos',
    times,
    iterations: line.iterations ?? 0,
    merit,
    note: `info ${line.info}, Siconos error ${(line.error ?? Number.NaN).toExponential(1)}`,
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const m = machineInfo();
  const files = problemFiles(args.dirs);
  console.log(`# FCLIB local problems: ${files.length} files in ${args.dirs.join(', ')}`);
  console.log(`# ${m.cpu}, ${m.cores} cores, Node ${m.node}, ${m.platform}, ${m.date}, load average ${m.loadAverage.toFixed(2)} at start`);
  console.log(
    `# tolerance ${args.tolerance} on the FCLIB merit for every λ; warm times: a warm-up of up to ${WARMUP_RUNS} solves (${WARMUP_MS} ms), then up to ${args.runs} runs (ms of ${args.clock === 'cpu' ? 'CPU time of the solving process' : 'wall time'}; a solve under ${BATCH_MS} ms: the mean over a batch${args.clock === 'cpu' ? ` — ours of ${CPU_BATCH_MS} ms, timed as a whole` : ''}), ours and Siconos's problem by problem`,
  );
  const opened: OpenedProblem[] = [];
  const refused: string[] = [];
  for (const f of files) {
    try {
      opened.push(await openProblemFile(f, f.replace(/^.*[\\/]/, '')));
    } catch (e) {
      refused.push(String((e as Error).message));
    }
  }
  console.log(`# read ${opened.length} of ${files.length}${refused.length ? `; refused:\n#   ${refused.join('\n#   ')}` : ''}`);
  if (args.kapla > 0) {
    const { id, problem } = kaplaTower(args.kapla);
    const c = exactIslandConditioning(problem.A, problem.size, problem.regularization, problem);
    opened.push({
      id,
      file: 'bench/kaplaTower.ts',
      source: 'json',
      contactCount: problem.contactCount,
      unknowns: problem.size,
      problem,
      conditioning: c,
      asymmetry: 0,
      eigenRatio: eigenRatio(c),
      title: id,
      description: '',
      reference: null,
    });
    console.log(`# and ${id}: a synthetic Kapla tower of ${args.kapla} layers (bench/kaplaTower.ts), rank ${c.rank} of ${problem.size}`);
  }
  const python = args.siconos ? findSiconosPython() : null;
  console.log(
    python
      ? `# Siconos ${python.version} (${python.python}, W in ${python.storage} storage): ${SICONOS_SOLVERS.join(', ')} with their defaults and the same tolerance (Siconos's own error), judged by our merit`
      : `# Siconos: ${args.siconos ? 'python3-siconos not importable (apt-get install python3-siconos)' : '--no-siconos'}; our solvers only`,
  );
  // the exact Coulomb solver's code warm before any problem is timed (the inspector's process is long-lived)
  if (args.solvers.includes('coulomb')) for (const o of opened) for (let k = 0; k < 3; k++) solve(o.problem, { solver: 'coulomb', tolerance: args.tolerance });
  // problem after problem, ours then Siconos's: both under the same machine load
  const siconos = python ? new SiconosProcess(python.python) : null;
  const rows: ProblemRow[] = [];
  for (const o of opened) {
    const runs: Run[] = args.solvers.map((s) => runOurs(o.problem, s, args.runs, args.tolerance, args.clock));
    if (siconos) {
      const lines = await siconos.solve(o, args);
      for (const s of SICONOS_SOLVERS) {
        const line = lines.find((l) => l.solver === s);
        runs.push(line ? siconosRun(line, o.problem) : { solver: s, origin: 'siconos', times: [], iterations: 0, merit: Number.NaN, note: 'no output' });
      }
    }
    rows.push({ id: o.id, family: familyOf(o.id), contacts: o.contactCount, asymmetry: o.asymmetry, eigenRatio: o.eigenRatio, runs });
  }
  siconos?.close();
  const solvers = [...args.solvers, ...(python ? SICONOS_SOLVERS : [])];
  if (args.json) {
    console.log(
      JSON.stringify({
        machine: m,
        tolerance: args.tolerance,
        rows: rows.map((r) => ({ ...r, runs: r.runs.map((x) => ({ ...x, min: minOf(x.times), median: medianOf(x.times) })) })),
      }),
    );
    return;
  }
  console.log('\n## per problem: median warm ms, ✓ when the FCLIB merit ≤ tolerance, the merit');
  for (const l of problemTable(rows, solvers, args.tolerance)) console.log(l);
  console.log('\n## coulomb (exact Coulomb solver): min / median ms, iterations, status');
  for (const row of rows) {
    const r = row.runs.find((x) => x.solver === 'coulomb');
    if (r)
      console.log(
        `${row.id.padEnd(44)} ${minOf(r.times).toFixed(3).padStart(9)} ${medianOf(r.times).toFixed(3).padStart(9)}  ${String(r.iterations).padStart(4)} it  ${r.note}`,
      );
  }
  console.log('\n## solved and performance profile (share of problems solved within τ × the fastest solver)');
  for (const l of profileTable(rows, solvers, args.tolerance)) console.log(l);
  console.log('\n## per family');
  for (const l of familyTable(rows, args.tolerance)) console.log(l);
  console.log('');
  for (const l of verdict(rows, args.tolerance)) console.log(l);
  console.log(`# load average ${machineInfo().loadAverage.toFixed(2)} at the end`);
}

main().catch((e) => {
  console.error(String((e as Error).message ?? e));
  process.exit(2);
});
