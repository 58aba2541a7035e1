/**
 * Seeded fuzz targets for the readers (scene, problem, recording and the inspector model, blocked and plain
 * gzip with `compress`, FCLIB HDF5, format 1.1 recordings with the diagnosis). Each input must either be
 * read or be refused with one FormatError line "file: field: detail" naming the file and a field, within
 * FUZZ_MAX_MS; anything else — another exception, a broken invariant (a "converged" status on non-finite
 * data, a compressed copy with a frame the input did not have, a ledger of ±∞) — is "uncaught".
 *
 * Run by test/unit/fuzz.test.ts (a few hundred inputs per target in `npm test`) and by bench/fuzz.ts
 * (`npm run fuzz -- N`: N per target, a table, a non-zero exit on any uncaught input).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as zlib from 'node:zlib';
import { runCompress } from '../../src/cli/compressCommand.js';
import { FileError } from '../../src/cli/output.js';
import type { makeProblem } from '../../src/engine/problem.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { SOLVER_NAMES } from '../../src/engine/solvers/types.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import { readFclibLocal } from '../../src/format/fclib.js';
import { loadH5 } from '../../src/format/h5wasmModule.js';
import { FormatError } from '../../src/format/messages.js';
import { assembleOraclePhysical, parseOracleInstance } from '../../src/format/oracle.js';
import { parseFrame, parseHeader, type RecordedFrame } from '../../src/format/recording.js';
import { RecordingReader, RecordingWriter } from '../../src/format/recordingFile.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { PROTOCOL_VERSION } from '../../src/protocol/inspector.js';
import { validateHostMessage } from '../../src/protocol/validate.js';
import { Diagnoser } from '../../src/session/diagnose.js';
import { rng } from '../rng.js';
import { int, mutant, mutateBytes, pick, type Rand } from './mutate.js';

/**
 * No single input may take more CPU time than this (ms): the process's CPU time, so that other jobs on a shared
 * machine do not count; an input that waits instead of computing is caught by FUZZ_HANG_MS of wall time.
 */
export const FUZZ_MAX_MS = 1000;
/** Wall time (ms) past which an input counts as hanging (blocked on I/O, a lock, a pipe), whatever its CPU time. */
export const FUZZ_HANG_MS = 10_000;

export interface TargetFigures {
  readonly target: string;
  inputs: number;
  /** Refused with one FormatError line (or, for CLI commands, one line and exit 2). */
  rejected: number;
  /** Any other exception or broken invariant. */
  uncaught: number;
  /** Inputs over FUZZ_MAX_MS of CPU time or FUZZ_HANG_MS of wall time. */
  slow: number;
  /** The largest CPU time of one input (ms), and the largest wall time (ms). */
  slowestMs: number;
  slowestWallMs: number;
  slowest: string;
  /** The first few uncaught inputs, one line each. */
  readonly failures: string[];
}

/**
 * One input: returns normally (read), returns 'rejected' (refused with one line, checked by the target) or
 * throws (a FormatError is a rejection, anything else uncaught).
 */
type Input = { readonly where: string; readonly file: string; readonly run: () => unknown | Promise<unknown> };

export interface FuzzTarget {
  readonly name: string;
  /** Default inputs in `npm test`. */
  readonly ciInputs: number;
  /** Makes input i (seeded). */
  inputs(seed: number, dir: string): (i: number) => Input;
  /** Loads what the first input would otherwise pay for (a WebAssembly module, JIT), before any input is timed. */
  prepare?(): Promise<void>;
}

const ROOT = resolve(__dirname, '..', '..');
const read = (rel: string): string => fs.readFileSync(join(ROOT, rel), 'utf8');

