/**
 * Energy-injection diagnosis of a recording (ours or another engine's): which frame, which contact, which
 * mechanism, how many joules — decided from the data, never from the file's status label
 * (docs/physics.md, "Diagnosis").
 *
 * Per frame:
 *  1. The energy ledger (frameLedger.ts): every contact's normal and friction work, split into what the
 *     restitution law allows, what the stabilisation accounts for, and the excess; integrator and
 *     unexplained channels; ΔE is their exact sum.
 *  2. Per island whose contacts separate above the law, or whose frame gained energy: counterfactual exact
 *     re-solves (counterfactual.ts) — same problem, without stabilisation, with the restitution law — give
 *     each mechanism's joules: the solve (an exact solution of the same problem would not inject), the
 *     stabilisation (Baumgarte/ERP bias, soft-contact spring, push-out of an overlap), the target
 *     (restitution overshoot, the convex model's lift), friction doing positive work.
 *  3. Findings per frame and mechanism, never gated by the frame's total energy (a masked injection is
 *     still found), listing contacts ranked by joules and summing small contributions.
 *  4. Non-physical behaviour that is not (yet) an energy gain (nonPhysical.ts) and recording consistency
 *     (consistency.ts: Δv = M⁻¹Jᵀλ per body, the likely writer bug when it fails).
 */
import type { RecordedFrame, RecordingHeader } from '../format/recording.js';
import { inverseInertiaBody, toContactPoint } from '../format/recording.js';
import { ContactKeyTable } from './contactKeys.js';
import { lambdaSource, solverKind, statusMeaning } from './solverDeclarations.js';
import { quatToMat3 } from '../engine/math/quat.js';
import { assembleJacobians, type ContactJacobians } from '../engine/assembly.js';
import { buildIslands } from '../engine/collision/islands.js';
import type { BodyState, ContactPoint } from '../engine/problem.js';
import { jacobianKinematics, type ContactKinematics } from './contactKinematics.js';
import { initialAsPrevious, solveTimeBodies } from './preSolve.js';
import { frameLedger, stabilisationModel, type ContactLedger, type FrameLedger, type StabilisationModel } from './frameLedger.js';
import { islandCounterfactual, potentialRows, RECORDED_EXACT_KKT, type IslandCounterfactual } from './counterfactual.js';
import { NonPhysicalDetector, type NonPhysicalEvent, type NonPhysicalKind, type Severity } from './nonPhysical.js';
import { checkFrameConsistency, type WriterBug } from './consistency.js';
import { externalWork, extraVelocityChanges, manifoldLedgers, type ManifoldLedger } from './extraRows.js';

export type InjectionMechanism =
  | 'restitution-overshoot'
  | 'bias-injection'
  | 'overlap-push-out'
  | 'friction-positive-work'
  | 'socp-separation'
  | 'non-converged-solve'
  | 'position-correction'
  | 'integrator-drift'
  | 'unattributed-gain';

/** Stabilisation mechanisms are design choices with bounded energy (warnings); the others are errors. */
export const MECHANISM_SEVERITY: Record<InjectionMechanism, Severity> = {
  'restitution-overshoot': 'error',
  'bias-injection': 'warning',
  'overlap-push-out': 'warning',
  'friction-positive-work': 'error',
  'socp-separation': 'error',
  'non-converged-solve': 'error',
  'position-correction': 'warning',
  'integrator-drift': 'error',
  'unattributed-gain': 'warning',
};

export type Mechanism = InjectionMechanism | NonPhysicalKind | 'inconsistent-recording' | 'blow-up';
export type FindingKind = 'injection' | 'non-physical' | 'inconsistent';
export type { Severity } from './nonPhysical.js';

/** Joules one counterfactual re-solve saves (J), over the frame's re-solved islands. */
export interface CounterfactualSavings {
  /** Exact solve of the same contact problem. */
  readonly exactSolve: number;
  /** The same without the stabilisation term. */
  readonly noStabilisation: number;
  /** The restitution law −e·ġ⁻ in place of the recorded target. */
  readonly restitutionLaw: number;
  /** Islands re-solved, and why others were not. */
  readonly islands: number;
  readonly skipped: readonly string[];
  readonly timeMs: number;
}

/** A finding: an energy injection, a non-physical behaviour, or an inconsistent recording. */
export interface Finding {
  readonly frame: number;
  readonly time: number;
  /** Contacts (frame order), ranked by joules for injections (at most LISTED_CONTACTS). */
  readonly contacts: readonly number[];
  readonly mechanism: Mechanism;
  readonly kind: FindingKind;
  readonly severity: Severity;
  /** Energy the mechanism injected in this frame (J); 0 for non-physical and consistency findings. */
  readonly joules: number;
  readonly explanation: string;
  /** Per listed contact, its joules (same order as contacts); injections only. */
  readonly contactJoules?: readonly number[];
  readonly counterfactual?: CounterfactualSavings;
  /** The frame's data failed the consistency check: the numbers rest on an inconsistent recording. */
  readonly inconsistent?: boolean;
  readonly writerBug?: WriterBug;
}

export interface DiagnosisOptions {
  /** Energy below this is not reported (J); applied to a frame's sum per mechanism, never per contact. */
  readonly energyTolerance: number;
  /** Normal-speed excess below this is rounding (m/s). */
  readonly speedTolerance: number;
  /** Approach speed below which restitution does not apply (m/s); default: the recording's solver setting, else 0.5. */
  readonly restVelocityThreshold?: number;
  /** ERP and slop of the position correction, if known (our recordings write them in header.solver). */
  readonly erp?: number;
  readonly slop?: number;
  /** A contact that appears with at least this depth is an initial overlap (m). */
  readonly overlapDepth: number;
  /** Counterfactual exact re-solves (default true). */
  readonly counterfactuals?: boolean;
  /**
   * Re-solve work (counterfactual.ts resolveWork units) allowed per frame before the rest of its islands are
   * skipped, and over the whole diagnosis (later frames rest on the ledger). Work, not time: the findings
   * of a recording are the same on every machine.
   */
  readonly counterfactualFrameWork?: number;
  /** Default DEFAULT_COUNTERFACTUAL_TOTAL_WORK (interactive); batch runs pass BATCH_COUNTERFACTUAL_TOTAL_WORK. */
  readonly counterfactualTotalWork?: number;
  /**
   * false: Diagnoser.frames stays empty and only lastFrame is kept (a caller that copies what it needs frame by
   * frame, like the inspector's open: 10 000 frames' per-contact maps were ~100 MiB of heap). Default true.
   */
  readonly keepFrames?: boolean;
}

