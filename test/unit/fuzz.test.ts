/**
 * Seeded mutation fuzzer (issue 10) for the scene, recording and problem readers and the inspector model.
 * Valid files from examples/ are mutated (bytes, hostile tokens, JSON values swapped for extreme ones) and fed
 * to the readers. Asserted for every input: no exception other than FormatError, no input slower than
 * FUZZ_MAX_MS, every error one line "file: field: detail" naming the file and a field, no control characters;
 * a problem that reads is solved and a "converged" status has finite λ, objective and residual; a recording
 * that reads opens in the inspector model, every frame view works and every message passes the protocol check.
 *
 * CONTACT_LENS_FUZZ=N runs N inputs per reader (default FUZZ_DEFAULT_PER_TARGET); CONTACT_LENS_FUZZ_SEED=S
 * changes the seed. The figures (inputs, rejected, slowest) are printed at the end.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { rng } from '../rng.js';
import { FormatError } from '../../src/format/messages.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { assembleOraclePhysical, parseOracleInstance } from '../../src/format/oracle.js';
import { parseFrame, parseHeader, type RecordedFrame } from '../../src/format/recording.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { SOLVER_NAMES } from '../../src/engine/solvers/types.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import { validateHostMessage } from '../../src/protocol/validate.js';
import { PROTOCOL_VERSION } from '../../src/protocol/inspector.js';

/** Inputs per reader in `npm test`. */
export const FUZZ_DEFAULT_PER_TARGET = 1000;
/** No single input may take longer than this (ms). */
export const FUZZ_MAX_MS = 1000;
/** Every how many recording inputs the whole inspector model is built (it is the slowest target). */
const MODEL_EVERY = 8;

const ROOT = resolve(__dirname, '..', '..');
const PER_TARGET = Math.max(1, Math.floor(Number(process.env.CONTACT_LENS_FUZZ ?? FUZZ_DEFAULT_PER_TARGET)) || FUZZ_DEFAULT_PER_TARGET);
const SEED = Math.floor(Number(process.env.CONTACT_LENS_FUZZ_SEED ?? 20261123)) || 20261123;

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: Rand, n: number): number => Math.floor(r() * n);

/** Text a fuzzer inserts: the campaign's hostile tokens (non-finite numbers, control characters, prototypes keys, deep nesting). */
const TOKENS: readonly string[] = [
  'NaN',
  'Infinity',
  '-Infinity',
  'nan',
  '-inf',
  '1e309',
  '-1e309',
  '1e300',
  '-1e300',
  '5e-324',
  '-0',
  '1e10',
  '9007199254740993',
  'null',
  'true',
  'false',
  '{}',
  '[]',
  '""',
  '"constructor"',
  '"__proto__"',
  '"toString"',
  '{"toString": 1}',
  '{"valueOf": null}',
  '"\\u001b[2J\\u001b[H✓ ok"',
  '"\\n"',
  '"\\u0000"',
  '\u001b[31m',
  '\n',
  '\r',
  '\t',
  '\ufeff',
  ',',
  ':',
  '"',
  '[',
  ']',
  '{',
  '}',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
  '"' + 'x'.repeat(5000) + '"',
];

/** JSON values the structural mutator puts in place of an existing value. */
const VALUES: readonly unknown[] = [
  0,
  -1,
  1e300,
  -1e300,
  5e-324,
  1e10,
  2 ** 53,
  0.5,
  -0.5,
  null,
  true,
  false,
  '',
  'x'.repeat(3000),
  '\u001b[2J\nfake',
  [],
  {},
  [1, 2],
  { toString: 1 },
  { constructor: 1, __proto__: 1 },
  [[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]],
  [NaN], // JSON.stringify writes null
];

/** Byte/text-level mutation: flip, insert a token, delete or duplicate a range. */
function mutateText(r: Rand, text: string): string {
  const at = int(r, text.length + 1);
  switch (int(r, 5)) {
    case 0:
      return text.slice(0, at) + String.fromCharCode(int(r, 128)) + text.slice(at + 1);
    case 1:
      return text.slice(0, at) + pick(r, TOKENS) + text.slice(at);
    case 2:
      return text.slice(0, at) + text.slice(Math.min(text.length, at + 1 + int(r, 40)));
    case 3: {
      const len = int(r, 200);
      return text.slice(0, at) + text.slice(at, at + len) + text.slice(at);
    }
    default: {
      // replace a number literal with a hostile one
      const m = [...text.matchAll(/-?\d+(\.\d+)?(e[-+]?\d+)?/gi)];
      if (m.length === 0) return text;
      const x = pick(r, m);
      return text.slice(0, x.index) + pick(r, ['NaN', '1e309', '-1e309', '1e300', '-5', '1e10', '0', '-0', '0.5', '2.5']) + text.slice(x.index! + x[0].length);
    }
  }
}

