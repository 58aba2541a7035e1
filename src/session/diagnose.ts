/**
 * Energy-injection diagnosis of a recording (ours or another engine's): which frame, which contact,
 * which mechanism, how many joules. It needs only what the recording format holds: body masses and
 * inertias, per-frame states, pre-solve velocities, contacts and λ.
 *
 * A frame is examined when its total energy (kinetic + potential, from the recorded states) rose by more
 * than the tolerance. Per contact with λn > 0 the pre/post normal velocities are rebuilt exactly (ġ⁻ = J v⁻, ġ⁺ = ġ⁻ + J M⁻¹Jᵀλ,
 * seed 000 §4) and compared with the restitution target −e·ġ⁻ (seed 001 P2; zero below the rest-velocity
 * threshold, seed 000 §6.4). Energy attributed to a contact is the kinetic energy of its excess normal
 * speed over the target along its own effective mass, ½·m_eff·(ġ⁺² − target²), m_eff = 1/A_nn.
 */
import type { RecordedFrame, RecordingHeader } from '../format/recording.js';
import { toContactPoint } from '../format/recording.js';
import { quatToMat3 } from '../engine/math/quat.js';
import { contactKinematics } from './contactKinematics.js';

export type Mechanism =
  | 'restitution-overshoot'
  | 'bias-injection'
  | 'overlap-push-out'
  | 'friction-positive-work'
  | 'socp-separation'
  | 'non-converged-solve'
  | 'integrator-drift';


/** A finding: energy the frame gained (every mechanism above is a way energy gets in). */
export interface Finding {
  readonly frame: number;
  readonly time: number;
  readonly contacts: readonly number[];
  readonly mechanism: Mechanism;
  readonly joules: number;
  readonly explanation: string;
}

export interface DiagnosisOptions {
  /** Energy below this is not reported (J). */
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
}

/** Frame-level findings list at most this many contacts (the worst ones). */
export const LISTED_CONTACTS = 8;

export const DEFAULT_DIAGNOSIS: DiagnosisOptions = { energyTolerance: 1e-3, speedTolerance: 1e-3, overlapDepth: 0.02 };

function num(v: unknown): number | undefined { return typeof v === 'number' && Number.isFinite(v) ? v : undefined; }

/** Kinetic Σ ½m|v|² + ½ωᵀI_wω and potential Σ −m g·x energy of the frame's dynamic bodies (J). */
export function frameEnergyParts(header: RecordingHeader, f: RecordedFrame): { kinetic: number; potential: number } {
  const g = header.gravity;
  let kinetic = 0, potential = 0;
  header.bodies.forEach((b, i) => {
    if (b.static || b.mass === null) return;
    const s = f.bodies[i];
    kinetic += 0.5 * b.mass * (s.v[0] ** 2 + s.v[1] ** 2 + s.v[2] ** 2);
    potential -= b.mass * (g[0] * s.x[0] + g[1] * s.x[1] + g[2] * s.x[2]);
    // ½ωᵀI_wω with I_w = R I_b Rᵀ: ½ (Rᵀω)ᵀ I_b (Rᵀω)
    const R = quatToMat3(s.q);
    const wb = [0, 1, 2].map((k) => s.w[0] * R[k] + s.w[1] * R[3 + k] + s.w[2] * R[6 + k]);
    const I = b.inertia;
    if (I && I.length === 3) kinetic += 0.5 * (I[0] * wb[0] ** 2 + I[1] * wb[1] ** 2 + I[2] * wb[2] ** 2);
    else if (I && I.length === 9) for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) kinetic += 0.5 * wb[r] * I[3 * r + c] * wb[c];
  });
  return { kinetic, potential };
}

/** Total energy (kinetic + potential) of the frame's dynamic bodies. */
export function frameEnergy(header: RecordingHeader, f: RecordedFrame): number {
  const { kinetic, potential } = frameEnergyParts(header, f);
  return kinetic + potential;
}

export class Diagnoser {
  private prev: RecordedFrame | undefined;
  private prevEnergy: number | undefined;
  private readonly opt: DiagnosisOptions;
  /** PGS with the Coulomb-disk law has no QP-SOCP hop; any other (or unknown) solver may. */
  private readonly socpSolver: boolean;
  readonly findings: Finding[] = [];