/** Frame-level findings list at most this many contacts (the worst ones). */
export const LISTED_CONTACTS = 8;
/**
 * Re-solve work per frame and per diagnosis when a recording opens in the inspector (interactive): ≈ 0.1–0.2 s
 * and 1–1.7 s on a 2020s x86 core (30–56 ns per unit, printed by bench:diagnose and bench:inspector).
 */
export const DEFAULT_COUNTERFACTUAL_FRAME_WORK = 3e6;
export const DEFAULT_COUNTERFACTUAL_TOTAL_WORK = 30e6;
/** The same for a batch diagnosis (CLI `diagnose`, CI): ten times more, still bounded (≈ 10–17 s). */
export const BATCH_COUNTERFACTUAL_TOTAL_WORK = 300e6;

export const DEFAULT_DIAGNOSIS: DiagnosisOptions = { energyTolerance: 1e-3, speedTolerance: 1e-3, overlapDepth: 0.02 };

/** A contact's identity across frames: its bodies and the writer's feature id. */

const finite3 = (v: readonly number[]): boolean => Number.isFinite(v[0]) && Number.isFinite(v[1]) && Number.isFinite(v[2]);
/** Position and velocities finite (no array built: this runs for every body of every frame). */
const finiteBody = (b: RecordedFrame['bodies'][number]): boolean => finite3(b.v) && finite3(b.w) && finite3(b.x);

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Kinetic Σ ½m|v|² + ½ωᵀI_wω and potential Σ −m g·x energy of the frame's dynamic bodies (J). */
export function frameEnergyParts(header: RecordingHeader, f: RecordedFrame): { kinetic: number; potential: number } {
  const g = header.gravity;
  let kinetic = 0,
    potential = 0;
  const bodies = header.bodies;
  // a loop with scalars (no closure, no array per body): it runs for every body of every frame, twice per open
  for (let i = 0; i < bodies.length; i++) {
    const b = bodies[i];
    if (b.static || b.mass === null) continue;
    const s = f.bodies[i];
    kinetic += 0.5 * b.mass * (s.v[0] ** 2 + s.v[1] ** 2 + s.v[2] ** 2);
    potential -= b.mass * (g[0] * s.x[0] + g[1] * s.x[1] + g[2] * s.x[2]);
    // ½ωᵀI_wω with I_w = R I_b Rᵀ: ½ (Rᵀω)ᵀ I_b (Rᵀω)
    const R = quatToMat3(s.q);
    const w = s.w;
    const wb0 = w[0] * R[0] + w[1] * R[3] + w[2] * R[6],
      wb1 = w[0] * R[1] + w[1] * R[4] + w[2] * R[7],
      wb2 = w[0] * R[2] + w[1] * R[5] + w[2] * R[8];
    const I = b.inertia;
    if (I && I.length === 3) kinetic += 0.5 * (I[0] * wb0 ** 2 + I[1] * wb1 ** 2 + I[2] * wb2 ** 2);
    else if (I && I.length === 9) {
      const wb = [wb0, wb1, wb2];
      for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) kinetic += 0.5 * wb[r] * I[3 * r + c] * wb[c];
    }
  }
  return { kinetic, potential };
}

/** A post-step body state as a solve-time body (for the work of external impulses on frames without a solve state). */
function postAsSolveTime(header: RecordingHeader): (s: RecordedFrame['bodies'][number], i: number) => BodyState {
  return (s, i) => {
    const b = header.bodies[i];
    if (b.static || b.mass === null) return { invMass: 0, invInertiaWorld: [0, 0, 0, 0, 0, 0, 0, 0, 0], x: s.x, v: s.v, omega: s.w };
    const R = quatToMat3(s.q);
    const Ib = inverseInertiaBody(b);
    // I⁻¹_w = R I⁻¹_b Rᵀ
    const M = [0, 0, 0, 0, 0, 0, 0, 0, 0];
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 3; c++) {
        let x = 0;
        for (let p = 0; p < 3; p++) for (let q = 0; q < 3; q++) x += R[3 * r + p] * Ib[3 * p + q] * R[3 * c + q];
        M[3 * r + c] = x;
      }
    return { invMass: 1 / b.mass, invInertiaWorld: M as unknown as BodyState['invInertiaWorld'], x: s.x, v: s.v, omega: s.w };
  };
}

/** Total energy (kinetic + potential) of the frame's dynamic bodies. */
export function frameEnergy(header: RecordingHeader, f: RecordedFrame): number {
  const { kinetic, potential } = frameEnergyParts(header, f);
  return kinetic + potential;
}

/** Joules per mechanism accumulated over a frame's islands, with per-contact shares. */
class Shares {
  readonly total = new Map<InjectionMechanism, number>();
  readonly perContact = new Map<InjectionMechanism, Map<number, number>>();
  add(m: InjectionMechanism, joules: number, contact?: number): void {
    if (!(joules > 0)) return;
    this.total.set(m, (this.total.get(m) ?? 0) + joules);
    if (contact === undefined) return;
    let pc = this.perContact.get(m);
    if (!pc) this.perContact.set(m, (pc = new Map()));
    pc.set(contact, (pc.get(contact) ?? 0) + joules);
  }
  /** Spreads `joules` of mechanism m over contacts in proportion to weights (or unlisted when all weights are 0). */
  spread(m: InjectionMechanism, joules: number, weights: ReadonlyMap<number, number>): void {
    if (!(joules > 0)) return;
    let sum = 0;
    for (const w of weights.values()) sum += w;
    if (!(sum > 0)) {
      this.add(m, joules);
      return;
    }
    this.total.set(m, (this.total.get(m) ?? 0) + joules);
    let pc = this.perContact.get(m);
    if (!pc) this.perContact.set(m, (pc = new Map()));
    for (const [c, w] of weights) if (w > 0) pc.set(c, (pc.get(c) ?? 0) + joules * (w / sum));
  }
}

