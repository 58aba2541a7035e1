/**
 * kktFromW's shortcut for inactive contacts (λ = 0 with w in the dual cone: every residual exactly 0) gives the
 * report of the full per-contact formulas (kkt.ts; docs/physics.md "The QP-SOCP and its KKT conditions") bit for
 * bit, also on the dual cone's boundary, for μ = 0, signed zeros and non-finite w.
 */
import assert from 'node:assert/strict';
import { projectCone } from '../../src/engine/cone.js';
import { KktWorkspace, kktFromW, type KktReport } from '../../src/engine/kkt.js';
import { hypot2 } from '../../src/engine/math/hypot.js';

/** The per-contact residuals of kkt.ts written plainly, every contact through every formula. */
function reference(mu: Float64Array, lambda: Float64Array, w: Float64Array, b: Float64Array, rho: Float64Array): KktReport {
  const C = mu.length;
  let aNorm = 0,
    bNorm = 0,
    lamRef = 0,
    muMax = 0,
    firstNonFinite = -1;
  for (let c = 0; c < C; c++) {
    muMax = Math.max(muMax, mu[c]);
    for (let i = 3 * c; i < 3 * c + 3; i++) {
      if (firstNonFinite < 0 && !(Number.isFinite(lambda[i]) && Number.isFinite(w[i]) && Number.isFinite(b[i]))) firstNonFinite = i;
      aNorm = Math.max(aNorm, Math.abs(w[i] + b[i]));
      bNorm = Math.max(bNorm, Math.abs(b[i]));
      lamRef = Math.max(lamRef, Math.abs(lambda[i]));
    }
  }
  const wRef = Math.max(aNorm, bNorm);
  const lr = lamRef > 0 ? lamRef : 1,
    wr = wRef > 0 ? wRef : 1,
    jr = lr * wr * Math.max(1, muMax * muMax);
  const abs = [0, 0, 0, 0, 0];
  let worst = 0,
    worstContact = -1;
  const t = new Float64Array(3);
  for (let c = 0; c < C; c++) {
    const o = 3 * c,
      m = mu[c];
    const [ln, l1, l2] = [lambda[o], lambda[o + 1], lambda[o + 2]];
    const [wn, w1, w2] = [w[o], w[o + 1], w[o + 2]];
    const lt = hypot2(l1, l2),
      wt = hypot2(w1, w2);
    const primal = m > 0 ? Math.max(0, lt - m * ln, -ln) : Math.max(lt, -ln, 0);
    const dual = m > 0 ? Math.max(0, m * wt - wn) : Math.max(0, -wn);
    const comp = Math.abs(ln * wn + l1 * w1 + l2 * w2);
    const jordan = hypot2(m * m * ln * w1 + wn * l1, m * m * ln * w2 + wn * l2);
    t[0] = ln - rho[c] * wn;
    t[1] = l1 - rho[c] * w1;
    t[2] = l2 - rho[c] * w2;
    projectCone(t, 0, m, t);
    const natural = Math.max(Math.abs(ln - t[0]), Math.abs(l1 - t[1]), Math.abs(l2 - t[2]));
    [primal, dual, comp, jordan, natural].forEach((v, k) => {
      if (v > abs[k]) abs[k] = v;
    });
    const rel = Math.max(Math.max(primal, natural) / lr, dual / wr, comp / (lr * wr), jordan / jr);
    if (rel > worst) {
      worst = rel;
      worstContact = c;
    }
  }
  // the scales and maxima the report is built from; maxRel and the non-finite marking follow from them in kkt.ts
  return {
    primalAbs: abs[0],
    dualAbs: abs[1],
    compAbs: abs[2],
    jordanAbs: abs[3],
    naturalAbs: abs[4],
    lamRef,
    wRef,
    worstContact,
    firstNonFinite,
  } as unknown as KktReport;
}

describe('KKT residuals of inactive contacts', () => {
  it('equal the full formulas bit for bit on random, boundary, μ = 0, signed-zero and non-finite contacts', () => {
    let seed = 2024;
    const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    for (let trial = 0; trial < 400; trial++) {
      const C = 1 + (trial % 23);
      const mu = new Float64Array(C),
        lambda = new Float64Array(3 * C),
        w = new Float64Array(3 * C),
        b = new Float64Array(3 * C),
        rho = new Float64Array(C);
      let inactiveInCone = 0;
      for (let c = 0; c < C; c++) {
        const o = 3 * c,
          kind = (trial + 7 * c) % 9;
        mu[c] = kind === 3 ? 0 : 0.2 + 0.8 * Math.abs(rand());
        rho[c] = 0.5 + Math.abs(rand());
        for (let r = 0; r < 3; r++) b[o + r] = rand();
        w[o + 1] = rand();
        w[o + 2] = rand();
        const wt = hypot2(w[o + 1], w[o + 2]);
        if (kind <= 4) {
          // inactive, w in the dual cone: strictly inside, on its boundary, μ = 0, signed zeros
          w[o] = kind === 1 ? mu[c] * wt : mu[c] * wt + Math.abs(rand());
          if (kind === 3) w[o] = Math.abs(rand());
          if (kind === 4) lambda[o + 1] = -0;
          inactiveInCone++;
        } else if (kind === 5) {
          w[o] = mu[c] * wt - 0.1; // inactive, outside the dual cone: a dual residual
        } else if (kind === 6) {
          w[o] = trial % 2 === 0 ? Infinity : NaN; // non-finite w of an inactive contact
        } else {
          lambda[o] = Math.abs(rand());
          lambda[o + 1] = 0.3 * lambda[o] * rand();
          w[o] = rand();
        }
      }
      assert.ok(C < 3 || inactiveInCone > 0);
      const ws = new KktWorkspace(3 * C);
      const got = kktFromW(mu, lambda, w, b, rho, ws);
      const want = reference(mu, lambda, w, b, rho) as unknown as Record<string, number>;
      for (const key of ['primalAbs', 'dualAbs', 'compAbs', 'jordanAbs', 'naturalAbs', 'lamRef', 'wRef'] as const) {
        // markNonFinite turns a NaN maximum into +∞
        const expected = want.firstNonFinite >= 0 && key.endsWith('Abs') && Number.isNaN(want[key]) ? Infinity : want[key];
        assert.ok(Object.is(got[key], expected), `trial ${trial} ${key}: ${got[key]} vs ${expected}`);
      }
      if (want.firstNonFinite < 0) assert.equal(got.worstContact, want.worstContact, `trial ${trial} worst contact`);
      else assert.equal(got.maxRel, Infinity);
    }
  });
});
