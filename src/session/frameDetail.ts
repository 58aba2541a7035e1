/**
 * The detail of one frame: per island, the contact problem re-assembled from the recorded contacts and the
 * pre-solve body states (format/recording.ts preSolveBodyStates, session/preSolve.ts) — A, b with its
 * decomposition, μ — with its conditioning, and per contact a row with the recorded λ. Session.detail
 * (session.ts) calls it with the frame and its source's assembly options.
 *
 * Layer rule: imports engine and format only (no vscode, no DOM).
 */
import {
  assembleJacobians,
  type AssemblyOptions,
  buildIslands,
  type ConditioningCause,
  conditioningCauses,
  type ContactJacobians,
  contactsByBody,
  type DelassusBlocks,
  type ContactProblem,
  DENSE_ISLAND_LIMIT,
  problemFromDelassusBlocks,
  type RhsDecomposition,
  delassusBlocks,
  type Vec3,
} from '../engine/index.js';
import { toContactPoint, type RecordedContact, type RecordedFrame, type RecordingHeader } from '../format/recording.js';
import { conditioningEstimate, exactIslandConditioning, type IslandConditioning } from './conditioningEstimate.js';
import { jacobianKinematicsColumns, type KinematicsColumns } from './contactKinematics.js';
import { RECONSTRUCTED_NOTE, solveTimeBodies } from './preSolve.js';

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
  /** Re-assembled problem with dense A, or null (see reason); from Session.detail with conditioning 'none', formed when first read. */
  readonly problem: ContactProblem | null;
  /**
   * The island's Jacobians whenever b is known: what the what-if re-solves an island beyond the dense limit from
   * (problem null) without forming A (engine/island/solveMatrixFree.ts), and what the body-space Gram reads.
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
  /**
   * Present exactly when problem is: A's non-zero 3×3 blocks (engine DelassusBlocks: A couples two contacts only through
   * a body they share), what the heat map reads. From Session.detail with conditioning 'none', `problem` forms the
   * dense A from them when first read.
   */
  readonly blocks?: DelassusBlocks;
  /** Recorded λ of the island's contacts in the island's order (3 per contact). */
  readonly lambda: Float64Array;
  /** ġ⁻, ġ⁺ (3 per contact) and m_eff per contact in the island's order, from the same Jacobians as b; null with b. */
  readonly kinematics: KinematicsColumns | null;
  /** Why problem (and possibly b) is missing. */
  readonly reason?: string;
}

/**
 * The island with `problem` formed when first read (then kept): a frame view reads the blocks, and most of a busy
 * frame's islands never need their dense A (7.3 MB for the 1000-box pile's 3 800-contact frame). An own,
 * enumerable property, so that a spread or JSON.stringify of the island reads it as a plain field.
 */
function withDenseOnDemand(island: Omit<IslandDetail, 'problem'>, dense: () => ContactProblem): IslandDetail {
  let problem: ContactProblem | null = null;
  return Object.defineProperty(island, 'problem', { enumerable: true, get: () => (problem ??= dense()) }) as IslandDetail;
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

/** What frameDetail reads of a session. */
export interface DetailInput {
  /** Session index of the frame. */
  readonly index: number;
  readonly header: RecordingHeader;
  readonly frame: RecordedFrame;
  /** The assembly options of the frame's source and its notes (FrameSource.assembly). */
  readonly assembly: { options: AssemblyOptions; notes: string[] };
  /** The frame before, when the session holds it (frame number − 1), else null; read only when the frame alone lacks the pre-solve poses. */
  readonly previous: () => RecordedFrame | null;
}

/**
 * Per island: the contact problem re-assembled from the recorded contacts and the pre-solve state, its
 * conditioning, and per-contact rows with the recorded λ.
 */
export function frameDetail(input: DetailInput, detailOptions: DetailOptions = {}): FrameDetail {
  const estimate = detailOptions.conditioning === 'estimate';
  const { index: i, header, frame: f } = input;
  const { options, notes: sourceNotes } = input.assembly;
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
  if (!pre.ok) {
    const previous = input.previous();
    if (previous) pre = solveTimeBodies(header, f, previous);
  }
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
      const blocks = delassusBlocks(jacobians, contactsByBody(jacobians), options.regularization);
      const assembled = {
        bodies: isl.bodies,
        contacts: isl.contacts,
        blocks,
        jacobians,
        b: jacobians.b,
        rhs: jacobians.rhs,
        mu: jacobians.mu,
        lambda,
        kinematics,
      };
      const dense = (): ContactProblem => problemFromDelassusBlocks(jacobians, blocks);
      if (detailOptions.conditioning === 'none') return withDenseOnDemand({ ...assembled, conditioning: null }, dense);
      const problem = dense();
      const cond = estimate
        ? conditioningEstimate(problem.A, problem.size, problem.regularization, problem)
        : exactIslandConditioning(problem.A, problem.size, problem.regularization, problem);
      return {
        ...assembled,
        problem,
        conditioning: cond,
        // conditioningCauses reads the rank deficiency only, which both analyses give
        causes: conditioningCauses(problem, cond),
      };
    } catch (e) {
      return unassembledIsland(isl, lambda, `the problem could not be re-assembled: ${(e as Error).message}`);
    }
  });
  return { ...base, islands: out };
}