/** The error contract: a FormatError, one safe line "file: field: detail". */
export function checkError(e: unknown, file: string, where: string): void {
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

/** Runs n inputs of a target; never throws for an input (it is counted). */
export async function runTarget(t: FuzzTarget, n: number, seed: number, onProgress?: (done: number) => void): Promise<TargetFigures> {
  const f: TargetFigures = { target: t.name, inputs: 0, rejected: 0, uncaught: 0, slow: 0, slowestMs: 0, slowestWallMs: 0, slowest: '', failures: [] };
  const dir = fs.mkdtempSync(join(tmpdir(), `contact-lens-fuzz-${t.name.replace(/\W+/g, '-')}-`));
  try {
    await t.prepare?.();
    const make = t.inputs(seed, dir);
    for (let i = 0; i < n; i++) {
      const input = make(i);
      f.inputs++;
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      try {
        if ((await input.run()) === 'rejected') f.rejected++;
      } catch (e) {
        try {
          if (e instanceof assert.AssertionError) throw e;
          checkError(e, input.file, input.where);
          f.rejected++;
        } catch (bad) {
          f.uncaught++;
          if (f.failures.length < 5) f.failures.push(`${input.where}: ${(bad as Error).message.split('\n')[0].slice(0, 300)}`);
        }
      }
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(c0);
      const ms = (cpu.user + cpu.system) / 1000;
      if (ms > FUZZ_MAX_MS || wall > FUZZ_HANG_MS) f.slow++;
      f.slowestWallMs = Math.max(f.slowestWallMs, wall);
      if (ms > f.slowestMs) {
        f.slowestMs = ms;
        f.slowest = input.where;
      }
      if (onProgress && (i + 1) % 500 === 0) onProgress(i + 1);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return f;
}

const scene: FuzzTarget = {
  name: 'scene',
  ciInputs: 1000,
  inputs(seed) {
    const seeds = [
      'examples/mass-ratio-stack.scene.json',
      'examples/box-stack-10.scene.json',
      'examples/fault-restitution-target.scene.json',
      'examples/sphere-drop.scene.json',
    ].map(read);
    const jsons = seeds.map((t) => JSON.parse(t) as unknown);
    const r = rng(seed);
    return (i) => {
      const s = int(r, seeds.length);
      const text = mutant(r, seeds[s], jsons[s]);
      return { where: `scene input ${i} (seed ${seed})`, file: 'fuzz.scene.json', run: () => parseSceneFile(text, 'fuzz.scene.json') };
    };
  },
};

/** A solve's status never overstates: "converged" only on finite λ, objective and residual. */
function checkSolved(problem: ReturnType<typeof makeProblem>, solver: (typeof SOLVER_NAMES)[number], where: string): void {
  const res = solve(problem, { solver });
  if (res.status.kind === 'converged')
    assert.ok(res.lambda.every(Number.isFinite) && Number.isFinite(res.objective) && Number.isFinite(res.kkt.maxRel), `${where}: converged on non-finite data`);
}

const problem: FuzzTarget = {
  name: 'problem',
  ciInputs: 1000,
  inputs(seed) {
    const big = read('examples/problems/two-box-stack.json');
    const small = JSON.stringify({ schema_version: 1, id: 'one', A: [2, 0.1, 0, 0.1, 1, 0, 0, 0, 1], b: [1, 0.2, -0.1], mu: [0.5], eps: 0 });
    const seeds = [big, small];
    const jsons = seeds.map((t) => JSON.parse(t) as unknown);
    const r = rng(seed + 1);
    const file = 'fuzz.problem.json';
    return (i) => {
      const s = int(r, seeds.length);
      const text = mutant(r, seeds[s], jsons[s]);
      const solver = pick(r, SOLVER_NAMES);
      const physical = r() < 0.5;
      const where = `problem input ${i} (seed ${seed + 1}, ${solver})`;
      return {
        where,
        file,
        run: () => {
          const inst = parseOracleInstance(text, file);
          checkSolved(inst.physical && physical ? assembleOraclePhysical(inst) : inst.matrix, solver, where);
        },
      };
    };
  },
};

/** Parses every line of a mutated recording as the reader does (a bad frame line is skipped; the first error is thrown at the end). */
function parseLines(lines: readonly string[], file: string, where: string): RecordedFrame[] {
  const { header } = parseHeader(lines[0], file);
  const frames: RecordedFrame[] = [];
  let prev: RecordedFrame | undefined, firstError: unknown;
  for (let j = 1; j < lines.length; j++) {
    try {
      prev = parseFrame(lines[j], j + 1, file, header, { previous: prev });
      frames.push(prev);
    } catch (e) {
      checkError(e, file, `${where}, frame line ${j + 1}`);
      firstError ??= e;
    }
  }
  if (firstError) throw firstError;
  return frames;
}

/** The inspector model opens the file and every message it builds passes the protocol check. */
async function checkModel(path: string): Promise<void> {
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
  model.close();
}

/** Every how many recording inputs the whole inspector model is built (it is the slowest part). */
const MODEL_EVERY = 8;

const recording: FuzzTarget = {
  name: 'recording',
  ciInputs: 1000,
  async prepare() {
    await checkModel(join(ROOT, 'examples', 'foreign-engine.rec.jsonl'));
  },
  inputs(seed, dir) {
    const lines = read('examples/foreign-engine.rec.jsonl').trimEnd().split('\n');
    const jsons = lines.map((l) => JSON.parse(l) as unknown);
    const r = rng(seed + 2);
    const file = 'fuzz.rec.jsonl';
    return (i) => {
      const k = int(r, lines.length);
      const mutated = lines.slice();
      mutated[k] = mutant(r, lines[k], jsons[k]);
      const where = `recording input ${i} (seed ${seed + 2}, line ${k + 1})`;
      if (i % MODEL_EVERY !== 0) return { where, file, run: () => parseLines(mutated, file, where) };
      const path = join(dir, `m${i}.rec.jsonl`);
      fs.writeFileSync(path, `${mutated.join('\n')}\n`);
      return { where: `${where}, inspector model`, file: path, run: () => checkModel(path) };
    };
  },
};

/** The frames of the original recording by frame number and content (what a compressed copy may hold). */
function frameKeys(path: string): Map<number, string> {
  const r = RecordingReader.openSync(path);
  try {
    const m = new Map<number, string>();
    for (let i = 0; i < r.frameCount; i++) m.set(r.summary(i).frame, r.rawLine(i).toString('latin1'));
    return m;
  } finally {
    r.close();
  }
}

const quiet = { out: () => {}, err: () => {} };

const gzip: FuzzTarget = {
  name: 'gzip',
  ciInputs: 200,
  inputs(seed, dir) {
    // the 10-box stack (40 contacts, many blocks) as blocked gzip and as one plain gzip member
    const plain = join(dir, 'seed.rec.jsonl');
    const w = RecordingWriter.create(plain, JSON.parse(read('examples/foreign-engine.rec.jsonl').split('\n')[0]));
    const lines = read('examples/foreign-engine.rec.jsonl').trimEnd().split('\n');
    let t = 0;
    for (let k = 0; k < 40; k++)
      for (const l of lines.slice(1)) {
        const f = JSON.parse(l) as RecordedFrame;
        w.writeFrame({ ...f, frame: t, time: (t + 1) / 60 });
        t++;
      }
    w.close();
    const original = frameKeys(plain);
    const plainBytes = fs.readFileSync(plain);
    const bgzf = join(dir, 'seed.rec.jsonl.gz');
    const wz = RecordingWriter.create(bgzf, RecordingReader.openSync(plain).header, { gzip: true });
    const rp = RecordingReader.openSync(plain);
    for (let i = 0; i < rp.frameCount; i++) wz.writeFrame(rp.frame(i));
    rp.close();
    wz.close();
    const seeds = [
      fs.readFileSync(bgzf),
      zlib.gzipSync(plainBytes),
      Buffer.concat([zlib.gzipSync(plainBytes.subarray(0, 30000)), zlib.gzipSync(plainBytes.subarray(30000))]),
    ];
    const r = rng(seed + 3);
    return (i) => {
      const s = int(r, seeds.length);
      let bytes = mutateBytes(r, seeds[s]);
      if (r() < 0.3) bytes = mutateBytes(r, bytes);
      const input = join(dir, `in${i % 4}.rec.jsonl.gz`);
      const out = join(dir, `out${i % 4}.rec.jsonl.gz`);
      const where = `gzip input ${i} (seed ${seed + 3}, ${['blocked', 'plain', 'two members'][s]})`;
      return {
        where,
        file: input,
        run: async () => {
          fs.writeFileSync(input, bytes);
          fs.rmSync(out, { force: true });
          // the reader: frames read or one line (damaged plain gzip is refused whole)
          let readable: Map<number, string> | null = null;
          try {
            readable = frameKeys(input);
          } catch (e) {
            checkError(e, input, where);
          }
          // compress: exit 0 with the reader's frames (never one the recording did not have), or one line
          let code: number;
          try {
            code = await runCompress([input, out], quiet);
          } catch (e) {
            if (!(e instanceof FormatError || e instanceof FileError)) throw e;
            assert.ok(!e.message.includes('\n'), `${where}: compress refused in one line`);
            assert.equal(fs.existsSync(out), false, `${where}: nothing left behind`);
            return 'rejected';
          }
          assert.equal(code, 0);
          const written = frameKeys(out);
          for (const [frame, line] of written)
            assert.equal(original.get(frame), line, `${where}: compress wrote frame ${frame}, which the recording does not hold`);
          if (readable) assert.equal(written.size, readable.size, `${where}: compress wrote ${written.size} frames, the reader reads ${readable.size}`);
          return undefined;
        },
      };
    };
  },
};

/** A valid FCLIB local problem (fclib.h layout) written with h5wasm, with one structural mutation or none. */
async function writeHdf5(path: string, r: Rand): Promise<void> {
  const h5 = await loadH5(); // the reader's current instance (a fresh one after an abort)
  const C = 1 + int(r, 3),
    n = 3 * C;
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) A[i * n + i] = 1 + r();
  const rows: number[] = [],
    cols: number[] = [],
    vals: number[] = [];
  for (let i = 0; i < n; i++) {
    rows.push(i);
    cols.push(i);
    vals.push(A[i * n + i]);
  }
  const hostile: readonly (number | bigint)[] = [0, -1, 1e9, 2 ** 31 - 1, -(2 ** 31), NaN, Infinity, 1e308];
  const fields: Record<string, Float64Array | Int32Array | string> = {
    'W/m': Int32Array.of(n),
    'W/n': Int32Array.of(n),
    'W/nz': Int32Array.of(vals.length),
    'W/nzmax': Int32Array.of(vals.length),
    'W/p': Int32Array.from(rows),
    'W/i': Int32Array.from(cols),
    'W/x': Float64Array.from(vals),
    'vectors/q': Float64Array.from({ length: n }, () => r() * 2 - 1),
    'vectors/mu': Float64Array.from({ length: C }, () => r()),
    spacedim: Int32Array.of(3),
    'info/title': 'fuzz',
  };
  const keys = Object.keys(fields);
  const op = int(r, 5);
  const victim = pick(r, keys);
  if (op === 0) delete fields[victim];
  else if (op === 1) {
    const v = fields[victim];
    if (typeof v !== 'string') v[int(r, v.length)] = Number(pick(r, hostile));
  } else if (op === 2) {
    const v = fields[victim];
    fields[victim] = typeof v === 'string' ? 'x'.repeat(int(r, 100_000)) : v.subarray(0, int(r, v.length));
  } else if (op === 3) fields[victim] = 'a string where numbers belong';
  const f = new h5.File(path, 'w');
  try {
    const groups = new Map<string, InstanceType<typeof h5.Group>>();
    const local = f.create_group('fclib_local');
    for (const [k, v] of Object.entries(fields)) {
      const parts = k.split('/');
      let g = local;
      if (parts.length === 2) {
        if (!groups.has(parts[0])) groups.set(parts[0], local.create_group(parts[0]));
        g = groups.get(parts[0])!;
      }
      g.create_dataset({ name: parts[parts.length - 1], data: v });
    }
    if (r() < 0.1) local.create_external_link('elsewhere.h5', '/x', 'extra');
  } finally {
    f.close();
  }
}

const hdf5: FuzzTarget = {
  name: 'hdf5',
  ciInputs: 100,
  async prepare() {
    await readFclibLocal(join(ROOT, 'examples', 'problems', 'fclib-boxes-stack.hdf5'), 'warm-up'); // h5wasm's start-up
  },
  inputs(seed, dir) {
    const r = rng(seed + 4);
    const bundled = fs.readFileSync(join(ROOT, 'examples', 'problems', 'fclib-boxes-stack.hdf5'));
    const fixtures = ['huge-mu', 'huge-title', 'huge-W', 'virtual', 'external-storage'].map((x) =>
      fs.readFileSync(join(ROOT, 'test', 'fixtures', 'hdf5', `${x}.hdf5`)),
    );
    return (i) => {
      const path = join(dir, `p${i % 4}.hdf5`);
      const kind = int(r, 3);
      const where = `hdf5 input ${i} (seed ${seed + 4}, ${['written with a mutation', 'bytes of the FCLIB example mutated', 'bytes of a hostile fixture mutated'][kind]})`;
      const sub = rng(Math.floor(r() * 2 ** 32));
      return {
        where,
        file: path,
        run: async () => {
          if (kind === 0) await writeHdf5(path, sub);
          else fs.writeFileSync(path, mutateBytes(sub, kind === 1 ? bundled : pick(sub, fixtures)));
          const p = await readFclibLocal(path, path);
          if (p.matrix.size <= 60) checkSolved(p.matrix, pick(sub, SOLVER_NAMES), where);
        },
      };
    };
  },
};

/** The foreign-engine example as format 1.1: an initial-state line, external impulses on every frame, manifolds on frames with contacts. */
function format11Lines(): string[] {
  const lines = read('examples/foreign-engine.rec.jsonl').trimEnd().split('\n');
  const frames = lines.slice(1).map((l) => JSON.parse(l) as Record<string, unknown> & { bodies: unknown[]; contacts: unknown[] });
  const initial = { initial: { bodies: frames[0].bodies } };
  const out = frames.map((f, k) => {
    const g: Record<string, unknown> = {
      ...f,
      external: [{ body: 1, impulse: [0, 0, 0.01 * k], angular: [0, 0.001, 0], stage: k % 2 ? 'with-solve' : 'before-solve' }],
    };
    if (f.contacts.length === 4)
      g.manifolds = [
        { a: 1, b: 0, contacts: [0, 1, 2, 3], point: [0, 0, -0.002], normal: [0, 0, 1], t1: [1, 0, 0], t2: [0, 1, 0], lambda: [0.001, 0, 0.0001] },
      ];
    return JSON.stringify(g);
  });
  return [lines[0], JSON.stringify(initial), ...out];
}

const format11: FuzzTarget = {
  name: 'format 1.1',
  ciInputs: 300,
  async prepare() {
    await checkModel(join(ROOT, 'examples', 'foreign-engine.rec.jsonl'));
  },
  inputs(seed, dir) {
    const lines = format11Lines();
    const jsons = lines.map((l) => JSON.parse(l) as unknown);
    const r = rng(seed + 5);
    return (i) => {
      const k = int(r, lines.length);
      const mutated = lines.slice();
      mutated[k] = mutant(r, lines[k], jsons[k]);
      const path = join(dir, `f${i % 4}.rec.jsonl`);
      const where = `format 1.1 input ${i} (seed ${seed + 5}, line ${k + 1})`;
      return {
        where,
        file: path,
        run: async () => {
          fs.writeFileSync(path, `${mutated.join('\n')}\n`);
          const reader = RecordingReader.openSync(path);
          try {
            // the diagnosis over every frame: findings and ledgers finite (never ±∞ joules)
            const d = new Diagnoser(reader.header, { counterfactuals: false });
            for (let j = 0; j < reader.frameCount; j++) {
              let f: RecordedFrame;
              try {
                f = reader.frame(j);
              } catch (e) {
                checkError(e, path, where);
                continue;
              }
              d.add(f);
            }
            for (const x of d.findings) assert.ok(Number.isFinite(x.joules), `${where}: a ${x.mechanism} finding of ${x.joules} J`);
          } finally {
            reader.close();
          }
          if (i % MODEL_EVERY === 0) await checkModel(path);
        },
      };
    };
  },
};

export const FUZZ_TARGETS: readonly FuzzTarget[] = [scene, problem, recording, gzip, hdf5, format11];