/** Structural mutation: a random value in the JSON tree replaced, removed, or an unknown key added. */
function mutateJson(r: Rand, value: unknown): unknown {
  const root = JSON.parse(JSON.stringify(value)) as unknown;
  let parent: Record<string, unknown> | unknown[] | null = null;
  let key: string | number = '';
  let node = root;
  for (let depth = 0; depth < 12 && node !== null && typeof node === 'object' && r() < 0.85; depth++) {
    const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    parent = node as Record<string, unknown>;
    key = pick(r, keys);
    node = (node as Record<string, unknown>)[key as string];
  }
  if (parent === null) return pick(r, VALUES);
  const op = int(r, 4);
  if (op === 0 && !Array.isArray(parent)) delete (parent as Record<string, unknown>)[key as string];
  else if (op === 1 && !Array.isArray(parent))
    (parent as Record<string, unknown>)[pick(r, ['constructor', 'toString', '__proto__', 'x-vendor', 'unknwon', '\u001b[2J', 'k'.repeat(2000)])] = pick(
      r,
      VALUES,
    );
  else (parent as Record<string, unknown>)[key as string] = pick(r, VALUES);
  return root;
}

/** A mutant of `text`: 1–3 text mutations, or a structural one (JSON texts only). */
function mutant(r: Rand, text: string, json: unknown | undefined): string {
  if (json !== undefined && r() < 0.5) return JSON.stringify(mutateJson(r, json), null, r() < 0.5 ? 1 : undefined);
  let t = text;
  for (let k = 1 + int(r, 3); k > 0; k--) t = mutateText(r, t);
  return t;
}

interface Figures {
  inputs: number;
  rejected: number;
  slowestMs: number;
  slowest: string;
}
const figures: Record<string, Figures> = {};
const fig = (target: string): Figures => (figures[target] ??= { inputs: 0, rejected: 0, slowestMs: 0, slowest: '' });

/** The error contract: a FormatError, one safe line "file: field: detail". */
function checkError(e: unknown, file: string, where: string): void {
  if (!(e instanceof FormatError)) throw new Error(`${where}: ${e instanceof Error ? `${e.name}: ${e.message.slice(0, 300)}` : String(e)} (not a FormatError)`);
  assert.equal(e.file, file, `${where}: the error names the file`);
  assert.ok(e.field.length > 0, `${where}: the error names a field`);
  assert.ok(e.message.startsWith(`${file}: ${e.field}: `), `${where}: "file: field: detail" (${e.message.slice(0, 200)})`);
  assert.ok(
    !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(e.message),
    `${where}: one line without control characters (${JSON.stringify(e.message.slice(0, 200))})`,
  );
  assert.ok(e.message.length <= 2000, `${where}: a bounded message (${e.message.length} characters)`);
}

/** Runs one input, timing it; returns whether it was rejected with a FormatError. */
async function timed(target: string, where: string, fn: () => unknown | Promise<unknown>, file: string): Promise<void> {
  const f = fig(target);
  f.inputs++;
  const t0 = performance.now();
  try {
    await fn();
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    checkError(e, file, where);
    f.rejected++;
  }
  const ms = performance.now() - t0;
  if (ms > f.slowestMs) {
    f.slowestMs = ms;
    f.slowest = where;
  }
  assert.ok(ms < FUZZ_MAX_MS, `${where}: took ${ms.toFixed(0)} ms (limit ${FUZZ_MAX_MS} ms)`);
}

const read = (rel: string): string => readFileSync(join(ROOT, rel), 'utf8');

