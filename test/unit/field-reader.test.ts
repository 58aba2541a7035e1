/**
 * The one field reader of every format (src/format/fieldReader.ts): typed fields with their JSON path,
 * ranges, "did you mean", line/column of positioned input, and the one error type (FormatError).
 */
import assert from 'node:assert/strict';
import { didYouMean, fieldPath, itemPath, NodeReader, unknownKeys, ValueReader } from '../../src/format/fieldReader.js';
import { FormatError } from '../../src/format/messages.js';
import type { JsonObject } from '../../src/format/jsonPositions.js';
import { parseOracleInstance } from '../../src/format/oracle.js';
import { parseFrame, parseHeader, serializeHeader, type RecordingHeader } from '../../src/format/recording.js';
import { parseSceneFile, SceneFormatError } from '../../src/format/scene.js';

/** The FormatError `f` throws (fails the test when it throws nothing or something else). */
function formatError(f: () => unknown): FormatError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof FormatError, `expected a FormatError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a FormatError, nothing was thrown');
}

describe('field reader: paths', () => {
  it('builds JSON paths such as bodies[3].inverseInertia[2]', () => {
    assert.equal(itemPath(fieldPath(itemPath('bodies', 3), 'inverseInertia'), 2), 'bodies[3].inverseInertia[2]');
    assert.equal(fieldPath('', 'dt'), 'dt', 'a key at the root has no leading dot');
  });

  it('a plain value names the element that is wrong, with the reader prefix', () => {
    const r = new ValueReader('rec.jsonl', 'line 17: ');
    const e = formatError(() => r.vec3([0, 'x', 0], 'contacts[2].point'));
    assert.equal(e.field, 'line 17: contacts[2].point[1]');
    assert.equal(e.message, 'rec.jsonl: line 17: contacts[2].point[1]: expected a finite number, got "x"');
    assert.equal(e.range, undefined, 'plain JSON has no positions');
  });

  it('an empty path is reported as (root)', () => {
    assert.equal(formatError(() => new ValueReader('p.json').obj([], '')).field, '(root)');
  });
});

describe('field reader: types and ranges', () => {
  const r = new ValueReader('f.json');
  it('accepts the expected type and returns the value', () => {
    assert.equal(r.num(2.5, 'x'), 2.5);
    assert.equal(r.int(3, 'n', 0), 3);
    assert.equal(r.str('s', 's'), 's');
    assert.equal(r.bool(false, 'b'), false);
    assert.equal(r.oneOf('stalled', 'status', ['converged', 'stalled']), 'stalled');
    const a = [1, 2, 3];
    assert.equal(r.nums(a, 'a', 3), a, 'arrays are checked in place, not copied');
  });

  it('says what it expected and what it got', () => {
    assert.match(formatError(() => r.num('1', 'x')).message, /x: expected a finite number, got "1"$/);
    assert.match(formatError(() => r.num(null, 'x')).message, /got null \(writers such as serde_json/);
    assert.match(formatError(() => r.int(1.5, 'n', 0)).message, /n: expected an integer, got 1\.5$/);
    assert.match(formatError(() => r.int(-1, 'n', 0)).message, /n: is -1, expected an integer ≥ 0$/);
    assert.match(formatError(() => r.arr([1, 2], 'v', 3, 'numbers [x, y, z]')).message, /v: expected 3 numbers \[x, y, z\], got 2$/);
    assert.match(formatError(() => r.oneOf('done', 'status', ['converged', 'stalled'])).message, /expected one of "converged", "stalled", got "done"$/);
  });

  it('checks unit vectors and quaternions against the given tolerances (error beyond, warning between)', () => {
    const tol = { unit: 1e-6, quaternionError: 1e-3 };
    assert.match(formatError(() => r.unit([0, 0, 1.01], 'n', tol)).message, /n: is not a unit vector: length 1\.01/);
    assert.match(formatError(() => r.unit([0, 0, 0], 'n', tol)).message, /is the zero vector/);
    const warnings: string[] = [];
    r.quat([1.0001, 0, 0, 0], 'q', tol, (f, d) => warnings.push(`${f}: ${d}`));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^q: quaternion length 1\.0001 deviates from 1/);
    assert.match(formatError(() => r.quat([1.1, 0, 0, 0], 'q', tol, undefined)).message, /q: is not a unit quaternion: length 1\.1/);
  });
});

describe('field reader: suggestions', () => {
  it('suggests the nearest known key, and nothing for a word far from all', () => {
    assert.equal(didYouMean('frictoin', ['friction', 'restitution']), '; did you mean "friction"?');
    assert.equal(didYouMean('zzzzzz', ['friction', 'restitution']), '');
  });

  it('lists unknown keys in order; vendor extensions "x-…" only when asked', () => {
    assert.deepEqual(unknownKeys(['a', 'x-mine', 'c', 'b'], ['a', 'b']), ['x-mine', 'c']);
    assert.deepEqual(unknownKeys(['a', 'x-mine', 'c', 'b'], ['a', 'b'], true), ['c']);
  });

  it('stays linear in the input: a 10⁶-character unknown key is answered in well under a second', () => {
    const key = 'k'.repeat(1_000_000);
    const t0 = performance.now();
    assert.equal(didYouMean(key, ['k'.repeat(999_999), 'name']), '');
    assert.ok(performance.now() - t0 < 500, `${(performance.now() - t0).toFixed(0)} ms`);
  });
});

describe('field reader: positions (line and column)', () => {
  const text = '{\n  "dt": "fast",\n  "nmae": 1\n}';

  it('a wrong type fails at the value, with line and column in the message and the range kept', () => {
    const r = new NodeReader('s.json', text);
    const root = r.object(r.parseRoot(), '(root)', 'an object') as JsonObject;
    const m = r.members(root, '', ['dt', 'nmae']);
    const e = formatError(() => r.number(m.get('dt')!.value, 'dt', { unit: 's' }));
    assert.deepEqual(e.range, { line: 2, column: 9, endLine: 2, endColumn: 15 });
    assert.equal(e.message, 's.json: dt: line 2, column 9: expected a number (s), got a string ("fast")');
    assert.equal(e.detail, 'expected a number (s), got a string ("fast")');
  });

  it('an unknown key fails at the key, with a suggestion and the allowed keys', () => {
    const r = new NodeReader('s.json', text);
    const root = r.parseRoot() as JsonObject;
    const e = formatError(() => r.members(root, '', ['dt', 'name']));
    assert.equal(e.field, 'nmae');
    assert.deepEqual([e.range?.line, e.range?.column], [3, 3]);
    assert.match(e.detail, /^unknown field "nmae"; did you mean "name"\? \(allowed here: "dt", "name"\)$/);
  });

  it('a syntax error fails at its offset with the path (json)', () => {
    const e = formatError(() => new NodeReader('s.json', '{\n  "a": 1,,\n}').parseRoot());
    assert.equal(e.field, '(json)');
    assert.deepEqual([e.range?.line, e.range?.column], [2, 10]);
  });

  it('range checks name the bound and the unit', () => {
    const r = new NodeReader('s.json', '[-1, 0.5, 2]');
    const a = r.parseRoot();
    assert.match(formatError(() => r.numbers(a, 'h', 3, 'half extents', { exclusiveMin: 0, unit: 'm' })).detail, /^must be > 0 m, got -1$/);
    assert.match(formatError(() => r.numbers(a, 'v', 2, 'a pair')).detail, /^expected a pair with exactly 2 numbers, got 3$/);
  });
});

describe('field reader: one error type for the scene, recording and problem parsers', () => {
  it('each parser throws a FormatError naming file and field; the scene error also has line and column', () => {
    const scene = formatError(() => parseSceneFile('{"scenarios": [{"name": "s", "frames": 0, "bodies": []}]}', 'a.scene.json'));
    assert.ok(scene instanceof SceneFormatError);
    assert.equal(scene.field, 'scenarios[0].frames');
    assert.deepEqual([scene.range?.line, scene.range?.column], [1, 40]);

    const header: RecordingHeader = {
      format: 'contact-lens-recording',
      version: 1,
      producer: { name: 'test' },
      units: 'SI',
      conventions: { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' },
      dt: 0.01,
      gravity: [0, 0, -9.81],
      bodies: [{ name: 'ball', shape: { sphere: { radius: 0.5 } }, mass: 1, inertia: [0.1, 0.1, 0.1], static: false }],
    };
    const h = parseHeader(serializeHeader(header), 'r.jsonl').header;
    const frame =
      '{"frame":1,"time":0.01,"bodies":[{"x":[0,0,1],"q":[1,0,0,0],"v":[0,0,0],"w":[0,0,"spin"]}],"contacts":[],"solver":{"name":"pgs","status":"converged","lambda":[]}}';
    const rec = formatError(() => parseFrame(frame, 2, 'r.jsonl', h));
    assert.equal(rec.message, 'r.jsonl: line 2: bodies[0].w[2]: expected a finite number, got "spin"');

    const problem = formatError(() => parseOracleInstance('{"mu": [0.5], "b": [0, 0, null], "A": [1,0,0, 0,1,0, 0,0,1]}', 'p.json'));
    assert.equal(problem.field, 'b[2]');
    assert.match(
      problem.detail,
      /^expected a finite number, got null \(writers such as serde_json/,
      'the problem reader words a null as the recording reader does',
    );
  });
});
