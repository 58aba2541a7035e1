/**
 * Inputs whose size or magnitude would cost unbounded time or overflow the energy ledger are refused with
 * the limit named (or skipped cheaply): a scene's shape sizes and coordinates, a JSON problem's contact
 * count, blank lines in a (compressed) recording, an external impulse whose energy overflows.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../../src/cli/main.js';
import { MAX_PROBLEM_CONTACTS } from '../../src/engine/problem.js';
import { BGZF_BLOCK_DATA, BGZF_EOF, bgzfBlock } from '../../src/format/bgzf.js';
import { FormatError } from '../../src/format/messages.js';
import { parseOracleInstance } from '../../src/format/oracle.js';
import { MAX_BLANK_LINES, RecordingReader } from '../../src/format/recordingFile.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { MAX_SCENE_COORDINATE, MAX_SCENE_LENGTH } from '../../src/format/sceneTypes.js';
import { MAX_JSON_ENTRIES } from '../../src/format/jsonPositions.js';

const ROOT = resolve(__dirname, '..', '..');
const FOREIGN = join(ROOT, 'examples', 'foreign-engine.rec.jsonl');

function scene(shape: unknown, position: number[] = [0, 0, 1]): string {
  return JSON.stringify({
    scenarios: [
      {
        name: 's',
        frames: 10,
        bodies: [
          { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, static: true },
          { name: 'b', shape, mass: 1, position, orientation: [0.9238795, 0, 0.3826834, 0] },
        ],
      },
    ],
  });
}

describe('input limits: sizes, counts and magnitudes named in the error', function () {
  this.timeout(120_000);
  const dir = fs.mkdtempSync(join(tmpdir(), 'contact-lens-limits-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a scene half extent of 1.2e29 or a position of 1e30 is refused naming the field and the limit (was: 15 s to check)', () => {
    assert.throws(
      () => parseSceneFile(scene({ box: { halfExtents: [1.2e29, 0.5, 0.5] } }), 'big.scene.json'),
      (e: unknown) => e instanceof FormatError && e.field === 'scenarios[0].bodies[1].shape.box.halfExtents[0]' && e.detail.includes(`≤ ${MAX_SCENE_LENGTH} m`),
    );
    assert.throws(
      () => parseSceneFile(scene({ sphere: { radius: 1e7 } }), 'big.scene.json'),
      (e: unknown) => e instanceof FormatError && e.field.endsWith('shape.sphere.radius'),
    );
    assert.throws(
      () => parseSceneFile(scene({ sphere: { radius: 1 } }, [0, 1e30, 0]), 'far.scene.json'),
      (e: unknown) => e instanceof FormatError && e.field === 'scenarios[0].bodies[1].position[1]' && e.detail.includes(`≤ ${MAX_SCENE_COORDINATE} m`),
    );
    assert.doesNotThrow(() => parseSceneFile(scene({ box: { halfExtents: [1e4, 0.5, 0.5] } }), 'ok.scene.json'));
  });

  it(`a scene array of 10⁶ entries is refused at entry ${MAX_JSON_ENTRIES + 1}, naming the line and column (was: seconds to parse before any error)`, () => {
    const text = scene({ sphere: { radius: 1 } }).replace('"frames":10,', `"frames":10,"gravity":[${new Array(1e6).fill('0.5').join(',')}],`);
    assert.throws(
      () => parseSceneFile(text, 'long.scene.json'),
      (e: unknown) => e instanceof FormatError && /line 1, column \d+: .*more than 100000 entries in one array/.test(e.message),
    );
  });

  it(`a JSON problem of more than ${MAX_PROBLEM_CONTACTS} contacts is refused before A is read, like an FCLIB one (was: 356 s in PGS)`, () => {
    const C = MAX_PROBLEM_CONTACTS + 1;
    const text = JSON.stringify({ mu: new Array(C).fill(0.5), b: [], A: [] });
    const t0 = performance.now();
    assert.throws(
      () => parseOracleInstance(text, 'many.json'),
      (e: unknown) =>
        e instanceof FormatError && e.field === 'mu' && e.detail.includes(`has ${C} contacts`) && e.detail.includes(`at most ${MAX_PROBLEM_CONTACTS}`),
    );
    console.log(`      refused in ${(performance.now() - t0).toFixed(1)} ms`);
  });

  it(`blank lines: runs skipped in stretches, at most ${MAX_BLANK_LINES} read; the frames before are kept (was: ~150 ns per blank line, no limit)`, () => {
    const text = fs.readFileSync(FOREIGN);
    const lines = text.toString('utf8').trimEnd().split('\n');
    const head = Buffer.from(`${lines.slice(0, 3).join('\n')}\n`);
    const blanks = Buffer.alloc(MAX_BLANK_LINES + 100_000, 10);
    const tail = Buffer.from(`${lines.slice(3).join('\n')}\n`);
    const all = Buffer.concat([head, blanks, tail]);
    const blocks: Buffer[] = [];
    for (let p = 0; p < all.length; p += BGZF_BLOCK_DATA) blocks.push(bgzfBlock(all.subarray(p, Math.min(all.length, p + BGZF_BLOCK_DATA))));
    const gz = join(dir, 'blank.rec.jsonl.gz');
    fs.writeFileSync(gz, Buffer.concat([...blocks, BGZF_EOF]));
    const t0 = performance.now();
    const r = RecordingReader.openSync(gz);
    const ms = performance.now() - t0;
    try {
      assert.equal(r.frameCount, 2, 'the frames before the blank lines');
      assert.equal(r.errorCount, 1);
      assert.match(r.errors[0].message, new RegExp(`line \\d+: more than ${MAX_BLANK_LINES} blank lines: the rest of the file is not read`));
      assert.ok(!r.warnings.some((w) => /truncated|end-of-file block/.test(w)), 'stopping on purpose is not called a truncated file');
    } finally {
      r.close();
    }
    // under the limit: every frame, blank lines skipped
    const few = join(dir, 'few.rec.jsonl');
    fs.writeFileSync(few, Buffer.concat([head, Buffer.alloc(100_000, 10), tail]));
    const f = RecordingReader.openSync(few);
    try {
      assert.equal(f.frameCount, lines.length - 1);
      assert.equal(f.errorCount, 0);
      assert.equal(f.summary(2).line, 3 + 100_000 + 1, 'line numbers count the skipped blank lines');
    } finally {
      f.close();
    }
    console.log(`      ${MAX_BLANK_LINES + 100_000} blank lines (gzipped ${(fs.statSync(gz).size / 1024).toFixed(0)} KiB) read in ${ms.toFixed(0)} ms`);
  });

  it('a manifold λ or point of ±1e300 is refused naming the field (was: findings of +∞ J)', () => {
    const lines = fs.readFileSync(FOREIGN, 'utf8').trimEnd().split('\n');
    const k = lines.findIndex((l) => (JSON.parse(l) as { contacts?: unknown[] }).contacts?.length === 4);
    for (const [key, value, field] of [
      ['lambda', [0, 1e300, 0], 'manifolds[0].lambda[1]'],
      ['point', [0, -1e300, 0], 'manifolds[0].point[1]'],
    ] as const) {
      const frame = JSON.parse(lines[k]) as Record<string, unknown>;
      const m: Record<string, unknown> = {
        a: 1,
        b: 0,
        contacts: [0, 1, 2, 3],
        point: [0, 0, -0.002],
        normal: [0, 0, 1],
        t1: [1, 0, 0],
        t2: [0, 1, 0],
        lambda: [0, 0, 0],
      };
      m[key] = value;
      frame.manifolds = [m];
      const rec = join(dir, `manifold-${key}.rec.jsonl`);
      fs.writeFileSync(rec, `${[...lines.slice(0, k), JSON.stringify(frame), ...lines.slice(k + 1)].join('\n')}\n`);
      const r = RecordingReader.openSync(rec);
      try {
        assert.equal(r.errorCount, 1, key);
        assert.ok(r.errors[0].message.includes(`line ${k + 1}: ${field}: is `) && r.errors[0].message.includes('beyond ±1e+50'), r.errors[0].message);
      } finally {
        r.close();
      }
    }
  });

  it('a contact point of 1e300 or a pre-solve spin of 1e300 is refused naming the field, through the fast path too (was: findings of +∞ J)', () => {
    const lines = fs.readFileSync(FOREIGN, 'utf8').trimEnd().split('\n');
    const k = lines.findIndex((l) => (JSON.parse(l) as { contacts?: unknown[] }).contacts?.length === 4);
    const cases: [string, (f: { contacts: { point: number[] }[]; pre: { w: number[] }[] }) => void, RegExp][] = [
      ['point', (f) => (f.contacts[2].point[1] = 1e300), /contacts\[2\]\.point\[1\]: is 1e\+300 m, beyond ±1e\+50/],
      ['spin', (f) => (f.pre[1].w[1] = 1e300), /pre\[1\]\.w: is so large that the body's kinetic energy before the solve is not a finite number/],
    ];
    for (const [name, change, message] of cases) {
      const frame = JSON.parse(lines[k]) as { contacts: { point: number[] }[]; pre: { w: number[] }[] };
      change(frame);
      const rec = join(dir, `${name}.rec.jsonl`);
      fs.writeFileSync(rec, `${[...lines.slice(0, k), JSON.stringify(frame), ...lines.slice(k + 1)].join('\n')}\n`);
      const r = RecordingReader.openSync(rec);
      try {
        assert.equal(r.errorCount, 1, name);
        assert.match(r.errors[0].message, message);
      } finally {
        r.close();
      }
    }
  });

  it('a header gravity of 1e300 is refused naming the field (was: a bias-injection finding of +∞ J)', () => {
    const lines = fs.readFileSync(FOREIGN, 'utf8').trimEnd().split('\n');
    const header = JSON.parse(lines[0]) as { gravity: number[] };
    header.gravity[2] = -1e300;
    const rec = join(dir, 'gravity.rec.jsonl');
    fs.writeFileSync(rec, `${[JSON.stringify(header), ...lines.slice(1)].join('\n')}\n`);
    assert.throws(() => RecordingReader.openSync(rec), /gravity\[2\]: is -1e\+300 m\/s², beyond ±1e\+50/);
  });

  it('an external impulse of 1e308 is refused naming the field (was: a ledger of −Infinity J and misattributed findings)', async () => {
    const lines = fs.readFileSync(FOREIGN, 'utf8').trimEnd().split('\n');
    const frame = JSON.parse(lines[3]) as Record<string, unknown>;
    frame.external = [{ body: 1, impulse: [0, 0, 1e308], stage: 'before-solve' }];
    const ok = JSON.parse(lines[4]) as Record<string, unknown>;
    ok.external = [{ body: 1, impulse: [0, 0, 0.01], stage: 'before-solve' }];
    const rec = join(dir, 'thrust.rec.jsonl');
    fs.writeFileSync(rec, `${[lines[0], lines[1], lines[2], JSON.stringify(frame), JSON.stringify(ok), ...lines.slice(5)].join('\n')}\n`);
    const r = RecordingReader.openSync(rec);
    try {
      assert.equal(r.errorCount, 1);
      assert.match(r.errors[0].message, /line 4: external\[0\]\.impulse\[2\]: is 1e\+308 N·s, beyond ±1e\+50/);
    } finally {
      r.close();
    }
    const out: string[] = [];
    const code = await main(['report', rec, '--json'], { out: (l) => out.push(l), err: () => {} });
    assert.equal(code, 0);
    const rep = JSON.parse(out.join('')) as { ledger: Record<string, number | null>; injected: Record<string, number | null> };
    for (const [k, v] of [...Object.entries(rep.ledger), ...Object.entries(rep.injected)]) assert.ok(typeof v === 'number' && Number.isFinite(v), `${k}: ${v}`);
  });
});
