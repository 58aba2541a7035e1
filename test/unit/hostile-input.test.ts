/**
 * Hostile input (never lie, never crash, never stall): one regression test per class of defects that a fuzz
 * campaign found; each failed before its fix.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { kkt } from '../../src/engine/kkt.js';
import { makeProblem, type ContactProblem } from '../../src/engine/problem.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { SOLVER_NAMES } from '../../src/engine/solvers/types.js';
import { MAX_SOLVER_ITERATIONS } from '../../src/engine/solvers/limits.js';
import { assembleOraclePhysical, parseOracleInstance } from '../../src/format/oracle.js';
import { FormatError, safeText, suggest } from '../../src/format/messages.js';
import { parseJsonLine } from '../../src/format/recording.js';
import { RecordingReader, RecordingWriter } from '../../src/format/recordingFile.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { FileError, withFileErrors } from '../../src/cli/output.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import { validateHostMessage, validateWebviewMessage, ProtocolError } from '../../src/protocol/validate.js';
import { MAX_SOLVER_ITERATIONS as PROTOCOL_MAX_ITERATIONS, PROTOCOL_VERSION } from '../../src/protocol/inspector.js';
import { restorablePanel } from '../../src/extension/restoredState.js';
import { runCli as run, runCliAsync as runAsync } from '../cliRun.js';

const ROOT = resolve(__dirname, '..', '..');
const EXAMPLE_PROBLEM = join(ROOT, 'examples', 'problems', 'two-box-stack.json');
const FOREIGN = join(ROOT, 'examples', 'foreign-engine.rec.jsonl');
const CLI = join(ROOT, 'dist', 'cli.js');

const tmp = (): string => mkdtempSync(join(tmpdir(), 'contact-lens-hostile-'));
function withFile(name: string, text: string): string {
  const f = join(tmp(), name);
  writeFileSync(f, text);
  return f;
}

/** One line, no control characters (no ANSI escapes, no newline). */
const isOneSafeLine = (s: string): boolean => !/[\u0000-\u001f\u007f-\u009f]/.test(s);
const problemJson = (): Record<string, unknown> => JSON.parse(readFileSync(EXAMPLE_PROBLEM, 'utf8')) as Record<string, unknown>;

describe('hostile input: a status never says "converged" on non-finite data', () => {
  it('the KKT residual of λ = [NaN, NaN, NaN] is +∞ (it was 0)', () => {
    const p = makeProblem({ A: [2, 0, 0, 0, 2, 0, 0, 0, 2], b: [1, 0, 0], mu: [0.5] });
    const r = kkt(p, [NaN, NaN, NaN]);
    assert.equal(r.maxRel, Infinity);
    assert.equal(r.worstContact, 0);
    assert.equal(kkt(p, [0.5, 0, 0]).maxRel, 0, 'the exact solution still has residual 0');
  });

  it('b = 1e300: no solver reports converged (the objective overflows to −∞); the status says why', () => {
    const p = makeProblem({ A: [2, 0, 0, 0, 2, 0, 0, 0, 2], b: [1e300, 0, 0], mu: [0.5] });
    for (const s of SOLVER_NAMES) {
      const r = solve(p, { solver: s });
      assert.equal(r.status.kind, 'failed', s);
      if (!Number.isFinite(r.objective)) assert.match(r.status.kind === 'failed' ? r.status.reason : '', /not finite/, s);
    }
  });

  it('an A holding ±∞ (as the physical path could assemble): every solver result fails, none converges', () => {
    const A = new Float64Array([Infinity, 0, 0, 0, 1, 0, 0, 0, 1]);
    const p: ContactProblem = { contactCount: 1, size: 3, A, b: new Float64Array([1, 0, 0]), mu: new Float64Array([0.5]), regularization: 0 };
    for (const s of SOLVER_NAMES) {
      const r = solve(p, { solver: s });
      assert.notEqual(r.status.kind, 'converged', s);
      assert.ok(!(r.kkt.maxRel <= 1e-6) || Number.isFinite(r.objective), `${s}: a small residual needs finite data`);
    }
  });

  it('physical data that assemble to an A with ±∞ are bad input naming the field (the matrix path’s checks apply)', () => {
    const doc = problemJson();
    const ph = doc.physical as { bodies: { inv_mass: number; inv_inertia_world: number[] }[] };
    ph.bodies[1].inv_mass = 1.7e308;
    ph.bodies[1].inv_inertia_world = [1.7e308, 0, 0, 0, 1.7e308, 0, 0, 0, 1.7e308];
    const inst = parseOracleInstance(JSON.stringify(doc), 'blown.json');
    assert.throws(
      () => assembleOraclePhysical(inst),
      (e: FormatError) => e instanceof FormatError && /^blown\.json: physical\.(A|b)/.test(e.message),
    );
    const r = run(['solve', withFile('blown.json', JSON.stringify(doc)), '--from', 'physical']);
    assert.equal(r.code, 2);
    assert.equal(r.out.length, 0);
  });
});

