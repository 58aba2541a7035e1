/**
 * What a finding says (docs/physics.md "Diagnosis"): a headline under 120 characters that names the mechanism,
 * frame, contacts, joules and the law the impulses obey; the evidence, one sentence each; the literature once.
 * Every number here comes from the finding's own fields, so a finding never contradicts itself.
 */
import type { RecordedFrame } from '../../format/recording.js';
import type { ContactLedger, FrameLedger } from '../frameLedger.js';
import type { ContinuationEvidence, CounterfactualSavings, InjectionMechanism } from './findings.js';
import type { ContactLaw } from './lawFit.js';
import { DE_SAXCE_STEPS } from './continuation.js';
import type { StabilisationModel } from '../frameLedger.js';

export const HEADLINE_MAX = 119;

/** x with 3 significant digits and an SI prefix for the unit (J, N·s, m/s, m): "42.0 mJ", "0.216 m/s", "4.00 mm". */
export function si(x: number, unit: string): string {
  if (!Number.isFinite(x)) return `${x} ${unit}`;
  if (x === 0) return `0 ${unit}`;
  const a = Math.abs(x);
  // speeds and ratios read best without a prefix in the usual range; energies, impulses and lengths take m and µ
  if (unit === 'm/s' || a >= 1 || a < 1e-9) return `${trim(x)} ${unit}`;
  if (a >= 1e-3) return `${trim(x * 1e3)} m${unit}`;
  if (a >= 1e-6) return `${trim(x * 1e6)} µ${unit}`;
  return `${trim(x * 1e9)} n${unit}`;
}

/** 3 significant digits without exponent noise (4.999999701976776e-1 → 0.5, 12345 → 1.23e+4). */
export function trim(x: number): string {
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e5 || a < 1e-4)) return x.toExponential(2);
  return String(Number(x.toPrecision(3)));
}

const signedJ = (j: number): string => `${j >= 0 ? '+' : ''}${si(j, 'J')}`;

/** The law a contact's impulse obeys, in one short clause (for headlines). */
export function lawClause(law: ContactLaw, depth: number, model: StabilisationModel, e: number): string {
  const y = `${trim(law.enforced)} m/s`;
  switch (law.normal) {
    case 'restitution':
      return `leaves at ${y} = Newton's law`;
    case 'restitution-overshoot':
      return `leaves at ${y} = (1+e)·v⁻ (e ${trim(e)}): −(1+e)·v⁻ as its target`;
    case 'stabilisation':
      return `pushed out at ${y}: declared ERP ${trim(model.erp)} bias on ${si(depth, 'm')} depth`;
    case 'baumgarte':
    case 'baumgarte-no-slop': {
      const k = law.k ?? 0;
      const below = law.normal === 'baumgarte-no-slop' && depth <= model.slop;
      const declared = model.source === 'declared-bias' ? ` (declared ERP ${trim(model.erp)}, slop ${si(model.slop, 'm')})` : '';
      return `separates at ${y} = ${trim(k)}·depth/Δt: Baumgarte with ERP ${trim(k)}${below ? ' below the declared slop' : ''}${declared}`;
    }
    case 'spring':
      return `pushed out at ${y}: the soft contact's spring on ${si(depth, 'm')} overlap`;
    case 'push-out':
      return `pushed out at ${y} ≤ depth/Δt: an undeclared position correction`;
    case 'convex-lift':
      return `lifts off at ${y} = μ‖v_t‖: the convex QP-SOCP model`;
    case 'speculative':
      return `approaches at ${y} = −gap/Δt (speculative)`;
    case 'open':
      return `open (λn = 0) at ${y}`;
    case 'none':
      return `enforces ${y}; no law fits (Newton's law ${trim(law.reference)} m/s)`;
  }
}

