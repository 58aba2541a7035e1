/**
 * Real engines from npm (cannon-es, Rapier, Jolt, MuJoCo, Bullet via ammo.js) recorded on the bundled peer scenes
 * (test/peers/): every recording opens with our reader, its `pre` velocities and λ explain the engine's
 * own velocity change (Δv = M⁻¹Jᵀλ, docs/physics.md "Recording consistency") to the stated tolerance, and the controlled experiment's
 * key facts hold (test/peers/README.md has the full table). Recordings go to os.tmpdir() and are deleted.
 * Stacks run 60 of their 300 frames here (30 for the Δv checks) to keep the file fast; the facts asserted
 * hold on that horizon.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openRecording, peerFacts, type PeerFacts } from '../peers/analyze.js';
import { recordPeer, type RecordPeerOptions } from '../peers/recordPeer.js';
import { parseRecordArgs } from '../peers/record.js';
import { peerScene, SCENE_NAMES, type SceneName } from '../peers/scenes.js';
import type { PeerEngineName } from '../peers/types.js';
import { contactFrame, yUpQuatToZUp, yUpToZUp, zUpQuatToYUp, zUpToYUp } from '../peers/convert.js';
import { rotate } from '../../src/engine/math/quat.js';
import { cross } from '../../src/engine/math/vec3.js';

const STACK_FRAMES = 60;
/** The Δv checks need fewer stack frames: the first contacts and the settling are in frames 0–30. */
const CHECK_STACK_FRAMES = 30;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-peers-test-'));
let count = 0;
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function run(
  engine: PeerEngineName,
  scene: SceneName,
  options: RecordPeerOptions = {},
): Promise<PeerFacts & { errors: number; statuses: Set<string>; contactFrames: number }> {
  const out = path.join(dir, `${count++}-${engine}-${scene}.rec.jsonl`);
  const frames = options.frames ?? (scene === 'stack' ? STACK_FRAMES : undefined);
  const file = await recordPeer(engine, scene, { ...options, frames, out });
  assert.equal(file, out);
  const rec = await openRecording(file);
  return {
    ...peerFacts(rec, scene),
    errors: rec.errors,
    statuses: new Set(rec.frames.map((f) => f.solver.status)),
    contactFrames: rec.frames.filter((f) => f.contacts.length > 0).length,
  };
}

/**
 * Worst |Δv − M⁻¹Jᵀλ| allowed per engine (linear m/s, angular rad/s). cannon-es: exact except the stack's
 * angular part — the format holds one point per contact and cannon-es gives each body its own (they differ
 * by the overlap, ≈ 1 cm here), so body b's friction torque is off by |p_a − p_b|·|λt|. Rapier: substeps
 * rotate the bodies (and their world inertia) inside the step and λt is fitted with λn fixed.
 * Bullet (ammo.js): see its entry. Jolt: λ fitted, exact up to Jolt's single-precision state (float32 ε ≈ 6e-8 × 8 m/s ≈ 5e-7 on the
 * bounce). MuJoCo: exact.
 */
const TOLERANCE: Record<PeerEngineName, { linear: number; angular: (s: SceneName) => number }> = {
  cannon: { linear: 1e-9, angular: (s) => (s === 'stack' ? 2e-2 : 1e-9) },
  rapier: { linear: 1e-3, angular: () => 1e-3 },
  jolt: { linear: 2e-6, angular: () => 2e-6 },
  mujoco: { linear: 1e-9, angular: () => 1e-9 },
  // λn from Bullet, λt fitted; in the stack each body has its own contact point (as cannon-es), so the
  // least-squares fit trades a little linear for the angular residual.
  bullet: { linear: 2e-3, angular: (s) => (s === 'stack' ? 5e-3 : 2e-6) },
};

