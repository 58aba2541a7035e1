/**
 * A debugging session over a sequence of frames: a recording on disk, or a scenario simulated by our engine.
 *
 * Memory is bounded: a session never holds an array of full frames.
 *  - Recording (`Session.fromRecording`): only the RecordingReader's index and columnar summaries are kept;
 *    `frame(i)` reads and parses one line.
 *  - Scenario (`Session.fromScenario`): the scenario is simulated once; per frame a small columnar summary is
 *    kept, and every `checkpointEvery` frames (default 100) a checkpoint of the full world state. Any frame is
 *    recomputed by re-simulating from the nearest checkpoint at or before it (or from the live cursor, so
 *    stepping forward costs one world step).
 *  In both cases a small LRU (FRAME_CACHE_SIZE frames) keeps the most recently used RecordedFrames.
 *
 * Determinism of re-simulation (scenario sessions). A World's state is its bodies (x, q, v, w), time, frame
 * AND its warm-start contact cache (private to World). The broad phase's persistent sort order does not
 * matter (its pairs are returned sorted), and the solvers have no other state. So each checkpoint also keeps
 * the cache content of the frame before it: per contact (body pair, feature id, normal, λ). Restoring puts
 * exactly those entries into a fresh World's cache (World.restoreWarmStart). Frames re-simulated from a
 * checkpoint are then bit-identical to the first pass (asserted by test/unit/session.test.ts).
 *
 * `detail(i)` re-assembles each island's contact problem (A, b with its decomposition, μ) from the recorded
 * contacts and the pre-solve body states (format/recording.ts preSolveBodyStates), with its conditioning.
 *
 * Layer rule: imports engine and format only (no vscode, no DOM); Node's fs only via RecordingReader.
 */
import {
  assembleJacobians,
  assemblyOptions,
  type AssemblyOptions,
  buildIslands,
  type ConditioningCause,
  conditioningCauses,
  type ContactJacobians,
  type ContactProblem,
  DEFAULT_ASSEMBLY,
  DENSE_ISLAND_LIMIT,
  denseProblem,
  type FrameRecord,
  type Quat,
  type RhsDecomposition,
  type ScenarioDesc,
  type Vec3,
  World,
  worstStatus,
} from '../engine/index.js';
import { conditioningEstimate, exactIslandConditioning, type IslandConditioning } from './conditioningEstimate.js';
import {
  SOLVER_STATUSES,
  toContactPoint,
  type RecordedFrame,
  type RecordedSolverStatus,
  type RecordingHeader,
  type RecordedContact,
} from '../format/recording.js';
import { RecordingReader, type OpenOptions, type ReaderCacheOptions } from '../format/recordingFile.js';
import { frameFromWorld, headerFromWorld } from '../format/worldRecording.js';
import { solveTimeBodies, RECONSTRUCTED_NOTE } from './preSolve.js';
import { stabilisationModel } from './frameLedger.js';
import { jacobianKinematicsColumns, type KinematicsColumns } from './contactKinematics.js';

/** Default number of frames between two checkpoints of a scenario session. */
export const DEFAULT_CHECKPOINT_EVERY = 100;
/** RecordedFrames kept by the LRU (seek/step around a frame without re-reading or re-simulating). */
export const FRAME_CACHE_SIZE = 8;

// ─── public types ───────────────────────────────────────────────────────────────────────────────────

export interface SessionSummary {
  /** Position in the session (0 … frameCount − 1). */
  readonly index: number;
  /** Frame number as recorded, or as the World numbers it (from 0: docs/recording-format.md "Frame numbers"). */
  readonly frame: number;
  readonly time: number;
  readonly contacts: number;
  readonly status: RecordedSolverStatus;
  readonly iterations?: number;
  /** Largest penetration depth (0 without contacts). */
  readonly maxDepth: number;
  /** Total energy (J) after the step; scenario sessions only (recording summaries do not keep energies). */
  readonly totalEnergy?: number;
  /** Largest λn (recording sessions; the reader's index keeps it). */
  readonly maxLambdaN?: number;
  /** Last solver residual, when recorded. */
  readonly finalResidual?: number;
}

