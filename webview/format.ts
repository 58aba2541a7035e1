/**
 * The inspector's one formatter of numbers and units: SI prefixes and the
 * significant digits that fit — depth 0.371 mm, not 0.000371325 m; λ 188 mN·s — for single values (`si`)
 * and for table columns (`columnScale` + `inScale`: one prefix and one number of decimals per column, so
 * the digits line up and the unit sits in the header). Frame numbers are shown as the frames carry them
 * (0-based step index, docs/recording-format.md "Frame numbers"). Pure: no DOM (tested in Node); the DOM
 * helpers are in ./dom.ts.
 */

/** A number as the tables once showed it: toPrecision(digits); null/undefined as an en dash. */
export function num(x: number | null | undefined, digits = 6): string {
  if (x === null || x === undefined) return '–';
  if (!Number.isFinite(x)) return String(x);
  return x.toPrecision(digits);
}

/** The full value for a title attribute. */
export function full(x: number | null | undefined): string {
  return x === null || x === undefined ? 'no value' : String(x);
}

/** A 3-vector, compact: "(x, y, z)" with 4 significant digits. */
export function vec3(v: readonly number[]): string {
  return `(${v.map((x) => num(x, 4)).join(', ')})`;
}

/** SI prefixes used (exponent of ten → symbol), largest first. */
const PREFIXES: readonly (readonly [number, string])[] = [
  [9, 'G'],
  [6, 'M'],
  [3, 'k'],
  [0, ''],
  [-3, 'm'],
  [-6, 'µ'],
  [-9, 'n'],
  [-12, 'p'],
];

/** Minus sign for display (U+2212), so a column of signed numbers lines up in a monospace font. */
const MINUS = '−';

function signed(text: string): string {
  return text.startsWith('-') ? MINUS + text.slice(1) : text;
}

/** The prefix exponent (a multiple of 3) that puts |x| in [1, 1000), clamped to the prefixes above. */
function prefixExponent(absMax: number): number {
  if (!(absMax > 0) || !Number.isFinite(absMax)) return 0;
  const e = 3 * Math.floor(Math.log10(absMax) / 3 + 1e-9);
  return Math.max(-12, Math.min(9, e));
}

function prefixOf(e: number): string {
  return PREFIXES.find(([x]) => x === e)?.[1] ?? '';
}

/**
 * One value with the SI prefix that puts it in [1, 1000) and `digits` significant digits:
 * si(0.000371325, 'm') = "371 µm", si(0.1877, 'N·s') = "188 mN·s"; dimensionless (unit '') values get no
 * prefix. Outside the prefixes (below 1 p, above 999 G) the number is written with an exponent. (A table
 * column shares one prefix instead: its depths read 2.73 and 0.371 in a "mm" column, see columnScale.)
 */
export function si(x: number | null | undefined, unit: string, digits = 3): string {
  if (x === null || x === undefined) return '–';
  if (!Number.isFinite(x)) return `${x > 0 ? '∞' : x < 0 ? `${MINUS}∞` : 'NaN'}${unit ? ` ${unit}` : ''}`;
  if (x === 0) return unit ? `0 ${unit}` : '0';
  if (!unit) return signed(plain(x, digits));
  const a = Math.abs(x);
  if (a < 1e-12 || a >= 1e12) return `${signed(x.toExponential(digits - 1))} ${unit}`;
  let e = prefixExponent(a);
  // rounding can carry into the next prefix: 999.96 J at 3 digits is 1.00 kJ, not 1000 J
  if (Math.abs(Number((x / 10 ** e).toPrecision(digits))) >= 1000 && e < 9) e += 3;
  return `${signed(plain(x / 10 ** e, digits))} ${prefixOf(e)}${unit}`;
}

/** `digits` significant digits without an exponent for |x| in [1e-3, 1e6), trailing zeros kept. */
function plain(x: number, digits: number): string {
  const a = Math.abs(Number(x.toPrecision(digits)));
  if (a < 1e-3 || a >= 1e6) return x.toExponential(digits - 1);
  const intDigits = Math.floor(Math.log10(a) + 1e-12) + 1;
  return x.toFixed(Math.max(0, digits - intDigits));
}

