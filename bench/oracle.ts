/**
 * Every solver on the oracle corpus (../shared/oracle/public, from the stored A, b, μ) and on generated box
 * stacks (bench/stacks.ts: up to 60 contacts, mass ratio 1e4, duplicated contacts, frictionless), cold and
 * warm-started from the previous frame's λ: how many converge (KKT max_rel ≤ the solver's tolerance),
 * iteration quantiles (median, p90, max), worst KKT residual, worst objective error against the reference
 * (oracle: the stored solution; stacks: the interior point's objective), time. Prints; not a test.
 * Run: npm run bench:oracle [-- --json]
 */
import { loadOracle, oracleAvailable, ORACLE_MISSING } from '../test/unit/oracle-corpus.js';
import { objective, type ContactProblem } from '../src/engine/problem.js';
import { kkt } from '../src/engine/kkt.js';
import { solve } from '../src/engine/solvers/solve.js';
import type { SolveOptions } from '../src/engine/solvers/types.js';
import { machineInfo, parseBenchArgs } from './common.js';
import { generatedStacks } from './stacks.js';

const args = parseBenchArgs(process.argv.slice(2));
if (!oracleAvailable()) {
  console.error(ORACLE_MISSING);
  process.exit(2);
}
const corpus = loadOracle();
const stacks = generatedStacks();

interface Case {
  readonly id: string;
  readonly problem: ContactProblem;
  readonly reference?: number;
  /** Problem whose λ (same solver) warm-starts this one. */
  readonly previous?: ContactProblem;
}
const oracleCases: Case[] = corpus.map((inst) => ({ id: inst.id, problem: inst.matrix, reference: inst.solution!.objective }));
// The stacks have no stored reference: the interior point's objective (KKT ≤ 1e-10 on every stack) stands in.
const stackReference = stacks.map((s) => solve(s.problem, { solver: 'ipm' }).objective);
const stackCold: Case[] = stacks.map((s, i) => ({ id: s.id, problem: s.problem, reference: stackReference[i] }));
const stackWarm: Case[] = stacks.map((s, i) => ({ id: s.id, problem: s.problem, previous: s.previous, reference: stackReference[i] }));

const configs: { label: string; options: SolveOptions; frictionlessOnly?: boolean; oracleOnly?: boolean }[] = [
  { label: 'newton', options: { solver: 'newton' } },
  { label: 'ipm', options: { solver: 'ipm' } },
  { label: 'pgs (default budget)', options: { solver: 'pgs' }, oracleOnly: true },
  {
    label: 'pgs, μ = 0 only, to 1e-7',
    options: { solver: 'pgs', diagonalScaling: true, maxIterations: 500_000, tolerance: 1e-7 },
    frictionlessOnly: true,
    oracleOnly: true,
  },
];

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

function run(corpusLabel: string, cases: Case[], label: string, options: SolveOptions, frictionlessOnly?: boolean) {
  const its: number[] = [],
    notConverged: string[] = [];
  let worstKkt = 0,
    worstObj = 0,
    ms = 0,
    n = 0;
  for (const c of cases) {
    if (frictionlessOnly && !Array.from(c.problem.mu).every((m) => m === 0)) continue;
    const warm = c.previous ? solve(c.previous, options).lambda : undefined;
    const r = solve(c.problem, options, warm);
    n++;
    ms += r.timeMs;
    its.push(r.iterations);
    const k = kkt(c.problem, r.lambda).maxRel;
    worstKkt = Math.max(worstKkt, k);
    if (c.reference !== undefined) {
      worstObj = Math.max(worstObj, Math.abs(objective(c.problem, r.lambda) - c.reference) / Math.max(1, Math.abs(c.reference)));
    }
    if (r.status.kind !== 'converged') notConverged.push(`${c.id} ${r.status.kind} after ${r.iterations} (KKT ${k.toExponential(1)})`);
  }
  its.sort((a, b) => a - b);
  return {
    corpus: corpusLabel,
    label,
    instances: n,
    converged: n - notConverged.length,
    iterations: { median: quantile(its, 0.5), p90: quantile(its, 0.9), max: its[its.length - 1] },
    worstKkt,
    worstObjectiveRel: cases.some((c) => c.reference !== undefined) ? worstObj : undefined,
    totalMs: ms,
    notConverged,
  };
}

const rows = [];
for (const { label, options, frictionlessOnly, oracleOnly } of configs) {
  rows.push(run('oracle', oracleCases, label, options, frictionlessOnly));
  if (oracleOnly) continue;
  rows.push(run('stacks, cold', stackCold, label, options));
  rows.push(run('stacks, warm', stackWarm, label, options));
}
if (args.json) {
  console.log(JSON.stringify({ machine: machineInfo(), rows }));
} else {
  const m = machineInfo();
  console.log(
    `Contact Lens solvers on the oracle corpus (${corpus.length} instances, from the stored A, b, μ) and ${stacks.length} generated stacks (bench/stacks.ts)`,
  );
  console.log(`machine: ${m.cpu}, ${m.cores} cores, ${m.platform}, Node ${m.node}, ${m.date}, load ${m.loadAverage.toFixed(2)}`);
  console.log('corpus        solver                      inst  conv  iter med/p90/max   worst KKT  worst |f−f*|/max(1,|f*|)  total ms');
  for (const r of rows) {
    const obj = r.worstObjectiveRel === undefined ? '—' : r.worstObjectiveRel.toExponential(2);
    console.log(
      `${r.corpus.padEnd(13)} ${r.label.padEnd(27)} ${String(r.instances).padStart(4)}  ${String(r.converged).padStart(4)}  ${`${r.iterations.median}/${r.iterations.p90}/${r.iterations.max}`.padStart(16)}   ${r.worstKkt.toExponential(2)}  ${obj.padStart(24)}  ${r.totalMs.toFixed(0).padStart(8)}`,
    );
  }
  for (const r of rows) if (r.notConverged.length) console.log(`\n${r.corpus}, ${r.label}: not converged on\n  ${r.notConverged.join('\n  ')}`);
}
