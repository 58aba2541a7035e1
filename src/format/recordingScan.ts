/**
 * The index scanner: one pass over the BYTES of a frame line that picks out only what the index keeps —
 * frame, time, contact count, max depth, solver status, iterations, last residual, max λn, whether pre / A / b
 * are written — without building a single object. The fields it reads are checked against the JSON grammar
 * (RFC 8259) and their types; of everything else (bodies, pre, contact points, A, energy …) it checks the
 * structure (matching brackets, strings and their escapes, printable ASCII) in one tight loop, and the
 * tokens (a NaN, "1.2.3") are checked when the frame is read.
 *
 * It never decides that a line is bad: anything it does not fully understand (broken brackets or strings, a
 * byte ≥ 0x80, a duplicate, escaped or mistyped summary field, a λ count ≠ 3C, frames or times that do not
 * increase, nesting deeper than MAX_SCAN_DEPTH) returns false, and the caller hands the line to the
 * validating parser (parseFrame), which accepts it or names the file, line and field. The remaining checks
 * of docs/recording-format.md (unit normals, body indices, …) run when the frame is read.
 */
import { SOLVER_STATUSES } from './recordingTypes.js';

/** Containers nested deeper than this are left to the validating parser. */
export const MAX_SCAN_DEPTH = 64;

/** What the index keeps of one frame line (filled in place: no allocation per line). */
export interface ScannedFrame {
  frame: number;
  time: number;
  contacts: number;
  /** Index in SOLVER_STATUSES. */
  status: number;
  /** −1: not written. */
  iterations: number;
  /** NaN: no residuals written. */
  finalResidual: number;
  maxLambdaN: number;
  maxDepth: number;
  hasPre: boolean;
  hasMatrix: boolean;
}

export function emptyScan(): ScannedFrame {
  return { frame: 0, time: 0, contacts: 0, status: 0, iterations: -1, finalResidual: NaN, maxLambdaN: 0, maxDepth: 0, hasPre: false, hasMatrix: false };
}

import {
  QUOTE,
  BACKSLASH,
  COMMA,
  COLON,
  LBRACE,
  RBRACE,
  LBRACKET,
  RBRACKET,
  MINUS,
  isSpace,
  isDigit,
  isHex,
  numberEnd,
  literalEnd,
  latin1,
} from './jsonBytes.js';

/** Fields whose values the scanner reads (by nesting): top level, solver.*, contacts[k].depth. */
// (numbers, not a const enum: biome noConstEnum; V8 folds module constants in the hot loop)
type Field = number;
const F_NONE = 0,
  F_FRAME = 1,
  F_TIME = 2,
  F_PRE = 3,
  F_CONTACTS = 4,
  F_SOLVER = 5,
  F_MATRIX = 6,
  F_STATUS = 7,
  F_ITERATIONS = 8,
  F_RESIDUALS = 9,
  F_LAMBDA = 10,
  F_DEPTH = 11;

// Maps, not object literals: a key such as "constructor" must not find Object.prototype's members
const TOP = new Map<string, Field>([
  ['frame', F_FRAME],
  ['time', F_TIME],
  ['pre', F_PRE],
  ['contacts', F_CONTACTS],
  ['solver', F_SOLVER],
  ['A', F_MATRIX],
  ['b', F_MATRIX],
]);
const SOLVER = new Map<string, Field>([
  ['status', F_STATUS],
  ['iterations', F_ITERATIONS],
  ['residuals', F_RESIDUALS],
  ['lambda', F_LAMBDA],
]);

/** What one scan has read so far (reset per line; the fields the index keeps, and the counts it checks). */
class LineSummary {
  /** Bit per top-level / solver field: a duplicate key is left to JSON.parse's last-wins. */
  seen = 0;
  contacts = -1;
  lambdaCount = -1;
  maxLambdaN = 0;
  maxDepth = 0;
  frame = NaN;
  time = NaN;
  status = -1;
  iterations = -1;
  finalResidual = NaN;
  hasPre = false;
  hasMatrix = false;
  /** "depth" keys seen in contacts. */
  depthsSeen = 0;

