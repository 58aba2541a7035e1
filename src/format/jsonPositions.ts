/**
 * A small strict JSON parser that records where every value sits in the text (for error messages with
 * line and column, and for CodeLens ranges), plus a lenient token scanner that never throws (for outlines
 * of half-typed files). No dependencies; one pass over char codes.
 *
 * Offsets are UTF-16 code-unit indices into the text (JavaScript string indices, as VS Code uses); `end`
 * is exclusive. Lines and columns are 1-based; line breaks are \n, \r\n and \r.
 */

export interface JsonSpan {
  /** Offset of the value's first character. */
  readonly start: number;
  /** Offset one past the value's last character. */
  readonly end: number;
}

export interface JsonObject extends JsonSpan {
  readonly type: 'object';
  /** Members in text order; duplicate keys are kept (the caller decides what to do with them). */
  readonly members: readonly JsonMember[];
}
export interface JsonMember {
  readonly key: string;
  readonly keyStart: number;
  readonly keyEnd: number;
  readonly value: JsonNode;
}
export interface JsonArray extends JsonSpan {
  readonly type: 'array';
  readonly items: readonly JsonNode[];
}
export interface JsonString extends JsonSpan {
  readonly type: 'string';
  readonly value: string;
}
export interface JsonNumber extends JsonSpan {
  readonly type: 'number';
  /** May be ±Infinity when the literal overflows (e.g. 1e400); callers that need finite numbers check. */
  readonly value: number;
}
export interface JsonBoolean extends JsonSpan {
  readonly type: 'boolean';
  readonly value: boolean;
}
export interface JsonNull extends JsonSpan {
  readonly type: 'null';
}
export type JsonNode = JsonObject | JsonArray | JsonString | JsonNumber | JsonBoolean | JsonNull;

/** A syntax error at `offset`; `detail` says what was expected and, for common mistakes, how to fix it. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly detail: string,
  ) {
    super(`${detail} (offset ${offset})`);
    this.name = 'JsonSyntaxError';
  }
}

/** Maximum nesting of arrays/objects (deeper input is rejected instead of overflowing the stack). */
export const MAX_JSON_DEPTH = 256;
/**
 * Most entries in one array or members in one object: a scene needs far fewer (the 1000-box pile has 1001
 * bodies), and a node with a position per entry made a 10⁶-entry array cost seconds before its error.
 */
export const MAX_JSON_ENTRIES = 100_000;

/** Character codes used by the scanners. */
const C = {
  Tab: 9,
  LF: 10,
  CR: 13,
  Space: 32,
  Quote: 34,
  Plus: 43,
  Comma: 44,
  Minus: 45,
  Dot: 46,
  Slash: 47,
  D0: 48,
  D1: 49,
  D9: 57,
  Colon: 58,
  BracketOpen: 91,
  Backslash: 92,
  BracketClose: 93,
  BraceOpen: 123,
  BraceClose: 125,
  E: 69,
  LowerE: 101,
  Apostrophe: 39,
  BOM: 0xfeff,
} as const;

const WORD = /[A-Za-z_$][\w$]*/y;

function describeChar(text: string, i: number): string {
  if (i >= text.length) return 'the end of the file';
  const ch = text[i];
  if (ch === '\n' || ch === '\r') return 'a line break';
  const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(i, i + 40));
  if (word) return `"${word[0]}"`;
  return `'${ch}'`;
}

class StrictParser {
  i = 0;
  constructor(readonly t: string) {}

  fail(offset: number, detail: string): never {
    throw new JsonSyntaxError(offset, detail);
  }

