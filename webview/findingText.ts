/**
 * A finding in one line of text (pure, tested in Node): the short text of its line in the findings list, its
 * headline (title and accessible name) and its badge.
 */
import type { FindingView } from '../src/protocol/inspector.js';
import { FINDING_HEADLINE_MAX } from '../src/protocol/inspector.js';
import { joules } from './format.js';

/** Longest short text taken from an explanation's first clause (characters). */
const CLAUSE_MAX = 90;

/** The explanation's first clause: up to the first ":", ";", " — " or sentence end, at most CLAUSE_MAX characters. */
export function firstClause(text: string): string {
  const m = /^(.*?)(?::\s|;\s|\s—\s|\.\s|\.$|$)/s.exec(text.trim());
  // the line shows the joules already: "0.00944 J from the position correction" → "from the position correction"
  const clause = (m?.[1] ?? text)
    .replace(/\s+/g, ' ')
    .replace(/^[+−-]?\d[\d.]*(?:e[+−-]?\d+)?\s*J\s+(?=\S)/i, '')
    .trim();
  return clause.length > CLAUSE_MAX ? `${clause.slice(0, CLAUSE_MAX - 1)}…` : clause;
}

/** The short text of a finding's line: its headline when the diagnosis gave one, else its explanation's first clause. */
export function shortText(f: FindingView): string {
  return f.headline?.trim() || firstClause(f.explanation);
}

/** The energy part of a finding's line: "+9.94 mJ" for an injection, else nothing. */
export function energy(f: FindingView): string {
  return (f.kind ?? 'injection') === 'injection' ? joules(f.joules) : '';
}

/**
 * A finding as one line of text (its title and accessible name): "bias-injection · frame 1 · +9.94 mJ ·
 * 9.94 mJ from the position correction", at most FINDING_HEADLINE_MAX characters.
 */
export function findingHeadline(f: FindingView): string {
  const line = [f.mechanism, `frame ${f.frame}`, energy(f), shortText(f)].filter(Boolean).join(' · ');
  return line.length > FINDING_HEADLINE_MAX ? `${line.slice(0, FINDING_HEADLINE_MAX - 1)}…` : line;
}

export function badgeText(f: FindingView): string {
  const kind = f.kind ?? 'injection';
  return kind === 'injection' ? (f.severity === 'warning' ? 'stabilisation' : 'injection') : kind;
}
