/** `contact-lens solve <problem.json | fclib.hdf5> [--solver NAME|all] [--from physical|matrix] [--json] [--allow-external]` */
import { safePath } from '../format/messages.js';
import { assembleOraclePhysical, parseOracleInstance } from '../format/oracle.js';
import { isFclibInput, readFclibLocal } from '../format/fclib.js';
import { resolve } from 'node:path';
import {
  type ContactProblem,
  convexifiedNote,
  coulombMerit,
  formatCount,
  formatNumber,
  formatQuantity,
  problemSolvedBy,
  solve,
  SOLVER_NAMES,
  SOLVER_REGISTRY,
  type SolveResult,
  type SolverName,
} from '../engine/index.js';
import { EXACT_ON_DEMAND_MAX_ROWS, exactIslandConditioning } from '../session/conditioningEstimate.js';
import { eigenRatio } from '../session/problemFile.js';
import { oneOf, parseArgs, UsageError } from './args.js';
import { requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { readInputBytes, type Output } from './output.js';
import { HDF5_READ_LIMIT_MS, withWatchdog } from './watchdog.js';

export const SOLVE_HELP: CommandHelp = {
  command: 'solve',
  synopsis: `solve <problem.json | fclib.hdf5> [--solver ${SOLVER_NAMES.join('|')}|all] [--from physical|matrix] [--json] [--allow-external]`,
  summary: 'solves one friction-contact problem file with each solver and compares them',
  description: [
    'Reads a problem file (docs/problem-format.md: JSON, or an FCLIB local problem in HDF5) and solves it with',
    `the solvers ${SOLVER_NAMES.join(', ')} (or one of them): status, iterations, the merit of the problem each solves,`,
    'the objective, the QP-SOCP KKT residual, time, and λ per contact. Exit 1 if a solver failed.',
    'Solvers (docs/physics.md "Solvers"):',
    ...SOLVER_NAMES.map((name) => `  ${name.padEnd(8)} ${SOLVER_REGISTRY[name].summary}`),
  ],
  options: [
    ['--solver NAME', `one of ${SOLVER_NAMES.join(', ')}, or all (default all)`],
    ['--from physical|matrix', 'A and b as stored (matrix, default), or re-assembled from the bodies and contacts (physical)'],
    ['--json', 'one JSON object per solver instead of the tables'],
    ['--allow-external', "an HDF5 file's external links, external raw storage and virtual datasets may be read (refused by default)"],
  ],
  example: 'solve examples/problems/two-box-stack.json --from physical',
};

/**
 * Solves a JSON problem (synchronously) or an FCLIB local problem in HDF5 (docs/problem-format.md, "FCLIB
 * problems"), recognised by the HDF5 signature whatever the file's extension; the HDF5 reader starts
 * asynchronously, so that path returns a promise.
 */
export function runSolve(argv: readonly string[], io: Output): number | Promise<number> {
  const { positionals, options } = parseArgs(argv, ['solver', 'from'], ['json', 'allow-external']);
  if (positionals.length !== 1) throw new UsageError(`expected one problem file\nusage: contact-lens ${SOLVE_HELP.synopsis}`);
  const file = positionals[0];
  requireKind(file, 'solve', ['problem']);
  const which = oneOf(options.get('solver'), [...SOLVER_NAMES, 'all'] as const, 'solver', 'all');
  const from = oneOf(options.get('from'), ['matrix', 'physical'] as const, 'from', 'matrix');
  const bytes = readInputBytes(file);
  if (isFclibInput(bytes, file)) {
    if (from === 'physical') throw new UsageError(`${safePath(file)}: an FCLIB problem holds W, q and μ only (no physical data); drop --from physical`);
    // --allow-external: this file's external links, external raw storage and virtual datasets may be read (fclib.ts)
    const read = () => readFclibLocal(resolve(file), file, { allowExternal: options.get('allow-external') === true });
    const limit = Number(process.env.CONTACT_LENS_HDF5_READ_LIMIT_MS) || HDF5_READ_LIMIT_MS; // tests shorten it
    return withWatchdog(file, limit, 'reading it as HDF5', read).then((p) =>
      solveAndPrint(p.id, file, 'fclib', p.matrix, which, Boolean(options.get('json')), io),
    );
  }
  const inst = parseOracleInstance(bytes.toString('utf8'), file);
  const problem = from === 'physical' ? assembleOraclePhysical(inst) : inst.matrix;
  return solveAndPrint(inst.id, file, from, problem, which, Boolean(options.get('json')), io);
}

function solveAndPrint(id: string, file: string, from: string, problem: ContactProblem, which: SolverName | 'all', json: boolean, io: Output): number {
  const solvers: SolverName[] = which === 'all' ? [...SOLVER_NAMES] : [which];
  const results = solvers.map((s) => solve(problem, { solver: s }));
  if (json) {
    for (const r of results) io.out(JSON.stringify(toJson(r, file, from, problemMerit(problem, r))));
  } else {
    printHuman(io, id, from, problem, results);
  }
  return results.some((r) => r.status.kind === 'failed') ? 1 : 0;
}

function toJson(r: SolveResult, file: string, from: string, solved: ProblemMerit): Record<string, unknown> {
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
    // the problem this solver's λ answers and its merit there (the human table's "merit of its problem")
    problemMerit: { problem: solved.problem, value: solved.value },
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

/** The problem a solver's λ answers, and its merit there (docs/physics.md "Coulomb's law and the De Saxcé fixed point"). */
interface ProblemMerit {
  readonly problem: 'qp-socp' | 'coulomb';
  readonly value: number;
}

/**
 * QP-SOCP KKT max_rel for newton and ipm; the Coulomb merit for coulomb and for pgs, whose default sweeps
 * (Coulomb disk) approach Coulomb's law, not the QP-SOCP (src/engine/solvers/pgs.ts).
 */
function problemMerit(p: ContactProblem, r: SolveResult): ProblemMerit {
  const problem = problemSolvedBy({ solver: r.solver });
  if (r.merit.problem === problem) return r.merit;
  return { problem, value: problem === 'coulomb' ? coulombMerit(p, r.lambda) : r.kkt.maxRel };
}

const PROBLEM_LABEL = { 'qp-socp': 'QP-SOCP', coulomb: 'Coulomb' } as const;
const MERIT_LABEL = { 'qp-socp': 'KKT max_rel', coulomb: 'Coulomb merit' } as const;

/** λ entries: 4 significant digits (the tables' other numbers have 3). */
const LAMBDA_DIGITS = 4;

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]))
      .join('  ')
      .trimEnd(),
  );
}

