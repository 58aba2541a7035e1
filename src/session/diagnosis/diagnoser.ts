/**
 * Energy-injection diagnosis of a recording (ours or another engine's): which frame, which contact, which
 * mechanism, how many joules — decided from the data, never from the file's status label
 * (docs/physics.md, "Diagnosis"). The pipeline, per frame:
 *  1. the energy ledger (frameLedger.ts): every contact's normal and friction work, integrator, position
 *     correction and unexplained channels; ΔE is their exact sum;
 *  2. recording consistency (consistency.ts: Δv = M⁻¹Jᵀλ per body, the likely writer bug when it fails);
 *  3. attribution (attribution.ts): the law each contact's impulse obeys (lawFit.ts), the exact re-solves and
 *     the continuation of a truncated solve;
 *  4. injection findings (injectionFindings.ts) worded by wording.ts, and non-physical behaviour that is not
 *     (yet) an energy gain (nonPhysical.ts).
 */
import type { RecordedFrame, RecordingHeader } from '../../format/recording.js';
import { toContactPoint } from '../../format/recording.js';
import { assembleJacobians, type ContactJacobians } from '../../engine/index.js';
import { ContactKeyTable } from '../contactKeys.js';
import { lambdaSource, solverKind, statusMeaning } from '../solverDeclarations.js';
import { jacobianKinematicsColumns, type KinematicsColumns } from '../contactKinematics.js';
import { initialAsPrevious, solveTimeBodies } from '../preSolve.js';
import { frameLedger, positionCorrectionPerBody, stabilisationModel, type FrameLedger, type StabilisationModel } from '../frameLedger.js';
import { potentialRows } from '../counterfactual.js';
import { NonPhysicalDetector, type NonPhysicalEvent, type NonPhysicalKind } from '../nonPhysical.js';
import { checkFrameConsistency, type WriterBug } from '../consistency.js';
import { externalWork, extraVelocityChanges, manifoldLedgers, type ManifoldLedger } from '../extraRows.js';
import { attributeFrame, type AttributionSettings, type DiagnosisCost, type FrameAttribution } from './attribution.js';
import { DEFAULT_DIAGNOSIS, LISTED_CONTACTS, type DiagnosisOptions, type Finding, type InjectionMechanism } from './findings.js';
import { frameEnergy, postAsSolveTime } from './frameEnergy.js';
import { listedContacts, reportedMechanisms, severityOf } from './injectionFindings.js';
import { Shares } from './shares.js';
import { describeInjection } from './injectionText.js';

/** Result of analysing one frame, kept for the inspector and the report. */
export interface FrameDiagnosis {
  /** The frame's channels (per-contact parts dropped to keep long recordings small: see Diagnoser.lastLedger). */
  readonly ledger: FrameLedger;
  /** Injected joules per reported mechanism (J): exactly the frame's injection findings. */
  readonly injected: ReadonlyMap<InjectionMechanism, number>;
  /** Injected joules per contact (frame order), over the reported mechanisms; only contacts that injected. */
  readonly byContact: ReadonlyMap<number, number>;
}

const finite3 = (v: readonly number[]): boolean => Number.isFinite(v[0]) && Number.isFinite(v[1]) && Number.isFinite(v[2]);
/** Position and velocities finite (no array built: this runs for every body of every frame). */
const finiteBody = (b: RecordedFrame['bodies'][number]): boolean => finite3(b.v) && finite3(b.w) && finite3(b.x);

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The convex QP-SOCP model's lift is named for solvers known to solve it (ours, or a header saying so). */
function declaresConvex(s: NonNullable<RecordingHeader['solver']>): boolean {
  return s.name === 'newton' || s.name === 'ipm' || (s.name === 'pgs' && s.friction === 'cone') || s.friction === 'cone' || s.model === 'qp-socp';
}

/** Declares a model without the lift (Coulomb's disk, our PGS default): the lift law is not fitted. */
function declaresDisk(s: NonNullable<RecordingHeader['solver']>): boolean {
  return s.friction === 'coulomb-disk' || (s.name === 'pgs' && s.friction === undefined);
}