describe('hostile input: one bad line does not lose the recording', () => {
  const nested = (depth: number): string => `${'['.repeat(depth)}NaN${']'.repeat(depth)}`;

  it('NaN inside 5000 nested arrays is a FormatError naming the line, not a stack overflow', () => {
    const line = `{"frame": 3, "x": ${nested(5000)}}`;
    assert.throws(
      () => parseJsonLine(line, 'deep.rec.jsonl', 'line 4: '),
      (e: Error) => e instanceof FormatError && e.message.startsWith('deep.rec.jsonl: line 4: '),
    );
  });

  it('the valid frames around such a line are kept; report exits 0 and counts one skipped line', () => {
    const lines = readFileSync(FOREIGN, 'utf8').trimEnd().split('\n');
    const bad = `{"frame": 2.5, "time": 0.04, "bodies": ${nested(5000)}}`;
    const f = withFile('deep.rec.jsonl', [...lines.slice(0, 3), bad, ...lines.slice(3)].join('\n') + '\n');
    const reader = RecordingReader.openSync(f);
    try {
      assert.equal(reader.frameCount, lines.length - 1);
      assert.equal(reader.errorCount, 1);
    } finally {
      reader.close();
    }
    const r = run(['report', f, '--json']);
    assert.equal(r.code, 0);
    assert.equal(JSON.parse(r.out[0]).frames, lines.length - 1);
  });
});

describe('hostile input: values whose toString is not callable', () => {
  it('the problem reader describes them without calling them (no TypeError, no "[object Object]")', () => {
    for (const [field, value] of [
      ['mu', { toString: 1 }],
      ['b', { valueOf: null, toString: null }],
      ['A', { constructor: 1 }],
    ] as const) {
      const doc = { ...problemJson(), [field]: value };
      assert.throws(
        () => parseOracleInstance(JSON.stringify(doc), 'p.json'),
        (e: Error) => {
          assert.ok(e instanceof FormatError, `${field}: ${e.name}`);
          assert.match(e.message, new RegExp(`^p\\.json: ${field}: expected .*, got an object$`));
          return true;
        },
      );
    }
    const doc = problemJson();
    (doc.solution as Record<string, unknown>) = { ...((doc.solution as object) ?? {}), contacts: [{ class: { toString: 1 } }] };
    assert.throws(() => parseOracleInstance(JSON.stringify(doc), 'p.json'), FormatError);
  });
});

describe('hostile input: write errors, closed pipes and endless inputs', () => {
  const scene = join(ROOT, 'examples', 'resting-box.scene.json');

  it('simulate --out into a missing folder or onto a folder: one line naming the path, exit 2', async () => {
    const dir = tmp();
    for (const out of [join(dir, 'missing', 'x.rec.jsonl'), dir]) {
      const r = await runAsync(['simulate', scene, '--scenario', 'resting-box', '--frames', '2', '--out', out, '--force']);
      assert.equal(r.code, 2, out);
      assert.equal(r.err.length, 1);
      assert.ok(r.err[0].includes(out) && /cannot write the file/.test(r.err[0]), r.err[0]);
    }
  });

  it('a full disk (ENOSPC on /dev/full) becomes a FileError that names the file', function () {
    if (!existsSync('/dev/full')) this.skip();
    const header = RecordingReader.openSync(FOREIGN);
    try {
      assert.throws(
        () => withFileErrors('/dev/full', 'write', () => RecordingWriter.create('/dev/full', header.header, { force: true })),
        (e: Error) => e instanceof FileError && e.exitCode === 2 && /^\/dev\/full: cannot write the file \(no space left on the device\)$/.test(e.message),
      );
    } finally {
      header.close();
    }
  });

  it('a FIFO or /dev/zero as input is refused at once (it used to hang and grow without bound)', function () {
    if (process.platform === 'win32') this.skip();
    const dir = tmp();
    const fifo = join(dir, 'p.json');
    execFileSync('mkfifo', [fifo]);
    for (const args of [
      ['solve', fifo],
      ['check', fifo],
      ['report', fifo],
      ['report', '/dev/zero'],
      ['solve', '/dev/zero'],
    ]) {
      const t0 = performance.now();
      const r = run(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err[0], /not a regular file/);
      assert.ok(performance.now() - t0 < 1000);
    }
  });

  it('report … | head -1: a reader that has gone away ends the output quietly (no EPIPE stack trace)', async function () {
    if (!existsSync(CLI)) this.skip();
    const closedEarly = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn(process.execPath, [CLI, ...args]);
        child.stdout.destroy(); // as `head` does: every write of the CLI meets a closed pipe (EPIPE)
        let stderr = '';
        child.stderr.on('data', (d) => {
          stderr += String(d);
        });
        child.on('close', (code) => done({ code, stderr }));
      });
    for (const args of [
      ['report', FOREIGN],
      ['solve', EXAMPLE_PROBLEM],
    ]) {
      const r = await closedEarly(args);
      assert.doesNotMatch(r.stderr, /EPIPE|Error|\n\s+at /, args.join(' '));
      assert.equal(r.code, 0, args.join(' '));
    }
    const bad = spawnSync(process.execPath, [CLI, 'solve', '/dev/zero'], { encoding: 'utf8', timeout: 5000 });
    assert.equal(bad.status, 2);
  });
});

