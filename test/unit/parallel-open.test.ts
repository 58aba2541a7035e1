/**
 * The open of a large plain recording on two threads (src/extension/model/parallelOpen.ts): whatever the split, the
 * inspector shows exactly what the one-thread open shows (index, timeline, findings, frame views, contact series,
 * skipped lines), or the second thread's stretch is not used and the open reads on from the cut. Recordings nobody
 * here shaped: the independent planted set, cannon-es and MuJoCo runs, another engine's example; and our box stack.
 * The stretch runs in the open's own thread after its pass (inThisThread: no timing), one test in a real thread.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import type { InspectorParallelOptions as ParallelOpenOptions } from '../../src/extension/model/parallelOpen.js';
import { timelineStretch } from '../../src/extension/model/timelineStretch.js';
import { inThisThread as inThisThreadOf, type StretchThread } from '../../src/session/stretch/stretchDiagnosis.js';
import type { TimelineRows } from '../../src/extension/model/timelineBuilder.js';
import type { DiagnosisOptions } from '../../src/session/diagnose.js';
import { generatePlantedSet } from '../independent/generate.js';
import { recordPeer } from '../peers/recordPeer.js';
import { recordExample } from '../exampleRecording.js';

const ROOT = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-parallel-'));
const inThisThread = (before = false): StretchThread<TimelineRows> => inThisThreadOf(timelineStretch, { before });
// run before the open, the stretch cannot wait for the open's budget: it takes it as spent at once (speculateShare 0)
const split = (share: number, before = false): ParallelOpenOptions => ({
  minBytes: 0,
  share,
  quietMs: 0,
  thread: () => inThisThread(before),
  ...(before ? { speculateShare: 0 } : {}),
});

/** Everything the inspector shows of a recording opened with `parallel` (null: on one thread). */
async function shown(file: string, parallel: ParallelOpenOptions | null, diagnosis: Partial<DiagnosisOptions> = {}) {
  const m = await InspectorModel.fromRecording(file, diagnosis, undefined, undefined, { mode: 'off' }, parallel);
  try {
    const r = m.session.reader!;
    const n = r.frameCount;
    const views = [0, n >> 1, n - 1].filter((i) => i >= 0).map((i) => m.frameView(i));
    const keys = [...new Set(views.flatMap((v) => v.contacts.map((c) => c.key)))].slice(0, 12);
    const out = {
      info: m.info,
      timeline: m.timeline,
      findings: m.findings,
      skipped: m.skipped,
      index: Array.from({ length: n }, (_, i) => r.summary(i)),
      errors: r.errors,
      warnings: r.warnings,
      size: r.size,
      views,
      series: m.series(keys),
    };
    return { out: JSON.parse(JSON.stringify(out)) as unknown, opened: m.opened };
  } finally {
    m.close();
  }
}

/** Opens `file` on one thread and split at `share`; asserts both show the same; returns how the split one opened. */
async function sameAsOneThread(file: string, share: number, diagnosis: Partial<DiagnosisOptions> = {}, before = false) {
  const one = await shown(file, null, diagnosis);
  const two = await shown(file, split(share, before), diagnosis);
  assert.equal(one.opened.kind, 'one-thread');
  assert.deepStrictEqual(two.out, one.out, `${path.basename(file)} split at ${share} (${JSON.stringify(two.opened)})`);
  return two.opened;
}

/** A copy of `file` with line k (1-based) replaced by what `edit` makes of it. */
function edited(file: string, name: string, edit: (line: string, k: number) => string): string {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out = path.join(dir, name);
  fs.writeFileSync(out, lines.map((l, i) => (i > 0 && l ? edit(l, i + 1) : l)).join('\n'));
  return out;
}