/** A's rank, rank ratio (FCLIB's rows/rank), κ(A) and κ on the range, exact up to EXACT_ON_DEMAND_MAX_ROWS. */
function conditioningLine(p: ContactProblem): string {
  if (p.size > EXACT_ON_DEMAND_MAX_ROWS)
    return `A: conditioning not computed above ${EXACT_ON_DEMAND_MAX_ROWS} unknowns (the inspector's problem panel estimates it)${asGivenText(p, Number.NaN)}`;
  const c = exactIslandConditioning(p.A, p.size, p.regularization, p);
  const kappa = (k: number): string => (Number.isNaN(k) ? 'not finite (A has a non-finite entry)' : formatNumber(k));
  return `A: rank ${c.rank} of ${p.size} (rank ratio ${formatNumber(c.rankRatio)}), κ(A) ${kappa(c.kappa)}, κ on the range ${kappa(c.kappaRange)} (${c.method}; docs/physics.md "Conditioning")${asGivenText(p, eigenRatio(c))}`;
}

/** For A taken as a file gave it (FCLIB's W): its relative asymmetry and λmin/λmax of its symmetric part. */
function asGivenText(p: ContactProblem, ratio: number): string {
  if (!p.asGiven) return '';
  const r = Number.isNaN(ratio) ? 'not computed' : formatNumber(ratio);
  return `\nA as given: ‖A − Aᵀ‖/‖A‖ ${formatNumber(p.asGiven.asymmetry)}, λmin/λmax of its symmetric part ${r} (coulomb and pgs use A as it is; newton and ipm its symmetric part, shifted if needed to be positive semidefinite)`;
}

