/**
 * A status never overstates: the Coulomb solver's "converged" holds contact by contact in scale-free terms
 * (open ⇒ λ = 0 and u_n ≥ 0; closed ⇒ u_n = 0, sticking or sliding on the cone's edge), whatever μ and the
 * size of b; and a scene whose simulation blows up is a failed check and a failed simulate, never a ✓.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { coulombLawResidual } from '../../src/engine/coulombMerit.js';
import { makeProblem, type ContactProblem } from '../../src/engine/problem.js';
import { COULOMB_LAW_TOLERANCE } from '../../src/engine/solvers/coulomb.js';
import { solve } from '../../src/engine/solvers/solve.js';
import { SOLVER_NAMES } from '../../src/engine/solvers/types.js';
import { RecordingReader } from '../../src/format/recordingFile.js';
import { rng } from '../rng.js';

function lawOf(p: ContactProblem, lambda: Float64Array): number {
  const u = new Float64Array(p.size);
  for (let i = 0; i < p.size; i++) {
    let s = -p.b[i];
    for (let j = 0; j < p.size; j++) s += p.A[i * p.size + j] * lambda[j];
    u[i] = s;
  }
  return coulombLawResidual(p, lambda, u).value;
}

/** A random positive definite A = MᵀM + δI (3C × 3C), b and μ: `scale` multiplies b. */
function randomProblem(r: () => number, C: number, scale: number, muMax: number): ContactProblem {
  const n = 3 * C;
  const M = Array.from({ length: n * n }, () => r() - 0.5);
  const A = new Array<number>(n * n).fill(0);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) A[i * n + j] += M[k * n + i] * M[k * n + j];
  for (let i = 0; i < n; i++) A[i * n + i] += 0.1;
  const b = Array.from({ length: n }, (_, i) => scale * (i % 3 === 0 ? r() * 2 - 0.5 : r() - 0.5));
  const mu = Array.from({ length: C }, () => r() * muMax);
  return makeProblem({ A, b, mu });
}

