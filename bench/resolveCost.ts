/**
 * Re-solve cost benchmark (prints, not a test): `npm run bench:resolve-cost`. The diagnosis budgets its exact
 * re-solves in work units (src/session/counterfactual.ts resolveWork) so that findings do not depend on the
 * machine; this prints, for the generated stacks of bench/stacks.ts (4–60 contacts), the CPU time of an
 * interior-point solve (the counterfactuals' solver and options) beside its work units, as ns per unit — the
 * units track time when that column is flat across island sizes.
 */
import { generatedStack } from './stacks.js';
import { solve } from '../src/engine/solvers/solve.js';
import { RESOLVE_ITERATION_OVERHEAD, resolveWork } from '../src/session/counterfactual.js';
import { machineInfo } from './common.js';

const m = machineInfo();
console.log(`Re-solve cost — ${m.cpu} × ${m.cores}, Node ${m.node}, load ${m.loadAverage.toFixed(1)}, ${m.date}`);
console.log(
  `units per interior-point iteration: (3C)² + ${RESOLVE_ITERATION_OVERHEAD} (the second term: the per-iteration cost that does not grow with the island)`,
);
const opts = { solver: 'ipm', tolerance: 1e-9, maxIterations: 80 } as const;
const rows: { C: number; it: number; us: number; units: number; bare: number }[] = [];
for (let i = 0; i < 60; i++) {
  const p = generatedStack(i).problem;
  const C = p.contactCount;
  for (let k = 0; k < 3; k++) solve(p, opts); // warm the JIT
  const reps = Math.max(5, Math.round(4000 / (C * C)));
  let it = 0;
  const t = process.cpuUsage();
  for (let k = 0; k < reps; k++) it = solve(p, opts).iterations;
  const us = process.cpuUsage(t).user / reps;
  rows.push({ C, it, us, units: resolveWork(C, it), bare: (it + 1) * (3 * C) ** 2 });
}
rows.sort((a, b) => a.C - b.C);
const bands: [number, number][] = [
  [1, 8],
  [9, 20],
  [21, 40],
  [41, 60],
];
console.log('contacts   islands   median CPU µs/solve   ns per unit   ns per (3C)²-only unit');
for (const [lo, hi] of bands) {
  const r = rows.filter((x) => x.C >= lo && x.C <= hi);
  if (r.length === 0) continue;
  const med = (v: number[]) => v.sort((a, b) => a - b)[v.length >> 1];
  console.log(
    `${`${lo}–${hi}`.padEnd(10)} ${String(r.length).padStart(7)}   ${med(r.map((x) => x.us))
      .toFixed(0)
      .padStart(19)}   ${med(r.map((x) => (x.us * 1e3) / x.units))
      .toFixed(1)
      .padStart(11)}   ${med(r.map((x) => (x.us * 1e3) / x.bare))
      .toFixed(1)
      .padStart(22)}`,
  );
}