/** Words joined with commas and "and": "newton and ipm", "pgs, newton and ipm". */
const listed = (xs: readonly string[]): string => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/** Lines of at most `width` characters. */
function wrap(text: string, width = 110): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}

/**
 * Why the rows' merits, λ and objectives differ when the table mixes the two problems: which solver solves
 * which, and (docs/physics.md) why a Coulomb solution keeps a QP-SOCP KKT residual.
 */
export function twoProblemsNote(rows: readonly { readonly solver: SolverName; readonly problem: ProblemMerit['problem'] }[]): string[] {
  const qp = rows.filter((r) => r.problem === 'qp-socp').map((r) => r.solver);
  const co = rows.filter((r) => r.problem === 'coulomb').map((r) => r.solver);
  if (qp.length === 0 || co.length === 0) return [];
  const verb = (xs: readonly string[]): string => (xs.length === 1 ? 'solves' : 'solve');
  const pgs = co.includes('pgs')
    ? ' pgs\'s status is still judged on the QP-SOCP KKT residual, which its Coulomb-disk sweeps cannot meet where a contact slides (docs/physics.md "The default solver").'
    : '';
  return wrap(
    `Two problems: ${listed(qp)} ${verb(qp)} the convex QP-SOCP (merit: its KKT max_rel); ${listed(co)} ${verb(co)} Coulomb's law in De Saxcé's form (merit: the FCLIB natural-map residual). Where a contact slides they have different solutions, so λ and the objective differ and a Coulomb solution keeps a QP-SOCP KKT residual (docs/physics.md "Coulomb's law and the De Saxcé fixed point").${pgs}`,
  );
}

function printHuman(io: Output, id: string, from: string, p: ContactProblem, results: SolveResult[]): void {
  io.out(`${id}: ${formatCount(p.contactCount, 'contact')}, ${p.size} unknowns, from ${from}`);
  io.out(conditioningLine(p));
  io.out('');
  const merits = results.map((r) => problemMerit(p, r));
  const head = ['solver', 'problem', 'status', 'iterations', 'merit of its problem', 'objective', 'QP-SOCP KKT', 'time'];
  const rows = results.map((r, k) => [
    r.solver,
    PROBLEM_LABEL[merits[k].problem],
    r.status.kind,
    String(r.iterations),
    `${formatNumber(merits[k].value)} (${MERIT_LABEL[merits[k].problem]})`,
    formatNumber(r.objective, LAMBDA_DIGITS),
    formatNumber(r.kkt.maxRel),
    formatQuantity(r.timeMs, 'ms'),
  ]);
  for (const line of table([head, ...rows])) io.out(line);
  for (const r of results) if (r.status.kind !== 'converged') io.out(`  ${r.solver}: ${r.status.kind}: ${r.status.reason}`);
  for (const r of results) if (r.convexified) io.out(`  ${r.solver}: ${convexifiedNote(r.convexified)}`);
  const note = twoProblemsNote(results.map((r, k) => ({ solver: r.solver, problem: merits[k].problem })));
  if (note.length > 0) io.out('');
  for (const line of note) io.out(line);
  for (const r of results) {
    io.out('');
    io.out(
      `λ (${r.solver}, N·s); QP-SOCP KKT residuals: primal ${formatNumber(r.kkt.primalRel)}, dual ${formatNumber(r.kkt.dualRel)}, complementarity ${formatNumber(r.kkt.compRel)}, natural map ${formatNumber(r.kkt.naturalRel)}`,
    );
    const lr = [['contact', 'λn', 'λt1', 'λt2', 'state']];
    const n = (x: number): string => formatNumber(x, LAMBDA_DIGITS);
    for (let c = 0; c < p.contactCount; c++) lr.push([String(c), n(r.lambda[3 * c]), n(r.lambda[3 * c + 1]), n(r.lambda[3 * c + 2]), r.contactClass[c]]);
    for (const line of table(lr)) io.out(`  ${line}`);
  }
}