  ws(): void {
    const t = this.t;
    let i = this.i;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c === C.Space || c === C.LF || c === C.CR || c === C.Tab || (c === C.BOM && i === 0)) {
        i++;
        continue;
      }
      if (c === C.Slash && (t.charCodeAt(i + 1) === C.Slash || t.charCodeAt(i + 1) === 42)) {
        this.fail(i, 'comments are not allowed (scenario files are strict JSON); remove the comment or move the text into a "description" field');
      }
      break;
    }
    this.i = i;
  }

  value(depth: number): JsonNode {
    this.ws();
    const t = this.t,
      i = this.i,
      c = t.charCodeAt(i);
    if (c === C.BraceOpen) return this.object(depth + 1);
    if (c === C.BracketOpen) return this.array(depth + 1);
    if (c === C.Quote) {
      const s = this.string();
      return { type: 'string', value: s, start: i, end: this.i };
    }
    if (c === C.Minus || (c >= C.D0 && c <= C.D9)) return this.number();
    WORD.lastIndex = i;
    const word = WORD.exec(t)?.[0];
    if (word === 'true' || word === 'false') {
      this.i = i + word.length;
      return { type: 'boolean', value: word === 'true', start: i, end: this.i };
    }
    if (word === 'null') {
      this.i = i + 4;
      return { type: 'null', start: i, end: this.i };
    }
    if (word === 'NaN' || word === 'Infinity') this.fail(i, 'NaN and Infinity are not JSON numbers; use a finite number');
    if (word !== undefined) this.fail(i, `unexpected word "${word}": a value is an object, array, "string", number, true, false or null`);
    if (i >= t.length) this.fail(i, 'unexpected end of the file: expected a value');
    if (c === C.Apostrophe) this.fail(i, 'strings must use double quotes "…", not single quotes');
    if (c === C.Plus || c === C.Dot) this.fail(i, 'a JSON number starts with a digit or "-" (no leading "+" or ".")');
    if (c === C.BraceClose || c === C.BracketClose || c === C.Comma) this.fail(i, `expected a value, found ${describeChar(t, i)} (a trailing comma?)`);
    this.fail(i, `expected a value (object, array, string, number, true, false or null), found ${describeChar(t, i)}`);
  }

  object(depth: number): JsonObject {
    const t = this.t,
      start = this.i;
    if (depth > MAX_JSON_DEPTH) this.fail(start, `nesting deeper than ${MAX_JSON_DEPTH} levels`);
    this.i++;
    const members: JsonMember[] = [];
    this.ws();
    if (t.charCodeAt(this.i) === C.BraceClose) {
      this.i++;
      return { type: 'object', members, start, end: this.i };
    }
    for (;;) {
      this.ws();
      const ks = this.i,
        kc = t.charCodeAt(ks);
      if (kc !== C.Quote) {
        if (kc === C.BraceClose) this.fail(ks, 'trailing comma before "}" is not allowed in JSON; remove the comma');
        if (ks >= t.length) this.fail(ks, 'unexpected end of the file: the object is not closed with "}"');
        if (kc === C.Apostrophe) this.fail(ks, 'property names must use double quotes "…", not single quotes');
        if (/[A-Za-z_$]/.test(t[ks])) this.fail(ks, `property names must be double-quoted strings: write "${/^[\w$]+/.exec(t.slice(ks, ks + 60))![0]}"`);
        this.fail(ks, `expected a property name in double quotes, found ${describeChar(t, ks)}`);
      }
      const key = this.string();
      const ke = this.i;
      this.ws();
      if (t.charCodeAt(this.i) !== C.Colon) this.fail(this.i, `expected ':' after the property name "${key}", found ${describeChar(t, this.i)}`);
      this.i++;
      if (members.length === MAX_JSON_ENTRIES) this.fail(ks, `more than ${MAX_JSON_ENTRIES} members in one object; not read`);
      const value = this.value(depth);
      members.push({ key, keyStart: ks, keyEnd: ke, value });
      this.ws();
      const c = t.charCodeAt(this.i);
      if (c === C.Comma) {
        this.i++;
        continue;
      }
      if (c === C.BraceClose) {
        this.i++;
        return { type: 'object', members, start, end: this.i };
      }
      if (this.i >= t.length) this.fail(this.i, `unexpected end of the file: the object that starts at offset ${start} is not closed with "}"`);
      if (c === C.Quote) this.fail(this.i, `expected ',' or '}' after the value of "${key}", found a string (missing comma?)`);
      this.fail(this.i, `expected ',' or '}' after the value of "${key}", found ${describeChar(t, this.i)}`);
    }
  }

  array(depth: number): JsonArray {
    const t = this.t,
      start = this.i;
    if (depth > MAX_JSON_DEPTH) this.fail(start, `nesting deeper than ${MAX_JSON_DEPTH} levels`);
    this.i++;
    const items: JsonNode[] = [];
    this.ws();
    if (t.charCodeAt(this.i) === C.BracketClose) {
      this.i++;
      return { type: 'array', items, start, end: this.i };
    }
    for (;;) {
      this.ws();
      if (t.charCodeAt(this.i) === C.BracketClose) this.fail(this.i, 'trailing comma before "]" is not allowed in JSON; remove the comma');
      if (items.length === MAX_JSON_ENTRIES) this.fail(this.i, `more than ${MAX_JSON_ENTRIES} entries in one array; not read`);
      items.push(this.value(depth));
      this.ws();
      const c = t.charCodeAt(this.i);
      if (c === C.Comma) {
        this.i++;
        continue;
      }
      if (c === C.BracketClose) {
        this.i++;
        return { type: 'array', items, start, end: this.i };
      }
      if (this.i >= t.length) this.fail(this.i, `unexpected end of the file: the array is not closed with "]"`);
      this.fail(this.i, `expected ',' or ']' after an array element, found ${describeChar(t, this.i)} (missing comma?)`);
    }
  }

  /** Parses a string starting at this.i (a '"'); leaves this.i after the closing quote. */
  string(): string {
    const t = this.t,
      start = this.i;
    let i = start + 1;
    let out = '';
    let chunk = i;
    for (;;) {
      if (i >= t.length) this.fail(start, "unterminated string: missing the closing '\"'");
      const c = t.charCodeAt(i);
      if (c === C.Quote) {
        out += t.slice(chunk, i);
        this.i = i + 1;
        return out;
      }
      if (c < 0x20) {
        if (c === C.LF || c === C.CR) this.fail(start, "unterminated string: missing the closing '\"' before the end of the line");
        this.fail(i, 'control characters must be escaped inside strings (e.g. \\t)');
      }
      if (c === C.Backslash) {
        out += t.slice(chunk, i);
        const e = t[i + 1];
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            const hex = t.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail(i, 'invalid \\u escape: expected four hex digits');
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            this.fail(i, `invalid escape "\\${e ?? ''}" in a string (valid: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)`);
        }
        i += 2;
        chunk = i;
        continue;
      }
      i++;
    }
  }

  number(): JsonNumber {
    const t = this.t,
      start = this.i;
    let i = start;
    if (t.charCodeAt(i) === C.Minus) i++;
    let c = t.charCodeAt(i);
    if (c === C.D0) {
      i++;
      c = t.charCodeAt(i);
      if (c >= C.D0 && c <= C.D9) this.fail(start, 'numbers must not have leading zeros');
    } else if (c >= C.D1 && c <= C.D9) {
      while ((c = t.charCodeAt(++i)) >= C.D0 && c <= C.D9);
    } else {
      if (t.startsWith('Infinity', i)) this.fail(start, 'NaN and Infinity are not JSON numbers; use a finite number');
      this.fail(start, 'expected a digit after "-"');
    }
    if (c === C.Dot) {
      c = t.charCodeAt(++i);
      if (!(c >= C.D0 && c <= C.D9)) this.fail(i, 'expected a digit after the decimal point');
      while ((c = t.charCodeAt(++i)) >= C.D0 && c <= C.D9);
    }
    if (c === C.E || c === C.LowerE) {
      c = t.charCodeAt(++i);
      if (c === C.Plus || c === C.Minus) c = t.charCodeAt(++i);
      if (!(c >= C.D0 && c <= C.D9)) this.fail(i, 'expected a digit in the exponent');
      while ((c = t.charCodeAt(++i)) >= C.D0 && c <= C.D9);
    }
    this.i = i;
    return { type: 'number', value: Number(t.slice(start, i)), start, end: i };
  }
}

