/**
 * The inspector's compare mode in the worker (docs/compare.md "In the editor"): the open session (run a) beside a
 * second run (b, a recording or our engine's scenario with another solver), compared once frame by frame
 * (session/compare/compareSessions.ts) into the view sent with `compare`; then per frame the contacts of a beside
 * their partners in b, b's bodies as a ghost at a's body order, and re-solves of one run's frame with the other's
 * solver. Pure: no vscode, no DOM.
 */
import type { RecordedFrame, RecordingHeader } from '../../format/recording.js';
import type { Session } from '../../session/session.js';
import { compareSessions, type SessionComparison } from '../../session/compare/compareSessions.js';
import { divergenceSummary } from '../../session/compare/divergenceText.js';
import type { CompareView, CrossDirection, CrossWhatIfView, FrameCompare } from '../../protocol/compare.js';
import { SOLVER_NAMES, type SolverName, type WhatIfOptions } from '../../protocol/inspector.js';
import { POSE_STRIDE } from '../../protocol/scene.js';
import { whatIfView } from './whatIfView.js';

/** What the view says about run b. */
export interface RunLabel {
  readonly title: string;
  readonly file: string;
}

const producerOf = (h: RecordingHeader): string => `${h.producer.name}${h.producer.version ? ` ${h.producer.version}` : ''}`;

/** The what-if options of a run's own solver when it is one of ours (name and its iteration budget and tolerance), else null. */
export function ownSolver(h: RecordingHeader): WhatIfOptions | null {
  const s = h.solver;
  if (!s || !(SOLVER_NAMES as readonly string[]).includes(s.name)) return null;
  const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
  const maxIterations = num(s.maxIterations),
    tolerance = num(s.tolerance);
  return {
    solver: s.name as SolverName,
    ...(maxIterations !== undefined && Number.isInteger(maxIterations) ? { maxIterations } : {}),
    ...(tolerance !== undefined ? { tolerance } : {}),
  };
}

export class CompareModel {
  readonly view: CompareView;
  private readonly cmp: SessionComparison;
  /** Per session index of b: a's index at the same time. */
  private readonly bToA: Map<number, number>;

  constructor(
    private readonly a: Session,
    private readonly b: Session,
    label: RunLabel,
    onProgress?: (fraction: number) => void,
  ) {
    this.cmp = compareSessions(a, b, { onProgress });
    const d = this.cmp.diff;
    const indexOfFrame = new Map<number, number>();
    for (let i = 0; i < a.frameCount; i++) indexOfFrame.set(a.summary(i).frame, i);
    this.bToA = new Map(this.cmp.aligned.flatMap((j, i) => (j === null ? [] : [[j, i] as const])));
    const growth: (number | null)[] = new Array(a.frameCount).fill(null);
    for (const g of d.growth) {
      const i = indexOfFrame.get(g.frame);
      if (i !== undefined) growth[i] = g.relative;
    }
    const f = d.firstDivergence;
    const notes = [...d.notes];
    if (d.onlyA.count) notes.push(`${d.onlyA.count} frame(s) only in a (t = ${d.onlyA.first} … ${d.onlyA.last} s)`);
    if (d.onlyB.count) notes.push(`${d.onlyB.count} frame(s) only in b (t = ${d.onlyB.first} … ${d.onlyB.last} s)`);
    this.view = {
      b: { title: label.title, file: label.file, producer: producerOf(b.header), frameCount: b.frameCount, dt: b.header.dt },
      aligned: this.cmp.aligned,
      divergence: f
        ? {
            index: indexOfFrame.get(f.frame) ?? 0,
            frame: f.frame,
            time: f.time,
            kind: f.kind,
            field: f.field,
            bodies: f.bodies,
            contacts: f.contacts,
            lines: f.lines,
          }
        : null,
      summary: divergenceSummary(d),
      growth,
      timeline: this.cmp.timeline,
      notes,
      bodies: d.bodies.flatMap((x) => {
        const i = indexOfFrame.get(x.frame);
        return i === undefined ? [] : [{ body: x.body, index: i }];
      }),
    };
  }

