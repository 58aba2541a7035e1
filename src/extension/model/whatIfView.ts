/**
 * The what-if panel's view of a re-solve (session/whatIf.ts): per contact the recorded and the alternative λ and
 * post-step normal velocity, the islands' ΔKE, KKT residual and Coulomb merit, and the scene view's ghost
 * velocities. Used for the session's own what-if and for compare mode's re-solves of one run's frame with the
 * other's solver (compareModel.ts).
 */
import type { Session } from '../../session/session.js';
import { whatIf } from '../../session/whatIf.js';
import type { SolveOptions } from '../../engine/index.js';
import type { WhatIfOptions, WhatIfView } from '../../protocol/inspector.js';

/** Re-solves frame i of a session with another solver/options and compares with what was recorded (the what-if panel's view). */
export function whatIfView(session: Session, i: number, options: WhatIfOptions): WhatIfView {
  const solve: SolveOptions = {
    solver: options.solver,
    ...(options.maxIterations !== undefined ? { maxIterations: options.maxIterations } : {}),
    ...(options.tolerance !== undefined ? { tolerance: options.tolerance } : {}),
  } as SolveOptions;
  const r = whatIf(session, i, solve, options.warmStart === true);
  const recorded = session.frame(i).contacts;
  const contacts: WhatIfView['contacts'][number][] = [];
  let recE = 0,
    altE = 0,
    recK = 0,
    altK = 0,
    recC = 0,
    altC = 0,
    status = 'converged',
    iterations = 0;
  for (const isl of r.islands) {
    recE += isl.recorded.kineticEnergyChange;
    altE += isl.alternative.kineticEnergyChange;
    recK = Math.max(recK, isl.recorded.kktMaxRel);
    altK = Math.max(altK, isl.alternative.kktMaxRel);
    recC = Math.max(recC, isl.recorded.coulombMerit);
    altC = Math.max(altC, isl.alternative.coulombMerit);
    if (isl.alternative.result.status.kind !== 'converged') status = isl.alternative.result.status.kind;
    iterations = Math.max(iterations, isl.alternative.result.iterations);
    isl.contacts.forEach((c, j) => {
      const a = isl.alternative.lambda,
        b = isl.recorded.lambda;
      const { normal: n, t1, t2 } = recorded[c];
      // ġ⁺ rows (n, t1, t2) of contact j back to a world vector: ġn·n + ġt1·t1 + ġt2·t2
      const world = (g: Float64Array): [number, number, number] =>
        [0, 1, 2].map((k) => g[3 * j] * n[k] + g[3 * j + 1] * t1[k] + g[3 * j + 2] * t2[k]) as [number, number, number];
      contacts.push({
        index: c,
        recordedN: b[3 * j],
        alternativeN: a[3 * j],
        recordedT: Math.hypot(b[3 * j + 1], b[3 * j + 2]),
        alternativeT: Math.hypot(a[3 * j + 1], a[3 * j + 2]),
        recordedWn: isl.recorded.gapAfter[3 * j],
        alternativeWn: isl.alternative.gapAfter[3 * j],
        difference: isl.lambdaDifference[j],
        scene: { recordedVelocity: world(isl.recorded.gapAfter), alternativeVelocity: world(isl.alternative.gapAfter) },
      });
    });
  }
  contacts.sort((x, y) => x.index - y.index);
  return {
    index: i,
    options,
    contacts,
    recorded: { kineticEnergyChange: recE, kkt: recK, coulomb: recC },
    alternative: { kineticEnergyChange: altE, kkt: altK, coulomb: altC, status, iterations },
    skipped: r.skipped.map((s) => `contacts ${s.contacts.join(', ')}: ${s.reason}`),
  };
}