export interface ScenarioSessionOptions {
  /** Frames between checkpoints (default 100; ≥ 1). Re-simulating a frame costs at most this many steps. */
  readonly checkpointEvery?: number;
  /** Frames to simulate (default: the scenario's `frames`). */
  readonly frames?: number;
  /**
   * Called once per frame of the first simulation pass, in order, with the frame as a recording line
   * (summaries, diagnosis and progress are built in that same pass, without a second simulation).
   */
  readonly onFrame?: (index: number, frame: RecordedFrame) => void;
}

/** A recorded contact (format fields a, b, point, normal, t1, t2, depth, μ, e, feature) with its context. */
export interface ContactRow extends RecordedContact {
  /** Index in the frame's contact list. */
  readonly index: number;
  /** Island index in `detail.islands`, −1 when the contact joins two static bodies (no island). */
  readonly island: number;
  /** Body names from the header ("world" for −1). */
  readonly bodyA: string;
  readonly bodyB: string;
  /** Recorded λ (λn, λt1, λt2), N·s. */
  readonly lambda: Vec3;
}

export interface IslandDetail {
  /** Dynamic bodies of the island, ascending. */
  readonly bodies: readonly number[];
  /** Indices into the frame's contact list, ascending (the problem's contact order). */
  readonly contacts: readonly number[];
  /** Re-assembled problem with dense A, or null (see reason). */
  readonly problem: ContactProblem | null;
  /**
   * The island's Jacobians when it exceeds the dense limit (problem null): what the what-if re-solves it from
   * without forming A (engine/island/solveMatrixFree.ts). Absent otherwise.
   */
  readonly jacobians?: ContactJacobians;
  /** b and its decomposition, μ: present whenever the pre-solve state is known, also without dense A. */
  readonly b: Float64Array | null;
  readonly rhs: RhsDecomposition | null;
  readonly mu: Float64Array | null;
  /** conditioning(A) of the re-assembled A (exact, or the estimate of conditioningEstimate.ts), or null. */
  readonly conditioning: IslandConditioning | null;
  /** Likely causes of a large κ or a rank deficiency (mass ratio, duplicated rows, redundant contacts). */
  readonly causes?: readonly ConditioningCause[];
  /** Recorded λ of the island's contacts in the island's order (3 per contact). */
  readonly lambda: Float64Array;
  /** ġ⁻, ġ⁺ (3 per contact) and m_eff per contact in the island's order, from the same Jacobians as b; null with b. */
  readonly kinematics: KinematicsColumns | null;
  /** Why problem (and possibly b) is missing. */
  readonly reason?: string;
}

/** An island whose problem could not be re-assembled: its recorded λ and why (no b, A or kinematics). */
function unassembledIsland(
  isl: { readonly bodies: readonly number[]; readonly contacts: readonly number[] },
  lambda: Float64Array,
  reason: string,
): IslandDetail {
  return { bodies: isl.bodies, contacts: isl.contacts, problem: null, b: null, rhs: null, mu: null, conditioning: null, lambda, kinematics: null, reason };
}

/**
 * One contact row. Object literals of four fixed shapes, not spreads: V8 gives spread-built objects
 * dictionary properties, and the frame view reads every field of thousands of rows.
 */
function contactRow(c: RecordedContact, index: number, island: number, bodyA: string, bodyB: string, lam: ArrayLike<number>): ContactRow {
  const lambda: Vec3 = [lam[3 * index], lam[3 * index + 1], lam[3 * index + 2]];
  const { a, b, point, normal, t1, t2, depth, mu, e } = c;
  if (c.gap) {
    const gap = c.gap;
    return c.feature === undefined
      ? { index, island, a, b, bodyA, bodyB, point, normal, t1, t2, depth, gap, mu, e, lambda }
      : { index, island, a, b, bodyA, bodyB, point, normal, t1, t2, depth, gap, mu, e, lambda, feature: c.feature };
  }
  return c.feature === undefined
    ? { index, island, a, b, bodyA, bodyB, point, normal, t1, t2, depth, mu, e, lambda }
    : { index, island, a, b, bodyA, bodyB, point, normal, t1, t2, depth, mu, e, lambda, feature: c.feature };
}

