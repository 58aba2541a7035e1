/**
 * A binary form of a parsed JSON value that decodes to the value JSON.parse gave: the same objects with their
 * keys in the same order, the same arrays, strings and numbers (IEEE doubles stored as their 8 bytes, −0
 * included), so that reading it back costs no number parsing. The frame store of a recording's cache
 * (frameStore.ts) keeps each frame line in this form; docs/recording-format.md "The recording's cache".
 *
 * Layout of one value (little-endian): the string table (u32 count, then per string a u32 byte length and its
 * UTF-8 bytes), the object shapes (u32 count, then per shape a u32 key count and the keys' string indices as
 * u32), the numbers (u32 count, zero padding to a multiple of 8 bytes from the value's start, then the doubles
 * in the order met), then the value as a tagged stream: TAG_NULL, TAG_FALSE, TAG_TRUE, TAG_NUMBER (the next
 * double), TAG_STRING + u32 index, TAG_ARRAY + u32 length + the items, TAG_NUMBERS + u32 length (an array of
 * that many next doubles), TAG_OBJECT + u32 shape + the values in the shape's key order.
 */

const TAG_NULL = 0,
  TAG_FALSE = 1,
  TAG_TRUE = 2,
  TAG_NUMBER = 3,
  TAG_STRING = 4,
  TAG_ARRAY = 5,
  TAG_NUMBERS = 6,
  TAG_OBJECT = 7;

/** Containers nested deeper than this are not encoded (a frame nests 4 deep; JSON.parse itself has a limit). */
const MAX_DEPTH = 64;

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** A node of the encoder's shape trie: the shape of the keys on the path to it (−1: none yet), and the next key's nodes. */
interface ShapeNode {
  shape: number;
  readonly next: Map<string, ShapeNode>;
}

/** A growable byte buffer with little-endian writes. */
class ByteSink {
  bytes = new Uint8Array(1 << 16);
  view = new DataView(this.bytes.buffer);
  pos = 0;

  room(n: number): void {
    if (this.pos + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.pos + n, 2 * this.bytes.length));
    grown.set(this.bytes.subarray(0, this.pos));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  u32(x: number): void {
    this.room(4);
    this.view.setUint32(this.pos, x, true);
    this.pos += 4;
  }

  /** A string's UTF-8 bytes after their length (ASCII copied a byte a character). */
  text(s: string): void {
    let ascii = true;
    for (let i = 0; i < s.length && ascii; i++) ascii = s.charCodeAt(i) < 0x80;
    const b = ascii ? null : utf8.encode(s);
    const n = b ? b.length : s.length;
    this.u32(n);
    this.room(n);
    if (b) this.bytes.set(b, this.pos);
    else for (let i = 0; i < n; i++) this.bytes[this.pos + i] = s.charCodeAt(i);
    this.pos += n;
  }
}

/** A growable column of doubles. */
class NumberSink {
  values = new Float64Array(1 << 13);
  count = 0;

  /** Appends v; false for NaN and ±Infinity, which JSON has not. */
  push(v: number): boolean {
    if (v - v !== 0) return false;
    if (this.count === this.values.length) this.grow();
    this.values[this.count++] = v;
    return true;
  }

  grow(): void {
    const grown = new Float64Array(2 * this.values.length);
    grown.set(this.values);
    this.values = grown;
  }
}

/**
 * Encodes JSON values into reused buffers: encode() returns a view valid until the next call, or null for a
 * value this form does not hold (not a JSON value, a key "__proto__", nesting deeper than MAX_DEPTH). A
 * frame's ten thousand objects share a few shapes, found through a trie of their keys (no allocation per object).
 */
export class JsonBinaryEncoder {
  private readonly values = new ByteSink();
  private readonly numbers = new NumberSink();
  private readonly out = new ByteSink();
  private readonly strings = new Map<string, number>();
  private readonly stringList: string[] = [];
  private root: ShapeNode = { shape: -1, next: new Map() };
  private readonly shapeList: number[][] = [];

  encode(value: unknown): Uint8Array | null {
    // objects are walked with for…in: an enumerable property on Object.prototype would be taken for an own one
    for (const _ in {}) return null;
    this.strings.clear();
    this.stringList.length = 0;
    this.root = { shape: -1, next: new Map() };
    this.shapeList.length = 0;
    this.values.pos = 0;
    this.numbers.count = 0;
    if (!this.value(value, 0)) return null;
    // the tables, then the values
    const out = this.out;
    out.pos = 0;
    out.u32(this.stringList.length);
    for (const s of this.stringList) out.text(s);
    out.u32(this.shapeList.length);
    for (const keys of this.shapeList) {
      out.u32(keys.length);
      for (const k of keys) out.u32(k);
    }
    const nums = this.numbers;
    out.u32(nums.count);
    out.room(8 + 8 * nums.count + this.values.pos);
    const aligned = Math.ceil(out.pos / 8) * 8;
    out.bytes.fill(0, out.pos, aligned);
    out.pos = aligned;
    out.bytes.set(new Uint8Array(nums.values.buffer, 0, 8 * nums.count), out.pos);
    out.pos += 8 * nums.count;
    out.bytes.set(this.values.bytes.subarray(0, this.values.pos), out.pos);
    out.pos += this.values.pos;
    return out.bytes.subarray(0, out.pos);
  }

