/**
 * Tables of bench/fclib.ts: one row per problem (ours beside Siconos's), solved counts, the Dolan–Moré
 * performance profile (E. D. Dolan, J. J. Moré, "Benchmarking optimization software with performance
 * profiles", Math. Programming 91, 2002; the form of Siconos's comp.py) and per-family figures.
 */

/** One solver's warm runs on one problem, judged by our FCLIB merit. */
export interface Run {
  readonly solver: string;
  /** Ours ('ours') or Siconos's ('siconos'). */
  readonly origin: 'ours' | 'siconos';
  readonly times: readonly number[];
  readonly iterations: number;
  /** Our Coulomb merit (FCLIB natural map / (1 + ‖q‖)) of the solver's λ; NaN when it gave none. */
  readonly merit: number;
  /** The solver's own verdict: our status kind, or Siconos's info (0: converged) and error. */
  readonly note: string;
}

export interface ProblemRow {
  readonly id: string;
  readonly family: string;
  readonly contacts: number;
  readonly asymmetry: number;
  /** λmin/λmax of the symmetric part (negative: indefinite), NaN when not computed. */
  readonly eigenRatio: number;
  readonly runs: readonly Run[];
}

export const minOf = (xs: readonly number[]): number => (xs.length ? Math.min(...xs) : Number.NaN);
export function medianOf(xs: readonly number[]): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

/** The family of a problem file: its leading name, e.g. "Capsules" for Capsules-i100-1090, "FC3D" for FC3D_Example1. */
export function familyOf(id: string): string {
  return /^[A-Za-z]+(?:\d+D)?/.exec(id)?.[0] ?? id;
}

export const solved = (r: Run, tol: number): boolean => Number.isFinite(r.merit) && r.merit <= tol;

/** The time a solver takes on a problem for the profile: its median warm time when solved, ∞ otherwise. */
const profileTime = (r: Run, tol: number): number => (solved(r, tol) ? medianOf(r.times) : Number.POSITIVE_INFINITY);

/** Siconos's best on a problem: the fastest Siconos solver that meets the tolerance (by median time), or null. */
export function siconosBest(row: ProblemRow, tol: number): Run | null {
  let best: Run | null = null;
  for (const r of row.runs) if (r.origin === 'siconos' && solved(r, tol) && (!best || medianOf(r.times) < medianOf(best.times))) best = r;
  return best;
}

const ms = (x: number): string => (!Number.isFinite(x) ? '—' : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const exp = (x: number): string => (Number.isNaN(x) ? '—' : x.toExponential(1));

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
      .join('  ')
      .trimEnd(),
  );
}

/** Per problem: its figures, then per solver "median ms (iterations) merit ✓". */
export function problemTable(rows: readonly ProblemRow[], solvers: readonly string[], tol: number): string[] {
  const head = ['problem', 'C', 'asym', 'λmin/λmax', ...solvers, 'coulomb / Siconos best'];
  const out = [head];
  for (const row of rows) {
    const cells = [row.id, String(row.contacts), exp(row.asymmetry), exp(row.eigenRatio)];
    for (const s of solvers) {
      const r = row.runs.find((x) => x.solver === s);
      cells.push(r ? `${ms(medianOf(r.times))} ${solved(r, tol) ? '✓' : '✗'} ${exp(r.merit)}` : '');
    }
    const ours = row.runs.find((x) => x.solver === 'coulomb');
    const best = siconosBest(row, tol);
    cells.push(
      ours && best
        ? `${(medianOf(ours.times) / medianOf(best.times)).toFixed(2)}× (${best.solver} ${ms(medianOf(best.times))})`
        : best
          ? ''
          : 'Siconos solves none',
    );
    out.push(cells);
  }
  return table(out);
}

/** Solved counts and the performance profile ρ_s(τ): share of problems solved within τ × the best time. */
export function profileTable(
  rows: readonly ProblemRow[],
  solvers: readonly string[],
  tol: number,
  taus: readonly number[] = [1, 2, 4, 10, 100, 1000],
): string[] {
  const head = ['solver', 'solved', ...taus.map((t) => `τ=${t}`)];
  const out = [head];
  const best = rows.map((row) => Math.min(...row.runs.map((r) => profileTime(r, tol))));
  for (const s of solvers) {
    const ratios = rows.map((row, k) => {
      const r = row.runs.find((x) => x.solver === s);
      return r ? profileTime(r, tol) / best[k] : Number.POSITIVE_INFINITY;
    });
    const count = rows.filter((row) => {
      const r = row.runs.find((x) => x.solver === s);
      return r !== undefined && solved(r, tol);
    }).length;
    out.push([s, `${count}/${rows.length}`, ...taus.map((t) => (ratios.filter((x) => x <= t).length / Math.max(1, rows.length)).toFixed(2))]);
  }
  return table(out);
}

/** Per family: problems, coulomb solved, Siconos's best solved, median and largest coulomb/Siconos-best ratio, coulomb median time. */
export function familyTable(rows: readonly ProblemRow[], tol: number): string[] {
  const families = [...new Set(rows.map((r) => r.family))];
  const out = [['family', 'problems', 'C max', 'coulomb solved', 'Siconos solved', 'median ratio', 'max ratio', 'coulomb median ms']];
  for (const f of families) {
    const rs = rows.filter((r) => r.family === f);
    const ours = rs.map((r) => r.runs.find((x) => x.solver === 'coulomb'));
    const ratios: number[] = [];
    rs.forEach((r, k) => {
      const best = siconosBest(r, tol);
      const o = ours[k];
      if (best && o) ratios.push(solved(o, tol) ? medianOf(o.times) / medianOf(best.times) : Number.POSITIVE_INFINITY);
    });
    out.push([
      f,
      String(rs.length),
      String(Math.max(...rs.map((r) => r.contacts))),
      String(ours.filter((o) => o && solved(o, tol)).length),
      String(rs.filter((r) => siconosBest(r, tol) !== null).length),
      ratios.length ? `${medianOf(ratios).toFixed(2)}×` : '—',
      ratios.length ? `${Math.max(...ratios).toFixed(2)}×` : '—',
      ms(medianOf(ours.filter((o): o is Run => o !== undefined).map((o) => medianOf(o.times)))),
    ]);
  }
  return table(out);
}

/** The issue's bar: coulomb solves every problem Siconos's best solves; median ratio ≤ 3, none above 10. */
export function verdict(rows: readonly ProblemRow[], tol: number): string[] {
  const ratios: number[] = [];
  const missed: string[] = [];
  for (const row of rows) {
    const best = siconosBest(row, tol);
    const ours = row.runs.find((x) => x.solver === 'coulomb');
    if (!best || !ours) continue;
    if (!solved(ours, tol)) missed.push(row.id);
    ratios.push(solved(ours, tol) ? medianOf(ours.times) / medianOf(best.times) : Number.POSITIVE_INFINITY);
  }
  if (!ratios.length) return ['no problem with a Siconos solution to compare with'];
  const worst = Math.max(...ratios);
  return [
    `coulomb solves ${ratios.length - missed.length} of the ${ratios.length} problems Siconos's best solves${missed.length ? ` (not: ${missed.join(', ')})` : ''}`,
    `coulomb / Siconos best (median warm times): median ${medianOf(ratios).toFixed(2)}×, largest ${Number.isFinite(worst) ? worst.toFixed(2) : '∞'}× (bar: median ≤ 3×, none above 10×)`,
  ];
}
