/**
 * The pieces every format reader (scene, recording, problem) uses to talk about bad input:
 * FormatError ("file: field: detail", one line), a safe value formatter that never calls the value's
 * own methods, strips control characters and truncates, and a bounded "did you mean" suggestion.
 */
import type { SourceRange } from './jsonPositions.js';

/** At most this many characters of a user's string are shown inside a message. */
export const MAX_SHOWN_CHARS = 40;
/** A field path (JSON path) is shown with at most this many characters. */
export const MAX_FIELD_CHARS = 200;
/** A detail is shown with at most this many characters (one readable line). */
export const MAX_DETAIL_CHARS = 1000;
/** Words longer than this get no spelling suggestion (edit distance is O(|a|·|b|)). */
export const MAX_SUGGEST_CHARS = 64;

/**
 * C0/C1 control characters, DEL, line/paragraph separators and bidirectional overrides: anything that
 * could break a one-line message or rewrite a terminal (ANSI escapes start with ESC, U+001B).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escapeChar = (c: string): string => {
  switch (c) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    default:
      return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  }
};

/**
 * A user's text made safe for a one-line message: control characters shown as escapes (\n, \u001b),
 * at most `max` characters of the input kept (then "…"). Work is O(max), whatever the input's length.
 */
export function safeText(s: string, max = MAX_SHOWN_CHARS): string {
  let cut = s.length > max ? s.slice(0, max) : s;
  // do not leave half of a surrogate pair at the cut
  if (cut.length < s.length && /[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const clean = cut.replace(UNSAFE, escapeChar);
  return cut.length < s.length ? `${clean}…` : clean;
}

/** A file name as shown in a message: control characters escaped (an ESC or newline in a name cannot rewrite the terminal), at most 2·MAX_FIELD_CHARS characters. */
export function safePath(file: string): string {
  return safeText(String(file), MAX_FIELD_CHARS * 2);
}

/** True when `s` holds a character that safeText would escape (control, line break, bidi override). */
export function hasUnsafeCharacters(s: string): boolean {
  UNSAFE.lastIndex = 0;
  const hit = UNSAFE.test(s);
  UNSAFE.lastIndex = 0;
  return hit;
}

/**
 * What a JSON value is, for "expected …, got X" messages. Never calls the value's own toString
 * (a parsed object may carry a "toString" key), never echoes more than MAX_SHOWN_CHARS of a string.
 */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing (field missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  switch (typeof v) {
    case 'string':
      return `"${safeText(v)}"`;
    case 'number':
      return Number.isNaN(v) ? 'NaN' : String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return 'a big integer';
    case 'object':
      return ArrayBuffer.isView(v) ? 'a numeric array' : 'an object';
    default:
      return `a ${typeof v}`;
  }
}

/**
 * Bad input: "file: field: detail" on one line, with file, field and detail made safe (safeText) in the
 * message. `file` stays the caller's path as given (the extension maps errors to documents by it); `field`
 * is the safe JSON path (it may hold keys from the input). With a `range` (input parsed with positions,
 * jsonPositions.ts) the message reads "file: field: line L, column C: detail" and the range is kept for
 * editor diagnostics. The one error type of every format reader (fieldReader.ts).
 */
export class FormatError extends Error {
  readonly field: string;
  /** The detail alone (safe, without file, field or position). */
  readonly detail: string;
  constructor(
    readonly file: string,
    field: string,
    detail: string,
    readonly range?: SourceRange,
  ) {
    const fd = safeText(String(field), MAX_FIELD_CHARS);
    const at = range ? `line ${range.line}, column ${range.column}: ${detail}` : String(detail);
    super(`${safePath(file)}: ${fd}: ${safeText(at, MAX_DETAIL_CHARS)}`);
    this.field = fd;
    this.detail = safeText(String(detail), MAX_DETAIL_CHARS);
    this.name = 'FormatError';
  }
}

/** Levenshtein distance, case-insensitive (Wagner–Fischer, one row). Callers bound the lengths. */
function editDistance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  const row = new Uint32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return row[b.length];
}

/**
 * "Did you mean": a candidate that the word starts (≥ 3 characters) or that starts the word, else the
 * nearest candidate within max(2, ⌊|word|/3⌋) edits. Bounded: words or candidates longer than
 * MAX_SUGGEST_CHARS get no edit-distance comparison, so the cost is O(candidates · 64²) at most.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  if (word.length > MAX_SUGGEST_CHARS) return undefined;
  const w = word.toLowerCase();
  if (w.length >= 3) {
    const prefix = candidates.find((c) => c.length <= MAX_SUGGEST_CHARS && (c.toLowerCase().startsWith(w) || w.startsWith(c.toLowerCase())));
    if (prefix) return prefix;
  }
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: string | undefined,
    bestD = Infinity;
  for (const c of candidates) {
    if (c.length > MAX_SUGGEST_CHARS || Math.abs(c.length - word.length) > limit) continue;
    const d = editDistance(word, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return bestD <= limit ? best : undefined;
}

/** Quoted, safe, comma-separated list of names (at most `max` shown). */
export function quoteList(xs: readonly string[], max = 20): string {
  const shown = xs
    .slice(0, max)
    .map((x) => `"${safeText(x)}"`)
    .join(', ');
  return xs.length > max ? `${shown}, … (${xs.length - max} more)` : shown;
}