describe('the open of a recording on two threads', function () {
  this.timeout(600_000);
  let files: string[] = [];
  let stack = '';

  before(async () => {
    const planted = path.join(dir, 'planted');
    generatePlantedSet(planted);
    const plantedFiles = fs.readdirSync(planted).filter((f) => f.endsWith('.rec.jsonl'));
    files = plantedFiles.filter((_, i) => i % 3 === 0).map((f) => path.join(planted, f));
    for (const [engine, scene, opts, name] of [
      ['cannon', 'stack', {}, 'cannon-stack'],
      ['cannon', 'bounce', {}, 'cannon-bounce'],
      ['cannon', 'stack', { stabilization: false }, 'cannon-stack-nostab'],
      ['mujoco', 'slide', {}, 'mujoco-slide'],
    ] as const)
      files.push(await recordPeer(engine, scene, { ...opts, out: path.join(dir, `${name}.rec.jsonl`) }));
    files.push(path.join(ROOT, 'examples', 'foreign-engine.rec.jsonl'));
    stack = recordExample(dir, 'box-stack-10', 'pgs', 240);
    files.push(stack);
  });

  it('shows exactly what one thread shows, on recordings nobody here shaped, wherever the cut falls', async () => {
    const kinds: Record<string, number> = {};
    const why = new Set<string>();
    for (const file of files)
      for (const share of [0.1, 0.2, 0.5, 0.8]) {
        const o = await sameAsOneThread(file, share);
        kinds[o.kind] = (kinds[o.kind] ?? 0) + 1;
        if (o.kind === 'read-on') why.add(o.why.replace(/contact [^ ']+/, 'contact K'));
      }
    const opens = files.length * 4;
    // most opens used the second thread's stretch; where one of its assumptions about the frames before the cut
    // did not hold (a cannon-es bounce's contact seen long before, a track that had reported), the open read on
    assert.ok((kinds['two-threads'] ?? 0) > opens / 2, JSON.stringify(kinds));
    assert.ok(why.has('contact K was taken as new but appeared before the stretch'), [...why].join('; '));
    assert.ok(why.has("contact K's track had reported before the stretch"), [...why].join('; '));
  });

  it('reads on from the cut when a line of the stretch is bad, and lists it with its line number in the file', async () => {
    const lines = fs.readFileSync(stack, 'utf8').split('\n').length;
    const bad = edited(stack, 'bad-line.rec.jsonl', (l, k) => (k === Math.floor(lines * 0.8) ? l.replace('"contacts":', '"contacts":7,"x":') : l));
    const o = await sameAsOneThread(bad, 0.5);
    assert.equal(o.kind, 'read-on');
    assert.match(o.kind === 'read-on' ? o.why : '', /line \d+ of the stretch is not a valid frame/);
    const one = await shown(bad, null);
    assert.equal((one.out as { skipped: string[] }).skipped.length, 1);
    assert.match((one.out as { skipped: string[] }).skipped[0], new RegExp(`line ${Math.floor(lines * 0.8)}\\b`));
  });

  it('reads on when the simulation blew up before the cut (the diagnosis after a blow-up has no energy change)', async () => {
    // body 1 (the first dynamic box) at 1e200 m/s in frame 20: its energy is not finite
    const blown = edited(stack, 'blown.rec.jsonl', (l, k) => (k === 21 ? l.replace(/("v":\[[^\]]*\].*?"v":)\[[^\]]*\]/, '$1[1e200,0,0]') : l));
    const o = await sameAsOneThread(blown, 0.5);
    assert.deepEqual(o.kind === 'read-on' ? o.why : o.kind, 'the simulation blew up before the stretch');
  });

  it('hands the re-solve budget over: run out before the cut, or spent in part before it', async () => {
    // our 10-box stack under 10 PGS sweeps: re-solves in most frames, and the budget runs out near frame 110
    const faulty = recordExample(dir, 'fault-pgs-too-few-iterations', 'pgs', 300);
    const one = (await shown(faulty, null)).out as { views: { notes: string[] }[]; index: unknown[] };
    assert.ok(
      one.views[2].notes.some((n) => /the exact re-solve budget ran out at frame \d+/.test(n)),
      'the budget runs out',
    );
    for (const share of [0.2, 0.8]) assert.equal((await sameAsOneThread(faulty, share)).kind, 'two-threads', `cut at ${share}`);
    // the stretch diagnosed before the open's pass (the budget not known yet) takes it as spent: used when the cut
    // comes after the frame at which it ran out, else the open reads on
    assert.equal((await sameAsOneThread(faulty, 0.8, {}, true)).kind, 'two-threads');
    const early = await sameAsOneThread(faulty, 0.2, {}, true);
    assert.equal(early.kind === 'read-on' ? early.why : early.kind, 'the stretch took the re-solve budget as spent before it, and it was not');
  });

  it('opens on one thread a gzip recording, one written in the last seconds, and one below the size threshold', async () => {
    const gz = path.join(dir, 'stack.rec.jsonl.gz');
    fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(stack)));
    assert.equal((await shown(gz, split(0.5))).opened.kind, 'one-thread');
    // a copy written now (the stack itself may be older than a minute by this test, on a busy machine)
    const recent = path.join(dir, 'recent.rec.jsonl');
    fs.copyFileSync(stack, recent);
    assert.equal((await shown(recent, { ...split(0.5), quietMs: 60_000 })).opened.kind, 'one-thread');
    assert.equal((await shown(stack, { ...split(0.5), minBytes: fs.statSync(stack).size + 1 })).opened.kind, 'one-thread');
  });

  it('keeps what a two-thread open found in the sidecar cache: the second open shows the same', async () => {
    const copy = path.join(dir, 'cached.rec.jsonl');
    fs.copyFileSync(stack, copy);
    const cache = { mode: 'always' as const };
    const first = await InspectorModel.fromRecording(copy, {}, undefined, undefined, cache, split(0.5));
    assert.equal(first.opened.kind, 'two-threads');
    const a = JSON.stringify({ t: first.timeline, f: first.findings });
    first.close();
    const second = await InspectorModel.fromRecording(copy, {}, undefined, undefined, cache, split(0.5));
    assert.equal(JSON.stringify({ t: second.timeline, f: second.findings }), a);
    second.close();
  });

  it('stops waiting for the second thread when the open is cancelled', async () => {
    // a second thread that never ends: the open waits at the cut until it is cancelled
    const stalled = (): StretchThread<TimelineRows> => ({ ...inThisThread(), mainDone: () => undefined });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('the open was cancelled')), 300);
    await assert.rejects(
      InspectorModel.fromRecording(stack, {}, undefined, ac.signal, { mode: 'off' }, { ...split(0.5), thread: stalled }),
      /the open was cancelled/,
    );
  });

  it('every thread the worker starts is bundled and shipped in the VSIX (else it would run from sources only)', () => {
    const started = new Set<string>();
    const walk = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.ts')) for (const m of fs.readFileSync(p, 'utf8').matchAll(/startThread\('([\w-]+)'/g)) started.add(m[1]);
      }
    };
    walk(path.join(ROOT, 'src'));
    assert.ok(started.has('stretchDiagnosis'), [...started].join(', '));
    const build = fs.readFileSync(path.join(ROOT, 'scripts', 'build.mjs'), 'utf8');
    const shipped = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8').split('\n');
    for (const name of started) {
      assert.ok(build.includes(`outfile: 'dist/${name}.js'`), `scripts/build.mjs bundles dist/${name}.js`);
      assert.ok(shipped.includes(`!dist/${name}.js`), `.vscodeignore ships dist/${name}.js`);
    }
  });

  it('on a real second thread, shows what one thread shows', async () => {
    const one = await shown(stack, null);
    const two = await shown(stack, { minBytes: 0, share: 0.5, quietMs: 0 });
    // the thread may still be starting when this one reaches the cut: then it reads on alone
    assert.ok(two.opened.kind === 'two-threads' || two.opened.kind === 'read-on', JSON.stringify(two.opened));
    assert.deepStrictEqual(two.out, one.out);
  });
});
