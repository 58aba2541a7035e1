/**
 * The writer libraries (writers/cpp, writers/rust, writers/python, writers/typescript; docs/recording-format.md "Writer libraries"):
 * each example is built and run into a temporary directory, its recording is opened with our reader (the
 * judge) and diagnosed; a NaN is refused by each writer with a message naming the field. A missing toolchain
 * fails the test (CI has g++, cargo and python3), it is never skipped.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecordingReader } from '../../src/format/recordingFile.js';
import type { RecordedFrame } from '../../src/format/recording.js';
import { main } from '../../src/cli/main.js';

const ROOT = path.resolve(__dirname, '../..');
const WRITERS = path.join(ROOT, 'writers');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-writers-'));
// cargo's build output stays outside the repository (kept between runs so rebuilds are incremental)
const CARGO_TARGET_DIR = path.join(os.tmpdir(), 'contact-lens-writers-cargo-target');
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** What the examples simulate (writers/*: DT = 1/120, 240 frames, a 1 kg ball of radius 0.1). */
const DT = 1 / 120;
const FRAMES = 240;
const BALL_INERTIA = 0.4 * 1 * 0.1 * 0.1; // 0.004000000000000001: not a short decimal, so a rounded writer shows

/** Runs a program; a missing toolchain is a failure with a clear message, never a skip. */
function run(cmd: string, args: readonly string[], what: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, timeout: 300_000 });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    assert.fail(`${cmd} is not installed or not on PATH: it is needed to test ${what} (CI provides g++, cargo and python3)`);
  }
  if (r.error) throw r.error;
  return r;
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} exited with ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const cargoEnv = { CARGO_TARGET_DIR };

interface Writer {
  readonly name: string;
  /** Writes the example recording to `out` (extra: e.g. --force) and returns the process. */
  readonly example: (out: string, extra?: string[]) => SpawnSyncReturns<string>;
  /** Runs a small program that writes one frame, then a frame whose λ[1] is NaN; prints the error. */
  readonly nan: (out: string) => SpawnSyncReturns<string>;
  /** How the writer names the refused field (default: by frame, "frame 1: solver.lambda[1]: is nan"). */
  readonly nanMessage?: RegExp;
}