  reset(): void {
    this.seen = 0;
    this.contacts = -1;
    this.lambdaCount = -1;
    this.maxLambdaN = 0;
    this.maxDepth = 0;
    this.frame = NaN;
    this.time = NaN;
    this.status = -1;
    this.iterations = -1;
    this.finalResidual = NaN;
    this.hasPre = false;
    this.hasMatrix = false;
    this.depthsSeen = 0;
  }
}

/**
 * Reusable scanner (keeps its nesting stack between lines). `scan` is the tokenizer's state machine; the
 * phases it hands tokens to are methods: a key (readKey), a run of unread numbers (skipNumbers), the numbers
 * the index reads (readNumbers), an unread container (skip) and the closing checks (finish).
 */
export class FrameLineScanner {
  private readonly line = new LineSummary();
  /** Set by readKey(): the field of the value after the key. */
  private keyField: Field = F_NONE;
  private readonly kind = new Uint8Array(MAX_SCAN_DEPTH + 1); // 1 object, 2 array
  private readonly field = new Uint8Array(MAX_SCAN_DEPTH + 1); // Field of the container at this depth
  private readonly count = new Float64Array(MAX_SCAN_DEPTH + 1); // elements so far (arrays)

  /**
   * Scans buf[start, end) as one frame line. Returns 'blank' for a line of whitespace, true with `out`
   * filled for a line it fully understood, false for anything to leave to the validating parser.
   * `previous` is the last indexed frame (frame numbers and times must strictly increase).
   */
  scan(buf: Uint8Array, start: number, end: number, out: ScannedFrame, previous: { frame: number; time: number } | undefined): boolean | 'blank' {
    let p = start;
    while (p < end && isSpace(buf[p])) p++;
    if (p === end) return 'blank';
    if (buf[p] !== LBRACE) return false;
    const kind = this.kind,
      field = this.field,
      count = this.count,
      line = this.line;
    line.reset();
    let depth = 0;
    /** Field of the value about to be read (set by the key before it). */
    let pending: Field = F_NONE;
    // expecting: 0 value, 1 key or '}', 2 ',' or close, 3 ':', 4 key (after ',')
    let expect = 0;
    while (p < end) {
      const c = buf[p];
      if (c >= 0x80) return false; // non-ASCII: the parser decodes (and checks) UTF-8
      if (isSpace(c)) {
        p++;
        continue;
      }
      if (expect === 3) {
        if (c !== COLON) return false;
        expect = 0;
        p++;
        continue;
      }
      if (expect === 2) {
        if (c === COMMA) {
          expect = kind[depth] === 1 ? 4 : 0;
          if (kind[depth] === 2) pending = this.elementField(depth);
          p++;
          continue;
        }
        if (c === RBRACE || c === RBRACKET) {
          if ((c === RBRACE) !== (kind[depth] === 1)) return false;
          const closed = field[depth];
          if (closed === F_CONTACTS) line.contacts = count[depth];
          else if (closed === F_LAMBDA) line.lambdaCount = count[depth];
          depth--;
          p++;
          if (depth === 0) {
            while (p < end && isSpace(buf[p])) p++;
            if (p !== end) return false;
            break;
          }
          expect = 2;
          continue;
        }
        return false;
      }
      if (expect === 1 || expect === 4) {
        if (c === RBRACE && expect === 1) {
          expect = 2;
          continue; // handled as a close by the branch above on the next turn
        }
        if (c !== QUOTE) return false;
        p = this.readKey(buf, p, end, depth);
        if (p < 0) return false;
        pending = this.keyField;
        expect = 3;
        continue;
      }
      // a value
      const f = pending;
      pending = F_NONE;
      if (c === LBRACE || c === LBRACKET) {
        if (depth === MAX_SCAN_DEPTH) return false;
        if (kind[depth] === 2 && depth > 0) {
          if (f === F_LAMBDA || f === F_RESIDUALS) return false; // λ and residuals hold numbers only
          count[depth]++;
        }
        depth++;
        kind[depth] = c === LBRACE ? 1 : 2;
        field[depth] = f;
        count[depth] = 0;
        if (f === F_PRE) {
          if (c !== LBRACKET) return false;
          line.hasPre = true;
        } else if (f === F_MATRIX) {
          if (c !== LBRACKET) return false;
          line.hasMatrix = true;
        } else if ((f === F_CONTACTS || f === F_RESIDUALS || f === F_LAMBDA) && c !== LBRACKET) return false;
        else if (f === F_SOLVER && c !== LBRACE) return false;
        else if (f === F_FRAME || f === F_TIME || f === F_STATUS || f === F_ITERATIONS || f === F_DEPTH) return false;
        const isContact = depth === 3 && field[2] === F_CONTACTS;
        if (isContact && c !== LBRACE) return false; // a contact is an object
        if (depth > 1 && (f === F_NONE || f === F_PRE || f === F_MATRIX || isContact)) {
          // content the index does not read (bodies, pre, A, b, energy; a contact except its depth): its
          // structure (brackets, strings) is checked in one tight loop, its tokens when the frame is read
          const q = this.skip(buf, p, end, isContact);
          if (q < 0) return false;
          if (isContact) {
            line.depthsSeen += this.contactDepths;
            if (this.contactMaxDepth > line.maxDepth) line.maxDepth = this.contactMaxDepth;
          }
          depth--;
          p = q;
          expect = 2;
          continue;
        }
        p++;
        if (c === LBRACE) expect = 1;
        else {
          // first element (or an empty array)
          let r = p;
          while (r < end && isSpace(buf[r])) r++;
          if (r < end && buf[r] === RBRACKET) {
            p = r;
            expect = 2;
          } else {
            expect = 0;
            pending = this.elementField(depth);
          }
        }
        continue;
      }
      if (depth === 0) return false;
      if (kind[depth] === 2) {
        if (field[depth] === F_CONTACTS) return false; // a contact is an object
        count[depth]++;
      }
      if (c === QUOTE) {
        const q = this.stringEnd(buf, p + 1, end);
        if (q < 0) return false;
        if (f === F_STATUS) {
          line.status = SOLVER_STATUSES.indexOf(latin1(buf, p + 1, q) as (typeof SOLVER_STATUSES)[number]);
          if (line.status < 0) return false;
        } else if (f !== F_NONE) return false;
        p = q + 1;
        expect = 2;
        continue;
      }
      if (c === MINUS || isDigit(c)) {
        p = f === F_NONE && kind[depth] === 2 ? this.skipNumbers(buf, p, end, depth) : this.readNumbers(buf, p, end, f, depth);
        if (p < 0) return false;
        expect = 2;
        continue;
      }
      const lit = literalEnd(buf, p, end);
      if (lit < 0) return false;
      if (f !== F_NONE) return false; // null/true/false where a number or container belongs
      p = lit;
      expect = 2;
    }
    if (depth !== 0) return false; // the line ends inside a container (a truncated line)
    return this.finish(out, previous);
  }

