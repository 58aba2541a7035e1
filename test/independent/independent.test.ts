// Tests of the independent stepper, its writer, the planted set and the scorer. Run with
//   npx mocha --no-config -n import=tsx --timeout 120000 test/independent/independent.test.ts
// Nothing here imports from src/ or other test folders (the first test checks it).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { box, ground, sphere } from './bodies.js';
import { declare, pgsConverged } from './configs.js';
import { generatePlantedSet, type Manifest } from './generate.js';
import { dropStart, mat } from './kit.js';
import { runScenario } from './runner.js';
import { firstRun, plantedPairs, secondRun } from './pairs.js';
import { type Finding, formatReport, MECHANISMS, scorePlanted } from './score.js';
import { diskMinimiser, projectCone } from './solvers.js';
import { World } from './stepper.js';
import { type Quat, quatMul, type Vec3 } from './vec.js';
import { frameJson, headerJson, recordingText, type WriteOptions } from './writer.js';

const HERE = __dirname;

/** Import specifiers of a TypeScript source that leave test/independent (anything but ./x and node:x). */
function foreignImports(source: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\b[^'"\n]*?\bfrom\s+['"]([^'"]+)['"]/gm,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /\b(?:require|import)\s*\(\s*['"]([^'"]+)['"]/g,
  ];
  const specs = patterns.flatMap((p) => [...source.matchAll(p)].map((m) => m[1]));
  return specs.filter((s) => !s.startsWith('node:') && !(s.startsWith('./') && !s.includes('..')));
}

describe('independent stepper: isolation', () => {
  it('imports nothing from src/ or other test folders', () => {
    // (built from pieces so that this file's own text holds no such import)
    assert.deepEqual(foreignImports(`import { x } from '../../src/engine/pgs.js';\nimport y from 'node:fs';`), ['../../src/engine/pgs.js']);
    assert.deepEqual(foreignImports(`const z = req${''}uire('../unit/helpers');`), ['../unit/helpers']);
    assert.deepEqual(foreignImports(`import './ok.js';\nimport '../peers/x.js';`), ['../peers/x.js']);
    const files = readdirSync(HERE).filter((f) => f.endsWith('.ts'));
    assert.ok(files.length >= 10);
    for (const f of files) assert.deepEqual(foreignImports(readFileSync(join(HERE, f), 'utf8')), [], f);
  });
});

