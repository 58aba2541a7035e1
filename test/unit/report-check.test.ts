/**
 * `contact-lens report --check`: the checks an engine author runs on their writer's output
 * (docs/engine-authors.md). Planted writer bugs, each in a copy of one of our recordings, must fail the
 * check that names them; a correct file passes; missing optional data is "not checked", not a failure.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { parseSceneFile } from '../../src/format/scene.js';
import { World } from '../../src/engine/world/world.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { serializeFrame, serializeHeader, type RecordedFrame, type RecordingHeader } from '../../src/format/recording.js';
import { main } from '../../src/cli/main.js';

const ROOT = path.resolve(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-check-'));
const scene = path.join(ROOT, 'examples', 'box-stack-10.scene.json');
const desc = parseSceneFile(readFileSync(scene, 'utf8'), scene).scenarios[0].desc;
const world = new World({ ...desc, frames: 40 });
const header = headerFromWorld(world);
const frames: RecordedFrame[] = Array.from({ length: 40 }, () => frameFromWorld(world, world.step()));

function file(name: string, h: RecordingHeader, fs0: RecordedFrame[]): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, [serializeHeader(h), ...fs0.map(serializeFrame)].join('\n') + '\n');
  return p;
}
function check(p: string): { code: number; checks: Record<string, { outcome: string; detail: string }>; text: string[] } {
  const out: string[] = [];
  const code = main(['report', p, '--check', '--json'], { out: (l) => out.push(l), err: () => {} }) as number;
  const checks = Object.fromEntries((JSON.parse(out[0]).checks as { name: string; outcome: string; detail: string }[]).map((c) => [c.name, c]));
  const text: string[] = [];
  main(['report', p, '--check'], { out: (l) => text.push(l), err: () => {} });
  return { code, checks, text };
}

describe('report --check (writer checks)', () => {
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('our own recording passes every check', () => {
    const r = check(file('ok.rec.jsonl', header, frames));
    assert.equal(r.code, 0);
    assert.deepEqual(
      Object.values(r.checks).map((c) => c.outcome),
      ['ok', 'ok', 'ok', 'ok', 'ok'],
    );
    assert.match(r.checks['solver declarations'].detail, /^kind iterative-tolerance; λ: normal from the engine's solver, tangential from the engine's solver$/);
    assert.ok(r.text.some((l) => /^ {2}ok {5}velocity change: Δv = M⁻¹Jᵀλ holds for every body in 40 frames/.test(l)));
  });
  it('λ written as a force fails the velocity check and names the bug', () => {
    const r = check(
      file(
        'force.rec.jsonl',
        header,
        frames.map((f) => ({ ...f, solver: { ...f.solver, lambda: f.solver.lambda.map((x) => x / header.dt) } })),
      ),
    );
    assert.equal(r.code, 1);
    assert.equal(r.checks['velocity change'].outcome, 'failed');
    assert.match(r.checks['velocity change'].detail, /force/);
    assert.ok(r.text.some((l) => l.startsWith('  FAILED velocity change')));
  });
  it('the inverse inertia in the header fails the energy check (a level stack exerts no net torque, so Δv alone cannot tell)', () => {
    const inv: RecordingHeader = {
      ...header,
      bodies: header.bodies.map((b) =>
        b.inertia && b.inertia.length === 3 ? { ...b, inertia: b.inertia.map((x) => 1 / x) as unknown as typeof b.inertia } : b,
      ),
    };
    // a body spinning makes the angular energy visible
    const spun = frames.map((f) => ({ ...f, bodies: f.bodies.map((s, i) => (i === 1 ? { ...s, w: [0.5, 0.2, 0.1] as const } : s)) }));
    const r = check(file('inverse.rec.jsonl', inv, spun));
    assert.equal(r.code, 1);
    assert.equal(r.checks['recorded energy'].outcome, 'failed');
    assert.match(r.checks['recorded energy'].detail, /inertia/);
  });
  it('centimetres written as metres fail the scales check; missing optional data is not checked, not failed', () => {
    const cm: RecordingHeader = { ...header, gravity: header.gravity.map((g) => 100 * g) as unknown as RecordingHeader['gravity'] };
    const bare = frames.map(({ pre: _pre, energy: _energy, ...f }) => f);
    const r = check(file('cm.rec.jsonl', cm, bare));
    assert.equal(r.code, 1);
    assert.equal(r.checks.scales.outcome, 'failed');
    assert.match(r.checks.scales.detail, /\|gravity\| = 981 m\/s²/);
    assert.equal(r.checks['velocity change'].outcome, 'not checked');
    assert.match(r.checks['velocity change'].detail, /write it to check/);
    assert.equal(r.checks['recorded energy'].outcome, 'not checked');
    const fine = check(file('bare.rec.jsonl', header, bare));
    assert.equal(fine.code, 0, 'not checked is not a failure');
  });
  it('a line that cannot be read fails the readable check', () => {
    const p = file('broken.rec.jsonl', header, frames);
    fs.appendFileSync(p, '{"frame": 999, "time": 1e9, "bodies": []}\n');
    const r = check(p);
    assert.equal(r.code, 1);
    assert.equal(r.checks.readable.outcome, 'failed');
  });
  it('solver declarations: a known kind passes, an unknown kind or a malformed lambdaSource fails, absent is not checked', () => {
    const withKind = (kind: unknown): RecordingHeader => ({ ...header, solver: { ...header.solver!, kind } });
    const fixed = check(file('fixed.rec.jsonl', withKind('iterative-fixed'), frames));
    assert.equal(fixed.checks['solver declarations'].outcome, 'ok');
    assert.ok(fixed.text.some((l) => /^solver kind: iterative-fixed \(a fixed iteration count: the frames' statuses are labels/.test(l)));
    const bad = check(file('badkind.rec.jsonl', withKind('gauss-seidel'), frames));
    assert.equal(bad.code, 1);
    assert.match(bad.checks['solver declarations'].detail, /"gauss-seidel"; expected one of iterative-fixed, iterative-tolerance, direct/);
    const badLs = check(file('badls.rec.jsonl', { ...header, solver: { ...header.solver!, lambdaSource: { normal: 'guessed', tangent: 'solver' } } }, frames));
    assert.equal(badLs.code, 1);
    assert.match(badLs.checks['solver declarations'].detail, /lambdaSource\.normal is "guessed"; expected "solver" or "fitted"/);
    const noFriction = check(
      file(
        'nofric.rec.jsonl',
        { ...header, solver: { ...header.solver!, lambdaSource: { normal: 'solver', tangent: 'unavailable' } } },
        frames.map((f) => ({ ...f, solver: { ...f.solver, lambda: f.solver.lambda.map((x, i) => (i % 3 ? 0 : x)) } })),
      ),
    );
    assert.equal(noFriction.checks['velocity change'].outcome, 'not checked', 'λt written as 0 cannot explain Δv: not a writer bug when declared');
    assert.match(noFriction.checks['solver declarations'].detail, /tangential unavailable/);
    const { kind: _k, ...noKind } = header.solver!;
    const none = check(file('nokind.rec.jsonl', { ...header, solver: noKind as RecordingHeader['solver'] }, frames));
    assert.equal(none.checks['solver declarations'].outcome, 'not checked');
    assert.equal(none.code, 0);
  });
});