/** Result of analysing one frame, kept for the inspector and the report. */
export interface FrameDiagnosis {
  /** The frame's channels (per-contact parts dropped to keep long recordings small: see Diagnoser.lastLedger). */
  readonly ledger: FrameLedger;
  /** Injected joules per mechanism (J). */
  readonly injected: ReadonlyMap<InjectionMechanism, number>;
  /** Injected joules per contact (frame order), over all mechanisms; only contacts that injected. */
  readonly byContact: ReadonlyMap<number, number>;
}

export class Diagnoser {
  private prev: RecordedFrame | undefined;
  private prevEnergy: number | undefined;
  private readonly opt: DiagnosisOptions;
  private readonly stab: StabilisationModel;
  /** PGS with the Coulomb-disk law has no QP-SOCP lift; any other (or unknown) solver may. */
  private readonly convexSolver: boolean;
  private readonly nonPhysical: NonPhysicalDetector;
  /** ½Σm|g|²Δt² over the dynamic bodies: the size of semi-implicit Euler's per-step residual. */
  private readonly eulerResidual: number;
  /** Contact identities (pair + feature id) as small integers, shared with whoever follows contacts across frames. */
  readonly keys = new ContactKeyTable();
  /** seen[id] = 1 once contact id appeared in an earlier frame. */
  private seen = new Uint8Array(1024);
  /** Contacts of the previous frame (pair and feature id). */
  /** Body pairs in contact in the previous frame (feature ids are not stable in every engine, e.g. MuJoCo). */
  private prevPairs = new Set<number>();
  readonly findings: Finding[] = [];
  /** The writer says its friction impulses are fitted, not the engine's. */
  readonly fittedFriction: boolean;
  /** The writer says its tangential impulses are not available (written as 0): Δv = M⁻¹Jᵀλ cannot be checked. */
  readonly tangentUnavailable: boolean;
  /**
   * The writer says its normal impulses are not available (written as 0; e.g. a binding that exposes none):
   * no contact work, no Δv check, no mechanism is concluded from λ — only the frame's energy change is reported.
   */
  readonly normalUnavailable: boolean;
  /** First frame whose data fails the consistency check, and how many frames failed. */
  consistency: { firstFrame: number; body: number; bug: WriterBug; text: string; frames: number; checked: number } | null = null;
  /** Frames whose Δv = M⁻¹Jᵀλ was checked (they have `pre` and a consistent state). */
  checkedFrames = 0;
  /** Per frame number: the contacts listed by its injection findings (frames without any are absent). */
  private readonly injectionContacts = new Map<number, number[]>();
  /** A non-finite state was reported (once). */
  private blownUp = false;
  /** Per frame: the ledger and injected joules per mechanism (for charts and `report`); empty with the option keepFrames: false. */
  readonly frames: FrameDiagnosis[] = [];
  /** The last frame's diagnosis (kept whatever the option keepFrames says). */
  lastFrame: FrameDiagnosis | undefined;
  /** The last frame's full ledger, per contact included. */
  lastLedger: FrameLedger | undefined;
  /**
   * Counterfactual cost: frames re-solved, islands, total milliseconds and work units (resolveWork), and the
   * first frame whose islands the diagnosis' total budget left to the ledger alone (null: never).
   */
  readonly cost: { frames: number; islands: number; ms: number; work: number; exhaustedAt: number | null } = {
    frames: 0,
    islands: 0,
    ms: 0,
    work: 0,
    exhaustedAt: null,
  };

  constructor(
    private readonly header: RecordingHeader,
    options: Partial<DiagnosisOptions> = {},
    initialEnergy?: number,
  ) {
    const s = header.solver ?? { name: '' };
    this.opt = {
      ...DEFAULT_DIAGNOSIS,
      restVelocityThreshold: num(s.restVelocityThreshold) ?? 0.5,
      erp: num(s.erp),
      slop: num(s.slop),
      ...options,
    };
    const declared = stabilisationModel(header);
    this.stab =
      options.erp !== undefined
        ? options.erp > 0
          ? { source: 'declared-bias', erp: options.erp, slop: options.slop ?? 0 }
          : { source: 'declared-none', erp: 0, slop: 0 }
        : declared;
    this.prevEnergy = initialEnergy;
    this.isStatic = header.bodies.map((b) => b.static);
    // the convex QP-SOCP model's lift is named only for solvers known to solve it (ours, or a header saying so)
    this.convexSolver =
      s.name === 'newton' || s.name === 'ipm' || (s.name === 'pgs' && s.friction === 'cone') || s.friction === 'cone' || s.model === 'qp-socp';
    const g2 = header.gravity[0] ** 2 + header.gravity[1] ** 2 + header.gravity[2] ** 2;
    this.eulerResidual = header.bodies.reduce((a, b) => a + (b.static || b.mass === null ? 0 : 0.5 * b.mass * g2 * header.dt * header.dt), 0);
    // λ fitted to the velocity change by the writer (an engine whose binding hides impulses): friction
    // per contact is one of many splits that explain Δv, so its direction and cone are not judged
    const source = lambdaSource(header);
    this.normalUnavailable = source.normal === 'unavailable';
    this.fittedFriction = source.tangent !== 'solver' || this.normalUnavailable;
    this.tangentUnavailable = source.tangent === 'unavailable' || this.normalUnavailable;
    this.nonPhysical = new NonPhysicalDetector(
      { speedTolerance: this.opt.speedTolerance, penetrationGrowth: this.opt.overlapDepth / 2, judgeFriction: !this.fittedFriction },
      this.convexSolver,
      this.keys,
    );
  }

  /** The format 1.1 initial state has been taken as the first frame's predecessor. */
  private started = false;
  /** Per body: static (the header's; built once, not per frame). */
  private readonly isStatic: readonly boolean[];

  private keep(fd: FrameDiagnosis): void {
    this.lastFrame = fd;
    if (this.opt.keepFrames !== false) this.frames.push(fd);
  }

