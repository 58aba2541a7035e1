/**
 * Many recordings (docs/at-scale.md): `diagnose <files…> --jobs 2 --out results.parquet`, `export --parquet DIR`
 * (partitioned by run, --shard i/N), `query "<SQL>" … --json` and `export --mcap`. The recordings are simulated
 * from the example scenes (plain, blocked gzip and plain gzip) plus the foreign engine's example; the SQL answers
 * are checked against `report --json` of every run, the Parquet files are read back with hyparquet (a reader that
 * is not the writer) and the MCAP file with @mcap/core's indexed reader, and each frame's λ against the JSON line.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { join, resolve } from 'node:path';
import * as zlib from 'node:zlib';
import { McapIndexedReader } from '@mcap/core';
import { main } from '../../src/cli/main.js';
import { runId } from '../../src/cli/runTables.js';

const ROOT = resolve(__dirname, '..', '..');

interface Ran {
  code: number;
  out: string[];
  err: string[];
}

async function cli(args: string[]): Promise<Ran> {
  const out: string[] = [],
    err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

async function parquetRows(file: string): Promise<Record<string, unknown>[]> {
  const { asyncBufferFromFile, parquetReadObjects } = await import('hyparquet');
  return (await parquetReadObjects({ file: await asyncBufferFromFile(file) })) as Record<string, unknown>[];
}

/** Every .parquet file under dir (Hive-style run=… folders). */
function parquetFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet')).map((f) => join(dir, f));
}

const close = (a: number, b: number, what: string): void => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