/** The evidence line of one contact's law: what it enforced, the law and its fitted parameter and residual. */
export function lawEvidence(c: number, law: ContactLaw, L: ContactLedger | undefined, f: RecordedFrame, model: StabilisationModel): string {
  const ct = f.contacts[c];
  const lam = f.solver.lambda;
  const approach = L ? `approach ${trim(L.approach)} m/s` : '';
  const soft = law.normal === 'spring' ? (L?.soft ?? model.soft) : undefined;
  const fit =
    law.normal === 'none'
      ? "no candidate law fits (Newton's law, (1+e)·v⁻, the declared stabilisation, a fitted Baumgarte k, a spring, the convex lift)"
      : soft
        ? `fits the declared soft contact's spring (k = ${soft.k.toPrecision(4)} 1/s², c = ${soft.c.toPrecision(4)} 1/s per unit effective mass), whose push in one step is at most h·k·depth + max(0, h·c − 1)·approach = ${trim(law.bound ?? law.predicted)} m/s (docs/recording-format.md "Soft contacts")`
        : `fits ${law.normal}${law.k !== undefined ? ` with k ${trim(law.k)}` : ''} (target ${trim(law.predicted)} m/s, residual ${trim(law.residual)} m/s)`;
  const friction =
    law.friction === 'none'
      ? ''
      : `; friction ${law.friction}${Number.isFinite(law.coneRatio) ? ` (‖λt‖/μλn ${trim(law.coneRatio)}${L ? `, slip ${trim(L.slip)} m/s` : ''})` : ''}`;
  return `contact #${c}: λn ${si(lam[3 * c], 'N·s')}, depth ${si(ct.depth, 'm')}, ${approach}, leaves at ${trim(law.enforced)} m/s; Newton's law ${trim(law.reference)} m/s (e ${trim(ct.e)}); ${fit}${friction}${model.source === 'declared-bias' && (law.normal === 'baumgarte' || law.normal === 'baumgarte-no-slop') ? `; declared ERP ${trim(model.erp)}, slop ${si(model.slop, 'm')}` : ''}.`;
}

/** The literature behind each mechanism, cited once per finding (and once per mechanism by the CLI). */
export const MECHANISM_SOURCE: Record<InjectionMechanism, string> = {
  'restitution-overshoot': 'Newton\'s restitution law targets ġn⁺ = −e·ġn⁻; −(1+e)·ġn⁻ is the velocity change, not the target (docs/physics.md "Restitution")',
  'bias-injection':
    'Baumgarte stabilisation and soft-contact springs turn overlap into kinetic energy (Catto, GDC 2005; Todorov 2014); split impulse or a position solve avoids it',
  'overlap-push-out': 'a velocity bias on a deep initial overlap turns it into separation speed (Catto, GDC 2005); a position pass avoids it',
  'friction-positive-work': 'maximal dissipation requires λt·v_t ≤ 0 for a sliding contact (Moreau 1988; Stewart & Trinkle 1996)',
  'socp-separation': "the convex QP-SOCP's w_n = μ‖w_t‖ lifts sliding contacts off (Anitescu 2006; Acary, Brémond & Huber 2018)",
  'non-converged-solve': 'projected Gauss–Seidel converges slowly on stiff, coupled islands (Erleben 2007); the status of a fixed-iteration solver is a label',
  'position-correction': 'a position pass (split impulse, non-linear Gauss–Seidel) moves bodies beyond v·Δt (Catto, GDC 2014)',
  'integrator-drift': 'semi-implicit Euler loses ½m|g|²Δt² per step in free fall; a gain points at the integrator (Hairer, Lubich & Wanner 2006)',
  unattributed: 'no candidate law fits the recorded impulses and no continuation of the solve removes the gain: the data are shown, no mechanism is guessed',
  'unattributed-gain': 'the normal impulses are not recorded (docs/recording-format.md "λ availability"): no mechanism is concluded from absent data',
};

export interface HeadlineInput {
  readonly mechanism: InjectionMechanism;
  readonly frame: number;
  readonly contacts: readonly number[];
  readonly joules: number;
  /** The law clause of the top contact, or the mechanism's own one-line summary. */
  readonly clause: string;
}