  /** Diagnoses the next frame (frames must come in order). */
  add(f: RecordedFrame): void {
    if (!this.started) {
      this.started = true;
      // format 1.1 initial-state line: the state before the first step is its "previous frame", so the first
      // step gets an energy change and a solve pose like any other (unless the caller gave the initial energy)
      // (one step before it; an initial state further back still gives the energy change, not the solve pose)
      const init = this.header.initial;
      if (init && this.prev === undefined && f.bodies.length === init.bodies.length) {
        this.prev =
          initialAsPrevious(this.header, f) ??
          (init.time === undefined
            ? { frame: f.frame - 1, time: f.time - this.header.dt, bodies: init.bodies, contacts: [], solver: { name: '', status: 'converged', lambda: [] } }
            : { frame: f.frame - 2, time: init.time, bodies: init.bodies, contacts: [], solver: { name: '', status: 'converged', lambda: [] } });
        this.prevEnergy ??= frameEnergy(this.header, this.prev);
      }
    }
    const energy = frameEnergy(this.header, f);
    const prev = this.prev;
    this.current = f;
    if (!Number.isFinite(energy) || !f.bodies.every(finiteBody)) {
      // a diverged simulation is data to show: its first non-finite frame is the finding, the rest is not analysed
      if (!this.blownUp) {
        this.blownUp = true;
        const i = f.bodies.findIndex((b) => ![...b.v, ...b.w, ...b.x].every(Number.isFinite) || Math.hypot(...b.v, ...b.w) > 1e150);
        this.findings.push({
          frame: f.frame,
          time: f.time,
          contacts: [],
          mechanism: 'blow-up',
          kind: 'non-physical',
          severity: 'error',
          joules: 0,
          explanation: `the simulation blows up at frame ${f.frame}: ${i >= 0 ? `body ${i} (${this.header.bodies[i]?.name ?? '?'}) has ${[...f.bodies[i].v, ...f.bodies[i].w, ...f.bodies[i].x].every(Number.isFinite) ? 'a velocity above 1e150' : 'a non-finite position or velocity'}` : 'its energy is not finite'}; the frames before it are analysed as usual`,
        });
      }
      this.lastLedger = {
        frame: f.frame,
        energy,
        delta: Number.NaN,
        normal: 0,
        friction: 0,
        stabilisation: 0,
        excess: 0,
        positionCorrection: 0,
        integrator: Number.NaN,
        unexplained: 0,
        manifold: 0,
        external: 0,
        contacts: null,
      };
      this.keep({ ledger: this.lastLedger, injected: new Map(), byContact: new Map() });
      this.prev = f;
      this.prevEnergy = undefined;
      return;
    }
    const rest = this.opt.restVelocityThreshold ?? 0.5;
    const solveTime = f.contacts.length > 0 || f.pre || f.external || f.manifolds ? solveTimeBodies(this.header, f, prev) : null;
    const bodies = solveTime?.ok ? solveTime.bodies : null;
    const contacts = f.contacts.map(toContactPoint);
    let dvLambda: Float64Array | undefined;
    let blocks: ContactJacobians | null = null,
      kin: ContactKinematics[] | null = null,
      manifolds: ManifoldLedger[] | null = null;
    if (bodies) {
      // M⁻¹(Jᵀλ + p): manifold rows and impulses applied with the solve first, then the contacts' rows on top
      dvLambda = extraVelocityChanges(f, bodies, new Float64Array(6 * bodies.length));
      if (contacts.length > 0 && !this.normalUnavailable) {
        blocks = assembleJacobians(bodies, contacts, { regularization: 0, baumgarte: false, restVelocityThreshold: Infinity, dt: this.header.dt });
        kin = jacobianKinematics(blocks, contacts, f.solver.lambda, bodies.length, dvLambda); // adds M⁻¹Jᵀλ to dvLambda
      } else if (contacts.length === 0) kin = [];
      manifolds = manifoldLedgers(f, bodies, dvLambda);
    }
    const ledger = frameLedger({
      header: this.header,
      frame: f,
      prev,
      prevEnergy: this.prevEnergy,
      energy,
      kinematics: kin,
      potentialPerImpulse: blocks ? potentialRows(blocks, this.header.gravity, this.header.dt) : null,
      persistent: prev && prev.frame === f.frame - 1 ? (c) => this.prevPairs.has(this.keys.pairs(f)[c]) : null,
      preVelocities: bodies ? bodies.map((b) => ({ v: b.v, w: b.omega })) : null,
      restVelocityThreshold: rest,
      speedTolerance: this.opt.speedTolerance,
      stabilisation: this.stab,
      manifolds,
      external: f.external
        ? externalWork(f, bodies ?? f.bodies.map(postAsSolveTime(this.header)), dvLambda ?? null, this.header.gravity, this.header.dt)
        : null,
    });
    // consistency first: findings of an inconsistent frame are marked
    let inconsistent = false;
    if (f.pre && bodies && solveTime?.ok && !solveTime.reconstructed && !this.tangentUnavailable) {
      this.checkedFrames++;
      const c = checkFrameConsistency(this.header, f, prev, blocks, contacts, dvLambda);
      if (c && c.body >= 0 && !(c.linearOk && c.angularOk)) {
        inconsistent = true;
        if (!this.consistency) {
          this.consistency = { firstFrame: f.frame, body: c.body, bug: c.bug, text: c.text, frames: 0, checked: 0 };
          this.findings.push({
            frame: f.frame,
            time: f.time,
            contacts: [],
            mechanism: 'inconsistent-recording',
            kind: 'inconsistent',
            severity: 'error',
            joules: 0,
            writerBug: c.bug,
            explanation: `inconsistent recording from frame ${f.frame} on: ${c.text}. Findings on such frames rest on inconsistent data and are marked so.`,
          });
        }
        this.consistency.frames++;
      }
      if (this.consistency) this.consistency.checked = this.checkedFrames;
    }
    const shares = new Shares();
    const mark = (x: Finding): Finding => (inconsistent ? { ...x, inconsistent: true } : x);
    let savings: CounterfactualSavings | undefined;
    if (ledger.contacts && bodies && contacts.length > 0)
      savings = this.attribute(f, ledger.contacts, bodies, contacts, shares, rest, ledger.delta - ledger.external > this.opt.energyTolerance);
    // manifold friction rows against maximal dissipation (positive work along the post-step slip), spread over their contacts
    if (manifolds && !this.fittedFriction)
      manifolds.forEach((m, i) => {
        if (m.work > 0 && m.slipPower > 0) {
          const cs = f.manifolds![i].contacts;
          shares.spread('friction-positive-work', m.work, new Map(cs.map((c) => [c, 1])));
        }
      });
    const before = this.findings.length;
    this.pushInjections(f, ledger, shares, savings, mark);
    // contacts of the injection findings of this frame number (also those of an earlier line with the same
    // number), kept per frame number: scanning every finding so far made the pass quadratic in the findings
    let listed = this.injectionContacts.get(f.frame);
    for (let k = before; k < this.findings.length; k++)
      if (this.findings[k].kind === 'injection') {
        if (!listed) this.injectionContacts.set(f.frame, (listed = []));
        for (const c of this.findings[k].contacts) listed.push(c);
      }
    const injected = new Set(listed);
    const byKind = new Map<NonPhysicalKind, NonPhysicalEvent[]>();
    for (const ev of this.nonPhysical.events(f, ledger.contacts)) {
      // a contact whose separation an injection finding already explains is not listed twice
      if (ev.kind === 'separating-with-impulse' && injected.has(ev.contact)) continue;
      const list = byKind.get(ev.kind) ?? [];
      list.push(ev);
      byKind.set(ev.kind, list);
    }
    for (const [kind, evs] of byKind) {
      const worst = evs.find((e) => e.severity === 'error') ?? evs[0];
      const more =
        evs.length > 1
          ? ` (${evs.length} contacts: ${evs
              .slice(0, LISTED_CONTACTS)
              .map((e) => '#' + e.contact)
              .join(', ')}${evs.length > LISTED_CONTACTS ? ', …' : ''})`
          : '';
      this.findings.push(
        mark({
          frame: f.frame,
          time: f.time,
          contacts: evs.slice(0, LISTED_CONTACTS).map((e) => e.contact),
          mechanism: kind,
          kind: 'non-physical',
          severity: worst.severity,
          joules: 0,
          explanation: `contact #${worst.contact}: ${worst.text}${more}`,
        }),
      );
    }
    this.prevPairs.clear();
    for (const p of this.keys.pairs(f)) this.prevPairs.add(p);
    const ids = this.keys.ids(f);
    if (this.keys.size > this.seen.length) {
      const s = new Uint8Array(Math.max(this.keys.size, 2 * this.seen.length));
      s.set(this.seen);
      this.seen = s;
    }
    for (let c = 0; c < ids.length; c++) this.seen[ids[c]] = 1;
    const byContact = new Map<number, number>();
    for (const pc of shares.perContact.values()) for (const [c, j] of pc) byContact.set(c, (byContact.get(c) ?? 0) + j);
    this.lastLedger = ledger;
    this.keep({ ledger: { ...ledger, contacts: null }, injected: shares.total, byContact });
    this.prev = f;
    this.prevEnergy = energy;
  }