/**
 * Per contact, its share of the frame's position correction: each body that moved up beyond v⁺Δt gives its
 * joules to its contacts by depth (a position pass pushes overlaps apart), equally where none overlaps.
 */
function positionWeights(header: RecordingHeader, f: RecordedFrame, prev: RecordedFrame | undefined): Map<number, number> | null {
  const perBody = positionCorrectionPerBody(header, f, prev);
  if (!perBody) return null;
  const out = new Map<number, number>();
  for (let i = 0; i < perBody.length; i++) {
    if (!(perBody[i] > 0)) continue;
    let depth = 0,
      n = 0;
    f.contacts.forEach((c) => {
      if (c.a !== i && c.b !== i) return;
      depth += Math.max(0, c.depth);
      n++;
    });
    if (n === 0) continue;
    f.contacts.forEach((c, k) => {
      if (c.a !== i && c.b !== i) return;
      const w = depth > 0 ? Math.max(0, c.depth) / depth : 1 / n;
      if (w > 0) out.set(k, (out.get(k) ?? 0) + perBody[i] * w);
    });
  }
  return out.size ? out : null;
}

/**
 * What a diagnosis begun midway through a recording (Diagnoser.beginMidway) assumed of the frames before its
 * first one, by contact id of its own key table: checked against the diagnosis of those frames before its
 * findings are used (src/session/stretch/parallelStretch.ts).
 */
export interface MidwayAssumptions {
  /** Contacts whose overlap was taken as new because this diagnosis had not seen them. */
  readonly unseen: Set<number>;
  /** Track reports: contact id and the kind reported (nonPhysical.ts REPORTED_GROWTH or REPORTED_JITTER). */
  readonly reported: [number, number][];
}

/** The kinematics of a frame without contacts. */
const NO_KINEMATICS: KinematicsColumns = { gBefore: new Float64Array(0), gAfter: new Float64Array(0), mEff: new Float64Array(0) };