describe('status honesty: Coulomb’s law per contact, blow-ups', function () {
  this.timeout(300_000);

  it('A = I, b = (1, 1, 0), μ = 1e9: never "converged" with λ = 0 (the contact approaching at 1 m/s); the sticking solution λ = (1, 1, 0)', () => {
    const p = makeProblem({ A: [1, 0, 0, 0, 1, 0, 0, 0, 1], b: [1, 1, 0], mu: [1e9] });
    const r = solve(p, { solver: 'coulomb' });
    assert.equal(r.status.kind, 'converged', r.status.kind === 'converged' ? '' : r.status.reason);
    assert.ok(Math.abs(r.lambda[0] - 1) < 1e-6 && Math.abs(r.lambda[1] - 1) < 1e-6 && Math.abs(r.lambda[2]) < 1e-6, Array.from(r.lambda).join(', '));
    assert.ok(lawOf(p, r.lambda) <= COULOMB_LAW_TOLERANCE);
    // from the old start (λ⁰ = 0, s⁰ = μ‖b_t‖ = 1e9) the fixed point stays at λ = 0: not "converged" any more
    const pinned = solve(p, { solver: 'coulomb', maxIterations: 5 }, [0, 0, 0]);
    if (pinned.status.kind === 'converged') assert.ok(lawOf(p, pinned.lambda) <= COULOMB_LAW_TOLERANCE);
    else assert.match(pinned.status.reason, /breaks Coulomb's law|Coulomb merit/);
  });

  it('‖b‖ ≈ 1e-9: the same λ as the problem scaled up, not λ = 0 (the merit is absolute there)', () => {
    const r = rng(7);
    for (let k = 0; k < 20; k++) {
      const big = randomProblem(r, 1 + (k % 3), 1, 1);
      const tiny = makeProblem({ A: Array.from(big.A), b: Array.from(big.b, (x) => x * 1e-10), mu: Array.from(big.mu) });
      const a = solve(big, { solver: 'coulomb' }),
        t = solve(tiny, { solver: 'coulomb' });
      if (a.status.kind !== 'converged' || t.status.kind !== 'converged') continue;
      const lamMax = Math.max(...Array.from(a.lambda, Math.abs));
      for (let i = 0; i < big.size; i++) assert.ok(Math.abs(t.lambda[i] * 1e10 - a.lambda[i]) <= 1e-4 * Math.max(1, lamMax), `problem ${k}, λ[${i}]`);
      assert.ok(lawOf(tiny, t.lambda) <= COULOMB_LAW_TOLERANCE);
    }
  });

  it("a slow slip's direction counts in proportion to the slip: a 1e-5 m/s slip with friction 4.4e-6 rad off meets the law; a fast slip off by 0.1 rad or friction inside the cone while slipping does not", () => {
    // A = I, μ = 0.5, λn = 4 on the cone's edge (|λt| = 2) at an angle θ from −û, u = (0, ut·û): b = λ − u
    const reading = (ut: number, theta: number, lt = 2): number => {
      const lambda = Float64Array.of(4, -lt * Math.cos(theta), -lt * Math.sin(theta));
      const u = Float64Array.of(0, ut, 0);
      const p = makeProblem({ A: [1, 0, 0, 0, 1, 0, 0, 0, 1], b: Array.from(lambda, (l, i) => l - u[i]), mu: [0.5] });
      return coulombLawResidual(p, lambda, u).value;
    };
    // the natural map weighs the same pair at about ‖u_t‖·θ (relative): the smaller of stick (2.5e-6) and slide
    // (2.2e-6) readings used to exceed COULOMB_LAW_TOLERANCE here and kept the exact Coulomb solver iterating at a
    // merit of 1e-9 (the cannon-es stack's counterfactual re-solves)
    assert.ok(reading(1e-5, 4.4e-6) <= 1e-10, `slow slip: ${reading(1e-5, 4.4e-6)}`);
    assert.ok(reading(0.1, 0.1) > 1e-3, `fast slip 0.1 rad off: ${reading(0.1, 0.1)}`);
    assert.ok(reading(1e-3, 0, 1) > 1e-5, `slipping with friction inside the cone: ${reading(1e-3, 0, 1)}`);
    assert.equal(reading(0, 0.3, 1), 0, 'sticking inside the cone');
  });

  it('on random problems (μ up to 1e9, b from 1e-12 to 1e6), "converged" always meets its criterion contact by contact', () => {
    const r = rng(11);
    let converged = 0;
    for (let k = 0; k < 150; k++) {
      const scale = 10 ** Math.floor(r() * 18 - 12);
      const p = randomProblem(r, 1 + Math.floor(r() * 3), scale, r() < 0.3 ? 1e9 : 1.5);
      for (const solver of SOLVER_NAMES) {
        const res = solve(p, { solver });
        if (res.status.kind !== 'converged') continue;
        converged++;
        if (solver === 'coulomb')
          assert.ok(lawOf(p, res.lambda) <= COULOMB_LAW_TOLERANCE, `problem ${k} (b × ${scale}): Coulomb's law ${lawOf(p, res.lambda)}`);
        else assert.ok(res.kkt.maxRel <= 1e-4, `problem ${k}, ${solver}: KKT ${res.kkt.maxRel}`);
      }
    }
    assert.ok(converged > 300, `${converged} converged results checked`);
  });

  it('a scene that blows up: check fails with a blow-up line (was ✓), simulate exits 1 naming the frame and keeps the frames before', async () => {
    const dir = fs.mkdtempSync(join(tmpdir(), 'contact-lens-blowup-'));
    try {
      const scene = join(dir, 'b.scene.json');
      const ball = (v: number) => ({ name: 'ball', shape: { sphere: { radius: 0.1 } }, mass: 1, position: [0, 0, 1], velocity: [0, 0, v] });
      const ground = { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, static: true };
      fs.writeFileSync(
        scene,
        JSON.stringify({
          scenarios: [
            // 3e48 m/s over Δt = 10 s leaves the range a recording holds (±1e50 m) at frame 3
            { name: 'fast', frames: 20, dt: 10, bodies: [ground, ball(3e48)], expectations: [{ kind: 'maxPenetration', meters: 1e308 }] },
          ],
        }),
      );
      const io = { out: [] as string[], err: [] as string[] };
      const sink = { out: (l: string) => io.out.push(l), err: (l: string) => io.err.push(l) };
      assert.equal(await main(['check', scene], sink), 1);
      assert.ok(
        io.out.some((l) => /✗ blow-up: the simulation blows up at frame \d+/.test(l)),
        io.out.join('\n'),
      );
      const out = join(dir, 'o.rec.jsonl');
      io.err.length = 0;
      assert.equal(await main(['simulate', scene, '--out', out], sink), 1);
      const line = io.err.find((l) => /blows up at frame (\d+)/.test(l)) ?? '';
      assert.match(line, /fast: the simulation blows up at frame \d+: .*wrote the \d+ frames? before it/);
      const r = RecordingReader.openSync(out);
      try {
        // frames are numbered from 0: the frames before frame N are N frames
        assert.equal(r.frameCount, Number(/frame (\d+)/.exec(line)![1]));
      } finally {
        r.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