  private value(v: unknown, depth: number): boolean {
    const w = this.values;
    switch (typeof v) {
      case 'number':
        w.room(1);
        w.bytes[w.pos++] = TAG_NUMBER;
        return this.numbers.push(v);
      case 'string':
        w.room(1);
        w.bytes[w.pos++] = TAG_STRING;
        w.u32(this.stringIndex(v));
        return true;
      case 'boolean':
        w.room(1);
        w.bytes[w.pos++] = v ? TAG_TRUE : TAG_FALSE;
        return true;
      case 'object':
        if (v === null) {
          w.room(1);
          w.bytes[w.pos++] = TAG_NULL;
          return true;
        }
        if (depth >= MAX_DEPTH) return false;
        return Array.isArray(v) ? this.array(v, depth) : this.object(v, depth);
      default:
        return false;
    }
  }

  private array(v: readonly unknown[], depth: number): boolean {
    const w = this.values,
      nums = this.numbers;
    // an array of finite numbers only (a vector, λ, residuals): its length, its doubles into the column
    let vals = nums.values,
      c = nums.count,
      i = 0;
    for (; i < v.length; i++) {
      const x = v[i];
      if (typeof x !== 'number' || x - x !== 0) break;
      if (c === vals.length) {
        nums.count = c;
        nums.grow();
        vals = nums.values;
      }
      vals[c++] = x;
    }
    w.room(5);
    if (i === v.length && i > 0) {
      nums.count = c;
      w.bytes[w.pos++] = TAG_NUMBERS;
      w.u32(v.length);
      return true;
    }
    // otherwise each item with its tag (a non-finite number is refused there)
    w.bytes[w.pos++] = TAG_ARRAY;
    w.u32(v.length);
    for (let j = 0; j < v.length; j++) if (!this.value(v[j], depth + 1)) return false;
    return true;
  }

  private object(v: object, depth: number): boolean {
    if (Object.getPrototypeOf(v) !== Object.prototype) return false;
    const o = v as Record<string, unknown>;
    const w = this.values;
    w.room(5);
    w.bytes[w.pos++] = TAG_OBJECT;
    const shapeAt = w.pos;
    w.pos += 4; // the shape's index, known after the keys
    let node = this.root;
    for (const k in o) {
      let next = node.next.get(k);
      if (next === undefined) {
        // an own "__proto__" (JSON.parse makes one) would set the prototype when assigned back
        if (k === '__proto__') return false;
        next = { shape: -1, next: new Map() };
        node.next.set(k, next);
      }
      node = next;
      if (!this.value(o[k], depth + 1)) return false;
    }
    if (node.shape < 0) {
      node.shape = this.shapeList.length;
      this.shapeList.push(Object.keys(o).map((k) => this.stringIndex(k)));
    }
    w.view.setUint32(shapeAt, node.shape, true);
    return true;
  }

  private stringIndex(s: string): number {
    let i = this.strings.get(s);
    if (i === undefined) {
      i = this.stringList.length;
      this.strings.set(s, i);
      this.stringList.push(s);
    }
    return i;
  }
}

/** Thrown for bytes that are not a value of this form (a damaged record: the caller reads the JSON instead). */
export class JsonBinaryError extends Error {}

/** The decoder's state for one value (module state: decoding is synchronous and not re-entrant). */
let bytes: Uint8Array = new Uint8Array(0);
let view: DataView = new DataView(bytes.buffer);
let at = 0;
let strings: string[] = [];
let numbers: Float64Array = new Float64Array(0);
let nextNumber = 0;
let shapes: ((depth: number) => Record<string, unknown>)[] = [];

const fail = (why: string): never => {
  throw new JsonBinaryError(`not a binary JSON value: ${why}`);
};

function readU32(): number {
  if (at + 4 > bytes.length) fail('truncated');
  const x = view.getUint32(at, true);
  at += 4;
  return x;
}