let cppBinary: string | undefined;
const writers: Writer[] = [
  {
    name: 'C++',
    example: (out, extra = []) => {
      if (!cppBinary) {
        cppBinary = path.join(tmp, 'drop-cpp');
        ok(
          run(
            'g++',
            ['-std=c++17', '-O2', '-Wall', '-Wextra', '-pedantic', '-Werror', '-ffp-contract=off', path.join(WRITERS, 'cpp/example.cpp'), '-o', cppBinary],
            'the C++ writer',
          ),
          'g++ example.cpp',
        );
      }
      return run(cppBinary, [out, ...extra], 'the C++ writer');
    },
    nan: (out) => {
      const src = path.join(tmp, 'nan.cpp');
      fs.writeFileSync(
        src,
        `#include "contact_lens_recorder.hpp"
#include <iostream>
#include <limits>
namespace cl = contact_lens;
int main(int, char** argv) {
  cl::Header h; h.dt = 0.01; h.bodies = {cl::Body::plane("ground", {0, 0, 1}, 0), cl::Body::sphere("ball", 0.1, 1)};
  cl::Recorder rec = cl::Recorder::create(argv[1], h);
  cl::Frame f; f.frame = 0; f.time = 0.01; f.bodies = {cl::BodyState{}, cl::BodyState{}}; f.solver.name = "pgs";
  rec.writeFrame(f);
  cl::Contact c; c.a = 1; c.b = 0;
  f.frame = 1; f.time = 0.02; f.contacts = {c}; f.solver.lambda = {1.0, std::numeric_limits<double>::quiet_NaN(), 0.0};
  try { rec.writeFrame(f); } catch (const cl::RecordingError& e) { std::cout << e.what() << "\\n"; return 3; }
  return 0;
}
`,
      );
      const bin = path.join(tmp, 'nan-cpp');
      ok(run('g++', ['-std=c++17', '-Wall', '-Wextra', '-Werror', `-I${path.join(WRITERS, 'cpp')}`, src, '-o', bin], 'the C++ writer'), 'g++ nan.cpp');
      return run(bin, [out], 'the C++ writer');
    },
  },
  {
    name: 'Rust',
    example: (out, extra = []) =>
      run('cargo', ['run', '--offline', '--quiet', '--example', 'drop', '--', out, ...extra], 'the Rust writer', {
        cwd: path.join(WRITERS, 'rust'),
        env: cargoEnv,
      }),
    nan: (out) => {
      const crate = path.join(tmp, 'nan-rust');
      fs.mkdirSync(path.join(crate, 'src'), { recursive: true });
      fs.writeFileSync(
        path.join(crate, 'Cargo.toml'),
        `[package]
name = "nan-check"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
contact-lens-recorder = { path = ${JSON.stringify(path.join(WRITERS, 'rust'))} }
`,
      );
      fs.writeFileSync(
        path.join(crate, 'src/main.rs'),
        `use contact_lens_recorder::*;
fn main() {
    let out = std::env::args().nth(1).unwrap();
    let h = Header { producer_name: "nan-check".into(), producer_version: String::new(), dt: 0.01, gravity: [0.0, 0.0, -9.81],
        bodies: vec![Body::plane("ground", [0.0, 0.0, 1.0], 0.0), Body::sphere("ball", 0.1, 1.0)], solver_name: String::new(), solver_params: vec![], solver_kind: String::new() };
    let mut rec = Recorder::create(&out, &h, false).unwrap();
    let solver = |lambda: Vec<f64>| SolverResult { name: "pgs".into(), status: Status::Converged, reason: None, iterations: None, residuals: vec![], lambda };
    let mut f = Frame { frame: 0, time: 0.01, bodies: vec![BodyState::default(); 2], pre: vec![], contacts: vec![], solver: solver(vec![]),
        a_matrix: vec![], b_vector: vec![], energy: vec![] };
    rec.write_frame(&f).unwrap();
    f.frame = 1; f.time = 0.02;
    f.contacts = vec![Contact { a: 1, b: Some(0), point: [0.0; 3], normal: [0.0, 0.0, 1.0], t1: [1.0, 0.0, 0.0], t2: [0.0, 1.0, 0.0], depth: 0.0, mu: 0.5, e: 0.0, feature: None }];
    f.solver = solver(vec![1.0, f64::NAN, 0.0]);
    match rec.write_frame(&f) { Err(e) => { println!("{e}"); std::process::exit(3) } Ok(()) => {} }
}
`,
      );
      return run('cargo', ['run', '--offline', '--quiet', '--', out], 'the Rust writer', { cwd: crate, env: cargoEnv });
    },
  },
  {
    name: 'Python',
    example: (out, extra = []) => run('python3', [path.join(WRITERS, 'python/example_drop.py'), out, ...extra], 'the Python writer'),
    nan: (out) =>
      run(
        'python3',
        [
          '-c',
          `
import sys
sys.path.insert(0, ${JSON.stringify(path.join(WRITERS, 'python'))})
import contact_lens_recorder as cl
rec = cl.Recorder.create(sys.argv[1], dt=0.01, gravity=(0, 0, -9.81), bodies=[cl.plane("ground", (0, 0, 1), 0), cl.sphere("ball", 0.1, 1)])
still = [cl.body_state((0, 0, 0), (1, 0, 0, 0), (0, 0, 0), (0, 0, 0))] * 2
rec.write_frame(frame=0, time=0.01, bodies=still, contacts=[], solver=cl.solver_result("pgs", "converged", []))
c = cl.contact(1, 0, (0, 0, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), 0.0, 0.5, 0.0)
try:
    rec.write_frame(frame=1, time=0.02, bodies=still, contacts=[c], solver=cl.solver_result("pgs", "converged", [1.0, float("nan"), 0.0]))
except cl.RecordingError as e:
    print(e)
    sys.exit(3)
`,
          out,
        ],
        'the Python writer',
      ),
  },
  {
    name: 'TypeScript',
    example: (out, extra = []) =>
      run(process.execPath, ['--import', 'tsx', path.join(WRITERS, 'typescript/example-drop.ts'), out, ...extra], 'the TypeScript writer'),
    nan: (out) => {
      const script = path.join(tmp, 'nan-check.ts');
      fs.writeFileSync(
        script,
        `import { RecordingWriter, FormatError } from ${JSON.stringify(path.join(WRITERS, 'typescript/index.ts'))};
const still = { x: [0, 0, 0] as const, q: [1, 0, 0, 0] as const, v: [0, 0, 0] as const, w: [0, 0, 0] as const };
const rec = RecordingWriter.create(process.argv[2], {
  format: 'contact-lens-recording', version: 1, producer: { name: 'nan-check' }, units: 'SI',
  conventions: { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' }, dt: 0.01, gravity: [0, 0, -9.81],
  bodies: [
    { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, mass: null, inertia: null, static: true },
    { name: 'ball', shape: { sphere: { radius: 0.1 } }, mass: 1, inertia: [0.004, 0.004, 0.004], static: false },
  ],
});
rec.writeFrame({ frame: 0, time: 0.01, bodies: [still, still], contacts: [], solver: { name: 'pgs', status: 'converged', lambda: [] } });
const c = { a: 1, b: 0, point: [0, 0, 0] as const, normal: [0, 0, 1] as const, t1: [1, 0, 0] as const, t2: [0, 1, 0] as const, depth: 0, mu: 0.5, e: 0 };
try {
  rec.writeFrame({ frame: 1, time: 0.02, bodies: [still, still], contacts: [c], solver: { name: 'pgs', status: 'converged', lambda: [1, Number.NaN, 0] } });
} catch (e) {
  if (!(e instanceof FormatError)) throw e;
  console.log(e.message);
  rec.close();
  process.exit(3);
}
`,
      );
      return run(process.execPath, ['--import', 'tsx', script, out], 'the TypeScript writer');
    },
    // the TypeScript writer validates like the reader: it names the line the frame would have been on (frame 1 is line 3)
    nanMessage: /line 3: solver\.lambda\[1\]: .*nan/i,
  },
];