  /** Splits the islands' energy above the law into mechanisms (counterfactuals when possible). */
  private attribute(
    f: RecordedFrame,
    L: readonly ContactLedger[],
    bodies: readonly BodyState[],
    contacts: readonly ContactPoint[],
    shares: Shares,
    rest: number,
    frameRose: boolean,
  ): CounterfactualSavings | undefined {
    const tol = this.opt.speedTolerance,
      etol = this.opt.energyTolerance;
    const isStatic = this.isStatic;
    const islands = buildIslands(
      isStatic.length,
      contacts.map((c) => [c.bodyA, c.bodyB] as const),
      isStatic,
    );
    const budget = this.opt.counterfactualFrameWork ?? DEFAULT_COUNTERFACTUAL_FRAME_WORK;
    const total = this.opt.counterfactualTotalWork ?? DEFAULT_COUNTERFACTUAL_TOTAL_WORK;
    const useCf = this.opt.counterfactuals !== false;
    let exactSolve = 0,
      noStab = 0,
      restLaw = 0,
      solved = 0,
      ms = 0,
      work = 0;
    const skipped: string[] = [];
    let any = false;
    for (const isl of islands) {
      let stabE = 0,
        excessE = 0,
        pos = 0;
      for (const c of isl.contacts) {
        stabE += L[c].stabilisation;
        excessE += L[c].excess;
        pos += Math.max(0, L[c].normalWork);
      }
      const suspect = stabE + excessE > 0.5 * etol || (frameRose && pos > 0);
      if (!suspect) continue;
      any = true;
      let cf: IslandCounterfactual | undefined;
      let recordedB: Float64Array | undefined;
      // an exact re-solve decides between the solve and the target; separation within the stabilisation's reach needs none
      // (a frame whose total rose always: in a stack the lift of the upper bodies is potential energy that no single
      // contact's separation shows — only the island's exact re-solves measure it)
      const needsSolve = excessE > 0.5 * etol || frameRose;
      if (useCf && needsSolve && (work >= budget || this.cost.work + work >= total)) {
        if (work < budget) this.cost.exhaustedAt ??= f.frame;
        skipped.push(
          work >= budget
            ? `this frame's exact re-solve budget is used up (${budget.toExponential(1)} work units)`
            : `the diagnosis' exact re-solve budget is used up by earlier frames (${total.toExponential(1)} work units)`,
        );
      } else if (useCf && needsSolve) {
        const lam = new Float64Array(3 * isl.contacts.length),
          s = new Float64Array(isl.contacts.length);
        isl.contacts.forEach((c, j) => {
          for (let r = 0; r < 3; r++) lam[3 * j + r] = f.solver.lambda[3 * c + r];
          // the stabilisation speed the data allows: declared bias, or the part of the separation a push-out explains
          s[j] =
            this.stab.source === 'undeclared' || this.stab.source === 'declared-soft'
              ? Math.min(L[c].stabilisationSpeed, Math.max(0, L[c].separation - L[c].target))
              : L[c].stabilisationSpeed;
        });
        recordedB =
          f.b && f.b.length === 3 * f.contacts.length
            ? Float64Array.from(isl.contacts.flatMap((c) => [f.b![3 * c], f.b![3 * c + 1], f.b![3 * c + 2]]))
            : undefined;
        const out = islandCounterfactual(
          bodies,
          isl.contacts.map((c) => contacts[c]),
          lam,
          s,
          rest,
          this.header.dt,
          this.header.gravity,
          recordedB,
          total - this.cost.work - work, // a sparse re-solve predicted to exceed it is not started
        );
        if (out.ok) {
          cf = out.value;
          ms += cf.timeMs;
          work += cf.work;
          solved++;
        } else skipped.push(out.reason);
      }
      const saved = this.attributeIsland(isl.contacts, L, cf, shares, tol, recordedB !== undefined);
      exactSolve += saved.exact;
      noStab += saved.stab;
      restLaw += saved.law;
    }
    if (!any) return undefined;
    this.cost.frames++;
    this.cost.islands += solved;
    this.cost.ms += ms;
    this.cost.work += work;
    return { exactSolve, noStabilisation: noStab, restitutionLaw: restLaw, islands: solved, skipped, timeMs: ms };
  }

