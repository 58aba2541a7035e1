/** contact-lens solve: output, JSON keys, and one clear line naming file and field for bad input. */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli as run, runCliAsync as runAsync } from '../cliRun.js';

const ROOT = resolve(__dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'problems', 'two-box-stack.json');

function withFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'contact-lens-'));
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

const example = (): Record<string, unknown> => JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;

describe('CLI: contact-lens solve', () => {
  it('prints a table with every solver, λ per contact and the KKT residuals', () => {
    const r = run(['solve', EXAMPLE]);
    assert.equal(r.code, 0);
    const text = r.out.join('\n');
    for (const s of [
      'pgs',
      'newton',
      'ipm',
      'KKT max_rel',
      'λn',
      'two-box-stack: 8 contacts, 24 unknowns',
      'A: rank 12 of 24 (rank ratio 2)',
      'κ on the range 365 ',
    ])
      assert.ok(text.includes(s), s);
  });

  it('--json prints one object per solver with the documented keys; Newton and IPM agree', () => {
    const r = run(['solve', EXAMPLE, '--json', '--from', 'physical']);
    assert.equal(r.code, 0);
    assert.equal(r.out.length, 4);
    const rows = r.out.map(
      (l) =>
        JSON.parse(l) as { solver: string; lambda: number[]; status: string; iterations: number; objective: number; kkt: { max_rel: number }; timeMs: number },
    );
    for (const row of rows) {
      for (const k of ['solver', 'lambda', 'status', 'iterations', 'objective', 'kkt', 'timeMs']) assert.ok(k in row, k);
      assert.equal(row.lambda.length, 24);
      assert.equal(typeof row.kkt.max_rel, 'number');
    }
    const newton = rows.find((x) => x.solver === 'newton')!,
      ipm = rows.find((x) => x.solver === 'ipm')!;
    assert.equal(newton.status, 'converged');
    // coulomb's status is decided on the Coulomb merit (its λ is not a QP-SOCP KKT point where a contact slides)
    const coulomb = JSON.parse(r.out.find((l) => l.includes('"solver":"coulomb"'))!) as { status: string; merit: { problem: string; value: number } };
    assert.equal(coulomb.status, 'converged');
    assert.equal(coulomb.merit.problem, 'coulomb');
    assert.ok(coulomb.merit.value <= 1e-9, String(coulomb.merit.value));
    assert.ok(Math.abs(newton.objective - ipm.objective) <= 1e-9 * Math.max(1, Math.abs(newton.objective)));
  });

  it('--solver picks one solver', () => {
    const r = run(['solve', EXAMPLE, '--solver', 'newton', '--json']);
    assert.equal(r.out.length, 1);
    assert.equal((JSON.parse(r.out[0]) as { solver: string }).solver, 'newton');
  });

  const bad: [string, () => string[], RegExp][] = [
    ['missing file', () => ['solve', '/nonexistent/p.json'], /\/nonexistent\/p\.json: cannot read the file \(no such file\)/],
    ['malformed JSON', () => ['solve', withFile('bad.json', '{"A": [1, 2,')], /bad\.json: \(json\): malformed JSON/],
    [
      'wrong length of b',
      () => {
        const d = example();
        d.b = (d.b as number[]).slice(1);
        return ['solve', withFile('len.json', JSON.stringify(d))];
      },
      /len\.json: b: expected 24 entries, got 23/,
    ],
    [
      'NaN (as a string) in A',
      () => {
        const d = example();
        (d.A as unknown[])[5] = 'NaN';
        return ['solve', withFile('nan.json', JSON.stringify(d))];
      },
      /nan\.json: A\[5\]: expected a finite number, got "NaN"/,
    ],
    [
      'NaN token in the JSON text',
      () => ['solve', withFile('nantok.json', readFileSync(EXAMPLE, 'utf8').replace('"b": [', '"b": [NaN, '))],
      /nantok\.json: \(json\): malformed JSON/,
    ],
    [
      'non-symmetric A',
      () => {
        const d = example();
        (d.A as number[])[1] += 1;
        return ['solve', withFile('asym.json', JSON.stringify(d))];
      },
      /asym\.json: A\[0\]\[1\]: A is not symmetric/,
    ],
    [
      'negative μ',
      () => {
        const d = example();
        (d.mu as number[])[2] = -0.1;
        return ['solve', withFile('mu.json', JSON.stringify(d))];
      },
      /mu\.json: mu\[2\]: is -0\.1; friction coefficients must be ≥ 0/,
    ],
    [
      'bad physical body index',
      () => {
        const d = example();
        (d.physical as { contacts: { body_a: number }[] }).contacts[0].body_a = 7;
        return ['solve', withFile('body.json', JSON.stringify(d)), '--from', 'physical'];
      },
      /body\.json: physical\.contacts\[0\]\.body_a: is 7/,
    ],
    ['unknown solver', () => ['solve', EXAMPLE, '--solver', 'lemke'], /--solver must be one of pgs, newton, ipm, coulomb, all/],
    ['unknown option', () => ['solve', EXAMPLE, '--fast'], /unknown option --fast/],
  ];
  for (const [what, args, message] of bad) {
    it(`bad input (${what}) exits 2 with one clear line`, () => {
      const r = run(args());
      assert.equal(r.code, 2);
      assert.equal(r.out.length, 0);
      assert.match(r.err[0], message);
    });
  }

  it('the bundled dist/cli.js runs from a shell as documented (built by npm test before the unit tests)', function () {
    const cli = join(ROOT, 'dist', 'cli.js');
    if (!existsSync(cli)) this.skip();
    const out = execFileSync(process.execPath, [cli, 'solve', EXAMPLE, '--solver', 'ipm', '--json'], { encoding: 'utf8' });
    assert.equal((JSON.parse(out.trim()) as { status: string }).status, 'converged');
    const bad = spawnSync(process.execPath, [cli, 'solve', '/nonexistent.json'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /nonexistent\.json: cannot read the file/);
  });
});

describe('CLI: simulate, report, check', () => {
  const SCENE = join(ROOT, 'examples', 'sphere-drop.scene.json');
  const tmp = mkdtempSync(join(tmpdir(), 'contact-lens-sim-'));

  it('simulate writes a recording with progress on stderr, report summarises it, and a second simulate refuses to overwrite', async () => {
    const out = join(tmp, 'drop.rec.jsonl');
    const sim = await runAsync(['simulate', SCENE, '--scenario', 'sphere-drop', '--frames', '150', '--out', out]);
    assert.equal(sim.code, 0, sim.err.join('\n'));
    assert.ok(sim.err.some((l) => /frame 150\/150 \(100%\)/.test(l)));
    const rep = run(['report', out, '--json']);
    assert.equal(rep.code, 0, rep.err.join('\n'));
    const r = JSON.parse(rep.out[0]) as { frames: number; bodies: number; solverFailures: number; iterations: { max: number }; kappaMax: number | null };
    assert.equal(r.frames, 150);
    assert.equal(r.bodies, 2);
    assert.equal(r.solverFailures, 0);
    assert.ok(r.kappaMax !== null && r.kappaMax >= 1);
    const again = await runAsync(['simulate', SCENE, '--scenario', 'sphere-drop', '--frames', '5', '--out', out]);
    assert.equal(again.code, 2);
    assert.match(again.err[0], /already exists; refusing to overwrite it \(use --force/);
    assert.equal((await runAsync(['simulate', SCENE, '--scenario', 'sphere-drop', '--frames', '5', '--out', out, '--force'])).code, 0);
  });

  it('report gives κ on the range of A and the cause beside κ(A) when the worst island is rank deficient (box stack: coplanar corners)', async () => {
    const out = join(tmp, 'stack.rec.jsonl');
    const sim = await runAsync(['simulate', join(ROOT, 'examples', 'box-stack-10.scene.json'), '--frames', '20', '--out', out]);
    assert.equal(sim.code, 0, sim.err.join('\n'));
    const rep = run(['report', out, '--json']);
    assert.equal(rep.code, 0, rep.err.join('\n'));
    const r = JSON.parse(rep.out[0]) as {
      kappaMax: number;
      kappaRangeMax: number;
      kappaMaxRank: { rows: number; rankDeficiency: number; cause: string | null };
    };
    // four coplanar corners per face: A is rank deficient and κ(A) is set by ε alone
    assert.ok(r.kappaMax > 1e10, `κ(A) ${r.kappaMax}`);
    assert.ok(r.kappaMaxRank.rankDeficiency > 0 && r.kappaMaxRank.rankDeficiency < r.kappaMaxRank.rows);
    assert.match(r.kappaMaxRank.cause ?? '', /coplanar/);
    assert.ok(Number.isFinite(r.kappaRangeMax) && r.kappaRangeMax >= 1 && r.kappaRangeMax < 1e-4 * r.kappaMax, `κ range ${r.kappaRangeMax}`);
    const text = run(['report', out]);
    assert.ok(text.out.some((l) => /^κ on the range of A max: \d/.test(l)));
    assert.ok(text.out.some((l) => /^κ\(A\) max: .*rank deficiency from coplanar contacts/.test(l)));
  });

  it('simulate names the scenarios when the file holds several and none is chosen', async () => {
    const r = await runAsync(['simulate', SCENE, '--out', join(tmp, 'x.jsonl')]);
    assert.equal(r.code, 2);
    assert.match(r.err[0], /holds \d+ scenarios; choose one with --scenario \(sphere-drop, /);
  });

  it('check exits 0 when every expectation holds and 1 for the planted fault', () => {
    const ok = run(['check', join(ROOT, 'examples', 'head-on-elastic.scene.json')]);
    assert.equal(ok.code, 0, ok.out.join('\n'));
    assert.ok(ok.out[0].startsWith('✓ head-on-elastic'));
    const bad = run(['check', join(ROOT, 'examples', 'fault-restitution-target.scene.json'), '--json']);
    assert.equal(bad.code, 1);
    const rows = bad.out.map((l) => JSON.parse(l) as { ok: boolean; expectations: { kind: string; ok: boolean; message: string }[] });
    assert.ok(rows.every((x) => !x.ok));
    assert.ok(rows[0].expectations.some((e) => e.kind === 'energyNonIncreasing' && !e.ok && /energy rose by \+/.test(e.message)));
  });

  it('report reads a foreign engine recording', () => {
    const rep = run(['report', join(ROOT, 'examples', 'foreign-engine.rec.jsonl')]);
    assert.equal(rep.code, 0, rep.err.join('\n'));
    assert.match(rep.out[0], /6 frames, 2 bodies, written by acme-physics/);
    assert.ok(rep.out.some((l) => /frames where total energy rose: [1-9]/.test(l)));
  });

  it('bad scene input names the file, the field, line and column', () => {
    const f = withFile(
      'bad.scene.json',
      '{"scenarios": [{"name": "x", "frames": 10, "bodies": [{"name": "b", "shape": {"sphere": {"radius": -1}}, "mass": 1}]}]}',
    );
    const r = run(['check', f]);
    assert.equal(r.code, 2);
    assert.match(r.err[0], /bad\.scene\.json: scenarios\[0\]\.bodies\[0\]\.shape\.sphere\.radius: line 1, column \d+/);
  });
});