/** The 64 bits of a double, as an unsigned integer (what the examples print for their last height). */
function bits(x: number): bigint {
  const b = new DataView(new ArrayBuffer(8));
  b.setFloat64(0, x, true);
  return b.getBigUint64(0, true);
}

function cli(args: string[]): { code: number; out: string[]; err: string[] } {
  const out: string[] = [],
    err: string[] = [];
  const code = main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  // diagnose on a JSON Lines recording answers synchronously (only HDF5 input makes main asynchronous)
  if (typeof code !== 'number') throw new Error('diagnose answered asynchronously');
  return { code, out, err };
}

describe('writer libraries: C++, Rust, Python and TypeScript examples round-trip through our reader and diagnose cleanly', function () {
  this.timeout(600_000); // the first cargo build and g++ take a while on a shared machine

  const frames = new Map<string, RecordedFrame[]>();

  for (const w of writers) {
    it(`${w.name}: the drop example's recording opens with 0 skipped lines and 0 warnings, ${FRAMES} frames, bit-exact doubles; it is not overwritten`, () => {
      const file = path.join(tmp, `drop-${w.name}.rec.jsonl`);
      const stdout = ok(w.example(file), `${w.name} example`);
      const printed = /last z bits (\d+)/.exec(stdout);
      assert.ok(printed, `the example prints the bits of its last height: ${stdout}`);

      const r = RecordingReader.openSync(file);
      try {
        assert.equal(r.errorCount, 0, r.errors.map((e) => e.message).join('\n'));
        assert.deepEqual(r.warnings, []);
        assert.equal(r.frameCount, FRAMES);
        assert.ok(Object.is(r.header.dt, DT), `dt read back as ${r.header.dt}`);
        assert.ok(Object.is(r.header.bodies[1].inertia?.[0], BALL_INERTIA), `inertia read back as ${r.header.bodies[1].inertia?.[0]}`);
        const all = Array.from({ length: r.frameCount }, (_, i) => r.frame(i));
        const last = all[FRAMES - 1];
        assert.equal(bits(last.bodies[1].x[2]), BigInt(printed[1]), 'the last height is read back bit for bit');
        const bounces = all.filter((f) => f.contacts.length > 0);
        assert.ok(
          bounces.length > 0 && bounces.every((f) => f.pre && f.solver.lambda.length === 3 && f.solver.lambda[0] > 0),
          'contact frames carry pre and a positive λn',
        );
        frames.set(w.name, all);
      } finally {
        r.close();
      }

      const before = fs.readFileSync(file);
      const again = w.example(file);
      assert.notEqual(again.status, 0, `${w.name}: writing over an existing recording must fail`);
      assert.match(again.stderr, /already exists/);
      assert.ok(fs.readFileSync(file).equals(before), `${w.name}: the existing recording is unchanged`);
      ok(w.example(file, ['--force']), `${w.name} example --force`);
      const forced = RecordingReader.openSync(file);
      assert.equal(forced.frameCount, FRAMES);
      forced.close();
    });

    it(`${w.name}: diagnose --json finds nothing of error severity in the physically correct bounce (e = 0.5)`, () => {
      const file = path.join(tmp, `drop-${w.name}.rec.jsonl`);
      if (!fs.existsSync(file)) ok(w.example(file), `${w.name} example`);
      const r = cli(['diagnose', file, '--json']);
      assert.equal(r.code, 0, r.err.join('\n'));
      assert.deepEqual(r.err, [], 'no reader warnings or skipped lines on stderr');
      const findings = r.out.map((l) => JSON.parse(l) as { severity: string; mechanism: string; frame: number });
      const errors = findings.filter((f) => f.severity === 'error');
      assert.deepEqual(errors, [], JSON.stringify(errors));
      const text = cli(['diagnose', file]);
      assert.match(text.out[0], new RegExp(`: ${FRAMES} frames, `));
    });

    it(`${w.name}: a NaN λ is refused with a message naming the field, and the recording stays valid`, () => {
      const file = path.join(tmp, `nan-${w.name}.rec.jsonl`);
      const r = w.nan(file);
      assert.equal(r.status, 3, `the NaN must be refused (exit 3):\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, w.nanMessage ?? /frame 1: solver\.lambda\[1\]: is nan/i);
      const rec = RecordingReader.openSync(file);
      try {
        assert.equal(rec.errorCount, 0);
        assert.equal(rec.frameCount, 1, 'the frame before the NaN is in the file, the refused one is not');
      } finally {
        rec.close();
      }
    });
  }

  it('the four writers produce the same frames, number for number (same physics, shortest round-trip doubles)', () => {
    const all = writers.map((w) => {
      if (frames.has(w.name)) return frames.get(w.name)!;
      const file = path.join(tmp, `same-${w.name}.rec.jsonl`);
      ok(w.example(file), `${w.name} example`);
      const r = RecordingReader.openSync(file);
      try {
        return Array.from({ length: r.frameCount }, (_, i) => r.frame(i));
      } finally {
        r.close();
      }
    });
    const [first, ...rest] = all;
    assert.equal(first.length, FRAMES);
    for (const other of rest) assert.deepEqual(other, first);
  });
});
