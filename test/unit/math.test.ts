/** Cone projection, KKT checker, Cholesky fallback, problem validation, assembly conventions. */
import assert from 'node:assert/strict';
import { projectCone } from '../../src/engine/cone.js';
import { kkt, KktWorkspace, kktInto, rowBand } from '../../src/engine/kkt.js';
import { choleskyInto, choleskySolve, choleskyWithFallback, symmetricEnvelope } from '../../src/engine/math/cholesky.js';
import { type BodyState, makeProblem, ProblemError } from '../../src/engine/problem.js';
import { assembleProblem } from '../../src/engine/assembly.js';
import { cross, tangentBasis, type Vec3 } from '../../src/engine/math/vec3.js';
import { body, close, contact, staticBody } from './helpers.js';

const proj = (p: number[], mu: number): number[] => {
  const a = Float64Array.from(p);
  projectCone(a, 0, mu, a);
  return Array.from(a);
};

describe('cone projection (docs/physics.md "The QP-SOCP and its KKT conditions")', () => {
  it('case 1 keeps interior points, case 2 maps the polar cone to 0, case 3 lands on the surface', () => {
    assert.deepEqual(proj([2, 0.5, 0.5], 0.5), [2, 0.5, 0.5]);
    assert.deepEqual(proj([-2, 0.5, 0], 0.5), [0, 0, 0]);
    const q = proj([15, -30, -40], 0.3);
    close(q[0], 30 / 1.09, 1e-12);
    close(Math.hypot(q[1], q[2]), 0.3 * q[0], 1e-12);
  });
  it('μ = 0 is the half-line (eq. 34); p_t = 0 with p_n < 0 is case 2 (no division by zero)', () => {
    assert.deepEqual(proj([-1, 3, 4], 0), [0, 0, 0]);
    assert.deepEqual(proj([2, 3, 4], 0), [2, 0, 0]);
    assert.deepEqual(proj([-1, 0, 0], 0.7), [0, 0, 0]);
  });
  it('is a projection: idempotent, and p − Proj(p) is in the polar cone and orthogonal to Proj(p) (Moreau)', () => {
    let s = 12345;
    const rnd = (): number => {
      s = (1103515245 * s + 12345) % 2147483648;
      return (s / 2147483648) * 2 - 1;
    };
    for (let k = 0; k < 2000; k++) {
      const p = [rnd() * 10, rnd() * 10, rnd() * 10],
        mu = [0.1, 0.5, 1, 1.5][k % 4];
      const q = proj(p, mu),
        r = p.map((x, i) => x - q[i]);
      assert.deepEqual(
        proj(q, mu).map((x) => +x.toFixed(9)),
        q.map((x) => +x.toFixed(9)),
      );
      assert.ok(Math.abs(r[0] * q[0] + r[1] * q[1] + r[2] * q[2]) < 1e-9);
      assert.ok(mu * Math.hypot(r[1], r[2]) <= -r[0] + 1e-9, 'p − Proj(p) ∈ −K*');
    }
  });
});

describe('KKT checker', () => {
  it('is zero at the exact optimum and names the violated condition elsewhere', () => {
    const p = makeProblem({ A: [0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1], b: [1.5, -0.2, 0], mu: [0.5] });
    assert.ok(kkt(p, [15, -2, 0]).maxRel < 1e-15);
    const outside = kkt(p, [1, 5, 0]);
    assert.ok(outside.primalAbs > 4);
    const notOptimal = kkt(p, [10, 0, 0]);
    assert.ok(notOptimal.naturalRel > 0.1);
    assert.equal(notOptimal.worstContact, 0);
  });
  it("over A's row band the product and every residual are the full product's bit for bit; a non-finite λ takes the full product", () => {
    // block-banded A (each contact coupled to its next two), rows of zeros, -0 entries, λ with exact zeros and signs
    const C = 9,
      n = 3 * C,
      A = new Array<number>(n * n).fill(0);
    let seed = 5;
    const rnd = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
    for (let i = 0; i < n; i++)
      for (let j = 0; j <= i; j++)
        if (Math.abs(Math.floor(i / 3) - Math.floor(j / 3)) <= 2 && i !== 13 && j !== 13) A[i * n + j] = A[j * n + i] = i === j ? 3 : rnd();
    A[2 * n + 5] = A[5 * n + 2] = -0;
    A[13 * n + 13] = 1; // the row of a contact pinned by zeros elsewhere
    const p = makeProblem({ A, b: Array.from({ length: n }, rnd), mu: Array.from({ length: C }, () => 0.4) });
    const band = rowBand(p.A, n);
    assert.deepEqual([band.first[0], band.last[0], band.first[13], band.last[13]], [0, 8, 13, 13]);
    for (let trial = 0; trial < 20; trial++) {
      const lam = Float64Array.from({ length: n }, (_, i) => (i % 5 === trial % 5 ? (trial % 2 ? -0 : 0) : rnd()));
      if (trial === 19) lam[4] = Number.NaN;
      const full = new KktWorkspace(n),
        banded = new KktWorkspace(n);
      const a = { ...kktInto(p, lam, full) },
        b = { ...kktInto(p, lam, banded, band) };
      assert.deepEqual(b, a, `trial ${trial}`);
      assert.deepEqual(banded.Alam, full.Alam);
      assert.deepEqual(banded.w, full.w);
    }
  });
});

