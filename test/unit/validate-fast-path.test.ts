/**
 * The frame validator has an allocation-free success path (recordingValidate.ts fastState/fastPre/
 * fastContact) beside the field-naming readers. Both must decide alike: for every mutation of a valid frame's
 * contact, body state and pre-solve state, validating with the fast path and with the naming readers only
 * (`namingOnly`) gives the same frame, the same warnings, or the same error line.
 */
import assert from 'node:assert/strict';
import { validateFrame } from '../../src/format/recordingValidate.js';
import type { RecordingHeader } from '../../src/format/recordingTypes.js';

const header: RecordingHeader = {
  format: 'contact-lens-recording',
  version: 1,
  producer: { name: 'test-engine', version: '1.0' },
  units: 'SI',
  conventions: { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' },
  dt: 1 / 60,
  gravity: [0, 0, -9.81],
  bodies: [
    { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, mass: null, inertia: null, static: true },
    { name: 'pad', shape: { box: { halfExtents: [1, 1, 0.1] } }, mass: null, inertia: null, static: true },
    { name: 'box', shape: { box: { halfExtents: [0.5, 0.5, 0.5] } }, mass: 1, inertia: [1 / 6, 1 / 6, 1 / 6], static: false },
  ],
  solver: { name: 'pgs' },
};

type Json = Record<string, unknown>;

const contact = (): Json => ({ a: 2, b: -1, point: [0, 0, 0], normal: [0, 0, 1], t1: [1, 0, 0], t2: [0, 1, 0], depth: 0.001, mu: 0.5, e: 0 });
const state = (): Json => ({ x: [0, 0, 0.5], q: [1, 0, 0, 0], v: [0, 0, 0], w: [0, 0, 0] });
const frame = (): Json => ({
  frame: 1,
  time: 1 / 60,
  bodies: [state(), state(), state()],
  pre: [
    { v: [0, 0, 0], w: [0, 0, 0] },
    { v: [0, 0, 0], w: [0, 0, 0] },
    { v: [0, 0, -0.1], w: [0, 0, 0], x: [0, 0, 0.5], q: [1, 0, 0, 0] },
  ],
  contacts: [contact()],
  solver: { name: 'pgs', status: 'converged', iterations: 3, residuals: [1e-9], lambda: [0.1, 0, 0] },
});

/** Values a writer might put in any field: right and wrong types, borderline norms and signs, typed arrays. */
const VALUES: unknown[] = [
  undefined,
  null,
  'x',
  true,
  -1,
  0,
  1e-12,
  0.5,
  1,
  1.5,
  2,
  3,
  2.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  [],
  [0, 0],
  [0, 0, 1],
  [0, 0, -1],
  [1, 0, 0],
  [0, 1, 0],
  [0, -1, 0],
  [0, 0, 1 + 1e-7],
  [0, 0, 1 + 1e-5],
  [0, 0, 1.01],
  // the fast path decides |‖v‖ − 1| ≤ 10⁻⁶ from ‖v‖² when it is sure and leaves the rest to Math.hypot: both
  // sides of the tolerance, and of the shortcut's own edge (‖v‖ ≈ 1 ± 5·10⁻⁷)
  [0, 0, 1 + 4.9e-7],
  [0, 0, 1 - 5.1e-7],
  [0, 0, 1 + 9.99e-7],
  [0, 0, 1 - 9.99e-7],
  [0, 0, 1 + 1.001e-6],
  [0, 0, 1 - 1.001e-6],
  [0, 0.6, 0.8 * (1 + 9.99e-7)],
  [0, 0.6, 0.8 * (1 + 1.001e-6)],
  [3e200, 4e200, 0],
  [0, 1e-7, 1],
  [0, 0, '1'],
  [0, 0, Number.NaN],
  [1, 0, 0, 0],
  [1, 0, 0, 1e-7],
  [1, 0, 0, 1e-3],
  [1.0001, 0, 0, 0],
  [1 + 4.9e-7, 0, 0, 0],
  [1 - 9.99e-7, 0, 0, 0],
  [1 + 1.001e-6, 0, 0, 0],
  [1 + 9.99e-4, 0, 0, 0],
  [1 + 1.001e-3, 0, 0, 0],
  [1.01, 0, 0, 0],
  [0.5, 0, 0, 0],
  [0, 0, 0, 1],
  Float64Array.of(0, 0, 1),
  Float64Array.of(1, 0, 0, 0),
  {},
  { k: 1000, c: 10 },
  { k: 1000, c: 10, z: 1 },
  { k: 1000, c: 10, 'x-v': 1 },
  { k: -1, c: 10 },
  { k: 1000 },
  'face:3',
];

interface Outcome {
  readonly frame?: unknown;
  readonly error?: string;
  readonly warnings: string[];
}

function outcome(raw: Json, namingOnly: boolean, collect: boolean): Outcome {
  const warnings: string[] = [];
  const onWarning = collect ? (field: string, detail: string) => warnings.push(`${field}: ${detail}`) : undefined;
  try {
    return { frame: validateFrame(raw, 2, 'mutant.rec.jsonl', header, { onWarning, namingOnly }), warnings };
  } catch (e) {
    return { error: (e as Error).message, warnings };
  }
}

/** Every mutant of `build()` that sets one key of the object `pick` returns to one of VALUES (or adds a key). */
function* mutants(keys: readonly string[], pick: (f: Json) => Json): Generator<{ name: string; raw: Json }> {
  for (const key of [...keys, 'zz', 'x-vendor'])
    for (let k = 0; k < VALUES.length; k++) {
      const raw = frame();
      const o = pick(raw);
      if (VALUES[k] === undefined) delete o[key];
      else o[key] = VALUES[k];
      yield { name: `${key} = ${String(VALUES[k])}`, raw };
    }
}

describe('frame validation: the fast success path decides as the field-naming readers do', () => {
  const cases: [string, readonly string[], (f: Json) => Json][] = [
    ['contact', ['a', 'b', 'point', 'normal', 't1', 't2', 'depth', 'gap', 'mu', 'e', 'feature', 'soft'], (f) => (f.contacts as Json[])[0]],
    ['body state', ['x', 'q', 'v', 'w'], (f) => (f.bodies as Json[])[2]],
    ['pre-solve state', ['v', 'w', 'x', 'q'], (f) => (f.pre as Json[])[2]],
    ['pre-solve state without pose', ['v', 'w', 'x', 'q'], (f) => (f.pre as Json[])[0]],
  ];
  for (const [what, keys, pick] of cases)
    it(`${what}: every one-field mutant gives the same frame, warnings or error either way`, () => {
      let accepted = 0,
        refused = 0,
        warned = 0;
      for (const { name, raw } of mutants(keys, pick))
        for (const collect of [false, true]) {
          const fast = outcome(structuredClone(raw), false, collect);
          const naming = outcome(structuredClone(raw), true, collect);
          assert.deepEqual(fast, naming, `${what} ${name} (warnings ${collect ? 'collected' : 'off'})`);
          if (fast.error !== undefined) refused++;
          else accepted++;
          if (fast.warnings.length > 0) warned++;
        }
      // the mutants reach all three outcomes, so the comparison is not vacuous
      assert.ok(accepted > 0 && refused > 0 && warned > 0, `accepted ${accepted}, refused ${refused}, warned ${warned}`);
    });

  it('a contact between two static bodies and e > 1 are warned about on the fast path as before', () => {
    const raw = frame();
    const c = (raw.contacts as Json[])[0];
    c.a = 1;
    c.e = 1.2;
    const fast = outcome(raw, false, true);
    assert.equal(fast.error, undefined);
    assert.equal(fast.warnings.length, 2, fast.warnings.join('; '));
    assert.deepEqual(fast, outcome(raw, true, true));
  });
});
