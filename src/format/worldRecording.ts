/** Turns our engine's world and frames into recording lines (docs/recording-format.md). */
import { type FrameRecord, type World, worstStatus } from '../engine/index.js';
import type { RecordedFrame, RecordedSolverStatus, RecordingHeader } from './recording.js';
import { CONVENTIONS, RECORDING_FORMAT, RECORDING_VERSION, fromShapeDesc } from './recording.js';

export const PRODUCER = { name: 'contact-lens', version: '0.1.0' };

export function headerFromWorld(world: World): RecordingHeader {
  const cfg = world.config;
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    producer: PRODUCER,
    units: 'SI',
    conventions: CONVENTIONS,
    dt: cfg.dt,
    gravity: cfg.gravity,
    bodies: world.bodies.map((b) => ({
      name: b.name,
      shape: fromShapeDesc(b.desc.shape),
      mass: b.isStatic ? null : b.mass,
      inertia: b.isStatic ? null : b.inertia,
      static: b.isStatic,
    })),
    solver: {
      name: cfg.solver.solver,
      // every solver here stops at its KKT tolerance or reports why not (docs/recording-format.md)
      kind: 'iterative-tolerance',
      ...cfg.solver,
      erp: cfg.erp,
      slop: cfg.slop,
      splitImpulse: cfg.splitImpulse,
      softening: cfg.softening,
      warmStart: cfg.warmStart,
      restVelocityThreshold: cfg.restVelocityThreshold,
    },
  };
}

/**
 * One frame line. The frame's islands are reported as one solve: λ in the frame's contact order, the
 * worst status, the largest iteration count, and after each iteration k = 1 … iterations the largest KKT
 * residual over the islands (an island that stopped earlier keeps its final residual; one measured only
 * after some iterations keeps its latest measurement until the next), so `residuals`
 * has exactly `iterations` entries as docs/recording-format.md defines them.
 */
export function frameFromWorld(world: World, f: FrameRecord): RecordedFrame {
  const lambda: number[] = [];
  for (const c of f.contacts) lambda.push(c.lambda[0], c.lambda[1], c.lambda[2]);
  const worst = worstStatus(f.islands);
  const status: RecordedSolverStatus = worst.kind,
    reason = worst.kind === 'converged' ? undefined : worst.reason;
  let iterations = 0;
  for (const isl of f.islands) iterations = Math.max(iterations, isl.result.iterations);
  const residuals: number[] = new Array(iterations).fill(0);
  for (const isl of f.islands) {
    const h = isl.result.history.residual; // h[j] after at[j] iterations (at[j] = j unless only some were measured)
    const at = isl.result.history.iterations;
    if (h.length === 0) continue;
    // the latest measured residual at or before iteration k (docs/physics.md "PGS": the world step's PGS
    // measures after sweeps 1, 2, 4, 8, … and the last)
    let j = 0;
    for (let k = 1; k <= iterations; k++) {
      if (at) while (j + 1 < h.length && at[j + 1] <= k) j++;
      else j = Math.min(k, h.length - 1);
      residuals[k - 1] = Math.max(residuals[k - 1], h[j]);
    }
  }
  return {
    frame: f.frame,
    time: f.time,
    bodies: world.bodies.map((b) => ({ x: b.x, q: b.q, v: b.v, w: b.w })),
    pre: f.preState.map((s) => ({ v: s.v, w: s.w, x: s.x, q: s.q })),
    contacts: f.contacts.map(({ contact: c }) => ({
      a: c.bodyA,
      b: c.bodyB,
      point: c.point,
      normal: c.normal,
      t1: c.t1,
      t2: c.t2,
      depth: c.penetration,
      ...(c.gap ? { gap: c.gap } : {}),
      mu: c.mu,
      e: c.restitution,
      ...(c.featureId ? { feature: c.featureId } : {}),
    })),
    solver: { name: world.config.solver.solver, status, ...(reason ? { reason } : {}), iterations, residuals, lambda },
    energy: {
      kinetic: f.energy.kineticLinear + f.energy.kineticRotational,
      kineticLinear: f.energy.kineticLinear,
      kineticRotational: f.energy.kineticRotational,
      potential: f.energy.potential,
      total: f.energy.total,
      normalWork: f.energy.normalWork,
      frictionWork: f.energy.frictionWork,
      biasWork: f.energy.biasWork,
      integratorResidual: f.energy.integratorResidual,
    },
  };
}