describe('independent stepper: physics', () => {
  it('a converged impact leaves at e·a (Newton) and the overshoot fault at (1 + e)·a', () => {
    const base = pgsConverged({ margin: 0 });
    const k = 20;
    const make = () => new World([ground(mat(0.5, 0.5)), sphere('ball', 0.1, 1, [0, 0, dropStart(0.1, k, 0, base.h, base.gravity[2])], mat(0.5, 0.5))]);
    for (const [mode, factor] of [
      ['law', 0.5],
      ['overshoot', 1.5],
    ] as const) {
      const w = make();
      for (let i = 0; i < k; i++) assert.equal(w.step(base).contacts.length, 0);
      const log = w.step({ ...base, restitution: mode });
      assert.equal(log.contacts.length, 1);
      assert.ok(Math.abs(log.contacts[0].depth) < 1e-12);
      const a = -log.gnPre[0];
      assert.ok(Math.abs(a - 21 * base.h * 9.81) < 1e-9);
      assert.ok(Math.abs(log.gnPost[0] - factor * a) < 1e-9, `${mode}: ${log.gnPost[0]} vs ${factor * a}`);
    }
  });

  it('converged PGS slides a box with friction μ·Σλn against the slip', () => {
    const base = pgsConverged({ margin: 0 });
    const w = new World([ground(mat(0.4)), box('crate', [0.25, 0.2, 0.1], 2, [0, 0, 0.1], mat(0.4), [3, 0, 0])]);
    const log = w.step(base);
    assert.equal(log.solve.status, 'converged');
    const ln = log.contacts.reduce((s, _, i) => s + log.lambda[3 * i], 0);
    const lt1 = log.contacts.reduce((s, _, i) => s + log.lambda[3 * i + 1], 0);
    assert.ok(Math.abs(ln - 2 * base.h * 9.81) < 1e-9, `Σλn ${ln}`);
    assert.ok(Math.abs(lt1 + 0.4 * ln) < 1e-9, `Σλt1 ${lt1}`);
    assert.ok(Math.abs(w.bodies[1].v[0] - (3 - 0.4 * 9.81 * base.h)) < 1e-9);
  });

  it('the convex QP-SOCP model lifts a sliding contact to w_n = μ‖w_t‖ (Anitescu)', () => {
    const base = pgsConverged({ margin: 0, solver: 'socp' });
    const w = new World([ground(mat(0.5)), sphere('ball', 0.15, 2, [0, 0, 0.15], mat(0.5), [3, 0, 0])]);
    const log = w.step(base);
    assert.equal(log.solve.status, 'converged');
    const [ln, lt1, lt2] = log.lambda;
    assert.ok(Math.abs(Math.hypot(lt1, lt2) - 0.5 * ln) < 1e-9, 'on the cone');
    const slip = Math.hypot(w.bodies[1].v[0] - w.bodies[1].w[1] * 0.15, w.bodies[1].v[1] + w.bodies[1].w[0] * 0.15);
    assert.ok(slip > 1, `still sliding (${slip})`);
    assert.ok(Math.abs(log.gnPost[0] - log.tauN[0] - 0.5 * slip) < 1e-8, `lift ${log.gnPost[0]} vs μ‖v_t‖ ${0.5 * slip}`);
  });

  it('a soft contact follows the implicit spring–damper step (h·k·d + ġn⁻)/(1 + h·c + h²·k)', () => {
    const soft = { k: 40000, c: 400 };
    const base = pgsConverged({ margin: 0, soft });
    const d = 0.01;
    const w = new World([ground(mat(0.5)), sphere('ball', 0.1, 2, [0, 0, 0.1 - d], mat(0.5))]);
    const log = w.step(base);
    const h = base.h;
    const expected = (h * soft.k * d + log.gnPre[0]) / (1 + h * soft.c + h * h * soft.k);
    assert.ok(Math.abs(log.gnPost[0] - expected) < 1e-10, `${log.gnPost[0]} vs ${expected}`);
  });

  it('diskMinimiser and projectCone solve their small problems', () => {
    const [a11, a12, a22, c1, c2, r] = [2, 0.7, 1.5, 3, -1, 0.8];
    const y = diskMinimiser(a11, a12, a22, c1, c2, r);
    const q = (u: number, v: number) => 0.5 * (a11 * u * u + 2 * a12 * u * v + a22 * v * v) - c1 * u - c2 * v;
    assert.ok(Math.hypot(y[0], y[1]) <= r * (1 + 1e-12));
    for (let t = 0; t < 720; t++)
      for (const s of [0.25, 0.5, 1]) assert.ok(q(y[0], y[1]) <= q(s * r * Math.cos(t / 114.6), s * r * Math.sin(t / 114.6)) + 1e-12);
    const p = projectCone(0.2, 3, -1, 0.5);
    assert.ok(Math.abs(Math.hypot(p[1], p[2]) - 0.5 * p[0]) < 1e-12);
    assert.deepEqual(projectCone(p[0], p[1], p[2], 0.5), p);
    assert.deepEqual(projectCone(-1, 0.1, 0, 0.5), [0, 0, 0]);
  });
});

describe('independent stepper: writer conventions', () => {
  // the reader's conversions as docs/recording-format.md "Conventions" states them
  const yToZ = (v: number[]): Vec3 => [v[0], -v[2], v[1]];
  const qYToZ = (q: number[]): Quat => quatMul([Math.SQRT1_2, Math.SQRT1_2, 0, 0], [q[3], q[0], q[1], q[2]]);
  const close = (a: number[], b: number[], what: string) => a.forEach((x, i) => assert.ok(Math.abs(x - b[i]) < 1e-12, `${what}[${i}]: ${x} vs ${b[i]}`));

  it('a foreign frame converts back to the stepper state with the documented rules', () => {
    const base = pgsConverged({ margin: 0 });
    const spin = box('spinner', [0.3, 0.15, 0.1], 2, [0, 0, 0.1], mat(0.3), [2, 1, 0]);
    spin.w = [0, 0, 4];
    const r = runScenario({ name: 't', bodies: [ground(mat(0.3)), spin], base, frames: 3, solver: declare(base, 'pgs'), solverName: 'pgs' });
    const f = r.run.frames[2];
    const o: WriteOptions = {
      conventions: { up: 'y', quaternion: 'xyzw', normal: 'a-to-b', impulse: 'force', angularVelocity: 'world' },
      pre: 'pose',
      matrices: true,
      energy: false,
      float32: false,
      initial: false,
    };
    const head = headerJson(r.run, o) as { gravity: number[]; bodies: { shape: { plane?: { normal: number[] } } }[] };
    close(yToZ(head.gravity), [0, 0, -9.81], 'gravity');
    close(yToZ(head.bodies[0].shape.plane?.normal ?? []), [0, 0, 1], 'plane normal');
    const j = frameJson(r.run, f, o) as {
      bodies: { x: number[]; q: number[]; w: number[] }[];
      contacts: { normal: number[]; t1: number[]; t2: number[] }[];
      solver: { lambda: number[] };
      A?: unknown;
    };
    close(yToZ(j.bodies[1].x), f.bodies[1].x, 'x');
    close(qYToZ(j.bodies[1].q), f.bodies[1].q, 'q');
    close(yToZ(j.bodies[1].w), f.bodies[1].w, 'ω');
    const c = f.log.contacts[0];
    close(
      yToZ(j.contacts[0].normal).map((x) => -x),
      c.normal,
      'n (a-to-b)',
    );
    close(
      yToZ(j.contacts[0].t1).map((x) => -x),
      c.t1,
      't1 (a-to-b)',
    );
    close(yToZ(j.contacts[0].t2), c.t2, 't2');
    const l = j.solver.lambda.map((x, i) => x * r.run.dt * (i % 3 === 2 ? -1 : 1));
    close(l, f.log.lambda, 'λ (force, a-to-b)');
    assert.equal(j.A, undefined, 'A is not written with forces');
  });
});