describe('peer recorders: conventions', () => {
  it('y-up ↔ z-up maps vectors and orientations consistently (a y-up body axis lands on the z-up one)', () => {
    const v = [0.3, -1.2, 2.5] as const;
    assert.deepEqual(zUpToYUp(yUpToZUp(v)), [0.3, -1.2, 2.5]);
    assert.deepEqual(yUpToZUp([0, 1, 0]), [0, -0, 1]);
    const q = [Math.cos(0.4), Math.sin(0.4) * 0.6, Math.sin(0.4) * 0.8, 0] as const;
    const qz = yUpQuatToZUp(q);
    const axis = [0.2, 0.5, -0.7] as const;
    // Body-frame data do not change: a body vector rotated by q and then converted equals the same body
    // vector rotated by the converted orientation r ⊗ q (R(r)·R(q)·v).
    const a = yUpToZUp(rotate(q, axis)),
      c = rotate(qz, axis);
    for (let k = 0; k < 3; k++) assert.ok(Math.abs(a[k] - c[k]) < 1e-12, `component ${k}: ${a[k]} vs ${c[k]}`);
    const back = zUpQuatToYUp(qz);
    for (let k = 0; k < 4; k++) assert.ok(Math.abs(back[k] - q[k]) < 1e-12);
  });

  it('contact frames are right-handed: t1 × t2 = n, whatever tangent the engine offers', () => {
    for (const [n, t] of [
      [
        [0, 0, 1],
        [1, 0, 0],
      ],
      [
        [0, 0, -1],
        [0.3, 0.1, 0.2],
      ],
      [[0.6, 0, 0.8], undefined],
    ] as const) {
      const f = contactFrame(n, t);
      const c = cross(f.t1, f.t2);
      for (let k = 0; k < 3; k++) assert.ok(Math.abs(c[k] - f.n[k]) < 1e-12);
    }
  });

  it('the CLI arguments are parsed and bad ones name the option', () => {
    const a = parseRecordArgs(['jolt', 'stack', '--out', 'x.rec.jsonl', '--iterations', '40', '--no-stabilization', '--status', 'converged']);
    assert.deepEqual(a, { engine: 'jolt', scene: 'stack', options: { out: 'x.rec.jsonl', iterations: 40, stabilization: false, status: 'converged' } });
    assert.throws(() => parseRecordArgs(['havok', 'stack']), /engine: "havok"/);
    assert.throws(() => parseRecordArgs(['jolt', 'stack', '--iterations', '0']), /--iterations: "0"/);
    assert.throws(() => parseRecordArgs(['jolt', 'stack', '--status', 'done']), /--status: "done"/);
  });
});

for (const engine of ['cannon', 'rapier', 'jolt', 'mujoco', 'bullet'] as const) {
  describe(`peer recorder: ${engine}`, () => {
    for (const scene of SCENE_NAMES) {
      it(`${scene}: opens with our reader and Δv = M⁻¹Jᵀλ holds per body`, async () => {
        const f = await run(engine, scene, scene === 'stack' ? { frames: CHECK_STACK_FRAMES } : {});
        assert.equal(f.errors, 0);
        assert.equal(f.frames, scene === 'stack' ? CHECK_STACK_FRAMES : peerScene(scene).frames);
        assert.ok(f.contactFrames > 0, 'the scene has contacts');
        assert.equal(f.mismatch.frames, f.frames, 'every frame has pre');
        const tol = TOLERANCE[engine];
        assert.ok(f.mismatch.worstLinear <= tol.linear, `linear mismatch ${f.mismatch.worstLinear} > ${tol.linear} (frame ${f.mismatch.frame})`);
        assert.ok(
          f.mismatch.worstAngular <= tol.angular(scene),
          `angular mismatch ${f.mismatch.worstAngular} > ${tol.angular(scene)} (frame ${f.mismatch.frame})`,
        );
        assert.ok(f.mismatch.largestDv > 0.1, 'the contacts change velocities');
      });
    }
  });
}