  /**
   * One island: stabilisation, target (restitution / convex lift) and solve shares; returns the joules the
   * exact solve, the removal of stabilisation and the restitution law save.
   */
  private attributeIsland(
    cs: readonly number[],
    L: readonly ContactLedger[],
    cf: IslandCounterfactual | undefined,
    shares: Shares,
    tol: number,
    recordedB: boolean,
  ): { exact: number; stab: number; law: number } {
    const stabW = new Map<number, number>(),
      restW = new Map<number, number>(),
      liftW = new Map<number, number>(),
      solveW = new Map<number, number>(),
      fricW = new Map<number, number>();
    let stabSum = 0,
      restSum = 0,
      liftSum = 0,
      solveSum = 0,
      fricSum = 0;
    for (const c of cs) {
      const x = L[c];
      // friction against maximal dissipation: positive work AND a component along the post-step slip
      if (!this.fittedFriction && x.frictionWork > 0 && x.slipPower > 0) {
        fricW.set(c, x.frictionWork);
        fricSum += x.frictionWork;
      }
      if (x.stabilisation > 0) {
        stabW.set(c, x.stabilisation);
        stabSum += x.stabilisation;
      }
      if (!(x.excess > 0)) continue;
      const mu = this.current!.contacts[c].mu;
      // the (1+e)·v⁻ target at the impact (a contact new this frame), or an exact solve of a problem whose target differs from the law
      const isNew = !this.prevPairs.has(this.keys.pairs(this.current!)[c]);
      const restitutionTarget = isNew && x.target > 0 && x.separation >= 0.95 * (x.approach + x.target);
      const lift = this.convexSolver && x.slip > 10 * tol && Math.abs(x.separation - x.target - mu * x.slip) <= Math.max(10 * tol, 0.05 * mu * x.slip);
      if (restitutionTarget || (isNew && x.target > 0 && cf !== undefined && cf.recordedKkt <= RECORDED_EXACT_KKT)) {
        restW.set(c, x.excess);
        restSum += x.excess;
      } else if (lift) {
        liftW.set(c, x.excess);
        liftSum += x.excess;
      } else {
        solveW.set(c, x.excess);
        solveSum += x.excess;
      }
    }
    if (!cf) {
      // no exact re-solve: the ledger's per-contact evidence alone
      this.spreadStab(stabSum, stabW, cs, L, shares);
      shares.spread('friction-positive-work', fricSum, fricW);
      shares.spread('restitution-overshoot', restSum, restW);
      shares.spread('socp-separation', liftSum, liftW);
      shares.spread('non-converged-solve', solveSum, solveW);
      return { exact: 0, stab: 0, law: 0 };
    }
    const above = cf.recorded - cf.law; // the island's kinetic energy above the law's exact solution
    const exactSaves = Math.max(0, cf.recorded - cf.sameProblem);
    if (!(above > 0)) return { exact: exactSaves, stab: 0, law: 0 };
    const fricShare = Math.min(above, fricSum);
    shares.spread('friction-positive-work', fricShare, fricW);
    const stabShare = Math.min(above - fricShare, Math.max(0, cf.stabilised - cf.law));
    this.spreadStab(stabShare, stabW, cs, L, shares);
    const remaining = above - fricShare - stabShare;
    const evidence = restSum + liftSum;
    // with the file's own b, what an exact solve saves is the solve's share and the rest lies in b's target;
    // with a rebuilt b (law + stabilisation), contacts that hit another target explain their excess
    const solveShare = recordedB ? Math.min(remaining, exactSaves) : remaining - Math.min(remaining, evidence);
    const targetShare = remaining - solveShare;
    if (targetShare > 0) {
      if (evidence > 0) {
        shares.spread('restitution-overshoot', (targetShare * restSum) / evidence, restW);
        shares.spread('socp-separation', (targetShare * liftSum) / evidence, liftW);
      } else shares.spread('bias-injection', targetShare, new Map(cs.map((c) => [c, Math.max(0, L[c].normalWork)])));
    }
    if (solveShare > 0) {
      // rank the solve's share by each contact's excess, else by its positive normal work
      if (solveSum > 0) shares.spread('non-converged-solve', solveShare, solveW);
      else shares.spread('non-converged-solve', solveShare, new Map(cs.map((c) => [c, L[c].excess + Math.max(0, L[c].normalWork)])));
    }
    return { exact: exactSaves, stab: Math.max(0, cf.stabilised - cf.law), law: targetShare };
  }

  /** The frame being diagnosed. */
  private current: RecordedFrame | undefined;

