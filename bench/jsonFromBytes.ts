/**
 * JSON.parse of an ASCII line straight from its bytes, a reference for bench/numberScan.ts: no
 * text is decoded first, numbers are converted from their digits (decimalBytes.ts, bit-identical to JSON.parse)
 * and the few distinct keys and short strings of a recording (field names, feature ids) are made once per
 * line from a small table instead of once per occurrence. The value is the one JSON.parse gives (the same
 * objects, arrays, key order and numbers, −0 included: test/unit/decimal-bytes.test.ts); anything off its
 * path — a byte ≥ 0x80, an escape in a string, a syntax error, a NaN token, "__proto__", nesting deeper than
 * MAX_DEPTH — returns NOT_DECODED, and the caller parses the text as before, so bad input gets the same
 * message it always got.
 */
import { decimalAt, decimalCursor } from './decimalBytes.js';

/** Returned when the line is left to JSON.parse of its text. */
export const NOT_DECODED: unique symbol = Symbol('not decoded');

/** Containers nested deeper than this are left to JSON.parse (a frame line nests 4 deep). */
const MAX_DEPTH = 64;
/** Strings up to this many bytes are shared through the table (keys, feature ids, statuses). */
const SHARED_STRING_BYTES = 48;
/** Slots of the shared-string table (a power of two). */
const TABLE_SLOTS = 256;

const FAIL = NOT_DECODED;

/** The line being decoded and the read position (module state: one decode at a time, synchronous). */
let buf: Uint8Array = new Uint8Array(0);
let end = 0;
let pos = 0;
/** Shared strings of the current line by slot: their bytes and text. */
let slotBytes: (Uint8Array | null)[] = new Array(TABLE_SLOTS).fill(null);
let slotText: string[] = new Array(TABLE_SLOTS).fill('');

/** The JSON value of bytes[from, to) (whitespace around it allowed), or NOT_DECODED. */
export function jsonFromBytes(bytes: Uint8Array, from = 0, to = bytes.length): unknown {
  buf = bytes;
  end = to;
  pos = from;
  slotBytes = new Array(TABLE_SLOTS).fill(null);
  slotText = new Array(TABLE_SLOTS).fill('');
  try {
    skipSpace();
    const v = value(0);
    skipSpace();
    return v === FAIL || pos !== end ? FAIL : v;
  } finally {
    buf = new Uint8Array(0);
  }
}

function skipSpace(): void {
  while (pos < end) {
    const c = buf[pos];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    pos++;
  }
}

function value(depth: number): unknown {
  if (pos >= end) return FAIL;
  const c = buf[pos];
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
    const v = decimalAt(buf, pos, end);
    if (Number.isNaN(v)) return FAIL; // not a JSON number (NaN is never a JSON number's value)
    pos = decimalCursor.end;
    return v;
  }
  if (c === 0x22) return string();
  if (c === 0x5b) return depth >= MAX_DEPTH ? FAIL : array(depth + 1);
  if (c === 0x7b) return depth >= MAX_DEPTH ? FAIL : object(depth + 1);
  if (c === 0x74 && end - pos >= 4 && buf[pos + 1] === 0x72 && buf[pos + 2] === 0x75 && buf[pos + 3] === 0x65) {
    pos += 4;
    return true;
  }
  if (c === 0x66 && end - pos >= 5 && buf[pos + 1] === 0x61 && buf[pos + 2] === 0x6c && buf[pos + 3] === 0x73 && buf[pos + 4] === 0x65) {
    pos += 5;
    return false;
  }
  if (c === 0x6e && end - pos >= 4 && buf[pos + 1] === 0x75 && buf[pos + 2] === 0x6c && buf[pos + 3] === 0x6c) {
    pos += 4;
    return null;
  }
  return FAIL;
}

function array(depth: number): unknown {
  pos++; // [
  const out: unknown[] = [];
  skipSpace();
  if (pos < end && buf[pos] === 0x5d) {
    pos++;
    return out;
  }
  for (;;) {
    skipSpace();
    const v = value(depth);
    if (v === FAIL) return FAIL;
    out.push(v);
    skipSpace();
    if (pos >= end) return FAIL;
    const c = buf[pos++];
    if (c === 0x5d) return out;
    if (c !== 0x2c) return FAIL;
  }
}

function object(depth: number): unknown {
  pos++; // {
  const out: Record<string, unknown> = {};
  skipSpace();
  if (pos < end && buf[pos] === 0x7d) {
    pos++;
    return out;
  }
  for (;;) {
    skipSpace();
    if (pos >= end || buf[pos] !== 0x22) return FAIL;
    const key = string();
    if (key === FAIL || key === '__proto__') return FAIL; // JSON.parse makes it an own property; assignment would not
    skipSpace();
    if (pos >= end || buf[pos] !== 0x3a) return FAIL;
    pos++;
    skipSpace();
    const v = value(depth);
    if (v === FAIL) return FAIL;
    out[key as string] = v;
    skipSpace();
    if (pos >= end) return FAIL;
    const c = buf[pos++];
    if (c === 0x7d) return out;
    if (c !== 0x2c) return FAIL;
  }
}

/** A string without escapes or bytes outside printable ASCII (else FAIL), short ones shared through the table. */
function string(): string | typeof FAIL {
  const start = ++pos;
  let h = 0;
  for (;;) {
    if (pos >= end) return FAIL;
    const c = buf[pos];
    if (c === 0x22) break;
    if (c === 0x5c || c < 0x20 || c >= 0x80) return FAIL;
    h = (h * 31 + c) | 0;
    pos++;
  }
  const n = pos - start;
  pos++; // closing quote
  if (n > SHARED_STRING_BYTES) return ascii(start, start + n);
  const slot = (h ^ (h >>> 8) ^ n) & (TABLE_SLOTS - 1);
  const known = slotBytes[slot];
  if (known !== null && known.length === n) {
    let same = true;
    for (let k = 0; k < n; k++)
      if (known[k] !== buf[start + k]) {
        same = false;
        break;
      }
    if (same) return slotText[slot];
  }
  const text = ascii(start, start + n);
  slotBytes[slot] = buf.slice(start, start + n);
  slotText[slot] = text;
  return text;
}

/** ASCII bytes [from, to) as a string. */
function ascii(from: number, to: number): string {
  let s = '';
  // short strings byte by byte; longer ones in slices of 4096 codes (never one call over a huge argument list)
  if (to - from <= 16) {
    for (let k = from; k < to; k++) s += String.fromCharCode(buf[k]);
    return s;
  }
  for (let k = from; k < to; k += 4096) s += String.fromCharCode.apply(null, buf.subarray(k, Math.min(to, k + 4096)) as unknown as number[]);
  return s;
}
