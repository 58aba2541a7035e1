import { strict as assert } from 'node:assert';
import { decimalAt, decimalCursor } from '../../bench/decimalBytes.js';
import { jsonFromBytes, NOT_DECODED } from '../../bench/jsonFromBytes.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

/** decimalAt of the whole token, and where it stopped. */
function decode(s: string): { value: number; end: number } {
  const b = bytes(s);
  return { value: decimalAt(b, 0, b.length), end: decimalCursor.end };
}

describe('decimal bytes and JSON from bytes (the number-decoding reference of bench/numberScan.ts)', () => {
  it('gives the double JSON.parse gives, bit for bit, for the numbers writers produce and at the edges of its fast paths', () => {
    const tokens = [
      '0',
      '-0',
      '-0.0',
      '0.1',
      '0.30000000000000004',
      '1e-7',
      '1E2',
      '1e+2',
      '-1.5e-300',
      '9007199254740993',
      '9007199254740993.0',
      '9007199254740995',
      '123456789012345678901234',
      '2.2250738585072014e-308',
      '4.9e-324',
      '1.7976931348623157e308',
      '1e400',
      '0.000001234567890123456789',
      '12345678901234567.5',
      '5.000000000000000277555756156289135105907917022705078125e-17',
    ];
    // shortest round-trip texts (what JavaScript and Rust writers print), %.17g (C, Python repr before 3.1) and %.16g
    let s = 7;
    const rand = (): number => {
      s = (s * 1103515245 + 12345) >>> 0;
      return s / 2 ** 32;
    };
    const f64 = new Float64Array(1),
      u32 = new Uint32Array(f64.buffer);
    for (let k = 0; k < 20000; k++) {
      const x = (rand() - 0.5) * 10 ** Math.floor(rand() * 30 - 15);
      tokens.push(String(x), x.toPrecision(17).replace('e+', 'e'), x.toPrecision(16).replace('e+', 'e'), x.toFixed(Math.floor(rand() * 21)));
      u32[0] = (rand() * 2 ** 32) >>> 0;
      u32[1] = (rand() * 2 ** 32) >>> 0;
      if (Number.isFinite(f64[0])) tokens.push(String(f64[0]).replace('e+', 'e'));
    }
    for (const t of tokens) {
      const { value, end } = decode(t);
      assert.ok(Object.is(value, JSON.parse(t)), `${t}: ${value}, JSON.parse ${JSON.parse(t)}`);
      assert.equal(end, t.length, t);
    }
  });

  it('returns NaN for what is not a JSON number', () => {
    for (const t of ['-', '01', '1.', '1e', '1e+', '-.5', 'NaN']) assert.ok(Number.isNaN(decode(t).value), t);
  });

  it('decodes a frame line to the value JSON.parse gives; anything off its path is left to JSON.parse', () => {
    const line = JSON.stringify({
      frame: 3,
      time: 0.05000000000000001,
      bodies: [{ x: [0, -0, 1.25], q: [1, 0, 0, 0] }],
      contacts: [{ a: 0, b: -1, point: [0.4219788263602362, -1.5943014525690278, 0.002505197015630999], feature: 'vertex3|plane', e: 0 }],
      solver: { name: 'pgs', status: 'converged', lambda: [1e-7, 2.5e-12, 12345678901234567000], ok: true, none: null },
      empty: { list: [], obj: {} },
    }).replace('"x":[0,0,', '"x":[0,-0,');
    const got = jsonFromBytes(bytes(` ${line}\r\n`));
    assert.deepEqual(got, JSON.parse(line));
    assert.ok(Object.is((got as { bodies: { x: number[] }[] }).bodies[0].x[1], -0));
    for (const bad of [
      '{"a":NaN}',
      '{"a":1,}',
      '{"a":"\\u00e9"}',
      '{"a":"é"}',
      '{"__proto__":{"x":1}}',
      '[1 2]',
      '{"a":1} x',
      '{"a":tru}',
      '['.repeat(70) + ']'.repeat(70),
    ])
      assert.equal(jsonFromBytes(bytes(bad)), NOT_DECODED, bad);
  });
});
