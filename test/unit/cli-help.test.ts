/**
 * The CLI's texts for a first-time user: `--help` on every command, a clear line when a command is given
 * another kind of file, solver lists from SOLVER_NAMES, counts with the right plural, numbers with
 * significant digits, and `solve`'s table saying which problem each solver solves.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { COMMANDS } from '../../src/cli/main.js';
import { sniffKind } from '../../src/cli/fileKind.js';
import { SOLVER_NAMES } from '../../src/engine/solvers/types.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { parseOracleInstance } from '../../src/format/oracle.js';
import { runCliAsync } from '../cliRun.js';
const run = (args: string[]) => runCliAsync(args, { splitLines: true });

const ROOT = resolve(__dirname, '..', '..');
const PROBLEM = join(ROOT, 'examples/problems/two-box-stack.json');
const SCENE = join(ROOT, 'examples/box-stack-10.scene.json');
const RECORDING = join(ROOT, 'examples/foreign-engine.rec.jsonl');
const FCLIB = join(ROOT, 'examples/problems/fclib-boxes-stack.hdf5');

describe('CLI help', () => {
  it('lists the eight commands', () => {
    assert.deepEqual(
      COMMANDS.map((c) => c.command),
      ['solve', 'simulate', 'report', 'check', 'diagnose', 'diff', 'compare', 'compress', 'export', 'query'],
    );
  });

  for (const c of ['solve', 'simulate', 'report', 'check', 'diagnose', 'diff', 'compare', 'compress', 'export', 'query']) {
    for (const flag of ['--help', '-h']) {
      it(`${c} ${flag}: usage, options and an example, exit 0`, async () => {
        const r = await run([c, flag]);
        assert.equal(r.code, 0, r.err.join('\n'));
        assert.deepEqual(r.err, []);
        assert.match(r.out[0], new RegExp(`^usage: contact-lens ${c} `));
        const options = r.out.indexOf('options:'),
          example = r.out.indexOf('example:');
        assert.ok(options > 1 && example > options, r.out.join('\n'));
        assert.ok(
          r.out.slice(options + 1, example).some((l) => /^ {2}-h, --help +print this help and exit$/.test(l)),
          'the options list --help',
        );
        assert.match(r.out[example + 1], new RegExp(`^ {2}contact-lens ${c} `));
      });
    }
  }

  it('the help wins over a missing file and other options (`report --help` was "unknown option --help", exit 2)', async () => {
    const r = await run(['report', 'no-such-file.rec.jsonl', '--json', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.out[0], /^usage: contact-lens report /);
  });

  it("report's help says its findings are diagnose's (it said 'from the ledger alone', but report runs the same diagnosis, exact re-solves included)", async () => {
    const help = await run(['report', '--help']);
    assert.ok(!help.out.join(' ').includes('ledger alone'), help.out.join('\n'));
    assert.match(help.out.join(' '), /the diagnosis `diagnose` prints, exact re-solves included/);
    // a small recording: the CLI keeps no cache for it, so both commands read it
    const report = await runCliAsync(['report', RECORDING, '--json']);
    const diagnose = await run(['diagnose', RECORDING, '--json']);
    const counts: Record<string, number> = {};
    for (const line of diagnose.out.filter((l) => l.trim() !== '')) {
      const f = JSON.parse(line) as { mechanism?: string };
      if (f.mechanism) counts[f.mechanism] = (counts[f.mechanism] ?? 0) + 1;
    }
    assert.ok(Object.keys(counts).length > 1, JSON.stringify(counts));
    assert.deepEqual((JSON.parse(report.out.join('')) as { findings: Record<string, number> }).findings, counts);
  });

  it('every example names files that exist in the repository (query: the dataset the export example writes)', () => {
    const dataset = COMMANDS.find((c) => c.command === 'export')?.example.match(/--parquet (\S+)/)?.[1];
    assert.ok(dataset);
    for (const c of COMMANDS) {
      if (c.command === 'query') {
        assert.ok(c.example.endsWith(` ${dataset}`), c.example);
        continue;
      }
      const inputs = c.example.split(' ').filter((w) => w.startsWith('examples/'));
      assert.ok(inputs.length > 0, c.command);
      for (const f of inputs) assert.ok(existsSync(join(ROOT, f)), `${c.command}: ${f}`);
    }
  });

  it('the top level (--help, -h, help) lists every command with one line each, exit 0; no command is exit 2', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await run(args);
      assert.equal(r.code, 0);
      assert.equal(r.out[0], 'usage: contact-lens <command> [arguments] [options]');
      for (const c of COMMANDS) assert.ok(r.out.includes(`  ${c.command.padEnd(8)}  ${c.summary}`), c.command);
    }
    assert.equal((await run([])).code, 2);
  });

  it('`help solve` prints the same as `solve --help`; `help nothing` is one line, exit 2', async () => {
    assert.deepEqual((await run(['help', 'solve'])).out, (await run(['solve', '--help'])).out);
    const bad = await run(['help', 'nothing']);
    assert.equal(bad.code, 2);
    assert.equal(bad.err.length, 1);
    assert.match(bad.err[0], /help: unknown command "nothing" \(commands: solve, simulate, report, check, diagnose, diff, compare, compress, export, query\)/);
  });

  it('solve and simulate list every solver of SOLVER_NAMES (solve’s help omitted coulomb)', async () => {
    for (const c of ['solve', 'simulate']) {
      const text = (await run([c, '--help'])).out.join('\n');
      assert.ok(text.includes(`--solver ${SOLVER_NAMES.join('|')}`), `${c}: ${text}`);
      for (const s of SOLVER_NAMES) assert.ok(text.includes(s), `${c}: ${s}`);
    }
  });
});

describe('CLI: a command given another kind of file says what it is and which command reads it', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'solve on a scene file (was "mu: expected an array")',
      ['solve', SCENE],
      /^contact-lens: .*box-stack-10\.scene\.json: is a scene file \(docs\/scene-format\.md\), not a problem file: `solve` reads problem files; for a scene file use contact-lens check .*box-stack-10\.scene\.json \(or simulate, diagnose, compare\)$/,
    ],
    ['solve on a recording', ['solve', RECORDING], /: is a recording \(docs\/recording-format\.md\), not a problem file: .*use contact-lens report /],
    ['report on a scene file', ['report', SCENE], /: is a scene file .*, not a recording: `report` reads recordings; for a scene file use contact-lens check /],
    [
      'check on a recording',
      ['check', RECORDING],
      /: is a recording .*, not a scene file: `check` reads scene files; for a recording use contact-lens report /,
    ],
    ['diagnose on a problem file', ['diagnose', PROBLEM], /: is a problem file .*, not a scene file or a recording: .*use contact-lens solve /],
    ['simulate on an FCLIB problem', ['simulate', FCLIB, '--out', join(tmpdir(), 'never-written.rec.jsonl')], /: is a problem file .*not a scene file/],
    ['compress on a scene file', ['compress', SCENE, join(tmpdir(), 'never-written.rec.jsonl.gz')], /: is a scene file .*not a recording/],
  ];
  for (const [what, args, re] of cases) {
    it(what, async () => {
      const r = await run(args);
      assert.equal(r.code, 2);
      assert.deepEqual(r.out, []);
      assert.equal(r.err.length, 1, r.err.join('\n'));
      assert.match(r.err[0], re);
    });
  }

  it('sniffKind: a recording whose header keys come in another order, gzip, HDF5, and unknown text', () => {
    const text = (s: string) => Buffer.from(s);
    assert.equal(sniffKind(text('{"version":1,"format":"contact-lens-recording"}\n{"frame":0}')), 'recording');
    assert.equal(sniffKind(Buffer.from([0x1f, 0x8b, 8, 0])), 'recording');
    assert.equal(sniffKind(readFileSync(FCLIB).subarray(0, 4096)), 'problem');
    assert.equal(sniffKind(readFileSync(PROBLEM)), 'problem');
    assert.equal(sniffKind(readFileSync(SCENE)), 'scene');
    assert.equal(sniffKind(text('{"mu": [1]}')), null);
  });
});

describe('CLI wording: plurals and numbers', () => {
  it('simulate of one frame says "1 frame" (was "1 frames") and times with 3 significant digits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-plural-'));
    const r = await run(['simulate', SCENE, '--frames', '1', '--out', join(dir, 'one.rec.jsonl')]);
    rmSync(dir, { recursive: true, force: true });
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.match(
      r.err.at(-1) ?? '',
      /^wrote 1 frame to .* in \d+(\.\d+)?(e-\d+)? s \(\d+(\.\d+)? ms per frame, \d+(\.\d+)? ms in the engine's step; solver coulomb\)$/,
    );
  });

  it('solver reasons count in the singular after one iteration (was "after 1 iterations")', () => {
    const p = parseOracleInstance(readFileSync(PROBLEM, 'utf8'), PROBLEM).matrix;
    const reasons = SOLVER_NAMES.map((s) => {
      const r = solve(p, { solver: s, maxIterations: 1 });
      assert.notEqual(r.status.kind, 'converged', s);
      return r.status.kind === 'converged' ? '' : r.status.reason;
    });
    for (const reason of reasons) assert.doesNotMatch(reason, /\b1 (iterations|sweeps|fixed-point iterations)\b/, reason);
    assert.match(reasons[0], /^KKT max_rel \d\.\d+ > 1e-6 after 1 sweep \(worst contact \d+\)$/);
    assert.match(reasons[1], /after 1 iteration \(/);
    assert.match(reasons[2], /^1 iteration, KKT max_rel /);
    assert.match(reasons[3], /\(1 Gauss–Seidel sweep, 0 Newton steps\) after the budget of 1 iteration$/);
  });

  it('check prints measured values with 3 significant digits and units on tolerances (was "≤ 0.00 N·s (tolerance 0.000001)")', async () => {
    const r = await run(['check', join(ROOT, 'examples/head-on-elastic.scene.json')]);
    assert.equal(r.code, 0, r.out.join('\n'));
    const momentum = r.out.find((l) => l.includes('momentumConserved')) ?? '';
    assert.match(momentum, /momentumConserved: largest momentum change (0|\d(\.\d+)?e-\d+) N·s \(tolerance 1e-6 N·s\)$/);
    assert.ok(r.out.some((l) => /^✓ head-on-elastic \(.*, 60 frames, \d+(\.\d+)? s\)$/.test(l)));
    for (const l of r.out) assert.doesNotMatch(l, /\d\.\d{4,}e|0\.0000\d/, l);
  });
});

describe('CLI: solve says which problem each solver solves (npm start’s first screen)', () => {
  it('pgs and coulomb rows show the Coulomb merit, newton and ipm the QP-SOCP KKT, in a labelled column, and one note says why they differ', async () => {
    const r = await run(['solve', PROBLEM, '--from', 'physical']);
    assert.equal(r.code, 0);
    assert.match(r.out[3], /^solver\s+problem\s+status\s+iterations\s+merit of its problem\s+objective\s+QP-SOCP KKT\s+time$/);
    const row = (s: string) => r.out.find((l) => l.startsWith(`${s} `)) ?? '';
    assert.match(row('pgs'), /^pgs\s+Coulomb\s+max-iterations\s+200\s+0\.00\d+ \(Coulomb merit\)\s+-2\.897\s+0\.21\s/);
    assert.match(row('newton'), /^newton\s+QP-SOCP\s+converged\s+\d+\s+\d(\.\d+)?e-1\d \(KKT max_rel\)\s+-3\.286\s/);
    assert.match(row('ipm'), /^ipm\s+QP-SOCP\s+converged\s+\d+\s+\d(\.\d+)?e-1\d \(KKT max_rel\)\s+-3\.286\s/);
    assert.match(row('coulomb'), /^coulomb\s+Coulomb\s+converged\s+\d+\s+\d(\.\d+)?e-1\d \(Coulomb merit\)\s+-2\.923\s+0\.21\s/);
    const note = r.out.slice(r.out.findIndex((l) => l.startsWith('Two problems:'))).join(' ');
    assert.match(
      note,
      /^Two problems: newton and ipm solve the convex QP-SOCP \(merit: its KKT max_rel\); pgs and coulomb solve Coulomb's law in De Saxcé's form/,
    );
    assert.ok(note.includes('docs/physics.md "Coulomb\'s law and the De Saxcé fixed point"'), note);
    assert.ok(note.includes("pgs's status is still judged on the QP-SOCP KKT residual"), note);
    const physics = readFileSync(join(ROOT, 'docs/physics.md'), 'utf8');
    for (const section of ["Coulomb's law and the De Saxcé fixed point", 'The default solver'])
      assert.ok(physics.includes(`\n## ${section}\n`), `docs/physics.md has the section "${section}"`);
  });

  it('--json carries the same merit of its problem as the table', async () => {
    const r = await run(['solve', PROBLEM, '--from', 'physical', '--json']);
    const rows = r.out.map((l) => JSON.parse(l) as { solver: string; problemMerit: { problem: string; value: number }; kkt: { max_rel: number } });
    assert.deepEqual(
      rows.map((x) => [x.solver, x.problemMerit.problem]),
      [
        ['pgs', 'coulomb'],
        ['newton', 'qp-socp'],
        ['ipm', 'qp-socp'],
        ['coulomb', 'coulomb'],
      ],
    );
    for (const x of rows.filter((y) => y.problemMerit.problem === 'qp-socp')) assert.equal(x.problemMerit.value, x.kkt.max_rel);
    assert.ok(rows[0].problemMerit.value > 1e-3 && rows[0].problemMerit.value < 1e-2, String(rows[0].problemMerit.value));
  });

  it('one solver alone prints no note; λ has 4 significant digits', async () => {
    const r = await run(['solve', PROBLEM, '--solver', 'newton']);
    assert.equal(r.code, 0);
    assert.ok(!r.out.some((l) => l.startsWith('Two problems')));
    assert.ok(
      r.out.some((l) => /^ {2}1 +5\.908 +-1\.764 +-0\.1759 +sliding$/.test(l)),
      r.out.join('\n'),
    );
  });
});