describe('Cholesky with the ε fallback (docs/physics.md "Conditioning")', () => {
  it('solves an SPD system exactly and reports ε = 0 when asked to try unshifted first', () => {
    const A = Float64Array.from([4, 2, 0, 2, 3, 1, 0, 1, 2]);
    const f = choleskyWithFallback(A, 3, { tryUnshifted: true })!;
    assert.equal(f.regularization, 0);
    const x = new Float64Array(3);
    choleskySolve(f, Float64Array.from([2, 1, 3]), x);
    const r = [4 * x[0] + 2 * x[1] - 2, 2 * x[0] + 3 * x[1] + x[2] - 1, x[1] + 2 * x[2] - 3];
    assert.ok(r.every((v) => Math.abs(v) < 1e-14));
  });
  it('a singular PSD matrix needs ε: 1e-10 first, as in the seed', () => {
    const A = Float64Array.from([1, 1, 1, 1]);
    assert.equal(choleskyWithFallback(A, 2, { tryUnshifted: true })!.regularization, 1e-10);
  });
  it('an indefinite matrix fails even at ε = 1e-6 (returns null, no NaN)', () => {
    assert.equal(choleskyWithFallback(Float64Array.from([1, 2, 2, 1]), 2), null);
  });
  it('the envelope holds every non-zero, and solving inside it gives the dense solve bit for bit', () => {
    // a block-banded SPD matrix with a far coupling (rows 0 and 10) and an empty row block (pinned)
    const n = 15,
      A = new Float64Array(n * n);
    let seed = 7;
    const rnd = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
    const set = (i: number, j: number, v: number): void => {
      A[i * n + j] = v;
      A[j * n + i] = v;
    };
    for (let i = 0; i < n; i++) for (let j = Math.max(0, i - 4); j < i; j++) if (i < 6 || i >= 9) set(i, j, rnd());
    set(10, 0, 0.3);
    for (let i = 0; i < n; i++) A[i * n + i] = 4;
    const env = symmetricEnvelope(A, n, 3);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) if (A[i * n + j] !== 0) assert.ok(env.first[i] <= j && j <= env.last[i], `A[${i}][${j}] outside the envelope`);
    assert.deepEqual(Array.from(env.first.slice(9, 12)), [0, 0, 0]); // row 10 reaches column 0: whole block
    assert.deepEqual(Array.from(env.last.slice(0, 3)), [11, 11, 11]); // and symmetrically column 0 reaches row 10
    assert.deepEqual(Array.from(env.first.slice(6, 9)), [6, 6, 6]); // no lower entries: its own diagonal block
    const f = choleskyWithFallback(A, n, { tryUnshifted: true })!;
    const rhs = Float64Array.from({ length: n }, rnd);
    const dense = new Float64Array(n),
      banded = new Float64Array(n);
    choleskySolve(f, rhs, dense);
    choleskySolve(f, rhs, banded, env);
    assert.deepEqual(banded, dense);
  });
  it('the envelope factor is the dense textbook Cholesky bit for bit (ragged envelopes, rows taken in pairs)', () => {
    // the plain column Cholesky (Golub & Van Loan, Matrix Computations, Algorithm 4.2.1), every product summed
    const dense = (a: Float64Array, n: number, shift: number): Float64Array => {
      const L = new Float64Array(n * n);
      for (let j = 0; j < n; j++) {
        let d = a[j * n + j] + shift;
        for (let k = 0; k < j; k++) d -= L[j * n + k] * L[j * n + k];
        L[j * n + j] = Math.sqrt(d);
        for (let i = j + 1; i < n; i++) {
          let s = a[i * n + j];
          for (let k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
          L[i * n + j] = s / L[j * n + j];
        }
      }
      return L;
    };
    let seed = 11;
    const rnd = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
    for (let trial = 0; trial < 40; trial++) {
      const n = 5 + (trial % 23),
        A = new Float64Array(n * n);
      // each row reaches back a random distance (ragged, non-monotone envelope), SPD by diagonal dominance
      for (let i = 0; i < n; i++) {
        const reach = Math.floor((rnd() + 0.5) * Math.min(i + 1, 7));
        for (let j = i - reach; j < i; j++) if (rnd() > -0.3) A[i * n + j] = A[j * n + i] = rnd();
        A[i * n + i] = 8;
      }
      const L = new Float64Array(n * n).fill(Number.NaN);
      assert.ok(choleskyInto(A, n, trial % 2 ? 1e-10 : 0, L));
      assert.deepEqual(L, dense(A, n, trial % 2 ? 1e-10 : 0), `trial ${trial}, n = ${n}`);
    }
  });
});

