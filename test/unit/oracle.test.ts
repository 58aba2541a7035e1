/**
 * Conformance against the independent oracle corpus (../shared/oracle/public, FORMAT.md): for every
 * instance, from (A, b, μ) and from the physical data, with every solver.
 */
import assert from 'node:assert/strict';
import { loadOracle, oracleAvailable, ORACLE_MISSING } from './oracle-corpus.js';
import { assembleOraclePhysical, type OracleInstance } from '../../src/format/oracle.js';
import { bodyVelocityChanges } from '../../src/engine/assembly.js';
import { kkt } from '../../src/engine/kkt.js';
import { objective, type ContactProblem } from '../../src/engine/problem.js';
import { solve } from '../../src/engine/solvers/solve.js';
import type { SolveOptions, SolveResult } from '../../src/engine/solvers/types.js';
import { allFiniteArr } from './helpers.js';

/** Tolerances of the issue / FORMAT.md "Recommended comparison" for a direct solver. */
const OBJECTIVE_REL = 1e-9;
const KKT_MAX_REL = 1e-8;
const W_REL = 1e-6;
const DV_REL = 1e-6;
const LAMBDA_REL = 1e-6;

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function checkAgainstOracle(inst: OracleInstance, p: ContactProblem, r: SolveResult, strict: { objective: number; w: number }): void {
  const s = inst.solution!;
  assert.ok(allFiniteArr(r.lambda), 'λ has NaN/Infinity');
  // The objective and KKT are always evaluated with the STORED A (incl. ε), as the oracle does.
  const f = objective(inst.matrix, r.lambda);
  const fErr = Math.abs(f - s.objective) / Math.max(1, Math.abs(s.objective));
  assert.ok(fErr <= strict.objective, `objective ${f} vs ${s.objective}: rel. error ${fErr.toExponential(2)}`);
  const k = kkt(inst.matrix, r.lambda);
  assert.ok(k.primalAbs <= 1e-12 * Math.max(1, k.lamRef), `λ outside the cone by ${k.primalAbs}`);
  const wErr = maxAbsDiff(r.w, s.w) / s.wRef;
  assert.ok(wErr <= strict.w, `w = Aλ − b differs from the oracle by ${wErr.toExponential(2)}·w_ref`);
  if (p.physics && s.deltaV) {
    const dv = bodyVelocityChanges(p, r.lambda);
    const ref = s.deltaV.flat();
    const scale = Math.max(
      ref.reduce((m, x) => Math.max(m, Math.abs(x)), 0),
      1e-12,
    );
    const dvErr = maxAbsDiff(dv, ref) / scale;
    assert.ok(dvErr <= DV_REL, `body Δv differs by ${dvErr.toExponential(2)} (relative)`);
  }
}

describe('oracle corpus conformance', () => {
  if (!oracleAvailable()) {
    it.skip(ORACLE_MISSING, () => undefined);
    return;
  }
  const corpus = loadOracle();
  it('has the 40 public instances and the physical data rebuilds the stored A and b', () => {
    assert.equal(corpus.length, 40);
    for (const inst of corpus) {
      if (!inst.physical) continue;
      const q = assembleOraclePhysical(inst);
      const aScale = inst.matrix.A.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      const bScale = inst.matrix.b.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      assert.ok(maxAbsDiff(q.A, inst.matrix.A) <= 1e-13 * aScale, `${inst.id}: A`);
      assert.ok(maxAbsDiff(q.b, inst.matrix.b) <= 1e-13 * Math.max(1, bScale), `${inst.id}: b`);
    }
  });

  for (const solver of ['newton', 'ipm'] as const) {
    describe(`${solver}: objective ≤ 1e-9·max(1,|f*|), KKT ≤ 1e-8, w and Δv to 1e-6, λ where unique`, () => {
      for (const inst of corpus) {
        for (const from of inst.physical ? (['matrix', 'physical'] as const) : (['matrix'] as const)) {
          it(`${inst.id} from ${from}`, () => {
            const p = from === 'matrix' ? inst.matrix : assembleOraclePhysical(inst);
            const r = solve(p, { solver });
            checkAgainstOracle(inst, p, r, { objective: OBJECTIVE_REL, w: W_REL });
            const k = kkt(inst.matrix, r.lambda);
            assert.ok(k.maxRel <= KKT_MAX_REL, `KKT max_rel ${k.maxRel.toExponential(2)} (status ${r.status.kind})`);
            if (inst.solution!.lambdaUnique) {
              const lErr = maxAbsDiff(r.lambda, inst.solution!.lambda) / inst.solution!.lamRef;
              assert.ok(lErr <= LAMBDA_REL, `λ differs by ${lErr.toExponential(2)}·λ_ref`);
            }
            // "converged" must mean what it says.
            if (r.status.kind === 'converged') assert.ok(r.kkt.maxRel <= 1e-10);
          });
        }
      }
    });
  }

  describe('pgs: honest status on every instance; frictionless instances match to 1e-6', () => {
    for (const inst of corpus) {
      const frictionless = inst.matrix.mu.every((m) => m === 0);
      for (const friction of ['coulomb-disk', 'cone'] as const) {
        it(`${inst.id} (${friction})`, () => {
          const opts: SolveOptions = frictionless
            ? { solver: 'pgs', friction, diagonalScaling: true, maxIterations: 500_000, tolerance: 1e-7 }
            : { solver: 'pgs', friction, maxIterations: 300, tolerance: 1e-6 };
          const r = solve(inst.matrix, opts);
          assert.ok(allFiniteArr(r.lambda));
          const k = kkt(inst.matrix, r.lambda);
          assert.ok(k.primalAbs <= 1e-12 * Math.max(1, k.lamRef), 'λ outside the cone');
          if (r.status.kind === 'converged') assert.ok(k.maxRel <= (opts.tolerance ?? 0), `reported converged at KKT ${k.maxRel}`);
          else assert.ok(k.maxRel > (opts.tolerance ?? 0), `KKT ${k.maxRel} met but status ${r.status.kind}`);
          if (frictionless) {
            assert.equal(r.status.kind, 'converged', r.status.kind === 'converged' ? '' : r.status.reason);
            checkAgainstOracle(inst, inst.matrix, r, { objective: 1e-6, w: 1e-6 });
          }
        });
      }
    }
  });
});
