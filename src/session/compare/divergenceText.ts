/**
 * A run comparison in one line, for `check`'s determinism expectation, the Test Explorer and the inspector's
 * header: where the runs part, the kind and field, how much, and how far the difference has grown by the end.
 */
import { formatCount, formatNumber } from '../../engine/index.js';
import type { RunDiff } from './runComparison.js';

export function divergenceSummary(d: RunDiff): string {
  const f = d.firstDivergence;
  if (!f) return `no divergence in ${formatCount(d.framesCompared, 'frame')}`;
  const what = f.lines.find((l) => l.startsWith(`${f.kind}:`) && !l.includes('the same contacts')) ?? f.lines[0] ?? f.field;
  const last = d.growth.at(-1);
  const grown = last ? `; by frame ${last.frame} the states differ by ${formatNumber(last.x)} m, ${formatNumber(last.v)} m/s` : '';
  return `parts at frame ${f.frame} (t = ${formatNumber(f.time, 4)} s): ${f.kind} — ${what.replace(/^[a-z-]+( \([^)]*\))?: /, '')}${grown}`;
}
