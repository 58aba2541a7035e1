/**
 * `contact-lens diff` on planted pairs written by the independent stepper (test/independent/pairs.ts: written
 * from the format alone): one change at frame k — a fewer-iteration or cold-started solve, another ERP,
 * restitution or μ, a dropped or added contact, a body moved after the solve — must be found at frame k with
 * its kind; identical pairs, pairs with 1e-13 relative noise and a pair written in foreign conventions must
 * not diverge. The CLI's exit codes, its JSON object and its bad-input lines.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { compareFiles } from '../../src/session/compare/compareFiles.js';
import { type PairFiles, writePlantedPairs } from '../independent/pairs.js';

function run(args: string[]): { code: number; out: string[]; err: string[] } {
  const out: string[] = [],
    err: string[] = [];
  const code = main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  assert.equal(typeof code, 'number');
  return { code: code as number, out, err };
}

describe('diff: planted pairs of the independent stepper', function () {
  this.timeout(300_000);
  let dir: string;
  let pairs: PairFiles[];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'contact-lens-pairs-'));
    pairs = writePlantedPairs(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds frame k and the kind of every planted change, and no divergence in identical, noisy and foreign-written pairs', () => {
    const rows: string[] = [];
    for (const p of pairs) {
      const d = compareFiles(p.a, p.b);
      const f = d.firstDivergence;
      rows.push(`${p.name}: ${f ? `${f.kind} at ${f.frame} (${f.field})` : 'none'}`);
      if (p.kind === null) {
        assert.equal(f, null, `${p.name}: ${f?.kind} at ${f?.frame}: ${f?.lines.join('; ')}`);
        assert.equal(d.growth.length, 0);
        continue;
      }
      assert.ok(f, `${p.name}: no divergence found`);
      assert.equal(f.frame, p.frame, `${p.name}: frame`);
      assert.equal(f.kind, p.kind, `${p.name}: kind (${f.lines.join('; ')})`);
      if (p.field) assert.equal(f.field, p.field, `${p.name}: field`);
      assert.equal(d.growth[0].frame, p.frame, `${p.name}: the growth starts at the divergence`);
    }
    console.log(`      ${rows.join('\n      ')}`);
    assert.ok(pairs.filter((p) => p.kind !== null).length >= 8);
    assert.deepEqual(new Set(pairs.map((p) => p.kind)), new Set(['contact-set', 'problem', 'solve', 'state', null]));
  });

  it('a solve divergence says which run solved the shared problem better (the converged one)', () => {
    for (const name of ['fewer-iterations', 'cold-start']) {
      const p = pairs.find((x) => x.name === name)!;
      const f = compareFiles(p.a, p.b).firstDivergence!;
      assert.equal(f.closer?.run, 'a', name);
      const a = f.a as unknown as { coulombMerit: number },
        b = f.b as unknown as { coulombMerit: number };
      assert.ok(a.coulombMerit < b.coulombMerit, `${name}: ${a.coulombMerit} vs ${b.coulombMerit}`);
    }
    // converged to 1e-12 against two sweeps: the merit of a's λ is at the solver's tolerance
    const p = pairs.find((x) => x.name === 'fewer-iterations')!;
    assert.ok((compareFiles(p.a, p.b).firstDivergence!.a as unknown as { coulombMerit: number }).coulombMerit < 1e-9);
  });

  it('contact-set names the contact in one run only; problem names the contacts and their values', () => {
    const dropped = compareFiles(pairs.find((x) => x.name === 'dropped-contact')!.a, pairs.find((x) => x.name === 'dropped-contact')!.b).firstDivergence!;
    assert.deepEqual(dropped.contacts, []);
    assert.deepEqual(
      (dropped.a.values as { feature: string }[]).map((c) => c.feature),
      ['box1:v2/ground'],
    );
    assert.deepEqual(dropped.bodies, ['box1']);
    const added = pairs.find((x) => x.name === 'added-contact')!;
    const f = compareFiles(added.a, added.b).firstDivergence!;
    assert.deepEqual(f.contacts, [0]);
    assert.ok((f.b.values[0] as { gap: number }).gap > 2, 'the speculative contact keeps its gap');
    const mu = pairs.find((x) => x.name === 'friction')!;
    const g = compareFiles(mu.a, mu.b).firstDivergence!;
    assert.equal(g.contacts.length, 4);
    assert.ok(g.a.values.every((v) => Math.abs((v as number) - 0.2) < 1e-12));
    assert.ok(g.b.values.every((v) => Math.abs((v as number) - 0.6) < 1e-12));
  });

  it('the nudged body differs first at frame k, the others later or never; growth lists it once', () => {
    const p = pairs.find((x) => x.name === 'nudge-after-solve')!;
    const d = compareFiles(p.a, p.b);
    assert.deepEqual(d.firstDivergence!.bodies, ['box2']);
    assert.equal(d.bodies[0].body, 'box2');
    assert.equal(d.bodies[0].frame, p.frame);
    assert.ok(Math.abs(d.growth[0].x - 1e-6) < 1e-12, `Δx ${d.growth[0].x}`);
    assert.deepEqual(d.growth[0].firstDiffering, ['box2']);
    const named = d.growth.flatMap((g) => g.firstDiffering);
    assert.equal(new Set(named).size, named.length);
  });

  it('--exact: the noisy pairs diverge at frame 0 (in ULPs), identical pairs still do not', () => {
    for (const p of pairs.filter((x) => x.name.startsWith('noise'))) {
      const f = compareFiles(p.a, p.b, { tolerance: { relative: 0, exact: true } }).firstDivergence;
      assert.ok(f, p.name);
      assert.equal(f.frame, 0, p.name);
      assert.ok(
        f.lines.some((l) => / ULP/.test(l)),
        f.lines.join('; '),
      );
    }
    for (const p of pairs.filter((x) => x.name.startsWith('identical-') && !x.name.includes('foreign')))
      assert.equal(compareFiles(p.a, p.b, { tolerance: { relative: 0, exact: true } }).firstDivergence, null, p.name);
  });

  it('CLI: exit 1 and exactly the documented JSON object when the runs diverge, 0 when not', () => {
    const p = pairs.find((x) => x.name === 'fewer-iterations')!;
    const r = run(['diff', p.a, p.b, '--json']);
    assert.equal(r.code, 1);
    assert.equal(r.out.length, 1);
    const o = JSON.parse(r.out[0]) as Record<string, unknown>;
    assert.deepEqual(Object.keys(o), ['framesCompared', 'firstDivergence', 'growth']);
    assert.equal(o.framesCompared, 30);
    const f = o.firstDivergence as Record<string, unknown>;
    assert.deepEqual(Object.keys(f), ['frame', 'time', 'kind', 'bodies', 'contacts', 'field', 'a', 'b']);
    assert.equal(f.frame, 12);
    assert.equal(f.kind, 'solve');
    assert.equal((o.growth as unknown[]).length, 30 - 12);
    const same = pairs.find((x) => x.name === 'identical-stack')!;
    const r0 = run(['diff', same.a, same.b, '--json']);
    assert.equal(r0.code, 0);
    assert.deepEqual(JSON.parse(r0.out[0]), { framesCompared: 30, firstDivergence: null, growth: [] });
    const text = run(['diff', p.a, p.b]);
    assert.equal(text.code, 1);
    assert.ok(
      text.out.some((l) => l.startsWith('first divergence: frame 12 (t = 0.2167 s): solve — lambda')),
      text.out.join('\n'),
    );
    assert.ok(text.out.some((l) => l.includes('run a solved it better')));
  });

  it('frames in one run only are reported, not an error; different time steps align by time', () => {
    const p = pairs.find((x) => x.name === 'identical-drop')!;
    const lines = readFileSync(p.b, 'utf8').trimEnd().split('\n');
    const short = join(dir, 'short.rec.jsonl');
    writeFileSync(short, `${lines.slice(0, 21).join('\n')}\n`);
    const r = run(['diff', p.a, short, '--json']);
    assert.equal(r.code, 0);
    assert.equal(JSON.parse(r.out[0]).framesCompared, 20);
    assert.ok(
      r.err.some((l) => l.startsWith('frames only in a: 10 (t = 0.35 … 0.5 s)')),
      r.err.join('\n'),
    );
    // every other frame of b only: frames 1, 3, 5 … of a have no partner
    const sparse = join(dir, 'sparse.rec.jsonl');
    writeFileSync(sparse, `${[lines[0], ...lines.slice(1).filter((_, i) => i % 2 === 0)].join('\n')}\n`);
    const d = compareFiles(p.a, sparse);
    assert.equal(d.firstDivergence, null);
    assert.equal(d.framesCompared, 15);
    assert.equal(d.onlyA.count, 15);
  });

  it('bad input: exit 2 with one line naming the file', () => {
    const p = pairs[0];
    const missing = run(['diff', p.a, join(dir, 'nope.rec.jsonl')]);
    assert.equal(missing.code, 2);
    assert.match(missing.err[0], /nope\.rec\.jsonl: cannot read the file \(no such file\)/);
    const notRec = join(dir, 'x.scene.json');
    writeFileSync(notRec, '{"scenarios": []}');
    const kind = run(['diff', p.a, notRec]);
    assert.equal(kind.code, 2);
    assert.match(kind.err[0], /is a scene file/);
    assert.equal(run(['diff', p.a]).code, 2);
    assert.match(run(['diff', p.a, p.b, '--tolerance', 'x']).err[0], /--tolerance must be a number/);
    assert.match(run(['diff', p.a, p.b, '--tolerance', '1e-6', '--exact']).err[0], /exclude each other/);
    const broken = join(dir, 'broken.rec.jsonl');
    writeFileSync(broken, '{"format":"contact-lens-recording"}\n');
    const bad = run(['diff', p.a, broken]);
    assert.equal(bad.code, 2);
    assert.match(bad.err[0], /broken\.rec\.jsonl/);
  });
});
