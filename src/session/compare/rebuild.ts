/**
 * A frame's contact problem rebuilt where the recording does not hold it (docs/compare.md "Kinds"): the
 * pre-solve bodies (recorded `pre`, or v⁻ = v⁺ − M⁻¹Jᵀλ from the previous frame: preSolve.ts) and the
 * contacts assembled with the header's declared parameters (session.ts recordingAssembly), as the inspector's
 * frame detail does. `b` keeps its decomposition (velocity, restitution, bias, speculative), so a difference
 * in b can be named by its term. The merits of two λ on one island's problem (KKT of the QP-SOCP, kkt.ts, and
 * Coulomb's merit, coulombMerit.ts) say which run solved the shared problem better.
 */
import { assembleJacobians, denseProblem, type ContactJacobians } from '../../engine/index.js';
import { DENSE_ISLAND_LIMIT } from '../../engine/index.js';
import { kkt, KktWorkspace } from '../../engine/index.js';
import { coulombMerit, coulombMeritFromU } from '../../engine/index.js';
import { kktRows } from '../../engine/index.js';
import { matrixFreeRows } from '../../engine/index.js';
import type { BodyState, ContactProblem } from '../../engine/index.js';
import { toContactPoint, type RecordedFrame, type RecordingHeader } from '../../format/recording.js';
import { recordingAssembly } from '../session.js';
import { solveTimeBodies } from '../preSolve.js';

export type Rebuilt =
  | { readonly ok: true; readonly bodies: BodyState[]; readonly jacobians: ContactJacobians }
  | { readonly ok: false; readonly reason: string };

/** The frame's whole contact problem without A (b, μ, Jacobians), or why it cannot be rebuilt. */
export function rebuildFrame(header: RecordingHeader, f: RecordedFrame, prev: RecordedFrame | undefined): Rebuilt {
  if (f.contacts.length === 0) return { ok: false, reason: 'the frame has no contacts' };
  const pre = solveTimeBodies(header, f, prev);
  if (!pre.ok) return pre;
  try {
    const jacobians = assembleJacobians(pre.bodies, f.contacts.map(toContactPoint), recordingAssembly(header).options);
    return { ok: true, bodies: pre.bodies, jacobians };
  } catch (e) {
    return { ok: false, reason: `the problem could not be rebuilt: ${(e as Error).message}` };
  }
}

/** How far λ is from solving a problem: the QP-SOCP KKT residual (max_rel) and Coulomb's merit. */
export interface Merit {
  readonly kktMaxRel: number;
  readonly coulombMerit: number;
}

/** A dense problem (A, b, μ) from the recorded A and b of some contacts of a frame (rows 3c … 3c + 2 of each). */
export function recordedProblem(f: RecordedFrame, contacts: readonly number[]): ContactProblem | null {
  if (!f.A || !f.b) return null;
  const N = 3 * f.contacts.length,
    n = 3 * contacts.length;
  const A = new Float64Array(n * n),
    b = new Float64Array(n),
    mu = new Float64Array(contacts.length);
  contacts.forEach((c, i) => {
    mu[i] = f.contacts[c].mu;
    for (let r = 0; r < 3; r++) {
      b[3 * i + r] = f.b![3 * c + r];
      contacts.forEach((d, j) => {
        for (let s = 0; s < 3; s++) A[(3 * i + r) * n + 3 * j + s] = f.A![(3 * c + r) * N + 3 * d + s];
      });
    }
  });
  return { contactCount: contacts.length, size: n, A, b, mu, regularization: 0 };
}

/**
 * The merits of several λ (each 3 per island contact, in the island's order) on one island's problem: the
 * recorded A and b when the frame writes them, else the rebuilt problem (dense up to DENSE_ISLAND_LIMIT
 * contacts, matrix-free beyond, as the what-if does).
 */
export function islandMerits(
  f: RecordedFrame,
  contacts: readonly number[],
  bodies: readonly BodyState[] | null,
  header: RecordingHeader,
  lambdas: readonly Float64Array[],
): Merit[] | null {
  const recorded = recordedProblem(f, contacts);
  if (recorded) return lambdas.map((l) => ({ kktMaxRel: kkt(recorded, l).maxRel, coulombMerit: coulombMerit(recorded, l) }));
  if (!bodies) return null;
  const cs = contacts.map((c) => toContactPoint(f.contacts[c]));
  const k = assembleJacobians(bodies, cs, recordingAssembly(header).options);
  if (cs.length <= DENSE_ISLAND_LIMIT) {
    const p = denseProblem(k, k.regularization);
    return lambdas.map((l) => ({ kktMaxRel: kkt(p, l).maxRel, coulombMerit: coulombMerit(p, l) }));
  }
  const rows = matrixFreeRows(k);
  const ws = new KktWorkspace(k.size);
  return lambdas.map((l) => {
    const kktMaxRel = kktRows(rows, l, ws).maxRel;
    return { kktMaxRel, coulombMerit: coulombMeritFromU(k.mu, k.b, l, ws.w) };
  });
}
