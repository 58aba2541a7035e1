/**
 * Every solver on the oracle corpus (../shared/oracle/public), from the stored (A, b, μ): how many converge,
 * iterations, worst KKT residual, worst objective error against the oracle, time. Prints; not a test.
 * Run: npm run bench:oracle [-- --json]
 */
import { loadOracle, oracleAvailable, ORACLE_MISSING } from '../test/unit/oracle-corpus.js';
import { objective } from '../src/engine/problem.js';
import { kkt } from '../src/engine/kkt.js';
import { solve } from '../src/engine/solvers/solve.js';
import type { SolveOptions } from '../src/engine/solvers/types.js';
import { machineInfo, parseBenchArgs } from './common.js';

const args = parseBenchArgs(process.argv.slice(2));
if (!oracleAvailable()) {
  console.error(ORACLE_MISSING);
  process.exit(2);
}
const corpus = loadOracle();
const configs: { label: string; options: SolveOptions; frictionlessOnly?: boolean }[] = [
  { label: 'newton', options: { solver: 'newton' } },
  { label: 'ipm', options: { solver: 'ipm' } },
  { label: 'pgs (default budget)', options: { solver: 'pgs' } },
  { label: 'pgs, μ = 0 only, to 1e-7', options: { solver: 'pgs', diagonalScaling: true, maxIterations: 500_000, tolerance: 1e-7 }, frictionlessOnly: true },
];
const rows = configs.map(({ label, options, frictionlessOnly }) => {
  const its: number[] = [],
    notConverged: string[] = [];
  let worstKkt = 0,
    worstObj = 0,
    ms = 0,
    n = 0;
  for (const inst of corpus) {
    if (frictionlessOnly && !inst.matrix.mu.every((m) => m === 0)) continue;
    const r = solve(inst.matrix, options);
    n++;
    ms += r.timeMs;
    its.push(r.iterations);
    const k = kkt(inst.matrix, r.lambda).maxRel;
    worstKkt = Math.max(worstKkt, k);
    const f = inst.solution!.objective;
    worstObj = Math.max(worstObj, Math.abs(objective(inst.matrix, r.lambda) - f) / Math.max(1, Math.abs(f)));
    if (r.status.kind !== 'converged') notConverged.push(`${inst.id} ${r.status.kind} after ${r.iterations} (KKT ${k.toExponential(1)})`);
  }
  its.sort((a, b) => a - b);
  return {
    label,
    instances: n,
    converged: n - notConverged.length,
    iterations: { min: its[0], median: its[Math.floor(its.length / 2)], max: its[its.length - 1] },
    worstKkt,
    worstObjectiveRel: worstObj,
    totalMs: ms,
    notConverged,
  };
});
if (args.json) {
  console.log(JSON.stringify({ machine: machineInfo(), rows }));
} else {
  const m = machineInfo();
  console.log(`Contact Lens solvers on the oracle corpus (${corpus.length} instances, from the stored A, b, μ)`);
  console.log(`machine: ${m.cpu}, ${m.cores} cores, ${m.platform}, Node ${m.node}, ${m.date}, load ${m.loadAverage.toFixed(2)}`);
  console.log('solver                      inst  conv  iterations min/med/max   worst KKT  worst |f−f*|/max(1,|f*|)  total ms');
  for (const r of rows) {
    console.log(
      `${r.label.padEnd(27)} ${String(r.instances).padStart(4)}  ${String(r.converged).padStart(4)}  ${`${r.iterations.min}/${r.iterations.median}/${r.iterations.max}`.padStart(22)}   ${r.worstKkt.toExponential(2)}  ${r.worstObjectiveRel.toExponential(2).padStart(24)}  ${r.totalMs.toFixed(0).padStart(8)}`,
    );
  }
  for (const r of rows) if (r.notConverged.length) console.log(`\n${r.label}: not converged on\n  ${r.notConverged.join('\n  ')}`);
}
