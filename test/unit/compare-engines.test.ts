/**
 * A scene file's scenario in five engines: `simulate --engine`, `compare` (one row per engine, each run a
 * recording that opens with our reader and is compared with ours), planes at any normal in every engine, and a
 * missing engine as one line saying how to install it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseSceneFile } from '../../src/format/scene.js';
import { RecordingReader } from '../../src/format/recordingFile.js';
import { readFileSync } from 'node:fs';
import { startEngineRun } from '../../src/session/engines/engineRun.js';
import { ENGINE_PACKAGES, EngineUnavailableError, locatePackage } from '../../src/session/engines/enginePackages.js';
import { PEER_ENGINE_NAMES } from '../../src/session/engines/types.js';
import { runCliAsync } from '../cliRun.js';
const run = (args: string[]) => runCliAsync(args, { splitLines: true });

const ROOT = resolve(__dirname, '..', '..');
const STACK = join(ROOT, 'examples', 'box-stack-10.scene.json');

describe('engines: a scenario in cannon-es, Rapier, Jolt, MuJoCo and ours', function () {
  this.timeout(300_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'contact-lens-engines-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('compare: one row per engine with every figure, each run recorded and compared with ours', async () => {
    const r = await run(['compare', STACK, '--frames', '20', '--json', '--out', dir]);
    assert.equal(r.code, 0, r.err.join('\n'));
    const t = JSON.parse(r.out[0]) as { scenario: string; frames: number; engines: Record<string, unknown>[] };
    assert.equal(t.scenario, 'box-stack-10');
    assert.deepEqual(
      t.engines.map((e) => e.engine),
      ['ours', 'cannon', 'rapier', 'jolt', 'mujoco'],
    );
    for (const e of t.engines) {
      assert.equal(e.status, 'ok', `${e.engine}: ${e.error}`);
      for (const k of ['energyDrift', 'injected', 'maxPenetration', 'jitter', 'coneViolations', 'iterationsMean', 'stepMs', 'lambdaSource', 'recording'])
        assert.ok(k in e, `${e.engine}: ${k}`);
      assert.equal(e.frames, 20);
      const reader = RecordingReader.openSync(e.recording as string);
      assert.equal(reader.errorCount, 0, `${e.engine}: ${reader.errors[0]?.message}`);
      assert.equal(reader.frameCount, 20);
      reader.close();
      if (e.engine === 'ours') assert.equal('divergence' in e, false);
      else {
        // every peer parts from ours in the first frame (other contact sets, problems or impulses)
        const d = e.divergence as { frame: number; kind: string };
        assert.equal(d.frame, 0, String(e.engine));
        assert.ok(['contact-set', 'problem', 'solve', 'state'].includes(d.kind));
      }
    }
    const ours = t.engines[0] as { energyDrift: number; maxPenetration: number };
    assert.ok(Math.abs(ours.energyDrift) < 1e-3, `our stack keeps its energy: ${ours.energyDrift}`);
    assert.deepEqual((t.engines[2].lambdaSource as { tangent: string }).tangent, 'fitted');
    const text = await run(['compare', STACK, '--frames', '5', '--engines', 'ours,cannon', '--out', dir]);
    assert.equal(text.code, 0);
    assert.match(text.out[0], /^box-stack-10 \(.*box-stack-10\.scene\.json:\d+\): 5 frames, E₀ = 490\.5 J; recordings in /);
    assert.ok(text.out.some((l) => l.startsWith('Contact Lens (coulomb)')));
    assert.ok(text.out.some((l) => /^cannon-es \d/.test(l) && /frame 0: \w/.test(l)));
  });

  it('simulate --engine writes a recording of that engine (its λ source declared); bad choices are one line, exit 2', async () => {
    const out = join(dir, 'jolt.rec.jsonl');
    const r = await run(['simulate', STACK, '--engine', 'jolt', '--frames', '10', '--out', out]);
    assert.equal(r.code, 0, r.err.join('\n'));
    const reader = RecordingReader.openSync(out);
    assert.equal(reader.header.producer.name, 'jolt-physics');
    assert.deepEqual(reader.header.solver?.lambdaSource, { normal: 'fitted', tangent: 'fitted' });
    reader.close();
    assert.match(
      (await run(['simulate', STACK, '--engine', 'bullet', '--out', join(dir, 'x.rec.jsonl')])).err[0],
      /--engine must be one of ours, cannon, rapier, jolt, mujoco/,
    );
    const both = await run(['simulate', STACK, '--engine', 'cannon', '--solver', 'ipm', '--out', join(dir, 'y.rec.jsonl')]);
    assert.equal(both.code, 2);
    assert.match(both.err[0], /--solver chooses one of our solvers; cannon runs its own/);
  });

  it('a plane at any normal maps onto every engine: the box on the incline touches it along its normal and stays put', async () => {
    const file = join(ROOT, 'examples', 'incline-friction-angle.scene.json');
    const s = parseSceneFile(readFileSync(file, 'utf8'), file).scenarios.find((x) => x.desc.name === 'incline-below-friction-angle')!;
    const plane = s.desc.bodies[0].shape as { readonly normal: readonly number[] };
    for (const engine of PEER_ENGINE_NAMES) {
      const runOf = await startEngineRun(engine, s.desc, { frames: 30 });
      let last = runOf.next()!;
      for (let k = 1; k < 30; k++) last = runOf.next()!;
      runOf.dispose();
      const f = last.frame;
      assert.ok(f.contacts.length > 0, `${engine}: no contact`);
      for (const c of f.contacts) {
        assert.equal(c.b, 0, engine);
        assert.ok(Math.hypot(...c.normal.map((x, k) => x - plane.normal[k])) < 1e-5, `${engine}: normal ${c.normal}`);
      }
      const x0 = s.desc.bodies[1].position,
        x = f.bodies[1].x;
      assert.ok(Math.hypot(x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]) < 0.02, `${engine}: the box moved to ${x}`);
    }
  });

  it('the build ships exactly the runtime files the loader looks for (scripts/build.mjs ENGINES = ENGINE_PACKAGES)', () => {
    const build = readFileSync(join(ROOT, 'scripts', 'build.mjs'), 'utf8');
    const listed = [...build.matchAll(/\['([^']+)', '([^']+)', '([^']+)'\]/g)].map((m) => [m[1], m[2], m[3]]);
    assert.deepEqual(
      listed,
      Object.values(ENGINE_PACKAGES).map((p) => [p.package, p.file, p.shipped]),
    );
    assert.match(readFileSync(join(ROOT, '.vscodeignore'), 'utf8'), /^!dist\/engines\/\*\*$/m);
  });

  it('an engine that is not installed: one line saying how to get it', () => {
    const missing = locatePackage({ ...ENGINE_PACKAGES.jolt, package: 'no-such-engine-package' }, [dir], [join(ROOT, 'node_modules')]);
    assert.ok('missing' in missing);
    const e = new EngineUnavailableError('jolt', missing.missing);
    assert.match(
      e.message,
      /^the Jolt engine is not available \(no-such-engine-package is not in node_modules .*\): install it with `npm install jolt-physics`/,
    );
    const found = locatePackage(ENGINE_PACKAGES.cannon, [dir], [join(ROOT, 'node_modules')]);
    assert.ok('path' in found && found.path.endsWith('cannon-es.cjs.js') && /^\d+\.\d+/.test(found.version));
  });

  it('simulate --engine cannon on a scene that blows up: exit 1 naming the frame, the frames before it kept (the peer run stops like ours)', async () => {
    const scene = join(dir, 'fast.scene.json');
    const ground = { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, static: true };
    // 3e48 m/s over Δt = 10 s leaves the range a recording holds (±1e50 m) within a few frames, in any engine
    const ball = { name: 'ball', shape: { sphere: { radius: 0.1 } }, mass: 1, position: [0, 0, 1], velocity: [0, 0, 3e48] };
    writeFileSync(scene, JSON.stringify({ scenarios: [{ name: 'fast', frames: 20, dt: 10, bodies: [ground, ball] }] }));
    const out = join(dir, 'fast.cannon.rec.jsonl');
    const r = await run(['simulate', scene, '--engine', 'cannon', '--out', out]);
    assert.equal(r.code, 1, r.err.join('\n'));
    const line = r.err.find((l) => /blows up at frame (\d+)/.test(l)) ?? '';
    assert.match(line, /fast: the simulation blows up at frame \d+: body 1 \(ball\) .*wrote the \d+ frames? before it/);
    const reader = RecordingReader.openSync(out);
    try {
      assert.equal(reader.frameCount, Number(/frame (\d+)/.exec(line)![1]));
    } finally {
      reader.close();
    }
  });
});