  constructor(private readonly header: RecordingHeader, options: Partial<DiagnosisOptions> = {}, initialEnergy?: number) {
    const s = header.solver ?? { name: '' };
    this.opt = {
      ...DEFAULT_DIAGNOSIS,
      restVelocityThreshold: num(s.restVelocityThreshold) ?? 0.5,
      erp: num(s.erp), slop: num(s.slop),
      ...options,
    };
    this.prevEnergy = initialEnergy;
    this.socpSolver = !(s.name === 'pgs' && s.friction !== 'cone');
  }

  /** Diagnoses the next frame (frames must come in order). */
  add(f: RecordedFrame): void {
    const energy = frameEnergy(this.header, f);
    const dE = this.prevEnergy === undefined ? 0 : energy - this.prevEnergy;
    // Contact mechanisms are reported only for frames whose total energy rose: a contact's excess over the
    // restitution law that other contacts' dissipation outweighs is not an injection of energy.
    if (f.contacts.length > 0 && dE > this.opt.energyTolerance) this.contactFindings(f);
    if (f.solver.status !== 'converged' && f.contacts.length > 0 && dE > this.opt.energyTolerance) {
      const { contacts, note } = this.worstSeparating(f);
      this.findings.push({
        frame: f.frame, time: f.time, contacts, mechanism: 'non-converged-solve', joules: dE,
        explanation: `the solver stopped with status "${f.solver.status}"${f.solver.iterations !== undefined ? ` after ${f.solver.iterations} iterations` : ''} and the total energy rose by ${dE.toPrecision(3)} J; an unconverged λ is not the optimum of the contact problem, whose solution never adds energy (seed 002 §M7)${note}`,
      });
    } else if (f.contacts.length === 0 && dE > this.opt.energyTolerance) {
      this.findings.push({
        frame: f.frame, time: f.time, contacts: [], mechanism: 'integrator-drift', joules: dE,
        explanation: `total energy rose by ${dE.toPrecision(3)} J in a frame without contacts: only the time integration can do that (semi-implicit Euler loses ½mg²Δt² per step in free fall; a gain points at the integrator or at gyroscopic terms)`,
      });
    }
    this.prev = f;
    this.prevEnergy = energy;
  }

  /**
   * The contacts of a frame-level finding: those leaving fastest above their restitution target
   * (at most LISTED_CONTACTS), so a 1500-contact island does not list every contact.
   */
  private worstSeparating(f: RecordedFrame): { contacts: number[]; note: string } {
    const kin = contactKinematics(this.header, f, this.prev);
    const all = f.contacts.map((_, i) => i);
    if (!kin) return all.length <= LISTED_CONTACTS ? { contacts: all, note: '' } : { contacts: [], note: `; ${all.length} contacts, none listed (no pre-solve state)` };
    const rest = this.opt.restVelocityThreshold ?? 0.5;
    const excess = kin.map((k, c) => {
      const approach = -k.gBefore[0];
      return k.gAfter[0] - (approach > rest ? f.contacts[c].e * approach : 0);
    });
    const ranked = all.filter((c) => excess[c] > this.opt.speedTolerance).sort((a, b) => excess[b] - excess[a]);
    if (ranked.length === 0) return all.length <= LISTED_CONTACTS ? { contacts: all, note: '' } : { contacts: [], note: `; no contact separates above its restitution target` };
    const listed = ranked.slice(0, LISTED_CONTACTS);
    return {
      contacts: listed.sort((a, b) => a - b),
      note: ranked.length > LISTED_CONTACTS || all.length > listed.length ? `; listed: the ${listed.length} of ${f.contacts.length} contacts separating fastest above their restitution target (up to ${excess[ranked[0]].toPrecision(3)} m/s)` : '',
    };
  }