export interface DetailOptions {
  /**
   * 'exact' (default): every island's eigenvalues (exactIslandConditioning: conditioning(), or the body-space
   * Gram's spectrum above conditioning()'s exact limit when it is smaller than A); 'estimate': islands above
   * ESTIMATE_MIN_ROWS rows get A's spectrum from the smaller body-space Gram when it is smaller
   * (bodySpaceConditioning.ts), otherwise the estimate of conditioningEstimate.ts — what the frame view
   * shows, with the exact analysis on demand; 'none': A is assembled but its conditioning is left to the
   * caller (null, no causes: the inspector's frame view computes it island by island, src/extension/model/).
   */
  readonly conditioning?: 'exact' | 'estimate' | 'none';
}

export interface FrameDetail {
  readonly index: number;
  readonly frame: number;
  readonly time: number;
  /** The assembly options used (from the scenario config, or from the recording header's solver block). */
  readonly assembly: AssemblyOptions;
  /** Assumptions made while re-assembling (defaults taken, terms not reproduced). */
  readonly notes: readonly string[];
  readonly islands: readonly IslandDetail[];
  readonly contacts: readonly ContactRow[];
  /** Set when no island problem could be rebuilt (e.g. no pre-solve velocities in the frame). */
  readonly reason?: string;
}

// ─── frame sources ──────────────────────────────────────────────────────────────────────────────────

/** Where a session's frames come from (a recording file, a scenario simulated on demand, a recording that grows). */
export interface FrameSource {
  readonly kind: 'recording' | 'scenario';
  readonly header: RecordingHeader;
  readonly frameCount: number;
  readonly exact: boolean;
  summary(i: number): SessionSummary;
  /** Frame i, and the frame before it when it is cheap (for preSolveBodyStates). */
  load(i: number): RecordedFrame;
  assembly(): { options: AssemblyOptions; notes: string[] };
  close(): void;
  /** The file reader behind a recording source (errors, warnings, indexMs). */
  readonly reader?: RecordingReader;
}

class RecordingSource implements FrameSource {
  readonly kind = 'recording' as const;
  readonly exact = true;
  constructor(readonly reader: RecordingReader) {}
  get header(): RecordingHeader {
    return this.reader.header;
  }
  get frameCount(): number {
    return this.reader.frameCount;
  }
  summary(i: number): SessionSummary {
    const s = this.reader.summary(i);
    const out: SessionSummary = {
      index: i,
      frame: s.frame,
      time: s.time,
      contacts: s.contacts,
      status: s.status,
      maxDepth: s.maxDepth,
      maxLambdaN: s.maxLambdaN,
    };
    const extra: { iterations?: number; finalResidual?: number } = {};
    if (s.iterations !== undefined) extra.iterations = s.iterations;
    if (s.finalResidual !== undefined) extra.finalResidual = s.finalResidual;
    return { ...out, ...extra };
  }
  load(i: number): RecordedFrame {
    return this.reader.frame(i);
  }
  assembly(): { options: AssemblyOptions; notes: string[] } {
    return recordingAssembly(this.header);
  }
  close(): void {
    this.reader.close();
  }
}

/**
 * The assembly options for re-solving a recording's frame, from its header `solver` (docs/recording-format.md
 * "Re-solving a frame"), and notes on what the header does not declare. Nothing is invented: the position
 * bias (ERP/Δt)·max(0, depth − slop) goes into b only when the header declares an erp > 0 (its stabilisation
 * model, frameLedger.ts stabilisationModel); a header with soft contacts (MuJoCo's solref), no Baumgarte, split
 * impulses or no erp at all gets a b without it, and its notes say "not declared" rather than assume a value.
 */
