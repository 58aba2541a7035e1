/**
 * `contact-lens diagnose` as a user reads it: findings grouped by mechanism with a summary line each, one headline
 * per finding, the literature once, wrapped to the terminal; `--verbose` adds the evidence; `--json` carries the
 * headline, evidence, laws, counterfactuals and continuation beside the frame, contacts, mechanism and joules.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../../src/cli/main.js';

const ROOT = resolve(__dirname, '..', '..');
const FAULT = join(ROOT, 'examples', 'fault-restitution-target.scene.json');

function run(args: string[], columns?: number): { code: number; out: string[] } {
  const out: string[] = [];
  const code = main(args, { out: (l) => out.push(l), err: () => {}, ...(columns ? { columns } : {}) });
  assert.equal(typeof code, 'number');
  return { code: code as number, out };
}

describe('CLI: diagnose output', function () {
  this.timeout(120_000);
  it('groups findings by mechanism with a summary line, one headline each, and prints the sources once', () => {
    const { code, out } = run(['diagnose', FAULT]);
    assert.equal(code, 0);
    const text = out.join('\n');
    assert.match(text, /^ {2}restitution-overshoot \(error\): 2 findings, \+84\.\d J, frames 27–116$/m);
    assert.match(
      text,
      /^ {4}\+23\.1 J restitution-overshoot, frame 27, contact #0: leaves at 7\.17 m\/s = \(1\+e\)·v⁻ \(e 0\.5\): −\(1\+e\)·v⁻ as its target$/m,
    );
    assert.equal(text.match(/^ {4}restitution-overshoot: Newton's restitution law targets/gm)?.length, 2, 'the source once per scenario');
    assert.doesNotMatch(text, /contact #0: λn/, 'no evidence without --verbose');
  });
  it('lists the injections first, the largest first, then errors before warnings (a cannon-es stack with several kinds of finding)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-diagnose-order-'));
    try {
      const rec = join(dir, 'cannon.rec.jsonl');
      const sim = await main(['simulate', join(ROOT, 'examples', 'box-stack-10.scene.json'), '--engine', 'cannon', '--frames', '150', '--out', rec], {
        out: () => {},
        err: () => {},
      });
      assert.equal(sim, 0);
      const groups = run(['diagnose', rec])
        .out.map((l) => /^ {2}([a-z-]+) \((error|warning|info)\): \d+ findings?(, ([+-][\d.e+-]+) J)?/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => ({ mechanism: m[1], severity: m[2], joules: m[4] === undefined ? null : Number(m[4]) }));
      const injections = groups.filter((g) => g.joules !== null);
      const others = groups.filter((g) => g.joules === null);
      assert.ok(injections.length >= 1 && others.length >= 2, JSON.stringify(groups));
      assert.deepEqual(groups.slice(0, injections.length), injections, 'the injections come first');
      assert.deepEqual(
        injections.map((g) => g.joules),
        injections.map((g) => g.joules).sort((a, b) => b! - a!),
        'the largest injection first',
      );
      const rank = { error: 2, warning: 1, info: 0 } as const;
      const ranks = others.map((g) => rank[g.severity as keyof typeof rank]);
      assert.deepEqual(
        ranks,
        [...ranks].sort((a, b) => b - a),
        `errors before warnings: ${others.map((g) => g.mechanism)}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('--verbose lists each finding’s evidence under its headline', () => {
    const text = run(['diagnose', FAULT, '--verbose']).out.join('\n');
    assert.match(
      text,
      /^ {6}contact #0: λn 11\.7 N·s, depth 30 mm, approach 4\.58 m\/s, leaves at 7\.17 m\/s; Newton's law 2\.29 m\/s \(e 0\.5\); fits restitution-overshoot/m,
    );
    assert.match(text, /^ {6}Exact re-solves \(Coulomb's law: De Saxcé's fixed point over the interior point\) of 1 island/m);
  });
  it('wraps to the terminal width, continuation lines indented', () => {
    const { out } = run(['diagnose', FAULT, '--verbose'], 70);
    const long = out.filter(
      (l) =>
        l.length > 70 &&
        l.includes(' ') &&
        l
          .trim()
          .split(' ')
          .every((w) => w.length < 60),
    );
    assert.deepEqual(long, []);
    assert.ok(
      out.some((l) => /^ {10}\S/.test(l)),
      'continuation lines are indented',
    );
  });
  it('--json: headline, evidence, laws, counterfactuals beside frame, contacts, mechanism and joules', () => {
    const lines = run(['diagnose', FAULT, '--json']).out.map((l) => JSON.parse(l) as Record<string, unknown>);
    const f = lines.find((x) => x.mechanism === 'restitution-overshoot')!;
    assert.equal(f.frame, 27);
    assert.deepEqual(f.contacts, [0]);
    assert.ok(typeof f.joules === 'number' && f.joules > 20);
    assert.ok(typeof f.headline === 'string' && (f.headline as string).length < 120);
    assert.ok(Array.isArray(f.evidence) && (f.evidence as string[]).length >= 3);
    assert.equal((f.laws as { normal: string }[])[0].normal, 'restitution-overshoot');
    const cf = f.counterfactuals as { resolve: string; saves: number }[];
    assert.deepEqual(
      cf.map((x) => x.resolve),
      ['the problem the contacts obey, solved exactly', 'without the stabilisation term', "with Newton's restitution law for the targets"],
    );
  });
});
