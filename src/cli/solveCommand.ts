/** `contact-lens solve <problem.json|problem.hdf5> [--solver pgs|newton|ipm|coulomb|all] [--from physical|matrix] [--json]` */
import { assembleOraclePhysical, parseOracleInstance } from '../format/oracle.js';
import { isFclibInput, readFclibLocal } from '../format/fclib.js';
import { resolve } from 'node:path';
import { solve } from '../engine/solvers/solve.js';
import { SOLVER_NAMES, type SolveResult, type SolverName } from '../engine/solvers/types.js';
import type { ContactProblem } from '../engine/problem.js';
import { EXACT_ON_DEMAND_MAX_ROWS, exactIslandConditioning } from '../session/conditioningEstimate.js';
import { eigenRatio } from '../session/problemFile.js';
import { convexifiedNote } from '../engine/solvers/convexify.js';
import { oneOf, parseArgs, UsageError } from './args.js';
import { readInputBytes, readInputText, type Output } from './output.js';

export const SOLVE_USAGE = 'contact-lens solve <problem.json|fclib.hdf5> [--solver pgs|newton|ipm|coulomb|all] [--from physical|matrix] [--json]';

export type { Output };

/** A scene or problem file's text (a regular file of bounded size; see ./output.ts). */
export const readText = (file: string): string => readInputText(file);

/**
 * Solves a JSON problem (synchronously) or an FCLIB local problem in HDF5 (docs/problem-format.md, "FCLIB
 * problems"), recognised by the HDF5 signature whatever the file's extension; the HDF5 reader starts
 * asynchronously, so that path returns a promise.
 */
export function runSolve(argv: readonly string[], io: Output): number | Promise<number> {
  const { positionals, options } = parseArgs(argv, ['solver', 'from'], ['json']);
  if (positionals.length !== 1) throw new UsageError(`expected one problem file\nusage: ${SOLVE_USAGE}`);
  const file = positionals[0];
  const which = oneOf(options.get('solver'), [...SOLVER_NAMES, 'all'] as const, 'solver', 'all');
  const from = oneOf(options.get('from'), ['matrix', 'physical'] as const, 'from', 'matrix');
  const bytes = readInputBytes(file);
  if (isFclibInput(bytes, file)) {
    if (from === 'physical') throw new UsageError(`${file}: an FCLIB problem holds W, q and μ only (no physical data); drop --from physical`);
    return readFclibLocal(resolve(file), file).then((p) => solveAndPrint(p.id, file, 'fclib', p.matrix, which, Boolean(options.get('json')), io));
  }
  const inst = parseOracleInstance(bytes.toString('utf8'), file);
  const problem = from === 'physical' ? assembleOraclePhysical(inst) : inst.matrix;
  return solveAndPrint(inst.id, file, from, problem, which, Boolean(options.get('json')), io);
}

function solveAndPrint(id: string, file: string, from: string, problem: ContactProblem, which: SolverName | 'all', json: boolean, io: Output): number {
  const solvers: SolverName[] = which === 'all' ? [...SOLVER_NAMES] : [which];
  const results = solvers.map((s) => solve(problem, { solver: s }));
  if (json) {
    for (const r of results) io.out(JSON.stringify(toJson(r, file, from)));
  } else {
    printHuman(io, id, from, problem, results);
  }
  return results.some((r) => r.status.kind === 'failed') ? 1 : 0;
}

function toJson(r: SolveResult, file: string, from: string): Record<string, unknown> {
  return {
    solver: r.solver,
    file,
    from,
    lambda: Array.from(r.lambda),
    status: r.status.kind,
    ...(r.status.kind === 'converged' ? {} : { reason: r.status.reason }),
    iterations: r.iterations,
    objective: r.objective,
    merit: { problem: r.merit.problem, value: r.merit.value },
    kkt: {
      max_rel: r.kkt.maxRel,
      primal_rel: r.kkt.primalRel,
      dual_rel: r.kkt.dualRel,
      comp_rel: r.kkt.compRel,
      jordan_rel: r.kkt.jordanRel,
      natural_rel: r.kkt.naturalRel,
      worst_contact: r.kkt.worstContact,
    },
    contactClass: r.contactClass,
    ...(r.convexified ? { convexified: { asymmetry: r.convexified.asymmetry, shift: r.convexified.shift } } : {}),
    regularization: r.regularization,
    timeMs: r.timeMs,
  };
}

