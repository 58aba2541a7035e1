/** The energy of a recorded frame's dynamic bodies (docs/physics.md "Energy ledger"): one sum for every caller. */
import type { RecordedFrame, RecordingHeader } from '../../format/recording.js';
import { worldInverseInertia } from '../../format/recording.js';
import { type BodyState, quatToMat3 } from '../../engine/index.js';

/** Kinetic Σ ½m|v|² + ½ωᵀI_wω and potential Σ −m g·x energy of the frame's dynamic bodies (J). */
export function frameEnergyParts(header: RecordingHeader, f: RecordedFrame): { kinetic: number; potential: number; total: number } {
  const g = header.gravity;
  let kinetic = 0,
    potential = 0;
  const bodies = header.bodies;
  // a loop with scalars (no closure, no array per body): it runs for every body of every frame, twice per open
  for (let i = 0; i < bodies.length; i++) {
    const b = bodies[i];
    if (b.static || b.mass === null) continue;
    const s = f.bodies[i];
    kinetic += 0.5 * b.mass * (s.v[0] ** 2 + s.v[1] ** 2 + s.v[2] ** 2);
    potential -= b.mass * (g[0] * s.x[0] + g[1] * s.x[1] + g[2] * s.x[2]);
    // ½ωᵀI_wω with I_w = R I_b Rᵀ: ½ (Rᵀω)ᵀ I_b (Rᵀω)
    const R = quatToMat3(s.q);
    const w = s.w;
    const wb0 = w[0] * R[0] + w[1] * R[3] + w[2] * R[6],
      wb1 = w[0] * R[1] + w[1] * R[4] + w[2] * R[7],
      wb2 = w[0] * R[2] + w[1] * R[5] + w[2] * R[8];
    const I = b.inertia;
    if (I && I.length === 3) kinetic += 0.5 * (I[0] * wb0 ** 2 + I[1] * wb1 ** 2 + I[2] * wb2 ** 2);
    else if (I && I.length === 9) {
      kinetic +=
        0.5 * (wb0 * (I[0] * wb0 + I[1] * wb1 + I[2] * wb2) + wb1 * (I[3] * wb0 + I[4] * wb1 + I[5] * wb2) + wb2 * (I[6] * wb0 + I[7] * wb1 + I[8] * wb2));
    }
  }
  return { kinetic, potential, total: kinetic + potential };
}

/** Total energy (kinetic + potential) of the frame's dynamic bodies. */
export function frameEnergy(header: RecordingHeader, f: RecordedFrame): number {
  return frameEnergyParts(header, f).total;
}

/** A post-step body state as a solve-time body (for the work of external impulses on frames without a solve state). */
export function postAsSolveTime(header: RecordingHeader): (s: RecordedFrame['bodies'][number], i: number) => BodyState {
  return (s, i) => {
    const b = header.bodies[i];
    if (b.static || b.mass === null) return { invMass: 0, invInertiaWorld: [0, 0, 0, 0, 0, 0, 0, 0, 0], x: s.x, v: s.v, omega: s.w };
    // I⁻¹_w = R I⁻¹_b Rᵀ (docs/physics.md "Conventions")
    return { invMass: 1 / b.mass, invInertiaWorld: worldInverseInertia(quatToMat3(s.q), b), x: s.x, v: s.v, omega: s.w };
  };
}
