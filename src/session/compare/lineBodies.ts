/**
 * The post-step body states of a frame line, read from its bytes without parsing the rest of the line: the
 * top-level "bodies" array is found by a bracket- and string-aware scan (RFC 8259 grammar: strings, their
 * escapes, nesting) that stops at its closing bracket, and only that slice goes through JSON.parse. After a
 * divergence a comparison needs nothing else of a frame, and a busy frame's bodies are a few per cent of its
 * line (the contacts, λ, A and b are the rest). Anything unexpected returns null: the caller then reads the
 * frame through the validating reader, which accepts it or names the line and field.
 */
import type { RecordedBodyState } from '../../format/recording.js';

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  LBRACE = 0x7b,
  RBRACE = 0x7d,
  LBRACKET = 0x5b,
  RBRACKET = 0x5d,
  COLON = 0x3a;
const KEY = Buffer.from('bodies"', 'latin1');

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

/** [start, end) of the top-level "bodies" value in buf[0, n), or null. */
export function bodiesSpan(buf: Uint8Array, n: number): [number, number] | null {
  let depth = 0,
    p = 0;
  while (p < n) {
    const c = buf[p];
    if (c === QUOTE) {
      // a key of the top-level object: "bodies" followed by a colon
      if (depth === 1 && p + 1 + KEY.length <= n && Buffer.compare(KEY, Buffer.from(buf.buffer, buf.byteOffset + p + 1, KEY.length)) === 0) {
        let k = p + 1 + KEY.length;
        while (k < n && isSpace(buf[k])) k++;
        if (buf[k] === COLON) {
          k++;
          while (k < n && isSpace(buf[k])) k++;
          return buf[k] === LBRACKET ? arrayEnd(buf, n, k) : null;
        }
      }
      p = stringEnd(buf, n, p);
      if (p < 0) return null;
      continue;
    }
    if (c === LBRACE || c === LBRACKET) depth++;
    else if (c === RBRACE || c === RBRACKET) depth--;
    p++;
  }
  return null;
}

/** Index after the closing quote of the string starting at p (−1: unterminated). */
function stringEnd(buf: Uint8Array, n: number, p: number): number {
  for (let k = p + 1; k < n; k++) {
    const c = buf[k];
    if (c === BACKSLASH) k++;
    else if (c === QUOTE) return k + 1;
  }
  return -1;
}

/** [start, end) of the array starting at `start`, or null. */
function arrayEnd(buf: Uint8Array, n: number, start: number): [number, number] | null {
  let depth = 0;
  for (let p = start; p < n; ) {
    const c = buf[p];
    if (c === QUOTE) {
      p = stringEnd(buf, n, p);
      if (p < 0) return null;
      continue;
    }
    if (c === LBRACE || c === LBRACKET) depth++;
    else if (c === RBRACE || c === RBRACKET) {
      depth--;
      if (depth === 0) return [start, p + 1];
    }
    p++;
  }
  return null;
}

const finiteVec = (v: unknown, n: number): boolean => Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'number' && Number.isFinite(x));

/** The `count` body states of the line, or null (then read the frame through the reader). */
export function bodiesFromLine(buf: Buffer, n: number, count: number): RecordedBodyState[] | null {
  const span = bodiesSpan(buf, n);
  if (!span) return null;
  let value: unknown;
  try {
    value = JSON.parse(buf.toString('latin1', span[0], span[1]));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== count) return null;
  for (const s of value) {
    if (!s || typeof s !== 'object') return null;
    const o = s as Record<string, unknown>;
    if (!finiteVec(o.x, 3) || !finiteVec(o.q, 4) || !finiteVec(o.v, 3) || !finiteVec(o.w, 3)) return null;
  }
  return value as RecordedBodyState[];
}