/** The JSON value of `data` (JsonBinaryEncoder's output); throws JsonBinaryError on bytes that are not one. */
export function decodeJsonBinary(data: Uint8Array): unknown {
  bytes = data;
  view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  at = 0;
  try {
    const ns = readU32();
    if (ns > data.length) fail('string count');
    strings = new Array<string>(ns);
    for (let i = 0; i < ns; i++) {
      const n = readU32();
      if (at + n > data.length) fail('truncated string');
      strings[i] = utf8Decoder.decode(data.subarray(at, at + n));
      at += n;
    }
    const nShapes = readU32();
    if (nShapes > data.length) fail('shape count');
    shapes = new Array<(depth: number) => Record<string, unknown>>(nShapes);
    for (let i = 0; i < nShapes; i++) {
      const nk = readU32();
      if (nk > data.length) fail('key count');
      const keys = new Array<string>(nk);
      for (let j = 0; j < nk; j++) {
        const k = readU32();
        if (k >= ns || strings[k] === '__proto__') fail('key index');
        keys[j] = strings[k];
      }
      shapes[i] = objectReader(keys);
    }
    readNumbers();
    const v = readValue(0);
    if (at !== data.length || nextNumber !== numbers.length) fail('bytes after the value');
    return v;
  } catch (e) {
    if (e instanceof JsonBinaryError) throw e;
    throw new JsonBinaryError(`not a binary JSON value: ${(e as Error).message}`);
  } finally {
    bytes = new Uint8Array(0);
    view = new DataView(bytes.buffer);
    strings = [];
    shapes = [];
    numbers = new Float64Array(0);
  }
}

/** The numbers' column: a view of the bytes when they are 8-byte aligned in memory, else a copy. */
function readNumbers(): void {
  const n = readU32();
  at = Math.ceil(at / 8) * 8;
  if (n > (bytes.length - at) / 8) fail('number count');
  const where = bytes.byteOffset + at;
  if (where % 8 === 0) numbers = new Float64Array(bytes.buffer, where, n);
  else {
    numbers = new Float64Array(n);
    new Uint8Array(numbers.buffer).set(bytes.subarray(at, at + 8 * n));
  }
  nextNumber = 0;
  at += 8 * n;
}

/**
 * A function that reads an object of these keys: an object literal of constant keys (one compiled function per
 * distinct key list, kept), which V8 builds several times faster than assignments of computed keys.
 */
const objectReaders = new Map<string, (depth: number) => Record<string, unknown>>();
const MAX_OBJECT_READERS = 4096;
function objectReader(keys: readonly string[]): (depth: number) => Record<string, unknown> {
  const id = JSON.stringify(keys);
  let r = objectReaders.get(id);
  if (r === undefined) {
    const body = `return (d) => ({${keys.map((k) => `${JSON.stringify(k)}: read(d)`).join(', ')}});`;
    r = new Function('read', body)(readValue) as (depth: number) => Record<string, unknown>;
    if (objectReaders.size >= MAX_OBJECT_READERS) objectReaders.clear();
    objectReaders.set(id, r);
  }
  return r;
}

function readNumber(): number {
  if (nextNumber >= numbers.length) fail('more numbers than the column holds');
  return numbers[nextNumber++];
}

function readValue(depth: number): unknown {
  if (at >= bytes.length) fail('truncated');
  switch (bytes[at++]) {
    case TAG_NUMBER:
      return readNumber();
    case TAG_ARRAY: {
      if (depth >= MAX_DEPTH) fail('nesting');
      const n = readU32();
      if (n > bytes.length - at) fail('array length');
      // filled by push: a packed array, as JSON.parse makes (a preallocated one stays holey, slower to read)
      const a: unknown[] = [];
      for (let i = 0; i < n; i++) a.push(readValue(depth + 1));
      return a;
    }
    case TAG_NUMBERS: {
      const n = readU32();
      if (n > numbers.length - nextNumber) fail('array length');
      // vectors and quaternions as literals: packed arrays, as JSON.parse makes (a preallocated one stays holey)
      if (n === 3) return [readNumber(), readNumber(), readNumber()];
      if (n === 4) return [readNumber(), readNumber(), readNumber(), readNumber()];
      const a: number[] = [];
      for (let i = 0; i < n; i++) a.push(readNumber());
      return a;
    }
    case TAG_OBJECT: {
      if (depth >= MAX_DEPTH) fail('nesting');
      const s = readU32();
      if (s >= shapes.length) fail('shape index');
      return shapes[s](depth + 1);
    }
    case TAG_STRING: {
      const i = readU32();
      if (i >= strings.length) fail('string index');
      return strings[i];
    }
    case TAG_NULL:
      return null;
    case TAG_FALSE:
      return false;
    case TAG_TRUE:
      return true;
    default:
      return fail(`tag ${bytes[at - 1]} at byte ${at - 1}`);
  }
}