describe('CLI: many recordings (diagnose --jobs/--out, export --parquet/--mcap, query)', function () {
  this.timeout(300_000);
  let dir: string;
  let recordings: string[];
  before(async () => {
    dir = fs.mkdtempSync(join(os.tmpdir(), 'cl-runs-'));
    const sim = async (scene: string, scenario: string, out: string, frames: number): Promise<void> => {
      const r = await cli(['simulate', join(ROOT, 'examples', scene), '--scenario', scenario, '--out', join(dir, out), '--frames', String(frames)]);
      assert.equal(r.code, 0, r.err.join('\n'));
    };
    await sim('fault-restitution-target.scene.json', 'fault-restitution-target-sphere', 'restitution.rec.jsonl', 120);
    await sim('sphere-drop.scene.json', 'sphere-drop', 'drop.rec.jsonl.gz', 60); // blocked gzip (BGZF)
    // what Python's gzip module or `gzip -c` writes: one plain gzip member
    fs.writeFileSync(join(dir, 'plain.rec.jsonl.gz'), zlib.gzipSync(fs.readFileSync(join(dir, 'restitution.rec.jsonl'))));
    fs.copyFileSync(join(ROOT, 'examples', 'foreign-engine.rec.jsonl'), join(dir, 'foreign.rec.jsonl'));
    recordings = ['drop.rec.jsonl.gz', 'foreign.rec.jsonl', 'plain.rec.jsonl.gz', 'restitution.rec.jsonl'].map((f) => join(dir, f));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('diagnose --jobs 2 --out: one Parquet row per run and per finding; query answers as report --json does for every run', async () => {
    const results = join(dir, 'results.parquet');
    const d = await cli(['diagnose', join(dir, '*.rec.jsonl*'), '--jobs', '2', '--out', results]);
    assert.equal(d.code, 0, d.err.join('\n'));
    assert.match(d.out.join('\n'), /^4 recordings: 306 frames, \d+ findings, \+[\d.]+ J injected$/m);

    const q = await cli([
      'query',
      "SELECT run, mechanism, sum(joules) AS j, count(*) AS n FROM findings WHERE kind = 'injection' GROUP BY ALL ORDER BY run, mechanism",
      results,
      '--json',
    ]);
    assert.equal(q.code, 0, q.err.join('\n'));
    const byRun = JSON.parse(q.out.join('')) as { run: string; mechanism: string; j: number; n: number }[];
    const runs = JSON.parse(
      (await cli(['query', 'SELECT run, file, frames, kappa_max, energy_drift, findings FROM runs ORDER BY run', results, '--json'])).out[0],
    ) as {
      run: string;
      file: string;
      frames: number;
      kappa_max: number;
      energy_drift: number;
    }[];
    assert.deepEqual(runs.map((r) => r.file).sort(), recordings);
    let injecting = 0;
    for (const r of runs) {
      const rep = await cli(['report', r.file, '--json']);
      const report = JSON.parse(rep.out.join('')) as { frames: number; kappaMax: number; energyDrift: number; injected: Record<string, number> };
      assert.equal(r.run, runId(r.file));
      assert.equal(r.frames, report.frames, r.file);
      close(r.kappa_max, report.kappaMax, `${r.file} κ`);
      close(r.energy_drift, report.energyDrift, `${r.file} drift`);
      const mine = byRun.filter((x) => x.run === r.run);
      assert.deepEqual(mine.map((x) => x.mechanism).sort(), Object.keys(report.injected).sort(), r.file);
      for (const x of mine) close(x.j, report.injected[x.mechanism], `${r.file} ${x.mechanism}`);
      if (mine.length) injecting++;
    }
    assert.ok(injecting >= 3, 'the restitution fault (plain and gzip) and the foreign engine inject');

    // read by another Parquet reader: the same rows
    const rows = await parquetRows(results);
    assert.equal(rows.filter((r) => r.record === 'run').length, 4);
    const findingRows = rows.filter((r) => r.record === 'finding');
    const total = JSON.parse((await cli(['query', 'SELECT count(*) AS n FROM findings', results, '--json'])).out[0])[0].n as number;
    assert.equal(findingRows.length, total);
    assert.ok(findingRows.every((r) => typeof r.headline === 'string' && typeof r.joules === 'number' && Array.isArray(r.contacts)));
  });

  it('export --parquet in two shards: every run once, partitioned by run; λ per contact as the recording line has it', async () => {
    const ds = join(dir, 'dataset');
    const shards = await Promise.all([1, 2].map(async (i) => cli(['export', ...recordings, '--parquet', ds, '--shard', `${i}/2`])));
    for (const s of shards) assert.equal(s.code, 0, s.err.join('\n'));
    const runs = (await Promise.all(parquetFiles(join(ds, 'runs')).map(parquetRows))).flat();
    assert.deepEqual(runs.map((r) => r.file).sort(), recordings, 'each run in exactly one shard');
    // Hive-style: the run is the folder, one folder per run and table
    for (const t of ['runs', 'frames', 'contacts', 'ledger', 'findings'])
      for (const f of parquetFiles(join(ds, t))) assert.match(f, new RegExp(`/${t}/run=[\\w.-]+-[0-9a-f]{10}/part-[12]of2-[^/]+\\.parquet$`));

    // contacts of the restitution run, frame by frame against the JSON lines of the file
    const file = join(dir, 'restitution.rec.jsonl');
    // the frame lines: the header first, the writer's closing line {"end": …} last (docs/recording-format.md)
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .filter((l) => !l.startsWith('{"end"'));
    const contacts = (await Promise.all(parquetFiles(join(ds, 'contacts', `run=${runId(file)}`)).map(parquetRows))).flat();
    const expected = lines.flatMap((l) => {
      const f = JSON.parse(l) as { frame: number; contacts: { depth: number }[]; solver: { lambda: number[] } };
      return f.contacts.map((c, k) => ({ frame: f.frame, contact: k, lambda_n: f.solver.lambda[3 * k], depth: c.depth }));
    });
    assert.ok(expected.length > 0);
    assert.deepEqual(
      contacts.map((c) => ({ frame: c.frame, contact: c.contact, lambda_n: c.lambda_n, depth: c.depth })).sort((a, b) => Number(a.frame) - Number(b.frame)),
      expected,
    );
    assert.ok(contacts.every((c) => ['open', 'stick', 'slip'].includes(c.state as string)));
    const frames = (await Promise.all(parquetFiles(join(ds, 'frames', `run=${runId(file)}`)).map(parquetRows))).flat();
    assert.equal(frames.length, lines.length);

    // the query over the dataset: the top runs by injected joules, the same as the runs table's column
    const q = await cli([
      'query',
      "SELECT f.run, sum(f.joules) AS j, any_value(r.injected_joules) AS r FROM findings f JOIN runs r USING (run) WHERE kind = 'injection' GROUP BY f.run ORDER BY j DESC LIMIT 10",
      ds,
      '--json',
    ]);
    const top = JSON.parse(q.out[0]) as { run: string; j: number; r: number }[];
    assert.equal(top.length, 4, 'every run here injects (the drop by its overlap push-out)');
    for (const t of top) close(t.j, t.r, t.run);

    // the same run again is refused whole, nothing replaced
    const before = parquetFiles(ds).sort();
    const again = await cli(['export', recordings[1], '--parquet', ds]);
    assert.equal(again.code, 2);
    assert.match(again.err.join('\n'), /run=foreign-[0-9a-f]{10}: already exists: this run is in the dataset already/);
    assert.deepEqual(parquetFiles(ds).sort(), before);
  });

  it('a recording that cannot be read is one run row with its reason; the others go on (exit 2)', async () => {
    const bad = join(dir, 'bad', 'broken.rec.jsonl.gz');
    fs.mkdirSync(join(dir, 'bad'));
    const gz = fs.readFileSync(join(dir, 'plain.rec.jsonl.gz'));
    const damaged = Buffer.from(gz);
    for (let i = 200; i < 260; i++) damaged[i] ^= 0x5a;
    fs.writeFileSync(bad, damaged);
    const out = join(dir, 'bad', 'r.parquet');
    const d = await cli(['diagnose', bad, recordings[1], '--jobs', '2', '--out', out]);
    assert.equal(d.code, 2);
    assert.match(d.err.join('\n'), /broken\.rec\.jsonl\.gz/);
    const rows = (await parquetRows(out)).filter((r) => r.record === 'run');
    assert.equal(rows.length, 2);
    const broken = rows.find((r) => r.file === bad);
    assert.ok(broken && typeof broken.error === 'string' && !broken.error.includes('\n') && broken.frames === null, JSON.stringify(broken));
    assert.equal(rows.find((r) => r.file === recordings[1])?.error, null);
    // never over an existing file
    const again = await cli(['diagnose', recordings[1], '--jobs', '2', '--out', out]);
    assert.equal(again.code, 2);
    assert.match(again.err.join('\n'), /r\.parquet: already exists; refusing to overwrite it/);
  });

  it('query: a missing dataset, a wrong statement and a file that is not Parquet are one line each', async () => {
    const missing = await cli(['query', 'SELECT 1', join(dir, 'nowhere')]);
    assert.equal(missing.code, 2);
    assert.deepEqual(missing.err.length, 1);
    assert.match(missing.err[0], /nowhere: no such dataset folder or Parquet file/);
    const wrong = await cli(['query', 'SELECT nonsense FROM runs', join(dir, 'dataset')]);
    assert.equal(wrong.code, 2);
    assert.equal(wrong.err.length, 1);
    assert.match(wrong.err[0], /^contact-lens: query: .*nonsense/);
    // a file that is not Parquet, given or inside a dataset (was: DuckDB's error thrown with its stack)
    fs.writeFileSync(join(dir, 'not.parquet'), 'not parquet');
    const notParquet = await cli(['query', 'SELECT 1', join(dir, 'not.parquet')]);
    assert.equal(notParquet.code, 2);
    assert.equal(notParquet.err.length, 1);
    assert.match(notParquet.err[0], /not\.parquet: is not a results file of `contact-lens diagnose --out` \(DuckDB: .*\)$/);
    fs.mkdirSync(join(dir, 'junk', 'runs', 'run=x'), { recursive: true });
    fs.writeFileSync(join(dir, 'junk', 'runs', 'run=x', 'part.parquet'), 'junk');
    const junk = await cli(['query', 'SELECT count(*) FROM runs', join(dir, 'junk')]);
    assert.equal(junk.code, 2);
    assert.equal(junk.err.length, 1);
    assert.match(junk.err[0], /junk\/runs: holds a file that is not a table of `contact-lens export --parquet`/);
  });

  it('export --mcap: topics, schemas and message counts read back with @mcap/core', async () => {
    const file = join(dir, 'restitution.rec.jsonl');
    const out = join(dir, 'restitution.mcap');
    const r = await cli(['export', file, '--mcap', out]);
    assert.equal(r.code, 0, r.err.join('\n'));
    const bytes = fs.readFileSync(out);
    const reader = await McapIndexedReader.Initialize({
      readable: {
        size: async () => BigInt(bytes.length),
        read: async (offset: bigint, length: bigint) => bytes.subarray(Number(offset), Number(offset + length)),
      },
    });
    const topics = new Map([...reader.channelsById.values()].map((c) => [c.topic, reader.schemasById.get(c.schemaId)?.name]));
    assert.deepEqual(Object.fromEntries(topics), {
      '/contact_lens/scene': 'foxglove.SceneUpdate',
      '/contact_lens/lambda': 'contact_lens.Lambda',
      '/contact_lens/energy': 'contact_lens.Energy',
      '/contact_lens/findings': 'contact_lens.Finding',
    });
    const counts = new Map<string, number>();
    const byTopic = new Map<string, unknown[]>();
    const topicOf = new Map([...reader.channelsById].map(([id, c]) => [id, c.topic]));
    for await (const m of reader.readMessages()) {
      const t = topicOf.get(m.channelId) ?? '?';
      counts.set(t, (counts.get(t) ?? 0) + 1);
      if (!byTopic.has(t)) byTopic.set(t, []);
      byTopic.get(t)?.push(JSON.parse(new TextDecoder().decode(m.data)));
    }
    const diag = await cli(['diagnose', file, '--json']);
    const findings = diag.out.filter((l) => l.startsWith('{')).length;
    assert.deepEqual(Object.fromEntries(counts), {
      '/contact_lens/scene': 120,
      '/contact_lens/lambda': 120,
      '/contact_lens/energy': 120,
      '/contact_lens/findings': findings,
    });
    const scene = byTopic.get('/contact_lens/scene')?.[0] as { entities: { id: string; spheres: unknown[]; cubes: unknown[] }[] };
    assert.deepEqual(
      scene.entities.map((e) => e.id),
      ['body/0', 'body/1', 'contacts'],
    );
    const joules = (byTopic.get('/contact_lens/findings') as { kind: string; joules: number }[])
      .filter((f) => f.kind === 'injection')
      .reduce((a, f) => a + f.joules, 0);
    const report = JSON.parse((await cli(['report', file, '--json'])).out.join('')) as { injected: Record<string, number> };
    close(
      joules,
      Object.values(report.injected).reduce((a, b) => a + b, 0),
      'injected joules',
    );
    const again = await cli(['export', file, '--mcap', out]);
    assert.equal(again.code, 2);
    assert.match(again.err.join('\n'), /already exists; refusing to overwrite it/);
  });
});