/** Parses strict JSON (RFC 8259; a leading BOM is allowed), throwing JsonSyntaxError with an offset. */
export function parseJsonWithPositions(text: string): JsonNode {
  const p = new StrictParser(text);
  const v = p.value(0);
  p.ws();
  if (p.i < text.length) p.fail(p.i, `unexpected ${describeChar(text, p.i)} after the end of the JSON value`);
  return v;
}

/** Plain JS value of a node (objects: the last of duplicate keys wins, as JSON.parse does). */
export function toPlain(n: JsonNode): unknown {
  switch (n.type) {
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const m of n.members) o[m.key] = toPlain(m.value);
      return o;
    }
    case 'array':
      return n.items.map(toPlain);
    case 'null':
      return null;
    default:
      return n.value;
  }
}

export interface TextPosition {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column in UTF-16 code units. */
  readonly column: number;
}

/** 1-based range; `endColumn` is one past the last character (exclusive), as in VS Code. */
export interface SourceRange {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

/** Offset → line/column by binary search over the line starts (computed once). */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === C.LF) this.starts.push(i + 1);
      else if (c === C.CR) {
        if (text.charCodeAt(i + 1) === C.LF) i++;
        this.starts.push(i + 1);
      }
    }
  }
  position(offset: number): TextPosition {
    const o = Math.max(0, Math.min(offset, this.text.length));
    const s = this.starts;
    let lo = 0,
      hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: o - s[lo] + 1 };
  }
  range(start: number, end: number): SourceRange {
    const a = this.position(start),
      b = this.position(end);
    return { line: a.line, column: a.column, endLine: b.line, endColumn: b.column };
  }
}

