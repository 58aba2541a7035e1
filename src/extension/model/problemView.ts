/**
 * A problem file as the inspector shows it (src/protocol/problem.ts): the opened problem
 * (src/session/problemFile.ts) and every solver's answer turned into plain, finite-or-null data — sizes,
 * A as a heat map with its conditioning and causes, one row per contact, one column group per solver.
 */
import { conditioningCauses, convexifiedNote, coulombMerit, kkt, SOLVER_NAMES } from '../../engine/index.js';
import { compareSolvers, openProblemFile, type OpenedProblem, type SolverComparison } from '../../session/problemFile.js';
import { encodeHeatMap } from '../../protocol/heatMap.js';
import { MAX_MATRIX_ROWS, type IslandView } from '../../protocol/inspector.js';
import type { ProblemSolverView, ProblemView } from '../../protocol/problem.js';

/** NaN and ±∞ travel as null (src/protocol/inspector.ts: "never NaN"). */
const shown = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** w = Aλ − b (the post-impulse contact velocities, docs/physics.md "The QP-SOCP and its KKT conditions"). */
function velocities(p: OpenedProblem['problem'], lambda: Float64Array): Float64Array {
  const { A, b, size: n } = p;
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = -b[i];
    for (let j = 0, o = i * n; j < n; j++) s += A[o + j] * lambda[j];
    w[i] = s;
  }
  return w;
}

/** The matrix panel's data: A with κ, κ on the range, the rank ratio and what explains a rank deficiency. */
function matrixView(o: OpenedProblem): IslandView {
  const p = o.problem,
    cond = o.conditioning;
  const causes = conditioningCauses(p, cond).map((c) => c.message);
  if (cond.rankDeficiency > 0)
    // a problem file has no bodies to blame: say what the rank means (FCLIB's rank ratio, Acary, Brémond & Huber 2018 §5)
    causes.push(
      `A has rank ${cond.rank} of ${p.size} (rank ratio ${(p.size / Math.max(1, cond.rank)).toFixed(2)}): ${cond.rankDeficiency} directions of λ change no contact velocity — more contact rows than the bodies' degrees of freedom (e.g. four coplanar corner contacts per face), so λ is not unique and κ(A) is infinite or set by the regularisation ε alone; κ on the range excludes them (docs/physics.md "Conditioning")`,
    );
  const view: IslandView = {
    contacts: Array.from({ length: p.contactCount }, (_, i) => i),
    size: p.size,
    heat: p.size <= MAX_MATRIX_ROWS ? encodeHeatMap(p.A, p.size) : null,
    kappa: shown(cond.kappa),
    lambdaMin: shown(cond.lambdaMin),
    lambdaMax: shown(cond.lambdaMax),
    rankDeficiency: cond.rankDeficiency,
    kappaRange: shown(cond.kappaRange),
    rankRatio: shown(cond.rankRatio),
    method: cond.method,
    causes,
  };
  return p.size > MAX_MATRIX_ROWS ? { ...view, reason: `A has ${p.size} rows; the heat map shows matrices up to ${MAX_MATRIX_ROWS}` } : view;
}

function solverView(p: OpenedProblem['problem'], r: SolverComparison): ProblemSolverView {
  const C = p.contactCount;
  const lambdaN: (number | null)[] = new Array(C),
    lambdaT: (number | null)[] = new Array(C),
    wN: (number | null)[] = new Array(C);
  for (let c = 0; c < C; c++) {
    lambdaN[c] = shown(r.lambda[3 * c]);
    lambdaT[c] = shown(Math.hypot(r.lambda[3 * c + 1], r.lambda[3 * c + 2]));
    wN[c] = shown(r.wNormal[c]);
  }
  const classes = { separating: 0, sticking: 0, sliding: 0 };
  for (const k of r.contactClass) classes[k]++;
  return {
    solver: r.solver,
    status: r.status,
    iterations: r.iterations,
    meritKind: r.merit.problem === 'coulomb' ? 'coulomb' : 'kkt',
    kkt: shown(r.kkt),
    coulomb: shown(r.coulomb),
    objective: shown(r.objective),
    timeMs: r.timeMs,
    classes,
    lambdaN,
    lambdaT,
    wN,
    ...(r.convexified ? { matrixNote: convexifiedNote(r.convexified) } : {}),
  };
}

/** The whole view from an opened problem and the solvers' answers (SOLVER_NAMES order). */
export function problemView(o: OpenedProblem, rows: readonly SolverComparison[]): ProblemView {
  const p = o.problem,
    C = p.contactCount;
  const ref = o.reference;
  const wRef = ref ? velocities(p, ref.lambda) : null;
  const table = Array.from({ length: C }, (_, c) => ({
    index: c,
    mu: p.mu[c],
    bN: p.b[3 * c],
    bT: Math.hypot(p.b[3 * c + 1], p.b[3 * c + 2]),
    reference:
      ref && wRef
        ? {
            lambdaN: shown(ref.lambda[3 * c]),
            lambdaT: shown(Math.hypot(ref.lambda[3 * c + 1], ref.lambda[3 * c + 2])),
            wN: shown(wRef[3 * c]),
          }
        : null,
  }));
  const notes = [
    'A, b and μ only: nothing that needs bodies or frames (scene, energy, timeline, findings) applies',
    'the convex solvers (pgs, newton, ipm) solve the QP-SOCP; coulomb solves Coulomb’s law, which differs wherever a contact slides (docs/physics.md)',
    ...(p.asGiven
      ? [
          `A is used as the file wrote it (asymmetry ${o.asymmetry.toExponential(2)}, λmin/λmax ${Number.isNaN(o.eigenRatio) ? 'not computed' : o.eigenRatio.toExponential(2)}): coulomb and pgs solve with A itself, newton and ipm with its symmetric part, shifted when needed to be positive semidefinite`,
        ]
      : []),
  ];
  return {
    id: o.id,
    file: o.file,
    format: o.source,
    title: o.title,
    description: o.description,
    contacts: C,
    unknowns: p.size,
    rank: o.conditioning.rank,
    rankRatio: shown(o.conditioning.rankRatio),
    asymmetry: shown(o.asymmetry),
    eigenRatio: shown(o.eigenRatio),
    matrix: matrixView(o),
    table,
    reference: ref ? { label: ref.label, kkt: shown(kkt(p, ref.lambda).maxRel), coulomb: shown(coulombMerit(p, ref.lambda)) } : null,
    solvers: rows.map((r) => solverView(p, r)),
    notes,
  };
}

/**
 * Opens a problem file and solves it with every solver (the worker's `openProblem`); `progress` is told
 * after the file is read and after each solver. Bad input throws the reader's one-line FormatError naming the file and the field.
 */
export async function openProblemView(path: string, file: string, progress?: (message: string, fraction: number | null) => void): Promise<ProblemView> {
  progress?.(`reading ${file}`, null);
  const o = await openProblemFile(path, file);
  progress?.(`solving ${o.unknowns} unknowns with ${SOLVER_NAMES.join(', ')}`, 0);
  const rows = compareSolvers(o.problem, SOLVER_NAMES, (s, done) =>
    progress?.(`solved with ${s} (${done} of ${SOLVER_NAMES.length})`, done / SOLVER_NAMES.length),
  );
  return problemView(o, rows);
}
