/**
 * The binary form of parsed JSON (src/format/jsonBinary.ts) that the frame store keeps: decoding gives the value
 * JSON.parse gave — the same keys in the same order, the same numbers to the bit (−0, subnormals, integers past
 * 2³¹), the same strings — for every line of the bundled recordings and for generated values; values it cannot hold
 * are refused (null), and damaged bytes throw JsonBinaryError, never another error or a silent value of another shape.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodeJsonBinary, JsonBinaryEncoder, JsonBinaryError } from '../../src/format/jsonBinary.js';
import { rng } from '../rng.js';
import { recordBoxStack } from '../exampleRecording.js';

const ROOT = path.resolve(__dirname, '..', '..');

/** Same value, same key order, numbers compared with Object.is (−0 ≠ 0). */
function assertSameJson(actual: unknown, expected: unknown, where = '$'): void {
  if (typeof expected === 'number') return assert.ok(Object.is(actual, expected), `${where}: ${String(actual)} is not ${String(expected)}`);
  if (expected === null || typeof expected !== 'object') return assert.equal(actual, expected, where);
  assert.equal(Array.isArray(actual), Array.isArray(expected), `${where}: array or object`);
  if (Array.isArray(expected)) {
    const a = actual as unknown[];
    assert.equal(a.length, expected.length, `${where}: length`);
    expected.forEach((x, i) => assertSameJson(a[i], x, `${where}[${i}]`));
    return;
  }
  const a = actual as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(a), Object.prototype, `${where}: a plain object`);
  assert.deepEqual(Object.keys(a), Object.keys(expected), `${where}: keys in order`);
  for (const [k, x] of Object.entries(expected)) assertSameJson(a[k], x, `${where}.${k}`);
}

const roundTrip = (enc: JsonBinaryEncoder, v: unknown): unknown => {
  const b = enc.encode(v);
  assert.ok(b !== null, 'encoded');
  return decodeJsonBinary(b.slice());
};

describe('binary JSON of the frame store', () => {
  const enc = new JsonBinaryEncoder();

  it("gives back every line of the bundled recordings and of our engine's as JSON.parse gives it", () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-jsonbin-'));
    try {
      const files = fs
        .readdirSync(path.join(ROOT, 'examples'))
        .filter((n) => n.endsWith('.rec.jsonl'))
        .map((n) => path.join(ROOT, 'examples', n));
      files.push(recordBoxStack(tmp, 'newton', 40));
      let lines = 0;
      for (const file of files)
        for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
          if (!line.trim()) continue;
          const v = JSON.parse(line) as unknown;
          assertSameJson(roundTrip(enc, v), v, `${path.basename(file)}:${++lines}`);
        }
      assert.ok(lines > 50, `${lines} lines`);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('keeps numbers to the bit, key order (integer-like keys included), strings and nesting', () => {
    const text =
      '{"z":-0,"a":[0,-1,127,128,-129,2147483647,-2147483648,2147483648,4294967297,9007199254740993,1e300,5e-324,-2.2250738585072014e-308,0.1,1.7976931348623157e308],' +
      '"2":"two","1":{"é\\u0000\\"":"ünï\\ncode ✓ 😀","":""},"n":null,"t":true,"f":false,"e":[],"o":{},"deep":[[[[[{"x":[1.5,"s",null]}]]]]],"x":[0.5,-0]}';
    const v = JSON.parse(text) as unknown;
    const back = roundTrip(enc, v);
    assertSameJson(back, v);
    assert.equal(JSON.stringify(back), JSON.stringify(v));
  });

  it('round-trips generated values', () => {
    const rnd = rng(29);
    const num = (): number => {
      const k = Math.floor(rnd() * 6);
      if (k === 0) return Math.floor(rnd() * 400) - 200;
      if (k === 1) return (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20);
      if (k === 2) return -0;
      if (k === 3) return Math.floor((rnd() - 0.5) * 2 ** 40);
      return rnd() * 100;
    };
    const gen = (depth: number): unknown => {
      const k = Math.floor(rnd() * (depth > 4 ? 4 : 7));
      if (k === 0) return num();
      if (k === 1) return ['a', 'b', 'feature|plane', `s${Math.floor(rnd() * 50)}`][Math.floor(rnd() * 4)];
      if (k === 2) return [null, true, false][Math.floor(rnd() * 3)];
      if (k === 3) return Array.from({ length: Math.floor(rnd() * 5) }, num);
      if (k === 4) return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(rnd() * 5); i > 0; i--) o[['x', 'q', 'v', 'w', '10', 'k' + Math.floor(rnd() * 9)][Math.floor(rnd() * 6)]] = gen(depth + 1);
      return o;
    };
    for (let t = 0; t < 300; t++) {
      const v = JSON.parse(JSON.stringify(gen(0))) as unknown;
      assertSameJson(roundTrip(enc, v), v, `value ${t}`);
    }
  });

  it('refuses what JSON.parse cannot give or an object literal cannot hold back', () => {
    assert.equal(enc.encode(JSON.parse('{"__proto__":{"polluted":1}}')), null);
    assert.equal(enc.encode({ x: Number.NaN }), null);
    assert.equal(enc.encode([Number.POSITIVE_INFINITY]), null);
    assert.equal(enc.encode({ f: () => 0 }), null);
    assert.equal(enc.encode({ d: new Date(0) }), null);
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    assert.equal(enc.encode(deep), null);
    assert.ok(enc.encode({ fine: [1] }) !== null, 'and encodes the next value normally');
  });

  it('damaged bytes throw JsonBinaryError: cut at every length, or a byte changed', () => {
    const v = JSON.parse('{"frame":3,"bodies":[{"x":[1.5,0,-2],"q":[1,0,0,0]}],"contacts":[{"a":0,"b":1,"feature":"v|p"}]}') as unknown;
    const good = enc.encode(v)!.slice();
    for (let n = 0; n < good.length; n++) assert.throws(() => decodeJsonBinary(good.subarray(0, n)), JsonBinaryError, `cut at ${n}`);
    assert.throws(() => decodeJsonBinary(Buffer.concat([good, Buffer.from([0])])), JsonBinaryError, 'a byte after the value');
    const rnd = rng(7);
    for (let t = 0; t < 500; t++) {
      const bad = good.slice();
      bad[Math.floor(rnd() * bad.length)] ^= 1 + Math.floor(rnd() * 255);
      try {
        decodeJsonBinary(bad); // a changed number or string may still decode: the store's CRC-32 catches those
      } catch (e) {
        assert.ok(e instanceof JsonBinaryError, `only JsonBinaryError: ${(e as Error).message}`);
      }
    }
  });
});