describe(`fuzz: seeded mutations (seed ${SEED}, ${PER_TARGET} inputs per reader; CONTACT_LENS_FUZZ=N for more)`, function () {
  this.timeout(0);

  after(() => {
    for (const [target, f] of Object.entries(figures)) {
      process.stdout.write(
        `      fuzz ${target}: ${f.inputs} inputs, ${f.rejected} rejected with a one-line error, slowest ${f.slowestMs.toFixed(1)} ms (${f.slowest})\n`,
      );
    }
  });

  it('scene parser: every input parses or fails with one line naming the file and the field', async () => {
    const seeds = [
      'examples/mass-ratio-stack.scene.json',
      'examples/box-stack-10.scene.json',
      'examples/fault-restitution-target.scene.json',
      'examples/sphere-drop.scene.json',
    ].map(read);
    const jsons = seeds.map((t) => JSON.parse(t) as unknown);
    const r = rng(SEED);
    const file = 'fuzz.scene.json';
    for (let i = 0; i < PER_TARGET; i++) {
      const s = int(r, seeds.length);
      const text = mutant(r, seeds[s], jsons[s]);
      await timed('scene', `scene input ${i} (seed ${SEED})`, () => parseSceneFile(text, file), file);
    }
  });

  it('problem reader and solvers: inputs read or fail with one line; "converged" only on finite λ, objective and residual', async () => {
    const big = read('examples/problems/two-box-stack.json');
    const small = JSON.stringify({ schema_version: 1, id: 'one', A: [2, 0.1, 0, 0.1, 1, 0, 0, 0, 1], b: [1, 0.2, -0.1], mu: [0.5], eps: 0 });
    const seeds = [big, small];
    const jsons = seeds.map((t) => JSON.parse(t) as unknown);
    const r = rng(SEED + 1);
    const file = 'fuzz.problem.json';
    for (let i = 0; i < PER_TARGET; i++) {
      const s = int(r, seeds.length);
      const text = mutant(r, seeds[s], jsons[s]);
      const solver = pick(r, SOLVER_NAMES);
      await timed(
        'problem',
        `problem input ${i} (seed ${SEED + 1}, ${solver})`,
        () => {
          const inst = parseOracleInstance(text, file);
          const problem = inst.physical && r() < 0.5 ? assembleOraclePhysical(inst) : inst.matrix;
          const res = solve(problem, { solver });
          if (res.status.kind === 'converged') {
            assert.ok(
              res.lambda.every(Number.isFinite) && Number.isFinite(res.objective) && Number.isFinite(res.kkt.maxRel),
              `problem input ${i}: converged on non-finite data`,
            );
          }
        },
        file,
      );
    }
  });

  it('recording reader and inspector model: lines read or fail with one line; models open and every view passes the protocol check', async () => {
    const lines = read('examples/foreign-engine.rec.jsonl').trimEnd().split('\n');
    const jsons = lines.map((l) => JSON.parse(l) as unknown);
    const r = rng(SEED + 2);
    const file = 'fuzz.rec.jsonl';
    const dir = mkdtempSync(join(tmpdir(), 'contact-lens-fuzz-'));
    try {
      for (let i = 0; i < PER_TARGET; i++) {
        const k = int(r, lines.length);
        const mutated = lines.slice();
        mutated[k] = mutant(r, lines[k], jsons[k]);
        const where = `recording input ${i} (seed ${SEED + 2}, line ${k + 1})`;
        await timed(
          'recording',
          where,
          () => {
            const { header } = parseHeader(mutated[0], file);
            let prev: RecordedFrame | undefined, firstError: unknown;
            for (let j = 1; j < mutated.length; j++) {
              try {
                prev = parseFrame(mutated[j], j + 1, file, header, { previous: prev });
              } catch (e) {
                checkError(e, file, `${where}, frame line ${j + 1}`);
                firstError ??= e; // the reader skips a bad frame line and goes on (recordingFile.ts)
              }
            }
            if (firstError) throw firstError;
          },
          file,
        );
        if (i % MODEL_EVERY !== 0) continue;
        const path = join(dir, `m${i}.rec.jsonl`);
        writeFileSync(path, mutated.join('\n') + '\n');
        await timed(
          'inspector model',
          `model input ${i} (seed ${SEED + 2}, line ${k + 1})`,
          async () => {
            const model = await InspectorModel.fromRecording(path);
            validateHostMessage({
              type: 'init',
              version: PROTOCOL_VERSION,
              source: { kind: 'recording', file: path },
              info: model.info,
              timeline: model.timeline,
              findings: model.findings,
              settings: { playbackFps: 30 },
              index: 0,
            });
            for (let f = 0; f < model.info.frameCount; f++) validateHostMessage({ type: 'frame', requestId: f, view: model.frameView(f) });
          },
          path,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