  /**
   * Key phase: the key string opening at buf[p] (a quote) in the object at `depth`. Sets keyField to the
   * field it names (F_NONE for a key the index does not read) and returns the position after its closing
   * quote, or −1 (bad string, escaped or duplicate key of a read field).
   */
  private readKey(buf: Uint8Array, p: number, end: number, d: number): number {
    const field = this.field,
      line = this.line;
    const q = this.stringEnd(buf, p + 1, end);
    if (q < 0) return -1;
    let pending: Field = F_NONE;
    const parent = field[d];
    const read = d === 1 || parent === F_SOLVER || (d === 3 && field[2] === F_CONTACTS);
    // an escaped key ("fr\u0061me") may name a field the scanner reads: left to JSON.parse's last-wins
    if (read) for (let k = p + 1; k < q; k++) if (buf[k] === BACKSLASH) return -1;
    if (d === 3 && field[2] === F_CONTACTS) {
      // a contact's keys: only "depth" is read (compared as bytes, no string built)
      if (isDepthKey(buf, p + 1, q)) {
        pending = F_DEPTH;
        line.depthsSeen++;
      }
    } else if (d === 1 || parent === F_SOLVER) {
      const key = latin1(buf, p + 1, q);
      pending = (d === 1 ? TOP.get(key) : SOLVER.get(key)) ?? F_NONE;
      if (pending !== F_NONE) {
        const bit = 1 << (key === 'b' ? 12 : pending);
        if (line.seen & bit) return -1;
        line.seen |= bit;
      }
    }
    this.keyField = pending;
    return q + 1;
  }

