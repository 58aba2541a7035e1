/** The five-engine table (session/engines/engineTable.ts) as the inspector's engines panel shows it (protocol/compare.ts). */
import type { EngineTable } from '../../session/engines/engineTable.js';
import type { EnginesView } from '../../protocol/compare.js';

export function enginesView(t: EngineTable): EnginesView {
  return {
    scenario: t.scenario,
    frames: t.frames,
    rows: t.rows.map((r) => {
      const s = r.stats;
      const d = r.divergence;
      return {
        engine: r.engine,
        title: r.title,
        status: r.status,
        ...(r.error ? { error: r.error } : {}),
        energyDrift: s ? s.energyDrift : null,
        injected: s ? s.injectedTotal : null,
        injectedBy: s
          ? Object.entries(s.injected)
              .map(([mechanism, joules]) => ({ mechanism, joules }))
              .sort((x, y) => y.joules - x.joules)
          : [],
        maxPenetration: s ? s.maxPenetration : null,
        jitter: s ? s.jitter : null,
        coneViolations: s ? s.coneViolations : null,
        frictionFitted: s ? s.lambda.tangent === 'fitted' : false,
        iterationsMean: s ? s.iterationsMean : null,
        iterationsMax: s ? s.iterationsMax : null,
        stepMs: s ? s.stepMs : null,
        divergence: r.engine === 'ours' || d === undefined ? null : d === null ? 'never' : `frame ${d.frame}: ${d.kind} (${d.field})`,
        comparable: r.engine !== 'ours' && r.recording !== undefined,
      };
    }),
    notes: t.rows.flatMap((r) => r.notes.map((n) => `${r.title}: ${n}`)),
  };
}