  /** Frame i of a beside b's frame at the same time. */
  frameCompare(i: number): FrameCompare {
    const fa = this.a.frame(i);
    const j = this.cmp.aligned[i];
    if (j === null || j === undefined) return { b: null, contacts: fa.contacts.map(() => ({ b: null, lambdaN: null, lambdaT: null, depth: null })), onlyB: [] };
    const fb = this.b.frame(j);
    const m = this.cmp.comparison.match(fa, fb);
    const partner = new Map(m.pairs.map((p) => [p.a, p.b] as const));
    const lb = fb.solver.lambda;
    const name = (h: RecordingHeader, k: number): string => (k < 0 ? 'world' : h.bodies[k].name);
    return {
      b: { index: j, frame: fb.frame, time: fb.time },
      contacts: fa.contacts.map((_, k) => {
        const q = partner.get(k);
        return q === undefined
          ? { b: null, lambdaN: null, lambdaT: null, depth: null }
          : { b: q, lambdaN: lb[3 * q], lambdaT: Math.hypot(lb[3 * q + 1], lb[3 * q + 2]), depth: fb.contacts[q].depth };
      }),
      onlyB: m.onlyB.map((q) => ({
        index: q,
        bodies: `${name(this.b.header, fb.contacts[q].a)}–${name(this.b.header, fb.contacts[q].b)}`,
        lambdaN: lb[3 * q],
        point: [fb.contacts[q].point[0], fb.contacts[q].point[1], fb.contacts[q].point[2]],
      })),
      ghost: this.ghost(fa, fb),
    };
  }

  /** b's bodies at a's body order (POSE_STRIDE numbers each); NaN for a body without a dynamic partner. */
  private ghost(fa: RecordedFrame, fb: RecordedFrame): Float64Array {
    const out = new Float64Array(POSE_STRIDE * fa.bodies.length).fill(Number.NaN);
    for (const [i, j] of this.cmp.comparison.bodies.dynamicPairs) {
      const s = fb.bodies[j];
      out.set([s.x[0], s.x[1], s.x[2], s.q[0], s.q[1], s.q[2], s.q[3]], POSE_STRIDE * i);
    }
    return out;
  }

  /**
   * One run's solver on the other run's problem at a's session index i: 'b-with-a' re-solves a's frame (a's problem)
   * with b's solver, 'a-with-b' b's frame with a's. A run whose solver is not ours is stood in for by the exact
   * interior point (said in the notes). Beside it, the other run's own λ on the same contacts.
   */
  crossWhatIf(i: number, direction: CrossDirection): CrossWhatIfView {
    const j = this.cmp.aligned[i];
    if (j === null || j === undefined) throw new Error(`frame index ${i} has no frame of run b at the same time`);
    const [problemRun, solverRun, problemIndex, otherIndex] = direction === 'b-with-a' ? [this.a, this.b, i, j] : [this.b, this.a, j, i];
    const [pName, sName] = direction === 'b-with-a' ? ['a', 'b'] : ['b', 'a'];
    const own = ownSolver(solverRun.header);
    const notes: string[] = [];
    if (!own)
      notes.push(
        `run ${sName}'s solver (${solverRun.header.solver?.name ?? 'not declared'}) is not one of ours: the exact interior point solves run ${pName}'s problem in its place`,
      );
    const options: WhatIfOptions = own ?? { solver: 'ipm' };
    const view = whatIfView(problemRun, problemIndex, options);
    // the solver run's own λ on the problem run's contacts
    const fp = problemRun.frame(problemIndex),
      fs = solverRun.frame(otherIndex);
    const m = direction === 'b-with-a' ? this.cmp.comparison.match(fp, fs) : this.cmp.comparison.match(fs, fp);
    const partner = new Map(m.pairs.map((p) => (direction === 'b-with-a' ? [p.a, p.b] : [p.b, p.a]) as [number, number]));
    const ls = fs.solver.lambda;
    const otherN = view.contacts.map((c) => (partner.has(c.index) ? ls[3 * partner.get(c.index)!] : null));
    const otherT = view.contacts.map((c) => {
      const q = partner.get(c.index);
      return q === undefined ? null : Math.hypot(ls[3 * q + 1], ls[3 * q + 2]);
    });
    return {
      index: i,
      direction,
      title: `run ${sName}'s solver (${options.solver}) on run ${pName}'s problem of frame ${fp.frame}`,
      view,
      otherN,
      otherT,
      notes: [...notes, ...view.skipped],
    };
  }

  /** The index of a's frame that b's frame j is aligned with, if any. */
  aIndexOf(j: number): number | undefined {
    return this.bToA.get(j);
  }

  close(): void {
    this.b.close();
  }
}
