/**
 * The optional closing line of a recording (docs/recording-format.md "Closing line"): `{"end":{"frames":N}}`,
 * written by a writer when it closes the recording, so that a reader following the file as it grows
 * (`diagnose --follow`, the inspector) knows that nothing more will come, and how many frame lines were
 * written (a follower that read fewer lost some).
 */
import { FormatError } from './messages.js';

/** A line that may be the closing line: its first key is "end" (checked before parsing it fully). */
export const END_LINE = /^\s*\{\s*"end"/;

export interface RecordingEnd {
  /** Frame lines the writer wrote before closing (0 or more). */
  readonly frames: number;
}

/** True when the parsed JSON of a line is the closing line (an object with key "end" and no "frame"). */
export function isEndLine(raw: unknown): boolean {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'end' in raw && !('frame' in raw);
}

/** Validates `{"end": {"frames": N}}` (unknown keys starting with "x-" allowed, as everywhere in the format). */
export function validateEnd(raw: unknown, lineNo: number, file: string): RecordingEnd {
  const where = `line ${lineNo}: end`;
  const o = (raw as { end?: unknown }).end;
  if (o === null || typeof o !== 'object' || Array.isArray(o))
    throw new FormatError(file, where, 'must be an object {"frames": N} (docs/recording-format.md "Closing line")');
  const frames = (o as { frames?: unknown }).frames;
  if (typeof frames !== 'number' || !Number.isInteger(frames) || frames < 0)
    throw new FormatError(file, `${where}.frames`, `is ${JSON.stringify(frames) ?? 'missing'}; expected the number of frame lines written, an integer ≥ 0`);
  return { frames };
}

/** The closing line's text (without the newline). */
export function serializeEnd(frames: number): string {
  return `{"end":{"frames":${frames}}}`;
}