/** One column's display scale: values are divided by `factor` and shown with `decimals` decimals. */
export interface ColumnScale {
  /** The unit with its prefix ("mm", "mN·s"; "" for dimensionless columns). */
  readonly unit: string;
  readonly factor: number;
  readonly decimals: number;
  /** Values too small for any prefix (below 1 p, or a dimensionless column below 0.001): written with an exponent. */
  readonly exponent?: boolean;
}

/**
 * The scale of a column: the prefix that puts its largest magnitude in [1, 1000) and the decimals that give
 * that value `digits` significant digits (depths up to 2.725 mm → "mm", 3 decimals at 4 digits). A
 * dimensionless column (unit '') keeps its values as they are. An empty or all-zero column gets no prefix.
 */
export function columnScale(values: Iterable<number | null | undefined>, unit: string, digits = 4): ColumnScale {
  let max = 0;
  for (const v of values) if (v !== null && v !== undefined && Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  if (max > 0 && max < (unit ? 1e-12 : 1e-3)) return { unit, factor: 1, decimals: digits - 2, exponent: true };
  const e = unit ? prefixExponent(max) : 0;
  const factor = 10 ** e;
  const m = max / factor;
  const intDigits = m >= 1 ? Math.floor(Math.log10(m) + 1e-12) + 1 : Math.floor(Math.log10(m || 1) + 1e-12) + 1;
  const decimals = max > 0 ? Math.max(0, Math.min(6, digits - intDigits)) : 0;
  return { unit: unit ? `${prefixOf(e)}${unit}` : '', factor, decimals };
}

/**
 * A value in a column's scale: fixed decimals, "0" for an exact zero, "≈0" for a non-zero value that rounds
 * to zero at this resolution (numerical noise such as 5.6e-17 m beside millimetres), "–" for no value.
 */
export function inScale(x: number | null | undefined, s: ColumnScale): string {
  if (x === null || x === undefined) return '–';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : x < 0 ? `${MINUS}∞` : 'NaN';
  if (x === 0) return '0';
  if (s.exponent) return signed(x.toExponential(s.decimals));
  const text = (x / s.factor).toFixed(s.decimals);
  if (Number(text) === 0) return '≈0';
  return signed(text);
}

/** A 3-vector in a column scale, "x, y, z" (no unit; the header carries it). */
export function vecInScale(v: readonly number[], s: ColumnScale): string {
  // exact zeros keep the column's decimals here: "0.000, 0.000, 1.000" reads as a vector
  return v.map((x) => (x === 0 && !s.exponent ? (0).toFixed(s.decimals) : inScale(x, s))).join(', ');
}

/** Joules with a sign, for energy gains and ΔE: "+12.3 mJ", "−0.301 J". */
export function joules(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined) return '–';
  const t = si(x, 'J', digits);
  return x > 0 ? `+${t}` : t;
}

/**
 * The timeline readout: "frame 12 / 180 · t = 0.2000 s" — the frame number as the frame carries it (0-based
 * step index for our scenarios and the recording format) and the session's frame count.
 */
export function frameReadout(frame: number, frameCount: number, time: number): string {
  return `frame ${frame} / ${frameCount} · t = ${time.toFixed(4)} s`;
}

/** Energies of one frame: "E 490.3 J · ΔE +0.251 J since frame 0 · kinetic 431 mJ · potential 489.8 J". */
export function energyReadout(kinetic: number, potential: number, total: number, total0?: number, frame0?: number): string {
  const parts = [`E ${si(total, 'J', 5)}`];
  if (total0 !== undefined && Number.isFinite(total0)) parts.push(`ΔE ${joules(total - total0)} since frame ${frame0 ?? 0}`);
  parts.push(`kinetic ${si(kinetic, 'J', 4)}`, `potential ${si(potential, 'J', 4)}`);
  return parts.join(' · ');
}

/** "1 iteration", "3 iterations". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The frame's status line: "solver pgs · converged · 12 iterations · 36 contacts · 2 islands". */
export function statusSummary(v: {
  readonly solver: string;
  readonly status: string;
  readonly iterations: number | null;
  readonly contacts: readonly unknown[];
  readonly islands: readonly unknown[];
}): string {
  const it = v.iterations === null ? 'iterations not recorded' : plural(v.iterations, 'iteration');
  return `solver ${v.solver} · ${v.status} · ${it} · ${plural(v.contacts.length, 'contact')} · ${plural(v.islands.length, 'island')}`;
}