  /**
   * A run of numbers the index does not read (x, q, v, w, point, normal, A …), most of a line: checked against
   * the number grammar in one tight loop, not converted, counted in the array at `depth` (whose count already
   * holds the first). Returns the position after the run, or −1.
   */
  private skipNumbers(buf: Uint8Array, p: number, end: number, depth: number): number {
    let n = 0;
    for (;;) {
      p = numberEnd(buf, p, end);
      if (p < 0) return -1;
      n++;
      if (p < end && buf[p] === COMMA) {
        let r = p + 1;
        while (r < end && isSpace(buf[r])) r++;
        const c2 = buf[r];
        if (c2 === MINUS || isDigit(c2)) {
          p = r;
          continue;
        }
      }
      break;
    }
    this.count[depth] += n - 1;
    return p;
  }

  /**
   * The numbers the index reads (frame, time, iterations, residuals, λ, a contact's depth) from buf[p]: full
   * grammar, converted into the line's summary; an array of them is read to its last number. Returns the
   * position after them, or −1 (bad number, not finite, wrong type for the field).
   */
  private readNumbers(buf: Uint8Array, p: number, end: number, f: Field, depth: number): number {
    const kind = this.kind,
      count = this.count,
      line = this.line;
    for (;;) {
      const q = numberEnd(buf, p, end);
      if (q < 0) return -1;
      if (f === F_LAMBDA && (count[depth] - 1) % 3 !== 0) {
        // λt1, λt2: checked, not converted (the index keeps the largest λn only)
      } else if (f !== F_NONE) {
        if (f === F_PRE || f === F_CONTACTS || f === F_SOLVER || f === F_MATRIX) return -1;
        const x = Number(latin1(buf, p, q));
        if (!Number.isFinite(x)) return -1; // 1e999: the parser names it
        switch (f) {
          case F_FRAME:
            line.frame = x;
            break;
          case F_TIME:
            line.time = x;
            break;
          case F_ITERATIONS:
            if (!Number.isSafeInteger(x) || x < 0) return -1;
            line.iterations = x;
            break;
          case F_RESIDUALS:
            line.finalResidual = x;
            break;
          case F_LAMBDA:
            // λn is every third entry (λn, λt1, λt2 per contact)
            if (x > line.maxLambdaN) line.maxLambdaN = x;
            break;
          case F_DEPTH:
            if (x < 0) return -1; // the parser names a negative depth
            if (x > line.maxDepth) line.maxDepth = x;
            break;
        }
      }
      p = q;
      if (buf[p] === COMMA && kind[depth] === 2) {
        const n = buf[p + 1];
        if (n === MINUS || isDigit(n)) {
          p++;
          count[depth]++;
          continue;
        }
      }
      break;
    }
    return p;
  }

  /** Closing phase: the summary is complete and consistent (λ count 3C, a depth per contact, increasing frame and time), then copied to `out`. */
  private finish(out: ScannedFrame, previous: { frame: number; time: number } | undefined): boolean {
    const { frame, time, status, contacts, lambdaCount, depthsSeen } = this.line;
    if (!Number.isSafeInteger(frame) || frame < 0 || !Number.isFinite(time) || status < 0 || contacts < 0 || lambdaCount !== 3 * contacts) return false;
    if (depthsSeen !== contacts) return false; // a contact without a depth (or a duplicate depth key)
    if (previous && !(frame > previous.frame && time > previous.time)) return false;
    const line = this.line;
    out.frame = frame;
    out.time = time;
    out.contacts = contacts;
    out.status = status;
    out.iterations = line.iterations;
    out.finalResidual = line.finalResidual;
    out.maxLambdaN = line.maxLambdaN;
    out.maxDepth = line.maxDepth;
    out.hasPre = line.hasPre;
    out.hasMatrix = line.hasMatrix;
    return true;
  }

  private readonly skipKind = new Uint8Array(MAX_SCAN_DEPTH + 1);
  /** Set by skip() in contact mode: "depth" keys seen and their largest value. */
  private contactDepths = 0;
  private contactMaxDepth = 0;
  /** Set by stringEnd(): the string held a backslash escape. */
  private escaped = false;

