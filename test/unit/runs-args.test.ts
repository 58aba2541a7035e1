/**
 * The file list of the many-recordings commands (docs/at-scale.md): patterns expanded by contact-lens itself
 * (`*`, `?`, `**`, `{a,b}`), `--shard i/N` (disjoint parts that cover the list, stable when a file is added) and
 * `--jobs N`, with one clear line for bad values.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../src/cli/args.js';
import { expandFiles } from '../../src/cli/globFiles.js';
import { parseJobs, parseShard, selectRuns } from '../../src/cli/runsCommand.js';

describe('many recordings: patterns, shards, jobs', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(join(os.tmpdir(), 'cl-runs-args-'));
    for (const f of ['a/x.rec.jsonl', 'a/b/y.rec.jsonl.gz', 'a/b/c/z.rec.jsonl', 'a/.hidden.rec.jsonl', 'a/notes.txt', 'd/w.rec.jsonl']) {
      fs.mkdirSync(join(dir, f, '..'), { recursive: true });
      fs.writeFileSync(join(dir, f), '');
    }
    for (let k = 0; k < 40; k++) fs.writeFileSync(join(dir, 'd', `run-${k}.rec.jsonl`), '');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('expands *, **, ? and {a,b}; sorted, each file once; hidden files only when the pattern says so', () => {
    assert.deepEqual(
      expandFiles([join(dir, 'a/**/*.rec.jsonl*')]),
      ['a/b/c/z.rec.jsonl', 'a/b/y.rec.jsonl.gz', 'a/x.rec.jsonl'].map((f) => join(dir, f)),
    );
    assert.deepEqual(expandFiles([join(dir, '{a,d}/?.rec.jsonl'), join(dir, 'a/x.rec.jsonl')]), [join(dir, 'a/x.rec.jsonl'), join(dir, 'd/w.rec.jsonl')]);
    assert.deepEqual(expandFiles([join(dir, 'a/.*.rec.jsonl')]), [join(dir, 'a/.hidden.rec.jsonl')]);
  });

  it('a pattern that matches nothing and a missing file are one line each', () => {
    assert.throws(
      () => expandFiles([join(dir, 'a/*.mcap')]),
      (e: Error) => e instanceof UsageError && /a\/\*\.mcap: no file matches this pattern$/.test(e.message),
    );
    assert.throws(
      () => expandFiles([join(dir, 'nothing.rec.jsonl')]),
      (e: Error) => e instanceof UsageError && /nothing\.rec\.jsonl: cannot read the file \(no such file\)$/.test(e.message),
    );
  });

  it('--shard i/N: disjoint parts that cover the list; adding a file moves no other file', () => {
    const pattern = join(dir, 'd/*.rec.jsonl');
    const parts = [1, 2, 3].map((i) => selectRuns([pattern], parseShard(`${i}/3`)).map((r) => r.file));
    const all = selectRuns([pattern], null).map((r) => r.file);
    assert.equal(all.length, 41);
    assert.deepEqual(parts.flat().sort(), all);
    for (const p of parts) assert.ok(p.length > 0 && p.length < 41, 'each part has some of the files');
    fs.writeFileSync(join(dir, 'd', 'run-new.rec.jsonl'), '');
    try {
      const after = [1, 2, 3].map((i) => selectRuns([pattern], parseShard(`${i}/3`)).map((r) => r.file));
      for (let i = 0; i < 3; i++)
        assert.deepEqual(
          after[i].filter((f) => !f.endsWith('run-new.rec.jsonl')),
          parts[i],
        );
    } finally {
      fs.rmSync(join(dir, 'd', 'run-new.rec.jsonl'));
    }
  });

  it('bad --shard and --jobs values are one line naming the option', () => {
    assert.deepEqual(parseShard('3/8'), { index: 3, count: 8 });
    for (const v of ['0/8', '9/8', '3', 'a/b', '1/0'])
      assert.throws(
        () => parseShard(v),
        (e: Error) => e instanceof UsageError && /^--shard must be i\/N with 1 ≤ i ≤ N/.test(e.message),
        v,
      );
    assert.equal(parseJobs(undefined), 1);
    assert.equal(parseJobs('4'), 4);
    for (const v of ['0', '-1', '2.5', 'many', '257'])
      assert.throws(
        () => parseJobs(v),
        (e: Error) => e instanceof UsageError && /^--jobs must be a whole number from 1 to 256/.test(e.message),
        v,
      );
  });
});