describe('independent stepper: the planted set', function () {
  this.timeout(240000);
  let dir = '';
  let manifest: Manifest = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'indie-'));
    manifest = generatePlantedSet(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has ≥ 40 planted recordings over the 8 mechanisms (≥ 4 variants each) and ≥ 8 clean ones', () => {
    const planted = manifest.filter((m) => !m.clean);
    assert.ok(planted.length >= 40, `${planted.length} planted`);
    assert.ok(manifest.filter((m) => m.clean).length >= 8);
    for (const mech of MECHANISMS) {
      const variants = new Set(planted.flatMap((m) => m.planted.filter((p) => p.mechanism === mech).map((p) => p.variant)));
      assert.ok(variants.size >= 4, `${mech}: ${variants.size} variants`);
    }
  });

  it('each fault injects ≥ 10 mJ at its frame, and no earlier frame (nor any clean frame) gains energy', () => {
    for (const m of manifest) {
      assert.ok(m.maxGainBefore < 1e-9, `${m.file}: a frame before the fault gains ${m.maxGainBefore} J`);
      for (const p of m.planted) assert.ok(p.joules >= 0.01, `${m.file}: ${p.joules} J`);
    }
  });

  it('every file is JSON Lines with the header first, and the planted contacts exist in the planted frame', () => {
    for (const m of manifest) {
      const lines = readFileSync(join(dir, m.file), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(lines[0].format, 'contact-lens-recording');
      const frames = lines.filter((l) => 'frame' in l);
      for (const p of m.planted) {
        const f = frames.find((x) => x.frame === p.frame);
        assert.ok(f, `${m.file}: frame ${p.frame}`);
        for (const c of p.contacts) assert.ok(c >= 0 && c < f.contacts.length, `${m.file}: contact ${c}`);
        if (p.mechanism === 'integrator-drift') assert.equal(f.contacts.length, 0);
        else assert.ok(p.contacts.length > 0, m.file);
      }
    }
  });

  it('is deterministic: a second generation writes the same bytes', () => {
    const again = mkdtempSync(join(tmpdir(), 'indie-'));
    try {
      assert.deepEqual(generatePlantedSet(again), manifest);
      for (const m of manifest) assert.equal(readFileSync(join(again, m.file), 'utf8'), readFileSync(join(dir, m.file), 'utf8'), m.file);
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  });

  it('every clean file passes `report --check` (the CLI as a black box, when built)', function () {
    const cli = resolve(HERE, '../../dist/cli.js');
    if (!existsSync(cli)) this.skip();
    for (const m of manifest.filter((x) => x.clean)) execFileSync(process.execPath, [cli, 'report', '--check', join(dir, m.file)], { stdio: 'pipe' });
  });
});

