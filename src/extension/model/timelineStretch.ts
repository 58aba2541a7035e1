/**
 * The inspector's part of a recording's later stretch read on a thread of its own (session/stretch/): the timeline
 * rows, contact and injection columns of its frames (TimelineBuilder.rowsFrom), which the open appends to its own.
 */
import type { StretchConsumerFactory } from '../../session/stretch/stretchDiagnosis.js';
import { TimelineBuilder, type TimelineRows } from './timelineBuilder.js';

export const timelineStretch: StretchConsumerFactory<TimelineRows> = (header, diag) => {
  const builder = new TimelineBuilder(header, diag);
  const mechanisms = new Set<string>();
  return {
    add(f, counted) {
      builder.add(f);
      if (counted) for (const m of diag.lastFrame!.injected.keys()) mechanisms.add(m);
    },
    result: (warmUp) => builder.rowsFrom(warmUp, [...mechanisms]),
  };
};
