/** numberText: significant digits and plurals, the one rule for numbers in the CLI's text. */
import assert from 'node:assert/strict';
import { formatCount, formatNumber, formatQuantity, formatSigned } from '../../src/engine/numberText.js';

describe('numberText', () => {
  it('formatNumber: significant digits, trailing zeros dropped, exponents outside [1e-3, 1e5)', () => {
    const cases: [number, number | undefined, string][] = [
      [0, undefined, '0'],
      [0.2104, undefined, '0.21'],
      [0.2104, 2, '0.21'],
      [3.850240839, 4, '3.85'],
      [-1.147464255, 4, '-1.147'],
      [38.823, undefined, '38.8'],
      [200, undefined, '200'],
      [12345, undefined, '12300'],
      [99999.7, undefined, '1e+5'],
      [1.043e11, undefined, '1.04e+11'],
      [3.36e-11, undefined, '3.36e-11'],
      [1e-6, undefined, '1e-6'],
      [0.0047312, undefined, '0.00473'],
      [0.00099999, undefined, '1e-3'],
      [-2.1e-7, undefined, '-2.1e-7'],
      [Number.POSITIVE_INFINITY, undefined, '∞'],
      [Number.NEGATIVE_INFINITY, undefined, '-∞'],
      [Number.NaN, undefined, 'NaN'],
    ];
    for (const [x, digits, text] of cases) assert.equal(formatNumber(x, digits), text, `${x} (${digits ?? 3} digits)`);
  });

  it('formatSigned, formatQuantity', () => {
    assert.equal(formatSigned(0.0550123), '+0.055');
    assert.equal(formatSigned(-4.5), '-4.5');
    assert.equal(formatSigned(0), '0');
    assert.equal(formatQuantity(38.823, 'ms'), '38.8 ms');
  });

  it('formatCount: singular for exactly one', () => {
    assert.equal(formatCount(1, 'iteration'), '1 iteration');
    assert.equal(formatCount(0, 'iteration'), '0 iterations');
    assert.equal(formatCount(200, 'sweep'), '200 sweeps');
    assert.equal(formatCount(1, 'body', 'bodies'), '1 body');
    assert.equal(formatCount(3, 'body', 'bodies'), '3 bodies');
  });
});