export function recordingAssembly(header: RecordingHeader): { options: AssemblyOptions; notes: string[] } {
  const s = (header.solver ?? {}) as Record<string, unknown>;
  const notes: string[] = [];
  const declared = (key: string): number | undefined => {
    const v = s[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  };
  const model = stabilisationModel(header);
  const bias = model.source === 'declared-bias';
  const slop = declared('slop');
  if (model.source === 'declared-soft')
    notes.push('soft contacts (header solver): b is rebuilt without a position bias; the spring–damper that pushes overlaps apart is not in it');
  else if (model.source === 'undeclared') notes.push('header solver.erp not declared: b is rebuilt without a position bias');
  else if (model.source === 'declared-none') notes.push('header solver declares no position bias (baumgarte false, splitImpulse or erp 0): none in b');
  if (bias && typeof s.splitImpulse !== 'boolean')
    notes.push(`header solver.splitImpulse not declared: the bias of the declared erp ${model.erp}, (erp/Δt)·max(0, depth − slop), is taken as part of b`);
  if (bias && slop === undefined) notes.push('header solver.slop not declared: the bias acts from zero depth');
  const rest = declared('restVelocityThreshold');
  if (rest === undefined) notes.push('header solver.restVelocityThreshold not declared: restitution applies at every approach speed');
  notes.push(
    `A = J M⁻¹ Jᵀ + εI (ε = ${DEFAULT_ASSEMBLY.regularization}) rebuilt from the header masses/inertias; engine-specific terms (softening, CFM) are not included`,
  );
  return {
    options: {
      dt: header.dt,
      erp: bias ? model.erp : 0,
      slop: slop ?? 0,
      baumgarte: bias,
      restVelocityThreshold: rest ?? 0,
      regularization: DEFAULT_ASSEMBLY.regularization,
    },
    notes,
  };
}

interface CacheEntry {
  readonly bodyA: number;
  readonly bodyB: number;
  readonly featureId?: string;
  readonly normal: Vec3;
}

/** Full world state after `done` frames, plus the warm-start cache content left by the last frame. */
interface Checkpoint {
  readonly done: number;
  readonly time: number;
  readonly frame: number;
  /** 13 numbers per body: x(3) q(4) v(3) w(3). */
  readonly state: Float64Array;
  readonly cacheContacts: readonly CacheEntry[];
  readonly cacheLambda: Float64Array;
}

class ScenarioSource implements FrameSource {
  readonly kind = 'scenario' as const;
  readonly header: RecordingHeader;
  readonly frameCount: number;
  exact = true;
  private readonly checkpoints: Checkpoint[] = [];
  // Columnar summaries (no per-frame objects).
  private readonly time: Float64Array;
  private readonly frameNo: Float64Array;
  private readonly energy: Float64Array;
  private readonly maxDepth: Float64Array;
  private readonly contacts: Uint32Array;
  private readonly iterations: Uint32Array;
  private readonly status: Uint8Array;
  /** A world positioned after `liveDone` frames (re-simulation cursor). */
  private live: { world: World; done: number } | null = null;
  /** Steps re-simulated since creation (a cost figure for tests and benchmarks). */
  resimulatedSteps = 0;

  constructor(
    readonly desc: ScenarioDesc,
    readonly every: number,
    frames: number,
    onFrame?: ScenarioSessionOptions['onFrame'],
  ) {
    const world = new World(desc);
    this.header = headerFromWorld(world);
    const n = frames;
    this.time = new Float64Array(n);
    this.frameNo = new Float64Array(n);
    this.energy = new Float64Array(n);
    this.maxDepth = new Float64Array(n);
    this.contacts = new Uint32Array(n);
    this.iterations = new Uint32Array(n);
    this.status = new Uint8Array(n);
    this.checkpoints.push(this.capture(world, 0, null));
    for (let k = 0; k < n; k++) {
      const f = world.step();
      this.record(k, f);
      onFrame?.(k, frameFromWorld(world, f));
      if ((k + 1) % every === 0 && k + 1 < n) this.checkpoints.push(this.capture(world, k + 1, f));
    }
    this.frameCount = n;
    this.live = { world, done: n };
  }

  private record(k: number, f: FrameRecord): void {
    const status: RecordedSolverStatus = worstStatus(f.islands).kind;
    let iterations = 0,
      md = 0;
    for (const isl of f.islands) iterations = Math.max(iterations, isl.result.iterations);
    for (const c of f.contacts) if (c) md = Math.max(md, c.contact.penetration);
    this.time[k] = f.time;
    this.frameNo[k] = f.frame;
    this.energy[k] = f.energy.total;
    this.maxDepth[k] = md;
    this.contacts[k] = f.contacts.length;
    this.iterations[k] = iterations;
    this.status[k] = SOLVER_STATUSES.indexOf(status);
  }

  private capture(w: World, done: number, last: FrameRecord | null): Checkpoint {
    const state = new Float64Array(13 * w.bodies.length);
    w.bodies.forEach((b, i) => state.set([...b.x, ...b.q, ...b.v, ...b.w], 13 * i));
    const cacheContacts: CacheEntry[] = [];
    const lam: number[] = [];
    // The cache holds every contact that was in an island (World.step stores per island, in ascending
    // contact order within each island; a key's last writer is therefore the same in ascending frame order).
    if (last) {
      for (const fc of last.contacts) {
        if (!fc) continue;
        const c = fc.contact;
        cacheContacts.push(
          c.featureId === undefined
            ? { bodyA: c.bodyA, bodyB: c.bodyB, normal: c.normal }
            : { bodyA: c.bodyA, bodyB: c.bodyB, featureId: c.featureId, normal: c.normal },
        );
        lam.push(fc.lambda[0], fc.lambda[1], fc.lambda[2]);
      }
    }
    return { done, time: w.time, frame: w.frame, state, cacheContacts, cacheLambda: Float64Array.from(lam) };
  }

  private restore(cp: Checkpoint): World {
    const w = new World(this.desc);
    w.bodies.forEach((b, i) => {
      const s = cp.state,
        o = 13 * i;
      b.x = [s[o], s[o + 1], s[o + 2]];
      b.q = [s[o + 3], s[o + 4], s[o + 5], s[o + 6]] as Quat;
      b.v = [s[o + 7], s[o + 8], s[o + 9]];
      b.w = [s[o + 10], s[o + 11], s[o + 12]];
    });
    w.time = cp.time;
    w.frame = cp.frame;
    if (cp.cacheContacts.length > 0) w.restoreWarmStart(cp.cacheContacts, cp.cacheLambda);
    return w;
  }

  get checkpointCount(): number {
    return this.checkpoints.length;
  }

  summary(i: number): SessionSummary {
    return {
      index: i,
      frame: this.frameNo[i],
      time: this.time[i],
      contacts: this.contacts[i],
      status: SOLVER_STATUSES[this.status[i]],
      iterations: this.iterations[i],
      maxDepth: this.maxDepth[i],
      totalEnergy: this.energy[i],
    };
  }

  load(i: number): RecordedFrame {
    // Frame i is produced by the step that starts after i frames are done.
    const cp = this.checkpoints[Math.min(Math.floor(i / this.every), this.checkpoints.length - 1)];
    let live = this.live;
    if (!live || live.done > i || live.done < cp.done) live = { world: this.restore(cp), done: cp.done };
    let f: FrameRecord | null = null;
    while (live.done <= i) {
      f = live.world.step();
      live.done++;
      this.resimulatedSteps++;
    }
    this.live = live;
    return frameFromWorld(live.world, f!);
  }

  assembly(): { options: AssemblyOptions; notes: string[] } {
    const c = this.desc.config;
    const notes: string[] = [];
    if (c.softening > 0) notes.push(`the solved A also had softening γ = ${c.softening} on its normal diagonal; the A here does not`);
    if (c.faults.restitutionAsTarget)
      notes.push('fault injection restitutionAsTarget was on: the solved b had an extra −ġn on normal rows; the b here is the correct one');
    return { options: assemblyOptions(c), notes };
  }

  close(): void {
    this.live = null;
  }
}

// ─── the session ────────────────────────────────────────────────────────────────────────────────────

export class Session {
  private index = 0;
  /** LRU of recently loaded frames: Map iteration order is insertion order. */
  private readonly cache = new Map<number, RecordedFrame>();

  private constructor(private readonly source: FrameSource) {}

  /**
   * Opens a recording synchronously (indexes it once; keeps only the index). `validate: 'on-read'` indexes
   * with the byte scanner and validates each frame when it is read (OpenOptions.validate).
   */
  static fromRecording(file: string, options: Pick<OpenOptions, 'validate'> = {}): Session {
    return new Session(new RecordingSource(RecordingReader.openSync(file, options)));
  }

  /** Opens a recording asynchronously (progress, cancellation). */
  static async openRecording(file: string, options: OpenOptions & ReaderCacheOptions = {}): Promise<Session> {
    return new Session(new RecordingSource(await RecordingReader.open(file, options)));
  }

  /** A session over another frame source (a recording that is still being written: src/session/growingRecording.ts). */
  static fromSource(source: FrameSource): Session {
    return new Session(source);
  }

  /** Simulates the scenario once, keeping summaries and checkpoints (see the file comment). */
  static fromScenario(desc: ScenarioDesc, options: ScenarioSessionOptions = {}): Session {
    const every = options.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY;
    if (!Number.isInteger(every) || every < 1) throw new RangeError(`checkpointEvery must be an integer ≥ 1, got ${every}`);
    const frames = options.frames ?? desc.frames;
    if (!Number.isInteger(frames) || frames < 0) throw new RangeError(`frames must be an integer ≥ 0, got ${frames}`);
    return new Session(new ScenarioSource(desc, every, frames, options.onFrame));
  }

  get kind(): 'recording' | 'scenario' {
    return this.source.kind;
  }
  get header(): RecordingHeader {
    return this.source.header;
  }
  get frameCount(): number {
    return this.source.frameCount;
  }
  /** Index of the current frame. */
  get current(): number {
    return this.index;
  }
  /** false only when a scenario's warm-start cache could not be restored (re-simulated frames may then differ). */
  get exactReplay(): boolean {
    return this.source.exact;
  }
  /** The RecordingReader of a recording session (errors, warnings, indexMs), else null. */
  get reader(): RecordingReader | null {
    return this.source.reader ?? null;
  }
  /** Steps re-simulated so far (scenario sessions; 0 for recordings). */
  get resimulatedSteps(): number {
    return this.source instanceof ScenarioSource ? this.source.resimulatedSteps : 0;
  }
  get checkpointCount(): number {
    return this.source instanceof ScenarioSource ? this.source.checkpointCount : 0;
  }

  summary(i: number): SessionSummary {
    this.check(i);
    return this.source.summary(i);
  }

  *summaries(): IterableIterator<SessionSummary> {
    for (let i = 0; i < this.frameCount; i++) yield this.source.summary(i);
  }

  /** Frame i (read from disk or re-simulated; the last FRAME_CACHE_SIZE frames are cached). */
  frame(i: number): RecordedFrame {
    this.check(i);
    const hit = this.cache.get(i);
    if (hit) {
      this.cache.delete(i);
      this.cache.set(i, hit);
      return hit;
    }
    const f = this.source.load(i);
    this.cache.set(i, f);
    if (this.cache.size > FRAME_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as number);
    return f;
  }

  /** Moves to frame i (clamped to 0 … frameCount − 1) and returns it. */
  seek(i: number): RecordedFrame {
    if (this.frameCount === 0) throw new RangeError('the session has no frames');
    const j = Number.isFinite(i) ? Math.min(this.frameCount - 1, Math.max(0, Math.round(i))) : i > 0 ? this.frameCount - 1 : 0;
    const f = this.frame(j);
    this.index = j;
    return f;
  }

  /** Moves by delta frames (clamped) and returns the new current frame. */
  step(delta: number = 1): RecordedFrame {
    return this.seek(this.index + delta);
  }

  /** The current frame. */
  get currentFrame(): RecordedFrame {
    return this.seek(this.index);
  }

  /**
   * Per island: the contact problem re-assembled from the recorded contacts and the pre-solve state, its
   * conditioning, and per-contact rows with the recorded λ.
   */
  detail(i: number, detailOptions: DetailOptions = {}): FrameDetail {
    this.check(i);
    const estimate = detailOptions.conditioning === 'estimate';
    const header = this.header;
    const f = this.frame(i);
    const { options, notes: sourceNotes } = this.source.assembly();
    const notes = [...sourceNotes];
    const B = header.bodies.length;
    const name = (b: number): string => (b < 0 ? 'world' : header.bodies[b].name);
    const isStatic = header.bodies.map((b) => b.static);
    const islands = buildIslands(
      B,
      f.contacts.map((c) => [c.a, c.b] as const),
      isStatic,
    );
    const islandOf = new Int32Array(f.contacts.length).fill(-1);
    islands.forEach((isl, k) => {
      for (const c of isl.contacts) islandOf[c] = k;
    });
    const lam = f.solver.lambda;
    const C = f.contacts.length;
    const contacts: ContactRow[] = new Array(C);
    for (let k = 0; k < C; k++) contacts[k] = contactRow(f.contacts[k], k, islandOf[k], name(f.contacts[k].a), name(f.contacts[k].b), lam);

    // Pre-solve body states: pose from pre[].x/q or from the previous frame (only read when needed).
    let pre = solveTimeBodies(header, f);
    if (!pre.ok && i > 0 && this.source.summary(i - 1).frame === f.frame - 1) pre = solveTimeBodies(header, f, this.frame(i - 1));
    if (pre.ok && pre.reconstructed) notes.push(RECONSTRUCTED_NOTE);
    const base = { index: i, frame: f.frame, time: f.time, assembly: options, notes, contacts };
    const islandLambda = (cs: readonly number[]): Float64Array => {
      const out = new Float64Array(3 * cs.length);
      for (let j = 0; j < cs.length; j++) {
        const c = cs[j];
        out[3 * j] = lam[3 * c];
        out[3 * j + 1] = lam[3 * c + 1];
        out[3 * j + 2] = lam[3 * c + 2];
      }
      return out;
    };
    if (!pre.ok) {
      const reason = pre.reason;
      return {
        ...base,
        reason,
        islands: islands.map((isl) => unassembledIsland(isl, islandLambda(isl.contacts), reason)),
      };
    }
    const bodies = pre.bodies;
    const dv = new Float64Array(6 * bodies.length); // Δv per body, shared by the islands (disjoint bodies)
    const out: IslandDetail[] = islands.map((isl) => {
      const cs = isl.contacts.map((k) => toContactPoint(f.contacts[k]));
      const lambda = islandLambda(isl.contacts);
      try {
        // one assembly serves b, the dense A and the contacts' velocities before/after the impulse
        const jacobians = assembleJacobians(bodies, cs, options);
        const kinematics = jacobianKinematicsColumns(jacobians, cs, lambda, bodies.length, dv);
        if (cs.length > DENSE_ISLAND_LIMIT) {
          return {
            bodies: isl.bodies,
            contacts: isl.contacts,
            problem: null,
            b: jacobians.b,
            rhs: jacobians.rhs,
            mu: jacobians.mu,
            conditioning: null,
            lambda,
            kinematics,
            jacobians,
            reason: `island of ${cs.length} contacts exceeds the dense limit of ${DENSE_ISLAND_LIMIT}: A ((3C)² = ${(3 * cs.length) ** 2} entries) is not assembled; b and μ are`,
          };
        }
        const problem = denseProblem(jacobians, cs, options.regularization);
        if (detailOptions.conditioning === 'none')
          return {
            bodies: isl.bodies,
            contacts: isl.contacts,
            problem,
            b: problem.b,
            rhs: problem.rhs ?? null,
            mu: problem.mu,
            conditioning: null,
            lambda,
            kinematics,
          };
        const cond = estimate
          ? conditioningEstimate(problem.A, problem.size, problem.regularization, problem)
          : exactIslandConditioning(problem.A, problem.size, problem.regularization, problem);
        return {
          bodies: isl.bodies,
          contacts: isl.contacts,
          problem,
          b: problem.b,
          rhs: problem.rhs ?? null,
          mu: problem.mu,
          conditioning: cond,
          // conditioningCauses reads the rank deficiency only, which both analyses give
          causes: conditioningCauses(problem, cond),
          lambda,
          kinematics,
        };
      } catch (e) {
        return unassembledIsland(isl, lambda, `the problem could not be re-assembled: ${(e as Error).message}`);
      }
    });
    return { ...base, islands: out };
  }

  close(): void {
    this.cache.clear();
    this.source.close();
  }

  private check(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.frameCount) throw new RangeError(`frame index ${i} out of range 0…${this.frameCount - 1}`);
  }
}
