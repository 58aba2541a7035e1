/**
 * The inspector's open of a large plain recording on two threads (session/stretch/parallelStretch.ts; docs/
 * ARCHITECTURE.md "Data path of a recording"): the stretch's thread builds the timeline rows of its frames
 * (./timelineStretch.ts), which the open appends to its own with the stretch's findings.
 */
import type { FindingView } from '../../protocol/inspector.js';
import { type ParallelOpenOptions, type ParallelOutcome, type ParallelStretch, PARALLEL_THRESHOLDS } from '../../session/stretch/parallelStretch.js';
import type { StretchThread } from '../../session/stretch/stretchDiagnosis.js';
import { startThread } from '../../session/threadScript.js';
import { type TimelineBuilder, type TimelineRows, toFindingView } from './timelineBuilder.js';

export type InspectorParallelOptions = ParallelOpenOptions<TimelineRows>;
export type InspectorStretch = ParallelStretch<TimelineRows>;

export const PARALLEL_OPEN: InspectorParallelOptions = PARALLEL_THRESHOLDS;

/** The stretch's worker thread (bundle dist/stretchDiagnosis.js). */
export const timelineStretchThread = (): StretchThread<TimelineRows> =>
  startThread('stretchDiagnosis', '../extension/model/stretchDiagnosisThread') as unknown as StretchThread<TimelineRows>;

/**
 * After the open: the stretch's timeline rows, columns and findings appended to `builder` (the open's, which
 * diagnosed the frames before the cut) when it was used. Returns how the open read the recording and the frame
 * at which the re-solve budget ran out.
 */
export function finishParallelOpen(
  p: InspectorStretch,
  builder: TimelineBuilder,
): { readonly outcome: ParallelOutcome; readonly resolveBudgetFrame: number | null } {
  p.close();
  const u = p.used;
  if (!u) return { outcome: p.outcome, resolveBudgetFrame: builder.resolveBudgetFrame };
  builder.appendRows(u.result.payload);
  const position = new Map(u.result.payload.t.frame.map((f, j) => [f, u.from + j]));
  const views: FindingView[] = p.stretchFindings().map((x) => toFindingView(x, position.get(x.frame) ?? 0));
  builder.appendFindings(views);
  return { outcome: p.outcome, resolveBudgetFrame: p.exhaustedAt };
}
