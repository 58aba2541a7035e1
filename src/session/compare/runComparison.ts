/**
 * Two runs compared frame by frame, in time order (docs/compare.md): the first frame pair that differs is
 * classified (classify.ts); from there on every compared pair adds one entry to the growth of the difference
 * (the largest state error over the bodies) and each body's first differing frame is kept. Holds no frames:
 * the caller streams them (compareFiles.ts for recordings, determinism.ts for scenarios run twice).
 */
import type { RecordedBodyState, RecordedFrame, RecordingHeader } from '../../format/recording.js';
import { mapBodies, type BodyMap } from './bodyMap.js';
import { classify, type Divergence } from './classify.js';
import { type ContactMatch, matchContacts, PairKeys } from './contactMatch.js';
import { angleBetween, compareFrames, exceeds, vecRel, type CompareContext, type LambdaComparison } from './frameCompare.js';
import { frameScales, runScales, stateScales, type FrameScales, type RunScales } from './scales.js';
import { DEFAULT_TOLERANCE, type DiffTolerance } from './tolerance.js';

/** The difference of the post-step states in one compared frame (largest over the matched dynamic bodies). */
export interface GrowthEntry {
  readonly frame: number;
  readonly time: number;
  /** ‖Δx‖ (m), rotation angle between the orientations (rad), ‖Δv‖ (m/s), ‖Δω‖ (rad/s). */
  readonly x: number;
  readonly q: number;
  readonly v: number;
  readonly w: number;
  /** The largest of them over its scale (scales.ts): the number to plot on a log axis. */
  readonly relative: number;
  /** Bodies whose state differs (beyond the tolerance) for the first time in this frame. */
  readonly firstDiffering: readonly string[];
}

export interface BodyFirstDifference {
  readonly body: string;
  readonly frame: number;
  readonly time: number;
}

/** Frames of one run without a frame of the other at the same time. */
export interface UnmatchedFrames {
  readonly count: number;
  /** Times of the first and last such frame (s). */
  readonly first?: number;
  readonly last?: number;
}

export interface RunDiff {
  readonly framesCompared: number;
  readonly firstDivergence: Divergence | null;
  readonly growth: readonly GrowthEntry[];
  /** Bodies in order of their first differing frame. */
  readonly bodies: readonly BodyFirstDifference[];
  readonly onlyA: UnmatchedFrames;
  readonly onlyB: UnmatchedFrames;
  /** What differs in the headers, how bodies were matched, conventions converted on read … */
  readonly notes: readonly string[];
  readonly tolerance: DiffTolerance;
}

/** The frames before a divergence frame, fetched only when a divergence needs them (the pose of its step). */
export type PreviousFrames = () => { prevA?: RecordedFrame; prevB?: RecordedFrame };

/** Header differences worth a line (besides the bodies', which bodyMap.ts keeps). */
export function headerNotes(a: RecordingHeader, b: RecordingHeader, map: BodyMap): string[] {
  const notes: string[] = [];
  const pa = `${a.producer.name}${a.producer.version ? ` ${a.producer.version}` : ''}`,
    pb = `${b.producer.name}${b.producer.version ? ` ${b.producer.version}` : ''}`;
  if (pa !== pb) notes.push(`producer: ${pa} vs ${pb}`);
  if (a.solver?.name !== b.solver?.name) notes.push(`solver: ${a.solver?.name ?? '(none)'} vs ${b.solver?.name ?? '(none)'}`);
  const far = (x: number, y: number, scale: number): boolean => Math.abs(x - y) > DEFAULT_TOLERANCE.relative * scale;
  if (far(a.dt, b.dt, a.dt)) notes.push(`dt: ${a.dt} vs ${b.dt} s (frames aligned by time)`);
  const g = Math.max(1e-300, Math.hypot(...a.gravity));
  if (a.gravity.some((x, k) => far(x, b.gravity[k], g))) notes.push(`gravity: [${a.gravity.join(', ')}] vs [${b.gravity.join(', ')}]`);
  for (const [h, name] of [
    [a, 'a'],
    [b, 'b'],
  ] as const)
    if (h.converted?.length) notes.push(`${name}: conventions converted on read (${h.converted.join('; ')})`);
  notes.push(`bodies matched by ${map.by} (${map.dynamicPairs.length} dynamic)`);
  if (map.onlyA.length) notes.push(`bodies only in a: ${map.onlyA.join(', ')}`);
  if (map.onlyB.length) notes.push(`bodies only in b: ${map.onlyB.join(', ')}`);
  for (const [i, d] of map.headerDifferences) notes.push(`body ${a.bodies[i].name}: ${d}`);
  return notes;
}