const fmt = (x: number): string => (x === 0 ? '0' : Math.abs(x) >= 1e-3 && Math.abs(x) < 1e6 ? x.toPrecision(10) : x.toExponential(6));

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]))
      .join('  ')
      .trimEnd(),
  );
}

const kappaText = (k: number): string => (Number.isFinite(k) ? k.toExponential(3) : Number.isNaN(k) ? 'not finite (A has a non-finite entry)' : '∞');

/** A's rank, rank ratio (FCLIB's rows/rank), κ(A) and κ on the range, exact up to EXACT_ON_DEMAND_MAX_ROWS. */
function conditioningLine(p: ContactProblem): string {
  if (p.size > EXACT_ON_DEMAND_MAX_ROWS)
    return `A: conditioning not computed above ${EXACT_ON_DEMAND_MAX_ROWS} unknowns (the inspector's problem panel estimates it)${asGivenText(p, Number.NaN)}`;
  const c = exactIslandConditioning(p.A, p.size, p.regularization, p);
  return `A: rank ${c.rank} of ${p.size} (rank ratio ${c.rankRatio.toFixed(2)}), κ(A) ${kappaText(c.kappa)}, κ on the range ${kappaText(c.kappaRange)} (${c.method}; docs/physics.md "Conditioning")${asGivenText(p, eigenRatio(c))}`;
}

/** For A taken as a file gave it (FCLIB's W): its relative asymmetry and λmin/λmax of its symmetric part. */
function asGivenText(p: ContactProblem, ratio: number): string {
  if (!p.asGiven) return '';
  const r = Number.isNaN(ratio) ? 'not computed' : ratio.toExponential(2);
  return `\nA as given: ‖A − Aᵀ‖/‖A‖ ${p.asGiven.asymmetry.toExponential(2)}, λmin/λmax of its symmetric part ${r} (coulomb and pgs use A as it is; newton and ipm its symmetric part, shifted if needed to be positive semidefinite)`;
}

function printHuman(io: Output, id: string, from: string, p: ContactProblem, results: SolveResult[]): void {
  io.out(`${id}: ${p.contactCount} contact${p.contactCount === 1 ? '' : 's'}, ${p.size} unknowns, from ${from}`);
  io.out(conditioningLine(p));
  io.out('');
  // merit: what the status was decided on — KKT max_rel of the QP-SOCP, or the Coulomb merit (docs/physics.md)
  const head = ['solver', 'status', 'iterations', 'objective', 'merit', 'KKT max_rel', 'time'];
  const rows = results.map((r) => [
    r.solver,
    r.status.kind,
    String(r.iterations),
    fmt(r.objective),
    `${r.merit.value.toExponential(2)} (${r.merit.problem === 'coulomb' ? 'Coulomb' : 'KKT'})`,
    r.kkt.maxRel.toExponential(2),
    `${r.timeMs.toFixed(3)} ms`,
  ]);
  for (const line of table([head, ...rows])) io.out(line);
  for (const r of results) if (r.status.kind !== 'converged') io.out(`  ${r.solver}: ${r.status.reason}`);
  for (const r of results) if (r.convexified) io.out(`  ${r.solver}: ${convexifiedNote(r.convexified)}`);
  for (const r of results) {
    io.out('');
    io.out(
      `λ (${r.solver}); KKT: primal ${r.kkt.primalRel.toExponential(1)}, dual ${r.kkt.dualRel.toExponential(1)}, complementarity ${r.kkt.compRel.toExponential(1)}, natural map ${r.kkt.naturalRel.toExponential(1)}`,
    );
    const lr = [['contact', 'λn', 'λt1', 'λt2', 'state']];
    for (let c = 0; c < p.contactCount; c++) lr.push([String(c), fmt(r.lambda[3 * c]), fmt(r.lambda[3 * c + 1]), fmt(r.lambda[3 * c + 2]), r.contactClass[c]]);
    for (const line of table(lr)) io.out(`  ${line}`);
  }
}