  /**
   * Skips the container opening at buf[p]: strings (with their escapes) and matching brackets are checked,
   * other bytes must be printable ASCII. Returns the position after its closing bracket, or −1. In contact
   * mode, the object's "depth" member is read with the full number grammar (a negative or non-number depth,
   * or an escaped key, returns −1).
   */
  private skip(buf: Uint8Array, p: number, end: number, contact: boolean): number {
    const kinds = this.skipKind;
    let d = 0;
    this.contactDepths = 0;
    this.contactMaxDepth = 0;
    while (p < end) {
      const k = BYTE_CLASS[buf[p]];
      if (k === PLAIN) {
        p++;
        continue;
      }
      if (k === STRING) {
        const q = this.stringEnd(buf, p + 1, end);
        if (q < 0) return -1;
        if (contact && d === 1) {
          let r = q + 1;
          while (r < end && isSpace(buf[r])) r++;
          if (r < end && buf[r] === COLON) {
            // a key of the contact object
            if (this.escaped) return -1;
            if (isDepthKey(buf, p + 1, q)) {
              r++;
              while (r < end && isSpace(buf[r])) r++;
              const e = numberEnd(buf, r, end);
              if (e < 0) return -1;
              const x = Number(latin1(buf, r, e));
              if (!(x >= 0) || !Number.isFinite(x)) return -1; // the parser names a negative depth
              this.contactDepths++;
              if (x > this.contactMaxDepth) this.contactMaxDepth = x;
              p = e;
              continue;
            }
          }
        }
        p = q + 1;
        continue;
      }
      if (k === OPEN) {
        if (d === MAX_SCAN_DEPTH) return -1;
        kinds[++d] = buf[p];
        p++;
        continue;
      }
      if (k === CLOSE) {
        if (d === 0 || kinds[d] !== buf[p] - 2) return -1; // ']' − 2 = '[', '}' − 2 = '{'
        d--;
        p++;
        if (d === 0) return p;
        continue;
      }
      return -1; // a control character or a byte ≥ 0x80
    }
    return -1;
  }

  /** Field of the elements of the array at this depth (λ and residual entries, contacts). */
  private elementField(depth: number): Field {
    const f = this.field[depth];
    return f === F_LAMBDA || f === F_RESIDUALS ? f : F_NONE;
  }

  /** Position of the closing quote of a string whose content starts at p, or −1 (control character, bad escape, no end). */
  private stringEnd(buf: Uint8Array, p: number, end: number): number {
    this.escaped = false;
    while (p < end) {
      const c = buf[p];
      if (c === QUOTE) return p;
      if (c < 0x20 || c >= 0x80) return -1;
      if (c === BACKSLASH) {
        this.escaped = true;
        const e = buf[p + 1];
        if (e === 0x75) {
          // \uXXXX
          for (let k = 2; k < 6; k++) if (!isHex(buf[p + k])) return -1;
          p += 6;
          continue;
        }
        if (!(e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74)) return -1;
        p += 2;
        continue;
      }
      p++;
    }
    return -1;
  }
}

/** Byte classes of skip(): printable ASCII and whitespace, '"', '[' '{', ']' '}', anything else. */
const PLAIN = 0,
  STRING = 1,
  OPEN = 2,
  CLOSE = 3,
  OTHER = 4;
const BYTE_CLASS = new Uint8Array(256).fill(OTHER);
for (let c = 0x20; c < 0x7f; c++) BYTE_CLASS[c] = PLAIN;
for (const c of [0x09, 0x0a, 0x0d]) BYTE_CLASS[c] = PLAIN;
BYTE_CLASS[QUOTE] = STRING;
BYTE_CLASS[LBRACKET] = BYTE_CLASS[LBRACE] = OPEN;
BYTE_CLASS[RBRACKET] = BYTE_CLASS[RBRACE] = CLOSE;

/** buf[from, to) is the key "depth". */
const isDepthKey = (buf: Uint8Array, from: number, to: number): boolean =>
  to - from === 5 && buf[from] === 0x64 && buf[from + 1] === 0x65 && buf[from + 2] === 0x70 && buf[from + 3] === 0x74 && buf[from + 4] === 0x68;
