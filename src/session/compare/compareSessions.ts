/**
 * Two open sessions compared frame by frame (the inspector's compare mode; docs/compare.md "In the editor"): the
 * same comparison as `diff` (runComparison.ts), over any pair of a scenario simulated by our engine and a
 * recording, with the alignment of b's frames to a's session indices and b's energies and iterations per aligned
 * frame (the charts overlay them). Every frame pair is read once, in order.
 */
import type { RecordingHeader } from '../../format/recording.js';
import { frameEnergyParts } from '../diagnose.js';
import type { Session } from '../session.js';
import { SAME_TIME_FRACTION } from './compareFiles.js';
import { RunComparison, type RunDiff } from './runComparison.js';
import { DEFAULT_TOLERANCE, type DiffTolerance } from './tolerance.js';

export interface SessionComparison {
  readonly diff: RunDiff;
  /** The comparison itself (its contact matching serves every frame view). */
  readonly comparison: RunComparison;
  /** Per session index of a: b's index at the same time, or null. */
  readonly aligned: (number | null)[];
  /** Per session index of a: b's energies and iterations (null where b has no frame). */
  readonly timeline: { total: (number | null)[]; kinetic: (number | null)[]; potential: (number | null)[]; iterations: (number | null)[] };
}

function energyOf(header: RecordingHeader, f: Parameters<typeof frameEnergyParts>[1]): { kinetic: number; potential: number } {
  return frameEnergyParts(header, f);
}

export function compareSessions(
  a: Session,
  b: Session,
  options: { readonly tolerance?: DiffTolerance; readonly onProgress?: (fraction: number) => void; readonly signal?: AbortSignal } = {},
): SessionComparison {
  const cmp = new RunComparison(a.header, b.header, options.tolerance ?? DEFAULT_TOLERANCE);
  const na = a.frameCount,
    nb = b.frameCount;
  const aligned: (number | null)[] = new Array(na).fill(null);
  const timeline = {
    total: new Array<number | null>(na).fill(null),
    kinetic: new Array<number | null>(na).fill(null),
    potential: new Array<number | null>(na).fill(null),
    iterations: new Array<number | null>(na).fill(null),
  };
  const eps = SAME_TIME_FRACTION * Math.min(a.header.dt, b.header.dt);
  let onlyA = 0,
    onlyB = 0,
    i = 0,
    j = 0;
  const firstOnly = { a: Number.NaN, b: Number.NaN },
    lastOnly = { a: Number.NaN, b: Number.NaN };
  const note = (run: 'a' | 'b', t: number): void => {
    if (Number.isNaN(firstOnly[run])) firstOnly[run] = t;
    lastOnly[run] = t;
  };
  while (i < na && j < nb) {
    options.signal?.throwIfAborted();
    const ta = a.summary(i).time,
      tb = b.summary(j).time;
    if (ta < tb - eps) {
      onlyA++;
      note('a', ta);
      i++;
      continue;
    }
    if (tb < ta - eps) {
      onlyB++;
      note('b', tb);
      j++;
      continue;
    }
    const fa = a.frame(i),
      fb = b.frame(j);
    aligned[i] = j;
    const e = energyOf(b.header, fb);
    timeline.kinetic[i] = e.kinetic;
    timeline.potential[i] = e.potential;
    timeline.total[i] = e.kinetic + e.potential;
    timeline.iterations[i] = fb.solver.iterations ?? null;
    const ii = i,
      jj = j;
    if (cmp.diverged) cmp.states(fa.frame, fa.time, fa.bodies, fb.bodies);
    else
      cmp.frames(fa, fb, () => ({
        prevA: ii > 0 && a.summary(ii - 1).frame === fa.frame - 1 ? a.frame(ii - 1) : undefined,
        prevB: jj > 0 && b.summary(jj - 1).frame === fb.frame - 1 ? b.frame(jj - 1) : undefined,
      }));
    i++;
    j++;
    if (options.onProgress && i % 16 === 0) options.onProgress(i / na);
  }
  for (; i < na; i++, onlyA++) note('a', a.summary(i).time);
  for (; j < nb; j++, onlyB++) note('b', b.summary(j).time);
  const unmatched = (count: number, run: 'a' | 'b') => (count ? { count, first: firstOnly[run], last: lastOnly[run] } : { count: 0 });
  return { diff: cmp.result(unmatched(onlyA, 'a'), unmatched(onlyB, 'b')), comparison: cmp, aligned, timeline };
}
