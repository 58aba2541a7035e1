/**
 * Re-solve cost benchmark (prints, not a test): `npm run bench:resolve-cost [-- --baseline DIR]`. The diagnosis
 * budgets its exact re-solves in work units (src/session/counterfactual.ts resolveWork) so that findings do not
 * depend on the machine; this prints, for the generated stacks of bench/stacks.ts (4–60 contacts), the CPU time
 * of an interior-point solve (the counterfactuals' solver: `solver: 'ipm'`, 80 iterations, at KKT 1e-9) beside
 * its work units, as ns per unit — the units track time when that column is flat across island sizes.
 *
 * --baseline DIR: another checkout's solver (DIR/src/engine/solvers/solve.ts, e.g. /work/main) timed on the same
 * islands in the same process, interleaved with this one's (both see the same load), with the counterfactuals'
 * own options too (KKT 1e-6, refinement 'shifted', counterfactual.ts RESOLVE_OPTIONS).
 */
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generatedStack } from './stacks.js';
import { solve } from '../src/engine/solvers/solve.js';
import { RESOLVE_ITERATION_OVERHEAD, resolveWork } from '../src/session/counterfactual.js';
import { machineInfo } from './common.js';

type Solve = typeof solve;
type Options = Parameters<Solve>[1];

const m = machineInfo();
const bi = process.argv.indexOf('--baseline');
const baseDir = bi >= 0 ? process.argv[bi + 1] : undefined;
if (bi >= 0 && !baseDir) throw new Error('--baseline needs a checkout folder (its src/engine/solvers/solve.ts is timed)');
async function main(): Promise<void> {
  const base: Solve | null = baseDir
    ? ((await import(pathToFileURL(resolvePath(baseDir, 'src/engine/solvers/solve.ts')).href)) as { solve: Solve }).solve
    : null;

  console.log(`Re-solve cost — ${m.cpu} × ${m.cores}, Node ${m.node}, load ${m.loadAverage.toFixed(1)}, ${m.date}`);
  console.log(
    `units per interior-point iteration: (3C)² + ${RESOLVE_ITERATION_OVERHEAD} (the second term: the per-iteration cost that does not grow with the island)`,
  );
  const opts = { solver: 'ipm', tolerance: 1e-9, maxIterations: 80 } as const;
  const counterfactualOpts = { solver: 'ipm', tolerance: 1e-6, maxIterations: 80, refinement: 'shifted' } as const;

  /** CPU µs per solve of p with `f`, after 3 warm-up solves. */
  function cpuPerSolve(f: Solve, p: ReturnType<typeof generatedStack>['problem'], o: Options, reps: number): { us: number; it: number } {
    for (let k = 0; k < 3; k++) f(p, o); // warm the JIT
    let it = 0;
    const t = process.cpuUsage();
    for (let k = 0; k < reps; k++) it = f(p, o).iterations;
    const c = process.cpuUsage(t);
    return { us: (c.user + c.system) / reps, it };
  }

  const rows: { C: number; it: number; us: number; units: number; bare: number; baseUs: number; cfUs: number; cfBaseUs: number }[] = [];
  for (let i = 0; i < 60; i++) {
    const p = generatedStack(i).problem;
    const C = p.contactCount;
    const reps = Math.max(5, Math.round(4000 / (C * C)));
    const ours = cpuPerSolve(solve, p, opts, reps);
    const row = { C, it: ours.it, us: ours.us, units: resolveWork(C, ours.it), bare: (ours.it + 1) * (3 * C) ** 2, baseUs: 0, cfUs: 0, cfBaseUs: 0 };
    if (base) {
      // interleaved: base, ours, base, ours on the same island
      row.baseUs = cpuPerSolve(base, p, opts, reps).us;
      row.cfBaseUs = cpuPerSolve(base, p, counterfactualOpts, reps).us;
      row.cfUs = cpuPerSolve(solve, p, counterfactualOpts, reps).us;
    }
    rows.push(row);
  }
  rows.sort((a, b) => a.C - b.C);
  const bands: [number, number][] = [
    [1, 8],
    [9, 20],
    [21, 40],
    [41, 60],
  ];
  const med = (v: number[]) => v.sort((a, b) => a - b)[v.length >> 1];
  console.log(
    `contacts   islands   median CPU µs/solve   ns per unit   ns per (3C)²-only unit${base ? '   baseline µs/solve   counterfactual options: µs/solve, baseline' : ''}`,
  );
  for (const [lo, hi] of bands) {
    const r = rows.filter((x) => x.C >= lo && x.C <= hi);
    if (r.length === 0) continue;
    const cols = [
      `${lo}–${hi}`.padEnd(10),
      String(r.length).padStart(7),
      med(r.map((x) => x.us))
        .toFixed(0)
        .padStart(19),
      med(r.map((x) => (x.us * 1e3) / x.units))
        .toFixed(1)
        .padStart(11),
      med(r.map((x) => (x.us * 1e3) / x.bare))
        .toFixed(1)
        .padStart(22),
    ];
    if (base)
      cols.push(
        med(r.map((x) => x.baseUs))
          .toFixed(0)
          .padStart(17),
        `${med(r.map((x) => x.cfUs))
          .toFixed(0)
          .padStart(24)}, ${med(r.map((x) => x.cfBaseUs)).toFixed(0)}`,
      );
    console.log(cols.join('   '));
  }
  if (base) {
    const sum = (k: 'us' | 'baseUs' | 'cfUs' | 'cfBaseUs') => rows.reduce((s, x) => s + x[k], 0);
    console.log(
      `all 60 islands, CPU per solve summed: this build ${(sum('us') / 1e3).toFixed(1)} ms vs baseline ${(sum('baseUs') / 1e3).toFixed(1)} ms (${(100 * (1 - sum('us') / sum('baseUs'))).toFixed(1)} % less); counterfactual options ${(sum('cfUs') / 1e3).toFixed(1)} vs ${(sum('cfBaseUs') / 1e3).toFixed(1)} ms (${(100 * (1 - sum('cfUs') / sum('cfBaseUs'))).toFixed(1)} % less); load now ${machineInfo().loadAverage.toFixed(1)}`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