describe('hostile input: "did you mean" is bounded', () => {
  it('a scene with long unknown names parses (and fails) in well under a second', () => {
    const long = (c: string): string => c.repeat(30_000);
    const text = JSON.stringify({
      scenarios: [
        {
          name: 's',
          frames: 1,
          materials: [{ name: long('a'), friction: 0.5, restitution: 0 }],
          bodies: [{ name: 'b', shape: { sphere: { radius: 1 } }, mass: 1, position: [0, 0, 1], material: long('b') }],
        },
      ],
    });
    const t0 = performance.now();
    assert.throws(() => parseSceneFile(text, 'long.scene.json'), /unknown material/);
    assert.ok(performance.now() - t0 < 1000, `${(performance.now() - t0).toFixed(0)} ms`);
    const t1 = performance.now();
    assert.equal(suggest('x'.repeat(1_000_000), ['y'.repeat(1_000_000)]), undefined);
    assert.ok(performance.now() - t1 < 100);
    assert.equal(suggest('frictoin', ['friction', 'restitution']), 'friction', 'short typos are still suggested');
  });
});

describe('hostile input: messages never echo raw input', () => {
  it('an unknown key with ANSI escapes and a newline is shown escaped, on one line', () => {
    const key = '\u001b[2J\u001b[H✓ all scenarios passed\nreally';
    const text = JSON.stringify({ scenarios: [{ name: 's', frames: 1, bodies: [], [key]: 1 }] });
    assert.throws(
      () => parseSceneFile(text, 'evil.scene.json'),
      (e: Error) => {
        assert.ok(isOneSafeLine(e.message), JSON.stringify(e.message));
        assert.match(e.message, /\\u001b\[2J/);
        return true;
      },
    );
  });

  it('a scenario or body name with control characters is refused (names are printed by check, simulate and the Test Explorer)', () => {
    const text = JSON.stringify({ scenarios: [{ name: '\u001b[2J✓ passed', frames: 1, bodies: [] }] });
    assert.throws(
      () => parseSceneFile(text, 'n.scene.json'),
      (e: Error) => /scenarios\[0\]\.name: .*control characters/.test(e.message) && isOneSafeLine(e.message),
    );
  });

  it('a multi-megabyte key gives a message of bounded length', () => {
    const text = `{"scenarios": [{"name": "s", "frames": 1, "bodies": [], "${'k'.repeat(2_000_000)}": 1}]}`;
    assert.throws(
      () => parseSceneFile(text, 'big.scene.json'),
      (e: Error) => e.message.length < 2000 && /scenarios\[0\]\./.test(e.message),
    );
  });

  it('recording and problem messages are made safe the same way', () => {
    assert.throws(
      () => parseOracleInstance(JSON.stringify({ ...problemJson(), mu: '\u001b[31mred\nline' }), 'p.json'),
      (e: Error) => isOneSafeLine(e.message),
    );
    assert.throws(
      () => parseJsonLine(`{"frame": ${'['.repeat(3)}`, 'r\u001b.jsonl', 'line 2: '),
      (e: Error) => isOneSafeLine(e.message),
    );
    assert.equal(safeText('a\u0007b\u202ec'), 'a\\u0007b\\u202ec');
  });

  it('a recording whose producer or body name holds ANSI escapes is read, and report prints them escaped', () => {
    const text = readFileSync(FOREIGN, 'utf8').replace('"acme-physics"', '"\\u001b[2J\\u001b[Hacme\\nOK"').replace('"crate"', '"cr\\u001bate"');
    const f = withFile('ansi.rec.jsonl', text);
    const reader = RecordingReader.openSync(f);
    try {
      assert.equal(reader.header.producer.name, '\\u001b[2J\\u001b[Hacme\\nOK');
      assert.equal(reader.header.bodies[1].name, 'cr\\u001bate');
      assert.ok(reader.warnings.some((w) => /producer\.name: contains control characters/.test(w)));
    } finally {
      reader.close();
    }
    const r = run(['report', f]);
    assert.equal(r.code, 0);
    for (const line of r.out) assert.ok(isOneSafeLine(line), JSON.stringify(line));
  });
});

describe('hostile input: data the format allows never breaks the extension', () => {
  const lines = (): string[] => readFileSync(FOREIGN, 'utf8').trimEnd().split('\n');

  it('energy keys "constructor"/"toString" and an object-valued header solver parameter: the model opens, every frame view works', async () => {
    const [h, ...frames] = lines();
    const header = JSON.parse(h);
    header.solver.restVelocityThreshold = { toString: 1 };
    const out = [
      JSON.stringify(header),
      ...frames.map((l) => {
        const f = JSON.parse(l);
        f.energy = { ...f.energy, constructor: 1, toString: 2 };
        return JSON.stringify(f);
      }),
    ];
    const model = await InspectorModel.fromRecording(withFile('odd.rec.jsonl', out.join('\n') + '\n'));
    assert.equal(model.info.frameCount, frames.length);
    assert.deepEqual(
      model.timeline.ledger.constructor,
      frames.map(() => 1),
    );
    for (let i = 0; i < frames.length; i++) assert.doesNotThrow(() => model.frameView(i), `frame ${i}`);
  });

  it('a blown-up run (ω = 1e300) opens; its non-finite values cross the protocol as data (NaN → null in JSON)', async () => {
    const [h, ...frames] = lines();
    const out = [
      h,
      ...frames.map((l, i) => {
        const f = JSON.parse(l);
        if (i >= 3) f.bodies[1].w = [1e300, 0, 0];
        return JSON.stringify(f);
      }),
    ];
    const model = await InspectorModel.fromRecording(withFile('blown.rec.jsonl', out.join('\n') + '\n'));
    const init = {
      type: 'init',
      version: PROTOCOL_VERSION,
      source: { kind: 'recording', file: 'blown.rec.jsonl' },
      info: model.info,
      timeline: model.timeline,
      findings: [...model.findings, { index: 4, frame: 4, time: 0, contacts: [], mechanism: 'integrator', joules: NaN, explanation: '' }],
      settings: { playbackFps: 30 },
      index: 0,
    };
    assert.doesNotThrow(() => validateHostMessage(init));
    assert.doesNotThrow(() => validateHostMessage(JSON.parse(JSON.stringify(init))), 'after the JSON of postMessage');
    for (let i = 0; i < frames.length; i++) {
      const view = model.frameView(i);
      for (const lambdaN of [NaN, Infinity, null]) {
        // null: what JSON makes of NaN and ±∞
        assert.doesNotThrow(() =>
          validateHostMessage({ type: 'frame', requestId: 1, view: { ...view, contacts: view.contacts.map((c) => ({ ...c, lambdaN })) } }),
        );
      }
    }
  });
});

describe('hostile input: values the engine cannot take are bad input', () => {
  it('maxIterations 1e10 is refused by the scene parser, the what-if message and solve() with a message, not a RangeError from an allocation', () => {
    const text = JSON.stringify({ scenarios: [{ name: 's', frames: 1, solver: { name: 'pgs', maxIterations: 1e10 }, bodies: [] }] });
    assert.throws(
      () => parseSceneFile(text, 'it.scene.json'),
      (e: Error) => e instanceof FormatError && /scenarios\[0\]\.solver\.maxIterations/.test(e.message) && /≤ 1000000/.test(e.message),
    );
    assert.throws(
      () => validateWebviewMessage({ type: 'whatIf', requestId: 1, index: 0, options: { solver: 'pgs', maxIterations: 1e10 } }),
      (e: Error) => e instanceof ProtocolError && e.field === 'options.maxIterations',
    );
    const p = makeProblem({ A: [1, 0, 0, 0, 1, 0, 0, 0, 1], b: [1, 0, 0], mu: [0.5] });
    assert.throws(() => solve(p, { solver: 'pgs', maxIterations: 1e10 }), /maxIterations must be an integer from 1 to 1000000/);
    assert.equal(PROTOCOL_MAX_ITERATIONS, MAX_SOLVER_ITERATIONS);
  });

  it('frames 1e10 (scene or --frames) is refused up front instead of failing to allocate per-frame arrays', async () => {
    const text = JSON.stringify({ scenarios: [{ name: 's', frames: 1e10, bodies: [] }] });
    assert.throws(
      () => parseSceneFile(text, 'f.scene.json'),
      (e: Error) => e instanceof FormatError && /scenarios\[0\]\.frames: .*≤ 1000000/.test(e.message),
    );
    const r = await runAsync([
      'simulate',
      join(ROOT, 'examples', 'resting-box.scene.json'),
      '--scenario',
      'resting-box',
      '--frames',
      '1e10',
      '--out',
      join(tmp(), 'x.rec.jsonl'),
    ]);
    assert.equal(r.code, 2);
    assert.match(r.err[0], /--frames must be an integer from 1 to 1000000/);
  });

  it('an indefinite A, or a negative inverse inertia, is bad input (exit 2) naming the field', () => {
    const indefinite = { A: [1, 2, 0, 2, 1, 0, 0, 0, 1], b: [1, 0, 0], mu: [0.5] };
    const r = run(['solve', withFile('indef.json', JSON.stringify(indefinite))]);
    assert.equal(r.code, 2);
    assert.match(r.err[0], /indef\.json: A: is not positive semidefinite/);
    const doc = problemJson();
    const ph = doc.physical as { bodies: { inv_inertia_world: number[] }[] };
    ph.bodies[1].inv_inertia_world = [-1, 0, 0, 0, 1, 0, 0, 0, 1];
    const r2 = run(['solve', withFile('neg.json', JSON.stringify(doc)), '--from', 'physical']);
    assert.equal(r2.code, 2);
    assert.match(r2.err[0], /neg\.json: physical\.bodies\[1\]\.inv_inertia_world: is not positive semidefinite/);
  });

  it('a problem file with a byte-order mark is read, as scenes and recordings are', () => {
    const r = run(['solve', withFile('bom.json', '\ufeff' + readFileSync(EXAMPLE_PROBLEM, 'utf8')), '--solver', 'newton']);
    assert.equal(r.code, 0, r.err.join('\n'));
  });
});

describe('hostile input: workspace trust', () => {
  it('package.json declares capabilities: untrusted workspaces limited, virtual workspaces stated', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    assert.equal(pkg.capabilities?.untrustedWorkspaces?.supported, 'limited');
    assert.ok(String(pkg.capabilities.untrustedWorkspaces.description).length > 20);
    assert.ok(['limited', false, true].includes(pkg.capabilities?.virtualWorkspaces?.supported));
  });

  it('a restored panel only reopens a scene file inside a workspace folder of a trusted workspace', () => {
    const folder = resolve(tmpdir(), 'ws');
    const state = (file: string) => ({ source: { kind: 'scenario', file, scenario: 's' }, index: 3, selectedContacts: [] });
    assert.deepEqual(restorablePanel(state(join(folder, 'a.scene.json')), [folder], true), {
      source: { kind: 'scenario', file: join(folder, 'a.scene.json'), scenario: 's' },
      index: 3,
    });
    assert.equal(restorablePanel(state(join(folder, 'a.scene.json')), [folder], false), null, 'untrusted');
    assert.equal(restorablePanel(state('/etc/passwd'), [folder], true), null, 'outside, not a scene');
    assert.equal(restorablePanel(state(join(folder, '..', 'b.scene.json')), [folder], true), null, 'escapes the folder');
    assert.equal(restorablePanel(state('relative.scene.json'), [folder], true), null, 'relative path');
    assert.equal(restorablePanel({ source: { kind: 'recording', file: join(folder, 'r.rec.jsonl') } }, [folder], true), null);
    assert.equal(restorablePanel({ source: { kind: 'scenario', file: { toString: 1 }, scenario: 's' } }, [folder], true), null);
  });
});
