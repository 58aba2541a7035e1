// Writes a run as a recording in the format of docs/recording-format.md, in our conventions or in a
// declared foreign one (y up, xyzw quaternions, a-to-b normals, forces, body-frame ω), optionally rounded to
// float32 as an engine in single precision writes it. Written from the specification only.

import { writeFileSync } from 'node:fs';
import type { Body, BodyState } from './bodies.js';
import type { StepLog } from './stepper.js';
import { matTVec, type Quat, quatConj, quatMul, quatToMat, type Vec3 } from './vec.js';

export interface Conventions {
  up: 'z' | 'y';
  quaternion: 'wxyz' | 'xyzw';
  normal: 'b-to-a' | 'a-to-b';
  impulse: 'per-step' | 'force';
  angularVelocity?: 'world' | 'body';
}

export const OURS: Conventions = { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' };

export interface WriteOptions {
  conventions: Conventions;
  /** `pre` per frame: none, velocities only, or velocities and the solve pose */
  pre: 'none' | 'velocities' | 'pose';
  /** write A and b (dropped under the force convention: the format does not keep them) */
  matrices: boolean;
  energy: boolean;
  float32: boolean;
  /** write the format 1.1 initial-state line */
  initial: boolean;
  /** every written real number multiplied by 1 + noise·r, r uniform in [−1, 1] (a writer's round-off; pairs.ts) */
  noise?: number;
}

export interface FrameRecord {
  frame: number;
  time: number;
  bodies: BodyState[];
  log: StepLog;
  solverName: string;
  /** the status label the engine writes (a fixed-iteration engine's label is not a test) */
  status: 'converged' | 'max-iterations';
  energy: { kinetic: number; potential: number; total: number };
}

export interface Run {
  producer: { name: string; version: string };
  dt: number;
  gravity: Vec3;
  bodies: Body[];
  solver: Record<string, unknown>;
  initial: BodyState[];
  frames: FrameRecord[];
}

/** (cos 45°, sin 45°, 0, 0): the reader's y-up → z-up rotation. */
const Y_TO_Z: Quat = [Math.SQRT1_2, Math.SQRT1_2, 0, 0];

class Converter {
  /** xorshift32 state (Marsaglia 2003): the same noise sequence for every line, deterministic */
  private seed = 0x9e3779b9;
  constructor(private readonly o: WriteOptions) {}
  private uniform(): number {
    this.seed ^= this.seed << 13;
    this.seed ^= this.seed >>> 17;
    this.seed ^= this.seed << 5;
    return (this.seed >>> 0) / 0x80000000 - 1;
  }
  num = (x: number): number => {
    const y = this.o.noise ? x * (1 + this.o.noise * this.uniform()) : x;
    return this.o.float32 ? Math.fround(y) : y;
  };
  /** world vector (z up) → file; the reader maps file (x, y, z) ↦ (x, −z, y) */
  vec = (v: Vec3): number[] => (this.o.conventions.up === 'y' ? [v[0], v[2], -v[1]] : [v[0], v[1], v[2]]).map(this.num);
  quat = (q: Quat): number[] => {
    const f = this.o.conventions.up === 'y' ? quatMul(quatConj(Y_TO_Z), q) : q;
    return (this.o.conventions.quaternion === 'xyzw' ? [f[1], f[2], f[3], f[0]] : [f[0], f[1], f[2], f[3]]).map(this.num);
  };
  /** ω: world, or body coordinates R(q)ᵀω (body-frame data do not change with the up axis) */
  omega = (w: Vec3, q: Quat): number[] => (this.o.conventions.angularVelocity === 'body' ? matTVec(quatToMat(q), w).map(this.num) : this.vec(w));
  state = (s: BodyState) => ({ x: this.vec(s.x), q: this.quat(s.q), v: this.vec(s.v), w: this.omega(s.w, s.q) });
}

function shapeJson(c: Converter, b: Body): unknown {
  const s = b.shape;
  if (s.kind === 'sphere') return { sphere: { radius: c.num(s.radius) } };
  if (s.kind === 'box') return { box: { halfExtents: s.half.map(c.num) } };
  return { plane: { normal: c.vec(s.normal), offset: c.num(s.offset) } };
}

export function headerJson(run: Run, o: WriteOptions): Record<string, unknown> {
  const c = new Converter(o);
  const conventions: Record<string, string> = {
    up: o.conventions.up,
    quaternion: o.conventions.quaternion,
    normal: o.conventions.normal,
    impulse: o.conventions.impulse,
  };
  if (o.conventions.angularVelocity) conventions.angularVelocity = o.conventions.angularVelocity;
  return {
    format: 'contact-lens-recording',
    version: 1,
    producer: run.producer,
    units: 'SI',
    conventions,
    dt: c.num(run.dt),
    gravity: c.vec(run.gravity),
    bodies: run.bodies.map((b) =>
      b.mass === null
        ? { name: b.name, shape: shapeJson(c, b), mass: null, inertia: null, static: true }
        : { name: b.name, shape: shapeJson(c, b), mass: c.num(b.mass), inertia: (b.inertia ?? [0, 0, 0]).map(c.num), static: false },
    ),
    solver: run.solver,
  };
}

export function frameJson(run: Run, f: FrameRecord, o: WriteOptions): Record<string, unknown> {
  const c = new Converter(o);
  const aToB = o.conventions.normal === 'a-to-b';
  const force = o.conventions.impulse === 'force';
  const out: Record<string, unknown> = { frame: f.frame, time: c.num(f.time), bodies: f.bodies.map(c.state) };
  if (o.pre !== 'none') {
    out.pre = f.log.pre.map((p) =>
      o.pre === 'pose' ? { v: c.vec(p.v), w: c.omega(p.w, p.q), x: c.vec(p.x), q: c.quat(p.q) } : { v: c.vec(p.v), w: c.omega(p.w, p.q) },
    );
  }
  out.contacts = f.log.contacts.map((k) => {
    const sign = aToB ? -1 : 1;
    const rec: Record<string, unknown> = {
      a: k.a,
      b: k.b,
      point: c.vec(k.point),
      normal: c.vec(k.normal.map((x) => sign * x) as Vec3),
      t1: c.vec(k.t1.map((x) => sign * x) as Vec3),
      t2: c.vec(k.t2),
      depth: c.num(k.depth),
      mu: c.num(k.mu),
      e: c.num(k.e),
      feature: k.feature,
    };
    if (k.gap > 0) rec.gap = c.num(k.gap);
    return rec;
  });
  // a-to-b: λt2 ↦ −λt2 and the t2 row/column of A and entry of b negated; force: λ/Δt
  const rowSign = (r: number): number => (aToB && r % 3 === 2 ? -1 : 1);
  const lambda = f.log.lambda.map((l, r) => c.num((rowSign(r) * l) / (force ? run.dt : 1)));
  const solver: Record<string, unknown> = {
    name: f.solverName,
    status: f.status,
    iterations: f.log.solve.iterations,
    residuals: subsample(f.log.solve.residuals).map(c.num),
    lambda,
  };
  if (f.status !== 'converged') solver.reason = `iteration limit (${f.log.solve.iterations}) reached`;
  out.solver = solver;
  if (o.matrices && !force) {
    const n = f.log.b.length;
    out.A = f.log.A.map((a, idx) => c.num(rowSign(Math.floor(idx / n)) * rowSign(idx % n) * a));
    out.b = f.log.b.map((b, r) => c.num(rowSign(r) * b));
  }
  if (f.log.external.length > 0) out.external = f.log.external.map((e) => ({ body: e.body, impulse: c.vec(e.impulse), stage: 'before-solve' }));
  if (o.energy) out.energy = { kinetic: c.num(f.energy.kinetic), potential: c.num(f.energy.potential), total: c.num(f.energy.total) };
  return out;
}

/** Residuals after sweeps 1, 2, 4, 8, … and the last (long converged solves run thousands of sweeps). */
function subsample(r: number[]): number[] {
  if (r.length <= 16) return r;
  const out: number[] = [];
  for (let k = 1; k < r.length; k *= 2) out.push(r[k - 1]);
  out.push(r[r.length - 1]);
  return out;
}

export function recordingText(run: Run, o: WriteOptions): string {
  const c = new Converter(o);
  const lines = [JSON.stringify(headerJson(run, o))];
  if (o.initial) lines.push(JSON.stringify({ initial: { time: 0, bodies: run.initial.map(c.state) } }));
  for (const f of run.frames) lines.push(JSON.stringify(frameJson(run, f, o)));
  return `${lines.join('\n')}\n`;
}

export function writeRecording(path: string, run: Run, o: WriteOptions): void {
  writeFileSync(path, recordingText(run, o));
}