describe('problem validation names the field', () => {
  const cases: [() => unknown, RegExp][] = [
    [() => makeProblem({ A: [1], b: [1, 2, 3], mu: [0] }), /^A: has 1 entries, expected \(3C\)² = 9/],
    [() => makeProblem({ A: new Array(9).fill(0), b: [1, 2], mu: [0] }), /^b: has 2 entries/],
    [() => makeProblem({ A: [1, 0, 0, 0, 1, 0, 0, 0, NaN], b: [1, 2, 3], mu: [0] }), /^A\[2\]\[2\]: is NaN/],
    [() => makeProblem({ A: [1, 0.5, 0, 0, 1, 0, 0, 0, 1], b: [1, 2, 3], mu: [0] }), /^A\[0\]\[1\]: A is not symmetric/],
    [() => makeProblem({ A: [1, 0, 0, 0, 1, 0, 0, 0, 1], b: [1, 2, 3], mu: [-1] }), /^mu\[0\]: is -1/],
    [() => makeProblem({ A: [-1, 0, 0, 0, 1, 0, 0, 0, 1], b: [1, 2, 3], mu: [0] }), /^A\[0\]\[0\]: diagonal entry -1 is negative/],
  ];
  for (const [f, re] of cases) {
    it(re.source, () => assert.throws(f, (e: unknown) => e instanceof ProblemError && re.test(e.message)));
  }
});

