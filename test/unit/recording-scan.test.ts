/**
 * The index scanner (src/format/recordingScan.ts): on valid lines it reads the same summary fields as
 * JSON.parse; it declines (returns false) lines with broken brackets or strings and anything wrong in the
 * fields it reads, so the validating parser names the error. Checked on generated lines and on thousands of
 * random one-byte edits of them.
 */
import assert from 'node:assert/strict';
import { emptyScan, FrameLineScanner, MAX_SCAN_DEPTH, type ScannedFrame } from '../../src/format/recordingScan.js';
import { SOLVER_STATUSES } from '../../src/format/recording.js';
import { rng } from '../rng.js';

/** The summary fields from a parsed line, as the index keeps them (recordingFile.ts Columns.push). */
function expected(o: any): ScannedFrame {
  const lam: number[] = o.solver.lambda;
  let ml = 0,
    md = 0;
  for (let k = 0; k < o.contacts.length; k++) {
    ml = Math.max(ml, lam[3 * k]);
    md = Math.max(md, o.contacts[k].depth);
  }
  const res: number[] | undefined = o.solver.residuals;
  return {
    frame: o.frame,
    time: o.time,
    contacts: o.contacts.length,
    status: SOLVER_STATUSES.indexOf(o.solver.status),
    iterations: o.solver.iterations ?? -1,
    finalResidual: res?.length ? res[res.length - 1] : NaN,
    maxLambdaN: ml,
    maxDepth: md,
    hasPre: o.pre !== undefined,
    hasMatrix: o.A !== undefined || o.b !== undefined,
  };
}

function line(r: () => number, k: number, pretty: boolean): string {
  const C = k % 4;
  const num = (s: number): number => Number(((r() - 0.5) * s).toPrecision(1 + Math.floor(r() * 17)));
  const o: Record<string, unknown> = {
    frame: k,
    time: (k + 1) / 60,
    bodies: [{ x: [num(10), num(1e-3), 0], q: [1, 0, 0, 0], v: [num(1), -0, 1e-7], w: [0, 0, num(1e5)] }],
    ...(k % 2 ? { pre: [{ v: [0, 0, num(1)], w: [0, 0, 0] }] } : {}),
    contacts: Array.from({ length: C }, (_, i) => ({
      a: 0,
      b: -1,
      point: [num(1), num(1), num(1)],
      normal: [0, 0, 1],
      t1: [1, 0, 0],
      t2: [0, 1, 0],
      depth: Math.abs(num(1e-2)),
      mu: 0.5,
      e: 0,
      ...(i % 2 ? { feature: `v${i}|"plane"\\ \u00e9` } : {}),
    })),
    solver: {
      name: 'pgs',
      status: SOLVER_STATUSES[k % 4],
      ...(k % 3 ? { iterations: k } : {}),
      ...(k % 5 ? { residuals: [num(1), num(1e-6)] } : {}),
      lambda: Array.from({ length: 3 * C }, () => num(2)),
    },
    ...(k % 4 === 1 ? { A: [1, 0, 0, 1], b: [0.5] } : {}),
    energy: { kinetic: num(1), total: num(1) },
    'x-vendor': { nested: [[1, [2, { z: null }]], true, false] },
  };
  return pretty ? JSON.stringify(o, null, 1).replace(/\n/g, ' ') : JSON.stringify(o);
}

function scan(s: FrameLineScanner, text: string, previous?: { frame: number; time: number }): ScannedFrame | false | 'blank' {
  const b = Buffer.from(text, 'utf8');
  const out = emptyScan();
  const r = s.scan(b, 0, b.length, out, previous);
  return r === true ? out : r;
}

