/**
 * `npm run fuzz -- N [seed]`: N seeded inputs per fuzz target (test/fuzz/targets.ts), then one row per target:
 * inputs, rejected with a one-line error, uncaught (must be 0), inputs slower than the 1 s limit, and the
 * slowest input. Exits 1 when any input is uncaught. Figures are printed with the machine's load (the CPU
 * may be shared).
 */
import * as os from 'node:os';
import { FUZZ_MAX_MS, FUZZ_TARGETS, runTarget, type TargetFigures } from '../test/fuzz/targets.js';

async function main(): Promise<number> {
  const n = Math.max(1, Math.floor(Number(process.argv[2] ?? 20000)) || 20000);
  const seed = Math.floor(Number(process.argv[3] ?? 20261123)) || 20261123;
  const only = process.env.CONTACT_LENS_FUZZ_TARGETS?.split(',');
  const load = () =>
    os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  console.log(`fuzz: ${n} inputs per target, seed ${seed}; ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load ${load()}`);
  const rows: TargetFigures[] = [];
  for (const t of FUZZ_TARGETS) {
    if (only && !only.includes(t.name)) continue;
    const t0 = performance.now();
    const f = await runTarget(t, n, seed, (done) => process.stderr.write(`  ${t.name}: ${done}/${n}\r`));
    rows.push(f);
    console.log(`${t.name}: done in ${((performance.now() - t0) / 1000).toFixed(0)} s (load ${load()})`);
    for (const x of f.failures) console.log(`  uncaught: ${x}`);
  }
  const head = ['target', 'inputs', 'rejected (one line)', 'uncaught', `over ${FUZZ_MAX_MS} ms CPU`, 'slowest CPU (ms)', 'slowest input', 'slowest wall (ms)'];
  const table = [
    head,
    ...rows.map((f) => [
      f.target,
      String(f.inputs),
      String(f.rejected),
      String(f.uncaught),
      String(f.slow),
      f.slowestMs.toFixed(1),
      f.slowest,
      f.slowestWallMs.toFixed(1),
    ]),
  ];
  const widths = head.map((_, c) => Math.max(...table.map((r) => r[c].length)));
  for (const r of table)
    console.log(
      r
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd(),
    );
  const uncaught = rows.reduce((s, f) => s + f.uncaught, 0);
  console.log(uncaught === 0 ? 'no uncaught input' : `${uncaught} uncaught input(s)`);
  return uncaught === 0 ? 0 : 1;
}

void main().then((code) => {
  process.exitCode = code;
});