  private contactFindings(f: RecordedFrame): void {
    const kin = contactKinematics(this.header, f, this.prev);
    if (!kin) return;
    const C = f.contacts.length;
    const contacts = f.contacts.map(toContactPoint);
    const lam = f.solver.lambda;
    const prevFeatures = new Set((this.prev?.contacts ?? []).map((c) => `${c.a}|${c.b}|${c.feature ?? ''}`));
    const { speedTolerance: tol, energyTolerance: etol, restVelocityThreshold: rest = 0.5 } = this.opt;
    for (let c = 0; c < C; c++) {
      const { gBefore, gAfter, mEff } = kin[c];
      const ct = contacts[c];
      // Friction doing positive work (seed 002 §M7: λt·v_t⁺ ≤ 0 for a maximally dissipative solution).
      const wFriction = lam[3 * c + 1] * 0.5 * (gBefore[1] + gAfter[1]) + lam[3 * c + 2] * 0.5 * (gBefore[2] + gAfter[2]);
      if (wFriction > etol) {
        this.findings.push({ frame: f.frame, time: f.time, contacts: [c], mechanism: 'friction-positive-work', joules: wFriction,
          explanation: `the friction impulse (${lam[3 * c + 1].toPrecision(3)}, ${lam[3 * c + 2].toPrecision(3)}) N·s did +${wFriction.toPrecision(3)} J of work: it pushes along the sliding direction instead of against it (seed 002 §M7, eq. 44)` });
      }
      if (!(lam[3 * c] > 0)) continue;
      const approach = -gBefore[0];
      const target = approach > rest ? ct.restitution * approach : 0;
      const post = gAfter[0];
      const excess = post - target;
      if (!(excess > tol)) continue;
      const joules = 0.5 * mEff * (post * post - target * target);
      if (!(joules > etol)) continue;
      const bias = this.opt.erp !== undefined ? (this.opt.erp / this.header.dt) * Math.max(0, ct.penetration - (this.opt.slop ?? 0)) : undefined;
      const slide = Math.hypot(gAfter[1], gAfter[2]);
      const isNew = !prevFeatures.has(`${ct.bodyA}|${ct.bodyB}|${ct.featureId ?? ''}`);
      let mechanism: Mechanism, explanation: string;
      const what = `after the impulse the contact separates at ${post.toPrecision(3)} m/s, but the restitution target is ${target.toPrecision(3)} m/s (e = ${ct.restitution}, approach ${approach.toPrecision(3)} m/s)`;
      const hop = ct.mu * slide; // the QP-SOCP's normal velocity of a sliding contact (w_n = μ‖w_t‖)
      const slack = Math.max(tol, 1e-3 * excess);
      if (this.socpSolver && hop > tol && excess >= hop - slack && excess <= hop + (bias ?? 0) + slack) {
        mechanism = 'socp-separation';
        explanation = `${what}: the excess matches μ‖v_t‖ = ${hop.toPrecision(3)} m/s — the convex QP-SOCP friction model lifts a sliding contact off (w_n = μ‖w_t‖ from the KKT conditions, seeds 002/003, oracle FORMAT.md)`;
      } else if (ct.penetration > 0 && (bias === undefined ? true : excess <= bias + tol)) {
        mechanism = isNew && ct.penetration >= this.opt.overlapDepth ? 'overlap-push-out' : 'bias-injection';
        explanation = mechanism === 'overlap-push-out'
          ? `${what}: the contact appears with ${(ct.penetration * 1000).toPrecision(3)} mm overlap and the position correction turns it into separation speed (seed 001 P1)`
          : `${what}: the excess ${excess.toPrecision(3)} m/s ${bias !== undefined ? `matches the ERP bias (ERP/Δt)·(depth − slop) = ${bias.toPrecision(3)} m/s` : `comes with ${(ct.penetration * 1000).toPrecision(3)} mm penetration`}: position correction turned into kinetic energy (Baumgarte, seed 001 P1; split impulse avoids it)`;
      } else if (approach > rest) {
        mechanism = 'restitution-overshoot';
        explanation = `${what}: ${post > (1 + ct.restitution) * approach * 0.999 ? 'it leaves at (1+e) times the approach speed — the "−(1+e)·v used as a target" bug of seed 001 P2' : 'the impulse overshoots the restitution law'} (seed 000 §6.2)`;
      } else if (f.solver.status !== 'converged') {
        mechanism = 'non-converged-solve';
        explanation = `${what}: the solver stopped with status "${f.solver.status}", and this contact's λn = ${lam[3 * c].toPrecision(3)} N·s is not a solution of the contact problem`;
      } else {
        mechanism = 'bias-injection';
        explanation = `${what} below the rest-velocity threshold: a bias or stabilisation term made it separate`;
      }
      this.findings.push({ frame: f.frame, time: f.time, contacts: [c], mechanism, joules, explanation });
    }
  }
}

export function diagnose(header: RecordingHeader, frames: Iterable<RecordedFrame>, options: Partial<DiagnosisOptions> = {}): Finding[] {
  const d = new Diagnoser(header, options);
  for (const f of frames) d.add(f);
  return d.findings;
}