describe('peer experiment: the facts the diagnosis must match (README table)', () => {
  it('the status label is what the caller asked for; the data do not change with it', async () => {
    const a = await run('jolt', 'slide', { status: 'converged', frames: 20 });
    const b = await run('jolt', 'slide', { status: 'max-iterations', frames: 20 });
    assert.deepEqual([...a.statuses], ['converged']);
    assert.deepEqual([...b.statuses], ['max-iterations']);
    assert.equal(a.largestRise, b.largestRise);
  });

  it('cannon-es stack: energy rises in many frames, none once the SPOOK position term is off', async () => {
    assert.ok((await run('cannon', 'stack')).rising >= 20);
    assert.equal((await run('cannon', 'stack', { stabilization: false })).rising, 0);
  });

  it('Jolt stack: the truncated velocity solve injects (≥ 20 frames at 10 iterations, ≤ 1 at 100); its position pass does not', async () => {
    const d = await run('jolt', 'stack');
    assert.ok(d.rising >= 20, `${d.rising}`);
    assert.ok((await run('jolt', 'stack', { iterations: 100 })).rising <= 1);
    assert.equal((await run('jolt', 'stack', { stabilization: false })).rising, d.rising);
  });

  it('MuJoCo stack: the soft-contact spring injects (≥ 30 frames), not the iteration count; without the spring nothing rises', async () => {
    const d = await run('mujoco', 'stack');
    assert.ok(d.rising >= 30, `${d.rising}`);
    assert.equal((await run('mujoco', 'stack', { iterations: 1000 })).rising, d.rising);
    assert.equal((await run('mujoco', 'stack', { stabilization: false })).rising, 0);
  });

  it('Rapier stack: no rise at its defaults; with the contact spring off the stack gains energy', async () => {
    assert.equal((await run('rapier', 'stack')).rising, 0);
    assert.ok((await run('rapier', 'stack', { stabilization: false })).rising >= 10);
  });

  it('Bullet stack: Baumgarte and the truncated solve add up — ERP 0 removes every rise, 100 iterations leave some', async () => {
    const d = (await run('bullet', 'stack')).rising;
    const many = (await run('bullet', 'stack', { iterations: 100 })).rising;
    assert.ok(d >= 20 && many >= 10, `${d}, ${many}`);
    assert.equal((await run('bullet', 'stack', { stabilization: false })).rising, 0);
  });

  it('bounce: cannon-es, Rapier, Jolt and MuJoCo return at most e·v (rebound/approach ≤ 0.5 + 2 %); Bullet returns more (its Baumgarte push on the overlap)', async () => {
    for (const engine of ['cannon', 'rapier', 'jolt', 'mujoco'] as const) {
      const f = await run(engine, 'bounce', { frames: 40 });
      assert.ok(f.reboundRatio !== undefined && f.reboundRatio > 0.4 && f.reboundRatio <= 0.51, `${engine}: ${f.reboundRatio}`);
    }
    const bullet = await run('bullet', 'bounce', { frames: 40 });
    assert.ok(bullet.reboundRatio !== undefined && bullet.reboundRatio > 0.52, `bullet: ${bullet.reboundRatio}`);
    const off = await run('bullet', 'bounce', { frames: 40, stabilization: false });
    assert.ok(off.reboundRatio !== undefined && off.reboundRatio <= 0.51, `bullet, ERP 0: ${off.reboundRatio}`);
  });

  it('slide: only MuJoCo lifts the box off the ground (its convex soft-contact model), by more than 10 cm', async () => {
    for (const engine of ['cannon', 'rapier', 'jolt', 'bullet'] as const) {
      const f = await run(engine, 'slide');
      assert.ok((f.maxLift ?? 0) < 2e-3, `${engine}: lift ${f.maxLift}`);
    }
    assert.ok(((await run('mujoco', 'slide')).maxLift ?? 0) > 0.1);
  });
});
