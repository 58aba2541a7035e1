/** What the editor needs from a scene file (lens positions, problems, tests), computed in the worker. */
import { parseSceneFile, scenarioRanges, SceneFormatError } from '../../format/scene.js';
import { FormatError } from '../../format/oracle.js';
import type { SceneAnalysis } from '../worker/workerProtocol.js';

/** Outline, problems (parse errors on the exact field, warnings) and testable scenarios of a scene file. */
export function analyzeScene(file: string, text: string): SceneAnalysis {
  const outline = scenarioRanges(text)
    .filter((s) => s.name !== null)
    .map((s) => ({ name: s.name!, range: s.range }));
  try {
    const { scenarios, warnings } = parseSceneFile(text, file);
    return {
      outline,
      problems: warnings.map((w) => ({
        range: w.range,
        message: `${w.field}: ${w.detail}`,
        severity: w.kind === 'fault-injection' ? ('warning' as const) : ('info' as const),
      })),
      tests: scenarios.filter((s) => s.expectations.length > 0).map((s) => ({ name: s.desc.name, range: s.range })),
    };
  } catch (e) {
    const problem =
      e instanceof SceneFormatError
        ? { range: e.range, message: `${e.field}: ${e.detail}`, severity: 'error' as const }
        : {
            range: { line: 1, column: 1, endLine: 1, endColumn: 2 },
            message: e instanceof FormatError ? e.message : `could not parse: ${(e as Error).message}`,
            severity: 'error' as const,
          };
    return { outline, problems: [problem], tests: outline };
  }
}