  /** Stabilisation energy: overlap push-out for a contact that appears deep, else the bias/spring. */
  private spreadStab(joules: number, w: ReadonlyMap<number, number>, cs: readonly number[], L: readonly ContactLedger[], shares: Shares): void {
    if (!(joules > 0)) return;
    const f = this.current!;
    const overlap = new Map<number, number>(),
      bias = new Map<number, number>();
    for (const [c, x] of w) {
      const ct = f.contacts[c];
      const id = this.keys.ids(this.current!)[c];
      const isNew = id >= this.seen.length || this.seen[id] === 0;
      (isNew && ct.depth >= this.opt.overlapDepth ? overlap : bias).set(c, x);
    }
    let so = 0,
      sb = 0;
    for (const x of overlap.values()) so += x;
    for (const x of bias.values()) sb += x;
    if (so + sb === 0) {
      // the exact re-solves show the stabilisation's energy although no contact separates within it: weight by ½m·s²
      const all = new Map(cs.map((c) => [c, 0.5 * L[c].mEff * L[c].stabilisationSpeed ** 2]));
      shares.spread('bias-injection', joules, all);
      return;
    }
    shares.spread('overlap-push-out', (joules * so) / (so + sb), overlap);
    shares.spread('bias-injection', (joules * sb) / (so + sb), bias);
  }

  private pushInjections(
    f: RecordedFrame,
    ledger: FrameLedger,
    shares: Shares,
    savings: CounterfactualSavings | undefined,
    mark: (x: Finding) => Finding,
  ): void {
    const etol = this.opt.energyTolerance;
    if (this.normalUnavailable && f.contacts.length > 0) {
      // no contact impulses in the file: a gain is reported, never attributed to a mechanism of the solve
      const gain = ledger.delta - ledger.external;
      if (gain > etol) {
        shares.add('unattributed-gain', gain);
        this.findings.push(
          mark({
            frame: f.frame,
            time: f.time,
            contacts: [],
            mechanism: 'unattributed-gain',
            kind: 'injection',
            severity: MECHANISM_SEVERITY['unattributed-gain'],
            joules: gain,
            explanation: `total energy rose by ${gain.toPrecision(3)} J in a frame with ${f.contacts.length} contacts, but the normal impulses are not recorded (header solver.lambdaSource.normal "unavailable"): no mechanism is concluded from impulses that are not in the file (docs/recording-format.md "λ availability")`,
          }),
        );
      }
      return;
    }
    // energy from outside (format 1.1 external impulses) is work done on the bodies, never an injection
    const rose = ledger.delta - ledger.external;
    const reported: InjectionMechanism[] = [];
    let reportedJ = 0;
    const entries = [...shares.total.entries()].sort((a, b) => b[1] - a[1]);
    for (const [m, j] of entries)
      if (j > etol) {
        reported.push(m);
        reportedJ += j;
      }
    // a frame whose total rose must carry a finding: the largest share (even if each is small), else the integrator
    if (reported.length === 0 && rose > etol) {
      if (entries.length > 0 && entries[0][1] >= Math.max(0, ledger.integrator, ledger.positionCorrection)) {
        reported.push(entries[0][0]);
        reportedJ += entries[0][1];
      }
    }
    if (ledger.positionCorrection > etol && rose > etol) {
      shares.add('position-correction', ledger.positionCorrection);
      reported.push('position-correction');
      reportedJ += ledger.positionCorrection;
    }
    const rest = rose - reportedJ;
    const contactFree = f.contacts.length === 0;
    // semi-implicit Euler's own residual lies between −½Σm|g|²Δt² (free fall) and +½Σm|g|²Δt² (bodies held by
    // contacts, whose kinetic-only contact work is −½m|g|²Δt²): only what exceeds it is the integrator's gain
    const integratorGain = ledger.integrator - (contactFree ? -1 : 1) * this.eulerResidual;
    // with pushing contacts, the integrator channel also holds the potential energy of bodies they lift (a stack's
    // upper boxes): without an exact re-solve, an active stabilisation is the likelier cause than the integrator
    // (evaluated only for a frame whose total rose: both uses below require it, and it scans every contact)
    const pushing = rose > etol && (ledger.contacts ?? []).some((c, i) => c.stabilisationSpeed > 0 && f.solver.lambda[3 * i] > 0);
    if (rose > etol && rest > etol && integratorGain > etol && (contactFree || (reported.length === 0 && !pushing))) {
      shares.add('integrator-drift', Math.min(integratorGain, rose));
      reported.push('integrator-drift');
    } else if (rose > etol && reported.length === 0 && !contactFree) {
      // the frame rose, no channel shows it and no re-solve could be made: name the likelier cause (unverified) — never silence
      const m: InjectionMechanism = pushing ? 'bias-injection' : 'non-converged-solve';
      shares.add(m, rose);
      reported.push(m);
    }
    for (const m of reported) {
      const joules = shares.total.get(m) ?? 0;
      const per = [...(shares.perContact.get(m) ?? new Map<number, number>()).entries()].sort((a, b) => b[1] - a[1]);
      const listed = per.slice(0, LISTED_CONTACTS);
      const contacts = listed.map(([c]) => c);
      const contactJoules = listed.map(([, j]) => j);
      this.findings.push(
        mark({
          frame: f.frame,
          time: f.time,
          contacts,
          mechanism: m,
          kind: 'injection',
          joules,
          // a solve blamed without an exact re-solve to confirm it is a warning
          severity: m === 'non-converged-solve' && !(savings && savings.islands > 0) ? 'warning' : MECHANISM_SEVERITY[m],
          explanation: this.explain(m, f, ledger, joules, per, savings),
          ...(contacts.length ? { contactJoules } : {}),
          ...(savings && m !== 'integrator-drift' ? { counterfactual: savings } : {}),
        }),
      );
    }
  }