export class Diagnoser {
  private prev: RecordedFrame | undefined;
  private prevEnergy: number | undefined;
  private readonly opt: DiagnosisOptions;
  private readonly stab: StabilisationModel;
  private readonly convexSolver: boolean;
  private readonly nonPhysical: NonPhysicalDetector;
  private readonly attribution: AttributionSettings;
  /** ½Σm|g|²Δt² over the dynamic bodies: the size of semi-implicit Euler's per-step residual. */
  private readonly eulerResidual: number;
  /** Contact identities (pair + feature id) as small integers, shared with whoever follows contacts across frames. */
  readonly keys = new ContactKeyTable();
  /** seen[id] = 1 once contact id appeared in an earlier frame. */
  private seen = new Uint8Array(1024);
  /** Body pairs in contact in the previous frame (feature ids are not stable in every engine, e.g. MuJoCo). */
  private prevPairs = new Set<number>();
  /** The deepest depth of each body pair of the previous frame. */
  private readonly prevPairDepth = new Map<number, number>();
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
  readonly cost: DiagnosisCost = { frames: 0, islands: 0, ms: 0, work: 0, exhaustedAt: null };
  /** The format 1.1 initial state has been taken as the first frame's predecessor. */
  private started = false;
  /** Set by recordAssumptions: what a diagnosis begun midway assumes of the frames before it. */
  private assumed: MidwayAssumptions | null = null;
  /** Set by recordAssumptions until the budget is first consulted. */
  private settleBudget: ((cost: DiagnosisCost) => void) | null = null;

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
    this.stab =
      options.erp !== undefined
        ? options.erp > 0
          ? { source: 'declared-bias', erp: options.erp, slop: options.slop ?? 0 }
          : { source: 'declared-none', erp: 0, slop: 0 }
        : stabilisationModel(header);
    this.prevEnergy = initialEnergy;
    this.convexSolver = declaresConvex(s);
    const g2 = header.gravity[0] ** 2 + header.gravity[1] ** 2 + header.gravity[2] ** 2;
    this.eulerResidual = header.bodies.reduce((a, b) => a + (b.static || b.mass === null ? 0 : 0.5 * b.mass * g2 * header.dt * header.dt), 0);
    // λ fitted to the velocity change by the writer (an engine whose binding hides impulses): friction
    // per contact is one of many splits that explain Δv, so its direction and cone are not judged per point
    const source = lambdaSource(header);
    this.normalUnavailable = source.normal === 'unavailable';
    this.fittedFriction = source.tangent !== 'solver' || this.normalUnavailable;
    this.tangentUnavailable = source.tangent === 'unavailable' || this.normalUnavailable;
    this.nonPhysical = new NonPhysicalDetector(
      { speedTolerance: this.opt.speedTolerance, penetrationGrowth: this.opt.overlapDepth / 2, judgeFriction: !this.fittedFriction },
      this.convexSolver,
      this.keys,
    );
    this.attribution = {
      header,
      options: this.opt,
      fit: {
        dt: header.dt,
        restVelocityThreshold: this.opt.restVelocityThreshold ?? 0.5,
        speedTolerance: this.opt.speedTolerance,
        model: this.stab,
        convexPlausible: this.convexSolver || !declaresDisk(s),
        judgeFriction: !this.fittedFriction,
      },
      fittedFriction: this.fittedFriction,
      frictionLaw: this.convexSolver ? 'cone' : 'coulomb-disk',
      isStatic: header.bodies.map((b) => b.static),
      settleBudget: (cost) => this.settleBudget?.(cost),
    };
  }

  /** This diagnosis begins midway through the recording: its first frame does not follow the header's initial state. */
  beginMidway(): void {
    this.started = true;
  }

  /**
   * From the next frame on (the frames before it a warm-up that gives the contacts' tracks their history), records
   * what this diagnosis begun midway assumes of the frames before its first one, and counts its re-solves afresh:
   * when its budget is first consulted, `spent` gives what those frames spent of it and where it ran out (it may
   * wait until that is known).
   */
  recordAssumptions(spent: () => { readonly work: number; readonly exhaustedAt: number | null }): MidwayAssumptions {
    const a: MidwayAssumptions = { unseen: new Set(), reported: [] };
    this.assumed = a;
    this.nonPhysical.onReport = (id, bit) => a.reported.push([id, bit]);
    Object.assign(this.cost, { frames: 0, islands: 0, ms: 0, work: 0, exhaustedAt: null });
    this.settleBudget = (cost) => {
      this.settleBudget = null;
      const before = spent();
      cost.work += before.work;
      cost.exhaustedAt ??= before.exhaustedAt;
    };
    return a;
  }

  /** A frame was not finite (the rest of a blown-up recording is diagnosed without its energy change). */
  get blewUp(): boolean {
    return this.blownUp;
  }

  /** Contact `id` appeared in a frame diagnosed so far. */
  hasSeen(id: number): boolean {
    return id < this.seen.length && this.seen[id] === 1;
  }

  /** Contact `id`'s track reported kind `bit` and was seen in the last frame diagnosed (it goes on if the contact does). */
  trackReported(id: number, bit: number): boolean {
    return this.prev !== undefined && this.nonPhysical.reported(id, this.prev.frame, bit);
  }

  private keep(fd: FrameDiagnosis): void {
    this.lastFrame = fd;
    if (this.opt.keepFrames !== false) this.frames.push(fd);
  }

  /** Diagnoses the next frame (frames must come in order). */
  add(f: RecordedFrame): void {
    if (!this.started) this.start(f);
    const energy = frameEnergy(this.header, f);
    const prev = this.prev;
    if (!Number.isFinite(energy) || !f.bodies.every(finiteBody)) return this.blowUp(f, energy);
    const solveTime = f.contacts.length > 0 || f.pre || f.external || f.manifolds ? solveTimeBodies(this.header, f, prev) : null;
    const bodies = solveTime?.ok ? solveTime.bodies : null;
    const contacts = f.contacts.map(toContactPoint);
    let dvLambda: Float64Array | undefined;
    let blocks: ContactJacobians | null = null,
      kin: KinematicsColumns | null = null,
      manifolds: ManifoldLedger[] | null = null;
    if (bodies) {
      // M⁻¹(Jᵀλ + p): manifold rows and impulses applied with the solve first, then the contacts' rows on top
      dvLambda = extraVelocityChanges(f, bodies, new Float64Array(6 * bodies.length));
      if (contacts.length > 0 && !this.normalUnavailable) {
        blocks = assembleJacobians(bodies, contacts, { regularization: 0, baumgarte: false, restVelocityThreshold: Infinity, dt: this.header.dt });
        kin = jacobianKinematicsColumns(blocks, contacts, f.solver.lambda, bodies.length, dvLambda); // adds M⁻¹Jᵀλ to dvLambda
      } else if (contacts.length === 0) kin = NO_KINEMATICS;
      manifolds = manifoldLedgers(f, bodies, dvLambda);
    }
    const potential = blocks ? potentialRows(blocks, this.header.gravity, this.header.dt) : null;
    const persistent = prev && prev.frame === f.frame - 1 ? (c: number) => this.prevPairs.has(this.keys.pairs(f)[c]) : null;
    const ledger = frameLedger({
      header: this.header,
      frame: f,
      prev,
      prevEnergy: this.prevEnergy,
      energy,
      kinematics: kin,
      potentialPerImpulse: potential,
      persistent,
      preVelocities: bodies ? bodies.map((b) => ({ v: b.v, w: b.omega })) : null,
      restVelocityThreshold: this.opt.restVelocityThreshold ?? 0.5,
      speedTolerance: this.opt.speedTolerance,
      stabilisation: this.stab,
      manifolds,
      external: f.external
        ? externalWork(f, bodies ?? f.bodies.map(postAsSolveTime(this.header)), dvLambda ?? null, this.header.gravity, this.header.dt)
        : null,
    });
    // consistency first: findings of an inconsistent frame are marked
    const inconsistent =
      f.pre && bodies && solveTime?.ok && !solveTime.reconstructed && !this.tangentUnavailable
        ? this.checkConsistency(f, prev, blocks, contacts, dvLambda)
        : false;
    const mark = (x: Finding): Finding => (inconsistent ? { ...x, inconsistent: true } : x);
    const ids = this.keys.ids(f);
    const rose = ledger.delta - ledger.external > this.opt.energyTolerance;
    const attribution: FrameAttribution =
      ledger.contacts && bodies && contacts.length > 0 && potential
        ? attributeFrame(
            this.attribution,
            {
              frame: f,
              ledger: ledger.contacts,
              bodies,
              contacts,
              potential,
              overlapAppeared: (c) => this.overlapAppeared(f, ids, c),
              persistent: (c) => persistent?.(c) ?? false,
              rose,
            },
            this.cost,
          )
        : { shares: new Shares(), laws: [], continuation: new Map() };
    const shares = attribution.shares;
    // manifold friction rows against maximal dissipation (positive work along the post-step slip), spread over their contacts
    if (manifolds && !this.fittedFriction)
      manifolds.forEach((m, i) => {
        if (m.work > 0 && m.slipPower > 0) shares.spread('friction-positive-work', m.work, new Map(f.manifolds![i].contacts.map((c) => [c, 1])));
      });
    const before = this.findings.length;
    const reported = reportedMechanisms({
      frame: f,
      ledger,
      shares,
      laws: attribution.laws,
      savings: attribution.savings,
      energyTolerance: this.opt.energyTolerance,
      eulerResidual: this.eulerResidual,
      normalUnavailable: this.normalUnavailable,
      positionWeights: ledger.positionCorrection > this.opt.energyTolerance ? positionWeights(this.header, f, prev) : null,
    });
    const status = statusMeaning(solverKind(this.header), f.solver.status);
    for (const m of reported) {
      const joules = shares.total.get(m) ?? 0;
      const listed = listedContacts(shares, m, attribution.laws);
      const continuation = attribution.continuation.get(m);
      const text = describeInjection({
        mechanism: m,
        frame: f,
        ledger,
        joules,
        ranked: listed.all,
        laws: attribution.laws,
        savings: attribution.savings,
        continuation,
        model: this.stab,
        status,
        energyTolerance: this.opt.energyTolerance,
        fittedFriction: this.fittedFriction,
        eulerResidual: this.eulerResidual,
      });
      const { all: _all, ...contactFields } = listed;
      this.findings.push(
        mark({
          frame: f.frame,
          time: f.time,
          ...contactFields,
          mechanism: m,
          kind: 'injection',
          joules,
          severity: severityOf(m, attribution.savings),
          ...text,
          ...(attribution.savings && m !== 'integrator-drift' && m !== 'position-correction' ? { counterfactual: attribution.savings } : {}),
          ...(continuation ? { continuation } : {}),
        }),
      );
    }
    this.nonPhysicalFindings(f, ledger, before, mark);
    this.advance(f, ids);
    const injected = new Map<InjectionMechanism, number>();
    for (const m of reported) injected.set(m, shares.total.get(m) ?? 0);
    const byContact = new Map<number, number>();
    for (const m of reported) for (const [c, j] of shares.perContact.get(m) ?? []) byContact.set(c, (byContact.get(c) ?? 0) + j);
    this.lastLedger = ledger;
    this.keep({ ledger: { ...ledger, contacts: null }, injected, byContact });
    this.prev = f;
    this.prevEnergy = energy;
  }

  /** The format 1.1 initial state as the first frame's predecessor (the first step gets an energy change and a solve pose). */
  private start(f: RecordedFrame): void {
    this.started = true;
    const init = this.header.initial;
    if (!init || this.prev !== undefined || f.bodies.length !== init.bodies.length) return;
    // one step before it; an initial state further back still gives the energy change, not the solve pose
    this.prev =
      initialAsPrevious(this.header, f) ??
      (init.time === undefined
        ? { frame: f.frame - 1, time: f.time - this.header.dt, bodies: init.bodies, contacts: [], solver: { name: '', status: 'converged', lambda: [] } }
        : { frame: f.frame - 2, time: init.time, bodies: init.bodies, contacts: [], solver: { name: '', status: 'converged', lambda: [] } });
    this.prevEnergy ??= frameEnergy(this.header, this.prev);
  }

  /** A diverged simulation is data to show: its first non-finite frame is the finding, the rest is not analysed. */
  private blowUp(f: RecordedFrame, energy: number): void {
    if (!this.blownUp) {
      this.blownUp = true;
      const i = f.bodies.findIndex((b) => !finiteBody(b) || Math.hypot(b.v[0], b.v[1], b.v[2], b.w[0], b.w[1], b.w[2]) > 1e150);
      const what = `${i >= 0 ? `body ${i} (${this.header.bodies[i]?.name ?? '?'}) has ${finiteBody(f.bodies[i]) ? 'a velocity above 1e150' : 'a non-finite position or velocity'}` : 'its energy is not finite'}`;
      const text = `the simulation blows up at frame ${f.frame}: ${what}`;
      this.findings.push({
        frame: f.frame,
        time: f.time,
        contacts: [],
        mechanism: 'blow-up',
        kind: 'non-physical',
        severity: 'error',
        joules: 0,
        headline: `blow-up, frame ${f.frame}: ${what}`.slice(0, 119),
        summary: what,
        evidence: ['The frames before it are analysed as usual; the rest are not.'],
        explanation: `${text}; the frames before it are analysed as usual`,
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
  }

  /** Δv = M⁻¹Jᵀλ per body; the first failing frame is a finding, later ones only marked. */
  private checkConsistency(
    f: RecordedFrame,
    prev: RecordedFrame | undefined,
    blocks: ContactJacobians | null,
    contacts: ReturnType<typeof toContactPoint>[],
    dvLambda: Float64Array | undefined,
  ): boolean {
    this.checkedFrames++;
    const c = checkFrameConsistency(this.header, f, prev, blocks, contacts, dvLambda);
    let bad = false;
    if (c && c.body >= 0 && !(c.linearOk && c.angularOk)) {
      bad = true;
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
          headline: `inconsistent recording from frame ${f.frame}: Δv ≠ M⁻¹Jᵀλ on body ${c.body}${c.bug ? ` (${c.bug})` : ''}`.slice(0, 119),
          summary: `Δv ≠ M⁻¹Jᵀλ on body ${c.body}${c.bug ? ` (${c.bug})` : ''} from frame ${f.frame} on`,
          evidence: [`${c.text}.`, 'Findings on such frames rest on inconsistent data and are marked so.'],
          explanation: `inconsistent recording from frame ${f.frame} on: ${c.text}. Findings on such frames rest on inconsistent data and are marked so.`,
        });
      }
      this.consistency.frames++;
    }
    if (this.consistency) this.consistency.checked = this.checkedFrames;
    return bad;
  }

  /** Non-physical events of the frame, one finding per kind (contacts an injection already explains are not listed twice). */
  private nonPhysicalFindings(f: RecordedFrame, ledger: FrameLedger, before: number, mark: (x: Finding) => Finding): void {
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
      if (ev.kind === 'separating-with-impulse' && injected.has(ev.contact)) continue;
      const list = byKind.get(ev.kind) ?? [];
      list.push(ev);
      byKind.set(ev.kind, list);
    }
    for (const [kind, evs] of byKind) {
      const worst = evs.find((e) => e.severity === 'error') ?? evs[0];
      const contacts = evs.slice(0, LISTED_CONTACTS).map((e) => e.contact);
      const more = evs.length > 1 ? ` (${evs.length} contacts: ${contacts.map((c) => '#' + c).join(', ')}${evs.length > LISTED_CONTACTS ? ', …' : ''})` : '';
      const head = `${kind}, frame ${f.frame}, contact #${worst.contact}: ${worst.text}`;
      this.findings.push(
        mark({
          frame: f.frame,
          time: f.time,
          contacts,
          mechanism: kind,
          kind: 'non-physical',
          severity: worst.severity,
          joules: 0,
          headline: head.length <= 119 ? head : `${head.slice(0, 118)}…`,
          summary: worst.text.length <= 119 ? worst.text : `${worst.text.slice(0, 118)}…`,
          evidence: [`contact #${worst.contact}: ${worst.text}${more}.`],
          explanation: `contact #${worst.contact}: ${worst.text}${more}`,
        }),
      );
    }
  }

  /**
   * Contact c's overlap appeared this frame: it is new, or its pair was not this deep in the previous frame (a
   * body teleported or spawned into another). Pairs, not feature ids: not every engine keeps those stable.
   */
  private overlapAppeared(f: RecordedFrame, ids: Int32Array, c: number): boolean {
    if (ids[c] >= this.seen.length || this.seen[ids[c]] === 0) {
      this.assumed?.unseen.add(ids[c]);
      return true;
    }
    const before = this.prevPairDepth.get(this.keys.pairs(f)[c]);
    return before === undefined || f.contacts[c].depth - before >= 0.5 * this.opt.overlapDepth;
  }

  /** Contacts seen so far and the previous frame's pairs (with their deepest depth), for the next frame. */
  private advance(f: RecordedFrame, ids: Int32Array): void {
    this.prevPairs.clear();
    this.prevPairDepth.clear();
    const pairs = this.keys.pairs(f);
    for (let c = 0; c < pairs.length; c++) {
      this.prevPairs.add(pairs[c]);
      this.prevPairDepth.set(pairs[c], Math.max(this.prevPairDepth.get(pairs[c]) ?? Number.NEGATIVE_INFINITY, f.contacts[c].depth));
    }
    if (this.keys.size > this.seen.length) {
      const s = new Uint8Array(Math.max(this.keys.size, 2 * this.seen.length));
      s.set(this.seen);
      this.seen = s;
    }
    for (let c = 0; c < ids.length; c++) this.seen[ids[c]] = 1;
  }
}

/** Diagnoses frames in order (see Diagnoser). */
export function diagnose(header: RecordingHeader, frames: Iterable<RecordedFrame>, options: Partial<DiagnosisOptions> = {}, initialEnergy?: number): Finding[] {
  const d = new Diagnoser(header, options, initialEnergy);
  for (const f of frames) d.add(f);
  return d.findings;
}
