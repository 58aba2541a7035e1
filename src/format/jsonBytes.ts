/**
 * JSON tokens in bytes (RFC 8259), for the scanners that read a line without parsing it (recordingScan.ts):
 * the byte codes, where a number or a literal ends, and ASCII bytes as a string.
 */

// byte codes
export const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c,
  COLON = 0x3a,
  LBRACE = 0x7b,
  RBRACE = 0x7d,
  LBRACKET = 0x5b,
  RBRACKET = 0x5d,
  MINUS = 0x2d,
  PLUS = 0x2b,
  DOT = 0x2e,
  ZERO = 0x30,
  NINE = 0x39;

export const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
export const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;

export const isHex = (c: number): boolean => (c >= ZERO && c <= NINE) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** End of a JSON number starting at p (RFC 8259 §6: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?), or −1. */
export function numberEnd(buf: Uint8Array, p: number, end: number): number {
  if (buf[p] === MINUS) p++;
  if (p >= end) return -1;
  if (buf[p] === ZERO) p++;
  else if (isDigit(buf[p])) while (p < end && isDigit(buf[p])) p++;
  else return -1;
  if (p < end && buf[p] === DOT) {
    p++;
    if (!(p < end && isDigit(buf[p]))) return -1;
    while (p < end && isDigit(buf[p])) p++;
  }
  if (p < end && (buf[p] === 0x65 || buf[p] === 0x45)) {
    p++;
    if (p < end && (buf[p] === PLUS || buf[p] === MINUS)) p++;
    if (!(p < end && isDigit(buf[p]))) return -1;
    while (p < end && isDigit(buf[p])) p++;
  }
  // a number must be followed by a delimiter (catches "1.5.3", "12abc", "-inf")
  if (p < end) {
    const c = buf[p];
    if (!(c === COMMA || c === RBRACKET || c === RBRACE || isSpace(c))) return -1;
  }
  return p;
}

const LITERALS = [
  [0x74, 0x72, 0x75, 0x65], // true
  [0x66, 0x61, 0x6c, 0x73, 0x65], // false
  [0x6e, 0x75, 0x6c, 0x6c], // null
];

/** End of true/false/null at p, or −1 (NaN, nan, Infinity, inf … are not JSON: the parser names them). */
export function literalEnd(buf: Uint8Array, p: number, end: number): number {
  for (const lit of LITERALS) {
    if (buf[p] !== lit[0]) continue;
    if (p + lit.length > end) return -1;
    for (let k = 1; k < lit.length; k++) if (buf[p + k] !== lit[k]) return -1;
    const q = p + lit.length;
    if (q < end) {
      const c = buf[q];
      if (!(c === COMMA || c === RBRACKET || c === RBRACE || isSpace(c))) return -1;
    }
    return q;
  }
  return -1;
}

const LATIN1 = new TextDecoder('latin1');

/**
 * ASCII bytes as a string (callers have checked every byte is < 0x80). Never spreads the bytes into a call's
 * arguments (String.fromCharCode.apply over a 130 000-byte token overflowed the call stack): short tokens
 * byte by byte, longer ones through a decoder.
 */
export function latin1(buf: Uint8Array, from: number, to: number): string {
  if (to - from <= 40) {
    let s = '';
    for (let k = from; k < to; k++) s += String.fromCharCode(buf[k]);
    return s;
  }
  return LATIN1.decode(buf.subarray(from, to));
}