export class RunComparison {
  readonly bodies: BodyMap;
  readonly run: RunScales;
  private readonly ctx: CompareContext;
  private readonly keys: PairKeys;
  framesCompared = 0;
  divergence: Divergence | null = null;
  readonly growth: GrowthEntry[] = [];
  private readonly first = new Map<number, BodyFirstDifference>();

  constructor(
    readonly headerA: RecordingHeader,
    readonly headerB: RecordingHeader,
    readonly tolerance: DiffTolerance = DEFAULT_TOLERANCE,
    lambda: LambdaComparison = 'contacts',
  ) {
    this.bodies = mapBodies(headerA, headerB, tolerance);
    this.run = runScales(headerA, headerB);
    this.ctx = { bodies: this.bodies, run: this.run, tol: tolerance, lambda };
    this.keys = new PairKeys(
      this.bodies,
      headerA.bodies.map((x) => x.static),
      headerB.bodies.map((x) => x.static),
    );
  }

  get diverged(): boolean {
    return this.divergence !== null;
  }

  /** The contacts of two frames matched as the comparison matches them (contactMatch.ts). */
  match(fa: RecordedFrame, fb: RecordedFrame): ContactMatch {
    return matchContacts(fa.contacts, fb.contacts, this.keys);
  }

  /** Compares two whole frames at the same time; classifies the first pair that differs. */
  frames(fa: RecordedFrame, fb: RecordedFrame, previous: PreviousFrames = () => ({})): void {
    this.framesCompared++;
    const match = matchContacts(fa.contacts, fb.contacts, this.keys);
    const sc = frameScales(this.run, fa, fb);
    const cmp = compareFrames(fa, fb, match, sc, this.ctx);
    if (cmp.differs && !this.divergence)
      this.divergence = classify({ headerA: this.headerA, headerB: this.headerB, fa, fb, ...previous(), comparison: cmp, scales: sc, ctx: this.ctx });
    if (this.divergence) this.addGrowth(fa.frame, fa.time, fa.bodies, fb.bodies, sc);
  }

  /** After the divergence: the post-step states only (what the growth and the bodies' first frames need). */
  states(frame: number, time: number, sa: readonly RecordedBodyState[], sb: readonly RecordedBodyState[]): void {
    this.framesCompared++;
    this.addGrowth(frame, time, sa, sb, stateScales(this.run, sa, sb));
  }

  private addGrowth(frame: number, time: number, sa: readonly RecordedBodyState[], sb: readonly RecordedBodyState[], sc: FrameScales): void {
    let x = 0,
      q = 0,
      v = 0,
      w = 0,
      relative = 0;
    const newly: string[] = [];
    const tol = this.tolerance;
    for (const [i, j] of this.bodies.dynamicPairs) {
      const a = sa[i],
        b = sb[j];
      const pos = Math.max(this.run.length, Math.hypot(...a.x), Math.hypot(...b.x));
      const dx = Math.hypot(a.x[0] - b.x[0], a.x[1] - b.x[1], a.x[2] - b.x[2]);
      const dq = angleBetween(a.q, b.q);
      const dv = Math.hypot(a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2]);
      const dw = Math.hypot(a.w[0] - b.w[0], a.w[1] - b.w[1], a.w[2] - b.w[2]);
      x = Math.max(x, dx);
      q = Math.max(q, dq);
      v = Math.max(v, dv);
      w = Math.max(w, dw);
      relative = Math.max(relative, dx / pos, dq, dv / sc.speed, dw / sc.angularSpeed);
      if (this.first.has(i)) continue;
      const differs = tol.exact
        ? vecRel(a.x, b.x, 1, 1, tol) > 0 || vecRel(a.q, b.q, 1, 1, tol) > 0 || vecRel(a.v, b.v, 1, 1, tol) > 0 || vecRel(a.w, b.w, 1, 1, tol) > 0
        : exceeds(Math.max(dx / pos, dq, dv / sc.speed, dw / sc.angularSpeed), tol);
      if (differs) {
        const name = this.headerA.bodies[i].name;
        this.first.set(i, { body: name, frame, time });
        newly.push(name);
      }
    }
    this.growth.push({ frame, time, x, q, v, w, relative, firstDiffering: newly });
  }

  result(onlyA: UnmatchedFrames, onlyB: UnmatchedFrames, notes: readonly string[] = []): RunDiff {
    return {
      framesCompared: this.framesCompared,
      firstDivergence: this.divergence,
      growth: this.growth,
      bodies: [...this.first.values()].sort((p, q) => p.frame - q.frame || p.body.localeCompare(q.body)),
      onlyA,
      onlyB,
      notes: [...headerNotes(this.headerA, this.headerB, this.bodies), ...notes],
      tolerance: this.tolerance,
    };
  }
}