  private explain(
    m: InjectionMechanism,
    f: RecordedFrame,
    ledger: FrameLedger,
    joules: number,
    per: [number, number][],
    cf: CounterfactualSavings | undefined,
  ): string {
    const J = (x: number): string => `${x.toPrecision(3)} J`;
    const L = ledger.contacts;
    const top = per[0]?.[0];
    const x = top !== undefined && L ? L[top] : undefined;
    const ct = top !== undefined ? f.contacts[top] : undefined;
    const spread =
      per.length > 1
        ? `; spread over ${per.length} contacts (largest ${per
            .slice(0, 3)
            .map(([c, j]) => `#${c} ${J(j)}`)
            .join(', ')}${per.length > LISTED_CONTACTS ? `, the ${per.length - LISTED_CONTACTS} smallest not listed` : ''})`
        : '';
    const total = Number.isFinite(ledger.delta)
      ? ` The frame's total energy changed by ${ledger.delta >= 0 ? '+' : ''}${J(ledger.delta)}${ledger.external !== 0 ? ` (external impulses did ${J(ledger.external)} of it)` : ''}${ledger.delta - ledger.external <= this.opt.energyTolerance ? ' — the injection is masked in the total: other contacts or the integrator lost more' : ''}.`
      : '';
    const status = statusMeaning(solverKind(this.header), f.solver.status);
    const counter =
      cf && cf.islands > 0
        ? ` Counterfactual exact re-solves (interior point): the same problem solved exactly saves ${J(cf.exactSolve)}, removing the stabilisation term saves ${J(cf.noStabilisation)}, the restitution law −e·v⁻ saves ${J(cf.restitutionLaw)}.`
        : cf?.skipped.length
          ? ` Not verified by an exact re-solve: ${cf.skipped[0]}.`
          : '';
    const what = x
      ? `contact #${top} separates at ${x.separation.toPrecision(3)} m/s; the restitution law's target is ${x.target.toPrecision(3)} m/s (e = ${ct!.e}, approach ${x.approach.toPrecision(3)} m/s)`
      : '';
    switch (m) {
      case 'restitution-overshoot':
        return `${J(joules)} above Newton's restitution law: ${what}${x && x.separation >= (1 + ct!.e) * x.approach * 0.95 ? ' — it leaves at (1+e) times the approach speed: −(1+e)·v⁻ was used as the target velocity instead of −e·v⁻ (docs/physics.md, "Restitution")' : ': the impulse overshoots the restitution law'}${spread}.${counter}${total}`;
      case 'bias-injection': {
        const src = x?.stabilisationSource;
        const why = !x
          ? 'penetration turned into separation speed'
          : src === 'declared-soft'
            ? x.soft
              ? `${what}; the separation above it is within the declared soft contact's spring (k = ${x.soft.k.toPrecision(4)} 1/s², c = ${x.soft.c.toPrecision(4)} 1/s per unit effective mass), which pushes the ${(ct!.depth * 1000).toPrecision(3)} mm overlap apart at most at h·k·depth + max(0, h·c − 1)·approach = ${x.stabilisationSpeed.toPrecision(3)} m/s in one step (docs/recording-format.md "Soft contacts")`
              : `${what}; the separation above it is the declared soft contact's spring pushing the ${(ct!.depth * 1000).toPrecision(3)} mm overlap apart`
            : `${what}, and the separation above it is within the stabilisation speed ${x.stabilisationSpeed.toPrecision(3)} m/s (${src === 'declared-bias' ? `declared ERP bias (ERP/Δt)·(depth − slop), depth ${(ct!.depth * 1000).toPrecision(3)} mm` : `push-out of ${(ct!.depth * 1000).toPrecision(3)} mm penetration: a Baumgarte bias or a soft-contact spring, recognised from the data`})`;
        const lesson =
          src === 'declared-soft'
            ? 'a soft contact (spring–damper) returns the energy it stored while compressed, which kinetic + potential energy does not hold (Todorov 2014)'
            : 'Baumgarte stabilisation turns overlap into kinetic energy (Catto, GDC 2005; split impulse or a position solve avoids it)';
        return `${J(joules)} from the position correction: ${why} — ${lesson}${spread}.${counter}${total}`;
      }
      case 'overlap-push-out':
        return `${J(joules)} from pushing apart an initial overlap: ${what}; the contact appears ${ct ? (ct.depth * 1000).toPrecision(3) : '?'} mm deep and the position correction turns the overlap into separation speed${spread}.${counter}${total}`;
      case 'friction-positive-work':
        return `friction did +${J(joules)} of work${top !== undefined ? ` (contact #${top}: λt = (${f.solver.lambda[3 * top + 1].toPrecision(3)}, ${f.solver.lambda[3 * top + 2].toPrecision(3)}) N·s)` : ''}: it pushes along the sliding direction instead of against it, while maximal dissipation requires λt·v_t ≤ 0${spread}.${total}`;
      case 'socp-separation':
        return `${J(joules)} from the convex friction model: ${what}, and the excess matches μ‖v_t‖ — the QP-SOCP's w_n = μ‖w_t‖ lifts a sliding contact off (Anitescu 2006; docs/physics.md)${spread}.${counter}${total}`;
      case 'non-converged-solve': {
        const verdict =
          cf && cf.islands > 0
            ? `an exact solution of the same contact problem would not inject this energy (it saves ${J(cf.exactSolve)}): the solve is the cause, whatever ${status} says`
            : `the recorded λ separates contacts above their targets and no target or stabilisation explains it: a truncated or non-converged solve (${status})`;
        return `${J(joules)} from the solve: ${verdict}${what ? `; ${what}` : ''}${spread}.${counter}${total}`;
      }
      case 'position-correction':
        return `${J(joules)} of potential energy from a position correction: the bodies moved ${f.contacts.length ? 'out of their overlaps ' : ''}further than their velocities carry them (split impulse or a position solve); it restores the height a penetration lost and is bounded by m·g·depth${total}`;
      case 'unattributed-gain':
        return `total energy rose by ${J(joules)}; the impulses are not recorded, so no mechanism is named`;
      case 'integrator-drift':
        return `total energy rose by ${J(ledger.delta)} and the integrator channel holds ${J(ledger.integrator)}${f.contacts.length === 0 ? ' in a frame without contacts' : ''}: only the time integration can do that (semi-implicit Euler loses ½mg²Δt² per step in free fall; a gain points at the integrator or at gyroscopic terms)`;
    }
  }
}

/** Diagnoses frames in order (see Diagnoser). */
export function diagnose(header: RecordingHeader, frames: Iterable<RecordedFrame>, options: Partial<DiagnosisOptions> = {}, initialEnergy?: number): Finding[] {
  const d = new Diagnoser(header, options, initialEnergy);
  for (const f of frames) d.add(f);
  return d.findings;
}