describe('assembly conventions (docs/physics.md "Conventions")', () => {
  it('tangent basis is right-handed: t1 × t2 = n for many normals', () => {
    for (const n of [
      [0, 0, 1],
      [0, 0, -1],
      [1, 0, 0],
      [0.6, 0, 0.8],
      [0.36, 0.48, 0.8],
    ] as Vec3[]) {
      const [t1, t2] = tangentBasis(n);
      const c = cross(t1, t2);
      for (let k = 0; k < 3; k++) close(c[k], n[k], 1e-15);
    }
  });
  it('ġ_n < 0 when approaching; λn > 0 pushes a along +n and b along −n; b decomposes into velocity + restitution + bias', () => {
    const bodies = [body(2, 1, [0, 0, 1], [0, 0, -3]), body(1, 1, [0, 0, 0], [0, 0, 1])];
    const p = assembleProblem(bodies, [contact(0, 1, [0, 0, 0.5], [0, 0, 1], 0, 0.5, 0.01)], { erp: 0.2, dt: 0.01, slop: 0.002, restVelocityThreshold: 0.5 });
    close(p.contacts![0].gapRate[0], -4, 1e-15, 'ġ_n');
    close(p.rhs!.velocity[0], 4, 1e-15);
    close(p.rhs!.restitution[0], 2, 1e-15);
    close(p.rhs!.bias[0], 0.16, 1e-15);
    close(p.b[0], 6.16, 1e-14);
  });
  it('restitution is zero below the rest-velocity threshold', () => {
    const bodies = [body(1, 1, [0, 0, 0.5], [0, 0, -0.2]), staticBody()];
    const p = assembleProblem(bodies, [contact(0, -1, [0, 0, 0], [0, 0, 1], 0, 1)], { restVelocityThreshold: 0.5, baumgarte: false });
    assert.equal(p.rhs!.restitution[0], 0);
    close(p.b[0], 0.2, 1e-15);
  });
  it('contacts sharing no body are not coupled (A_ij = 0, docs/physics.md "Contact model")', () => {
    const bodies = [body(1, 1, [0, 0, 0.5]), body(1, 1, [3, 0, 0.5]), staticBody()];
    const p = assembleProblem(bodies, [contact(0, -1, [0.1, 0, 0], [0, 0, 1], 0.5), contact(1, -1, [3.1, 0, 0], [0, 0, 1], 0.5)]);
    for (let i = 0; i < 3; i++) for (let j = 3; j < 6; j++) assert.equal(p.A[i * 6 + j], 0);
  });
  it('A = J M⁻¹ Jᵀ + εI of the dense J and M⁻¹, exactly symmetric, when contacts share one, two or no bodies (docs/physics.md "Delassus matrix")', () => {
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5;
    // 6 dynamic bodies with full (symmetric, non-diagonal) inverse inertias, one static body (index 6)
    const bodies: BodyState[] = Array.from({ length: 6 }, (_, d) => {
      const b = body(1 + d, 1, [rnd(), rnd(), rnd()]);
      const u = 0.1 * rnd(),
        v = 0.1 * rnd(),
        w = 0.1 * rnd();
      return { ...b, invInertiaWorld: [1, u, v, u, 1, w, v, w, 1] };
    });
    bodies.push(staticBody());
    const pairs: [number, number][] = [
      [0, 1],
      [1, 0],
      [0, 6],
      [2, 3],
      [0, 1],
      [3, -1],
      [4, 5],
      [2, 0],
      [5, 6],
      [1, 3],
      [4, -1],
      [0, 1],
    ];
    const cs = pairs.map(([a, b]) => {
      const nv: Vec3 = [rnd(), rnd(), 1];
      const len = Math.hypot(...nv);
      return contact(a, b, [rnd(), rnd(), rnd()], [nv[0] / len, nv[1] / len, nv[2] / len], 0.5);
    });
    const eps = 1e-10;
    const p = assembleProblem(bodies, cs, { regularization: eps });
    const n = 3 * cs.length,
      N = 6 * bodies.length;
    // dense J (n × N) from the rows [d, r × d] of body a and −[d, r × d] of body b, and dense M⁻¹ (N × N)
    const J = new Float64Array(n * N),
      Minv = new Float64Array(N * N);
    cs.forEach((c, i) => {
      [c.normal, c.t1, c.t2].forEach((d, k) => {
        for (const [bi, sign] of [
          [c.bodyA, 1],
          [c.bodyB, -1],
        ] as const) {
          if (bi < 0) continue;
          const x = bodies[bi].x,
            r: Vec3 = [c.point[0] - x[0], c.point[1] - x[1], c.point[2] - x[2]];
          const row = [...d, ...cross(r, d)];
          for (let q = 0; q < 6; q++) J[(3 * i + k) * N + 6 * bi + q] += sign * row[q];
        }
      });
    });
    bodies.forEach((b, d) => {
      for (let q = 0; q < 3; q++) Minv[(6 * d + q) * N + 6 * d + q] = b.invMass;
      for (let r = 0; r < 3; r++) for (let q = 0; q < 3; q++) Minv[(6 * d + 3 + r) * N + 6 * d + 3 + q] = b.invInertiaWorld[3 * r + q];
    });
    let scale = 0;
    for (let i = 0; i < n * n; i++) scale = Math.max(scale, Math.abs(p.A[i]));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let want = i === j ? eps : 0;
        for (let u = 0; u < N; u++) for (let w = 0; w < N; w++) want += J[i * N + u] * Minv[u * N + w] * J[j * N + w];
        close(p.A[i * n + j], want, 1e-13 * scale, `A[${i}][${j}]`);
        assert.equal(p.A[i * n + j], p.A[j * n + i], `A[${i}][${j}] = A[${j}][${i}]`);
      }
    }
    // contacts 3 (2–3) and 10 (4–world) share no body: their block is exactly zero
    for (let r = 0; r < 3; r++) for (let s = 0; s < 3; s++) assert.equal(p.A[(9 + r) * n + 30 + s], 0);
  });
  it('rejects a bad contact frame naming the field', () => {
    const bodies = [body(1, 1, [0, 0, 0.5]), staticBody()];
    const c = { ...contact(0, -1, [0, 0, 0], [0, 0, 1]), t2: [0, -1, 0] as Vec3 };
    assert.throws(() => assembleProblem(bodies, [c]), /contacts\[0\]\.t2: \(n, t1, t2\) must be right-handed/);
  });
});