describe('independent stepper: scorer', () => {
  const manifest: Manifest = [
    {
      file: 'a.rec.jsonl',
      clean: false,
      planted: [{ frame: 5, contacts: [0, 1], mechanism: 'bias-injection', variant: 'v', joules: 0.1 }],
      written: '',
      maxGainBefore: 0,
    },
    {
      file: 'b.rec.jsonl',
      clean: false,
      planted: [{ frame: 3, contacts: [2], mechanism: 'friction-positive-work', variant: 'w', joules: 0.2 }],
      written: '',
      maxGainBefore: 0,
    },
    { file: 'c.rec.jsonl', clean: true, planted: [], written: '', maxGainBefore: 0 },
  ];
  const f = (frame: number, mechanism: string, contacts: number[], joules: number, kind = 'injection'): Finding => ({
    frame,
    kind,
    severity: 'error',
    contacts,
    mechanism,
    joules,
  });

  it('takes the largest injection finding at the planted frame', () => {
    const r = scorePlanted(manifest, {
      'a.rec.jsonl': [f(2, 'bias-injection', [0], 0.5), f(5, 'non-converged-solve', [1], 0.05), f(5, 'bias-injection', [1, 0, 3], 0.09)],
      'b.rec.jsonl': [f(3, 'non-converged-solve', [2], 0.3), f(3, 'friction-positive-work', [2], 0.1)],
      'c.rec.jsonl': [f(7, 'friction-along-slip', [0], 0, 'non-physical')],
    });
    const [a, b] = r.plants;
    assert.deepEqual([a.frame, a.contacts, a.mechanism, a.earlier, a.instead], [true, true, true, 1, null]);
    assert.deepEqual([b.frame, b.contacts, b.mechanism], [true, true, false]);
    assert.equal(b.instead, 'non-converged-solve [2]');
    assert.equal(r.clean[0].findings.length, 1);
    assert.match(formatReport(r), /clean files[\s\S]*frame 7: non-physical friction-along-slip \[0\]/);
  });

  it('says what happened when nothing is found at the frame', () => {
    const r = scorePlanted(manifest, new Map([['b.rec.jsonl', [f(3, 'friction-along-slip', [2], 0, 'non-physical'), f(9, 'integrator-drift', [], 1)]]]));
    assert.deepEqual([r.plants[0].frame, r.plants[0].instead], [false, 'nothing']);
    assert.equal(r.plants[1].instead, 'no injection at k; non-physical friction-along-slip [2]');
    const missing = scorePlanted(manifest, { 'b.rec.jsonl': [f(4, 'bias-injection', [2], 1)] });
    assert.equal(missing.plants[1].instead, 'nothing at k; first injection frame 4: bias-injection [2]');
  });

  it('needs every planted contact in the finding', () => {
    const r = scorePlanted(manifest, { 'a.rec.jsonl': [f(5, 'bias-injection', [0], 0.1)] });
    assert.deepEqual([r.plants[0].frame, r.plants[0].contacts, r.plants[0].mechanism], [true, false, false]);
    assert.equal(r.plants[0].instead, 'bias-injection [0] (misses planted contacts)');
  });
});

describe('independent stepper: planted pairs for diff', () => {
  it('the two runs of a pair are the same line for line before frame k, differ at k, and are equal throughout without a change', () => {
    const pairs = plantedPairs();
    assert.ok(pairs.length >= 12);
    for (const p of pairs) {
      const a = recordingText(runScenario(firstRun(p)).run, p.write).split('\n');
      const b = recordingText(runScenario(secondRun(p)).run, p.write).split('\n');
      assert.equal(a.length, b.length, p.name);
      // line 0 is the header, line 1 + k is frame k
      const firstDiff = a.findIndex((l, i) => l !== b[i]);
      if (p.frame === null) assert.equal(firstDiff, -1, `${p.name}: the runs differ at line ${firstDiff}`);
      else assert.equal(firstDiff, 1 + p.frame, `${p.name}: first differing line`);
    }
  });

  it('noise changes every written real number by at most its relative amplitude, and integers not at all', () => {
    const p = plantedPairs().find((x) => x.name === 'noise-1e-13-stack')!;
    const run = runScenario(firstRun(p)).run;
    const clean = JSON.parse(recordingText(run, p.write).split('\n')[5]);
    const noisy = JSON.parse(recordingText(run, p.writeB!).split('\n')[5]);
    assert.equal(noisy.frame, clean.frame);
    assert.deepEqual(
      noisy.contacts.map((c: { a: number; b: number }) => [c.a, c.b]),
      clean.contacts.map((c: { a: number; b: number }) => [c.a, c.b]),
    );
    let changed = 0;
    noisy.solver.lambda.forEach((x: number, i: number) => {
      const y = clean.solver.lambda[i];
      assert.ok(Math.abs(x - y) <= 1e-13 * Math.abs(y) * (1 + 1e-15), `λ[${i}]`);
      if (x !== y) changed++;
    });
    assert.ok(changed > 0);
  });
});