describe('recording index scanner', () => {
  const s = new FrameLineScanner();

  it('reads the summary fields JSON.parse gives on valid lines (compact and spaced)', () => {
    const r = rng(3);
    let read = 0;
    for (let k = 0; k < 200; k++) {
      const text = line(r, k, k % 2 === 1);
      const got = scan(s, text);
      if (/[^\x00-\x7f]/.test(text)) {
        assert.equal(got, false, 'non-ASCII lines go to the parser (it checks the UTF-8)');
        continue;
      }
      assert.notEqual(got, false, text);
      assert.deepStrictEqual(got, expected(JSON.parse(text)));
      read++;
    }
    assert.ok(read > 50, `${read} lines read`);
  });

  it('declines every random one-byte edit that breaks the brackets, and reads exactly the lines JSON.parse accepts', () => {
    const r = rng(11);
    const alphabet = '{}[],:"\\-+.eE019 aNnIftu';
    let declined = 0,
      accepted = 0;
    for (let k = 0; k < 4000; k++) {
      const base = line(r, 2 + (k % 6) * 4, false).replace(/[^\x00-\x7f]/g, 'e');
      const at = Math.floor(r() * base.length);
      const op = r();
      const ch = alphabet[Math.floor(r() * alphabet.length)];
      const text =
        op < 0.4 ? base.slice(0, at) + base.slice(at + 1) : op < 0.7 ? base.slice(0, at) + ch + base.slice(at) : base.slice(0, at) + ch + base.slice(at + 1);
      let parsed: any;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const got = scan(s, text);
      const S = '{}[]'; // (a removed quote can re-pair with an escaped one in a skipped region: found on read)
      const structural = op < 0.4 ? S.includes(base[at]) : op < 0.7 ? S.includes(ch) : S.includes(base[at]) || S.includes(ch);
      if (parsed === undefined) {
        // brackets and strings are checked everywhere; the tokens of what the index does not read (bodies,
        // contact points …) when the frame is read
        if (structural) assert.equal(got, false, `accepted broken structure: ${text}`);
        if (got === false) declined++;
      } else if (got !== false) {
        assert.notEqual(got, 'blank');
        assert.deepStrictEqual(got, expected(parsed), text);
        accepted++;
      }
    }
    assert.ok(declined > 500 && accepted > 500, `declined ${declined}, accepted ${accepted}`);
  });

  it('declines lines whose summary fields are missing, mistyped, duplicated or out of order', () => {
    const ok = '{"frame":2,"time":0.5,"contacts":[{"depth":0.1}],"solver":{"status":"converged","lambda":[1,2,3]}}';
    assert.notEqual(scan(s, ok), false);
    const bad = [
      ok.replace('"frame":2', '"frame":2.5'),
      ok.replace('"frame":2', '"frame":-1'),
      ok.replace('"frame":2,', ''),
      ok.replace('"time":0.5', '"time":"0.5"'),
      ok.replace('"time":0.5', '"time":1e999'),
      ok.replace('"depth":0.1', '"depth":-0.1'),
      ok.replace('{"depth":0.1}', '{"mu":0.1}'),
      ok.replace('{"depth":0.1}', '5'),
      ok.replace('"converged"', '"done"'),
      ok.replace('"converged"', '"conv\\u0065rged"'),
      ok.replace('[1,2,3]', '[1,2]'),
      ok.replace('[1,2,3]', 'null'),
      ok.replace('"solver":', '"pre":null,"solver":'),
      ok.replace('"solver":', '"A":{},"solver":'),
      ok.replace('"solver":', '"frame":3,"solver":'),
      ok.replace('"lambda"', '"iterations":-1,"lambda"'),
      ok.replace('"lambda"', '"residuals":[null],"lambda"'),
      ok + ' x',
      `{"constructor":1,${ok.slice(1)}`.replace('"frame":2,', ''),
      ok.replace('"solver":', `"deep":${'['.repeat(MAX_SCAN_DEPTH + 1)}${']'.repeat(MAX_SCAN_DEPTH + 1)},"solver":`),
    ];
    for (const b of bad) assert.equal(scan(s, b), false, b);
    assert.equal(scan(s, ok, { frame: 2, time: 0.1 }), false, 'frame numbers must increase');
    assert.equal(scan(s, ok, { frame: 1, time: 0.5 }), false, 'times must increase');
    assert.equal(scan(s, '  \r'), 'blank');
  });

  it('a 130 000-character key, status or number token is read or declined, never a stack overflow (was: RangeError from String.fromCharCode.apply)', () => {
    const ok = '{"frame":2,"time":0.2,"contacts":[{"depth":0.1}],"solver":{"status":"converged","lambda":[1,2,3]}}';
    const L = 130_000;
    const lines = [
      ok.replace('{"frame"', `{"${'k'.repeat(L)}":1,"frame"`),
      ok.replace('"converged"', `"${'c'.repeat(L)}"`),
      ok.replace('"time":0.2', `"time":0.${'2'.repeat(L)}`),
      ok.replace('"status"', `"${'s'.repeat(L)}":0,"status"`),
    ];
    for (const line of lines) assert.doesNotThrow(() => scan(s, line));
    assert.equal(scan(s, lines[1]), false, 'an unknown status goes to the validating parser, which names it');
    assert.equal((scan(s, lines[0]) as ScannedFrame).frame, 2);
    assert.ok(Math.abs((scan(s, lines[2]) as ScannedFrame).time - 0.2222222222222222) < 1e-15);
  });
});