/** "+42.0 mJ bias-injection, frame 57, contact #8: separates at 0.216 m/s = 0.9·depth/Δt: …" cut to HEADLINE_MAX. */
export function headline(h: HeadlineInput): string {
  const where =
    h.contacts.length === 0
      ? ''
      : `, contact${h.contacts.length > 1 ? 's' : ''} ${h.contacts
          .slice(0, 3)
          .map((c) => `#${c}`)
          .join(' ')}${h.contacts.length > 3 ? ' …' : ''}`;
  const text = `${signedJ(h.joules)} ${h.mechanism}, frame ${h.frame}${where}: ${h.clause}`;
  return text.length <= HEADLINE_MAX ? text : `${text.slice(0, HEADLINE_MAX - 1)}…`;
}

/** Where De Saxcé's fixed point stopped at its step cap before its tolerance, how far its last step still moved E. */
function fixedPointCaveat(cf: CounterfactualSavings): string {
  if (cf.law !== 'coulomb' || !(cf.fixedPointOpen > 0)) return '';
  return ` The fixed point stopped at its cap of ${DE_SAXCE_STEPS} steps while its last step still moved E by up to ${si(cf.fixedPointOpen, 'J')}: these shares are accurate to about that.`;
}

/** Where the fixed point's step cap came first and the exact Coulomb solver (coulomb.ts) finished the re-solve. */
function coulombFinish(cf: CounterfactualSavings): string {
  return cf.coulombFinished > 0
    ? `, finished by the exact Coulomb solver where ${DE_SAXCE_STEPS} steps left it unsettled (${plural(cf.coulombFinished, 're-solve')})`
    : '';
}

/** The counterfactual line: what each exact re-solve saves. */
export function counterfactualEvidence(cf: CounterfactualSavings | undefined): string | null {
  if (cf && cf.islands > 0)
    return `Exact re-solves (${cf.law === 'coulomb' ? `Coulomb's law: De Saxcé's fixed point over the interior point${coulombFinish(cf)}` : 'the convex QP-SOCP: interior point'}) of ${plural(cf.islands, 'island')}: the recorded impulses lie ${si(cf.aboveLaw, 'J')} above Newton's law; the problem the contacts obey, solved exactly, saves ${si(cf.exactSolve, 'J')}; without its stabilisation ${si(cf.noStabilisation, 'J')} more; with Newton's law for its targets ${si(cf.restitutionLaw, 'J')} more (each share is booked within the ${si(cf.aboveLaw, 'J')}).${fixedPointCaveat(cf)}`;
  if (cf?.skipped.length) return `Not verified by an exact re-solve: ${cf.skipped[0]}.`;
  return null;
}

/** The continuation line: whether more sweeps of the engine's iteration remove the gain. */
export function continuationEvidence(c: ContinuationEvidence | undefined): string | null {
  if (!c) return null;
  const where = `the residual lies on ${c.spread} of ${c.islandContacts} contacts${c.islands > 1 ? ` in ${c.islands} islands` : ''}`;
  if (c.ran === 0)
    return c.islandContacts === 1
      ? `A single contact cannot be a truncated solve: ${si(c.excess, 'J')} is left unattributed.`
      : `No truncated solve without a spread residual: ${where}, so one contact's law would explain it; ${si(c.excess, 'J')} is left unattributed.`;
  const pct = c.excess > 0 ? Math.round((100 * c.removed) / c.excess) : 0;
  const n = c.sweeps > 0 ? c.sweeps : c.ran;
  return `Continuing Gauss–Seidel from the recorded λ on the problem the contacts obey: ${plural(n, 'more sweep')} remove${n === 1 ? 's' : ''} ${si(c.removed, 'J')} of the ${si(c.excess, 'J')} an exact solve would not inject (${pct} %); ${where}.`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The frame's total energy change, once. */
export function totalEvidence(ledger: FrameLedger, energyTolerance: number): string | null {
  if (!Number.isFinite(ledger.delta)) return null;
  const masked = ledger.delta - ledger.external <= energyTolerance ? ' — the injection is masked in the total: other contacts or the integrator lost more' : '';
  return `The frame's total energy changed by ${signedJ(ledger.delta)}${ledger.external !== 0 ? ` (external impulses did ${si(ledger.external, 'J')} of it)` : ''}${masked}.`;
}