// ---------------------------------------------------------------------------------------------------
// Lenient scanning (never throws): for outlines of files that are being typed.

export type LooseTokenKind = '{' | '}' | '[' | ']' | ':' | ',' | 'string' | 'literal';
export interface LooseToken {
  readonly kind: LooseTokenKind;
  readonly start: number;
  readonly end: number;
  /** Decoded value of a string token (best effort for unterminated strings). */
  readonly value?: string;
}

const PUNCT_KIND: readonly (LooseTokenKind | undefined)[] = (() => {
  const k: (LooseTokenKind | undefined)[] = new Array(128).fill(undefined);
  k[123] = '{';
  k[125] = '}';
  k[91] = '[';
  k[93] = ']';
  k[58] = ':';
  k[44] = ',';
  return k;
})();
/** Character classes below 128: 0 other, 1 white space, 2 punctuation, 3 quote, 4 slash. */
const CLASS = (() => {
  const c = new Uint8Array(128);
  for (const w of [9, 10, 13, 32]) c[w] = 1;
  for (const p of [123, 125, 91, 93, 58, 44]) c[p] = 2;
  c[34] = 3;
  c[47] = 4;
  return c;
})();

/**
 * Splits text into JSON-ish tokens without ever failing: comments are skipped, an unterminated string
 * ends at the end of its line, anything else that is not punctuation or a string becomes a `literal`.
 */
export function scanLooseTokens(text: string): LooseToken[] {
  const out: LooseToken[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const cls = c < 128 ? CLASS[c] : 0;
    if (cls === 1 || c === C.BOM) {
      i++;
      continue;
    }
    if (cls === 2) {
      out.push({ kind: PUNCT_KIND[c]!, start: i, end: i + 1 });
      i++;
      continue;
    }
    if (cls === 4) {
      const d = text.charCodeAt(i + 1);
      if (d === C.Slash) {
        while (i < n && text.charCodeAt(i) !== C.LF && text.charCodeAt(i) !== C.CR) i++;
        continue;
      }
      if (d === 42) {
        const close = text.indexOf('*/', i + 2);
        i = close < 0 ? n : close + 2;
        continue;
      }
    }
    if (cls === 3) {
      const start = i;
      let j = i + 1;
      let closed = false,
        escaped = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === C.Backslash) {
          escaped = true;
          j += 2;
          continue;
        }
        if (d === C.Quote) {
          closed = true;
          break;
        }
        if (d === C.LF || d === C.CR) break;
        j++;
      }
      j = Math.min(j, n);
      let value = text.slice(start + 1, j);
      if (escaped) {
        try {
          value = JSON.parse(`"${value}"`) as string;
        } catch {
          /* keep the raw text */
        }
      }
      const end = closed ? j + 1 : j;
      out.push({ kind: 'string', start, end, value });
      i = end;
      continue;
    }
    const start = i++;
    while (i < n) {
      const d = text.charCodeAt(i);
      if (d < 128 && CLASS[d] !== 0 && !(CLASS[d] === 4 && text.charCodeAt(i + 1) !== C.Slash && text.charCodeAt(i + 1) !== 42)) break;
      i++;
    }
    out.push({ kind: 'literal', start, end: i });
  }
  return out;
}
