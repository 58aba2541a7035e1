import { readFileSync } from 'node:fs';
import { parseSceneFile } from '../src/format/scene.js';
import { World } from '../src/engine/world/world.js';
import { frameFromWorld, headerFromWorld } from '../src/format/worldRecording.js';
import { solveTimeBodies } from '../src/session/preSolve.js';
import { toContactPoint } from '../src/format/recording.js';
import { assembleBlocks, denseProblem } from '../src/engine/assembly.js';
import { solve } from '../src/engine/solvers/solve.js';
const s = parseSceneFile(readFileSync('examples/fault-pgs-too-few-iterations.scene.json', 'utf8'), 'x').scenarios[0];
const world = new World(s.desc); const h = headerFromWorld(world);
let prev; for (let k = 0; k < 60; k++) { const f = frameFromWorld(world, world.step()); if (k === 59) {
  const st = solveTimeBodies(h, f, prev); if (!st.ok) throw 0;
  const cs = f.contacts.map(toContactPoint);
  const p = denseProblem(assembleBlocks(st.bodies, cs, { dt: h.dt, baumgarte: true, erp: 0.2, restVelocityThreshold: 0.5, regularization: 0 }), cs, 1e-12);
  for (const tol of [1e-6, 1e-8, 1e-9]) { const t0 = performance.now(); const r = solve(p, { solver: 'ipm', tolerance: tol, maxIterations: 80 }); console.log(cs.length, 'contacts tol', tol, r.status.kind, r.iterations, 'it', (performance.now() - t0).toFixed(1), 'ms'); }
  for (const tol of [1e-8]) { const t0 = performance.now(); const r = solve(p, { solver: 'newton', tolerance: tol, maxIterations: 200 }, f.solver.lambda); console.log('newton warm', r.status.kind, r.iterations, (performance.now() - t0).toFixed(1)); }
} prev = f; }
import { choleskyWithFallback } from '../src/engine/math/cholesky.js';
{
const world2 = new World(s.desc); const h2 = headerFromWorld(world2);
let prev2; for (let k = 0; k < 60; k++) { const f = frameFromWorld(world2, world2.step()); if (k === 59) {
  const st = solveTimeBodies(h2, f, prev2); if (!st.ok) throw 0;
  const cs = f.contacts.map(toContactPoint);
  const p = denseProblem(assembleBlocks(st.bodies, cs, { dt: h2.dt, baumgarte: true, erp: 0.2, restVelocityThreshold: 0.5, regularization: 0 }), cs, 1e-12);
  const n = p.size; const t0 = performance.now(); for (let r = 0; r < 20; r++) { const A = Float64Array.from(p.A); for (let i = 0; i < n; i++) A[i*n+i] += 1e-6; choleskyWithFallback(A, n, {}); } console.log('chol', n, ((performance.now() - t0)/20).toFixed(2), 'ms');
  for (let r = 0; r < 3; r++) { const t1 = performance.now(); const res = solve(p, { solver: 'ipm', tolerance: 1e-6, maxIterations: 80 }); console.log('ipm', res.iterations, (performance.now() - t1).toFixed(1), 'ms'); }
} prev2 = f; } }
